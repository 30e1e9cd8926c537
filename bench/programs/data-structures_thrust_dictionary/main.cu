// A read-only dictionary on the GPU, assembled only from thrust algorithms:
// (word id, score) events are sorted by key and reduced into unique keys with
// summed scores and counts; a transform derives a per-key mean in fixed point;
// lookups use vectorized lower_bound and binary_search. The CPU builds the
// same dictionary with flat per-id arrays; all values are integers and compared exactly.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>
#include <cuda_runtime.h>
#include <thrust/binary_search.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/tuple.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));   \
      printf("VERDICT: FAIL cuda-error\n");                                           \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

constexpr uint32_t KEY_MUL = 2654435761u;
constexpr uint32_t KEY_INV = 244002641u;  // KEY_MUL * KEY_INV == 1 (mod 2^32)

// (sum, count) pairs add component-wise.
struct AddPair {
  __host__ __device__ thrust::tuple<long long, int> operator()(
      const thrust::tuple<long long, int>& a, const thrust::tuple<long long, int>& b) const {
    return thrust::make_tuple(thrust::get<0>(a) + thrust::get<0>(b),
                              thrust::get<1>(a) + thrust::get<1>(b));
  }
};

// Mean score times 16, truncated toward zero (integer division, as on the CPU).
struct MeanFixed {
  __host__ __device__ long long operator()(long long sum, int count) const {
    return sum * 16 / count;
  }
};

struct IsFrequent {
  int threshold;
  __host__ __device__ bool operator()(int count) const { return count >= threshold; }
};

