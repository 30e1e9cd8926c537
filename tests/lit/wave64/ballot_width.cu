// RUN: cass translate --warp native %s -o %t --strategy rules --verify none --hip-version 7.1
// 32-bit ballots in functions that count lanes by warpSize: widened, and their
// counts read all 64 bits.
__global__ void count(const int* in, int* out) {
  // CHECK: unsigned long long bits = __ballot_sync(0xffffffffffffffffull, in[threadIdx.x] > 0);
  unsigned bits = __ballot_sync(0xffffffff, in[threadIdx.x] > 0);
  // CHECK: const unsigned long long odd = __ballot_sync(0xffffffffffffffffull, in[threadIdx.x] & 1);
  const uint32_t odd = __ballot_sync(0xffffffff, in[threadIdx.x] & 1);
  if (threadIdx.x % warpSize == 0) {
    // CHECK: atomicAdd(&out[0], __popcll(bits));
    atomicAdd(&out[0], __popc(bits));
    // CHECK: atomicAdd(&out[1], __ffsll(odd) + (bits & odd ? 1 : 0));
    atomicAdd(&out[1], __ffs(odd) + (bits & odd ? 1 : 0));
    // CHECK: atomicAdd(&out[2], __popcll(__ballot_sync(0xffffffffffffffffull, in[threadIdx.x] < 0)));
    atomicAdd(&out[2], __popc(__ballot_sync(0xffffffff, in[threadIdx.x] < 0)));
  }
}
// DIAG: ballot_width.cu:6:19: note: a 64-lane ballot was stored in 32 bits; 'bits' is now 'unsigned long long' and its __popc/__ffs are __popcll/__ffsll [cass-ballot-width]
// DIAG: ballot_width.cu:8:24: note: a 64-lane ballot was stored in 32 bits; 'odd' is now 'unsigned long long'
// DIAG: ballot_width.cu:15:31: note: '__popc' read 32 bits of a 64-bit ballot; rewritten as '__popcll' [cass-ballot-width]

// ~bits would see the upper half too, and __clz counts from bit 63: kept, reported.
__global__ void notSafe(const int* in, int* out) {
  // CHECK: unsigned bits = __ballot_sync(0xffffffffffffffffull, in[threadIdx.x] > 0);
  unsigned bits = __ballot_sync(0xffffffff, in[threadIdx.x] > 0);
  // CHECK: unsigned lead = __ballot_sync(0xffffffffffffffffull, in[threadIdx.x] > 1);
  unsigned lead = __ballot_sync(0xffffffff, in[threadIdx.x] > 1);
  if (threadIdx.x % warpSize == 0) out[0] = __popc(~bits) + __clz(lead);
}
// DIAG: ballot_width.cu:25:19: warning: a 64-lane ballot is stored in 32 bits: lanes 32-63 are lost (use uint64_t) [cass-ballot-width]
// DIAG: ballot_width.cu:27:19: warning: a 64-lane ballot is stored in 32 bits

// No warpSize: widening would let both 32-lane halves count all 64 lanes. Reported.
__global__ void teams(const int* in, int* out) {
  // CHECK: unsigned bits = __ballot_sync(0xffffffffffffffffull, in[threadIdx.x] > 0);
  unsigned bits = __ballot_sync(0xffffffff, in[threadIdx.x] > 0);
  // CHECK: if ((threadIdx.x & 31) == 0) atomicAdd(out, __popc(bits));
  if ((threadIdx.x & 31) == 0) atomicAdd(out, __popc(bits));
}
// DIAG: ballot_width.cu:36:19: warning: a 64-lane ballot is stored in 32 bits
