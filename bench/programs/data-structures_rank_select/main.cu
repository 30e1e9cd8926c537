// Rank/select directory over a bit vector. A superblock is 32 words (1024
// bits), one word per lane of a warp: the warp computes word popcounts, an
// inclusive scan with __shfl_up_sync gives each word's offset inside the
// superblock, and lane 31 holds the superblock total. One block scans the
// superblock totals. rank1(i) = ones in [0, i); select1(r) = position of the
// one with rank r, found by a binary search over superblocks and a
// __ballot_sync over the 32 word offsets. The layout ties a superblock to a
// 32-lane warp on purpose.
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

constexpr unsigned FULL = 0xffffffffu;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

__global__ void build_words(const uint32_t* __restrict__ words, int nsuper,
                            uint16_t* __restrict__ word_rank, uint32_t* __restrict__ super_count) {
  int sb = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x & 31;
  if (sb >= nsuper) return;  // whole warps leave together
  int c = __popc(words[sb * 32 + lane]);
  int x = c;
  for (int off = 1; off < 32; off <<= 1) {
    int v = __shfl_up_sync(FULL, x, off);
    if (lane >= off) x += v;
  }
  word_rank[sb * 32 + lane] = (uint16_t)(x - c);
  if (lane == 31) super_count[sb] = (uint32_t)x;
}

// Exclusive scan of nsuper counts into super_rank[0..nsuper], one block of 1024.
__global__ void scan_super(const uint32_t* __restrict__ cnt, int nsuper, uint32_t* __restrict__ rank) {
  __shared__ uint32_t warp_sums[32];
  int t = threadIdx.x, lane = t & 31, warp = t / 32;
  int per = (nsuper + blockDim.x - 1) / blockDim.x;
  int begin = t * per, end = min(begin + per, nsuper);
  uint32_t local = 0;
  for (int i = begin; i < end; ++i) local += cnt[i];
  uint32_t x = local;
  for (int off = 1; off < 32; off <<= 1) {
    uint32_t v = __shfl_up_sync(FULL, x, off);
    if (lane >= off) x += v;
  }
  if (lane == 31) warp_sums[warp] = x;
  __syncthreads();
  if (warp == 0) {
    uint32_t w = lane < (int)(blockDim.x / 32) ? warp_sums[lane] : 0u;
    for (int off = 1; off < 32; off <<= 1) {
      uint32_t v = __shfl_up_sync(FULL, w, off);
      if (lane >= off) w += v;
    }
    warp_sums[lane] = w;  // inclusive over warps
  }
  __syncthreads();
  uint32_t run = x - local + (warp > 0 ? warp_sums[warp - 1] : 0u);
  for (int i = begin; i < end; ++i) {
    rank[i] = run;
    run += cnt[i];
  }
  if (t == (int)blockDim.x - 1) rank[nsuper] = warp_sums[blockDim.x / 32 - 1];
}

__global__ void rank_queries(const uint32_t* __restrict__ words, const uint16_t* __restrict__ word_rank,
                             const uint32_t* __restrict__ super_rank, const uint32_t* __restrict__ pos,
                             int nq, uint32_t* __restrict__ out) {
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nq) return;
  uint32_t i = pos[q];
  uint32_t w = i >> 5, b = i & 31;
  out[q] = super_rank[i >> 10] + word_rank[w] + __popc(words[w] & ((1u << b) - 1u));
}

__global__ void select_queries(const uint32_t* __restrict__ words, const uint16_t* __restrict__ word_rank,
                               const uint32_t* __restrict__ super_rank, int nsuper,
                               const uint32_t* __restrict__ ranks, int nq, uint32_t* __restrict__ out) {
  int q = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x & 31;
  if (q >= nq) return;
  uint32_t r = ranks[q];
  int lo = 0, hi = nsuper - 1;
  while (lo < hi) {  // last superblock whose starting rank is <= r
    int mid = (lo + hi + 1) / 2;
    if (super_rank[mid] <= r) lo = mid;
    else hi = mid - 1;
  }
  uint32_t rr = r - super_rank[lo];
  uint32_t word = words[lo * 32 + lane];
  uint32_t wr = word_rank[lo * 32 + lane];
  uint32_t c = __popc(word);
  unsigned owner = __ballot_sync(FULL, rr >= wr && rr < wr + c);
  if (lane == __ffs(owner) - 1) {
    for (uint32_t k = rr - wr; k > 0; --k) word &= word - 1u;  // drop lower ones
    out[q] = (uint32_t)(lo * 32 + lane) * 32u + (uint32_t)(__ffs(word) - 1);
  }
}

