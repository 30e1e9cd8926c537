// Memory instructions in inline PTX: global loads with every cache hint and as vectors,
// streaming and write-through stores, prefetches, fences, atom/red on global and shared
// memory, acquire/release pairs, and cp.async copies into shared memory (4, 8 and 16
// bytes, with zero fill) with their commit and wait groups. One block per tile; every
// result is checked on the host.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

constexpr int kThreads = 128;
enum { kNc, kCg, kCs, kLu, kCa, kV4, kV2, kVol, kAcq, kCopy4, kCopy8, kCopy16, kFill, kShared, kFields };

struct Counters {
  unsigned add, maxv, orv, xorv, inc, cas_winner, exch;
  unsigned long long add64;
  float fadd;
  unsigned flag, payload;
};

__global__ void memory(const unsigned* in, unsigned* out, unsigned* streamed, float* written, Counters* c,
                       unsigned n_total) {
  __shared__ __align__(16) unsigned tile[kThreads];
  __shared__ __align__(16) unsigned long long tile8[kThreads];
  __shared__ __align__(16) uint4 tile16[kThreads];
  __shared__ __align__(16) unsigned fill[kThreads * 2];
  __shared__ unsigned counter;
  const unsigned t = threadIdx.x;
  const unsigned g = blockIdx.x * kThreads + t;
  const unsigned* row = in + (size_t)blockIdx.x * kThreads * 4;
  unsigned* o = out + (size_t)g * kFields;
  if (t == 0) counter = 0;
  __syncthreads();
  unsigned r, a0, a1, a2, a3;
  float fv;
  asm volatile("prefetch.global.L2 [%0];" :: "l"(row + t));
  asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(r) : "l"(row + t)); o[kNc] = r;
  asm volatile("ld.global.cg.u32 %0, [%1+4];" : "=r"(r) : "l"(row + t)); o[kCg] = r;
  asm volatile("ld.global.cs.u32 %0, [%1];" : "=r"(r) : "l"(row + 2 * t)); o[kCs] = r;
  asm volatile("ld.global.lu.u32 %0, [%1];" : "=r"(r) : "l"(row + 3 * t)); o[kLu] = r;
  asm volatile("ld.global.ca.u8 %0, [%1];" : "=r"(r) : "l"((const unsigned char*)row + t)); o[kCa] = r;
  asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3) : "l"(row + 4 * (t % 32)));
  o[kV4] = a0 ^ (a1 << 1) ^ (a2 << 2) ^ (a3 << 3);
  asm volatile("ld.global.v2.u32 {%0, %1}, [%2];" : "=r"(a0), "=r"(a1) : "l"(row + 2 * (t % 64)));
  o[kV2] = a0 - a1;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(r) : "l"(row + (t ^ 5))); o[kVol] = r;
  asm volatile("st.global.cs.u32 [%0], %1;" :: "l"(streamed + g), "r"(g * 3u) : "memory");
  asm volatile("st.global.wt.f32 [%0], %1;" :: "l"(written + 2 * g), "f"(0.25f * g) : "memory");
  asm volatile("st.global.v2.f32 [%0+8], {%1, %1};" :: "l"(written + 2 * n_total + 2 * g), "f"(-1.0f * g) : "memory");
  // Atomics on global memory.
  asm volatile("red.global.add.u32 [%0], %1;" :: "l"(&c->add), "r"(g + 1) : "memory");
  asm volatile("atom.global.max.u32 %0, [%1], %2;" : "=r"(r) : "l"(&c->maxv), "r"(g * 7u % 1001u));
  asm volatile("atom.global.or.b32 %0, [%1], %2;" : "=r"(r) : "l"(&c->orv), "r"(1u << (g % 32)));
  asm volatile("red.global.xor.b32 [%0], %1;" :: "l"(&c->xorv), "r"(g * 2654435761u) : "memory");
  asm volatile("atom.global.inc.u32 %0, [%1], %2;" : "=r"(r) : "l"(&c->inc), "r"(99u));
  asm volatile("atom.global.cas.b32 %0, [%1], %2, %3;" : "=r"(r) : "l"(&c->cas_winner), "r"(0u), "r"(g + 1));
  asm volatile("atom.global.exch.b32 %0, [%1], %2;" : "=r"(r) : "l"(&c->exch), "r"(5u));
  asm volatile("red.global.add.u64 [%0], %1;" :: "l"(&c->add64), "l"(1ull << 33) : "memory");
  asm volatile("atom.global.add.f32 %0, [%1], %2;" : "=f"(fv) : "l"(&c->fadd), "f"(0.5f));
  // Release/acquire: block 0 publishes a payload that every later reader sees with the flag.
  if (g == 0) {
    asm volatile("st.global.u32 [%0], %1;" :: "l"(&c->payload), "r"(0xfeedu) : "memory");
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(&c->flag), "r"(1u) : "memory");
  }
  unsigned seen;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(&c->flag));
  unsigned payload;
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(payload) : "l"(&c->payload));
  o[kAcq] = (!seen || payload == 0xfeedu) && fv >= 0.0f;
  asm volatile("membar.gl;" ::: "memory");
  // cp.async into shared memory, read back after the wait and a barrier.
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"((unsigned)__cvta_generic_to_shared(&tile[t])), "l"(row + ((t * 5) % kThreads)));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" :: "r"((unsigned)__cvta_generic_to_shared(&tile8[t])), "l"(row + 2 * ((t * 3) % kThreads)));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"((unsigned)__cvta_generic_to_shared(&tile16[t])), "l"(row + 4 * (t % 32)));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" :: "r"((unsigned)__cvta_generic_to_shared(&fill[2 * t])), "l"(row + 2 * t), "r"(t % 9));
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
  o[kCopy4] = tile[(t + 1) % kThreads];
  o[kCopy8] = (unsigned)(tile8[(t + 2) % kThreads] ^ (tile8[(t + 2) % kThreads] >> 32));
  const uint4 v = tile16[(t + 3) % kThreads];
  o[kCopy16] = v.x + v.y * 3u + v.z * 5u + v.w * 7u;
  o[kFill] = fill[2 * ((t + 4) % kThreads)] ^ (fill[2 * ((t + 4) % kThreads) + 1] * 31u);
  // Shared atomics and shared loads/stores through 32-bit shared addresses.
  asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(r) : "r"((unsigned)__cvta_generic_to_shared(&counter)), "r"(t + 1));
  __syncthreads();
  asm volatile("st.shared.u32 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(&tile[t])), "r"(t * t) : "memory");
  __syncthreads();
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r) : "r"((unsigned)__cvta_generic_to_shared(&tile[(t + 7) % kThreads])));
  o[kShared] = r + counter;
}

