// Linear layer on tensor cores. X (M x K) and W (N x K) are half precision,
// row major; W read as a column-major K x N operand gives X W^T directly.
// Each warp owns one 16 x 16 output tile (warp index threadIdx.x / 32, four
// warps per block covering 32 x 32) and accumulates 16 x 16 x 16 WMMA
// products in float. Inputs are multiples of 1/16 in [-1, 1], so products are
// multiples of 1/256 and every partial sum of K = 256 terms is an exact float:
// the matrix product must equal the CPU's integer product exactly, whatever
// order the tensor cores add in. An epilogue kernel adds the bias and applies
// the tanh form of GELU, checked to 1e-5 * (1 + |value|) against double.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));   \
      printf("VERDICT: FAIL cuda-error\n");                                           \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

using namespace nvcuda;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

__global__ void linear_wmma(const __half* __restrict__ X, const __half* __restrict__ Wt, int M, int N, int K,
                            float* __restrict__ Y) {
  int warp = threadIdx.x / 32;
  int row0 = blockIdx.y * 32 + (warp / 2) * 16, col0 = blockIdx.x * 32 + (warp % 2) * 16;
  if (row0 >= M || col0 >= N) return;  // uniform per warp
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, X + (size_t)row0 * K + k, K);
    wmma::load_matrix_sync(b, Wt + (size_t)col0 * K + k, K);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(Y + (size_t)row0 * N + col0, acc, N, wmma::mem_row_major);
}

__global__ void bias_gelu(const float* __restrict__ Y, const float* __restrict__ bias, int M, int N,
                          float* __restrict__ Z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= M * N) return;
  float v = Y[i] + bias[i % N];
  Z[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
}

int main(int argc, char** argv) {
  int M = argc > 1 ? atoi(argv[1]) : 512;
  int K = argc > 2 ? atoi(argv[2]) : 256;
  int N = argc > 3 ? atoi(argv[3]) : 512;
  if (M < 32 || N < 32 || K < 16 || M % 32 || N % 32 || K % 16 || M > 8192 || N > 8192 || K > 1024) {
    printf("VERDICT: FAIL bad-args (M, N multiples of 32; K a multiple of 16, at most 1024)\n");
    return 1;
  }
  uint32_t s = 0x3f84d5b5u;
  auto r16 = [&s]() {  // integer in [-16, 16]
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return (int)(s % 33u) - 16;
  };
  std::vector<int> xi((size_t)M * K), wi((size_t)N * K), bi(N);
  std::vector<__half> xh(xi.size()), wh(wi.size());
  std::vector<float> bias(N);
  for (size_t i = 0; i < xi.size(); ++i) xh[i] = __float2half((xi[i] = r16()) / 16.0f);
  for (size_t i = 0; i < wi.size(); ++i) wh[i] = __float2half((wi[i] = r16()) / 16.0f);
  for (int n = 0; n < N; ++n) bias[n] = (bi[n] = r16()) / 16.0f;

  __half *d_x, *d_w;
  float *d_y, *d_z, *d_b;
  CHECK(cudaMalloc(&d_x, xh.size() * sizeof(__half)));
  CHECK(cudaMalloc(&d_w, wh.size() * sizeof(__half)));
  CHECK(cudaMalloc(&d_y, (size_t)M * N * sizeof(float)));
  CHECK(cudaMalloc(&d_z, (size_t)M * N * sizeof(float)));
  CHECK(cudaMalloc(&d_b, N * sizeof(float)));
  CHECK(cudaMemcpy(d_x, xh.data(), xh.size() * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_w, wh.data(), wh.size() * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_b, bias.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  linear_wmma<<<dim3(N / 32, M / 32), 128>>>(d_x, d_w, M, N, K, d_y);
  CHECK(cudaGetLastError());
  bias_gelu<<<(M * N + 255) / 256, 256>>>(d_y, d_b, M, N, d_z);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> gy((size_t)M * N), gz((size_t)M * N);
  CHECK(cudaMemcpy(gy.data(), d_y, gy.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gz.data(), d_z, gz.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_x));
  CHECK(cudaFree(d_w));
  CHECK(cudaFree(d_y));
  CHECK(cudaFree(d_z));
  CHECK(cudaFree(d_b));

  uint32_t c = 2166136261u;
  double worst = 0;
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      const int* xr = &xi[(size_t)m * K];
      const int* wr = &wi[(size_t)n * K];
      long long acc = 0;  // in units of 1/256
      for (int k = 0; k < K; ++k) acc += xr[k] * wr[k];
      size_t i = (size_t)m * N + n;
      if ((double)gy[i] * 256.0 != (double)acc) {
        printf("VERDICT: FAIL product (%d,%d): %.6f, expected %.6f\n", m, n, gy[i], acc / 256.0);
        return 1;
      }
      double v = acc / 256.0 + bi[n] / 16.0;
      double ref = 0.5 * v * (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
      double e = std::fabs(gz[i] - ref);
      worst = std::fmax(worst, e / (1.0 + std::fabs(ref)));
      if (e > 1e-5 * (1.0 + std::fabs(ref))) {
        printf("VERDICT: FAIL GELU (%d,%d): %.7f, expected %.7f\n", m, n, gz[i], ref);
        return 1;
      }
      long long q[2] = {acc, std::llround(ref * 1e3)};
      c = fnv1a(c, q, sizeof(q));
    }
  fprintf(stderr, "largest relative GELU error %.3g\n", worst);
  printf("M=%d K=%d N=%d\n", M, K, N);
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
