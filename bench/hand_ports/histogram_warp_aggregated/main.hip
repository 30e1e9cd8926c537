// Histogram of 64 keys where the input comes in runs, so the lanes of a warp
// often share a key. Two kernels aggregate within the warp before touching
// global memory: one finds its peers with __match_any_sync, the other with the
// classic ballot-per-bit search (six __ballot_sync calls narrow the peer mask).
// In both, the lowest peer lane adds __popcll(peers) for the whole group. A third
// count, the number of 32-key groups whose keys are all equal, is taken with
// __all_sync and depends on the warp really having 32 lanes.
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

constexpr int BINS = 64;
constexpr int KEY_BITS = 6;
constexpr unsigned FULL = 0xffffffffu;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

// HIP 5.2 has no __match_any: the peers of a key, found one key bit at a time (a wave is 64 lanes).
__device__ unsigned long long match_any(int key) {
  unsigned long long peers = __ballot(1);
  for (int b = 0; b < 32; ++b) {
    unsigned long long ones = __ballot((key >> b) & 1);
    peers &= ((key >> b) & 1) ? ones : ~ones;
  }
  return peers;
}

__global__ void hist_match_any(const int* __restrict__ keys, int n, unsigned* __restrict__ hist) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool valid = i < n;
  int key = valid ? keys[i] : -1;
  // Invalid lanes share key -1 among themselves and never add.
  unsigned long long peers = match_any(key);
  int lane = threadIdx.x % warpSize;
  if (valid && lane == __ffsll(peers) - 1) atomicAdd(&hist[key], (unsigned)__popcll(peers));
}

__global__ void hist_ballot_bits(const int* __restrict__ keys, int n, unsigned* __restrict__ hist,
                                 unsigned* __restrict__ uniform_warps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool valid = i < n;
  int key = valid ? keys[i] : 0;
  unsigned long long peers = __ballot(valid);
  for (int b = 0; b < KEY_BITS; ++b) {
    unsigned long long ones = __ballot((key >> b) & 1);
    peers &= ((key >> b) & 1) ? ones : ~ones;
  }
  int lane = threadIdx.x % warpSize;
  if (valid && lane == __ffsll(peers) - 1) atomicAdd(&hist[key], (unsigned)__popcll(peers));
  // A full warp of valid lanes whose keys all equal lane 0's key.
  int first = __shfl(key, 0);
  bool all_same = __all(valid && key == first);
  if (lane == 0 && all_same) atomicAdd(uniform_warps, 1u);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4194301;
  if (n <= 0) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  std::vector<int> keys(n);
  uint32_t s = 0x9e3779b9u;
  auto next = [&s]() {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
  };
  int i = 0;
  while (i < n) {
    uint32_t r = next();
    // Skewed key (low keys favoured) repeated for a run of 1..96 elements.
    int key = (int)((r & 63u) & ((r >> 6) & 63u) | ((r >> 28) == 0 ? 32u : 0u));
    int run = 1 + (int)((r >> 12) % 96u);
    for (int k = 0; k < run && i < n; ++k) keys[i++] = key;
  }
  std::vector<unsigned> ref(BINS, 0u);
  for (int k : keys) ref[k]++;
  unsigned ref_uniform = 0;
  for (int g = 0; g + 32 <= n; g += 32) {
    bool same = true;
    for (int k = 1; k < 32; ++k) same = same && keys[g + k] == keys[g];
    ref_uniform += same ? 1u : 0u;
  }

  int* d_keys;
  unsigned *d_h1, *d_h2, *d_uniform;
  CHECK(hipMalloc(&d_keys, (size_t)n * sizeof(int)));
  CHECK(hipMalloc(&d_h1, BINS * sizeof(unsigned)));
  CHECK(hipMalloc(&d_h2, BINS * sizeof(unsigned)));
  CHECK(hipMalloc(&d_uniform, sizeof(unsigned)));
  CHECK(hipMemcpy(d_keys, keys.data(), (size_t)n * sizeof(int), hipMemcpyHostToDevice));
  CHECK(hipMemset(d_h1, 0, BINS * sizeof(unsigned)));
  CHECK(hipMemset(d_h2, 0, BINS * sizeof(unsigned)));
  CHECK(hipMemset(d_uniform, 0, sizeof(unsigned)));
  const int threads = 256;  // a multiple of 32: every warp is full
  const int blocks = (n + threads - 1) / threads;
  hist_match_any<<<blocks, threads>>>(d_keys, n, d_h1);
  CHECK(hipGetLastError());
  hist_ballot_bits<<<blocks, threads>>>(d_keys, n, d_h2, d_uniform);
  CHECK(hipGetLastError());
  CHECK(hipDeviceSynchronize());
  std::vector<unsigned> h1(BINS), h2(BINS);
  unsigned uniform = 0;
  CHECK(hipMemcpy(h1.data(), d_h1, BINS * sizeof(unsigned), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(h2.data(), d_h2, BINS * sizeof(unsigned), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(&uniform, d_uniform, sizeof(unsigned), hipMemcpyDeviceToHost));
  CHECK(hipFree(d_keys));
  CHECK(hipFree(d_h1));
  CHECK(hipFree(d_h2));
  CHECK(hipFree(d_uniform));

  for (int b = 0; b < BINS; ++b) {
    if (h1[b] != ref[b]) {
      printf("VERDICT: FAIL match_any histogram bin %d: %u != %u\n", b, h1[b], ref[b]);
      return 1;
    }
    if (h2[b] != ref[b]) {
      printf("VERDICT: FAIL ballot histogram bin %d: %u != %u\n", b, h2[b], ref[b]);
      return 1;
    }
  }
  if (uniform != ref_uniform) {
    printf("VERDICT: FAIL uniform 32-key groups %u != %u\n", uniform, ref_uniform);
    return 1;
  }
  printf("keys=%d bins=%d uniform_warps=%u\n", n, BINS, ref_uniform);
  uint32_t c = fnv1a(2166136261u, ref.data(), BINS * sizeof(unsigned));
  c = fnv1a(c, &ref_uniform, sizeof(ref_uniform));
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
