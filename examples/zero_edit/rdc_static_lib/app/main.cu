#include <cstdio>
#include <vector>
#include "blur.h"

int main() {
  if (blurDevices() == 0) {
    std::printf("no GPU\n");
    return 0;
  }
  std::vector<float> v(4096);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = (i % 64 == 0) ? 1.0f : 0.0f;
  blurOnDevice(v.data(), v.size(), 3);
  std::printf("v[0..3] = %.4f %.4f %.4f %.4f\n", v[0], v[1], v[2], v[3]);
  return 0;
}
