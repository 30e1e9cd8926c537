// Three CUB histograms over generated data, each checked bin by bin against a
// CPU count. Float samples sit at k + {0.25, 0.5, 0.75}, never on a bin edge,
// so the bin of every sample is unambiguous whatever arithmetic CUB uses to
// locate it. Some samples fall outside the range and must be dropped.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));   \
      printf("VERDICT: FAIL cuda-error\n");                                           \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

constexpr int EVEN_BINS = 200;      // [0, 200) in unit bins
constexpr int RANGE_BINS = 24;      // triangular-number edges 0,1,3,6,...,300
constexpr int CH_BINS = 256;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

static uint32_t g_s = 0xdeadbeefu;
static uint32_t rnd() {
  g_s ^= g_s << 13;
  g_s ^= g_s >> 17;
  g_s ^= g_s << 5;
  return g_s;
}

// Runs a CUB call twice: once to size temp storage, once for real.
template <typename F>
static void run_cub(F&& f) {
  size_t bytes = 0;
  CHECK(f(nullptr, bytes));
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, bytes > 0 ? bytes : 1));
  CHECK(f(temp, bytes));
  CHECK(cudaFree(temp));
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1048573;
  if (n <= 0 || n > (1 << 26)) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  const float fracs[3] = {0.25f, 0.5f, 0.75f};
  std::vector<float> samples(n);
  for (int i = 0; i < n; ++i) {
    uint32_t r = rnd();
    // Integer parts in [-20, 320): some below 0, some at or above every range end.
    int k = (int)((r % 170u) + ((r >> 8) % 171u)) - 20;
    samples[i] = (float)k + fracs[(r >> 20) % 3u];
  }
  std::vector<float> levels(RANGE_BINS + 1);
  for (int b = 0; b <= RANGE_BINS; ++b) levels[b] = (float)(b * (b + 1) / 2);
  std::vector<uint8_t> pixels((size_t)n * 4);
  for (size_t i = 0; i < pixels.size(); ++i) {
    uint32_t r = rnd();
    pixels[i] = (uint8_t)((i % 4 == 1) ? (r & (r >> 8)) : r);  // green skews dark
  }

  // CPU references.
  std::vector<int> ref_even(EVEN_BINS, 0), ref_range(RANGE_BINS, 0);
  std::vector<int> ref_ch(3 * CH_BINS, 0);
  for (int i = 0; i < n; ++i) {
    float v = samples[i];
    if (v >= 0.0f && v < (float)EVEN_BINS) ref_even[(int)v]++;
    for (int b = 0; b < RANGE_BINS; ++b)
      if (v >= levels[b] && v < levels[b + 1]) ref_range[b]++;
    for (int c = 0; c < 3; ++c) ref_ch[c * CH_BINS + pixels[(size_t)i * 4 + c]]++;
  }

  float *d_samples, *d_levels;
  uint8_t* d_pixels;
  int *d_even, *d_range, *d_ch;
  CHECK(cudaMalloc(&d_samples, (size_t)n * sizeof(float)));
  CHECK(cudaMalloc(&d_levels, levels.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_pixels, pixels.size()));
  CHECK(cudaMalloc(&d_even, EVEN_BINS * sizeof(int)));
  CHECK(cudaMalloc(&d_range, RANGE_BINS * sizeof(int)));
  CHECK(cudaMalloc(&d_ch, 3 * CH_BINS * sizeof(int)));
  CHECK(cudaMemcpy(d_samples, samples.data(), (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_levels, levels.data(), levels.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_pixels, pixels.data(), pixels.size(), cudaMemcpyHostToDevice));

  run_cub([&](void* t, size_t& b) {
    return cub::DeviceHistogram::HistogramEven(t, b, d_samples, d_even, EVEN_BINS + 1, 0.0f,
                                               (float)EVEN_BINS, n);
  });
  run_cub([&](void* t, size_t& b) {
    return cub::DeviceHistogram::HistogramRange(t, b, d_samples, d_range, RANGE_BINS + 1,
                                                d_levels, n);
  });
#if CUB_VERSION >= 300000
  // CUB 3 (CUDA 13) takes the per-channel arguments as cuda::std::array.
  ::cuda::std::array<int*, 3> d_hists{d_ch, d_ch + CH_BINS, d_ch + 2 * CH_BINS};
  ::cuda::std::array<int, 3> num_levels{CH_BINS + 1, CH_BINS + 1, CH_BINS + 1};
  ::cuda::std::array<int, 3> lower{0, 0, 0};
  ::cuda::std::array<int, 3> upper{CH_BINS, CH_BINS, CH_BINS};
#else
  int* d_hists[3] = {d_ch, d_ch + CH_BINS, d_ch + 2 * CH_BINS};
  const int num_levels[3] = {CH_BINS + 1, CH_BINS + 1, CH_BINS + 1};
  const int lower[3] = {0, 0, 0};
  const int upper[3] = {CH_BINS, CH_BINS, CH_BINS};
#endif
  run_cub([&](void* t, size_t& b) {
    return cub::DeviceHistogram::MultiHistogramEven<4, 3>(t, b, d_pixels, d_hists, num_levels,
                                                          lower, upper, n);
  });
  CHECK(cudaDeviceSynchronize());

  std::vector<int> g_even(EVEN_BINS), g_range(RANGE_BINS), g_ch(3 * CH_BINS);
  CHECK(cudaMemcpy(g_even.data(), d_even, EVEN_BINS * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_range.data(), d_range, RANGE_BINS * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_ch.data(), d_ch, 3 * CH_BINS * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_samples));
  CHECK(cudaFree(d_levels));
  CHECK(cudaFree(d_pixels));
  CHECK(cudaFree(d_even));
  CHECK(cudaFree(d_range));
  CHECK(cudaFree(d_ch));

  for (int b = 0; b < EVEN_BINS; ++b)
    if (g_even[b] != ref_even[b]) {
      printf("VERDICT: FAIL HistogramEven bin %d: %d != %d\n", b, g_even[b], ref_even[b]);
      return 1;
    }
  for (int b = 0; b < RANGE_BINS; ++b)
    if (g_range[b] != ref_range[b]) {
      printf("VERDICT: FAIL HistogramRange bin %d: %d != %d\n", b, g_range[b], ref_range[b]);
      return 1;
    }
  for (int b = 0; b < 3 * CH_BINS; ++b)
    if (g_ch[b] != ref_ch[b]) {
      printf("VERDICT: FAIL MultiHistogramEven channel %d bin %d: %d != %d\n", b / CH_BINS,
             b % CH_BINS, g_ch[b], ref_ch[b]);
      return 1;
    }
  long long in_even = 0, in_range = 0;
  for (int v : ref_even) in_even += v;
  for (int v : ref_range) in_range += v;
  printf("samples=%d in_even=%lld in_range=%lld\n", n, in_even, in_range);
  uint32_t c = fnv1a(2166136261u, ref_even.data(), ref_even.size() * sizeof(int));
  c = fnv1a(c, ref_range.data(), ref_range.size() * sizeof(int));
  c = fnv1a(c, ref_ch.data(), ref_ch.size() * sizeof(int));
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
