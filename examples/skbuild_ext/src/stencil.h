// Host interface of the stencil kernel: plain C++ for the bindings.
#pragma once

#include <string>
#include <vector>

namespace stencil {

// "HIP" or "CUDA": what the kernel was built against.
std::string runtime();

// GPUs the runtime sees; 0 without one (never throws).
int device_count();

// One Jacobi sweep of the 1-D heat equation, repeated `steps` times:
// u[i] <- u[i] + alpha * (u[i-1] - 2 u[i] + u[i+1]), ends held fixed.
// Throws std::runtime_error("no HIP device: ...") when there is no GPU.
std::vector<float> heat(const std::vector<float>& u, float alpha, int steps);

}  // namespace stencil
