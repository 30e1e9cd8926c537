// GPU hash table with open addressing. Insert: a thread claims an empty slot
// with atomicCAS or finds its key already there, then bumps that slot's count,
// so duplicates collapse into one entry with their multiplicity. Because a
// claimed slot never becomes empty again, two threads inserting the same key
// walk the same probe sequence and meet in the same slot. Lookups run after
// all inserts; a compaction kernel lists the occupied slots. Everything is
// integer and compared exactly with counts kept by the CPU.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <hip/hip_runtime.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    hipError_t err_ = (call);                                                        \
    if (err_ != hipSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, hipGetErrorString(err_));   \
      printf("VERDICT: FAIL cuda-error\n");                                           \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

constexpr uint32_t EMPTY = 0xffffffffu;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

__host__ __device__ inline uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x;
}

__global__ void insert_keys(const uint32_t* __restrict__ keys, int n, uint32_t* tkeys,
                            uint32_t* tcounts, uint32_t mask, unsigned* max_probe) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t k = keys[i];
  uint32_t slot = mix32(k) & mask;
  unsigned probes = 1;
  while (true) {
    uint32_t prev = atomicCAS(&tkeys[slot], EMPTY, k);
    if (prev == EMPTY || prev == k) {
      atomicAdd(&tcounts[slot], 1u);
      break;
    }
    slot = (slot + 1) & mask;
    ++probes;
  }
  atomicMax(max_probe, probes);
}

__global__ void lookup_keys(const uint32_t* __restrict__ queries, int n,
                            const uint32_t* __restrict__ tkeys,
                            const uint32_t* __restrict__ tcounts, uint32_t mask,
                            uint32_t* __restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t k = queries[i];
  uint32_t slot = mix32(k) & mask;
  uint32_t result = 0;
  for (uint32_t probe = 0; probe <= mask; ++probe) {
    uint32_t t = tkeys[slot];
    if (t == k) {
      result = tcounts[slot];
      break;
    }
    if (t == EMPTY) break;
    slot = (slot + 1) & mask;
  }
  out[i] = result;
}

__global__ void compact_slots(const uint32_t* __restrict__ tkeys,
                              const uint32_t* __restrict__ tcounts, uint32_t capacity,
                              uint2* __restrict__ pairs, unsigned* __restrict__ npairs) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= capacity || tkeys[i] == EMPTY) return;
  unsigned pos = atomicAdd(npairs, 1u);
  pairs[pos] = make_uint2(tkeys[i], tcounts[i]);
}

