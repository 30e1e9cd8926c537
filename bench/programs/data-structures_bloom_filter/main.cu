// Two Bloom filters over the same key set. The classic one sets K bits
// anywhere in an M-bit array (double hashing h1 + i*h2). The blocked one keeps
// all K bits of a key inside one 256-bit block (eight words), so a query
// touches one cache sector. Bits are set with atomicOr, so the final arrays do
// not depend on thread order; the CPU builds the same arrays and the program
// compares them word for word, then compares every query answer and the count
// of set bits (a __popc block reduction on the GPU).
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

constexpr int K = 7;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

__host__ __device__ inline uint64_t mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// Bit index i of key's K probes in the classic filter (mbits a power of two).
__host__ __device__ inline uint32_t classic_bit(uint64_t h, int i, uint32_t mbits) {
  uint32_t h1 = (uint32_t)h, h2 = (uint32_t)(h >> 32) | 1u;
  return (h1 + (uint32_t)i * h2) & (mbits - 1);
}
// Block of the blocked filter and the bit inside its 256 bits for probe i.
__host__ __device__ inline uint32_t blocked_block(uint64_t h, uint32_t nblocks) {
  return (uint32_t)(h >> 40) % nblocks;
}
__host__ __device__ inline uint32_t blocked_bit(uint64_t h, int i) {
  return (uint32_t)(mix64(h + (uint64_t)i) & 255u);
}

__global__ void bloom_insert(const uint64_t* __restrict__ keys, int n, uint32_t* classic,
                             uint32_t mbits, uint32_t* blocked, uint32_t nblocks) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  uint64_t h = mix64(keys[t]);
  for (int i = 0; i < K; ++i) {
    uint32_t b = classic_bit(h, i, mbits);
    atomicOr(&classic[b >> 5], 1u << (b & 31));
  }
  uint32_t* blk = blocked + (size_t)blocked_block(h, nblocks) * 8;
  for (int i = 0; i < K; ++i) {
    uint32_t b = blocked_bit(h, i);
    atomicOr(&blk[b >> 5], 1u << (b & 31));
  }
}

__global__ void bloom_query(const uint64_t* __restrict__ keys, int n,
                            const uint32_t* __restrict__ classic, uint32_t mbits,
                            const uint32_t* __restrict__ blocked, uint32_t nblocks,
                            uint8_t* __restrict__ answer) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  uint64_t h = mix64(keys[t]);
  bool in_classic = true;
  for (int i = 0; i < K && in_classic; ++i) {
    uint32_t b = classic_bit(h, i, mbits);
    in_classic = (classic[b >> 5] >> (b & 31)) & 1u;
  }
  const uint4* blk = reinterpret_cast<const uint4*>(blocked + (size_t)blocked_block(h, nblocks) * 8);
  uint4 lo = blk[0], hi = blk[1];
  uint32_t words[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  bool in_blocked = true;
  for (int i = 0; i < K; ++i) {
    uint32_t b = blocked_bit(h, i);
    in_blocked = in_blocked && ((words[b >> 5] >> (b & 31)) & 1u);
  }
  answer[t] = (uint8_t)((in_classic ? 1 : 0) | (in_blocked ? 2 : 0));
}

