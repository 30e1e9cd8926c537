// RUN: cass translate --warp native %s -o %t --strategy rules --verify none --hip-version 7.1
// Code that looks like a warp-size hazard and is not one.
#include <cuda_runtime.h>
int warpsPerBlock(int threads) {
  // A variable set from the device, not a warp size fixed at 32.
  // CHECK: int warp = 32;
  int warp = 32;
  // CHECK-NEXT: if (hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, 0) != hipSuccess) return 0;
  if (cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0) != cudaSuccess) return 0;
  return threads / warp;
}
__global__ void k(int* planes, int n) {
  // "planes" holds "lane", not as a word.
  // CHECK: int p = planes[n] & 31;
  int p = planes[n] & 31;
  planes[0] = p;
}
// DIAG-NOT: 'warp' fixes the warp size
// DIAG-NOT: [cass-warp-lane-arith]
// Constants named for the warp size are still reported.
// CHECK: constexpr int kWarp = 32;
constexpr int kWarp = 32;
// DIAG: false_alarms.cu:22:23: warning: 'kWarp' fixes the warp size at 32