int main() {
  const int blocks = 24, n = blocks * kThreads;
  std::vector<unsigned> in((size_t)blocks * kThreads * 4 + 8);
  uint32_t x = 0x1234567u;
  for (auto& v : in) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; v = x; }
  unsigned *din, *dout, *dstream;
  float* dwritten;
  Counters* dc;
  CHECK(cudaMalloc(&din, in.size() * sizeof(unsigned)));
  CHECK(cudaMalloc(&dout, (size_t)n * kFields * sizeof(unsigned)));
  CHECK(cudaMalloc(&dstream, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&dwritten, (4 * n + 4) * sizeof(float)));
  CHECK(cudaMalloc(&dc, sizeof(Counters)));
  CHECK(cudaMemset(dc, 0, sizeof(Counters)));
  CHECK(cudaMemcpy(din, in.data(), in.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  memory<<<blocks, kThreads>>>(din, dout, dstream, dwritten, dc, n);
  CHECK(cudaGetLastError());
  std::vector<unsigned> out((size_t)n * kFields), streamed(n);
  std::vector<float> written(4 * n + 4);
  Counters c;
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(streamed.data(), dstream, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(written.data(), dwritten, (4 * n + 4) * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&c, dc, sizeof c, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(din)); CHECK(cudaFree(dout)); CHECK(cudaFree(dstream)); CHECK(cudaFree(dwritten)); CHECK(cudaFree(dc));
  int bad = 0, first = -1;
  for (int g = 0; g < n; ++g) {
    const int b = g / kThreads, t = g % kThreads;
    const unsigned* row = &in[(size_t)b * kThreads * 4];
    const unsigned char* bytes = (const unsigned char*)row;
    unsigned e[kFields];
    e[kNc] = row[t];
    e[kCg] = row[t + 1];
    e[kCs] = row[2 * t];
    e[kLu] = row[3 * t];
    e[kCa] = bytes[t];
    const unsigned* v4 = row + 4 * (t % 32);
    e[kV4] = v4[0] ^ (v4[1] << 1) ^ (v4[2] << 2) ^ (v4[3] << 3);
    e[kV2] = row[2 * (t % 64)] - row[2 * (t % 64) + 1];
    e[kVol] = row[t ^ 5];
    e[kAcq] = 1;
    const int t1 = (t + 1) % kThreads, t2 = (t + 2) % kThreads, t3 = (t + 3) % kThreads, t4 = (t + 4) % kThreads;
    e[kCopy4] = row[(t1 * 5) % kThreads];
    const unsigned long long w8 = row[2 * ((t2 * 3) % kThreads)] | ((unsigned long long)row[2 * ((t2 * 3) % kThreads) + 1] << 32);
    e[kCopy8] = (unsigned)(w8 ^ (w8 >> 32));
    const unsigned* w16 = row + 4 * (t3 % 32);
    e[kCopy16] = w16[0] + w16[1] * 3u + w16[2] * 5u + w16[3] * 7u;
    unsigned char fb[8] = {0};
    for (int k = 0; k < 8; ++k) fb[k] = k < t4 % 9 ? ((const unsigned char*)(row + 2 * t4))[k] : 0;
    unsigned f0, f1;
    memcpy(&f0, fb, 4);
    memcpy(&f1, fb + 4, 4);
    e[kFill] = f0 ^ (f1 * 31u);
    e[kShared] = (unsigned)(((t + 7) % kThreads) * ((t + 7) % kThreads)) + kThreads * (kThreads + 1) / 2;
    for (int f = 0; f < kFields; ++f) {
      if (out[(size_t)g * kFields + f] != e[f]) {
        if (first < 0) {
          first = f;
          fprintf(stderr, "thread %d field %d: got %08x want %08x\n", g, f, out[(size_t)g * kFields + f], e[f]);
        }
        ++bad;
      }
    }
    if (streamed[g] != (unsigned)g * 3u || written[2 * g] != 0.25f * g) ++bad;
    if (written[2 * n + 2 * g + 2] != -1.0f * g || written[2 * n + 2 * g + 3] != -1.0f * g) ++bad;
  }
  unsigned maxv = 0, xorv = 0;
  for (unsigned g = 0; g < (unsigned)n; ++g) {
    maxv = g * 7u % 1001u > maxv ? g * 7u % 1001u : maxv;
    xorv ^= g * 2654435761u;
  }
  const unsigned long long sum = (unsigned long long)n * (n + 1) / 2;
  unsigned inc = 0;
  for (int k = 0; k < n; ++k) inc = inc >= 99u ? 0u : inc + 1u;
  const bool counters = c.add == (unsigned)sum && c.maxv == maxv && c.orv == 0xffffffffu && c.xorv == xorv &&
                        c.inc == inc && c.cas_winner >= 1 && c.cas_winner <= (unsigned)n && c.exch == 5u &&
                        c.add64 == ((unsigned long long)n << 33) && c.fadd == 0.5f * n && c.flag == 1u &&
                        c.payload == 0xfeedu;
  if (!counters) ++bad;
  if (bad) {
    printf("VERDICT: FAIL bad=%d first-field=%d counters=%d\n", bad, first, (int)counters);
    return 1;
  }
  printf("VERDICT: PASS threads=%d\n", n);
  return 0;
}
