// Error checks shared by the zero-edit examples, in the shape of the helper headers
// that CUDA sample collections keep in a sibling directory: each part is compiled only
// when the CUDA header it needs was included first, which it tells by that header's
// guard macro.
#ifndef ZERO_EDIT_CUDA_CHECK_H
#define ZERO_EDIT_CUDA_CHECK_H

#include <cstdio>
#include <cstdlib>

#ifdef __DRIVER_TYPES_H__
static inline const char *errorName(cudaError_t code) { return cudaGetErrorName(code); }
#endif

#ifdef CUBLAS_API_H_
static inline const char *errorName(cublasStatus_t code) {
  switch (code) {
  case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
  default: return "cuBLAS error";
  }
}
#endif

#ifdef __CUDA_RUNTIME_H__
template <typename Status>
void checkStatus(Status status, const char *call, const char *file, int line) {
  if (status) {
    std::fprintf(stderr, "%s:%d: %s failed: %d (%s)\n", file, line, call,
                 static_cast<int>(status), errorName(status));
    std::exit(EXIT_FAILURE);
  }
}
#define checkCudaErrors(call) checkStatus((call), #call, __FILE__, __LINE__)

// The first device, or exit with a message when there is none.
static inline int findCudaDevice() {
  int count = 0;
  checkCudaErrors(cudaGetDeviceCount(&count));
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, 0));
  std::printf("device 0: %s, %d multiprocessors (CUDART_VERSION %d)\n", prop.name,
              prop.multiProcessorCount, CUDART_VERSION);
  checkCudaErrors(cudaSetDevice(0));
  return 0;
}
#endif

#endif
