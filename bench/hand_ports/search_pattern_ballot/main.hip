// Multi-pattern exact string search with warp votes: each lane tests one text
// position; __any_sync skips the full compare when no lane sees the first
// character, __all_sync picks a bounds-check-free path, and __ballot_sync turns
// the per-lane matches into a 32-bit mask from which the warp reserves output
// slots with ONE atomicAdd (lane 0, __popc) and each matching lane writes at
// base + __popc(mask & lanes_below). All of it assumes 32 lanes per warp.
// Match positions (sorted on the host, since slot order depends on scheduling)
// must equal a CPU search exactly.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <hip/hip_runtime.h>

#define CHECK(call)                                                                  \
  do {                                                                               \
    hipError_t err_ = (call);                                                       \
    if (err_ != hipSuccess) {                                                       \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, hipGetErrorString(err_));  \
      printf("VERDICT: FAIL cuda-error\n");                                          \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

constexpr int kPatterns = 4, kMaxLen = 16;
__constant__ char c_pat[kPatterns][kMaxLen];
__constant__ int c_len[kPatterns];

__global__ void search(const char* __restrict__ text, int n, int* __restrict__ out, int cap, int* __restrict__ count) {
  int lane = threadIdx.x % warpSize;
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
  int nwarps = (gridDim.x * blockDim.x) / warpSize;
  for (int base = warp * warpSize; base < n; base += nwarps * warpSize) {  // warp-uniform trip count
    int i = base + lane;
    char c0 = i < n ? text[i] : 0;
    bool room = __all(i + kMaxLen <= n);
    for (int p = 0; p < kPatterns; ++p) {
      int len = c_len[p];
      bool match = c0 == c_pat[p][0] && i + len <= n;
      if (!__any(match)) continue;
      if (match) {
        if (room) {
          for (int k = 1; k < len && match; ++k) match = text[i + k] == c_pat[p][k];
        } else {
          for (int k = 1; k < len && match; ++k) match = i + k < n && text[i + k] == c_pat[p][k];
        }
      }
      unsigned long long mask = __ballot(match);
      if (mask == 0) continue;
      int slot = 0;
      if (lane == 0) slot = atomicAdd(&count[p], __popcll(mask));
      slot = __shfl(slot, 0);
      if (match) {
        int at = slot + __popcll(mask & ((1ull << lane) - 1ull));
        if (at < cap) out[p * cap + at] = i;
      }
    }
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : (1 << 22) + 13;
  if (n < 1024) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  const char* pats[kPatterns] = {"abcdab", "dddcbaabc", "abababababab", "cadbcadbcadbbbba"};
  char hpat[kPatterns][kMaxLen];
  int hlen[kPatterns];
  memset(hpat, 0, sizeof(hpat));
  for (int p = 0; p < kPatterns; ++p) {
    hlen[p] = (int)strlen(pats[p]);
    memcpy(hpat[p], pats[p], hlen[p]);
  }
  std::vector<char> text(n);
  uint32_t s = 0x71374491u;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    text[i] = (char)('a' + (s >> 30));
  }
  for (int k = 0; k < 600; ++k) {  // plant occurrences, some overlapping, one at the very end
    s = s * 1664525u + 1013904223u;
    int p = k % kPatterns;
    int at = (k == 599) ? n - hlen[p] : (int)(s % (uint32_t)(n - 40));
    memcpy(&text[at], pats[p], hlen[p]);
    if (p == 2) memcpy(&text[at + 2], pats[p], hlen[p]);  // overlapping repeat
  }
  const int cap = 1 << 20;
  char* dtext;
  int *dout, *dcount;
  CHECK(hipMemcpyToSymbol(c_pat, hpat, sizeof(hpat)));
  CHECK(hipMemcpyToSymbol(c_len, hlen, sizeof(hlen)));
  CHECK(hipMalloc(&dtext, n));
  CHECK(hipMalloc(&dout, (size_t)kPatterns * cap * sizeof(int)));
  CHECK(hipMalloc(&dcount, kPatterns * sizeof(int)));
  CHECK(hipMemcpy(dtext, text.data(), n, hipMemcpyHostToDevice));
  CHECK(hipMemset(dcount, 0, kPatterns * sizeof(int)));
  search<<<1024, 256>>>(dtext, n, dout, cap, dcount);
  CHECK(hipGetLastError());
  CHECK(hipDeviceSynchronize());
  int gcount[kPatterns];
  CHECK(hipMemcpy(gcount, dcount, sizeof(gcount), hipMemcpyDeviceToHost));

  long bad = 0;
  uint32_t h = 2166136261u;
  for (int p = 0; p < kPatterns; ++p) {
    std::vector<int> ref;
    for (int i = 0; i + hlen[p] <= n; ++i)
      if (text[i] == pats[p][0] && memcmp(&text[i], pats[p], hlen[p]) == 0) ref.push_back(i);
    if (gcount[p] != (int)ref.size() || gcount[p] > cap) {
      fprintf(stderr, "pattern %d: %d matches vs %zu\n", p, gcount[p], ref.size());
      ++bad;
      continue;
    }
    std::vector<int> got(gcount[p]);
    CHECK(hipMemcpy(got.data(), dout + (size_t)p * cap, gcount[p] * sizeof(int), hipMemcpyDeviceToHost));
    std::sort(got.begin(), got.end());
    if (got != ref) {
      fprintf(stderr, "pattern %d: positions differ\n", p);
      ++bad;
    }
    for (int v : ref) h = (h ^ (uint32_t)v) * 16777619u;
    printf("pattern %d (%s): %zu matches\n", p, pats[p], ref.size());
  }
  CHECK(hipFree(dtext)); CHECK(hipFree(dout)); CHECK(hipFree(dcount));
  if (bad) {
    printf("VERDICT: FAIL %ld mismatches\n", bad);
    return 1;
  }
  printf("VERDICT: PASS checksum=%08x\n", h);
  return 0;
}
