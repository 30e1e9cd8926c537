// Weighted 2-D histogram of clustered points. Per bin: a count (atomicAdd), a
// weight sum in double through an atomicCAS loop on the 64-bit pattern, and
// the largest weight through an atomicCAS loop on the float's bits. Weights
// are k/1024 with k in 1..1024, so every partial sum is an exact double and
// the result does not depend on the order in which the atomics land.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <hip/hip_runtime.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    hipError_t err_ = (call);                                                        \
    if (err_ != hipSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, hipGetErrorString(err_));   \
      printf("VERDICT: FAIL cuda-error\n");                                           \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

constexpr int SIDE = 64;           // bins per axis
constexpr int COORD = 4096;        // coordinates are multiples of 1/COORD in [0,1)
constexpr int NBINS = SIDE * SIDE;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

__device__ double atomic_add_double_cas(double* addr, double val) {
  unsigned long long* p = reinterpret_cast<unsigned long long*>(addr);
  unsigned long long old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, __double_as_longlong(__longlong_as_double(assumed) + val));
  } while (assumed != old);
  return __longlong_as_double(old);
}

__device__ float atomic_max_float_cas(float* addr, float val) {
  unsigned* p = reinterpret_cast<unsigned*>(addr);
  unsigned old = *p;
  while (__uint_as_float(old) < val) {
    unsigned assumed = old;
    old = atomicCAS(p, assumed, __float_as_uint(val));
    if (old == assumed) break;
  }
  return __uint_as_float(old);
}

__global__ void hist2d(const float2* __restrict__ pts, const float* __restrict__ w, int n,
                       unsigned* __restrict__ count, double* __restrict__ wsum,
                       float* __restrict__ wmax) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float2 p = pts[i];
    // Scaling by a power of two is exact, so the bin is the same as on the CPU.
    int bx = min((int)(p.x * (float)SIDE), SIDE - 1);
    int by = min((int)(p.y * (float)SIDE), SIDE - 1);
    int bin = by * SIDE + bx;
    atomicAdd(&count[bin], 1u);
    atomic_add_double_cas(&wsum[bin], (double)w[i]);
    atomic_max_float_cas(&wmax[bin], w[i]);
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000003;
  if (n <= 0 || n > (1 << 26)) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  std::vector<float2> pts(n);
  std::vector<float> w(n);
  uint64_t s = 0x853c49e6748fea9bULL;
  auto next = [&s]() {  // 64-bit LCG, upper bits
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(s >> 32);
  };
  for (int i = 0; i < n; ++i) {
    // Sum of four uniforms: a bell-shaped cluster, so central bins are hot
    // and their CAS loops contend.
    int cx = 0, cy = 0;
    for (int k = 0; k < 4; ++k) {
      cx += (int)(next() % COORD);
      cy += (int)(next() % COORD);
    }
    pts[i].x = (float)(cx / 4) / (float)COORD;
    pts[i].y = (float)(cy / 4) / (float)COORD;
    w[i] = (float)(1 + next() % 1024u) / 1024.0f;
  }
  std::vector<unsigned> rc(NBINS, 0u);
  std::vector<double> rs(NBINS, 0.0);
  std::vector<float> rm(NBINS, 0.0f);
  for (int i = 0; i < n; ++i) {
    int bx = (int)(pts[i].x * (float)SIDE), by = (int)(pts[i].y * (float)SIDE);
    if (bx > SIDE - 1) bx = SIDE - 1;
    if (by > SIDE - 1) by = SIDE - 1;
    int b = by * SIDE + bx;
    rc[b]++;
    rs[b] += (double)w[i];
    if (w[i] > rm[b]) rm[b] = w[i];
  }

  float2* d_pts;
  float *d_w, *d_max;
  unsigned* d_count;
  double* d_sum;
  CHECK(hipMalloc(&d_pts, (size_t)n * sizeof(float2)));
  CHECK(hipMalloc(&d_w, (size_t)n * sizeof(float)));
  CHECK(hipMalloc(&d_count, NBINS * sizeof(unsigned)));
  CHECK(hipMalloc(&d_sum, NBINS * sizeof(double)));
  CHECK(hipMalloc(&d_max, NBINS * sizeof(float)));
  CHECK(hipMemcpy(d_pts, pts.data(), (size_t)n * sizeof(float2), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(d_w, w.data(), (size_t)n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemset(d_count, 0, NBINS * sizeof(unsigned)));
  CHECK(hipMemset(d_sum, 0, NBINS * sizeof(double)));  // all-zero bits are +0.0
  CHECK(hipMemset(d_max, 0, NBINS * sizeof(float)));
  hist2d<<<1024, 256>>>(d_pts, d_w, n, d_count, d_sum, d_max);
  CHECK(hipGetLastError());
  CHECK(hipDeviceSynchronize());
  std::vector<unsigned> gc(NBINS);
  std::vector<double> gs(NBINS);
  std::vector<float> gm(NBINS);
  CHECK(hipMemcpy(gc.data(), d_count, NBINS * sizeof(unsigned), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(gs.data(), d_sum, NBINS * sizeof(double), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(gm.data(), d_max, NBINS * sizeof(float), hipMemcpyDeviceToHost));
  CHECK(hipFree(d_pts));
  CHECK(hipFree(d_w));
  CHECK(hipFree(d_count));
  CHECK(hipFree(d_sum));
  CHECK(hipFree(d_max));

  uint32_t c = 2166136261u;
  unsigned occupied = 0;
  for (int b = 0; b < NBINS; ++b) {
    // Exact comparisons: every value involved is a dyadic rational.
    if (gc[b] != rc[b] || gs[b] != rs[b] || gm[b] != rm[b]) {
      printf("VERDICT: FAIL bin %d: count %u/%u sum %.4f/%.4f max %.4f/%.4f\n", b, gc[b], rc[b],
             gs[b], rs[b], (double)gm[b], (double)rm[b]);
      return 1;
    }
    uint64_t sum1024 = (uint64_t)(rs[b] * 1024.0);  // exact integer
    uint32_t max1024 = (uint32_t)(rm[b] * 1024.0f);
    c = fnv1a(c, &rc[b], sizeof(unsigned));
    c = fnv1a(c, &sum1024, sizeof(sum1024));
    c = fnv1a(c, &max1024, sizeof(max1024));
    occupied += rc[b] ? 1u : 0u;
  }
  printf("points=%d occupied_bins=%u\n", n, occupied);
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
