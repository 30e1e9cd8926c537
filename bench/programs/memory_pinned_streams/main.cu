// Pinned host buffers streamed through the GPU in chunks on four streams: each
// chunk is copied in, scrambled by an integer mixing kernel and copied back, so
// copies on one stream overlap kernels on another. A final kernel on stream 0
// waits (cudaStreamWaitEvent) for every chunk and folds per-block digests.
// Event timings go to stderr only.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t err_ = (call);                                                       \
    if (err_ != cudaSuccess) {                                                       \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));  \
      printf("VERDICT: FAIL cuda-error\n");                                          \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

constexpr int kStreams = 4;
constexpr int kRounds = 16;
constexpr int kDigestBlock = 256;

__host__ __device__ inline uint32_t mix(uint32_t x, uint32_t i) {
  for (int r = 0; r < kRounds; ++r) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x += i * 0x846ca68bu + (uint32_t)r;
  }
  return x;
}

__global__ void scramble(uint32_t* data, size_t offset, size_t count) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < count) data[i] = mix(data[i], (uint32_t)(offset + i));
}

// One digest per block: xor of rotated words (order-free within the block).
__global__ void digest(const uint32_t* data, size_t n, uint32_t* out) {
  __shared__ uint32_t acc[kDigestBlock];
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  uint32_t v = 0;
  if (i < n) {
    uint32_t r = (uint32_t)(i & 31u);
    v = (data[i] << r) | (data[i] >> ((32u - r) & 31u));
  }
  acc[threadIdx.x] = v;
  __syncthreads();
  for (int w = kDigestBlock / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) acc[threadIdx.x] ^= acc[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = acc[0];
}

int main(int argc, char** argv) {
  size_t n = argc > 1 ? (size_t)atol(argv[1]) : (size_t)(1 << 21) + 333;
  int chunks = argc > 2 ? atoi(argv[2]) : 16;
  if (n == 0 || chunks <= 0) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  uint32_t *hin, *hout, *hdig;
  size_t nblk = (n + kDigestBlock - 1) / kDigestBlock;
  CHECK(cudaMallocHost(&hin, n * sizeof(uint32_t)));
  CHECK(cudaMallocHost(&hout, n * sizeof(uint32_t)));
  CHECK(cudaHostAlloc(&hdig, nblk * sizeof(uint32_t), cudaHostAllocDefault));
  uint32_t s = 2463534242u;
  for (size_t i = 0; i < n; ++i) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    hin[i] = s;
  }
  uint32_t *dbuf, *ddig;
  CHECK(cudaMalloc(&dbuf, n * sizeof(uint32_t)));
  CHECK(cudaMalloc(&ddig, nblk * sizeof(uint32_t)));
  cudaStream_t st[kStreams];
  cudaEvent_t done[kStreams], t0, t1;
  for (int k = 0; k < kStreams; ++k) {
    CHECK(cudaStreamCreateWithFlags(&st[k], cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&done[k], cudaEventDisableTiming));
  }
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  CHECK(cudaEventRecord(t0, st[0]));
  size_t per = (n + chunks - 1) / chunks;
  for (int c = 0; c < chunks; ++c) {
    size_t off = (size_t)c * per;
    if (off >= n) break;
    size_t cnt = (off + per <= n) ? per : n - off;
    cudaStream_t q = st[c % kStreams];
    CHECK(cudaMemcpyAsync(dbuf + off, hin + off, cnt * sizeof(uint32_t), cudaMemcpyHostToDevice, q));
    scramble<<<(unsigned)((cnt + 255) / 256), 256, 0, q>>>(dbuf + off, off, cnt);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(hout + off, dbuf + off, cnt * sizeof(uint32_t), cudaMemcpyDeviceToHost, q));
  }
  for (int k = 0; k < kStreams; ++k) {
    CHECK(cudaEventRecord(done[k], st[k]));
    CHECK(cudaStreamWaitEvent(st[0], done[k], 0));
  }
  digest<<<(unsigned)nblk, kDigestBlock, 0, st[0]>>>(dbuf, n, ddig);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(hdig, ddig, nblk * sizeof(uint32_t), cudaMemcpyDeviceToHost, st[0]));
  CHECK(cudaEventRecord(t1, st[0]));
  CHECK(cudaEventSynchronize(t1));
  for (int k = 0; k < kStreams; ++k) CHECK(cudaStreamSynchronize(st[k]));
  float ms = 0.0f;
  CHECK(cudaEventElapsedTime(&ms, t0, t1));
  fprintf(stderr, "pipelined %zu words in %d chunks: %.3f ms\n", n, chunks, ms);
  if (cudaStreamQuery(st[1]) != cudaSuccess) {
    printf("VERDICT: FAIL stream-not-idle\n");
    return 1;
  }

  long bad = 0;
  uint32_t h = 2166136261u;
  for (size_t b = 0; b < nblk; ++b) {
    uint32_t d = 0;
    for (size_t i = b * kDigestBlock; i < n && i < (b + 1) * kDigestBlock; ++i) {
      uint32_t ref = mix(hin[i], (uint32_t)i);
      if (hout[i] != ref) {
        if (bad < 5) fprintf(stderr, "word %zu: gpu %08x cpu %08x\n", i, hout[i], ref);
        ++bad;
      }
      uint32_t r = (uint32_t)(i & 31u);
      d ^= (ref << r) | (ref >> ((32u - r) & 31u));
    }
    if (hdig[b] != d) {
      if (bad < 5) fprintf(stderr, "digest %zu: gpu %08x cpu %08x\n", b, hdig[b], d);
      ++bad;
    }
    h = (h ^ d) * 16777619u;
  }
  for (int k = 0; k < kStreams; ++k) {
    CHECK(cudaStreamDestroy(st[k]));
    CHECK(cudaEventDestroy(done[k]));
  }
  CHECK(cudaEventDestroy(t0));
  CHECK(cudaEventDestroy(t1));
  CHECK(cudaFree(dbuf));
  CHECK(cudaFree(ddig));
  CHECK(cudaFreeHost(hin));
  CHECK(cudaFreeHost(hout));
  CHECK(cudaFreeHost(hdig));
  if (bad) {
    printf("VERDICT: FAIL %ld mismatches\n", bad);
    return 1;
  }
  printf("VERDICT: PASS checksum=%08x\n", h);
  return 0;
}
