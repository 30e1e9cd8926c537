// cvt in its rounding and saturation forms, through inline PTX, checked against the same
// conversions done without PTX: the host's C library under each rounding mode (fesetround)
// for float and integer results, and CUDA's own half intrinsics in a second kernel for f16.
// Inputs include ties, negative zero, values past every integer range, infinities and NaN.
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>
#include <cuda_fp16.h>
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
  kRniS32, kRziS32, kRmiS32, kRpiS32, kRniU32, kRziU8, kRziS64lo, kRziS64hi, kRpiS32d,
  kRnF32, kRzF32, kRmF32, kRpF32, kRzU32F32, kDrn, kDrz, kDrm, kDrp, kFrni, kFrzi, kFrmi, kFrpi,
  kSat, kSatS8, kSatU16, kSatU32, kF16rn, kF16rz, kF16back, kF64lo, kF64hi, kFields
};

__global__ void convert(const float* fs, const double* ds, const int* is, unsigned* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float f = fs[i];
  const double d = ds[i];
  const int k = is[i];
  unsigned* o = out + (size_t)i * kFields;
  int s;
  unsigned r;
  long long q;
  float g;
  double e;
  unsigned short h;
  asm("cvt.rni.s32.f32 %0, %1;" : "=r"(s) : "f"(f)); o[kRniS32] = (unsigned)s;
  asm("cvt.rzi.s32.f32 %0, %1;" : "=r"(s) : "f"(f)); o[kRziS32] = (unsigned)s;
  asm("cvt.rmi.s32.f32 %0, %1;" : "=r"(s) : "f"(f)); o[kRmiS32] = (unsigned)s;
  asm("cvt.rpi.s32.f32 %0, %1;" : "=r"(s) : "f"(f)); o[kRpiS32] = (unsigned)s;
  asm("cvt.rni.u32.f32 %0, %1;" : "=r"(r) : "f"(f)); o[kRniU32] = r;
  asm("cvt.rzi.u8.f32 %0, %1;" : "=r"(r) : "f"(f)); o[kRziU8] = r & 0xffu;
  asm("cvt.rzi.s64.f64 %0, %1;" : "=l"(q) : "d"(d));
  o[kRziS64lo] = (unsigned)q;
  o[kRziS64hi] = (unsigned)((unsigned long long)q >> 32);
  asm("cvt.rpi.s32.f64 %0, %1;" : "=r"(s) : "d"(d)); o[kRpiS32d] = (unsigned)s;
  asm("cvt.rn.f32.s32 %0, %1;" : "=f"(g) : "r"(k)); o[kRnF32] = __float_as_uint(g);
  asm("cvt.rz.f32.s32 %0, %1;" : "=f"(g) : "r"(k)); o[kRzF32] = __float_as_uint(g);
  asm("cvt.rm.f32.s32 %0, %1;" : "=f"(g) : "r"(k)); o[kRmF32] = __float_as_uint(g);
  asm("cvt.rp.f32.s32 %0, %1;" : "=f"(g) : "r"(k)); o[kRpF32] = __float_as_uint(g);
  asm("cvt.rz.f32.u32 %0, %1;" : "=f"(g) : "r"((unsigned)k)); o[kRzU32F32] = __float_as_uint(g);
  asm("cvt.rn.f32.f64 %0, %1;" : "=f"(g) : "d"(d)); o[kDrn] = __float_as_uint(g);
  asm("cvt.rz.f32.f64 %0, %1;" : "=f"(g) : "d"(d)); o[kDrz] = __float_as_uint(g);
  asm("cvt.rm.f32.f64 %0, %1;" : "=f"(g) : "d"(d)); o[kDrm] = __float_as_uint(g);
  asm("cvt.rp.f32.f64 %0, %1;" : "=f"(g) : "d"(d)); o[kDrp] = __float_as_uint(g);
  asm("cvt.rni.f32.f32 %0, %1;" : "=f"(g) : "f"(f)); o[kFrni] = __float_as_uint(g);
  asm("cvt.rzi.f32.f32 %0, %1;" : "=f"(g) : "f"(f)); o[kFrzi] = __float_as_uint(g);
  asm("cvt.rmi.f32.f32 %0, %1;" : "=f"(g) : "f"(f)); o[kFrmi] = __float_as_uint(g);
  asm("cvt.rpi.f32.f32 %0, %1;" : "=f"(g) : "f"(f)); o[kFrpi] = __float_as_uint(g);
  asm("cvt.sat.f32.f32 %0, %1;" : "=f"(g) : "f"(f)); o[kSat] = __float_as_uint(g);
  asm("cvt.sat.s8.s32 %0, %1;" : "=r"(s) : "r"(k)); o[kSatS8] = (unsigned)(s & 0xff);
  asm("cvt.sat.u16.s32 %0, %1;" : "=r"(r) : "r"(k)); o[kSatU16] = r & 0xffffu;
  asm("cvt.sat.u32.s64 %0, %1;" : "=r"(r) : "l"((long long)k * 3 - 7)); o[kSatU32] = r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); o[kF16rn] = h;
  asm("cvt.rz.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); o[kF16rz] = h;
  asm("cvt.f32.f16 %0, %1;" : "=f"(g) : "h"(h)); o[kF16back] = __float_as_uint(g);
  asm("cvt.f64.f32 %0, %1;" : "=d"(e) : "f"(f));
  unsigned long long b = (unsigned long long)__double_as_longlong(e);
  o[kF64lo] = (unsigned)b;
  o[kF64hi] = (unsigned)(b >> 32);
}

