// The kernel's launcher, shared by main.cu and scale.cu.
#pragma once
#include <cuda_runtime.h>

cudaError_t scale_on_device(float* host, int n, float factor);
