// Direct-summation N-body. Each block loads the bodies in tiles of 256 into
// shared memory and every thread accumulates the softened acceleration of its
// body. The integrator is kick-drift-kick leapfrog. The CPU repeats it in
// double precision.
// Tolerances: the first accelerations come from identical float positions, so
// the only error is float summation and rsqrtf: bounded by n * 2^-24 times the
// sum of the magnitudes of the terms (the CPU computes that sum per body).
// Positions after a few small steps are compared with an absolute 1e-4 (the
// cluster has radius 1; float rounding of positions is about 1e-7).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    if (err_ != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_));   \
      printf("VERDICT: FAIL cuda-error\n");                                           \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

constexpr int TILE = 256;
constexpr float EPS2 = 0.0025f;  // softening length 0.05
constexpr float DT = 0.001f;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

__global__ void accelerations(const float4* __restrict__ pos, float4* __restrict__ acc, int n) {
  __shared__ float4 tile[TILE];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 pi = i < n ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
  float ax = 0.f, ay = 0.f, az = 0.f;
  for (int base = 0; base < n; base += TILE) {
    int j = base + threadIdx.x;
    // Bodies past the end get zero mass and contribute nothing.
    tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.f, 0.f, 0.f, 0.f);
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < TILE; ++k) {
      float4 pj = tile[k];
      float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
      float r2 = dx * dx + dy * dy + dz * dz + EPS2;
      float inv = rsqrtf(r2);
      float s = pj.w * inv * inv * inv;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    __syncthreads();
  }
  if (i < n) acc[i] = make_float4(ax, ay, az, 0.f);
}

// v += a*dt/2; and, when drift is set, x += v*dt.
__global__ void kick_drift(float4* __restrict__ pos, float4* __restrict__ vel,
                           const float4* __restrict__ acc, int n, int drift) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = vel[i], a = acc[i];
  v.x += 0.5f * DT * a.x;
  v.y += 0.5f * DT * a.y;
  v.z += 0.5f * DT * a.z;
  vel[i] = v;
  if (drift) {
    float4 p = pos[i];
    p.x += DT * v.x;
    p.y += DT * v.y;
    p.z += DT * v.z;
    pos[i] = p;
  }
}

struct Vec { double x, y, z; };