int main(int argc, char** argv) {
  long long nbits_arg = argc > 1 ? atoll(argv[1]) : 4194304LL;
  int nq = argc > 2 ? atoi(argv[2]) : 262144;
  if (nbits_arg <= 0 || nbits_arg > (1LL << 30) || nq <= 0 || nq > (1 << 24)) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  const int nsuper = (int)((nbits_arg + 1023) / 1024);
  const size_t nwords = (size_t)nsuper * 32;  // padded with zero words
  const uint32_t nbits = (uint32_t)(nwords * 32);
  std::vector<uint32_t> words(nwords, 0u);
  uint32_t s = 0xa5a5f00du;
  auto rnd = [&s]() {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
  };
  for (size_t w = 0; w * 32 < (size_t)nbits_arg; ++w) {
    // Density varies by region: sparse, 25 %, 50 %, and dense stretches.
    uint32_t a = rnd(), b = rnd();
    switch ((w >> 9) & 3) {
      case 0: words[w] = a & b & rnd() & rnd(); break;
      case 1: words[w] = a & b; break;
      case 2: words[w] = a; break;
      default: words[w] = a | b; break;
    }
    if ((w + 1) * 32 > (size_t)nbits_arg) words[w] &= (1u << (nbits_arg % 32)) - 1u;
  }
  // CPU: prefix ranks per word and the list of one positions.
  std::vector<uint32_t> word_prefix(nwords + 1, 0u), ones;
  for (size_t w = 0; w < nwords; ++w) {
    word_prefix[w + 1] = word_prefix[w] + (uint32_t)__builtin_popcount(words[w]);
    for (uint32_t x = words[w]; x; x &= x - 1) ones.push_back((uint32_t)w * 32 + (uint32_t)__builtin_ctz(x));
  }
  const uint32_t total = word_prefix[nwords];
  if (total == 0) {
    printf("VERDICT: FAIL empty bit vector\n");
    return 1;
  }
  std::vector<uint32_t> rpos(nq), sranks(nq), ref_rank(nq), ref_sel(nq);
  for (int q = 0; q < nq; ++q) {
    rpos[q] = rnd() % nbits;
    sranks[q] = rnd() % total;
    uint32_t i = rpos[q];
    ref_rank[q] = word_prefix[i >> 5] + (uint32_t)__builtin_popcount(words[i >> 5] & ((1u << (i & 31)) - 1u));
    ref_sel[q] = ones[sranks[q]];
  }

  uint32_t *d_words, *d_super_count, *d_super_rank, *d_rpos, *d_sranks, *d_rout, *d_sout;
  uint16_t* d_word_rank;
  CHECK(cudaMalloc(&d_words, nwords * 4));
  CHECK(cudaMalloc(&d_word_rank, nwords * 2));
  CHECK(cudaMalloc(&d_super_count, (size_t)nsuper * 4));
  CHECK(cudaMalloc(&d_super_rank, (size_t)(nsuper + 1) * 4));
  CHECK(cudaMalloc(&d_rpos, (size_t)nq * 4));
  CHECK(cudaMalloc(&d_sranks, (size_t)nq * 4));
  CHECK(cudaMalloc(&d_rout, (size_t)nq * 4));
  CHECK(cudaMalloc(&d_sout, (size_t)nq * 4));
  CHECK(cudaMemcpy(d_words, words.data(), nwords * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_rpos, rpos.data(), (size_t)nq * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_sranks, sranks.data(), (size_t)nq * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_sout, 0xff, (size_t)nq * 4));

  build_words<<<(nsuper * 32 + 255) / 256, 256>>>(d_words, nsuper, d_word_rank, d_super_count);
  CHECK(cudaGetLastError());
  scan_super<<<1, 1024>>>(d_super_count, nsuper, d_super_rank);
  CHECK(cudaGetLastError());
  rank_queries<<<(nq + 255) / 256, 256>>>(d_words, d_word_rank, d_super_rank, d_rpos, nq, d_rout);
  CHECK(cudaGetLastError());
  select_queries<<<(int)(((size_t)nq * 32 + 255) / 256), 256>>>(d_words, d_word_rank, d_super_rank,
                                                                nsuper, d_sranks, nq, d_sout);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());

  std::vector<uint32_t> g_rank(nq), g_sel(nq), g_super(nsuper + 1);
  CHECK(cudaMemcpy(g_rank.data(), d_rout, (size_t)nq * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_sel.data(), d_sout, (size_t)nq * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_super.data(), d_super_rank, (size_t)(nsuper + 1) * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_words));
  CHECK(cudaFree(d_word_rank));
  CHECK(cudaFree(d_super_count));
  CHECK(cudaFree(d_super_rank));
  CHECK(cudaFree(d_rpos));
  CHECK(cudaFree(d_sranks));
  CHECK(cudaFree(d_rout));
  CHECK(cudaFree(d_sout));

  for (int sb = 0; sb <= nsuper; ++sb)
    if (g_super[sb] != word_prefix[(size_t)sb * 32]) {
      printf("VERDICT: FAIL superblock rank %d: %u != %u\n", sb, g_super[sb], word_prefix[(size_t)sb * 32]);
      return 1;
    }
  for (int q = 0; q < nq; ++q) {
    if (g_rank[q] != ref_rank[q]) {
      printf("VERDICT: FAIL rank(%u) = %u, expected %u\n", rpos[q], g_rank[q], ref_rank[q]);
      return 1;
    }
    if (g_sel[q] != ref_sel[q]) {
      printf("VERDICT: FAIL select(%u) = %u, expected %u\n", sranks[q], g_sel[q], ref_sel[q]);
      return 1;
    }
  }
  printf("bits=%u ones=%u queries=%d\n", nbits, total, nq);
  uint32_t c = fnv1a(2166136261u, ref_rank.data(), (size_t)nq * 4);
  c = fnv1a(c, ref_sel.data(), (size_t)nq * 4);
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
