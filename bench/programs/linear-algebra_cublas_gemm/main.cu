// cuBLAS level 1-3 on integer-valued float data: a transposed SGEMM, SGEMV on
// its result, SAXPY, SDOT, ISAMAX and SNRM2. Every intermediate is an integer
// below 2^24, so all but SNRM2 are exact in any summation order and are checked
// exactly against a CPU reference (column-major throughout).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t err_ = (call);                                                       \
    if (err_ != cudaSuccess) {                                                       \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));  \
      printf("VERDICT: FAIL cuda-error\n");                                          \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)
#define CHECK_BLAS(call)                                                             \
  do {                                                                               \
    cublasStatus_t st_ = (call);                                                     \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                              \
      fprintf(stderr, "%s:%d: cublas status %d\n", __FILE__, __LINE__, (int)st_);    \
      printf("VERDICT: FAIL cublas-error\n");                                        \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

static uint32_t g_s = 0xabcdef01u;
static float small_int() {  // integer in [-3, 3]
  g_s = g_s * 1103515245u + 12345u;
  return (float)((int)((g_s >> 16) % 7u) - 3);
}

int main(int argc, char** argv) {
  int M = argc > 1 ? atoi(argv[1]) : 300;
  int N = argc > 2 ? atoi(argv[2]) : 200;
  int K = argc > 3 ? atoi(argv[3]) : 256;
  int L = argc > 4 ? atoi(argv[4]) : 100000;
  if (M <= 0 || N <= 0 || K <= 0 || K > 1024 || N > 256 || L <= 0 || L > 1000000) {
    printf("VERDICT: FAIL bad-args\n");  // the bounds keep every value exact in float
    return 1;
  }
  // A is stored K x M (lda = K) and used transposed; B is K x N; C is M x N.
  float* A = (float*)malloc((size_t)K * M * sizeof(float));
  float* B = (float*)malloc((size_t)K * N * sizeof(float));
  float* C = (float*)malloc((size_t)M * N * sizeof(float));
  float* x = (float*)malloc(N * sizeof(float));
  float* u = (float*)malloc(L * sizeof(float));
  float* v = (float*)malloc(L * sizeof(float));
  for (size_t i = 0; i < (size_t)K * M; ++i) A[i] = small_int();
  for (size_t i = 0; i < (size_t)K * N; ++i) B[i] = small_int();
  for (size_t i = 0; i < (size_t)M * N; ++i) C[i] = small_int();
  for (int i = 0; i < N; ++i) x[i] = small_int();
  for (int i = 0; i < L; ++i) u[i] = small_int();
  for (int i = 0; i < L; ++i) v[i] = small_int();

  cublasHandle_t handle;
  CHECK_BLAS(cublasCreate(&handle));
  float *dA, *dB, *dC, *dx, *dy, *du, *dv;
  CHECK(cudaMalloc(&dA, (size_t)K * M * sizeof(float)));
  CHECK(cudaMalloc(&dB, (size_t)K * N * sizeof(float)));
  CHECK(cudaMalloc(&dC, (size_t)M * N * sizeof(float)));
  CHECK(cudaMalloc(&dx, N * sizeof(float)));
  CHECK(cudaMalloc(&dy, M * sizeof(float)));
  CHECK(cudaMalloc(&du, L * sizeof(float)));
  CHECK(cudaMalloc(&dv, L * sizeof(float)));
  CHECK_BLAS(cublasSetMatrix(K, M, sizeof(float), A, K, dA, K));
  CHECK_BLAS(cublasSetMatrix(K, N, sizeof(float), B, K, dB, K));
  CHECK_BLAS(cublasSetMatrix(M, N, sizeof(float), C, M, dC, M));
  CHECK_BLAS(cublasSetVector(N, sizeof(float), x, 1, dx, 1));
  CHECK_BLAS(cublasSetVector(L, sizeof(float), u, 1, du, 1));
  CHECK_BLAS(cublasSetVector(L, sizeof(float), v, 1, dv, 1));

  const float alpha = 1.0f, beta = 2.0f, zero = 0.0f, three = 3.0f;
  CHECK_BLAS(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, dA, K, dB, K, &beta, dC, M));
  CHECK_BLAS(cublasSgemv(handle, CUBLAS_OP_N, M, N, &alpha, dC, M, dx, 1, &zero, dy, 1));
  CHECK_BLAS(cublasSaxpy(handle, L, &three, du, 1, dv, 1));  // v = 3u + v
  float gdot = 0.0f, gnrm = 0.0f;
  int gidx = 0;
  CHECK_BLAS(cublasSdot(handle, L, du, 1, dv, 1, &gdot));
  CHECK_BLAS(cublasIsamax(handle, M, dy, 1, &gidx));
  CHECK_BLAS(cublasSnrm2(handle, M, dy, 1, &gnrm));
  float* gC = (float*)malloc((size_t)M * N * sizeof(float));
  float* gy = (float*)malloc(M * sizeof(float));
  float* gv = (float*)malloc(L * sizeof(float));
  CHECK_BLAS(cublasGetMatrix(M, N, sizeof(float), dC, M, gC, M));
  CHECK_BLAS(cublasGetVector(M, sizeof(float), dy, 1, gy, 1));
  CHECK_BLAS(cublasGetVector(L, sizeof(float), dv, 1, gv, 1));
  CHECK(cudaDeviceSynchronize());

  long bad = 0;
  uint32_t h = 2166136261u;
  auto mix = [&h](long long val) { h = (h ^ (uint32_t)val) * 16777619u; h = (h ^ (uint32_t)(val >> 32)) * 16777619u; };
  long long* rC = (long long*)malloc((size_t)M * N * sizeof(long long));
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < M; ++i) {
      long long acc = 0;
      for (int k = 0; k < K; ++k) acc += (long long)A[(size_t)i * K + k] * (long long)B[(size_t)j * K + k];
      long long ref = acc + 2 * (long long)C[(size_t)j * M + i];
      rC[(size_t)j * M + i] = ref;
      if ((long long)gC[(size_t)j * M + i] != ref && bad++ < 5) fprintf(stderr, "C(%d,%d) differs\n", i, j);
      mix(ref);
    }
  long long best = -1, sumsq = 0;
  int bidx = 0;
  for (int i = 0; i < M; ++i) {
    long long acc = 0;
    for (int j = 0; j < N; ++j) acc += rC[(size_t)j * M + i] * (long long)x[j];
    if ((long long)gy[i] != acc && bad++ < 5) fprintf(stderr, "y[%d] differs\n", i);
    long long a = acc < 0 ? -acc : acc;
    if (a > best) { best = a; bidx = i + 1; }  // ISAMAX: first maximum, 1-based
    sumsq += acc * acc;
    mix(acc);
  }
  long long dot = 0;
  for (int i = 0; i < L; ++i) {
    long long rv = 3 * (long long)u[i] + (long long)v[i];
    if ((long long)gv[i] != rv && bad++ < 5) fprintf(stderr, "v[%d] differs\n", i);
    dot += (long long)u[i] * rv;
  }
  if ((long long)gdot != dot && bad++ < 5) fprintf(stderr, "dot %g vs %lld\n", gdot, dot);
  if (gidx != bidx && bad++ < 5) fprintf(stderr, "isamax %d vs %d\n", gidx, bidx);
  double rn = sqrt((double)sumsq);
  if (fabs(gnrm - rn) > 1e-5 * rn && bad++ < 5) fprintf(stderr, "nrm2 %g vs %g\n", gnrm, rn);
  mix(dot);
  mix(bidx);
  mix(sumsq);
  CHECK_BLAS(cublasDestroy(handle));
  CHECK(cudaFree(dA)); CHECK(cudaFree(dB)); CHECK(cudaFree(dC)); CHECK(cudaFree(dx));
  CHECK(cudaFree(dy)); CHECK(cudaFree(du)); CHECK(cudaFree(dv));
  free(A); free(B); free(C); free(x); free(u); free(v); free(gC); free(gy); free(gv); free(rC);
  if (bad) {
    printf("VERDICT: FAIL %ld mismatches\n", bad);
    return 1;
  }
  printf("VERDICT: PASS checksum=%08x\n", h);
  return 0;
}
