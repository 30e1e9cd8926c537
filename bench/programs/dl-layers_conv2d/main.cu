// Forward pass of a small convolution layer: N x 16 x 64 x 64 input, 32
// filters of 16 x 3 x 3, stride 1, zero padding 1, bias, ReLU, then 2 x 2 max
// pooling. A 16 x 16 block computes a 16 x 16 output tile for 8 filters: for
// each input channel it stages an 18 x 18 tile (with halo and zero padding)
// in shared memory; weights come from constant memory. The CPU convolves in
// double and also sums the magnitudes of each output's 144 terms: the float
// result may differ by at most 144 * 2^-24 (about 9e-6) of that sum, and the
// check allows 2e-5 of it.
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

constexpr int C = 16, H = 64, W = 64, K = 32, TILE = 16, KPB = 8;
constexpr int HP = H / 2, WP = W / 2;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

__constant__ float c_w[K * C * 9];
__constant__ float c_b[K];

__global__ void conv3x3_relu(const float* __restrict__ x, float* __restrict__ y) {
  __shared__ float tile[TILE + 2][TILE + 2];
  const int n = blockIdx.z / (K / KPB), k0 = (blockIdx.z % (K / KPB)) * KPB;
  const int ox = blockIdx.x * TILE + threadIdx.x, oy = blockIdx.y * TILE + threadIdx.y;
  float acc[KPB];
  for (int q = 0; q < KPB; ++q) acc[q] = 0.f;
  for (int c = 0; c < C; ++c) {
    const float* xc = x + ((size_t)n * C + c) * H * W;
    // Stage the (TILE+2)^2 tile; each thread loads one or two elements.
    for (int i = threadIdx.y * TILE + threadIdx.x; i < (TILE + 2) * (TILE + 2); i += TILE * TILE) {
      int ty = i / (TILE + 2), tx = i % (TILE + 2);
      int gy = blockIdx.y * TILE + ty - 1, gx = blockIdx.x * TILE + tx - 1;
      tile[ty][tx] = (gy >= 0 && gy < H && gx >= 0 && gx < W) ? xc[gy * W + gx] : 0.f;
    }
    __syncthreads();
    for (int q = 0; q < KPB; ++q) {
      const float* w = c_w + ((k0 + q) * C + c) * 9;
      float s = 0.f;
      for (int dy = 0; dy < 3; ++dy)
        for (int dx = 0; dx < 3; ++dx) s += w[dy * 3 + dx] * tile[threadIdx.y + dy][threadIdx.x + dx];
      acc[q] += s;
    }
    __syncthreads();
  }
  for (int q = 0; q < KPB; ++q)
    y[(((size_t)n * K + k0 + q) * H + oy) * W + ox] = fmaxf(acc[q] + c_b[k0 + q], 0.f);
}

__global__ void maxpool2(const float* __restrict__ y, float* __restrict__ out, int total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total) return;
  int px = i % WP, py = (i / WP) % HP, plane = i / (WP * HP);
  const float* p = y + (size_t)plane * H * W + (2 * py) * W + 2 * px;
  out[i] = fmaxf(fmaxf(p[0], p[1]), fmaxf(p[W], p[W + 1]));
}

int main(int argc, char** argv) {
  int N = argc > 1 ? atoi(argv[1]) : 2;
  if (N < 1 || N > 64) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  uint32_t s = 0x2b992ddfu;
  auto uni = [&s]() {  // uniform in [-1, 1)
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return (float)((double)s / 2147483648.0 - 1.0);
  };
  std::vector<float> x((size_t)N * C * H * W), w(K * C * 9), b(K);
  for (auto& v : x) v = uni();
  for (auto& v : w) v = 0.25f * uni();
  for (auto& v : b) v = 0.1f * uni();
  const size_t ysz = (size_t)N * K * H * W, psz = (size_t)N * K * HP * WP;
  float *d_x, *d_y, *d_p;
  CHECK(cudaMemcpyToSymbol(c_w, w.data(), w.size() * sizeof(float)));
  CHECK(cudaMemcpyToSymbol(c_b, b.data(), b.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_x, x.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_y, ysz * sizeof(float)));
  CHECK(cudaMalloc(&d_p, psz * sizeof(float)));
  CHECK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  conv3x3_relu<<<dim3(W / TILE, H / TILE, N * (K / KPB)), dim3(TILE, TILE)>>>(d_x, d_y);
  CHECK(cudaGetLastError());
  maxpool2<<<(unsigned)((psz + 255) / 256), 256>>>(d_y, d_p, (int)psz);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> gy(ysz), gp(psz);
  CHECK(cudaMemcpy(gy.data(), d_y, ysz * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gp.data(), d_p, psz * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_y));
  CHECK(cudaFree(d_p));

  std::vector<double> ry(ysz), mag(ysz);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      for (int oy = 0; oy < H; ++oy)
        for (int ox = 0; ox < W; ++ox) {
          double acc = b[k], m = std::fabs(b[k]);
          for (int c = 0; c < C; ++c) {
            const float* xc = &x[((size_t)n * C + c) * H * W];
            const float* wk = &w[(k * C + c) * 9];
            for (int dy = -1; dy <= 1; ++dy) {
              int iy = oy + dy;
              if (iy < 0 || iy >= H) continue;
              for (int dx = -1; dx <= 1; ++dx) {
                int ix = ox + dx;
                if (ix < 0 || ix >= W) continue;
                double t = (double)wk[(dy + 1) * 3 + dx + 1] * xc[iy * W + ix];
                acc += t;
                m += std::fabs(t);
              }
            }
          }
          size_t i = (((size_t)n * K + k) * H + oy) * W + ox;
          ry[i] = acc > 0 ? acc : 0;
          mag[i] = m;
          if (std::fabs(gy[i] - ry[i]) > 2e-5 * m + 1e-7) {
            printf("VERDICT: FAIL conv output n=%d k=%d (%d,%d): %.7f, expected %.7f\n", n, k, oy, ox, gy[i], ry[i]);
            return 1;
          }
        }
  uint32_t c = 2166136261u;
  long long positive = 0;
  for (size_t i = 0; i < psz; ++i) {
    int px = (int)(i % WP), py = (int)((i / WP) % HP);
    size_t base = (i / (WP * HP)) * H * W + (size_t)(2 * py) * W + 2 * px;
    size_t idx[4] = {base, base + 1, base + W, base + W + 1};
    double r = 0, m = 0;
    for (size_t j : idx) {
      r = std::fmax(r, ry[j]);
      m = std::fmax(m, mag[j]);
    }
    if (std::fabs(gp[i] - r) > 2e-5 * m + 1e-7) {
      printf("VERDICT: FAIL pooled output %zu: %.7f, expected %.7f\n", i, gp[i], r);
      return 1;
    }
    positive += r > 0 ? 1 : 0;
    long long q = std::llround(r * 1024.0);
    c = fnv1a(c, &q, sizeof(q));
  }
  printf("batch=%d conv=%dx%dx%dx%d pooled=%zu nonzero=%lld\n", N, K, C, 3, 3, psz, positive);
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
