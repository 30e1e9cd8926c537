// Fixed-point decimating FIR filter, as a DSP would run it: 16-bit samples,
// 63 Q15 taps of a windowed-sinc low-pass in __constant__ memory, 32-bit
// accumulation, rounding shift and saturation to 16 bits, keep every second
// output. Each block stages its input window (with the 62-sample halo) in
// shared memory. A second kernel computes 64-bit energies per segment. All
// integer: exact against the CPU.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t err_ = (call);                                                       \
    if (err_ != cudaSuccess) {                                                       \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));  \
      printf("VERDICT: FAIL cuda-error\n");                                          \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

constexpr int kTaps = 63, kHalf = kTaps / 2, kDecim = 2, kOut = 256, kSeg = 1024;
__constant__ short c_taps[kTaps];

__host__ __device__ inline short sat16(int v) { return (short)(v > 32767 ? 32767 : v < -32768 ? -32768 : v); }

__global__ void fir_decimate(const short* __restrict__ x, int len, short* __restrict__ y, int nout) {
  __shared__ int win[kOut * kDecim + kTaps];
  int m0 = blockIdx.x * kOut;
  int base = m0 * kDecim - kHalf;
  int span = kOut * kDecim + kTaps - 1;
  for (int t = threadIdx.x; t < span; t += blockDim.x) {
    int g = base + t;
    win[t] = (g >= 0 && g < len) ? x[g] : 0;
  }
  __syncthreads();
  int m = m0 + threadIdx.x;
  if (m >= nout) return;
  int acc = 0;
  const int* w = win + threadIdx.x * kDecim;
#pragma unroll
  for (int k = 0; k < kTaps; ++k) acc += c_taps[k] * w[k];
  y[m] = sat16((acc + (1 << 14)) >> 15);
}

__global__ void segment_energy(const short* __restrict__ y, int nout, long long* __restrict__ energy) {
  __shared__ long long acc[256];
  long long e = 0;
  for (int i = blockIdx.x * kSeg + threadIdx.x; i < nout && i < (blockIdx.x + 1) * kSeg; i += blockDim.x)
    e += (long long)y[i] * y[i];
  acc[threadIdx.x] = e;
  __syncthreads();
  for (int w = 128; w > 0; w >>= 1) {
    if (threadIdx.x < w) acc[threadIdx.x] += acc[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) energy[blockIdx.x] = acc[0];
}

int main(int argc, char** argv) {
  int len = argc > 1 ? atoi(argv[1]) : (1 << 18) + 77;
  if (len < kTaps) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  short taps[kTaps];
  for (int k = 0; k < kTaps; ++k) {  // cutoff 0.2 of the sample rate, Hamming window
    double t = k - kHalf;
    double sinc = t == 0 ? 0.4 : sin(0.4 * 3.14159265358979323846 * t) / (3.14159265358979323846 * t);
    double win = 0.54 - 0.46 * cos(2.0 * 3.14159265358979323846 * k / (kTaps - 1));
    taps[k] = (short)lrint(sinc * win * 32768.0);
  }
  std::vector<short> x(len);
  uint32_t s = 0x9b05688cu;
  for (int i = 0; i < len; ++i) {
    s ^= s << 13; s ^= s >> 17; s ^= s << 5;
    int tone = (int)(20000.0 * sin(i * 0.05)) + (int)(9000.0 * sin(i * 1.9));  // pass band + stop band
    int v = tone + (int)(s % 8001u) - 4000;
    if (i % 5000 == 17) v = (i / 5000) % 2 ? 32767 : -32768;  // impulses drive saturation
    x[i] = sat16(v);
  }
  int nout = (len + kDecim - 1) / kDecim;
  int nseg = (nout + kSeg - 1) / kSeg;
  short *dx, *dy;
  long long* de;
  CHECK(cudaMemcpyToSymbol(c_taps, taps, sizeof(taps)));
  CHECK(cudaMalloc(&dx, len * sizeof(short)));
  CHECK(cudaMalloc(&dy, nout * sizeof(short)));
  CHECK(cudaMalloc(&de, nseg * sizeof(long long)));
  CHECK(cudaMemcpy(dx, x.data(), len * sizeof(short), cudaMemcpyHostToDevice));
  fir_decimate<<<(nout + kOut - 1) / kOut, kOut>>>(dx, len, dy, nout);
  CHECK(cudaGetLastError());
  segment_energy<<<nseg, 256>>>(dy, nout, de);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<short> y(nout);
  std::vector<long long> e(nseg);
  CHECK(cudaMemcpy(y.data(), dy, nout * sizeof(short), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(e.data(), de, nseg * sizeof(long long), cudaMemcpyDeviceToHost));

  long bad = 0, saturated = 0;
  uint32_t h = 2166136261u;
  std::vector<long long> re(nseg, 0);
  for (int m = 0; m < nout; ++m) {
    int acc = 0;
    for (int k = 0; k < kTaps; ++k) {
      int g = m * kDecim - kHalf + k;
      if (g >= 0 && g < len) acc += taps[k] * x[g];
    }
    int shifted = (acc + (1 << 14)) >> 15;
    short r = sat16(shifted);
    saturated += shifted != r;
    re[m / kSeg] += (long long)r * r;
    if (y[m] != r && bad++ < 5) fprintf(stderr, "y[%d] gpu %d cpu %d\n", m, y[m], r);
    h = (h ^ (uint16_t)r) * 16777619u;
  }
  for (int i = 0; i < nseg; ++i) {
    if (e[i] != re[i] && bad++ < 5) fprintf(stderr, "energy[%d] %lld vs %lld\n", i, e[i], re[i]);
    h = (h ^ (uint32_t)re[i]) * 16777619u;
  }
  CHECK(cudaFree(dx)); CHECK(cudaFree(dy)); CHECK(cudaFree(de));
  if (bad) {
    printf("VERDICT: FAIL %ld mismatches\n", bad);
    return 1;
  }
  printf("outputs %d, saturated %ld\n", nout, saturated);
  printf("VERDICT: PASS checksum=%08x\n", h);
  return 0;
}