// CPU accelerations in double; mag[i] receives the sum of |term| per body.
static void cpu_accel(const std::vector<Vec>& x, const std::vector<double>& m, std::vector<Vec>& a,
                      std::vector<double>* mag) {
  const size_t n = x.size();
  for (size_t i = 0; i < n; ++i) {
    double ax = 0, ay = 0, az = 0, s = 0;
    for (size_t j = 0; j < n; ++j) {
      double dx = x[j].x - x[i].x, dy = x[j].y - x[i].y, dz = x[j].z - x[i].z;
      double r2 = dx * dx + dy * dy + dz * dz + (double)EPS2;
      double f = m[j] / (r2 * std::sqrt(r2));
      ax += dx * f;
      ay += dy * f;
      az += dz * f;
      s += std::sqrt(dx * dx + dy * dy + dz * dz) * f;
    }
    a[i] = {ax, ay, az};
    if (mag) (*mag)[i] = s;
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2048;
  int steps = argc > 2 ? atoi(argv[2]) : 3;
  if (n <= 0 || n > 65536 || steps < 0 || steps > 100) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  std::vector<float4> h_pos(n), h_vel(n);
  uint64_t s = 42;
  auto uni = [&s]() {  // uniform in [-1, 1)
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(s >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  };
  for (int i = 0; i < n; ++i) {
    double x, y, z;
    do {
      x = uni();
      y = uni();
      z = uni();
    } while (x * x + y * y + z * z > 1.0);
    // Masses vary by a factor of four around 1/n; a slow rotation about z.
    h_pos[i] = make_float4((float)x, (float)y, (float)z, (float)((1.0 + 1.5 * (uni() + 1.0)) / (2.5 * n)));
    h_vel[i] = make_float4((float)(-0.3 * y), (float)(0.3 * x), 0.f, 0.f);
  }

  float4 *d_pos, *d_vel, *d_acc;
  CHECK(cudaMalloc(&d_pos, n * sizeof(float4)));
  CHECK(cudaMalloc(&d_vel, n * sizeof(float4)));
  CHECK(cudaMalloc(&d_acc, n * sizeof(float4)));
  CHECK(cudaMemcpy(d_pos, h_pos.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_vel, h_vel.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  const int blocks = (n + TILE - 1) / TILE;
  accelerations<<<blocks, TILE>>>(d_pos, d_acc, n);
  CHECK(cudaGetLastError());
  std::vector<float4> g_acc0(n);
  CHECK(cudaMemcpy(g_acc0.data(), d_acc, n * sizeof(float4), cudaMemcpyDeviceToHost));
  for (int st = 0; st < steps; ++st) {
    kick_drift<<<blocks, TILE>>>(d_pos, d_vel, d_acc, n, 1);
    CHECK(cudaGetLastError());
    accelerations<<<blocks, TILE>>>(d_pos, d_acc, n);
    CHECK(cudaGetLastError());
    kick_drift<<<blocks, TILE>>>(d_pos, d_vel, d_acc, n, 0);
    CHECK(cudaGetLastError());
  }
  std::vector<float4> g_pos(n);
  CHECK(cudaMemcpy(g_pos.data(), d_pos, n * sizeof(float4), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_pos));
  CHECK(cudaFree(d_vel));
  CHECK(cudaFree(d_acc));

  // CPU leapfrog in double from the same float initial state.
  std::vector<Vec> x(n), v(n), a(n);
  std::vector<double> m(n), mag(n);
  for (int i = 0; i < n; ++i) {
    x[i] = {h_pos[i].x, h_pos[i].y, h_pos[i].z};
    v[i] = {h_vel[i].x, h_vel[i].y, h_vel[i].z};
    m[i] = h_pos[i].w;
  }
  cpu_accel(x, m, a, &mag);
  const double tol_rel = (double)n * 5.96e-8 + 4.0e-7;  // n*2^-24 plus rsqrtf's error
  for (int i = 0; i < n; ++i) {
    double e = std::fabs(g_acc0[i].x - a[i].x) + std::fabs(g_acc0[i].y - a[i].y) +
               std::fabs(g_acc0[i].z - a[i].z);
    if (e > 3.0 * tol_rel * mag[i]) {
      printf("VERDICT: FAIL initial acceleration of body %d off by %.3g (bound %.3g)\n", i, e,
             3.0 * tol_rel * mag[i]);
      return 1;
    }
  }
  const double dt = (double)DT;
  for (int st = 0; st < steps; ++st) {
    for (int i = 0; i < n; ++i) {
      v[i].x += 0.5 * dt * a[i].x;
      v[i].y += 0.5 * dt * a[i].y;
      v[i].z += 0.5 * dt * a[i].z;
      x[i].x += dt * v[i].x;
      x[i].y += dt * v[i].y;
      x[i].z += dt * v[i].z;
    }
    cpu_accel(x, m, a, nullptr);
    for (int i = 0; i < n; ++i) {
      v[i].x += 0.5 * dt * a[i].x;
      v[i].y += 0.5 * dt * a[i].y;
      v[i].z += 0.5 * dt * a[i].z;
    }
  }
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    double e = std::fmax(std::fabs(g_pos[i].x - x[i].x),
                         std::fmax(std::fabs(g_pos[i].y - x[i].y), std::fabs(g_pos[i].z - x[i].z)));
    worst = std::fmax(worst, e);
  }
  if (worst > 1e-4) {
    printf("VERDICT: FAIL final positions off by %.3g\n", worst);
    return 1;
  }
  fprintf(stderr, "largest position error %.3g\n", worst);
  // Checksum: the CPU's final positions on a 1e-3 grid.
  uint32_t c = 2166136261u;
  for (int i = 0; i < n; ++i) {
    long long q[3] = {std::llround(x[i].x * 1e3), std::llround(x[i].y * 1e3), std::llround(x[i].z * 1e3)};
    c = fnv1a(c, q, sizeof(q));
  }
  printf("bodies=%d steps=%d\n", n, steps);
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
