// Near-duplicate detection with MinHash. Documents come in families of eight:
// a random base and mutated copies (member k replaces each token with
// probability k/20), so similarities are graded. Each 3-token shingle is
// hashed to 32 bits; signature entry k of a document is the minimum of
// h_k(shingle) = fmix32(shingle * a_k + b_k) over its shingles. One warp
// computes one entry: lanes stride over the shingles and a butterfly of
// __shfl_xor_sync takes the minimum. A second kernel gives each document pair
// to a warp: lane l compares entries l, l+32, l+64 and l+96, and four
// __ballot_sync/__popc count the agreeing entries. Everything is integer and
// equals the CPU's exactly.
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

constexpr int H = 128;        // signature length (four per lane)
constexpr int FAMILY = 8;
constexpr unsigned FULL = 0xffffffffu;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

__host__ __device__ inline uint32_t fmix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}
__host__ __device__ inline uint32_t shingle(const uint32_t* t) {
  return fmix32(t[0] * 0x9e3779b1u ^ fmix32(t[1] + 0x7f4a7c15u) ^ (t[2] << 7 | t[2] >> 25));
}

__global__ void signatures(const uint32_t* __restrict__ tokens, const int* __restrict__ start,
                           int ndocs, const uint32_t* __restrict__ a, const uint32_t* __restrict__ b,
                           uint32_t* __restrict__ sig) {
  int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x & 31;
  if (w >= ndocs * H) return;  // whole warps
  int d = w / H, k = w % H;
  const uint32_t* t = tokens + start[d];
  int nsh = start[d + 1] - start[d] - 2;
  uint32_t m = 0xffffffffu;
  for (int j = lane; j < nsh; j += 32) m = min(m, fmix32(shingle(t + j) * a[k] + b[k]));
  for (int off = 16; off > 0; off >>= 1) m = min(m, __shfl_xor_sync(FULL, m, off));
  if (lane == 0) sig[(size_t)d * H + k] = m;
}

__global__ void agreement(const uint32_t* __restrict__ sig, int npairs_docs, int* __restrict__ out) {
  int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x & 31;
  if (w >= npairs_docs * npairs_docs) return;
  int i = w / npairs_docs, j = w % npairs_docs;
  int count = 0;
  for (int q = 0; q < H / 32; ++q) {
    unsigned eq = __ballot_sync(FULL, sig[(size_t)i * H + q * 32 + lane] == sig[(size_t)j * H + q * 32 + lane]);
    count += __popc(eq);
  }
  if (lane == 0) out[w] = count;
}

int main(int argc, char** argv) {
  int ndocs = argc > 1 ? atoi(argv[1]) : 512;
  if (ndocs < FAMILY || ndocs > 8192 || ndocs % FAMILY) {
    printf("VERDICT: FAIL bad-args (a positive multiple of 8)\n");
    return 1;
  }
  uint64_t s = 0x5851f42d4c957f2dULL;
  auto rnd = [&s]() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(s >> 33);
  };
  std::vector<uint32_t> tokens;
  std::vector<int> start(ndocs + 1);
  for (int f = 0; f < ndocs / FAMILY; ++f) {
    int len = 150 + (int)(rnd() % 500u);
    std::vector<uint32_t> base(len);
    for (auto& t : base) t = rnd() % 5000u;
    for (int k = 0; k < FAMILY; ++k) {
      start[f * FAMILY + k] = (int)tokens.size();
      for (int j = 0; j < len; ++j) tokens.push_back((rnd() % 20u) < (uint32_t)k ? rnd() % 5000u : base[j]);
    }
  }
  start[ndocs] = (int)tokens.size();
  std::vector<uint32_t> a(H), b(H);
  for (int k = 0; k < H; ++k) {
    a[k] = rnd() | 1u;
    b[k] = rnd();
  }
  const int P = ndocs < 256 ? ndocs : 256;  // documents compared pairwise

  uint32_t *d_tok, *d_a, *d_b, *d_sig;
  int *d_start, *d_agree;
  CHECK(cudaMalloc(&d_tok, tokens.size() * 4));
  CHECK(cudaMalloc(&d_start, (ndocs + 1) * sizeof(int)));
  CHECK(cudaMalloc(&d_a, H * 4));
  CHECK(cudaMalloc(&d_b, H * 4));
  CHECK(cudaMalloc(&d_sig, (size_t)ndocs * H * 4));
  CHECK(cudaMalloc(&d_agree, (size_t)P * P * sizeof(int)));
  CHECK(cudaMemcpy(d_tok, tokens.data(), tokens.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_start, start.data(), (ndocs + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_a, a.data(), H * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_b, b.data(), H * 4, cudaMemcpyHostToDevice));
  const int T = 256;
  signatures<<<(int)(((size_t)ndocs * H * 32 + T - 1) / T), T>>>(d_tok, d_start, ndocs, d_a, d_b, d_sig);
  CHECK(cudaGetLastError());
  agreement<<<(int)(((size_t)P * P * 32 + T - 1) / T), T>>>(d_sig, P, d_agree);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<uint32_t> g_sig((size_t)ndocs * H);
  std::vector<int> g_agree((size_t)P * P);
  CHECK(cudaMemcpy(g_sig.data(), d_sig, g_sig.size() * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_agree.data(), d_agree, g_agree.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_tok));
  CHECK(cudaFree(d_start));
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  CHECK(cudaFree(d_sig));
  CHECK(cudaFree(d_agree));

  std::vector<uint32_t> sig((size_t)ndocs * H), sh;
  for (int d = 0; d < ndocs; ++d) {
    int nsh = start[d + 1] - start[d] - 2;
    sh.resize(nsh);
    for (int j = 0; j < nsh; ++j) sh[j] = shingle(&tokens[start[d] + j]);
    for (int k = 0; k < H; ++k) {
      uint32_t m = 0xffffffffu;
      for (int j = 0; j < nsh; ++j) {
        uint32_t v = fmix32(sh[j] * a[k] + b[k]);
        m = v < m ? v : m;
      }
      sig[(size_t)d * H + k] = m;
    }
  }
  for (size_t i = 0; i < sig.size(); ++i)
    if (g_sig[i] != sig[i]) {
      printf("VERDICT: FAIL signature of document %zu entry %zu\n", i / H, i % H);
      return 1;
    }
  int similar = 0;
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j) {
      int cnt = 0;
      for (int k = 0; k < H; ++k) cnt += sig[(size_t)i * H + k] == sig[(size_t)j * H + k];
      if (g_agree[(size_t)i * P + j] != cnt) {
        printf("VERDICT: FAIL agreement of documents %d and %d: %d != %d\n", i, j, g_agree[(size_t)i * P + j], cnt);
        return 1;
      }
      similar += (i < j && 2 * cnt >= H) ? 1 : 0;
    }
  printf("documents=%d tokens=%zu pairs_estimated_similar=%d\n", ndocs, tokens.size(), similar);
  uint32_t c = fnv1a(2166136261u, sig.data(), sig.size() * 4);
  c = fnv1a(c, g_agree.data(), g_agree.size() * sizeof(int));
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