// The f16 references, from CUDA's intrinsics (no PTX written here).
__global__ void halves(const float* fs, unsigned* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __half rn = __float2half_rn(fs[i]);
  const __half rz = __float2half_rz(fs[i]);
  out[3 * i] = __half_as_ushort(rn);
  out[3 * i + 1] = __half_as_ushort(rz);
  out[3 * i + 2] = __float_as_uint(__half2float(rz));
}

static unsigned bits(float f) { unsigned u; memcpy(&u, &f, 4); return u; }

template <class T> static T to_int(double v, int mode, bool from_f64 = false) {
  // Round in the mode, then clamp to T's range. NaN (PTX ISA 9.0, cvt): 0, except from an
  // f64 source or into a 64-bit integer, where it is 1 << (bits - 1), MININT if signed.
  if (v != v) {
    if (!from_f64 && sizeof(T) < 8) return 0;
    using U = typename std::make_unsigned<T>::type;
    return (T)(U)((U)1 << (8 * sizeof(T) - 1));
  }
  // trunc/floor/ceil, not fesetround: compilers may share one nearbyint across modes.
  const double r = mode == FE_TOWARDZERO ? trunc(v) : mode == FE_DOWNWARD ? floor(v)
                   : mode == FE_UPWARD   ? ceil(v) : nearbyint(v);
  const double lo = (double)std::numeric_limits<T>::min(), hi = (double)std::numeric_limits<T>::max();
  if (r <= lo) return std::numeric_limits<T>::min();
  if (r >= hi) return std::numeric_limits<T>::max();
  return (T)r;
}
static float to_float(double v, int mode) {
  fesetround(mode);
  volatile double in = v;
  volatile float r = (float)in;
  fesetround(FE_TONEAREST);
  return r;
}
static float round_f(float v, int mode) {
  return mode == FE_TOWARDZERO ? truncf(v) : mode == FE_DOWNWARD ? floorf(v) : mode == FE_UPWARD ? ceilf(v) : nearbyintf(v);
}
template <class T> static long long clamp(long long v) {
  const long long lo = (long long)std::numeric_limits<T>::min(), hi = (long long)std::numeric_limits<T>::max();
  return v < lo ? lo : v > hi ? hi : v;
}

