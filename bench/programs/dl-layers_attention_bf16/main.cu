// Causal self-attention, O = softmax(Q K^T / sqrt(d) + mask) V, for BH heads of
// S tokens and head size 64, with Q, K, V and O stored as __nv_bfloat16. One
// warp handles one query row: lane l scores keys l, l+32, l+64, ... (S/32 per
// lane), the row maximum and sum come from __shfl_xor_sync butterflies, and
// for the value product every probability is broadcast from its lane with
// __shfl_sync while lane l accumulates output dimensions l and l+32. The
// result is rounded to bf16 (round to nearest: at most 2^-8 relative). The
// CPU computes in double from the same bf16 inputs; the check allows
// 2^-8 * |ref| + 1e-4, the rounding plus float accumulation error.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_bf16.h>
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

constexpr int D = 64;
constexpr int MAX_S = 512;
constexpr unsigned FULL = 0xffffffffu;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

template <int PER_LANE>
__global__ void attention(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ Kt,
                          const __nv_bfloat16* __restrict__ V, int BH, int S, __nv_bfloat16* __restrict__ O) {
  int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x & 31;
  if (w >= BH * S) return;  // whole warps
  int bh = w / S, i = w % S;
  const __nv_bfloat16* q = Q + ((size_t)bh * S + i) * D;
  const float scale = rsqrtf((float)D);
  float p[PER_LANE];
  float m = -INFINITY;
  for (int t = 0; t < PER_LANE; ++t) {
    int j = t * 32 + lane;
    float sc = -INFINITY;
    if (j <= i && j < S) {
      const __nv_bfloat16* k = Kt + ((size_t)bh * S + j) * D;
      float dot = 0.f;
      for (int d = 0; d < D; ++d) dot += __bfloat162float(q[d]) * __bfloat162float(k[d]);
      sc = dot * scale;
    }
    p[t] = sc;
    m = fmaxf(m, sc);
  }
  for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(FULL, m, off));
  float sum = 0.f;
  for (int t = 0; t < PER_LANE; ++t) {
    p[t] = (t * 32 + lane <= i) ? expf(p[t] - m) : 0.f;  // key 0 is always visible: m is finite
    sum += p[t];
  }
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(FULL, sum, off);
  float o0 = 0.f, o1 = 0.f;
  for (int t = 0; t < PER_LANE; ++t)
    for (int src = 0; src < 32; ++src) {
      float pj = __shfl_sync(FULL, p[t], src);
      int j = t * 32 + src;
      if (j <= i) {
        const __nv_bfloat16* v = V + ((size_t)bh * S + j) * D;
        o0 += pj * __bfloat162float(v[lane]);
        o1 += pj * __bfloat162float(v[lane + 32]);
      }
    }
  __nv_bfloat16* o = O + ((size_t)bh * S + i) * D;
  o[lane] = __float2bfloat16_rn(o0 / sum);
  o[lane + 32] = __float2bfloat16_rn(o1 / sum);
}

int main(int argc, char** argv) {
  int BH = argc > 1 ? atoi(argv[1]) : 32;
  int S = argc > 2 ? atoi(argv[2]) : 128;
  if (BH < 1 || BH > 1024 || S < 1 || S > MAX_S) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  const size_t sz = (size_t)BH * S * D;
  uint32_t s = 0x7137449au;
  auto uni = [&s]() {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return (float)((double)s / 2147483648.0 - 1.0);
  };
  std::vector<__nv_bfloat16> q(sz), k(sz), v(sz);
  std::vector<float> qf(sz), kf(sz), vf(sz);
  for (size_t i = 0; i < sz; ++i) {
    q[i] = __float2bfloat16_rn(2.0f * uni());  // larger queries sharpen the softmax
    k[i] = __float2bfloat16_rn(uni());
    v[i] = __float2bfloat16_rn(uni());
    qf[i] = __bfloat162float(q[i]);
    kf[i] = __bfloat162float(k[i]);
    vf[i] = __bfloat162float(v[i]);
  }
  __nv_bfloat16 *d_q, *d_k, *d_v, *d_o;
  CHECK(cudaMalloc(&d_q, sz * sizeof(__nv_bfloat16)));
  CHECK(cudaMalloc(&d_k, sz * sizeof(__nv_bfloat16)));
  CHECK(cudaMalloc(&d_v, sz * sizeof(__nv_bfloat16)));
  CHECK(cudaMalloc(&d_o, sz * sizeof(__nv_bfloat16)));
  CHECK(cudaMemcpy(d_q, q.data(), sz * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_k, k.data(), sz * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_v, v.data(), sz * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
  const int threads = 256;
  const unsigned blocks = (unsigned)(((size_t)BH * S * 32 + threads - 1) / threads);
  attention<MAX_S / 32><<<blocks, threads>>>(d_q, d_k, d_v, BH, S, d_o);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<__nv_bfloat16> o(sz);
  CHECK(cudaMemcpy(o.data(), d_o, sz * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_q));
  CHECK(cudaFree(d_k));
  CHECK(cudaFree(d_v));
  CHECK(cudaFree(d_o));

  uint32_t c = 2166136261u;
  std::vector<double> p(S);
  double worst = 0;
  for (int bh = 0; bh < BH; ++bh)
    for (int i = 0; i < S; ++i) {
      const float* qi = &qf[((size_t)bh * S + i) * D];
      double m = -1e300, sum = 0;
      for (int j = 0; j <= i; ++j) {
        const float* kj = &kf[((size_t)bh * S + j) * D];
        double dot = 0;
        for (int d = 0; d < D; ++d) dot += (double)qi[d] * kj[d];
        p[j] = dot / std::sqrt((double)D);
        m = p[j] > m ? p[j] : m;
      }
      for (int j = 0; j <= i; ++j) sum += (p[j] = std::exp(p[j] - m));
      for (int d = 0; d < D; ++d) {
        double ref = 0;
        for (int j = 0; j <= i; ++j) ref += p[j] * vf[((size_t)bh * S + j) * D + d];
        ref /= sum;
        double got = __bfloat162float(o[((size_t)bh * S + i) * D + d]);
        double e = std::fabs(got - ref);
        worst = std::fmax(worst, e / (std::fabs(ref) + 1e-4));
        if (e > std::ldexp(std::fabs(ref), -8) + 1e-4) {
          printf("VERDICT: FAIL head %d row %d dim %d: %.6f, expected %.6f\n", bh, i, d, got, ref);
          return 1;
        }
        long long qv = std::llround(ref * 256.0);
        c = fnv1a(c, &qv, sizeof(qv));
      }
    }
  fprintf(stderr, "largest relative error %.3g\n", worst);
  printf("heads=%d seq=%d head_dim=%d\n", BH, S, D);
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
