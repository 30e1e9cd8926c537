// RUN: not cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// hipSPARSE declares opaque handles only as typedefs: cuSPARSE's struct tags have no
// counterpart and are errors, while the SpGEMM/SpSV/SpSM descriptor tags exist in HIP.
#include <cusparse.h>

// CHECK: struct hipsparseSpGEMMDescr* gemm_descr;
struct cusparseSpGEMMDescr* gemm_descr;
// CHECK: struct hipsparseSpSVDescr* sv_descr;
struct cusparseSpSVDescr* sv_descr;
// CHECK: struct cusparseMatDescr* mat_descr;
struct cusparseMatDescr* mat_descr;
// CHECK: struct cusparseContext* context;
struct cusparseContext* context;
// CHECK: hipsparseMatDescr_t descr;
cusparseMatDescr_t descr;
// DIAG: 'cusparseMatDescr' has no HIP equivalent: hipSPARSE declares only the opaque handle cusparseMatDescr_t
// DIAG: 'cusparseContext' has no HIP equivalent
// DIAG-NOT: 'cusparseSpGEMMDescr'
