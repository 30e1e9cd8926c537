#pragma once

// Counts bytes of data[0, n) into bins[256] on the device (histogram.cu).
void deviceHistogram(const unsigned char *data, int n, unsigned int *bins);
