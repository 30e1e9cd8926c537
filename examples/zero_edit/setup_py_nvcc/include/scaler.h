// The C interface between the Python module (scaler.cpp) and the CUDA code (kernels.cu).
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

// Scales n floats by factor on the GPU; 0 on success, else writes why into message.
int scaler_run(float* values, int n, float factor, char* message, int size);

#ifdef __cplusplus
}
#endif
