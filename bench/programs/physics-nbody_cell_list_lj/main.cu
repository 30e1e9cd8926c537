// Short-range Lennard-Jones forces with a cell list built on the GPU:
//   1. each particle finds its cell and takes a slot in it (atomicAdd),
//   2. one block scans the cell counts into start offsets,
//   3. particles are scattered into cell order,
//   4. each particle visits the 27 surrounding cells.
// Coordinates are integers in units of sigma/1024, so distances, the cutoff
// test and the neighbour counts are exact and compared exactly. Forces are
// sums of about 60 float terms in an order that depends on the scatter; they
// are compared with the CPU (double, its own linked-cell list) within
// 2e-5 times the sum of the magnitudes of the pair forces, far above the
// float summation bound (terms * 2^-24) and far below any wrong pair.
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

constexpr int UNIT = 1024;                 // integer units per sigma
constexpr int RC = 2560;                   // cutoff 2.5 sigma
constexpr long long RC2 = (long long)RC * RC;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

__host__ __device__ inline int wrap_delta(int d, int box) {
  if (d > box / 2) d -= box;
  if (d < -box / 2) d += box;
  return d;
}
__host__ __device__ inline int cell_coord(int x, int nc, int box) {
  return (int)(((long long)x * nc) / box);
}

__global__ void assign_cells(const int4* __restrict__ pos, int n, int nc, int box,
                             int* __restrict__ cell, int* __restrict__ slot, int* __restrict__ count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int4 p = pos[i];
  int c = (cell_coord(p.z, nc, box) * nc + cell_coord(p.y, nc, box)) * nc + cell_coord(p.x, nc, box);
  cell[i] = c;
  slot[i] = atomicAdd(&count[c], 1);
}

// Exclusive scan of ncells counts with one block (chunked per thread).
__global__ void scan_cells(const int* __restrict__ count, int ncells, int* __restrict__ start) {
  __shared__ int sums[1024];
  int t = threadIdx.x;
  int per = (ncells + blockDim.x - 1) / blockDim.x;
  int b = t * per, e = min(b + per, ncells);
  int local = 0;
  for (int i = b; i < e; ++i) local += count[i];
  sums[t] = local;
  __syncthreads();
  for (int off = 1; off < (int)blockDim.x; off <<= 1) {
    int v = t >= off ? sums[t - off] : 0;
    __syncthreads();
    sums[t] += v;
    __syncthreads();
  }
  int run = sums[t] - local;
  for (int i = b; i < e; ++i) {
    start[i] = run;
    run += count[i];
  }
  if (t == (int)blockDim.x - 1) start[ncells] = sums[t];
}

__global__ void scatter(const int* __restrict__ cell, const int* __restrict__ slot, int n,
                        const int* __restrict__ start, int* __restrict__ order) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) order[start[cell[i]] + slot[i]] = i;
}

__global__ void lj_forces(const int4* __restrict__ pos, int n, int nc, int box,
                          const int* __restrict__ start, const int* __restrict__ order,
                          float4* __restrict__ force, int* __restrict__ neighbours) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int4 p = pos[i];
  int cx = cell_coord(p.x, nc, box), cy = cell_coord(p.y, nc, box), cz = cell_coord(p.z, nc, box);
  float fx = 0.f, fy = 0.f, fz = 0.f, en = 0.f;
  int nb = 0;
  const float inv_unit = 1.0f / UNIT;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        int c = (((cz + dz + nc) % nc) * nc + (cy + dy + nc) % nc) * nc + (cx + dx + nc) % nc;
        for (int k = start[c]; k < start[c + 1]; ++k) {
          int j = order[k];
          if (j == i) continue;
          int4 q = pos[j];
          int ux = wrap_delta(q.x - p.x, box), uy = wrap_delta(q.y - p.y, box),
              uz = wrap_delta(q.z - p.z, box);
          long long r2i = (long long)ux * ux + (long long)uy * uy + (long long)uz * uz;
          if (r2i >= RC2) continue;
          ++nb;
          float r2 = (float)r2i * (inv_unit * inv_unit);  // exact: r2i < 2^24
          float inv2 = 1.0f / r2;
          float inv6 = inv2 * inv2 * inv2;
          float f = 24.0f * (2.0f * inv6 * inv6 - inv6) * inv2;  // |F|/r, repulsive > 0
          fx -= f * (ux * inv_unit);
          fy -= f * (uy * inv_unit);
          fz -= f * (uz * inv_unit);
          en += 2.0f * (inv6 * inv6 - inv6);  // half of 4(r^-12 - r^-6) per side
        }
      }
  force[i] = make_float4(fx, fy, fz, en);
  neighbours[i] = nb;
}

