// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// Device properties, attributes, peer access and limits.
#include <cuda_runtime.h>
#include <cstdio>

int main() {
  int count = 0;
  // CHECK: hipGetDeviceCount(&count);
  cudaGetDeviceCount(&count);
  for (int d = 0; d < count; ++d) {
    // CHECK: hipSetDevice(d);
    cudaSetDevice(d);
    // CHECK: hipDeviceProp_t prop;
    cudaDeviceProp prop;
    // CHECK: hipGetDeviceProperties(&prop, d);
    cudaGetDeviceProperties(&prop, d);
    int sms = 0, major = 0, clock = 0, l2 = 0;
    // CHECK: hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, d);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d);
    // CHECK: hipDeviceGetAttribute(&major, hipDeviceAttributeComputeCapabilityMajor, d);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d);
    // CHECK: hipDeviceGetAttribute(&clock, hipDeviceAttributeClockRate, d);
    cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, d);
    // CHECK: hipDeviceGetAttribute(&l2, hipDeviceAttributeL2CacheSize, d);
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, d);
    std::printf("%d: %s, %d SMs\n", d, prop.name, sms);
    for (int peer = 0; peer < count; ++peer) {
      int can = 0;
      // CHECK: hipDeviceCanAccessPeer(&can, d, peer);
      cudaDeviceCanAccessPeer(&can, d, peer);
      // CHECK: if (can) hipDeviceEnablePeerAccess(peer, 0);
      if (can) cudaDeviceEnablePeerAccess(peer, 0);
    }
    size_t heap = 0, free_b = 0, total_b = 0;
    // CHECK: hipDeviceGetLimit(&heap, hipLimitMallocHeapSize);
    cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize);
    // CHECK: hipDeviceSetLimit(hipLimitStackSize, 4096);
    cudaDeviceSetLimit(cudaLimitStackSize, 4096);
    // CHECK: hipMemGetInfo(&free_b, &total_b);
    cudaMemGetInfo(&free_b, &total_b);
    int runtime = 0, driver = 0;
    // CHECK: hipRuntimeGetVersion(&runtime);
    cudaRuntimeGetVersion(&runtime);
    // CHECK: hipDriverGetVersion(&driver);
    cudaDriverGetVersion(&driver);
    // CHECK: hipDeviceReset();
    cudaDeviceReset();
  }
  return 0;
}
