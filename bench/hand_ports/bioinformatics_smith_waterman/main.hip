// Smith-Waterman with affine gaps for a batch of DNA query/target pairs.
// Each block aligns one pair; thread t owns query row t+1 and the block walks
// the anti-diagonals d = i + j. A cell needs H and F from row i-1 on the
// previous diagonal, H from its own row on the previous diagonal, and H from
// row i-1 two diagonals back; so three H diagonals and two F diagonals rotate
// in dynamic shared memory, sized at launch from the longest query, with the
// target sequence behind them. E (horizontal gaps) stays in a register, since
// a thread walks along its own row. One __syncthreads per diagonal. Scores
// are integers and must equal the CPU's.
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

constexpr int MATCH = 2, MISMATCH = -3, GAP_OPEN = 5, GAP_EXT = 2;
constexpr int NEG = -1000000000;
constexpr int MAX_Q = 256, MAX_T = 512;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

__global__ void sw_batch(const uint8_t* __restrict__ qs, const int* __restrict__ qoff, const int* __restrict__ qlen,
                         const uint8_t* __restrict__ ts, const int* __restrict__ toff, const int* __restrict__ tlen,
                         int maxq, int* __restrict__ score) {
  extern __shared__ int smem[];
  int* Hd[3] = {smem, smem + (maxq + 1), smem + 2 * (maxq + 1)};
  int* Fd[2] = {smem + 3 * (maxq + 1), smem + 4 * (maxq + 1)};
  uint8_t* tgt = reinterpret_cast<uint8_t*>(smem + 5 * (maxq + 1));
  __shared__ int best_block;
  const int pair = blockIdx.x, t = threadIdx.x;
  const int m = qlen[pair], n = tlen[pair];
  for (int k = t; k <= maxq; k += blockDim.x) {
    Hd[0][k] = Hd[1][k] = Hd[2][k] = 0;
    Fd[0][k] = Fd[1][k] = NEG;
  }
  for (int k = t; k < n; k += blockDim.x) tgt[k] = ts[toff[pair] + k];
  if (t == 0) best_block = 0;
  const int i = t + 1;
  const uint8_t qc = t < m ? qs[qoff[pair] + t] : 0;
  int e_prev = NEG, best = 0;
  __syncthreads();
  for (int d = 2; d <= m + n; ++d) {
    int* Hc = Hd[d % 3];
    const int* H1 = Hd[(d - 1) % 3];
    const int* H2 = Hd[(d - 2) % 3];
    int* Fc = Fd[d % 2];
    const int* F1 = Fd[(d - 1) % 2];
    if (t < m) {
      int j = d - i;
      if (j >= 1 && j <= n) {
        int e = max(e_prev - GAP_EXT, H1[i] - GAP_OPEN);
        int f = max(F1[i - 1] - GAP_EXT, H1[i - 1] - GAP_OPEN);
        int h = max(0, H2[i - 1] + (qc == tgt[j - 1] ? MATCH : MISMATCH));
        h = max(h, max(e, f));
        Hc[i] = h;
        Fc[i] = f;
        e_prev = e;
        best = max(best, h);
      } else {
        Hc[i] = 0;  // column 0 (or outside the target): H = 0, no open gap
        Fc[i] = NEG;
        if (j < 1) e_prev = NEG;
      }
    }
    __syncthreads();
  }
  atomicMax(&best_block, best);
  __syncthreads();
  if (t == 0) score[pair] = best_block;
}

static int sw_cpu(const uint8_t* q, int m, const uint8_t* t, int n) {
  std::vector<int> H(n + 1, 0), E(n + 1, NEG), Hn(n + 1);
  std::vector<int> F(n + 1, NEG);  // F per column for the previous row
  int best = 0;
  for (int i = 1; i <= m; ++i) {
    Hn[0] = 0;
    int e = NEG;
    for (int j = 1; j <= n; ++j) {
      e = (e - GAP_EXT > Hn[j - 1] - GAP_OPEN) ? e - GAP_EXT : Hn[j - 1] - GAP_OPEN;
      int f = (F[j] - GAP_EXT > H[j] - GAP_OPEN) ? F[j] - GAP_EXT : H[j] - GAP_OPEN;
      F[j] = f;
      int h = H[j - 1] + (q[i - 1] == t[j - 1] ? MATCH : MISMATCH);
      if (h < 0) h = 0;
      if (e > h) h = e;
      if (f > h) h = f;
      Hn[j] = h;
      if (h > best) best = h;
    }
    H.swap(Hn);
  }
  return best;
}

