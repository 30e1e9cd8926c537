// Bit and integer instructions in inline PTX, each checked on the host against a plain
// C++ statement of its PTX ISA definition: bfe/bfi (positions and lengths past the
// word), prmt in its default and byte-mode forms, lop3 with several truth tables,
// brev/popc/clz/bfind/fns, mul.hi/mul.wide/mad.wide/mad.lo/mad.hi, a 128-bit add and
// subtract through add.cc/addc/sub.cc/subc, shf funnel shifts, and shifts past 32.
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
  kBfeU, kBfeS, kBfe64, kBfi, kPrmt, kPrmtF4e, kPrmtB4e, kPrmtEcl, kPrmtEcr, kPrmtRc8, kPrmtRc16,
  kLop96, kLopE8, kLop1E, kLop01, kBrev, kBrev64, kPopc, kPopc64, kClz, kClz64, kBfind, kFns,
  kMulHi, kMulHiS, kMulHi64, kWideU, kWideS, kMadWide, kMadLo, kMadHi, kAdd128a, kAdd128b,
  kAdd128c, kAdd128d, kSub128a, kSub128b, kSub128c, kSub128d, kShfL, kShfR, kShfRc, kShl, kShr,
  kShrS, kMinMax, kAbsNeg, kFields
};

struct In { unsigned a, b, c, d; unsigned long long x, y; };

