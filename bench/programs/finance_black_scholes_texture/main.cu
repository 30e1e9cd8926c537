// European options priced with Black-Scholes, the volatility interpolated
// from a 64 x 32 (moneyness x maturity) smile surface stored in a CUDA array.
// One texture object samples it with hardware bilinear filtering; another,
// with point sampling, reads every texel back, which must be exact.
// Option coordinates on the grid are multiples of 1/256, which the hardware's
// 8-bit fractional filter weights represent exactly, so the filtered value
// differs from the exact bilinear one only by float rounding.
// Tolerance on prices: 2e-3 (a fifth of a cent). Float rounding in the price
// formula on values up to 150 is about 1e-4, and float-versus-double
// interpolation of the volatility adds about 1e-5; a wrong texel, strike,
// maturity or formula moves prices by far more than the bound.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));   \
      printf("VERDICT: FAIL cuda-error\n");                                           \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

constexpr int NK = 64, NT = 32;
constexpr float RATE = 0.03f;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

struct Option { float spot, u, v; };  // u, v: grid coordinates (moneyness, maturity)

__host__ __device__ inline float moneyness(float u) { return 0.5f + u / (float)(NK - 1); }
__host__ __device__ inline float maturity(float v) { return 0.05f + v * (2.95f / (float)(NT - 1)); }

__global__ void price(cudaTextureObject_t vol_tex, const Option* __restrict__ opt, int n,
                      float2* __restrict__ out, float* __restrict__ vol_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Option o = opt[i];
  float vol = tex2D<float>(vol_tex, o.u + 0.5f, o.v + 0.5f);  // texel centres at +0.5
  float S = o.spot, K = S * moneyness(o.u), T = maturity(o.v);
  float sqT = sqrtf(T);
  float d1 = (logf(S / K) + (RATE + 0.5f * vol * vol) * T) / (vol * sqT);
  float d2 = d1 - vol * sqT;
  float disc = K * expf(-RATE * T);
  const float rs2 = 0.70710678f;
  float call = S * 0.5f * erfcf(-d1 * rs2) - disc * 0.5f * erfcf(-d2 * rs2);
  float put = disc * 0.5f * erfcf(d2 * rs2) - S * 0.5f * erfcf(d1 * rs2);
  out[i] = make_float2(call, put);
  vol_out[i] = vol;
}

