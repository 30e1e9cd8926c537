// A pipelined integer transform. The input lives in pinned host memory and is
// cut into chunks; chunk c goes to stream c % 4 (non-blocking streams with
// different priorities) as: async copy in, transform kernel, per-chunk
// reduction kernel, async copy out, event record, host callback. A separate
// combine stream waits on every chunk's event with hipStreamWaitEvent and
// folds the chunk sums. Events also time the whole pipeline (stderr only).
// The host checks: every callback ran, hipEventQuery / hipStreamQuery
// report completion, and all outputs equal the CPU's exactly.
#include <atomic>
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

constexpr int NSTREAMS = 4;
constexpr int ROUNDS = 8;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

__host__ __device__ inline uint32_t transform(uint32_t x, uint32_t idx) {
  for (int r = 0; r < ROUNDS; ++r) {
    x ^= idx + 0x9e3779b9u * (uint32_t)(r + 1);
    x *= 0x2c1b3c6du;
    x ^= x >> 15;
  }
  return x;
}

__global__ void transform_chunk(const uint32_t* __restrict__ in, uint32_t* __restrict__ out, size_t n,
                                size_t base) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = transform(in[i], (uint32_t)(base + i));
}

__global__ void chunk_sum(const uint32_t* __restrict__ v, size_t n, unsigned long long* __restrict__ sum) {
  unsigned long long s = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    s += v[i];
  atomicAdd(sum, s);
}

__global__ void combine(const unsigned long long* __restrict__ sums, int nchunks, unsigned long long* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    unsigned long long total = 0, mix = 0;
    for (int c = 0; c < nchunks; ++c) {
      total += sums[c];
      mix = (mix ^ sums[c]) * 0x100000001b3ULL;
    }
    out[0] = total;
    out[1] = mix;
  }
}

// HIP 5.2 declares hipLaunchHostFunc but its runtime lacks it: a stream callback instead.
static void on_chunk_done(hipStream_t, hipError_t, void* arg) {
  static_cast<std::atomic<int>*>(arg)->fetch_add(1);
}

