// Metropolis Ising simulation on an L x L torus, two replicas side by side
// (blockIdx.y), at beta = 0.4407 (near critical) and beta = 0.6 (ordered).
// Sites of one colour of the checkerboard update together. Each site draws a
// 32-bit number from a hash of (replica, site, sweep, colour), so the random
// stream does not depend on the thread layout; acceptance compares it with
// integer thresholds floor(exp(-beta*dE) * 2^32) computed once on the host.
// The whole run is therefore integer-exact: the final lattices and the
// magnetisation/energy series must equal the CPU's.
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

constexpr int REPLICAS = 2;
constexpr int EVERY = 10;  // observables every EVERY sweeps

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

__host__ __device__ inline uint32_t hash4(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  uint32_t h = 0x9747b28cu ^ a;
  uint32_t k[3] = {b, c, d};
  for (int i = 0; i < 3; ++i) {
    h ^= k[i] * 0xcc9e2d51u;
    h = (h << 13) | (h >> 19);
    h = h * 5u + 0xe6546b64u;
  }
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

struct Thresholds { uint32_t t[REPLICAS][3]; };  // index dE/4 = 0 (unused), 1, 2

__host__ __device__ inline int8_t flip_site(const int8_t* s, int L, int x, int y, int r, int sweep,
                                            int color, const Thresholds& th) {
  int8_t me = s[y * L + x];
  int nb = s[y * L + (x + 1) % L] + s[y * L + (x + L - 1) % L] + s[((y + 1) % L) * L + x] +
           s[((y + L - 1) % L) * L + x];
  int dE = 2 * me * nb;  // in units of J
  if (dE <= 0) return (int8_t)-me;
  uint32_t u = hash4((uint32_t)r, (uint32_t)(y * L + x), (uint32_t)sweep, (uint32_t)color);
  return u < th.t[r][dE / 4] ? (int8_t)-me : me;
}

__global__ void metropolis(int8_t* spins, int L, int sweep, int color, Thresholds th) {
  int r = blockIdx.y;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int half = L / 2;
  if (idx >= L * half) return;
  int y = idx / half;
  int x = 2 * (idx % half) + ((y + color) & 1);
  int8_t* s = spins + (size_t)r * L * L;
  s[y * L + x] = flip_site(s, L, x, y, r, sweep, color, th);
}

__global__ void observables(const int8_t* spins, int L, int* out) {
  __shared__ int sm[256], se[256];
  int r = blockIdx.y;
  const int8_t* s = spins + (size_t)r * L * L;
  int m = 0, e = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < L * L; i += gridDim.x * blockDim.x) {
    int x = i % L, y = i / L;
    m += s[i];
    e -= s[i] * (s[y * L + (x + 1) % L] + s[((y + 1) % L) * L + x]);
  }
  sm[threadIdx.x] = m;
  se[threadIdx.x] = e;
  __syncthreads();
  for (int off = blockDim.x / 2; off > 0; off >>= 1) {
    if ((int)threadIdx.x < off) {
      sm[threadIdx.x] += sm[threadIdx.x + off];
      se[threadIdx.x] += se[threadIdx.x + off];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(&out[2 * r], sm[0]);
    atomicAdd(&out[2 * r + 1], se[0]);
  }
}

int main(int argc, char** argv) {
  int L = argc > 1 ? atoi(argv[1]) : 128;
  int sweeps = argc > 2 ? atoi(argv[2]) : 250;
  if (L < 4 || L > 2048 || L % 2 || sweeps < 1 || sweeps > 100000) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  const double betas[REPLICAS] = {0.4407, 0.6};
  Thresholds th{};
  for (int r = 0; r < REPLICAS; ++r)
    for (int k = 1; k <= 2; ++k)
      th.t[r][k] = (uint32_t)std::floor(std::exp(-betas[r] * 4.0 * k) * 4294967296.0);
  const size_t nsites = (size_t)L * L;
  std::vector<int8_t> init(REPLICAS * nsites);
  uint32_t s = 0x1badb002u;
  for (auto& v : init) {  // hot start
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    v = (s >> 31) ? 1 : -1;
  }
  const int nobs = sweeps / EVERY;

  int8_t* d_spins;
  int* d_obs;
  CHECK(cudaMalloc(&d_spins, init.size()));
  CHECK(cudaMalloc(&d_obs, (size_t)(nobs + 1) * 2 * REPLICAS * sizeof(int)));
  CHECK(cudaMemcpy(d_spins, init.data(), init.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_obs, 0, (size_t)(nobs + 1) * 2 * REPLICAS * sizeof(int)));
  const int T = 256;
  dim3 grid_upd((unsigned)((nsites / 2 + T - 1) / T), REPLICAS);
  dim3 grid_obs(32, REPLICAS);
  for (int sw = 0; sw < sweeps; ++sw) {
    for (int color = 0; color < 2; ++color) {
      metropolis<<<grid_upd, T>>>(d_spins, L, sw, color, th);
      CHECK(cudaGetLastError());
    }
    if ((sw + 1) % EVERY == 0) {
      observables<<<grid_obs, T>>>(d_spins, L, d_obs + (size_t)((sw + 1) / EVERY - 1) * 2 * REPLICAS);
      CHECK(cudaGetLastError());
    }
  }
  CHECK(cudaDeviceSynchronize());
  std::vector<int8_t> g_spins(init.size());
  std::vector<int> g_obs((size_t)nobs * 2 * REPLICAS);
  CHECK(cudaMemcpy(g_spins.data(), d_spins, init.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_obs.data(), d_obs, g_obs.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_spins));
  CHECK(cudaFree(d_obs));

  // CPU: same updates in the same colour order (within a colour the sites are
  // independent, so sequential order does not matter).
  std::vector<int8_t> spins = init;
  std::vector<int> obs((size_t)nobs * 2 * REPLICAS);
  for (int sw = 0; sw < sweeps; ++sw) {
    for (int r = 0; r < REPLICAS; ++r) {
      int8_t* sp = spins.data() + (size_t)r * nsites;
      for (int color = 0; color < 2; ++color)
        for (int y = 0; y < L; ++y)
          for (int x = (y + color) & 1; x < L; x += 2) sp[y * L + x] = flip_site(sp, L, x, y, r, sw, color, th);
      if ((sw + 1) % EVERY == 0) {
        int m = 0, e = 0;
        for (int y = 0; y < L; ++y)
          for (int x = 0; x < L; ++x) {
            int v = sp[y * L + x];
            m += v;
            e -= v * (sp[y * L + (x + 1) % L] + sp[((y + 1) % L) * L + x]);
          }
        obs[(size_t)((sw + 1) / EVERY - 1) * 2 * REPLICAS + 2 * r] = m;
        obs[(size_t)((sw + 1) / EVERY - 1) * 2 * REPLICAS + 2 * r + 1] = e;
      }
    }
  }
  for (size_t i = 0; i < spins.size(); ++i)
    if (g_spins[i] != spins[i]) {
      printf("VERDICT: FAIL replica %zu site %zu differs\n", i / nsites, i % nsites);
      return 1;
    }
  for (size_t i = 0; i < obs.size(); ++i)
    if (g_obs[i] != obs[i]) {
      printf("VERDICT: FAIL observable %zu: %d != %d\n", i, g_obs[i], obs[i]);
      return 1;
    }
  for (int r = 0; r < REPLICAS; ++r) {
    int m = nobs > 0 ? obs[(size_t)(nobs - 1) * 2 * REPLICAS + 2 * r] : 0;
    int e = nobs > 0 ? obs[(size_t)(nobs - 1) * 2 * REPLICAS + 2 * r + 1] : 0;
    printf("replica %d beta=%.4f magnetisation=%d energy=%d\n", r, betas[r], m, e);
  }
  uint32_t c = fnv1a(2166136261u, spins.data(), spins.size());
  c = fnv1a(c, obs.data(), obs.size() * sizeof(int));
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