int main(int argc, char** argv) {
  int side = argc > 1 ? atoi(argv[1]) : 20;
  if (side < 4 || side > 64) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  // Simple cubic lattice with spacing 1.2 sigma, jittered by up to 0.15 sigma.
  const int spacing = (int)(1.2 * UNIT), box = side * spacing;
  const int nc = box / RC;  // every cell is at least RC wide
  const int n = side * side * side, ncells = nc * nc * nc;
  if (nc < 3) {
    printf("VERDICT: FAIL box too small for a 27-cell search\n");
    return 1;
  }
  std::vector<int4> pos(n);
  uint32_t s = 0xc0ffee11u;
  auto jitter = [&s]() {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return (int)(s % 307u) - 153;
  };
  for (int z = 0, i = 0; z < side; ++z)
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x, ++i) {
        auto place = [&](int c) { return ((c * spacing + spacing / 2 + jitter()) % box + box) % box; };
        int px = place(x), py = place(y), pz = place(z);
        pos[i] = make_int4(px, py, pz, 0);
      }
  int4* d_pos;
  int *d_cell, *d_slot, *d_count, *d_start, *d_order, *d_nb;
  float4* d_force;
  CHECK(cudaMalloc(&d_pos, n * sizeof(int4)));
  CHECK(cudaMalloc(&d_cell, n * sizeof(int)));
  CHECK(cudaMalloc(&d_slot, n * sizeof(int)));
  CHECK(cudaMalloc(&d_order, n * sizeof(int)));
  CHECK(cudaMalloc(&d_nb, n * sizeof(int)));
  CHECK(cudaMalloc(&d_force, n * sizeof(float4)));
  CHECK(cudaMalloc(&d_count, ncells * sizeof(int)));
  CHECK(cudaMalloc(&d_start, (ncells + 1) * sizeof(int)));
  CHECK(cudaMemcpy(d_pos, pos.data(), n * sizeof(int4), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_count, 0, ncells * sizeof(int)));
  const int T = 128, B = (n + T - 1) / T;
  assign_cells<<<B, T>>>(d_pos, n, nc, box, d_cell, d_slot, d_count);
  CHECK(cudaGetLastError());
  scan_cells<<<1, 1024>>>(d_count, ncells, d_start);
  CHECK(cudaGetLastError());
  scatter<<<B, T>>>(d_cell, d_slot, n, d_start, d_order);
  CHECK(cudaGetLastError());
  lj_forces<<<B, T>>>(d_pos, n, nc, box, d_start, d_order, d_force, d_nb);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float4> g_force(n);
  std::vector<int> g_nb(n), g_count(ncells);
  CHECK(cudaMemcpy(g_force.data(), d_force, n * sizeof(float4), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_nb.data(), d_nb, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(g_count.data(), d_count, ncells * sizeof(int), cudaMemcpyDeviceToHost));
  for (void* p : {(void*)d_pos, (void*)d_cell, (void*)d_slot, (void*)d_order, (void*)d_nb, (void*)d_force,
                  (void*)d_count, (void*)d_start})
    CHECK(cudaFree(p));
  // CPU: linked-cell lists (head/next), double precision.
  std::vector<int> head(ncells, -1), next(n), ref_count(ncells, 0);
  for (int i = 0; i < n; ++i) {
    int c = (cell_coord(pos[i].z, nc, box) * nc + cell_coord(pos[i].y, nc, box)) * nc +
            cell_coord(pos[i].x, nc, box);
    next[i] = head[c];
    head[c] = i;
    ref_count[c]++;
  }
  for (int c = 0; c < ncells; ++c)
    if (g_count[c] != ref_count[c]) {
      printf("VERDICT: FAIL cell %d holds %d particles, expected %d\n", c, g_count[c], ref_count[c]);
      return 1;
    }
  long long pairs = 0;
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    int cx = cell_coord(pos[i].x, nc, box), cy = cell_coord(pos[i].y, nc, box), cz = cell_coord(pos[i].z, nc, box);
    double fx = 0, fy = 0, fz = 0, en = 0, fmag = 0, emag = 0;
    int nb = 0;
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          int c = (((cz + dz + nc) % nc) * nc + (cy + dy + nc) % nc) * nc + (cx + dx + nc) % nc;
          for (int j = head[c]; j >= 0; j = next[j]) {
            if (j == i) continue;
            int ux = wrap_delta(pos[j].x - pos[i].x, box), uy = wrap_delta(pos[j].y - pos[i].y, box),
                uz = wrap_delta(pos[j].z - pos[i].z, box);
            long long r2i = (long long)ux * ux + (long long)uy * uy + (long long)uz * uz;
            if (r2i >= RC2) continue;
            ++nb;
            double r2 = (double)r2i / ((double)UNIT * UNIT);
            double inv6 = 1.0 / (r2 * r2 * r2);
            double f = 24.0 * (2.0 * inv6 * inv6 - inv6) / r2;
            fx -= f * ux / UNIT;
            fy -= f * uy / UNIT;
            fz -= f * uz / UNIT;
            fmag += std::fabs(f) * std::sqrt(r2);
            en += 2.0 * (inv6 * inv6 - inv6);
            emag += 2.0 * (inv6 * inv6 + inv6);
          }
        }
    if (g_nb[i] != nb) {
      printf("VERDICT: FAIL particle %d has %d neighbours, expected %d\n", i, g_nb[i], nb);
      return 1;
    }
    pairs += nb;
    double ef = std::fabs(g_force[i].x - fx) + std::fabs(g_force[i].y - fy) + std::fabs(g_force[i].z - fz);
    double ee = std::fabs(g_force[i].w - en);
    worst = std::fmax(worst, ef / (fmag + 1e-30));
    if (ef > 2e-5 * fmag + 1e-6 || ee > 2e-5 * emag + 1e-6) {
      printf("VERDICT: FAIL particle %d force error %.3g (scale %.3g), energy error %.3g\n", i, ef,
             fmag, ee);
      return 1;
    }
  }
  fprintf(stderr, "largest relative force error %.3g\n", worst);
  printf("particles=%d cells=%d neighbour_pairs=%lld\n", n, ncells, pairs / 2);
  uint32_t c = fnv1a(2166136261u, g_nb.data(), n * sizeof(int));
  c = fnv1a(c, ref_count.data(), ncells * sizeof(int));
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
