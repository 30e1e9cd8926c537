// Symbols and managed memory: a byte-substitution pass reads its S-box and round
// keys from __constant__ memory (hipMemcpyToSymbol, with an offset, and the
// async form between rounds), counts output bytes into a __device__ histogram
// (zeroed through hipGetSymbolAddress, read back with hipMemcpyFromSymbol),
// and works on hipMallocManaged buffers that the host fills and reads directly.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

constexpr int kKeys = 16;
__constant__ uint8_t c_sbox[256];
__constant__ uint32_t c_keys[kKeys];
__device__ uint32_t d_hist[256];
__device__ unsigned long long d_sum;

__global__ void substitute(const uchar4* __restrict__ in, uchar4* __restrict__ out, int nwords) {
  __shared__ uint32_t local[256];
  for (int t = threadIdx.x; t < 256; t += blockDim.x) local[t] = 0;
  __syncthreads();
  unsigned long long sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += gridDim.x * blockDim.x) {
    uint32_t key = c_keys[(i >> 3) & (kKeys - 1)];
    uchar4 v = in[i];
    uchar4 r;
    r.x = c_sbox[(v.x ^ key) & 0xff];
    r.y = c_sbox[(v.y ^ (key >> 8)) & 0xff];
    r.z = c_sbox[(v.z ^ (key >> 16)) & 0xff];
    r.w = c_sbox[(v.w ^ (key >> 24)) & 0xff];
    out[i] = r;
    atomicAdd(&local[r.x], 1u);
    atomicAdd(&local[r.y], 1u);
    atomicAdd(&local[r.z], 1u);
    atomicAdd(&local[r.w], 1u);
    sum += (unsigned long long)(r.x + r.y + r.z + r.w) * (unsigned)(i & 1023);
  }
  __syncthreads();
  for (int t = threadIdx.x; t < 256; t += blockDim.x)
    if (local[t]) atomicAdd(&d_hist[t], local[t]);
  atomicAdd(&d_sum, sum);
}

int main(int argc, char** argv) {
  int nwords = argc > 1 ? atoi(argv[1]) : 1 << 20;
  if (nwords <= 0) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  int dev = 0, managed = 0;
  CHECK(hipGetDevice(&dev));
  CHECK(hipDeviceGetAttribute(&managed, hipDeviceAttributeManagedMemory, dev));
  if (!managed) {
    printf("VERDICT: FAIL no-managed-memory\n");
    return 1;
  }
  uint8_t sbox[256];
  uint32_t keys[2][kKeys];
  uint32_t s = 0x2545f491u;
  auto next = [&s]() { s = s * 1664525u + 1013904223u; return s; };
  for (int i = 0; i < 256; ++i) sbox[i] = (uint8_t)i;
  for (int i = 255; i > 0; --i) {
    int j = (int)((next() >> 8) % (uint32_t)(i + 1));
    uint8_t t = sbox[i]; sbox[i] = sbox[j]; sbox[j] = t;
  }
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < kKeys; ++k) keys[r][k] = next();

  uint8_t *a, *b;  // managed: the host writes a and reads b without explicit copies
  CHECK(hipMallocManaged(&a, (size_t)nwords * 4));
  CHECK(hipMallocManaged(&b, (size_t)nwords * 4));
  uint8_t* orig = (uint8_t*)malloc((size_t)nwords * 4);
  for (size_t i = 0; i < (size_t)nwords * 4; ++i) orig[i] = a[i] = (uint8_t)(next() >> 24);

  CHECK(hipMemcpyToSymbol(c_sbox, sbox, sizeof(sbox)));
  CHECK(hipMemcpyToSymbol(c_keys, keys[0], 8 * sizeof(uint32_t)));
  CHECK(hipMemcpyToSymbol(c_keys, keys[0] + 8, 8 * sizeof(uint32_t), 8 * sizeof(uint32_t)));
  uint32_t* hist_ptr;
  CHECK(hipGetSymbolAddress((void**)&hist_ptr, d_hist));
  CHECK(hipMemset(hist_ptr, 0, 256 * sizeof(uint32_t)));
  unsigned long long zero = 0;
  CHECK(hipMemcpyToSymbol(d_sum, &zero, sizeof(zero)));

  // Round 1: a -> b with keys[0]; round 2: b -> a with keys[1].
  substitute<<<264, 256>>>((const uchar4*)a, (uchar4*)b, nwords);
  CHECK(hipGetLastError());
  CHECK(hipMemcpyToSymbolAsync(c_keys, keys[1], sizeof(keys[1]), 0, hipMemcpyHostToDevice, 0));
  substitute<<<264, 256>>>((const uchar4*)b, (uchar4*)a, nwords);
  CHECK(hipGetLastError());
  CHECK(hipDeviceSynchronize());
  uint32_t ghist[256];
  unsigned long long gsum = 0;
  CHECK(hipMemcpyFromSymbol(ghist, d_hist, sizeof(ghist)));
  CHECK(hipMemcpyFromSymbol(&gsum, d_sum, sizeof(gsum)));

  // CPU reference of both rounds.
  uint32_t rhist[256] = {0};
  unsigned long long rsum = 0;
  uint8_t* cur = (uint8_t*)malloc((size_t)nwords * 4);
  memcpy(cur, orig, (size_t)nwords * 4);
  long bad = 0;
  uint32_t h = 2166136261u;
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < nwords; ++i) {
      uint32_t key = keys[r][(i >> 3) & (kKeys - 1)];
      unsigned bytesum = 0;
      for (int l = 0; l < 4; ++l) {
        uint8_t o = sbox[(cur[4 * i + l] ^ (key >> (8 * l))) & 0xff];
        cur[4 * i + l] = o;
        rhist[o]++;
        bytesum += o;
      }
      rsum += (unsigned long long)bytesum * (unsigned)(i & 1023);
    }
    if (r == 0)
      for (size_t i = 0; i < (size_t)nwords * 4; ++i)
        if (b[i] != cur[i] && bad++ < 5) fprintf(stderr, "round 1 byte %zu differs\n", i);
  }
  for (size_t i = 0; i < (size_t)nwords * 4; ++i) {
    if (a[i] != cur[i] && bad++ < 5) fprintf(stderr, "round 2 byte %zu differs\n", i);
    h = (h ^ cur[i]) * 16777619u;
  }
  for (int k = 0; k < 256; ++k) {
    if (ghist[k] != rhist[k] && bad++ < 5) fprintf(stderr, "hist[%d] %u vs %u\n", k, ghist[k], rhist[k]);
    h = (h ^ rhist[k]) * 16777619u;
  }
  if (gsum != rsum && bad++ < 5) fprintf(stderr, "sum %llu vs %llu\n", gsum, rsum);
  h = (h ^ (uint32_t)rsum) * 16777619u;
  CHECK(hipFree(a));
  CHECK(hipFree(b));
  free(orig);
  free(cur);
  if (bad) {
    printf("VERDICT: FAIL %ld mismatches\n", bad);
    return 1;
  }
  printf("VERDICT: PASS checksum=%08x\n", h);
  return 0;
}