int main(int argc, char** argv) {
  int npairs = argc > 1 ? atoi(argv[1]) : 256;
  if (npairs <= 0 || npairs > 65536) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  uint32_t s = 0xb5297a4du;
  auto rnd = [&s]() {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
  };
  std::vector<uint8_t> qs, ts;
  std::vector<int> qoff(npairs), qlen(npairs), toff(npairs), tlen(npairs);
  int maxq = 0;
  for (int p = 0; p < npairs; ++p) {
    int m = 32 + (int)(rnd() % (MAX_Q - 31)), n = 64 + (int)(rnd() % (MAX_T - 63));
    qoff[p] = (int)qs.size();
    qlen[p] = m;
    toff[p] = (int)ts.size();
    tlen[p] = n;
    maxq = m > maxq ? m : maxq;
    for (int k = 0; k < m; ++k) qs.push_back((uint8_t)(rnd() & 3u));
    // Target: random, with a mutated copy of part of the query planted inside
    // (substitutions and short indels), so scores range widely.
    std::vector<uint8_t> t(n);
    for (auto& c : t) c = (uint8_t)(rnd() & 3u);
    int qa = (int)(rnd() % (uint32_t)m), pos = (int)(rnd() % (uint32_t)n);
    int mut = (int)(rnd() % 4u);  // 0..3: mutation rate 0, 5, 10, 15 %
    for (int k = qa; k < m && pos < n; ++k) {
      uint32_t r = rnd() % 100u;
      if (r < (uint32_t)(5 * mut)) t[pos++] = (uint8_t)(rnd() & 3u);   // substitution
      else if (r < (uint32_t)(5 * mut + 2)) continue;                   // deletion
      else if (r < (uint32_t)(5 * mut + 4) && pos + 1 < n) { t[pos++] = (uint8_t)(rnd() & 3u); t[pos++] = qs[qoff[p] + k]; }
      else t[pos++] = qs[qoff[p] + k];
    }
    ts.insert(ts.end(), t.begin(), t.end());
  }

  uint8_t *d_qs, *d_ts;
  int *d_qoff, *d_qlen, *d_toff, *d_tlen, *d_score;
  CHECK(hipMalloc(&d_qs, qs.size()));
  CHECK(hipMalloc(&d_ts, ts.size()));
  CHECK(hipMalloc(&d_qoff, npairs * sizeof(int)));
  CHECK(hipMalloc(&d_qlen, npairs * sizeof(int)));
  CHECK(hipMalloc(&d_toff, npairs * sizeof(int)));
  CHECK(hipMalloc(&d_tlen, npairs * sizeof(int)));
  CHECK(hipMalloc(&d_score, npairs * sizeof(int)));
  CHECK(hipMemcpy(d_qs, qs.data(), qs.size(), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(d_ts, ts.data(), ts.size(), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(d_qoff, qoff.data(), npairs * sizeof(int), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(d_qlen, qlen.data(), npairs * sizeof(int), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(d_toff, toff.data(), npairs * sizeof(int), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(d_tlen, tlen.data(), npairs * sizeof(int), hipMemcpyHostToDevice));
  const int threads = (maxq + 31) / 32 * 32;
  const size_t smem = (size_t)5 * (maxq + 1) * sizeof(int) + MAX_T;
  sw_batch<<<npairs, threads, smem>>>(d_qs, d_qoff, d_qlen, d_ts, d_toff, d_tlen, maxq, d_score);
  CHECK(hipGetLastError());
  CHECK(hipDeviceSynchronize());
  std::vector<int> g(npairs);
  CHECK(hipMemcpy(g.data(), d_score, npairs * sizeof(int), hipMemcpyDeviceToHost));
  CHECK(hipFree(d_qs));
  CHECK(hipFree(d_ts));
  CHECK(hipFree(d_qoff));
  CHECK(hipFree(d_qlen));
  CHECK(hipFree(d_toff));
  CHECK(hipFree(d_tlen));
  CHECK(hipFree(d_score));

  std::vector<int> ref(npairs);
  long long total = 0;
  int top = 0;
  for (int p = 0; p < npairs; ++p) {
    ref[p] = sw_cpu(&qs[qoff[p]], qlen[p], &ts[toff[p]], tlen[p]);
    if (g[p] != ref[p]) {
      printf("VERDICT: FAIL pair %d (%d x %d): score %d, expected %d\n", p, qlen[p], tlen[p], g[p], ref[p]);
      return 1;
    }
    total += ref[p];
    top = ref[p] > top ? ref[p] : top;
  }
  printf("pairs=%d total_score=%lld best=%d\n", npairs, total, top);
  printf("VERDICT: PASS checksum=%08x\n", fnv1a(2166136261u, ref.data(), npairs * sizeof(int)));
  return 0;
}