__global__ void count_bits(const uint32_t* __restrict__ words, size_t nwords,
                           unsigned long long* total) {
  __shared__ unsigned partial[256];
  unsigned s = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nwords;
       i += (size_t)gridDim.x * blockDim.x)
    s += __popc(words[i]);
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int off = blockDim.x / 2; off > 0; off >>= 1) {
    if ((int)threadIdx.x < off) partial[threadIdx.x] += partial[threadIdx.x + off];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, (unsigned long long)partial[0]);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 300007;
  int nq = argc > 2 ? atoi(argv[2]) : 524288;
  if (n <= 0 || nq <= 0 || n > (1 << 24) || nq > (1 << 24)) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  // About 10 bits per key for both filters.
  uint32_t mbits = 1u << 10;
  while (mbits < 10u * (uint32_t)n) mbits <<= 1;
  const uint32_t nblocks = (10u * (uint32_t)n + 255u) / 256u;
  const size_t classic_words = mbits / 32, blocked_words = (size_t)nblocks * 8;

  std::vector<uint64_t> keys(n), queries(nq);
  uint64_t s = 0x0123456789abcdefULL;
  for (int i = 0; i < n; ++i) keys[i] = (s = mix64(s + 0x9e3779b97f4a7c15ULL)) & ~1ULL;  // even
  for (int i = 0; i < nq; ++i)  // every third query is a member; the rest are odd, never members
    queries[i] = (i % 3 == 0) ? keys[(size_t)i * 7919u % (size_t)n]
                              : ((s = mix64(s + 0x9e3779b97f4a7c15ULL)) | 1ULL);

  std::vector<uint32_t> ref_classic(classic_words, 0u), ref_blocked(blocked_words, 0u);
  for (int t = 0; t < n; ++t) {
    uint64_t h = mix64(keys[t]);
    for (int i = 0; i < K; ++i) {
      uint32_t b = classic_bit(h, i, mbits);
      ref_classic[b >> 5] |= 1u << (b & 31);
      uint32_t c = blocked_bit(h, i);
      ref_blocked[(size_t)blocked_block(h, nblocks) * 8 + (c >> 5)] |= 1u << (c & 31);
    }
  }
  std::vector<uint8_t> ref_ans(nq);
  unsigned fp_classic = 0, fp_blocked = 0;
  for (int t = 0; t < nq; ++t) {
    uint64_t h = mix64(queries[t]);
    bool a = true, b = true;
    for (int i = 0; i < K; ++i) {
      uint32_t x = classic_bit(h, i, mbits);
      a = a && ((ref_classic[x >> 5] >> (x & 31)) & 1u);
      uint32_t y = blocked_bit(h, i);
      b = b && ((ref_blocked[(size_t)blocked_block(h, nblocks) * 8 + (y >> 5)] >> (y & 31)) & 1u);
    }
    ref_ans[t] = (uint8_t)((a ? 1 : 0) | (b ? 2 : 0));
    if (t % 3 != 0) {
      fp_classic += a ? 1u : 0u;
      fp_blocked += b ? 1u : 0u;
    } else if (!a || !b) {
      printf("VERDICT: FAIL CPU reference lost a member\n");
      return 1;
    }
  }
  unsigned long long ref_bits = 0;
  for (uint32_t w : ref_classic) ref_bits += (unsigned long long)__builtin_popcount(w);
  for (uint32_t w : ref_blocked) ref_bits += (unsigned long long)__builtin_popcount(w);

  uint64_t *d_keys, *d_queries;
  uint32_t *d_classic, *d_blocked;
  uint8_t* d_ans;
  unsigned long long* d_bits;
  CHECK(cudaMalloc(&d_keys, (size_t)n * 8));
  CHECK(cudaMalloc(&d_queries, (size_t)nq * 8));
  CHECK(cudaMalloc(&d_classic, classic_words * 4));
  CHECK(cudaMalloc(&d_blocked, blocked_words * 4));
  CHECK(cudaMalloc(&d_ans, (size_t)nq));
  CHECK(cudaMalloc(&d_bits, sizeof(unsigned long long)));
  CHECK(cudaMemcpy(d_keys, keys.data(), (size_t)n * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_queries, queries.data(), (size_t)nq * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_classic, 0, classic_words * 4));
  CHECK(cudaMemset(d_blocked, 0, blocked_words * 4));
  CHECK(cudaMemset(d_bits, 0, sizeof(unsigned long long)));
  bloom_insert<<<(n + 255) / 256, 256>>>(d_keys, n, d_classic, mbits, d_blocked, nblocks);
  CHECK(cudaGetLastError());
  bloom_query<<<(nq + 255) / 256, 256>>>(d_queries, nq, d_classic, mbits, d_blocked, nblocks,
                                         d_ans);
  CHECK(cudaGetLastError());
  count_bits<<<256, 256>>>(d_classic, classic_words, d_bits);
  CHECK(cudaGetLastError());
  count_bits<<<256, 256>>>(d_blocked, blocked_words, d_bits);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  std::vector<uint32_t> g_classic(classic_words), g_blocked(blocked_words);
  std::vector<uint8_t> g_ans(nq);
  unsigned long long g_bits = 0;
  CHECK(cudaMemcpy(g_classic.data(), d_classic, classic_words * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_blocked.data(), d_blocked, blocked_words * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_ans.data(), d_ans, (size_t)nq, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&g_bits, d_bits, sizeof(g_bits), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_keys));
  CHECK(cudaFree(d_queries));
  CHECK(cudaFree(d_classic));
  CHECK(cudaFree(d_blocked));
  CHECK(cudaFree(d_ans));
  CHECK(cudaFree(d_bits));

  if (g_classic != ref_classic) {
    printf("VERDICT: FAIL classic bit array differs\n");
    return 1;
  }
  if (g_blocked != ref_blocked) {
    printf("VERDICT: FAIL blocked bit array differs\n");
    return 1;
  }
  for (int t = 0; t < nq; ++t)
    if (g_ans[t] != ref_ans[t]) {
      printf("VERDICT: FAIL query %d answer %d != %d\n", t, g_ans[t], ref_ans[t]);
      return 1;
    }
  if (g_bits != ref_bits) {
    printf("VERDICT: FAIL popcount %llu != %llu\n", g_bits, ref_bits);
    return 1;
  }
  printf("keys=%d queries=%d bits_set=%llu false_pos_classic=%u false_pos_blocked=%u\n", n, nq,
         ref_bits, fp_classic, fp_blocked);
  uint32_t c = fnv1a(2166136261u, ref_ans.data(), ref_ans.size());
  c = fnv1a(c, &ref_bits, sizeof(ref_bits));
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
