// Separable 7-tap binomial blur read through texture objects: the horizontal
// pass samples an 8-bit cudaArray texture (clamp addressing, point filtering,
// unnormalized coordinates) into a pitched float buffer; the vertical pass
// samples that buffer through a Pitch2D texture. A third kernel downsamples by
// 2 with normalized coordinates and wrap addressing. Integer weights make all
// sums exact, so the output is compared exactly with a CPU blur.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t err_ = (call);                                                       \
    if (err_ != cudaSuccess) {                                                       \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));  \
      printf("VERDICT: FAIL cuda-error\n");                                          \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

__constant__ float c_w[7] = {1.f, 6.f, 15.f, 20.f, 15.f, 6.f, 1.f};

__global__ void blur_h(cudaTextureObject_t src, float* dst, size_t pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int k = -3; k <= 3; ++k) s += c_w[k + 3] * (float)tex2D<unsigned char>(src, x + k + 0.5f, y + 0.5f);
  ((float*)((char*)dst + y * pitch))[x] = s;
}

__global__ void blur_v(cudaTextureObject_t src, unsigned char* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float s = 0.0f;
  for (int k = -3; k <= 3; ++k) s += c_w[k + 3] * tex2D<float>(src, x + 0.5f, y + k + 0.5f);
  out[y * w + x] = (unsigned char)(((int)s + 2048) >> 12);
}

// Half-size image of the source shifted right by w/2 with wrap-around.
__global__ void down_wrap(cudaTextureObject_t src, unsigned char* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w / 2 || y >= h / 2) return;
  float u = (2 * x + w / 2 + 0.5f) / (float)w, v = (2 * y + 0.5f) / (float)h;
  out[y * (w / 2) + x] = tex2D<unsigned char>(src, u, v);
}

int main(int argc, char** argv) {
  int w = argc > 1 ? atoi(argv[1]) : 640;
  int h = argc > 2 ? atoi(argv[2]) : 480;
  if (w < 16 || h < 16 || w > 8192 || h > 8192) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  std::vector<unsigned char> img((size_t)w * h);
  uint32_t s = 0x6a09e667u;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      s = s * 1664525u + 1013904223u;
      int v = (x * 255) / w / 2 + ((x / 16 + y / 16) % 2) * 80 + (int)(s >> 28);
      int dx = x - w / 2, dy = y - h / 3;
      if (dx * dx + dy * dy < (h / 5) * (h / 5)) v = 255 - v / 2;
      img[(size_t)y * w + x] = (unsigned char)(v > 255 ? 255 : v);
    }
  cudaChannelFormatDesc cd8 = cudaCreateChannelDesc<unsigned char>();
  cudaArray_t arr;
  CHECK(cudaMallocArray(&arr, &cd8, w, h));
  CHECK(cudaMemcpy2DToArray(arr, 0, 0, img.data(), w, w, h, cudaMemcpyHostToDevice));
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof(rd));
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = arr;
  cudaTextureDesc td;
  memset(&td, 0, sizeof(td));
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModePoint;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 0;
  cudaTextureObject_t tex_img, tex_wrap, tex_mid;
  CHECK(cudaCreateTextureObject(&tex_img, &rd, &td, nullptr));
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeWrap;
  td.normalizedCoords = 1;
  CHECK(cudaCreateTextureObject(&tex_wrap, &rd, &td, nullptr));

  float* mid;
  size_t pitch;
  CHECK(cudaMallocPitch(&mid, &pitch, w * sizeof(float), h));
  cudaResourceDesc rp;
  memset(&rp, 0, sizeof(rp));
  rp.resType = cudaResourceTypePitch2D;
  rp.res.pitch2D.devPtr = mid;
  rp.res.pitch2D.desc = cudaCreateChannelDesc<float>();
  rp.res.pitch2D.width = w;
  rp.res.pitch2D.height = h;
  rp.res.pitch2D.pitchInBytes = pitch;
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.normalizedCoords = 0;
  CHECK(cudaCreateTextureObject(&tex_mid, &rp, &td, nullptr));
  unsigned char *dout, *ddown;
  CHECK(cudaMalloc(&dout, (size_t)w * h));
  CHECK(cudaMalloc(&ddown, (size_t)(w / 2) * (h / 2)));
  dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
  blur_h<<<grid, block>>>(tex_img, mid, pitch, w, h);
  CHECK(cudaGetLastError());
  blur_v<<<grid, block>>>(tex_mid, dout, w, h);
  CHECK(cudaGetLastError());
  down_wrap<<<grid, block>>>(tex_wrap, ddown, w, h);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned char> out((size_t)w * h), down((size_t)(w / 2) * (h / 2));
  CHECK(cudaMemcpy(out.data(), dout, out.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(down.data(), ddown, down.size(), cudaMemcpyDeviceToHost));

  const int wt[7] = {1, 6, 15, 20, 15, 6, 1};
  auto px = [&](int x, int y) {
    x = x < 0 ? 0 : (x >= w ? w - 1 : x);
    y = y < 0 ? 0 : (y >= h ? h - 1 : y);
    return (int)img[(size_t)y * w + x];
  };
  std::vector<int> hz((size_t)w * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int acc = 0;
      for (int k = -3; k <= 3; ++k) acc += wt[k + 3] * px(x + k, y);
      hz[(size_t)y * w + x] = acc;
    }
  long bad = 0;
  uint32_t hash = 2166136261u;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int acc = 0;
      for (int k = -3; k <= 3; ++k) {
        int yy = y + k < 0 ? 0 : (y + k >= h ? h - 1 : y + k);
        acc += wt[k + 3] * hz[(size_t)yy * w + x];
      }
      int ref = (acc + 2048) >> 12;
      if (out[(size_t)y * w + x] != ref && bad++ < 5) fprintf(stderr, "blur (%d,%d) %d vs %d\n", x, y, out[(size_t)y * w + x], ref);
      hash = (hash ^ (uint32_t)ref) * 16777619u;
    }
  for (int y = 0; y < h / 2; ++y)
    for (int x = 0; x < w / 2; ++x) {
      int ref = img[(size_t)(2 * y) * w + (2 * x + w / 2) % w];
      if (down[(size_t)y * (w / 2) + x] != ref && bad++ < 5) fprintf(stderr, "down (%d,%d) differs\n", x, y);
      hash = (hash ^ (uint32_t)ref) * 16777619u;
    }
  CHECK(cudaDestroyTextureObject(tex_img));
  CHECK(cudaDestroyTextureObject(tex_wrap));
  CHECK(cudaDestroyTextureObject(tex_mid));
  CHECK(cudaFreeArray(arr));
  CHECK(cudaFree(mid));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(ddown));
  if (bad) {
    printf("VERDICT: FAIL %ld mismatches\n", bad);
    return 1;
  }
  printf("VERDICT: PASS checksum=%08x\n", hash);
  return 0;
}
