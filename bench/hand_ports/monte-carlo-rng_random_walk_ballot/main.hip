// Random walkers start at the origin of the square lattice and stop when
// x^2 + y^2 >= R^2. Each thread owns a walker and a xorshift32 stream (seeded
// by a hash of its index); a 32-bit draw supplies the directions of 16 steps.
// A warp leaves its loop as soon as __any_sync says no lane is still walking.
// Every 16 steps lane 0 adds __popc(__ballot_sync(alive)) to the survival
// curve, assuming 32-lane warps. Exit times, exit points, the survival curve
// and an 8-sector exit histogram are integers compared exactly with the CPU.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <hip/hip_runtime.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    hipError_t err_ = (call);                                                        \
    if (err_ != hipSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, hipGetErrorString(err_));   \
      printf("VERDICT: FAIL cuda-error\n");                                           \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

constexpr int MAX_STEPS = 2048;
constexpr int SAMPLE = 16;  // survival sampled every 16 steps
constexpr unsigned FULL = 0xffffffffu;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

__host__ __device__ inline uint32_t seed_of(uint32_t i) {
  uint32_t h = i * 0x9e3779b9u + 0x7f4a7c15u;
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x846ca68bu;
  h ^= h >> 16;
  return h ? h : 1u;  // xorshift must not start at zero
}
__host__ __device__ inline uint32_t xorshift(uint32_t& s) {
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}
// Octant of the exit point (0..7), counter-clockwise from +x, by integer tests.
__host__ __device__ inline int sector(int x, int y) {
  int q = (y >= 0) ? ((x > 0) ? 0 : 2) : ((x <= 0) ? 4 : 6);
  int ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
  bool second = (q == 0 || q == 4) ? (ay > ax) : (ax >= ay);
  return q + (second ? 1 : 0);
}

__global__ void walk(int n, int r2, int* __restrict__ exit_time, int2* __restrict__ exit_point,
                     unsigned* __restrict__ survival, unsigned* __restrict__ sectors) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  bool alive = i < n;
  uint32_t s = seed_of((uint32_t)i), bits = 0;
  int x = 0, y = 0, t_exit = -1;
  for (int t = 0; t < MAX_STEPS; ++t) {
    if (!__any(alive)) break;
    if (t % SAMPLE == 0) {
      unsigned long long b = __ballot(alive);
      if (lane == 0) atomicAdd(&survival[t / SAMPLE], (unsigned)__popcll(b));
      if (alive) bits = xorshift(s);
    }
    if (alive) {
      switch (bits & 3u) {
        case 0: ++x; break;
        case 1: --x; break;
        case 2: ++y; break;
        default: --y; break;
      }
      bits >>= 2;
      if (x * x + y * y >= r2) {
        alive = false;
        t_exit = t + 1;
        atomicAdd(&sectors[sector(x, y)], 1u);
      }
    }
  }
  if (i < n) {
    exit_time[i] = t_exit;
    exit_point[i] = make_int2(x, y);
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 131072;
  int R = argc > 2 ? atoi(argv[2]) : 12;
  if (n <= 0 || n > (1 << 24) || R < 1 || R > 40) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  const int r2 = R * R, nsamples = MAX_STEPS / SAMPLE;
  int* d_time;
  int2* d_point;
  unsigned *d_surv, *d_sect;
  CHECK(hipMalloc(&d_time, n * sizeof(int)));
  CHECK(hipMalloc(&d_point, n * sizeof(int2)));
  CHECK(hipMalloc(&d_surv, nsamples * sizeof(unsigned)));
  CHECK(hipMalloc(&d_sect, 8 * sizeof(unsigned)));
  CHECK(hipMemset(d_surv, 0, nsamples * sizeof(unsigned)));
  CHECK(hipMemset(d_sect, 0, 8 * sizeof(unsigned)));
  walk<<<(n + 127) / 128, 128>>>(n, r2, d_time, d_point, d_surv, d_sect);
  CHECK(hipGetLastError());
  CHECK(hipDeviceSynchronize());
  std::vector<int> g_time(n);
  std::vector<int2> g_point(n);
  std::vector<unsigned> g_surv(nsamples), g_sect(8);
  CHECK(hipMemcpy(g_time.data(), d_time, n * sizeof(int), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(g_point.data(), d_point, n * sizeof(int2), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(g_surv.data(), d_surv, nsamples * sizeof(unsigned), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(g_sect.data(), d_sect, 8 * sizeof(unsigned), hipMemcpyDeviceToHost));
  CHECK(hipFree(d_time));
  CHECK(hipFree(d_point));
  CHECK(hipFree(d_surv));
  CHECK(hipFree(d_sect));

  std::vector<int> time(n);
  std::vector<unsigned> surv(nsamples, 0u), sect(8, 0u);
  long long total_steps = 0;
  for (int i = 0; i < n; ++i) {
    uint32_t s = seed_of((uint32_t)i), bits = 0;
    int x = 0, y = 0, te = -1;
    for (int t = 0; t < MAX_STEPS; ++t) {
      if (t % SAMPLE == 0) bits = xorshift(s);
      switch (bits & 3u) {
        case 0: ++x; break;
        case 1: --x; break;
        case 2: ++y; break;
        default: --y; break;
      }
      bits >>= 2;
      if (x * x + y * y >= r2) {
        te = t + 1;
        break;
      }
    }
    time[i] = te;
    if (g_time[i] != te || g_point[i].x != x || g_point[i].y != y) {
      printf("VERDICT: FAIL walker %d: exit %d at (%d,%d), expected %d at (%d,%d)\n", i, g_time[i],
             g_point[i].x, g_point[i].y, te, x, y);
      return 1;
    }
    if (te > 0) sect[sector(x, y)]++;
    total_steps += te > 0 ? te : MAX_STEPS;
    // Alive at the start of step t (a multiple of SAMPLE) while t < exit time.
    int last = te > 0 ? te : MAX_STEPS;
    for (int k = 0; k < nsamples && k * SAMPLE < last; ++k) surv[k]++;
  }
  for (int k = 0; k < nsamples; ++k)
    if (g_surv[k] != surv[k]) {
      printf("VERDICT: FAIL survival at step %d: %u != %u\n", k * SAMPLE, g_surv[k], surv[k]);
      return 1;
    }
  for (int k = 0; k < 8; ++k)
    if (g_sect[k] != sect[k]) {
      printf("VERDICT: FAIL sector %d: %u != %u\n", k, g_sect[k], sect[k]);
      return 1;
    }
  printf("walkers=%d radius=%d mean_exit_time_x100=%lld survivors_at_256=%u\n", n, R,
         total_steps * 100 / n, nsamples > 16 ? surv[16] : 0u);
  uint32_t c = fnv1a(2166136261u, time.data(), n * sizeof(int));
  c = fnv1a(c, surv.data(), nsamples * sizeof(unsigned));
  c = fnv1a(c, sect.data(), 8 * sizeof(unsigned));
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
