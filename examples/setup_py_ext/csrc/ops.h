// Host interface of the GPU kernels: plain C++, so bindings.cpp needs no CUDA headers.
#pragma once

#include <string>
#include <vector>

namespace ops {

// Devices visible to the runtime; 0 when there is none (never throws).
int device_count();

// a * x + b * y, element by element. Throws std::runtime_error naming the
// runtime ("no HIP device: ..." / "no CUDA device: ...") when no GPU is present.
std::vector<float> axpby(float a, const std::vector<float>& x, float b, const std::vector<float>& y);

// Sum of x[i] * y[i], accumulated in double.
double dot(const std::vector<float>& x, const std::vector<float>& y);

// "HIP" or "CUDA": the runtime the kernels were built against.
std::string runtime();

}  // namespace ops
