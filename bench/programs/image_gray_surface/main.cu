// Image pipeline through surface objects: an RGBA cudaArray is read with
// surf2Dread, converted to 8-bit luma (integer BT.601-like weights) and written
// with surf2Dwrite into a one-channel surface; a second kernel reads that
// surface back for a 3x3 box mean and local contrast, packing the results into
// a uchar4 surface. A third kernel reads with cudaBoundaryModeZero past the
// edges. Surface x coordinates are in BYTES (x * sizeof(uchar4) for RGBA).
// Everything is integer and checked exactly.
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

__host__ __device__ inline unsigned char luma(uchar4 p) {
  return (unsigned char)((77 * p.x + 150 * p.y + 29 * p.z + 128) >> 8);
}

__global__ void to_gray(cudaSurfaceObject_t rgba, cudaSurfaceObject_t gray, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  uchar4 p;
  surf2Dread(&p, rgba, x * (int)sizeof(uchar4), y);
  surf2Dwrite(luma(p), gray, x, y);
}

__global__ void box_contrast(cudaSurfaceObject_t gray, cudaSurfaceObject_t out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int sum = 0, lo = 255, hi = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int xx = min(max(x + dx, 0), w - 1), yy = min(max(y + dy, 0), h - 1);
      unsigned char g;
      surf2Dread(&g, gray, xx, yy);
      sum += g;
      lo = min(lo, (int)g);
      hi = max(hi, (int)g);
    }
  unsigned char c;
  surf2Dread(&c, gray, x, y);
  surf2Dwrite(make_uchar4(c, (unsigned char)((sum + 4) / 9), (unsigned char)(hi - lo), 255), out,
              x * (int)sizeof(uchar4), y);
}

__global__ void shifted(cudaSurfaceObject_t gray, unsigned char* dst, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  unsigned char g;
  surf2Dread(&g, gray, x - 3, y + 2, cudaBoundaryModeZero);
  dst[y * w + x] = g;
}

static cudaSurfaceObject_t make_surface(cudaArray_t a) {
  cudaResourceDesc rd;
  memset(&rd, 0, sizeof(rd));
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  cudaSurfaceObject_t s;
  CHECK(cudaCreateSurfaceObject(&s, &rd));
  return s;
}

int main(int argc, char** argv) {
  int w = argc > 1 ? atoi(argv[1]) : 800;
  int h = argc > 2 ? atoi(argv[2]) : 600;
  if (w < 8 || h < 8 || w > 8192 || h > 8192) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  size_t n = (size_t)w * h;
  std::vector<uchar4> rgba(n);
  uint32_t s = 0x3c6ef372u;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      s = s * 1103515245u + 12345u;
      unsigned char r = (unsigned char)((x * 7 + y * 3) & 255);
      unsigned char g = (unsigned char)(((x ^ y) * 5) & 255);
      unsigned char b = (unsigned char)((s >> 16) & 255);
      rgba[(size_t)y * w + x] = make_uchar4(r, g, b, 255);
    }
  cudaChannelFormatDesc c4 = cudaCreateChannelDesc<uchar4>(), c1 = cudaCreateChannelDesc<unsigned char>();
  cudaArray_t ain, agray, aout;
  CHECK(cudaMallocArray(&ain, &c4, w, h, cudaArraySurfaceLoadStore));
  CHECK(cudaMallocArray(&agray, &c1, w, h, cudaArraySurfaceLoadStore));
  CHECK(cudaMallocArray(&aout, &c4, w, h, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(ain, 0, 0, rgba.data(), w * sizeof(uchar4), w * sizeof(uchar4), h,
                            cudaMemcpyHostToDevice));
  cudaSurfaceObject_t s_in = make_surface(ain), sgray = make_surface(agray), sout = make_surface(aout);
  unsigned char* dshift;
  CHECK(cudaMalloc(&dshift, n));
  dim3 block(16, 16), grid((w + 15) / 16, (h + 15) / 16);
  to_gray<<<grid, block>>>(s_in, sgray, w, h);
  CHECK(cudaGetLastError());
  box_contrast<<<grid, block>>>(sgray, sout, w, h);
  CHECK(cudaGetLastError());
  shifted<<<grid, block>>>(sgray, dshift, w, h);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<uchar4> out(n);
  std::vector<unsigned char> sh(n);
  CHECK(cudaMemcpy2DFromArray(out.data(), w * sizeof(uchar4), aout, 0, 0, w * sizeof(uchar4), h,
                              cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(sh.data(), dshift, n, cudaMemcpyDeviceToHost));

  std::vector<unsigned char> gray(n);
  for (size_t i = 0; i < n; ++i) gray[i] = luma(rgba[i]);
  long bad = 0;
  uint32_t hash = 2166136261u;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int sum = 0, lo = 255, hi = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          int xx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
          int yy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
          int g = gray[(size_t)yy * w + xx];
          sum += g;
          lo = g < lo ? g : lo;
          hi = g > hi ? g : hi;
        }
      size_t i = (size_t)y * w + x;
      uchar4 ref = make_uchar4(gray[i], (unsigned char)((sum + 4) / 9), (unsigned char)(hi - lo), 255);
      int sx = x - 3, sy = y + 2;
      unsigned char rs = (sx >= 0 && sy < h) ? gray[(size_t)sy * w + sx] : 0;
      uchar4 o = out[i];
      if ((o.x != ref.x || o.y != ref.y || o.z != ref.z || o.w != ref.w || sh[i] != rs) && bad++ < 5)
        fprintf(stderr, "(%d,%d): out %d %d %d %d ref %d %d %d shift %d/%d\n", x, y, o.x, o.y, o.z, o.w,
                ref.x, ref.y, ref.z, sh[i], rs);
      hash = (hash ^ (uint32_t)(ref.x | (ref.y << 8) | (ref.z << 16) | ((uint32_t)rs << 24))) * 16777619u;
    }
  CHECK(cudaDestroySurfaceObject(s_in));
  CHECK(cudaDestroySurfaceObject(sgray));
  CHECK(cudaDestroySurfaceObject(sout));
  CHECK(cudaFreeArray(ain));
  CHECK(cudaFreeArray(agray));
  CHECK(cudaFreeArray(aout));
  CHECK(cudaFree(dshift));
  if (bad) {
    printf("VERDICT: FAIL %ld mismatches\n", bad);
    return 1;
  }
  printf("VERDICT: PASS checksum=%08x\n", hash);
  return 0;
}