__global__ void bits(const In* in, unsigned* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const In t = in[i];
  unsigned* o = out + (size_t)i * kFields;
  unsigned r;
  int s;
  unsigned long long q;
  const unsigned pos = t.c % 40u, len = t.d % 40u;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(t.a), "r"(pos), "r"(len)); o[kBfeU] = r;
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(s) : "r"(t.a), "r"(pos), "r"(len)); o[kBfeS] = (unsigned)s;
  asm("bfe.u64 %0, %1, %2, %3;" : "=l"(q) : "l"(t.x), "r"(t.c % 70u), "r"(t.d % 70u)); o[kBfe64] = (unsigned)(q ^ (q >> 32));
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(t.a), "r"(t.b), "r"(pos), "r"(len)); o[kBfi] = r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(t.a), "r"(t.b), "r"(t.c)); o[kPrmt] = r;
  asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r) : "r"(t.a), "r"(t.b), "r"(t.c)); o[kPrmtF4e] = r;
  asm("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(r) : "r"(t.a), "r"(t.b), "r"(t.c)); o[kPrmtB4e] = r;
  asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(r) : "r"(t.a), "r"(t.b), "r"(t.c)); o[kPrmtEcl] = r;
  asm("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(r) : "r"(t.a), "r"(t.b), "r"(t.c)); o[kPrmtEcr] = r;
  asm("prmt.b32.rc8 %0, %1, %2, %3;" : "=r"(r) : "r"(t.a), "r"(t.b), "r"(t.c)); o[kPrmtRc8] = r;
  asm("prmt.b32.rc16 %0, %1, %2, %3;" : "=r"(r) : "r"(t.a), "r"(t.b), "r"(t.c)); o[kPrmtRc16] = r;
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r) : "r"(t.a), "r"(t.b), "r"(t.c)); o[kLop96] = r;
  asm("lop3.b32 %0, %1, %2, %3, 0xe8;" : "=r"(r) : "r"(t.a), "r"(t.b), "r"(t.c)); o[kLopE8] = r;
  asm("lop3.b32 %0, %1, %2, %3, 0x1e;" : "=r"(r) : "r"(t.a), "r"(t.b), "r"(t.c)); o[kLop1E] = r;
  asm("lop3.b32 %0, %1, %2, %3, 0x01;" : "=r"(r) : "r"(t.a), "r"(t.b), "r"(t.c)); o[kLop01] = r;
  asm("brev.b32 %0, %1;" : "=r"(r) : "r"(t.a)); o[kBrev] = r;
  asm("brev.b64 %0, %1;" : "=l"(q) : "l"(t.x)); o[kBrev64] = (unsigned)(q ^ (q >> 32));
  asm("popc.b32 %0, %1;" : "=r"(r) : "r"(t.a)); o[kPopc] = r;
  asm("popc.b64 %0, %1;" : "=r"(r) : "l"(t.x)); o[kPopc64] = r;
  asm("clz.b32 %0, %1;" : "=r"(r) : "r"(t.a >> (t.c % 32u))); o[kClz] = r;
  asm("clz.b64 %0, %1;" : "=r"(r) : "l"(t.x >> (t.d % 65u % 64u))); o[kClz64] = r;
  asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(t.b >> (t.d % 32u))); o[kBfind] = r;
  asm("fns.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(t.a & t.b), "r"(t.c % 32u), "r"((int)(t.d % 13u) - 6)); o[kFns] = r;
  asm("mul.hi.u32 %0, %1, %2;" : "=r"(r) : "r"(t.a), "r"(t.b)); o[kMulHi] = r;
  asm("mul.hi.s32 %0, %1, %2;" : "=r"(s) : "r"(t.a), "r"(t.b)); o[kMulHiS] = (unsigned)s;
  asm("mul.hi.u64 %0, %1, %2;" : "=l"(q) : "l"(t.x), "l"(t.y)); o[kMulHi64] = (unsigned)(q ^ (q >> 32));
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(q) : "r"(t.a), "r"(t.b)); o[kWideU] = (unsigned)(q ^ (q >> 32));
  asm("mul.wide.s32 %0, %1, %2;" : "=l"(q) : "r"(t.a), "r"(t.b)); o[kWideS] = (unsigned)(q ^ (q >> 32));
  asm("mad.wide.u32 %0, %1, %2, %3;" : "=l"(q) : "r"(t.a), "r"(t.b), "l"(t.x)); o[kMadWide] = (unsigned)(q ^ (q >> 32));
  asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(t.a), "r"(t.b), "r"(t.c)); o[kMadLo] = r;
  asm("mad.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(t.a), "r"(t.b), "r"(t.c)); o[kMadHi] = r;
  unsigned w0, w1, w2, w3;
  asm("add.cc.u32 %0, %4, %8;\n\taddc.cc.u32 %1, %5, %9;\n\taddc.cc.u32 %2, %6, %10;\n\taddc.u32 %3, %7, %11;"
      : "=r"(w0), "=r"(w1), "=r"(w2), "=r"(w3)
      : "r"(t.a), "r"(t.b), "r"(t.c), "r"(t.d), "r"(t.d), "r"(t.c | 0x80000000u), "r"(t.b), "r"(t.a));
  o[kAdd128a] = w0; o[kAdd128b] = w1; o[kAdd128c] = w2; o[kAdd128d] = w3;
  asm("sub.cc.u32 %0, %4, %8;\n\tsubc.cc.u32 %1, %5, %9;\n\tsubc.cc.u32 %2, %6, %10;\n\tsubc.u32 %3, %7, %11;"
      : "=r"(w0), "=r"(w1), "=r"(w2), "=r"(w3)
      : "r"(t.a), "r"(t.b), "r"(t.c), "r"(t.d), "r"(t.d), "r"(t.c | 0x80000000u), "r"(t.b), "r"(t.a));
  o[kSub128a] = w0; o[kSub128b] = w1; o[kSub128c] = w2; o[kSub128d] = w3;
  asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(t.a), "r"(t.b), "r"(t.c)); o[kShfL] = r;
  asm("shf.r.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(t.a), "r"(t.b), "r"(t.c)); o[kShfR] = r;
  asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(t.a), "r"(t.b), "r"(t.c % 40u)); o[kShfRc] = r;
  asm("shl.b32 %0, %1, %2;" : "=r"(r) : "r"(t.a), "r"(t.c % 40u)); o[kShl] = r;
  asm("shr.u32 %0, %1, %2;" : "=r"(r) : "r"(t.a), "r"(t.c % 40u)); o[kShr] = r;
  asm("shr.s32 %0, %1, %2;" : "=r"(s) : "r"(t.a), "r"(t.c % 40u)); o[kShrS] = (unsigned)s;
  asm("{ .reg .u32 m, n; min.u32 m, %1, %2; max.s32 n, %1, %2; xor.b32 %0, m, n; }" : "=r"(r) : "r"(t.a), "r"(t.b));
  o[kMinMax] = r;
  asm("{ .reg .s32 m; abs.s32 m, %1; neg.s32 %0, m; not.b32 m, m; add.s32 %0, %0, m; }" : "=r"(s) : "r"(t.a));
  o[kAbsNeg] = (unsigned)s;
}

// --- the host's reading of the PTX ISA ---------------------------------------------
static unsigned long long bfe(unsigned long long a, unsigned pos, unsigned len, int bits, bool sign) {
  pos &= 255; len &= 255;
  const int msb = bits - 1;
  const unsigned long long bit0 = 1;
  unsigned sbit = 0;
  if (sign && len != 0) sbit = (a >> ((int)(pos + len - 1) < msb ? pos + len - 1 : msb)) & 1;
  unsigned long long d = 0;
  for (int i = 0; i <= msb; ++i) {
    unsigned b = ((unsigned)i < len && pos + i <= (unsigned)msb) ? (a >> (pos + i)) & 1 : sbit;
    d |= (unsigned long long)b << i;
  }
  (void)bit0;
  return d;
}
static unsigned bfi(unsigned f, unsigned b, unsigned pos, unsigned len) {
  pos &= 255; len &= 255;
  unsigned d = b;
  for (unsigned i = 0; i < len && pos + i <= 31; ++i) d = (d & ~(1u << (pos + i))) | (((f >> i) & 1u) << (pos + i));
  return d;
}
static unsigned prmt(unsigned a, unsigned b, unsigned c, int mode) {
  const unsigned long long v = ((unsigned long long)b << 32) | a;
  unsigned d = 0;
  for (unsigned i = 0; i < 4; ++i) {
    unsigned sel, c2 = c & 3u;
    switch (mode) {
      case 0: sel = (c >> (4 * i)) & 15u; break;
      case 1: sel = (c2 + i) & 7u; break;            // f4e
      case 2: sel = (c2 - i) & 7u; break;            // b4e
      case 3: sel = i > c2 ? i : c2; break;           // ecl
      case 4: sel = i < c2 ? i : c2; break;           // ecr
      case 5: sel = c2; break;                        // rc8
      default: sel = 2 * (c & 1u) + (i & 1u); break;  // rc16
    }
    unsigned byte = (unsigned)(v >> (8 * (sel & 7))) & 255u;
    if (sel & 8) byte = byte & 128u ? 255u : 0u;
    d |= byte << (8 * i);
  }
  return d;
}
static unsigned lop3(unsigned a, unsigned b, unsigned c, unsigned lut) {
  unsigned d = 0;
  for (int i = 0; i < 32; ++i) {
    const unsigned idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1);
    d |= ((lut >> idx) & 1u) << i;
  }
  return d;
}
static unsigned long long brev(unsigned long long a, int bits) {
  unsigned long long d = 0;
  for (int i = 0; i < bits; ++i) d |= ((a >> i) & 1ull) << (bits - 1 - i);
  return d;
}
static unsigned popc(unsigned long long a) { unsigned n = 0; for (; a; a &= a - 1) ++n; return n; }
static unsigned clz(unsigned long long a, int bits) { unsigned n = 0; for (int i = bits - 1; i >= 0 && !((a >> i) & 1); --i) ++n; return n; }
static unsigned fns(unsigned mask, unsigned base, int offset) {
  if (offset == 0) return (mask >> base) & 1u ? base : 0xffffffffu;
  int left = offset > 0 ? offset : -offset;
  for (int i = (int)base; i >= 0 && i < 32; i += offset > 0 ? 1 : -1)
    if ((mask >> i) & 1u && --left == 0) return (unsigned)i;
  return 0xffffffffu;
}
static unsigned long long mulhi64(unsigned long long x, unsigned long long y) {
  const unsigned long long xl = (unsigned)x, xh = x >> 32, yl = (unsigned)y, yh = y >> 32;
  const unsigned long long ll = xl * yl, lh = xl * yh, hl = xh * yl, hh = xh * yh;
  const unsigned long long mid = (ll >> 32) + (unsigned)lh + (unsigned)hl;
  return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
static unsigned fold(unsigned long long q) { return (unsigned)(q ^ (q >> 32)); }

int main() {
  const int n = 4096;
  std::vector<In> in(n);
  uint32_t x = 0x9e3779b9u;
  auto next = [&]() { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return x; };
  for (int i = 0; i < n; ++i) {
    In& t = in[i];
    t.a = next(); t.b = next(); t.c = next(); t.d = next();
    if (i % 7 == 0) t.b = 0xffffffffu;  // carries all the way through
    if (i % 11 == 0) t.a = 0;
    t.x = ((unsigned long long)next() << 32) | next();
    t.y = ((unsigned long long)next() << 32) | next();
  }
  In* din;
  unsigned* dout;
  CHECK(cudaMalloc(&din, n * sizeof(In)));
  CHECK(cudaMalloc(&dout, (size_t)n * kFields * sizeof(unsigned)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(In), cudaMemcpyHostToDevice));
  bits<<<(n + 127) / 128, 128>>>(din, dout, n);
  CHECK(cudaGetLastError());
  std::vector<unsigned> out((size_t)n * kFields);
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  int bad = 0, first = -1;
  for (int i = 0; i < n; ++i) {
    const In& t = in[i];
    unsigned e[kFields];
    const unsigned pos = t.c % 40u, len = t.d % 40u;
    e[kBfeU] = (unsigned)bfe(t.a, pos, len, 32, false);
    e[kBfeS] = (unsigned)bfe(t.a, pos, len, 32, true);
    e[kBfe64] = fold(bfe(t.x, t.c % 70u, t.d % 70u, 64, false));
    e[kBfi] = bfi(t.a, t.b, pos, len);
    for (int m = 0; m < 7; ++m) e[kPrmt + m] = prmt(t.a, t.b, t.c, m);
    e[kLop96] = lop3(t.a, t.b, t.c, 0x96);
    e[kLopE8] = lop3(t.a, t.b, t.c, 0xe8);
    e[kLop1E] = lop3(t.a, t.b, t.c, 0x1e);
    e[kLop01] = lop3(t.a, t.b, t.c, 0x01);
    e[kBrev] = (unsigned)brev(t.a, 32);
    e[kBrev64] = fold(brev(t.x, 64));
    e[kPopc] = popc(t.a);
    e[kPopc64] = popc(t.x);
    e[kClz] = clz(t.a >> (t.c % 32u), 32);
    e[kClz64] = clz(t.x >> (t.d % 65u % 64u), 64);
    const unsigned bf = t.b >> (t.d % 32u);
    e[kBfind] = bf ? 31 - clz(bf, 32) : 0xffffffffu;
    e[kFns] = fns(t.a & t.b, t.c % 32u, (int)(t.d % 13u) - 6);
    e[kMulHi] = (unsigned)(((unsigned long long)t.a * t.b) >> 32);
    e[kMulHiS] = (unsigned)(((long long)(int)t.a * (long long)(int)t.b) >> 32);
    e[kMulHi64] = fold(mulhi64(t.x, t.y));
    e[kWideU] = fold((unsigned long long)t.a * t.b);
    e[kWideS] = fold((unsigned long long)((long long)(int)t.a * (long long)(int)t.b));
    e[kMadWide] = fold((unsigned long long)t.a * t.b + t.x);
    e[kMadLo] = t.a * t.b + t.c;
    e[kMadHi] = (unsigned)(((unsigned long long)t.a * t.b) >> 32) + t.c;
    const unsigned xs[4] = {t.a, t.b, t.c, t.d}, ys[4] = {t.d, t.c | 0x80000000u, t.b, t.a};
    unsigned long long carry = 0;
    for (int k = 0; k < 4; ++k) {
      const unsigned long long s = (unsigned long long)xs[k] + ys[k] + carry;
      e[kAdd128a + k] = (unsigned)s;
      carry = s >> 32;
    }
    unsigned borrow = 0;
    for (int k = 0; k < 4; ++k) {
      const unsigned long long s = (unsigned long long)xs[k] - ys[k] - borrow;
      e[kSub128a + k] = (unsigned)s;
      borrow = (unsigned long long)xs[k] < (unsigned long long)ys[k] + borrow;
    }
    const unsigned long long fun = ((unsigned long long)t.b << 32) | t.a;
    e[kShfL] = (unsigned)((fun << (t.c & 31)) >> 32);
    e[kShfR] = (unsigned)(fun >> (t.c & 31));
    const unsigned cl = t.c % 40u < 32 ? t.c % 40u : 32;
    e[kShfRc] = (unsigned)(fun >> cl);
    const unsigned sh = t.c % 40u;
    e[kShl] = sh >= 32 ? 0 : t.a << sh;
    e[kShr] = sh >= 32 ? 0 : t.a >> sh;
    e[kShrS] = (unsigned)((int)t.a >> (sh >= 32 ? 31 : sh));
    e[kMinMax] = (t.a < t.b ? t.a : t.b) ^ (unsigned)((int)t.a > (int)t.b ? (int)t.a : (int)t.b);
    const unsigned ab = (int)t.a < 0 ? 0u - t.a : t.a;
    e[kAbsNeg] = (0u - ab) + ~ab;
    for (int f = 0; f < kFields; ++f) {
      if (out[(size_t)i * kFields + f] != e[f]) {
        if (first < 0) first = f;
        ++bad;
      }
    }
  }
  if (bad) {
    printf("VERDICT: FAIL bad=%d first-field=%d\n", bad, first);
    return 1;
  }
  printf("VERDICT: PASS cases=%d\n", n);
  return 0;
}
