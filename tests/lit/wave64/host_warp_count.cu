// RUN: cass translate --warp native %s -o %t --strategy rules --verify none --hip-version 7.1
// Host code that sizes a launch for 32-lane warps: reported, never rewritten.
#include <cstdio>
#include <cuda_runtime.h>

#define WARP_SZ 32

__device__ int warpSum(int v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);
  return v;
}

// One warp per row: it works per warp through warpSum.
__global__ void rowSums(const int* a, int* out, int rows, int cols) {
  int lane = threadIdx.x % 32;
  int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (row >= rows) return;
  int s = 0;
  for (int c = lane; c < cols; c += 32) s += a[row * cols + c];
  s = warpSum(s);
  if (lane == 0) out[row] = s;
}

// 32x32 tiles of threads: no warp in sight.
__global__ void transpose(const float* in, float* out, int w, int h) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  if (x < w && y < h) out[x * h + y] = tile[threadIdx.y][threadIdx.x];
}

__global__ void child(int* out) { out[threadIdx.x] = __shfl_sync(0xffffffff, 1, 0); }

// Dynamic parallelism is device code: not a host launch.
__global__ void parent(int* out, int n) {
  // CHECK: child<<<n / 32, 32>>>(out);
  child<<<n / 32, 32>>>(out);
}

extern __global__ void elsewhere(int* out);

// A launcher: the sizing comes from a parameter, computed by its caller.
static void launchRows(const int* a, int* out, int rows, int cols, int grid) {
  rowSums<<<grid, 256>>>(a, out, rows, cols);
}

// A launcher that computes it itself, with a shift.
static void launchRows2(const int* a, int* out, int rows, int cols, int threads) {
  // CHECK: const int perBlock = threads >> 5;
  const int perBlock = threads >> 5;
  rowSums<<<(rows + perBlock - 1) / perBlock, threads>>>(a, out, rows, cols);
}

int main() {
  const int rows = 512, cols = 96, n = 4096, block = 256;
  int *a = nullptr, *out = nullptr;
  float *f = nullptr, *g = nullptr;
  // CHECK: const int rowsPerBlock = block / 32;
  const int rowsPerBlock = block / 32;
  rowSums<<<(rows + rowsPerBlock - 1) / rowsPerBlock, block>>>(a, out, rows, cols);
  // In the launch itself, through dim3, and with a warp-size macro.
  rowSums<<<(rows * 32 + block - 1) / block, block>>>(a, out, rows, cols);
  dim3 grid((rows * WARP_SZ + 127) / 128);
  rowSums<<<grid, 128>>>(a, out, rows, cols);
  launchRows(a, out, rows, cols, rows * 32 / block);
  launchRows2(a, out, rows, cols, block);
  // The kernel is not in this file, but the arithmetic names warps.
  int warpsPerBlock = block / 32;
  elsewhere<<<n / warpsPerBlock, block>>>(out);

  // Not sizing a per-warp launch: tiles of 32, a count printed, shared memory
  // per warp, a block of 32 threads, a division after the launch.
  dim3 tiles((cols + 31) / 32, (rows + 31) / 32);
  transpose<<<tiles, dim3(32, 8)>>>(f, g, cols, rows);
  printf("%d chunks\n", n / 32);
  rowSums<<<(n + 255) / 256, 256, (256 / 32) * sizeof(int)>>>(a, out, rows, cols);
  rowSums<<<rows, 32>>>(a, out, rows, cols);
  int later = 64;
  rowSums<<<later, 256>>>(a, out, rows, cols);
  later = n / 32;
  return later;
}
// DIAG: host_warp_count.cu:51:35: warning: '>> 5' sizes the launch of 'rowSums' for 32-lane warps, and the kernel works per warp: where the kernel counts lanes by warpSize, a block holds half the waves this launch assumes on AMD's 64-lane wavefronts. Size it by the device's warp size (cudaDeviceGetAttribute with cudaDevAttrWarpSize, or cudaDeviceProp::warpSize; hipDeviceGetAttribute, hipDeviceProp_t::warpSize in HIP) [cass-host-warp-count]
// DIAG: host_warp_count.cu:60:36: warning: '/ 32' sizes the launch of 'rowSums' for 32-lane warps, and the kernel works per warp
// DIAG: host_warp_count.cu:63:21: warning: '* 32' sizes the launch of 'rowSums'
// DIAG: host_warp_count.cu:64:21: warning: '* WARP_SZ' sizes the launch of 'rowSums'
// DIAG: host_warp_count.cu:66:41: warning: '* 32' sizes the launch of 'rowSums'
// DIAG: host_warp_count.cu:69:31: warning: '/ 32' sizes the launch of 'elsewhere' for 32-lane warps: where
// DIAG-NOT: launch of 'transpose'
// DIAG-NOT: launch of 'child'
// DIAG-NOT: host_warp_count.cu:74:
// DIAG-NOT: host_warp_count.cu:76:
// DIAG-NOT: host_warp_count.cu:77:
// DIAG-NOT: host_warp_count.cu:78:
// DIAG-NOT: host_warp_count.cu:81:
