#pragma once

// Scales n floats in device memory by factor (scale.cu).
void launchScale(float *device_data, int n, float factor);