// x * inverse == 1 (mod 2^31) for odd x, by Newton iteration.
static uint32_t inverse_mod_2_31(uint32_t x) {
  uint32_t y = x;
  for (int i = 0; i < 5; ++i) y *= 2u - x * y;
  return y & 0x7fffffffu;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000003;
  if (n <= 0 || n > (1 << 24)) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  // Capacity: the power of two at or above 2n (load factor at most one half).
  uint32_t capacity = 1;
  while (capacity < 2u * (uint32_t)n) capacity <<= 1;
  const uint32_t mask = capacity - 1;

  uint32_t s = 0x1234567u;
  auto rnd = [&s]() {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
  };
  // Keys come from a universe of about n/2 values u, mapped to 31-bit keys by
  // a multiplication with an odd constant modulo 2^31, a bijection: the CPU
  // reference can count per u in a flat array and map keys back to u.
  const uint32_t universe = (uint32_t)n / 2 + 1;
  const uint32_t ODD = 0x9e3779b1u, ODD_INV = inverse_mod_2_31(ODD);
  std::vector<uint32_t> keys(n), queries(n), ref_count(universe, 0u);
  for (int i = 0; i < n; ++i) {
    uint32_t u = rnd() % universe;
    keys[i] = (u * ODD) & 0x7fffffffu;
    ref_count[u]++;
  }
  // Odd-numbered queries hit (taken from the keys); even-numbered ones have
  // the top bit set and can never hit.
  for (int i = 0; i < n; ++i)
    queries[i] = (i & 1) ? (keys[rnd() % (uint32_t)n]) : (0x80000000u | (rnd() & 0x7ffffffeu));
  uint32_t distinct = 0;
  for (uint32_t u = 0; u < universe; ++u) distinct += ref_count[u] ? 1u : 0u;

  uint32_t *d_keys, *d_queries, *d_tkeys, *d_tcounts, *d_out;
  unsigned *d_npairs, *d_maxprobe;
  uint2* d_pairs;
  CHECK(hipMalloc(&d_keys, (size_t)n * 4));
  CHECK(hipMalloc(&d_queries, (size_t)n * 4));
  CHECK(hipMalloc(&d_out, (size_t)n * 4));
  CHECK(hipMalloc(&d_tkeys, (size_t)capacity * 4));
  CHECK(hipMalloc(&d_tcounts, (size_t)capacity * 4));
  CHECK(hipMalloc(&d_pairs, (size_t)capacity * sizeof(uint2)));
  CHECK(hipMalloc(&d_npairs, sizeof(unsigned)));
  CHECK(hipMalloc(&d_maxprobe, sizeof(unsigned)));
  CHECK(hipMemcpy(d_keys, keys.data(), (size_t)n * 4, hipMemcpyHostToDevice));
  CHECK(hipMemcpy(d_queries, queries.data(), (size_t)n * 4, hipMemcpyHostToDevice));
  CHECK(hipMemset(d_tkeys, 0xff, (size_t)capacity * 4));  // every slot EMPTY
  CHECK(hipMemset(d_tcounts, 0, (size_t)capacity * 4));
  CHECK(hipMemset(d_npairs, 0, sizeof(unsigned)));
  CHECK(hipMemset(d_maxprobe, 0, sizeof(unsigned)));

  const int threads = 256;
  insert_keys<<<(n + threads - 1) / threads, threads>>>(d_keys, n, d_tkeys, d_tcounts, mask,
                                                       d_maxprobe);
  CHECK(hipGetLastError());
  lookup_keys<<<(n + threads - 1) / threads, threads>>>(d_queries, n, d_tkeys, d_tcounts, mask,
                                                       d_out);
  CHECK(hipGetLastError());
  compact_slots<<<(capacity + threads - 1) / threads, threads>>>(d_tkeys, d_tcounts, capacity,
                                                                 d_pairs, d_npairs);
  CHECK(hipGetLastError());
  CHECK(hipDeviceSynchronize());

  std::vector<uint32_t> out(n);
  unsigned npairs = 0, maxprobe = 0;
  CHECK(hipMemcpy(out.data(), d_out, (size_t)n * 4, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(&npairs, d_npairs, sizeof(unsigned), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(&maxprobe, d_maxprobe, sizeof(unsigned), hipMemcpyDeviceToHost));
  std::vector<uint2> pairs(npairs);
  if (npairs > 0 && npairs <= capacity)
    CHECK(hipMemcpy(pairs.data(), d_pairs, (size_t)npairs * sizeof(uint2),
                     hipMemcpyDeviceToHost));
  CHECK(hipFree(d_keys));
  CHECK(hipFree(d_queries));
  CHECK(hipFree(d_out));
  CHECK(hipFree(d_tkeys));
  CHECK(hipFree(d_tcounts));
  CHECK(hipFree(d_pairs));
  CHECK(hipFree(d_npairs));
  CHECK(hipFree(d_maxprobe));

  if (npairs != distinct) {
    printf("VERDICT: FAIL distinct keys %u != %u\n", npairs, distinct);
    return 1;
  }
  uint64_t hits = 0;
  for (int i = 0; i < n; ++i) {
    uint32_t q = queries[i];
    uint32_t want = (q & 0x80000000u) ? 0u : ref_count[(q * ODD_INV) & 0x7fffffffu];
    if (out[i] != want) {
      printf("VERDICT: FAIL lookup %d key %08x: %u != %u\n", i, q, out[i], want);
      return 1;
    }
    hits += want ? 1 : 0;
  }
  // Each compacted (key, count) must be a distinct key with its count.
  std::vector<uint8_t> seen(universe, 0);
  for (unsigned i = 0; i < npairs; ++i) {
    uint32_t u = (pairs[i].x * ODD_INV) & 0x7fffffffu;
    if (u >= universe || seen[u] || ref_count[u] != pairs[i].y) {
      printf("VERDICT: FAIL compacted entry %u (key %08x) is wrong\n", i, pairs[i].x);
      return 1;
    }
    seen[u] = 1;
  }
  fprintf(stderr, "longest probe sequence: %u\n", maxprobe);  // depends on insert order
  printf("keys=%d distinct=%u capacity=%u query_hits=%llu\n", n, distinct, capacity,
         (unsigned long long)hits);
  uint32_t c = fnv1a(2166136261u, out.data(), (size_t)n * 4);
  c = fnv1a(c, ref_count.data(), (size_t)universe * 4);
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