static int run(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000000;
  int nq = argc > 2 ? atoi(argv[2]) : 400000;
  if (n <= 0 || nq <= 0 || n > (1 << 26) || nq > (1 << 24)) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  // Word ids in [0, U), Zipf-like (the smaller of two uniforms); the key is
  // id * odd constant (mod 2^32), a bijection, so keys stay distinct per id
  // but their order is scrambled. Scores may be negative.
  const uint32_t U = 100000;
  thrust::host_vector<uint32_t> h_keys(n);
  thrust::host_vector<long long> h_scores(n);
  std::vector<long long> id_sum(U, 0);
  std::vector<int> id_count(U, 0);
  uint64_t s = 0x243f6a8885a308d3ULL;
  auto rnd = [&s]() {
    s ^= s << 7;
    s ^= s >> 9;
    return s;
  };
  for (int i = 0; i < n; ++i) {
    uint64_t r = rnd();
    uint32_t a = (uint32_t)(r % U), b = (uint32_t)((r >> 20) % U);
    uint32_t id = a < b ? a : b;
    h_keys[i] = id * KEY_MUL;
    h_scores[i] = (long long)((r >> 40) % 2001u) - 1000;
    id_sum[id] += h_scores[i];
    id_count[id] += 1;
  }
  thrust::host_vector<uint32_t> h_queries(nq);
  for (int i = 0; i < nq; ++i) {
    uint64_t r = rnd();
    h_queries[i] = (i % 2 == 0) ? h_keys[(size_t)(r % (uint64_t)n)] : (uint32_t)(r >> 16);
  }
  // CPU reference: present ids, in key order.
  std::vector<uint32_t> ref_keys;
  for (uint32_t id = 0; id < U; ++id)
    if (id_count[id] > 0) ref_keys.push_back(id * KEY_MUL);
  std::sort(ref_keys.begin(), ref_keys.end());

  thrust::device_vector<uint32_t> keys = h_keys;
  thrust::device_vector<long long> scores = h_scores;
  thrust::sort_by_key(keys.begin(), keys.end(), scores.begin());
  thrust::device_vector<uint32_t> ukeys(n);
  thrust::device_vector<long long> sums(n);
  thrust::device_vector<int> counts(n);
  auto vals_in = thrust::make_zip_iterator(
      thrust::make_tuple(scores.begin(), thrust::make_constant_iterator(1)));
  auto vals_out = thrust::make_zip_iterator(thrust::make_tuple(sums.begin(), counts.begin()));
  auto ends = thrust::reduce_by_key(keys.begin(), keys.end(), vals_in, ukeys.begin(), vals_out,
                                    thrust::equal_to<uint32_t>(), AddPair());
  const size_t m = (size_t)(ends.first - ukeys.begin());
  thrust::device_vector<long long> means(m);
  thrust::transform(sums.begin(), sums.begin() + m, counts.begin(), means.begin(), MeanFixed());
  const long long frequent =
      thrust::count_if(counts.begin(), counts.begin() + m, IsFrequent{20});

  thrust::device_vector<uint32_t> queries = h_queries;
  thrust::device_vector<uint32_t> where(nq);
  thrust::device_vector<bool> found(nq);
  thrust::lower_bound(ukeys.begin(), ukeys.begin() + m, queries.begin(), queries.end(),
                      where.begin());
  thrust::binary_search(ukeys.begin(), ukeys.begin() + m, queries.begin(), queries.end(),
                        found.begin());
  CHECK(cudaDeviceSynchronize());

  thrust::host_vector<uint32_t> g_keys(ukeys.begin(), ukeys.begin() + m);
  thrust::host_vector<long long> g_sums(sums.begin(), sums.begin() + m);
  thrust::host_vector<int> g_counts(counts.begin(), counts.begin() + m);
  thrust::host_vector<long long> g_means = means;
  thrust::host_vector<uint32_t> g_where = where;
  thrust::host_vector<bool> g_found = found;

  if (m != ref_keys.size()) {
    printf("VERDICT: FAIL %zu unique keys, expected %zu\n", m, ref_keys.size());
    return 1;
  }
  long long ref_frequent = 0;
  uint32_t c = 2166136261u;
  for (size_t idx = 0; idx < m; ++idx) {
    uint32_t id = ref_keys[idx] * KEY_INV;
    long long sum = id_sum[id];
    int count = id_count[id];
    long long mean = sum * 16 / count;
    if (g_keys[idx] != ref_keys[idx] || g_sums[idx] != sum || g_counts[idx] != count ||
        g_means[idx] != mean) {
      printf("VERDICT: FAIL entry %zu (key %08x) differs\n", idx, ref_keys[idx]);
      return 1;
    }
    ref_frequent += count >= 20 ? 1 : 0;
    c = fnv1a(c, &ref_keys[idx], sizeof(uint32_t));
    c = fnv1a(c, &mean, sizeof(mean));
    c = fnv1a(c, &count, sizeof(int));
  }
  if (frequent != ref_frequent) {
    printf("VERDICT: FAIL count_if %lld != %lld\n", frequent, ref_frequent);
    return 1;
  }
  const std::vector<uint32_t>& sorted_keys = ref_keys;
  long long hits = 0;
  for (int q = 0; q < nq; ++q) {
    // CPU lower_bound by hand, independent of thrust's host path.
    size_t lo = 0, hi = sorted_keys.size();
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (sorted_keys[mid] < h_queries[q]) lo = mid + 1;
      else hi = mid;
    }
    bool hit = lo < sorted_keys.size() && sorted_keys[lo] == h_queries[q];
    if (g_where[q] != (uint32_t)lo || (bool)g_found[q] != hit) {
      printf("VERDICT: FAIL query %d (%08x): lower_bound %u/%zu found %d/%d\n", q, h_queries[q],
             g_where[q], lo, (int)g_found[q], (int)hit);
      return 1;
    }
    hits += hit ? 1 : 0;
    uint32_t lo32 = (uint32_t)lo;
    c = fnv1a(c, &lo32, sizeof(lo32));
  }
  printf("events=%d unique=%zu frequent=%lld query_hits=%lld\n", n, m, ref_frequent, hits);
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}

int main(int argc, char** argv) {
  // thrust reports CUDA failures as exceptions.
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    fprintf(stderr, "exception: %s\n", e.what());
    printf("VERDICT: FAIL cuda-error\n");
    return 1;
  }
}
