#pragma once
#include <cstddef>

// Blurs n values in place on the device; returns the number of devices seen.
int blurDevices();
void blurOnDevice(float* host, std::size_t n, int radius);
