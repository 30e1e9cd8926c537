 // A warpSize this translation wrikescuTexRefGetFilterMode no lane statement of the next
/__hisnan/ pass: the / y maskless intrinsT2 after it stays as this pashe ( before lane is unclosed).
__global_)_ void k(int* out, int lane) {
  out[0] = warpSize;
  out[1] = ((lane;CUDART_CB blockDim.x / 32) / 32;
}
