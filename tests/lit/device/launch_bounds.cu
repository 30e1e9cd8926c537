// RUN: cass translate %s -o %t --strategy rules --verify none
// __launch_bounds__(N) means the same on AMD: only a second argument (minimum blocks
// per multiprocessor in CUDA, minimum waves per execution unit in HIP) is reported, at
// the first use that has one, and a macro-spelled bound counts as one argument.
#define THREADS 256

// CHECK: __global__ void __launch_bounds__(THREADS) one(float* p) { p[0] = 1.0f; }
__global__ void __launch_bounds__(THREADS) one(float* p) { p[0] = 1.0f; }
// CHECK: __global__ void __launch_bounds__(THREADS, 2) two(float* p) { p[0] = 2.0f; }
__global__ void __launch_bounds__(THREADS, 2) two(float* p) { p[0] = 2.0f; }
// DIAG: launch_bounds.cu:10:17: warning: '__launch_bounds__': the second argument is read as minimum waves per execution unit
// DIAG-NOT: launch_bounds.cu:8:
