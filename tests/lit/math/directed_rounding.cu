// RUN: not cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// Round-toward-zero arithmetic has no HIP counterpart unless OCML's rounded operations
// are compiled in: the calls stay and are errors; round-to-nearest ones map.
__global__ void rounding(float* x, double* y) {
  // CHECK: x[0] = __fadd_rn(x[1], x[2]);
  x[0] = __fadd_rn(x[1], x[2]);
  // CHECK-NEXT: x[1] = __fadd_rz(x[1], x[2]);
  x[1] = __fadd_rz(x[1], x[2]);
  // CHECK-NEXT: y[0] = __dmul_rz(y[1], y[2]);
  y[0] = __dmul_rz(y[1], y[2]);
}
// DIAG: directed_rounding.cu:8:10: error: '__fadd_rz' has no HIP equivalent
// DIAG: directed_rounding.cu:10:10: error: '__dmul_rz' has no HIP equivalent
// DIAG-NOT: '__fadd_rn'
