#pragma once

// Defined in devmath.cu, called from kernels in other files: needs -rdc.
__device__ float axpy(float a, float x, float y);
