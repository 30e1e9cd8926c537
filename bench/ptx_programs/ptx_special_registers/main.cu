// Special registers read through inline PTX, checked against what CUDA's 32-lane warps
// imply: %laneid and the %lanemask_* family against the linear thread index, %warpid
// and %smid constant across a warp, %clock/%clock64/%globaltimer moving forward, and
// %tid/%ntid/%ctaid/%nctaid against the built-in variables. 2D blocks of 16x12 threads.
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

enum { kLane, kEq, kLt, kLe, kGt, kGe, kWarpSame, kWarpBound, kSmSame, kClock, kClock64, kTimer, kIndex, kFields };

__global__ void probe(unsigned* out) {
  const unsigned tid = threadIdx.y * blockDim.x + threadIdx.x;
  const unsigned g = blockIdx.x * blockDim.x * blockDim.y + tid;
  unsigned lane, eq, lt, le, gt, ge, warp, nwarp, sm, c0, c1;
  unsigned long long t0, t1, g0, g1;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
  asm("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
  asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
  asm volatile("mov.u32 %0, %%warpid;\n\tmov.u32 %1, %%nwarpid;" : "=r"(warp), "=r"(nwarp));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  asm volatile("mov.u32 %0, %%clock;" : "=r"(c0));
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  float spin = (float)tid;
  for (int i = 0; i < 200; ++i) spin = spin * 1.0001f + 0.5f;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(c1) : "f"(spin));
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1) : "f"(spin));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1) : "f"(spin));
  unsigned tx, ny, cx, nx;
  asm("mov.u32 %0, %%tid.x;\n\tmov.u32 %1, %%ntid.y;\n\tmov.u32 %2, %%ctaid.x;\n\tmov.u32 %3, %%nctaid.x;"
      : "=r"(tx), "=r"(ny), "=r"(cx), "=r"(nx));
  const unsigned warp0 = __shfl_sync(0xffffffffu, warp, 0);
  const unsigned sm0 = __shfl_sync(0xffffffffu, sm, 0);
  unsigned* o = out + g * kFields;
  o[kLane] = lane;
  o[kEq] = eq;
  o[kLt] = lt;
  o[kLe] = le;
  o[kGt] = gt;
  o[kGe] = ge;
  o[kWarpSame] = warp == warp0;
  o[kWarpBound] = warp < nwarp;
  o[kSmSame] = sm == sm0;
  o[kClock] = c1 - c0 < 0x80000000u;
  o[kClock64] = t1 >= t0;
  o[kTimer] = g1 >= g0;
  o[kIndex] = tx == threadIdx.x && ny == blockDim.y && cx == blockIdx.x && nx == gridDim.x;
}

int main() {
  const dim3 block(16, 12);  // 192 threads: 6 warps of 32
  const int blocks = 7, n = blocks * 192;
  unsigned* d;
  CHECK(cudaMalloc(&d, n * kFields * sizeof(unsigned)));
  probe<<<blocks, block>>>(d);
  CHECK(cudaGetLastError());
  std::vector<unsigned> h(n * kFields);
  CHECK(cudaMemcpy(h.data(), d, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d));
  int bad = 0;
  const char* what = "";
  for (int g = 0; g < n; ++g) {
    const unsigned* o = &h[g * kFields];
    const unsigned lane = (g % 192) % 32;
    const unsigned eq = 1u << lane, lt = eq - 1u;
    const unsigned expect[kFields] = {lane, eq, lt, lt | eq, ~(lt | eq), ~lt, 1, 1, 1, 1, 1, 1, 1};
    for (int f = 0; f < kFields; ++f) {
      if (o[f] != expect[f]) {
        if (!bad) {
          static const char* names[kFields] = {"laneid", "lanemask_eq", "lanemask_lt", "lanemask_le",
                                               "lanemask_gt", "lanemask_ge", "warpid-per-warp",
                                               "warpid<nwarpid", "smid-per-warp", "clock", "clock64",
                                               "globaltimer", "tid/ntid/ctaid/nctaid"};
          what = names[f];
        }
        ++bad;
      }
    }
  }
  if (bad) {
    printf("VERDICT: FAIL bad=%d first=%s\n", bad, what);
    return 1;
  }
  printf("VERDICT: PASS threads=%d\n", n);
  return 0;
}