int main(int argc, char** argv) {
  long long n_arg = argc > 1 ? atoll(argv[1]) : 4194304LL;
  int nchunks = argc > 2 ? atoi(argv[2]) : 16;
  if (n_arg < 1 || n_arg > (1LL << 28) || nchunks < 1 || nchunks > 1024 || nchunks > n_arg) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  const size_t n = (size_t)n_arg;
  uint32_t *h_in, *h_out;
  CHECK(hipHostMalloc(&h_in, n * 4, hipHostMallocDefault));
  CHECK(hipHostMalloc(&h_out, n * 4, hipHostMallocDefault));
  uint32_t s = 0x8badf00du;
  for (size_t i = 0; i < n; ++i) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    h_in[i] = s;
  }
  uint32_t *d_in, *d_out;
  unsigned long long *d_sums, *d_total;
  CHECK(hipMalloc(&d_in, n * 4));
  CHECK(hipMalloc(&d_out, n * 4));
  CHECK(hipMalloc(&d_sums, nchunks * sizeof(unsigned long long)));
  CHECK(hipMalloc(&d_total, 2 * sizeof(unsigned long long)));
  CHECK(hipMemset(d_sums, 0, nchunks * sizeof(unsigned long long)));

  int least = 0, greatest = 0;
  CHECK(hipDeviceGetStreamPriorityRange(&least, &greatest));
  hipStream_t streams[NSTREAMS], comb;
  for (int k = 0; k < NSTREAMS; ++k)  // alternate the lowest and highest priority
    CHECK(hipStreamCreateWithPriority(&streams[k], hipStreamNonBlocking, (k % 2) ? greatest : least));
  CHECK(hipStreamCreateWithFlags(&comb, hipStreamNonBlocking));
  std::vector<hipEvent_t> done(nchunks);
  for (auto& e : done) CHECK(hipEventCreateWithFlags(&e, hipEventDisableTiming));
  hipEvent_t t0, t1;
  CHECK(hipEventCreate(&t0));
  CHECK(hipEventCreate(&t1));
  std::atomic<int> callbacks{0};

  CHECK(hipEventRecord(t0, streams[0]));
  for (int k = 1; k < NSTREAMS; ++k) CHECK(hipStreamWaitEvent(streams[k], t0, 0));
  for (int c = 0; c < nchunks; ++c) {
    hipStream_t st = streams[c % NSTREAMS];
    size_t begin = n * c / nchunks, end = n * (c + 1) / nchunks, len = end - begin;
    CHECK(hipMemcpyAsync(d_in + begin, h_in + begin, len * 4, hipMemcpyHostToDevice, st));
    transform_chunk<<<128, 256, 0, st>>>(d_in + begin, d_out + begin, len, begin);
    CHECK(hipGetLastError());
    chunk_sum<<<64, 256, 0, st>>>(d_out + begin, len, d_sums + c);
    CHECK(hipGetLastError());
    CHECK(hipMemcpyAsync(h_out + begin, d_out + begin, len * 4, hipMemcpyDeviceToHost, st));
    CHECK(hipEventRecord(done[c], st));
    CHECK(hipStreamAddCallback(st, on_chunk_done, &callbacks, 0));
  }
  for (int c = 0; c < nchunks; ++c) CHECK(hipStreamWaitEvent(comb, done[c], 0));
  combine<<<1, 32, 0, comb>>>(d_sums, nchunks, d_total);
  CHECK(hipGetLastError());
  unsigned long long* h_total;
  CHECK(hipHostMalloc(&h_total, 2 * sizeof(unsigned long long), hipHostMallocDefault));
  CHECK(hipMemcpyAsync(h_total, d_total, 2 * sizeof(unsigned long long), hipMemcpyDeviceToHost, comb));
  CHECK(hipEventRecord(t1, comb));
  CHECK(hipEventSynchronize(t1));
  for (int k = 0; k < NSTREAMS; ++k) CHECK(hipStreamSynchronize(streams[k]));
  float ms = 0;
  CHECK(hipEventElapsedTime(&ms, t0, t1));
  fprintf(stderr, "pipeline: %.3f ms\n", ms);
  for (int c = 0; c < nchunks; ++c) {
    hipError_t q = hipEventQuery(done[c]);
    if (q != hipSuccess) {
      printf("VERDICT: FAIL event %d not complete after synchronisation (%s)\n", c, hipGetErrorName(q));
      return 1;
    }
  }
  for (int k = 0; k < NSTREAMS; ++k)
    if (hipStreamQuery(streams[k]) != hipSuccess) {
      printf("VERDICT: FAIL stream %d still busy after synchronisation\n", k);
      return 1;
    }
  std::vector<unsigned long long> g_sums(nchunks);
  CHECK(hipMemcpy(g_sums.data(), d_sums, nchunks * sizeof(unsigned long long), hipMemcpyDeviceToHost));
  // hipStreamSynchronize returns only after the stream's host functions have
  // returned, so every callback must have counted by now.
  if (callbacks.load() != nchunks) {
    printf("VERDICT: FAIL %d host callbacks ran, expected %d\n", callbacks.load(), nchunks);
    return 1;
  }

  std::vector<unsigned long long> sums(nchunks, 0);
  for (int c = 0; c < nchunks; ++c) {
    size_t begin = n * c / nchunks, end = n * (c + 1) / nchunks;
    for (size_t i = begin; i < end; ++i) {
      uint32_t want = transform(h_in[i], (uint32_t)i);
      if (h_out[i] != want) {
        printf("VERDICT: FAIL word %zu (chunk %d): %08x, expected %08x\n", i, c, h_out[i], want);
        return 1;
      }
      sums[c] += want;
    }
    if (g_sums[c] != sums[c]) {
      printf("VERDICT: FAIL chunk %d sum differs\n", c);
      return 1;
    }
  }
  unsigned long long total = 0, mix = 0;
  for (int c = 0; c < nchunks; ++c) {
    total += sums[c];
    mix = (mix ^ sums[c]) * 0x100000001b3ULL;
  }
  if (h_total[0] != total || h_total[1] != mix) {
    printf("VERDICT: FAIL combined totals differ\n");
    return 1;
  }
  uint32_t c = fnv1a(2166136261u, h_out, n * 4);
  c = fnv1a(c, sums.data(), nchunks * sizeof(unsigned long long));
  printf("words=%zu chunks=%d streams=%d callbacks=%d\n", n, nchunks, NSTREAMS, callbacks.load());
  for (auto& e : done) CHECK(hipEventDestroy(e));
  CHECK(hipEventDestroy(t0));
  CHECK(hipEventDestroy(t1));
  for (int k = 0; k < NSTREAMS; ++k) CHECK(hipStreamDestroy(streams[k]));
  CHECK(hipStreamDestroy(comb));
  CHECK(hipHostFree(h_in));
  CHECK(hipHostFree(h_out));
  CHECK(hipHostFree(h_total));
  CHECK(hipFree(d_in));
  CHECK(hipFree(d_out));
  CHECK(hipFree(d_sums));
  CHECK(hipFree(d_total));
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
