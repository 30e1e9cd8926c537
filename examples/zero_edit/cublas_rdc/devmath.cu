#include "devmath.cuh"

__device__ float axpy(float a, float x, float y) { return fmaf(a, x, y); }
