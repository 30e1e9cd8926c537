// COO sparse matrix-vector product with one thread per stored entry, in random
// order and with duplicates, so rows are hit concurrently: y[row] is updated by
// a double-precision add built from an atomicCAS loop on the 64-bit pattern,
// and a per-row max |a*x| by a float max built from atomicCAS on the 32-bit
// pattern. Row 0 is hot (0.5% of all entries) to force CAS retries. Values are
// integers, so the sums are exact in any order and compared exactly.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
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

__device__ double cas_add_double(double* addr, double v) {
  unsigned long long* p = (unsigned long long*)addr;
  unsigned long long old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, (unsigned long long)__double_as_longlong(__longlong_as_double((long long)assumed) + v));
  } while (assumed != old);
  return __longlong_as_double((long long)old);
}

__device__ float cas_max_float(float* addr, float v) {
  int* p = (int*)addr;
  int old = *p, assumed;
  while (__int_as_float(old) < v) {
    assumed = old;
    old = atomicCAS(p, assumed, __float_as_int(v));
    if (old == assumed) break;
  }
  return __int_as_float(old);
}

__global__ void coo_spmv(long long nnz, const int* __restrict__ row, const int* __restrict__ col,
                         const double* __restrict__ val, const double* __restrict__ x,
                         double* y, float* rowmax, unsigned long long* hot_updates) {
  long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (k >= nnz) return;
  double p = val[k] * x[col[k]];
  cas_add_double(&y[row[k]], p);
  float before = cas_max_float(&rowmax[row[k]], (float)fabs(p));
  (void)before;
  if (row[k] == 0) atomicAdd(hot_updates, 1ull);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 200000;
  long long nnz = argc > 2 ? atoll(argv[2]) : 2000000;
  if (n <= 1 || nnz <= 0) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  uint64_t s = 0x853c49e6748fea9bull;
  auto next = [&s]() { s = s * 6364136223846793005ull + 1442695040888963407ull; return (uint32_t)(s >> 32); };
  std::vector<int> row(nnz), col(nnz);
  std::vector<double> val(nnz), x(n);
  long long hot = 0;
  for (long long k = 0; k < nnz; ++k) {
    bool is_hot = next() % 200u == 0;
    row[k] = is_hot ? 0 : (int)(next() % (uint32_t)n);
    hot += row[k] == 0;
    col[k] = (int)(next() % (uint32_t)n);
    val[k] = (double)((int)(next() % 101u) - 50);
  }
  for (int i = 0; i < n; ++i) x[i] = (double)((int)(next() % 41u) - 20);
  int *drow, *dcol;
  double *dval, *dx, *dy;
  float* dmax;
  unsigned long long* dcount;
  CHECK(cudaMalloc(&drow, nnz * sizeof(int)));
  CHECK(cudaMalloc(&dcol, nnz * sizeof(int)));
  CHECK(cudaMalloc(&dval, nnz * sizeof(double)));
  CHECK(cudaMalloc(&dx, n * sizeof(double)));
  CHECK(cudaMalloc(&dy, n * sizeof(double)));
  CHECK(cudaMalloc(&dmax, n * sizeof(float)));
  CHECK(cudaMalloc(&dcount, sizeof(unsigned long long)));
  CHECK(cudaMemcpy(drow, row.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dcol, col.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dval, val.data(), nnz * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dy, 0, n * sizeof(double)));
  CHECK(cudaMemset(dmax, 0, n * sizeof(float)));  // 0.0f: every |a*x| is >= 0
  CHECK(cudaMemset(dcount, 0, sizeof(unsigned long long)));
  coo_spmv<<<(unsigned)((nnz + 255) / 256), 256>>>(nnz, drow, dcol, dval, dx, dy, dmax, dcount);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<double> gy(n);
  std::vector<float> gmax(n);
  unsigned long long ghot = 0;
  CHECK(cudaMemcpy(gy.data(), dy, n * sizeof(double), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gmax.data(), dmax, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&ghot, dcount, sizeof(ghot), cudaMemcpyDeviceToHost));

  std::vector<long long> ry(n, 0), rmax(n, 0);
  for (long long k = 0; k < nnz; ++k) {
    long long p = (long long)val[k] * (long long)x[col[k]];
    ry[row[k]] += p;
    if (llabs(p) > rmax[row[k]]) rmax[row[k]] = llabs(p);
  }
  long bad = 0;
  uint32_t h = 2166136261u;
  for (int i = 0; i < n; ++i) {
    if (gy[i] != (double)ry[i] || gmax[i] != (float)rmax[i]) {
      if (bad < 5) fprintf(stderr, "row %d: y %.17g/%lld max %g/%lld\n", i, gy[i], ry[i], gmax[i], rmax[i]);
      ++bad;
    }
    h = (h ^ (uint32_t)ry[i]) * 16777619u;
    h = (h ^ (uint32_t)(ry[i] >> 32)) * 16777619u;
    h = (h ^ (uint32_t)rmax[i]) * 16777619u;
  }
  if (ghot != (unsigned long long)hot) {
    fprintf(stderr, "hot-row updates %llu vs %lld\n", ghot, hot);
    ++bad;
  }
  CHECK(cudaFree(drow)); CHECK(cudaFree(dcol)); CHECK(cudaFree(dval));
  CHECK(cudaFree(dx)); CHECK(cudaFree(dy)); CHECK(cudaFree(dmax)); CHECK(cudaFree(dcount));
  if (bad) {
    printf("VERDICT: FAIL %ld mismatches\n", bad);
    return 1;
  }
  printf("VERDICT: PASS checksum=%08x\n", h);
  return 0;
}
