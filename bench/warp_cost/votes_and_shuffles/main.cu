// What warp operations cost when AMD's 64-lane wavefronts are emulated on 32-lane warps.
//
// Three loops of warp operations, each checked against the host and timed with events
// (the "time:" lines; only the VERDICT line is compared between runs):
// 1. votes by the first 32-thread row of each (32 x 8) block alone: the other rows return
//    at once (first launch) or wait at the block barrier (second launch). On a 64-lane
//    wavefront the voting row is one half of a wave whose other half is gone or parked.
// 2. votes by every lane of 256-thread blocks, with a predicate that is the same across
//    each aligned group of 64 threads (so a 32- and a 64-lane vote agree).
// 3. xor-1 shuffles by every lane (partners are neighbours on any warp size).
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
constexpr int BLOCKS = 264;
constexpr int ROWS = 8;
constexpr int ROW_VOTES = 1000000;
constexpr int ALL_VOTES = 100000;
constexpr int SHUFFLES = 200000;

__host__ __device__ inline bool row_predicate(int i, unsigned lane) {
  return (static_cast<unsigned>(i) * 7u + lane * 3u) % 61u == 0u;
}
__host__ __device__ inline bool group_predicate(int i, unsigned group) {
  return (static_cast<unsigned>(i) * 13u + group) % 29u == 0u;
}

// blockDim (32, ROWS): row 0 votes; the others leave, or wait at the barrier when `wait`.
__global__ void row_votes(int iters, int wait, unsigned* out) {
  if (threadIdx.y == 0) {
    unsigned count = 0;
    for (int i = 0; i < iters; ++i)
      count += __any_sync(FULL, row_predicate(i, threadIdx.x)) ? 1u : 0u;
    if (threadIdx.x == 0) out[blockIdx.x] = count;
  }
  if (wait) __syncthreads();
}

__global__ void all_votes(int iters, unsigned* out) {
  const unsigned group = threadIdx.x / 64u;
  unsigned count = 0;
  for (int i = 0; i < iters; ++i) count += __any_sync(FULL, group_predicate(i, group)) ? 1u : 0u;
  out[blockIdx.x * blockDim.x + threadIdx.x] = count;
}

__global__ void xor_shuffles(int iters, unsigned* out) {
  unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < iters; ++i) v = __shfl_xor_sync(FULL, v, 1) + 1u;
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

static uint32_t mix(uint32_t h, uint32_t v) { return (h ^ v) * 16777619u; }

int main() {
  unsigned* d = nullptr;
  const int threads = BLOCKS * 256;
  CHECK(cudaMalloc(&d, threads * sizeof(unsigned)));
  std::vector<unsigned> h(threads);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  int bad = 0;
  uint32_t sum = 2166136261u;

  unsigned row_want = 0;
  for (int i = 0; i < ROW_VOTES; ++i) {
    bool any = false;
    for (unsigned lane = 0; lane < 32; ++lane) any = any || row_predicate(i, lane);
    row_want += any ? 1u : 0u;
  }
  for (int wait = 0; wait < 2; ++wait) {
    CHECK(cudaMemset(d, 0, threads * sizeof(unsigned)));
    CHECK(cudaEventRecord(start));
    row_votes<<<BLOCKS, dim3(32, ROWS)>>>(ROW_VOTES, wait, d);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    printf("time: row_votes (others %s): %.3f ms\n", wait ? "wait" : "return", ms);
    CHECK(cudaMemcpy(h.data(), d, BLOCKS * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; ++b) {
      bad += h[b] != row_want;
      sum = mix(sum, h[b]);
    }
  }

  CHECK(cudaEventRecord(start));
  all_votes<<<BLOCKS, 256>>>(ALL_VOTES, d);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  printf("time: all_votes: %.3f ms\n", ms);
  CHECK(cudaMemcpy(h.data(), d, threads * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned group_want[4] = {0, 0, 0, 0};
  for (unsigned g = 0; g < 4; ++g)
    for (int i = 0; i < ALL_VOTES; ++i) group_want[g] += group_predicate(i, g) ? 1u : 0u;
  for (int t = 0; t < threads; ++t) {
    bad += h[t] != group_want[(t % 256) / 64];
    sum = mix(sum, h[t]);
  }

  CHECK(cudaEventRecord(start));
  xor_shuffles<<<BLOCKS, 256>>>(SHUFFLES, d);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  printf("time: xor_shuffles: %.3f ms\n", ms);
  CHECK(cudaMemcpy(h.data(), d, threads * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int t = 0; t < threads; ++t) {
    const unsigned self = static_cast<unsigned>(t), partner = self ^ 1u;
    const unsigned want = (SHUFFLES % 2 == 0 ? self : partner) + static_cast<unsigned>(SHUFFLES);
    bad += h[t] != want;
    sum = mix(sum, h[t]);
  }

  CHECK(cudaFree(d));
  if (bad) {
    printf("VERDICT: FAIL %d results wrong\n", bad);
    return 1;
  }
  printf("VERDICT: PASS checksum=%08x\n", sum);
  return 0;
}
