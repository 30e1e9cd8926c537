// Pitched 2-D memory: a ragged matrix goes in with hipMemcpy2D, is transposed
// through a padded shared-memory tile (coalesced reads and writes, no bank
// conflicts), a band is overwritten with hipMemset2D, a sub-block is copied
// device to device with hipMemcpy2D, and everything comes back packed.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

constexpr int kTile = 32;
constexpr int kRowsPerPass = 8;

// src: rows x cols with pitch sp (bytes); dst: cols x rows with pitch dp.
__global__ void transpose(const uint32_t* src, size_t sp, uint32_t* dst, size_t dp, int rows,
                          int cols) {
  __shared__ uint32_t tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y0 = blockIdx.y * kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kRowsPerPass) {
    int y = y0 + k;
    if (x < cols && y < rows) {
      const uint32_t* row = (const uint32_t*)((const char*)src + (size_t)y * sp);
      tile[threadIdx.y + k][threadIdx.x] = row[x];
    }
  }
  __syncthreads();
  int tx = blockIdx.y * kTile + threadIdx.x;  // column of dst = row of src
  int ty0 = blockIdx.x * kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kRowsPerPass) {
    int ty = ty0 + k;
    if (tx < rows && ty < cols) {
      uint32_t* row = (uint32_t*)((char*)dst + (size_t)ty * dp);
      row[tx] = tile[threadIdx.x][threadIdx.y + k];
    }
  }
}

int main(int argc, char** argv) {
  int rows = argc > 1 ? atoi(argv[1]) : 1000;
  int cols = argc > 2 ? atoi(argv[2]) : 1537;
  if (rows < 64 || cols < 64) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  size_t n = (size_t)rows * cols;
  uint32_t* h = (uint32_t*)malloc(n * sizeof(uint32_t));
  uint32_t* ht = (uint32_t*)malloc(n * sizeof(uint32_t));
  uint64_t s = 88172645463325252ull;
  for (size_t i = 0; i < n; ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    h[i] = (uint32_t)(s >> 11);
  }
  uint32_t *dsrc, *ddst, *dsub;
  size_t sp, dp, subp;
  CHECK(hipMallocPitch(reinterpret_cast<void**>(&dsrc), &sp, cols * sizeof(uint32_t), rows));
  CHECK(hipMallocPitch(reinterpret_cast<void**>(&ddst), &dp, rows * sizeof(uint32_t), cols));
  // Sub-block of src: rows [r0, r0+sr), columns [c0, c0+sc).
  const int r0 = rows / 10, c0 = cols / 7, sr = rows / 3, sc = cols / 2;
  CHECK(hipMallocPitch(reinterpret_cast<void**>(&dsub), &subp, sc * sizeof(uint32_t), sr));
  fprintf(stderr, "pitches: src %zu dst %zu sub %zu bytes\n", sp, dp, subp);
  CHECK(hipMemcpy2D(dsrc, sp, h, cols * sizeof(uint32_t), cols * sizeof(uint32_t), rows,
                     hipMemcpyHostToDevice));
  dim3 block(kTile, kRowsPerPass), grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  transpose<<<grid, block>>>(dsrc, sp, ddst, dp, rows, cols);
  CHECK(hipGetLastError());
  // Overwrite dst rows [5, 17), columns [3, rows-3) with the byte 0xAB.
  const int br0 = 5, br1 = 17, bc0 = 3, bc1 = rows - 3;
  CHECK(hipMemset2D((char*)ddst + br0 * dp + bc0 * sizeof(uint32_t), dp, 0xAB,
                     (bc1 - bc0) * sizeof(uint32_t), br1 - br0));
  CHECK(hipMemcpy2D(dsub, subp, (char*)dsrc + r0 * sp + c0 * sizeof(uint32_t), sp,
                     sc * sizeof(uint32_t), sr, hipMemcpyDeviceToDevice));
  CHECK(hipMemcpy2D(ht, rows * sizeof(uint32_t), ddst, dp, rows * sizeof(uint32_t), cols,
                     hipMemcpyDeviceToHost));
  uint32_t* hsub = (uint32_t*)malloc((size_t)sr * sc * sizeof(uint32_t));
  CHECK(hipMemcpy2D(hsub, sc * sizeof(uint32_t), dsub, subp, sc * sizeof(uint32_t), sr,
                     hipMemcpyDeviceToHost));

  long bad = 0;
  uint32_t hash = 2166136261u;
  for (int c = 0; c < cols; ++c) {
    for (int r = 0; r < rows; ++r) {
      bool band = c >= br0 && c < br1 && r >= bc0 && r < bc1;
      uint32_t ref = band ? 0xABABABABu : h[(size_t)r * cols + c];
      uint32_t got = ht[(size_t)c * rows + r];
      if (got != ref) {
        if (bad < 5) fprintf(stderr, "dst[%d][%d] gpu %08x cpu %08x\n", c, r, got, ref);
        ++bad;
      }
      hash = (hash ^ ref) * 16777619u;
    }
  }
  for (int r = 0; r < sr; ++r)
    for (int c = 0; c < sc; ++c) {
      uint32_t ref = h[(size_t)(r0 + r) * cols + c0 + c];
      if (hsub[(size_t)r * sc + c] != ref) {
        if (bad < 5) fprintf(stderr, "sub[%d][%d] mismatch\n", r, c);
        ++bad;
      }
      hash = (hash ^ ref) * 16777619u;
    }
  CHECK(hipFree(dsrc));
  CHECK(hipFree(ddst));
  CHECK(hipFree(dsub));
  free(h);
  free(ht);
  free(hsub);
  if (bad) {
    printf("VERDICT: FAIL %ld mismatches\n", bad);
    return 1;
  }
  printf("VERDICT: PASS checksum=%08x\n", hash);
  return 0;
}
