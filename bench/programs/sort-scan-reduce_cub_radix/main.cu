// CUB device- and block-level primitives: DeviceRadixSort::SortPairs (stable,
// so the payload order is determined), DeviceScan::ExclusiveSum,
// DeviceReduce::Sum and ::Max, DeviceSelect::If with a functor, and a custom
// kernel using BlockReduce and BlockScan for per-block minima and in-block
// ranks. Temporary storage is sized by the usual null-pointer query. The CPU
// reference (LSD radix sort, plain loops) is exact.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cub/cub.cuh>
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

constexpr int kBlock = 256;
constexpr uint32_t kSelectBelow = 1u << 28;

struct MinOp {
  __host__ __device__ uint32_t operator()(uint32_t a, uint32_t b) const { return a < b ? a : b; }
};
struct Below {
  __host__ __device__ bool operator()(uint32_t k) const { return k < kSelectBelow; }
};

// Per block: minimum key, and for each element the number of even keys before
// it within the block.
__global__ void block_stats(const uint32_t* __restrict__ keys, int n, uint32_t* __restrict__ bmin, int* __restrict__ rank) {
  typedef cub::BlockReduce<uint32_t, kBlock> Reduce;
  typedef cub::BlockScan<int, kBlock> Scan;
  __shared__ union {
    typename Reduce::TempStorage reduce;
    typename Scan::TempStorage scan;
  } tmp;
  int i = blockIdx.x * kBlock + threadIdx.x;
  uint32_t k = i < n ? keys[i] : 0xffffffffu;
  uint32_t m = Reduce(tmp.reduce).Reduce(k, MinOp());
  if (threadIdx.x == 0) bmin[blockIdx.x] = m;
  __syncthreads();  // tmp is reused
  int even = (i < n && (k & 1u) == 0) ? 1 : 0, before = 0;
  Scan(tmp.scan).ExclusiveSum(even, before);
  if (i < n) rank[i] = before;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : (1 << 21) + 5;
  if (n <= 0) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  std::vector<uint32_t> keys(n), vals(n), w(n);
  uint32_t s = 0x3956c25bu;
  for (int i = 0; i < n; ++i) {
    s ^= s << 13; s ^= s >> 17; s ^= s << 5;
    keys[i] = (i % 3 == 0) ? (s & 0xffffu) : s;  // many duplicate small keys: stability matters
    vals[i] = (uint32_t)i;
    w[i] = s >> 24;
  }
  int nblk = (n + kBlock - 1) / kBlock;
  uint32_t *dk, *dv, *dk2, *dv2, *dw, *dscan, *dmax, *dsel, *dbmin;
  unsigned int* dsum;
  int *dnsel, *drank;
  CHECK(cudaMalloc(&dk, n * sizeof(uint32_t)));
  CHECK(cudaMalloc(&dv, n * sizeof(uint32_t)));
  CHECK(cudaMalloc(&dk2, n * sizeof(uint32_t)));
  CHECK(cudaMalloc(&dv2, n * sizeof(uint32_t)));
  CHECK(cudaMalloc(&dw, n * sizeof(uint32_t)));
  CHECK(cudaMalloc(&dscan, n * sizeof(uint32_t)));
  CHECK(cudaMalloc(&dsel, n * sizeof(uint32_t)));
  CHECK(cudaMalloc(&dmax, sizeof(uint32_t)));
  CHECK(cudaMalloc(&dsum, sizeof(unsigned int)));
  CHECK(cudaMalloc(&dnsel, sizeof(int)));
  CHECK(cudaMalloc(&dbmin, nblk * sizeof(uint32_t)));
  CHECK(cudaMalloc(&drank, n * sizeof(int)));
  CHECK(cudaMemcpy(dk, keys.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dv, vals.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dw, w.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));

  size_t b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0;
  CHECK(cub::DeviceRadixSort::SortPairs(nullptr, b1, dk, dk2, dv, dv2, n));
  CHECK(cub::DeviceScan::ExclusiveSum(nullptr, b2, dw, dscan, n));
  CHECK(cub::DeviceReduce::Sum(nullptr, b3, dw, dsum, n));
  CHECK(cub::DeviceReduce::Max(nullptr, b4, dk, dmax, n));
  CHECK(cub::DeviceSelect::If(nullptr, b5, dk, dsel, dnsel, n, Below()));
  size_t bytes = b1;
  for (size_t b : {b2, b3, b4, b5}) bytes = b > bytes ? b : bytes;
  void* tmp;
  CHECK(cudaMalloc(&tmp, bytes));
  CHECK(cub::DeviceRadixSort::SortPairs(tmp, b1, dk, dk2, dv, dv2, n));
  CHECK(cub::DeviceScan::ExclusiveSum(tmp, b2, dw, dscan, n));
  CHECK(cub::DeviceReduce::Sum(tmp, b3, dw, dsum, n));
  CHECK(cub::DeviceReduce::Max(tmp, b4, dk, dmax, n));
  CHECK(cub::DeviceSelect::If(tmp, b5, dk, dsel, dnsel, n, Below()));
  block_stats<<<nblk, kBlock>>>(dk, n, dbmin, drank);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<uint32_t> gk(n), gv(n), gscan(n), gsel(n), gbmin(nblk);
  std::vector<int> grank(n);
  uint32_t gmax = 0;
  unsigned int gsum = 0;
  int gnsel = 0;
  CHECK(cudaMemcpy(gk.data(), dk2, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gv.data(), dv2, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gscan.data(), dscan, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gsel.data(), dsel, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gbmin.data(), dbmin, nblk * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(grank.data(), drank, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&gmax, dmax, sizeof(gmax), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&gsum, dsum, sizeof(gsum), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&gnsel, dnsel, sizeof(gnsel), cudaMemcpyDeviceToHost));

  // CPU: stable LSD radix sort, 8 bits per pass.
  std::vector<uint32_t> rk = keys, rv = vals, tk(n), tv(n);
  for (int shift = 0; shift < 32; shift += 8) {
    int cnt[257] = {0};
    for (int i = 0; i < n; ++i) cnt[((rk[i] >> shift) & 255u) + 1]++;
    for (int b = 0; b < 256; ++b) cnt[b + 1] += cnt[b];
    for (int i = 0; i < n; ++i) {
      int d = cnt[(rk[i] >> shift) & 255u]++;
      tk[d] = rk[i];
      tv[d] = rv[i];
    }
    rk.swap(tk);
    rv.swap(tv);
  }
  long bad = 0;
  uint32_t h = 2166136261u, acc = 0, rmax = 0;
  int rnsel = 0, even = 0;
  for (int i = 0; i < n; ++i) {
    if ((gk[i] != rk[i] || gv[i] != rv[i]) && bad++ < 5) fprintf(stderr, "sorted[%d] (%u,%u) vs (%u,%u)\n", i, gk[i], gv[i], rk[i], rv[i]);
    if (gscan[i] != acc && bad++ < 5) fprintf(stderr, "scan[%d] %u vs %u\n", i, gscan[i], acc);
    if (i % kBlock == 0) even = 0;
    if (grank[i] != even && bad++ < 5) fprintf(stderr, "rank[%d] %d vs %d\n", i, grank[i], even);
    even += (keys[i] & 1u) == 0;
    h = (h ^ rv[i]) * 16777619u;
    h = (h ^ acc) * 16777619u;
    acc += w[i];
    rmax = keys[i] > rmax ? keys[i] : rmax;
    if (keys[i] < kSelectBelow) {
      if ((rnsel >= gnsel || gsel[rnsel] != keys[i]) && bad++ < 5) fprintf(stderr, "select[%d] differs\n", rnsel);
      ++rnsel;
    }
  }
  for (int b = 0; b < nblk; ++b) {
    uint32_t m = 0xffffffffu;
    for (int i = b * kBlock; i < n && i < (b + 1) * kBlock; ++i) m = keys[i] < m ? keys[i] : m;
    if (gbmin[b] != m && bad++ < 5) fprintf(stderr, "block %d min %u vs %u\n", b, gbmin[b], m);
    h = (h ^ m) * 16777619u;
  }
  if ((gsum != acc || gmax != rmax || gnsel != rnsel) && bad++ < 5)
    fprintf(stderr, "sum %u/%u max %u/%u selected %d/%d\n", gsum, acc, gmax, rmax, gnsel, rnsel);
  h = (h ^ acc) * 16777619u;
  h = (h ^ rmax) * 16777619u;
  h = (h ^ (uint32_t)rnsel) * 16777619u;
  CHECK(cudaFree(dk)); CHECK(cudaFree(dv)); CHECK(cudaFree(dk2)); CHECK(cudaFree(dv2)); CHECK(cudaFree(dw));
  CHECK(cudaFree(dscan)); CHECK(cudaFree(dsel)); CHECK(cudaFree(dmax)); CHECK(cudaFree(dsum));
  CHECK(cudaFree(dnsel)); CHECK(cudaFree(dbmin)); CHECK(cudaFree(drank)); CHECK(cudaFree(tmp));
  if (bad) {
    printf("VERDICT: FAIL %ld mismatches\n", bad);
    return 1;
  }
  printf("selected %d of %d keys\n", rnsel, n);
  printf("VERDICT: PASS checksum=%08x\n", h);
  return 0;
}
