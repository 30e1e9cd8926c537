// The weights live apart from the kernel that reads them: relocatable device code.
__device__ float blurWeight(int offset, int radius) {
  const float span = float(radius + 1);
  return (span - float(offset < 0 ? -offset : offset)) / (span * span);
}
