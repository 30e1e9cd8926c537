// RUN: cass translate --warp native %s -o %t --strategy rules --verify none --hip-version 7.1
// Lane and warp ids computed for 32 lanes, in a function that counts lanes by
// warpSize: rewritten to warpSize when the operand is a plain lane or thread index.
__global__ void ids(int* out) {
  int v = warpSize;
  // CHECK: int lane = threadIdx.x % warpSize;
  int lane = threadIdx.x & 31;
  // CHECK: int warp = threadIdx.x / warpSize;
  int warp = threadIdx.x / 32;
  // CHECK: int tid = threadIdx.x, w2 = tid / warpSize;
  int tid = threadIdx.x, w2 = tid >> 5;
  // CHECK: int l2 = (threadIdx.x + 1) % warpSize;
  int l2 = (threadIdx.x + 1) % 32;
  // CHECK: if ((threadIdx.x % warpSize) == 0) out[warp] = v;
  if ((threadIdx.x & 31) == 0) out[warp] = v;
  // '+' binds tighter than '&': '% warpSize' would group differently, so it stays.
  // CHECK: int odd = lane + threadIdx.x & 31;
  int odd = lane + threadIdx.x & 31;
  // '==' binds tighter than '&': same.
  // CHECK: bool first = threadIdx.x & 31 == 0;
  bool first = threadIdx.x & 31 == 0;
  out[lane + w2 + l2 + odd + first] = 1;
}
// DIAG: lane_arith.cu:7:28: note: '& 31' assumes 32-lane warps; rewritten as '% warpSize' (the same in 32-lane warps, right in 64-lane wavefronts) [cass-warp-lane-arith]
// DIAG: lane_arith.cu:9:28: note: '/ 32' assumes 32-lane warps; rewritten as '/ warpSize'
// DIAG: lane_arith.cu:11:38: note: '>> 5' assumes 32-lane warps; rewritten as '/ warpSize'
// DIAG: lane_arith.cu:18:34: warning: '& 31' assumes 32-lane warps; AMD wavefronts have 64 lanes (use warpSize) [cass-warp-lane-arith]
// DIAG: lane_arith.cu:21:30: warning: '& 31' assumes 32-lane warps
// DIAG: lane_arith.cu:13:32: note: '% 32' assumes 32-lane warps; rewritten as '% warpSize'
// DIAG: lane_arith.cu:15:22: note: '& 31'

// No warpSize here: the 32-lane groups may be deliberate, and still compute
// CUDA's answer on a 64-lane wave when the shuffles keep to them. Reported only.
__global__ void teams(int* out) {
  // CHECK: int lane = threadIdx.x & 31;
  int lane = threadIdx.x & 31;
  out[lane] = 0;
}
// DIAG: lane_arith.cu:36:28: warning: '& 31' assumes 32-lane warps
