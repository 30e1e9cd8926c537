// Warp operations written in inline PTX (shfl.sync in all four modes with widths 32, 16
// and 8 and the in-range predicate, vote.sync any/all/uni/ballot, match.sync any/all,
// redux.sync add/min/max/and/or/xor, activemask under divergence), each checked on the
// host against its definition over 32-lane warps of the linear thread index.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                             \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      printf("VERDICT: FAIL cuda-error\n");                                     \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

enum {
  kIdx, kUp, kDown, kBfly, kIdx16, kUp8, kDownP, kBflyW, kBallot, kAny, kAll, kUni,
  kMatchAny, kMatchAll, kMatchAllP, kAdd, kMin, kMax, kAnd, kOr, kXor, kActive, kFields
};

__global__ void warps(const unsigned* in, unsigned* out) {
  const unsigned tid = threadIdx.y * blockDim.x + threadIdx.x;
  const unsigned g = blockIdx.x * blockDim.x * blockDim.y + tid;
  const unsigned v = in[g];
  const unsigned src = v % 37u;  // some beyond the warp: PTX masks the index by the width
  unsigned* o = out + g * kFields;
  unsigned r, p;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(src)); o[kIdx] = r;
  asm volatile("shfl.sync.up.b32 %0, %1, 3, 0, 0xffffffff;" : "=r"(r) : "r"(v)); o[kUp] = r;
  asm volatile("shfl.sync.down.b32 %0, %1, 5, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v)); o[kDown] = r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, 17, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v)); o[kBfly] = r;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x101f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(src)); o[kIdx16] = r;
  asm volatile("shfl.sync.up.b32 %0, %1, 2, 0x1800, 0xffffffff;" : "=r"(r) : "r"(v)); o[kUp8] = r;
  asm volatile("{ .reg .pred q; shfl.sync.down.b32 %0|q, %2, 6, 0x181f, 0xffffffff; selp.u32 %1, 1, 0, q; }"
               : "=r"(r), "=r"(p) : "r"(v));
  o[kDownP] = r * 2 + p;
  const unsigned w = 4u << (g % 4);  // widths 4, 8, 16, 32 through the c operand
  asm volatile("shfl.sync.bfly.b32 %0, %1, 1, %2, 0xffffffff;" : "=r"(r) : "r"(v), "r"(((32u - w) << 8) | 0x1fu));
  o[kBflyW] = r;
  asm volatile("{ .reg .pred q; setp.ne.u32 q, %1, 0; vote.sync.ballot.b32 %0, q, 0xffffffff; }" : "=r"(r) : "r"(v & 1));
  o[kBallot] = r;
  asm volatile("{ .reg .pred q, t; setp.eq.u32 q, %1, 7; vote.sync.any.pred t, q, 0xffffffff; selp.u32 %0, 1, 0, t; }" : "=r"(r) : "r"(v % 64));
  o[kAny] = r;
  asm volatile("{ .reg .pred q, t; setp.lt.u32 q, %1, 60; vote.sync.all.pred t, q, 0xffffffff; selp.u32 %0, 1, 0, t; }" : "=r"(r) : "r"(v % 64));
  o[kAll] = r;
  asm volatile("{ .reg .pred q, t; setp.ne.u32 q, %1, 0; vote.sync.uni.pred t, !q, 0xffffffff; selp.u32 %0, 1, 0, t; }" : "=r"(r) : "r"((unsigned)(v % 2048 == 5)));
  o[kUni] = r;
  const unsigned key = v % 5u;
  asm volatile("match.any.sync.b32 %0, %1, 0xffffffff;" : "=r"(r) : "r"(key)); o[kMatchAny] = r;
  const unsigned same = (g / 32) % 2 ? 9u : key;  // odd warps agree on one value
  asm volatile("{ .reg .pred q; match.all.sync.b32 %0|q, %2, 0xffffffff; selp.u32 %1, 1, 0, q; }" : "=r"(r), "=r"(p) : "r"(same));
  o[kMatchAll] = r;
  o[kMatchAllP] = p;
  asm volatile("redux.sync.add.u32 %0, %1, 0xffffffff;" : "=r"(r) : "r"(v)); o[kAdd] = r;
  int s;
  asm volatile("redux.sync.min.s32 %0, %1, 0xffffffff;" : "=r"(s) : "r"((int)v)); o[kMin] = (unsigned)s;
  asm volatile("redux.sync.max.u32 %0, %1, 0xffffffff;" : "=r"(r) : "r"(v)); o[kMax] = r;
  asm volatile("redux.sync.and.b32 %0, %1, 0xffffffff;" : "=r"(r) : "r"(v | 0x80000001u)); o[kAnd] = r;
  asm volatile("redux.sync.or.b32 %0, %1, 0xffffffff;" : "=r"(r) : "r"(v & 0x00f0f0f0u)); o[kOr] = r;
  asm volatile("redux.sync.xor.b32 %0, %1, 0xffffffff;" : "=r"(r) : "r"(v)); o[kXor] = r;
  r = 0;
  if (tid % 32 < 20) asm volatile("activemask.b32 %0;" : "=r"(r));
  __syncwarp();
  o[kActive] = r;
}

