// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// Thrust is rocThrust: same headers, same thrust:: namespace; the CUDA execution
// policies stay spelled thrust::cuda.
// CHECK: #include <thrust/device_vector.h>
#include <thrust/device_vector.h>
// CHECK: #include <thrust/sort.h>
#include <thrust/sort.h>
// CHECK: #include <thrust/reduce.h>
#include <thrust/reduce.h>

int sum_sorted(const int* data, int n) {
  // CHECK: thrust::device_vector<int> v(data, data + n);
  thrust::device_vector<int> v(data, data + n);
  // CHECK: thrust::sort(v.begin(), v.end());
  thrust::sort(v.begin(), v.end());
  // CHECK: return thrust::reduce(v.begin(), v.end(), 0);
  return thrust::reduce(v.begin(), v.end(), 0);
}
