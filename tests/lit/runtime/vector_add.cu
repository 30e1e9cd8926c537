// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// A host program in the runtime API: allocation, copies, streams, events, errors.
// CHECK: #include <hip/hip_runtime.h>
#include <cuda_runtime.h>
#include <cstdio>

__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// CHECK: static void check(hipError_t err, const char* what) {
static void check(cudaError_t err, const char* what) {
  // CHECK: if (err != hipSuccess) {
  if (err != cudaSuccess) {
    // CHECK: std::fprintf(stderr, "%s: %s (%s)\n", what, hipGetErrorString(err), hipGetErrorName(err));
    std::fprintf(stderr, "%s: %s (%s)\n", what, cudaGetErrorString(err), cudaGetErrorName(err));
  }
}

int main() {
  const int n = 1 << 20;
  float *a, *b, *c, *host;
  // CHECK: check(hipMalloc(&a, n * sizeof(float)), "a");
  check(cudaMalloc(&a, n * sizeof(float)), "a");
  // CHECK: check(hipMalloc(&b, n * sizeof(float)), "b");
  check(cudaMalloc(&b, n * sizeof(float)), "b");
  // CHECK: check(hipMallocManaged(&c, n * sizeof(float), hipMemAttachGlobal), "c");
  check(cudaMallocManaged(&c, n * sizeof(float), cudaMemAttachGlobal), "c");
  // CHECK: check(hipHostMalloc(&host, n * sizeof(float)), "host");
  check(cudaMallocHost(&host, n * sizeof(float)), "host");
  // CHECK: hipStream_t stream;
  cudaStream_t stream;
  // CHECK: check(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking), "stream");
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  // CHECK: hipEvent_t start, stop;
  cudaEvent_t start, stop;
  // CHECK: hipEventCreate(&start);
  cudaEventCreate(&start);
  // CHECK: hipEventCreateWithFlags(&stop, hipEventBlockingSync);
  cudaEventCreateWithFlags(&stop, cudaEventBlockingSync);
  // CHECK: hipMemsetAsync(a, 0, n * sizeof(float), stream);
  cudaMemsetAsync(a, 0, n * sizeof(float), stream);
  // CHECK: hipMemcpyAsync(b, host, n * sizeof(float), hipMemcpyHostToDevice, stream);
  cudaMemcpyAsync(b, host, n * sizeof(float), cudaMemcpyHostToDevice, stream);
  // CHECK: hipEventRecord(start, stream);
  cudaEventRecord(start, stream);
  add<<<(n + 255) / 256, 256, 0, stream>>>(a, b, c, n);
  // CHECK: check(hipGetLastError(), "launch");
  check(cudaGetLastError(), "launch");
  // CHECK: hipEventRecord(stop, stream);
  cudaEventRecord(stop, stream);
  // CHECK: hipEventSynchronize(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  // CHECK: hipEventElapsedTime(&ms, start, stop);
  cudaEventElapsedTime(&ms, start, stop);
  // CHECK: hipMemcpy(host, c, n * sizeof(float), hipMemcpyDeviceToHost);
  cudaMemcpy(host, c, n * sizeof(float), cudaMemcpyDeviceToHost);
  // CHECK: hipStreamSynchronize(stream);
  cudaStreamSynchronize(stream);
  // CHECK: hipDeviceSynchronize();
  cudaDeviceSynchronize();
  // CHECK: hipEventDestroy(start);
  cudaEventDestroy(start);
  // CHECK-NEXT: hipEventDestroy(stop);
  cudaEventDestroy(stop);
  // CHECK: hipStreamDestroy(stream);
  cudaStreamDestroy(stream);
  // CHECK: hipHostFree(host);
  cudaFreeHost(host);
  // CHECK: hipFree(a);
  cudaFree(a);
  // CHECK-NEXT: hipFree(b);
  cudaFree(b);
  // CHECK-NEXT: hipFree(c);
  cudaFree(c);
  // CHECK-NOT: cuda
  return 0;
}