static unsigned at(const std::vector<unsigned>& in, int warp, int lane) { return in[warp * 32 + lane]; }

int main() {
  const dim3 block(8, 24);  // 192 threads: 6 warps of 32
  const int blocks = 5, n = blocks * 192;
  std::vector<unsigned> in(n);
  uint32_t x = 0x2545f491u;
  for (int i = 0; i < n; ++i) {
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    in[i] = x;
  }
  unsigned *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&dout, n * kFields * sizeof(unsigned)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  warps<<<blocks, block>>>(din, dout);
  CHECK(cudaGetLastError());
  std::vector<unsigned> out(n * kFields);
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  int bad = 0, first = -1;
  for (int g = 0; g < n; ++g) {
    const int wp = g / 32, l = g % 32;
    const unsigned v = in[g], src = v % 37u;
    unsigned e[kFields];
    e[kIdx] = at(in, wp, src & 31);
    e[kUp] = l >= 3 ? at(in, wp, l - 3) : v;
    e[kDown] = l + 5 < 32 ? at(in, wp, l + 5) : v;
    e[kBfly] = at(in, wp, l ^ 17);
    e[kIdx16] = at(in, wp, (l & 16) | (src & 15));
    e[kUp8] = l % 8 >= 2 ? at(in, wp, l - 2) : v;
    e[kDownP] = l % 8 + 6 < 8 ? at(in, wp, l + 6) * 2 + 1 : v * 2;
    const int w = 4 << (g % 4);
    e[kBflyW] = ((l % w) ^ 1) < w ? at(in, wp, l ^ 1) : v;
    unsigned ballot = 0, any = 0, all = 1, uni_t = 0, mmax = 0, mand = ~0u, mor = 0, mxor = 0, add = 0;
    int mmin = 0x7fffffff;
    unsigned match = 0, allsame = 1;
    const unsigned same0 = wp % 2 ? 9u : at(in, wp, 0) % 5u;
    for (int k = 0; k < 32; ++k) {
      const unsigned u = at(in, wp, k);
      ballot |= (u & 1) << k;
      any |= u % 64 == 7;
      all &= u % 64 < 60;
      uni_t += u % 2048 == 5;
      if (u % 5 == v % 5) match |= 1u << k;
      if ((wp % 2 ? 9u : u % 5u) != same0) allsame = 0;
      add += u;
      mmin = (int)u < mmin ? (int)u : mmin;
      mmax = u > mmax ? u : mmax;
      mand &= u | 0x80000001u;
      mor |= u & 0x00f0f0f0u;
      mxor ^= u;
    }
    e[kBallot] = ballot;
    e[kAny] = any;
    e[kAll] = all;
    e[kUni] = uni_t == 0 || uni_t == 32;
    e[kMatchAny] = match;
    e[kMatchAll] = allsame ? 0xffffffffu : 0u;
    e[kMatchAllP] = allsame;
    e[kAdd] = add;
    e[kMin] = (unsigned)mmin;
    e[kMax] = mmax;
    e[kAnd] = mand;
    e[kOr] = mor;
    e[kXor] = mxor;
    e[kActive] = l < 20 ? 0xfffffu : 0u;
    for (int f = 0; f < kFields; ++f) {
      if (out[g * kFields + f] != e[f]) {
        if (first < 0) first = f;
        ++bad;
      }
    }
  }
  if (bad) {
    printf("VERDICT: FAIL bad=%d first-field=%d\n", bad, first);
    return 1;
  }
  printf("VERDICT: PASS threads=%d\n", n);
  return 0;
}
