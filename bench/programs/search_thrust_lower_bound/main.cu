// Vectorized binary search with thrust: sort a million keys with duplicates,
// then for a batch of queries run thrust::lower_bound, thrust::upper_bound and
// thrust::binary_search, derive occurrence counts with thrust::transform,
// count distinct keys with thrust::unique, and total the hits with
// thrust::reduce and thrust::count_if. The CPU reference uses a counting
// table over the small key range, so every answer is exact.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <thrust/binary_search.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/unique.h>

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t err_ = (call);                                                       \
    if (err_ != cudaSuccess) {                                                       \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));  \
      printf("VERDICT: FAIL cuda-error\n");                                          \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

struct Positive {
  __host__ __device__ bool operator()(int c) const { return c > 0; }
};

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
  int nq = argc > 2 ? atoi(argv[2]) : 1 << 17;
  const uint32_t range = 1u << 20;
  if (n <= 0 || nq <= 0) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  thrust::host_vector<uint32_t> hkeys(n), hq(nq);
  uint32_t s = 0xe9b5dba5u;
  auto next = [&s]() { s ^= s << 13; s ^= s >> 17; s ^= s << 5; return s; };
  for (int i = 0; i < n; ++i) {
    uint32_t r = next();
    hkeys[i] = (r & 7u) == 0 ? (r >> 3) % 512u : (r >> 3) % range;  // a crowded low range
  }
  for (int i = 0; i < nq; ++i) hq[i] = next() % (range + range / 16);  // some beyond every key
  try {
    thrust::device_vector<uint32_t> keys = hkeys, queries = hq;
    thrust::sort(keys.begin(), keys.end());
    thrust::device_vector<int> lo(nq), hi(nq), cnt(nq);
    thrust::device_vector<bool> found(nq);
    thrust::lower_bound(keys.begin(), keys.end(), queries.begin(), queries.end(), lo.begin());
    thrust::upper_bound(keys.begin(), keys.end(), queries.begin(), queries.end(), hi.begin());
    thrust::binary_search(keys.begin(), keys.end(), queries.begin(), queries.end(), found.begin());
    thrust::transform(hi.begin(), hi.end(), lo.begin(), cnt.begin(), thrust::minus<int>());
    long long total = thrust::reduce(cnt.begin(), cnt.end(), 0LL, thrust::plus<long long>());
    long long hits = thrust::count_if(cnt.begin(), cnt.end(), Positive());
    thrust::device_vector<uint32_t> uniq = keys;
    long long distinct = thrust::unique(uniq.begin(), uniq.end()) - uniq.begin();
    CHECK(cudaDeviceSynchronize());
    thrust::host_vector<uint32_t> gkeys = keys;
    thrust::host_vector<int> glo = lo, ghi = hi;
    thrust::host_vector<bool> gfound = found;

    std::vector<int> table(range + 1, 0);  // table[v] = number of keys < v
    for (int i = 0; i < n; ++i) table[hkeys[i] + 1]++;
    for (uint32_t v = 0; v < range; ++v) table[v + 1] += table[v];
    long bad = 0, rtotal = 0, rhits = 0, rdistinct = 0;
    uint32_t h = 2166136261u;
    for (int i = 0; i < n; ++i) {  // sorted order: key v occupies [table[v], table[v+1])
      uint32_t v = gkeys[i];
      if ((v >= range || i < table[v] || i >= table[v + 1]) && bad++ < 5) fprintf(stderr, "sorted[%d] = %u out of place\n", i, v);
    }
    for (uint32_t v = 0; v < range; ++v) rdistinct += table[v + 1] > table[v];
    for (int i = 0; i < nq; ++i) {
      uint32_t q = hq[i];
      int rl = q < range ? table[q] : n, rh = q < range ? table[q + 1] : n;
      bool rf = rh > rl;
      if ((glo[i] != rl || ghi[i] != rh || (bool)gfound[i] != rf) && bad++ < 5)
        fprintf(stderr, "query %d (%u): gpu [%d,%d) %d cpu [%d,%d) %d\n", i, q, glo[i], ghi[i], (int)gfound[i], rl, rh, rf);
      rtotal += rh - rl;
      rhits += rf;
      h = (h ^ (uint32_t)rl) * 16777619u;
      h = (h ^ (uint32_t)rh) * 16777619u;
    }
    if ((total != rtotal || hits != rhits || distinct != rdistinct) && bad++ < 5)
      fprintf(stderr, "totals: %lld/%ld hits %lld/%ld distinct %lld/%ld\n", total, rtotal, hits, rhits, distinct, rdistinct);
    if (bad) {
      printf("VERDICT: FAIL %ld mismatches\n", bad);
      return 1;
    }
    printf("distinct keys %ld, queries hit %ld, total occurrences %ld\n", rdistinct, rhits, rtotal);
    h = (h ^ (uint32_t)rdistinct) * 16777619u;
    printf("VERDICT: PASS checksum=%08x\n", h);
  } catch (const std::exception& e) {
    fprintf(stderr, "thrust: %s\n", e.what());
    printf("VERDICT: FAIL cuda-error\n");
    return 1;
  }
  return 0;
}
