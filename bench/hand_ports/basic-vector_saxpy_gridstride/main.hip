// Grid-stride vector kernels (saxpy, axpby-plus-constant, integer multiply-xor)
// over a length that is not a multiple of the block size. Operands are dyadic
// rationals with few significant bits, so every float result is exact: GPU and
// CPU must agree bit for bit whether or not the compiler contracts to FMA.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <hip/hip_runtime.h>

#define CHECK(call)                                                                  \
  do {                                                                               \
    hipError_t err_ = (call);                                                       \
    if (err_ != hipSuccess) {                                                       \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, hipGetErrorString(err_));  \
      printf("VERDICT: FAIL cuda-error\n");                                          \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

static uint32_t g_state = 0x12345678u;
static uint32_t xorshift32() {
  g_state ^= g_state << 13;
  g_state ^= g_state >> 17;
  g_state ^= g_state << 5;
  return g_state;
}
static uint32_t fnv1a(uint32_t h, uint32_t v) {
  for (int i = 0; i < 4; ++i) {
    h ^= (v >> (8 * i)) & 0xffu;
    h *= 16777619u;
  }
  return h;
}

__global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

// z = a*x + b*y + c: three exact terms, so the sum is exact in any order.
__global__ void axpbyc(int n, float a, float b, float c, const float* __restrict__ x,
                       const float* __restrict__ y, float* __restrict__ z) {
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    z[i] = a * x[i] + b * y[i] + c;
}

__global__ void mulxor(int n, uint32_t k, const uint32_t* __restrict__ u, uint32_t* __restrict__ v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (size_t)n;
       i += (size_t)gridDim.x * blockDim.x) {
    uint32_t t = u[i] * k + (uint32_t)i;
    v[i] = t ^ (t >> 15) ^ v[i];
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3000017;
  if (n <= 0) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  float* hx = (float*)malloc(n * sizeof(float));
  float* hy = (float*)malloc(n * sizeof(float));
  float* hz = (float*)malloc(n * sizeof(float));
  uint32_t* hu = (uint32_t*)malloc(n * sizeof(uint32_t));
  uint32_t* hv = (uint32_t*)malloc(n * sizeof(uint32_t));
  float* gy = (float*)malloc(n * sizeof(float));
  float* gz = (float*)malloc(n * sizeof(float));
  uint32_t* gv = (uint32_t*)malloc(n * sizeof(uint32_t));
  for (int i = 0; i < n; ++i) {
    hx[i] = (float)((int)(xorshift32() % 1024u) - 512) / 64.0f;  // |x| <= 8, step 1/64
    hy[i] = (float)((int)(xorshift32() % 1024u) - 512) / 64.0f;
    hu[i] = xorshift32();
    hv[i] = xorshift32();
  }
  float *dx, *dy, *dz;
  uint32_t *du, *dv;
  CHECK(hipMalloc(&dx, n * sizeof(float)));
  CHECK(hipMalloc(&dy, n * sizeof(float)));
  CHECK(hipMalloc(&dz, n * sizeof(float)));
  CHECK(hipMalloc(&du, n * sizeof(uint32_t)));
  CHECK(hipMalloc(&dv, n * sizeof(uint32_t)));
  CHECK(hipMemcpy(dx, hx, n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dy, hy, n * sizeof(float), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(du, hu, n * sizeof(uint32_t), hipMemcpyHostToDevice));
  CHECK(hipMemcpy(dv, hv, n * sizeof(uint32_t), hipMemcpyHostToDevice));

  // A deliberately small grid so each thread walks many strides.
  const int block = 256, grid = 120;
  const float a = 0.75f, b = -0.5f, c = 0.125f;
  saxpy<<<grid, block>>>(n, a, dx, dy);
  CHECK(hipGetLastError());
  axpbyc<<<grid * 2, block>>>(n, a, b, c, dx, dy, dz);
  CHECK(hipGetLastError());
  mulxor<<<(n + block - 1) / block, block>>>(n, 2654435761u, du, dv);
  CHECK(hipGetLastError());
  CHECK(hipDeviceSynchronize());
  CHECK(hipMemcpy(gy, dy, n * sizeof(float), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(gz, dz, n * sizeof(float), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(gv, dv, n * sizeof(uint32_t), hipMemcpyDeviceToHost));

  long bad = 0;
  uint32_t h = 2166136261u;
  for (int i = 0; i < n; ++i) {
    float ry = a * hx[i] + hy[i];
    float rz = a * hx[i] + b * ry + c;
    uint32_t t = hu[i] * 2654435761u + (uint32_t)i;
    uint32_t rv = t ^ (t >> 15) ^ hv[i];
    if (gy[i] != ry || gz[i] != rz || gv[i] != rv) {
      if (bad < 5)
        fprintf(stderr, "mismatch at %d: y %g/%g z %g/%g v %08x/%08x\n", i, gy[i], ry, gz[i],
                rz, gv[i], rv);
      ++bad;
    }
    // Every float here is a multiple of 1/512 below 2^12: scale to an exact integer.
    h = fnv1a(h, (uint32_t)(int32_t)(gy[i] * 512.0f));
    h = fnv1a(h, (uint32_t)(int32_t)(gz[i] * 512.0f));
    h = fnv1a(h, gv[i]);
  }
  CHECK(hipFree(dx));
  CHECK(hipFree(dy));
  CHECK(hipFree(dz));
  CHECK(hipFree(du));
  CHECK(hipFree(dv));
  free(hx); free(hy); free(hz); free(hu); free(hv); free(gy); free(gz); free(gv);
  if (bad) {
    printf("VERDICT: FAIL %ld mismatches\n", bad);
    return 1;
  }
  printf("VERDICT: PASS checksum=%08x\n", h);
  return 0;
}