int main() {
  std::vector<float> fs;
  std::vector<double> ds;
  std::vector<int> is;
  const float specials[] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, -0.0f, 0.0f, 1e10f, -1e10f,
                            3e9f, 2147483520.0f, -2147483648.0f, 255.9f, 256.0f, 65504.0f, 65520.0f,
                            1e-8f, 6.1e-5f, INFINITY, -INFINITY, NAN, 0.99999994f, 1.0000001f};
  for (float f : specials) fs.push_back(f);
  uint32_t x = 0x51f15e3du;
  auto next = [&]() { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return x; };
  while (fs.size() < 2048) {
    const unsigned u = next();
    float f;
    const unsigned e = 100 + u % 60;  // exponents around the integers
    const unsigned w = (u & 0x807fffffu) | (e << 23);
    memcpy(&f, &w, 4);
    fs.push_back(f);
  }
  const int n = (int)fs.size();
  for (int i = 0; i < n; ++i) {
    const double d = (double)fs[i] * (1.0 + (double)(next() % 1000) * 1e-12) + (i % 3 ? 0.0 : 1e12);
    ds.push_back(i < 24 ? (double)fs[i] : d);
    is.push_back(i % 5 == 0 ? (int)(next() | 0x80000000u) : (int)next() >> (i % 24));
  }
  is[1] = 16777217; is[2] = -16777217; is[3] = 2147483647; is[4] = (int)0x80000000u; is[6] = 300; is[7] = -200;
  float* dfs; double* dds; int* dis; unsigned *dout, *dh;
  CHECK(cudaMalloc(&dfs, n * sizeof(float)));
  CHECK(cudaMalloc(&dds, n * sizeof(double)));
  CHECK(cudaMalloc(&dis, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, (size_t)n * kFields * sizeof(unsigned)));
  CHECK(cudaMalloc(&dh, (size_t)n * 3 * sizeof(unsigned)));
  CHECK(cudaMemcpy(dfs, fs.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dds, ds.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dis, is.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  convert<<<(n + 127) / 128, 128>>>(dfs, dds, dis, dout, n);
  halves<<<(n + 127) / 128, 128>>>(dfs, dh, n);
  CHECK(cudaGetLastError());
  std::vector<unsigned> out((size_t)n * kFields), hv((size_t)n * 3);
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hv.data(), dh, hv.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(dfs)); CHECK(cudaFree(dds)); CHECK(cudaFree(dis)); CHECK(cudaFree(dout)); CHECK(cudaFree(dh));
  int bad = 0, first = -1;
  for (int i = 0; i < n; ++i) {
    const float f = fs[i];
    const double d = ds[i];
    const int k = is[i];
    unsigned e[kFields];
    e[kRniS32] = (unsigned)to_int<int>(f, FE_TONEAREST);
    e[kRziS32] = (unsigned)to_int<int>(f, FE_TOWARDZERO);
    e[kRmiS32] = (unsigned)to_int<int>(f, FE_DOWNWARD);
    e[kRpiS32] = (unsigned)to_int<int>(f, FE_UPWARD);
    e[kRniU32] = to_int<unsigned>(f, FE_TONEAREST);
    e[kRziU8] = to_int<unsigned char>(f, FE_TOWARDZERO);
    const long long q = to_int<long long>(d, FE_TOWARDZERO, true);
    e[kRziS64lo] = (unsigned)q;
    e[kRziS64hi] = (unsigned)((unsigned long long)q >> 32);
    e[kRpiS32d] = (unsigned)to_int<int>(d, FE_UPWARD, true);
    e[kRnF32] = bits(to_float(k, FE_TONEAREST));
    e[kRzF32] = bits(to_float(k, FE_TOWARDZERO));
    e[kRmF32] = bits(to_float(k, FE_DOWNWARD));
    e[kRpF32] = bits(to_float(k, FE_UPWARD));
    e[kRzU32F32] = bits(to_float((unsigned)k, FE_TOWARDZERO));
    e[kDrn] = bits(to_float(d, FE_TONEAREST));
    e[kDrz] = bits(to_float(d, FE_TOWARDZERO));
    e[kDrm] = bits(to_float(d, FE_DOWNWARD));
    e[kDrp] = bits(to_float(d, FE_UPWARD));
    e[kFrni] = bits(round_f(f, FE_TONEAREST));
    e[kFrzi] = bits(round_f(f, FE_TOWARDZERO));
    e[kFrmi] = bits(round_f(f, FE_DOWNWARD));
    e[kFrpi] = bits(round_f(f, FE_UPWARD));
    e[kSat] = bits(f != f ? 0.0f : f < 0.0f ? 0.0f : f > 1.0f ? 1.0f : f);
    e[kSatS8] = (unsigned)(clamp<signed char>(k) & 0xff);
    e[kSatU16] = (unsigned)clamp<unsigned short>(k);
    e[kSatU32] = (unsigned)clamp<unsigned>((long long)k * 3 - 7);
    e[kF16rn] = hv[3 * i];
    e[kF16rz] = hv[3 * i + 1];
    e[kF16back] = hv[3 * i + 2];
    const double wide = (double)f;
    unsigned long long b;
    memcpy(&b, &wide, 8);
    e[kF64lo] = (unsigned)b;
    e[kF64hi] = (unsigned)(b >> 32);
    for (int fld = 0; fld < kFields; ++fld) {
      unsigned got = out[(size_t)i * kFields + fld], want = e[fld];
      // NaN results: any NaN bit pattern will do (signs and payloads differ by vendor).
      const bool fp = fld >= kRnF32 && fld <= kSat;
      if (fp && (got & 0x7f800000u) == 0x7f800000u && (got & 0x7fffffu) && (want & 0x7f800000u) == 0x7f800000u && (want & 0x7fffffu)) continue;
      if (fld == kF16rn || fld == kF16rz) {
        if ((got & 0x7c00u) == 0x7c00u && (got & 0x3ffu) && (want & 0x7c00u) == 0x7c00u && (want & 0x3ffu)) continue;
      }
      if (fld == kF16back && (got & 0x7fffffffu) > 0x7f800000u && (want & 0x7fffffffu) > 0x7f800000u) continue;
      if (fld == kF64hi && (got & 0x7ff00000u) == 0x7ff00000u && (want & 0x7ff00000u) == 0x7ff00000u && (want & 0xfffffu)) continue;
      if (fld == kF64lo && fs[i] != fs[i]) continue;
      if (fld == kSat && (want & 0x7fffffffu) == 0 && (got & 0x7fffffffu) == 0) continue;  // -0.0
      if (got != want) {
        if (first < 0) {
          first = fld;
          fprintf(stderr, "case %d field %d: got %08x want %08x\n", i, fld, got, want);
        }
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
