// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// A cuBLASLt matmul with a bias epilogue, as hipBLASLt (HIP 6.0 on) spells it.
// CHECK: #include <hipblaslt/hipblaslt.h>
#include <cublasLt.h>

void matmul(cublasLtHandle_t lt, int m, int n, int k, const float* a, const float* b,
            float* c, const float* bias, void* ws, size_t ws_size, cudaStream_t s) {
  // CHECK: hipblasLtMatmulDesc_t op;
  cublasLtMatmulDesc_t op;
  // CHECK: hipblasLtMatmulDescCreate(&op, HIPBLAS_COMPUTE_32F, HIP_R_32F);
  cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  // CHECK: hipblasOperation_t t = HIPBLAS_OP_T;
  cublasOperation_t t = CUBLAS_OP_T;
  // CHECK: hipblasLtMatmulDescSetAttribute(op, HIPBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t));
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t));
  // CHECK: hipblasLtEpilogue_t epi = HIPBLASLT_EPILOGUE_RELU_BIAS;
  cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_RELU_BIAS;
  // CHECK: hipblasLtMatmulDescSetAttribute(op, HIPBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi));
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi));
  // CHECK: hipblasLtMatmulDescSetAttribute(op, HIPBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias));
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias));
  // CHECK: hipblasLtMatrixLayout_t la, lb, lc;
  cublasLtMatrixLayout_t la, lb, lc;
  // CHECK: hipblasLtMatrixLayoutCreate(&la, HIP_R_32F, k, m, k);
  cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, k, m, k);
  // CHECK: hipblasLtMatrixLayoutCreate(&lb, HIP_R_32F, k, n, k);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, k);
  // CHECK: hipblasLtMatrixLayoutCreate(&lc, HIP_R_32F, m, n, m);
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, m);
  // CHECK: hipblasLtMatmulPreference_t pref;
  cublasLtMatmulPreference_t pref;
  // CHECK: hipblasLtMatmulPreferenceCreate(&pref);
  cublasLtMatmulPreferenceCreate(&pref);
  // CHECK: hipblasLtMatmulPreferenceSetAttribute(pref, HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_size, sizeof(ws_size));
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_size, sizeof(ws_size));
  // CHECK: hipblasLtMatmulHeuristicResult_t heur;
  cublasLtMatmulHeuristicResult_t heur;
  int found = 0;
  // CHECK: hipblasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &heur, &found);
  cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &heur, &found);
  const float one = 1.0f, zero = 0.0f;
  // CHECK: hipblasLtMatmul(lt, op, &one, a, la, b, lb, &zero, c, lc, c, lc, &heur.algo, ws, ws_size, s);
  cublasLtMatmul(lt, op, &one, a, la, b, lb, &zero, c, lc, c, lc, &heur.algo, ws, ws_size, s);
  // CHECK: hipblasLtMatmulPreferenceDestroy(pref);
  cublasLtMatmulPreferenceDestroy(pref);
  // CHECK: hipblasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(la);
  // CHECK: hipblasLtMatmulDescDestroy(op);
  cublasLtMatmulDescDestroy(op);
}