__global__ void read_texels(cudaTextureObject_t point_tex, float* __restrict__ out) {
  int k = blockIdx.x * blockDim.x + threadIdx.x, t = blockIdx.y;
  if (k < NK) out[t * NK + k] = tex2D<float>(point_tex, k + 0.5f, t + 0.5f);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 500000;
  if (n <= 0 || n > (1 << 24)) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  // Smile: higher volatility away from the money, more so at short maturity.
  std::vector<float> surf(NK * NT);
  for (int t = 0; t < NT; ++t)
    for (int k = 0; k < NK; ++k) {
      double m = moneyness((float)k) - 1.0, T = maturity((float)t);
      surf[t * NK + k] = (float)(0.18 + 0.02 * std::sqrt(T) + (0.6 / (1.0 + 2.0 * T)) * m * m - 0.05 * m);
    }
  std::vector<Option> opt(n);
  uint32_t s = 0x9b05688cu;
  auto rnd = [&s]() {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
  };
  for (int i = 0; i < n; ++i) {
    float u = (float)(rnd() % (uint32_t)((NK - 1) * 256)) / 256.0f;
    float v = (float)(rnd() % (uint32_t)((NT - 1) * 256)) / 256.0f;
    opt[i] = {50.0f + (float)(rnd() % 10001u) / 100.0f, u, v};
  }

  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t arr;
  CHECK(cudaMallocArray(&arr, &desc, NK, NT));
  CHECK(cudaMemcpy2DToArray(arr, 0, 0, surf.data(), NK * sizeof(float), NK * sizeof(float), NT,
                            cudaMemcpyHostToDevice));
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = arr;
  cudaTextureDesc td{};
  td.addressMode[0] = cudaAddressModeClamp;
  td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 0;
  cudaTextureObject_t lin_tex = 0, pt_tex = 0;
  CHECK(cudaCreateTextureObject(&lin_tex, &res, &td, nullptr));
  td.filterMode = cudaFilterModePoint;
  CHECK(cudaCreateTextureObject(&pt_tex, &res, &td, nullptr));

  Option* d_opt;
  float2* d_out;
  float *d_vol, *d_texels;
  CHECK(cudaMalloc(&d_opt, n * sizeof(Option)));
  CHECK(cudaMalloc(&d_out, n * sizeof(float2)));
  CHECK(cudaMalloc(&d_vol, n * sizeof(float)));
  CHECK(cudaMalloc(&d_texels, NK * NT * sizeof(float)));
  CHECK(cudaMemcpy(d_opt, opt.data(), n * sizeof(Option), cudaMemcpyHostToDevice));
  price<<<(n + 255) / 256, 256>>>(lin_tex, d_opt, n, d_out, d_vol);
  CHECK(cudaGetLastError());
  read_texels<<<dim3(1, NT), NK>>>(pt_tex, d_texels);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float2> g(n);
  std::vector<float> g_vol(n), g_texels(NK * NT);
  CHECK(cudaMemcpy(g.data(), d_out, n * sizeof(float2), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_vol.data(), d_vol, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_texels.data(), d_texels, NK * NT * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaDestroyTextureObject(lin_tex));
  CHECK(cudaDestroyTextureObject(pt_tex));
  CHECK(cudaFreeArray(arr));
  CHECK(cudaFree(d_opt));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_vol));
  CHECK(cudaFree(d_texels));

  for (int i = 0; i < NK * NT; ++i)
    if (g_texels[i] != surf[i]) {
      printf("VERDICT: FAIL point-sampled texel %d: %.8f != %.8f\n", i, g_texels[i], surf[i]);
      return 1;
    }
  uint32_t c = 2166136261u;
  double worst = 0, worst_vol = 0;
  for (int i = 0; i < n; ++i) {
    const Option& o = opt[i];
    int k0 = (int)o.u, t0 = (int)o.v;
    double a = o.u - k0, b = o.v - t0;
    double vol = (1 - a) * (1 - b) * surf[t0 * NK + k0] + a * (1 - b) * surf[t0 * NK + k0 + 1] +
                 (1 - a) * b * surf[(t0 + 1) * NK + k0] + a * b * surf[(t0 + 1) * NK + k0 + 1];
    double S = o.spot, K = (double)o.spot * (double)moneyness(o.u), T = maturity(o.v);
    double sqT = std::sqrt(T);
    double d1 = (std::log(S / K) + (RATE + 0.5 * vol * vol) * T) / (vol * sqT), d2 = d1 - vol * sqT;
    double disc = K * std::exp(-(double)RATE * T);
    double call = S * 0.5 * std::erfc(-d1 / std::sqrt(2.0)) - disc * 0.5 * std::erfc(-d2 / std::sqrt(2.0));
    double put = disc * 0.5 * std::erfc(d2 / std::sqrt(2.0)) - S * 0.5 * std::erfc(d1 / std::sqrt(2.0));
    double e = std::fmax(std::fabs(g[i].x - call), std::fabs(g[i].y - put));
    double parity = std::fabs((double)g[i].x - g[i].y - (S - disc));
    worst = std::fmax(worst, e);
    worst_vol = std::fmax(worst_vol, std::fabs(g_vol[i] - vol));
    if (e > 2e-3 || parity > 2e-3) {
      printf("VERDICT: FAIL option %d: call %.5f put %.5f, expected %.5f %.5f (vol %.6f vs %.6f)\n", i,
             g[i].x, g[i].y, call, put, g_vol[i], vol);
      return 1;
    }
    long long cents[2] = {std::llround(call * 100.0), std::llround(put * 100.0)};
    c = fnv1a(c, cents, sizeof(cents));
  }
  fprintf(stderr, "largest price error %.3g, volatility error %.3g\n", worst, worst_vol);
  printf("options=%d surface=%dx%d\n", n, NK, NT);
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
