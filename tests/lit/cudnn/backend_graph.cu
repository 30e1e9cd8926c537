// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// The cuDNN backend (graph) API maps to MIOpen's backend API (ROCm 6.2 on).
// CHECK: #include <miopen/miopen.h>
#include <cudnn.h>

// CHECK: hipError_t make_tensor(miopenBackendDescriptor_t* t, int64_t uid, int64_t* dims, int64_t* strides) {
cudaError_t make_tensor(cudnnBackendDescriptor_t* t, int64_t uid, int64_t* dims, int64_t* strides) {
  // CHECK: miopenBackendCreateDescriptor(MIOPEN_BACKEND_TENSOR_DESCRIPTOR, t);
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, t);
  // CHECK: miopenDataType_t type = miopenFloat;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  // CHECK: miopenBackendSetAttribute(*t, MIOPEN_ATTR_TENSOR_DATA_TYPE, MIOPEN_TYPE_DATA_TYPE, 1, &type);
  cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
  // CHECK: miopenBackendSetAttribute(*t, MIOPEN_ATTR_TENSOR_DIMENSIONS, MIOPEN_TYPE_INT64, 4, dims);
  cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims);
  // CHECK: miopenBackendSetAttribute(*t, MIOPEN_ATTR_TENSOR_STRIDES, MIOPEN_TYPE_INT64, 4, strides);
  cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides);
  // CHECK: miopenBackendSetAttribute(*t, MIOPEN_ATTR_TENSOR_UNIQUE_ID, MIOPEN_TYPE_INT64, 1, &uid);
  cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
  int64_t alignment = 16;
  // CHECK: miopenBackendSetAttribute(*t, MIOPEN_ATTR_TENSOR_BYTE_ALIGNMENT, MIOPEN_TYPE_INT64, 1, &alignment);
  cudnnBackendSetAttribute(*t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
  // CHECK: return miopenBackendFinalize(*t) == miopenStatusSuccess ? hipSuccess : hipErrorUnknown;
  return cudnnBackendFinalize(*t) == CUDNN_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

// CHECK: void run(miopenHandle_t handle, miopenBackendDescriptor_t plan, miopenBackendDescriptor_t pack) {
void run(cudnnHandle_t handle, cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t pack) {
  // CHECK: miopenBackendDescriptor_t heur;
  cudnnBackendDescriptor_t heur;
  // CHECK: miopenBackendCreateDescriptor(MIOPEN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur);
  cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur);
  // CHECK: miopenBackendHeurMode_t mode = MIOPEN_HEUR_MODE_INSTANT;
  cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_INSTANT;
  // CHECK: miopenBackendSetAttribute(heur, MIOPEN_ATTR_ENGINEHEUR_MODE, MIOPEN_TYPE_HEUR_MODE, 1, &mode);
  cudnnBackendSetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
  int64_t workspace = 0, count = 0;
  // CHECK: miopenBackendGetAttribute(plan, MIOPEN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, MIOPEN_TYPE_INT64, 1, &count, &workspace);
  cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &count, &workspace);
  // CHECK: miopenBackendExecute(handle, plan, pack);
  cudnnBackendExecute(handle, plan, pack);
  // CHECK: miopenBackendDestroyDescriptor(heur);
  cudnnBackendDestroyDescriptor(heur);
}

// CHECK: struct miopenHandle* raw_handle(miopenHandle_t h) { return h; }
struct cudnnContext* raw_handle(cudnnHandle_t h) { return h; }
