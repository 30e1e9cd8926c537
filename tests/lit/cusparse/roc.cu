// RUN: cass translate %s -o %t --strategy rules --verify syntax --hip-version 5.2 --roc
// REQUIRES: hipcc
// --roc maps cuSPARSE's handles, descriptors and enums to rocSPARSE's; hipcc checks
// the result against the installed rocSPARSE headers.
// CHECK: #include <rocsparse/rocsparse.h>
#include <cusparse.h>

int setup() {
  // CHECK: rocsparse_handle handle;
  cusparseHandle_t handle;
  // CHECK: if (rocsparse_create_handle(&handle) != rocsparse_status_success) return 1;
  if (cusparseCreate(&handle) != CUSPARSE_STATUS_SUCCESS) return 1;
  // CHECK: rocsparse_mat_descr descr;
  cusparseMatDescr_t descr;
  // CHECK: rocsparse_create_mat_descr(&descr);
  cusparseCreateMatDescr(&descr);
  // CHECK: rocsparse_set_mat_index_base(descr, rocsparse_index_base_zero);
  cusparseSetMatIndexBase(descr, CUSPARSE_INDEX_BASE_ZERO);
  // CHECK: rocsparse_set_mat_type(descr, rocsparse_matrix_type_general);
  cusparseSetMatType(descr, CUSPARSE_MATRIX_TYPE_GENERAL);
  // CHECK: rocsparse_operation op = rocsparse_operation_none;
  cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  (void)op;
  rocsparse_destroy_mat_descr(descr);
  // CHECK: return rocsparse_destroy_handle(handle) == rocsparse_status_success ? 0 : 1;
  return cusparseDestroy(handle) == CUSPARSE_STATUS_SUCCESS ? 0 : 1;
}
