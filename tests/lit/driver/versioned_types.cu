// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// The driver API's versioned and tagged spellings (_v1, _v2, _st, _enum) name the same
// HIP types as the plain ones.
// CHECK: #include <hip/hip_runtime.h>
#include <cuda.h>

// CHECK: hipError_t make_array(hipArray_t* arr, size_t w, size_t h) {
CUresult make_array(CUarray* arr, size_t w, size_t h) {
  // CHECK: HIP_ARRAY_DESCRIPTOR desc = {};
  CUDA_ARRAY_DESCRIPTOR_v2 desc = {};
  desc.Width = w;
  desc.Height = h;
  // CHECK: desc.Format = HIP_AD_FORMAT_FLOAT;
  desc.Format = CU_AD_FORMAT_FLOAT;
  desc.NumChannels = 1;
  // CHECK: return hipArrayCreate(arr, &desc);
  return cuArrayCreate_v2(arr, &desc);
}

// CHECK: void copy_2d(const hip_Memcpy2D* p, struct HIP_ARRAY3D_DESCRIPTOR* d3) {
void copy_2d(const CUDA_MEMCPY2D_v2* p, struct CUDA_ARRAY3D_DESCRIPTOR_st* d3) {
  // CHECK: hip_Memcpy2D copy = *p;
  CUDA_MEMCPY2D_st copy = *p;
  // CHECK: hipMemcpyParam2D(&copy);
  cuMemcpy2D_v2(&copy);
  // CHECK: hipArray_Format fmt = d3->Format;
  CUarray_format_enum fmt = d3->Format;
  // CHECK: HIP_MEMCPY3D copy3 = {};
  CUDA_MEMCPY3D_v2 copy3 = {};
  // CHECK: hipDrvMemcpy3D(&copy3);
  cuMemcpy3D_v2(&copy3);
  // CHECK: hipDeviceAttribute_t attr = hipDeviceAttributeWarpSize;
  CUdevice_attribute_enum attr = CU_DEVICE_ATTRIBUTE_WARP_SIZE;
  // CHECK: hipMemoryType kind = hipMemoryTypeDevice;
  CUmemorytype_enum kind = CU_MEMORYTYPE_DEVICE;
  // CHECK: hipStreamCaptureStatus status = hipStreamCaptureStatusNone;
  CUstreamCaptureStatus_enum status = CU_STREAM_CAPTURE_STATUS_NONE;
}

// CHECK: void ports(hipGraphEdgeData* edge) {
void ports(CUgraphEdgeData_st* edge) {
  // CHECK: edge->from_port = hipGraphKernelNodePortLaunchCompletion;
  edge->from_port = CU_GRAPH_KERNEL_NODE_PORT_LAUNCH_ORDER;
  // CHECK: edge->to_port = hipGraphKernelNodePortDefault;
  edge->to_port = CU_GRAPH_KERNEL_NODE_PORT_DEFAULT;
  // CHECK: edge->type = hipGraphDependencyTypeProgrammatic;
  edge->type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
}
