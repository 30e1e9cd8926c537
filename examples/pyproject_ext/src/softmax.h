// Host interface of the softmax kernel, plain C++ for the CPython module.
#pragma once

#include <string>
#include <vector>

namespace softmax {

// "HIP" or "CUDA".
const char* runtime();

// Row-wise softmax of a rows x cols matrix stored row-major.
// Returns an empty string on success, else the error (e.g. "no HIP device: ...").
std::string rows(const std::vector<float>& in, int rows, int cols, std::vector<float>& out);

}  // namespace softmax
