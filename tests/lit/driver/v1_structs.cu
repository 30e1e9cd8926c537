// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 5.2
// CUDA's _v1 descriptors carry 32-bit sizes; HIP's one descriptor has size_t ones, so
// the mapping is reported. Named like the plain type everywhere else.
#include <cuda.h>

// CHECK: void describe(HIP_ARRAY_DESCRIPTOR* d, HIP_ARRAY_DESCRIPTOR* plain) {
void describe(CUDA_ARRAY_DESCRIPTOR_v1* d, CUDA_ARRAY_DESCRIPTOR* plain) {
  // CHECK: *plain = *d;
  *plain = *d;
}
// DIAG: v1_structs.cu:7:15: warning: 'CUDA_ARRAY_DESCRIPTOR_v1': CUDA's _v1 struct has 32-bit sizes and offsets
// DIAG-NOT: 'CUDA_ARRAY_DESCRIPTOR':
