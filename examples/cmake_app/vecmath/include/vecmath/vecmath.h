// vecmath: a few GPU vector kernels behind a plain C++ interface.
// Callers need no CUDA headers: this file compiles with any C++17 compiler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace vecmath {

// Thrown for every runtime failure; what() names the call and the runtime's message.
class GpuError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Number of usable GPUs; 0 when there is none (never throws).
int device_count();

// Describes why device_count() is 0, or names device 0.
std::string device_summary();

// y <- a * x + y
void saxpy(float a, const std::vector<float>& x, std::vector<float>& y);

// Sum of all elements, accumulated in double per block.
double sum(const std::vector<float>& x);

// Counts of values in [lo, hi) split into `bins` equal bins; values outside are dropped.
std::vector<std::uint32_t> histogram(const std::vector<float>& x, float lo, float hi, int bins);

}  // namespace vecmath
