// Runs every vecmath kernel on generated data, checks each result against the
// CPU, and prints one verdict line per check. Exit status: 0 all passed,
// 1 a check failed, 77 no GPU to run on.
#include <cmath>
#include <cstdio>
#include <random>

#include "vecmath/check.cuh"

namespace {

bool report(const char* name, bool ok, const std::string& detail) {
  std::printf("%-10s %s  %s\n", name, ok ? "PASS" : "FAIL", detail.c_str());
  return ok;
}

}  // namespace

int main() {
  std::printf("vecmath_demo: %s\n", vecmath::device_summary().c_str());
  if (vecmath::device_count() == 0) {
    std::printf("verdict: SKIPPED (no GPU)\n");
    return 77;
  }

  const std::size_t n = 1 << 20;
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = dist(rng);
    y[i] = dist(rng);
  }

  bool ok = true;
  try {
    std::vector<float> expect(n);
    for (std::size_t i = 0; i < n; ++i) expect[i] = 2.5f * x[i] + y[i];
    std::vector<float> got = y;
    vecmath::saxpy(2.5f, x, got);
    float worst = 0.0f;
    for (std::size_t i = 0; i < n; ++i) worst = std::fmax(worst, std::fabs(got[i] - expect[i]));
    ok &= report("saxpy", worst <= 1e-6f, "max error " + std::to_string(worst));

    double cpu = 0.0;
    for (float v : x) cpu += v;
    double gpu = vecmath::sum(x);
    ok &= report("sum", std::fabs(gpu - cpu) <= 1e-6 * n, "gpu " + std::to_string(gpu) +
                                                              " cpu " + std::to_string(cpu));

    const int bins = 16;
    std::vector<std::uint32_t> hist = vecmath::histogram(x, -0.5f, 0.5f, bins);
    std::vector<std::uint32_t> cpu_hist(bins, 0);
    for (float v : x) {
      if (v >= -0.5f && v < 0.5f) {
        int b = static_cast<int>((v + 0.5f) * bins);
        ++cpu_hist[b < bins ? b : bins - 1];
      }
    }
    ok &= report("histogram", hist == cpu_hist, std::to_string(bins) + " bins");
  } catch (const vecmath::GpuError& e) {
    std::printf("error: %s\n", e.what());
    ok = false;
  }
  std::printf("verdict: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
