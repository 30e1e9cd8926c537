// Brute-force k-nearest-neighbour search in 3-D: one thread per query keeps a
// sorted list of its K best (distance, index) pairs, while the block streams
// the reference points through shared-memory tiles. Coordinates are integers,
// so squared distances are exact and ties are broken by the lower index; the
// same thread also counts points within a radius. Exact against a CPU scan.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

constexpr int K = 4, kTile = 256, kQueries = 128;
constexpr int kRadius2 = 60 * 60;

__host__ __device__ inline bool closer(int d, int i, int bd, int bi) { return d < bd || (d == bd && i < bi); }

__global__ void knn(const int4* __restrict__ pts, int np, const int4* __restrict__ qs, int nq, int* __restrict__ best_idx,
                    int* __restrict__ best_d, int* __restrict__ within) {
  __shared__ int4 tile[kTile];
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  int4 me = q < nq ? qs[q] : make_int4(0, 0, 0, 0);
  int bd[K], bi[K];
  for (int k = 0; k < K; ++k) { bd[k] = 0x7fffffff; bi[k] = 0x7fffffff; }
  int count = 0;
  for (int base = 0; base < np; base += kTile) {
    for (int t = threadIdx.x; t < kTile; t += blockDim.x)
      tile[t] = base + t < np ? pts[base + t] : make_int4(0, 0, 0, -1);
    __syncthreads();
    int lim = min(kTile, np - base);
    for (int t = 0; t < lim; ++t) {
      int dx = tile[t].x - me.x, dy = tile[t].y - me.y, dz = tile[t].z - me.z;
      int d = dx * dx + dy * dy + dz * dz, idx = base + t;
      count += d <= kRadius2;
      if (closer(d, idx, bd[K - 1], bi[K - 1])) {
        int p = K - 1;  // insertion into the sorted list
        while (p > 0 && closer(d, idx, bd[p - 1], bi[p - 1])) {
          bd[p] = bd[p - 1];
          bi[p] = bi[p - 1];
          --p;
        }
        bd[p] = d;
        bi[p] = idx;
      }
    }
    __syncthreads();
  }
  if (q < nq) {
    for (int k = 0; k < K; ++k) {
      best_idx[q * K + k] = bi[k];
      best_d[q * K + k] = bd[k];
    }
    within[q] = count;
  }
}

int main(int argc, char** argv) {
  int np = argc > 1 ? atoi(argv[1]) : 8192;
  int nq = argc > 2 ? atoi(argv[2]) : 1024;
  if (np < K || nq <= 0) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  uint32_t s = 0x428a2f98u;
  auto coord = [&s]() { s ^= s << 13; s ^= s >> 17; s ^= s << 5; return (int)(s & 1023u); };
  std::vector<int4> pts(np), qs(nq);
  for (int i = 0; i < np; ++i) {
    pts[i] = make_int4(coord(), coord(), coord(), i);
    if (i % 100 == 99) pts[i] = make_int4(pts[i - 50].x, pts[i - 50].y, pts[i - 50].z, i);  // duplicates: ties
  }
  for (int i = 0; i < nq; ++i) {
    qs[i] = make_int4(coord(), coord(), coord(), i);
    if (i % 10 == 0) qs[i] = make_int4(pts[(i * 7) % np].x, pts[(i * 7) % np].y, pts[(i * 7) % np].z, i);
  }
  int4 *dp, *dq;
  int *didx, *dd, *dwithin;
  CHECK(cudaMalloc(&dp, np * sizeof(int4)));
  CHECK(cudaMalloc(&dq, nq * sizeof(int4)));
  CHECK(cudaMalloc(&didx, nq * K * sizeof(int)));
  CHECK(cudaMalloc(&dd, nq * K * sizeof(int)));
  CHECK(cudaMalloc(&dwithin, nq * sizeof(int)));
  CHECK(cudaMemcpy(dp, pts.data(), np * sizeof(int4), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dq, qs.data(), nq * sizeof(int4), cudaMemcpyHostToDevice));
  knn<<<(nq + kQueries - 1) / kQueries, kQueries>>>(dp, np, dq, nq, didx, dd, dwithin);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> gidx(nq * K), gd(nq * K), gwithin(nq);
  CHECK(cudaMemcpy(gidx.data(), didx, nq * K * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gd.data(), dd, nq * K * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gwithin.data(), dwithin, nq * sizeof(int), cudaMemcpyDeviceToHost));

  long bad = 0, exact_hits = 0;
  uint32_t h = 2166136261u;
  for (int q = 0; q < nq; ++q) {
    int bd[K], bi[K], count = 0;
    for (int k = 0; k < K; ++k) { bd[k] = 0x7fffffff; bi[k] = 0x7fffffff; }
    for (int i = 0; i < np; ++i) {
      int dx = pts[i].x - qs[q].x, dy = pts[i].y - qs[q].y, dz = pts[i].z - qs[q].z;
      int d = dx * dx + dy * dy + dz * dz;
      count += d <= kRadius2;
      if (closer(d, i, bd[K - 1], bi[K - 1])) {
        int p = K - 1;
        while (p > 0 && closer(d, i, bd[p - 1], bi[p - 1])) { bd[p] = bd[p - 1]; bi[p] = bi[p - 1]; --p; }
        bd[p] = d;
        bi[p] = i;
      }
    }
    exact_hits += bd[0] == 0;
    for (int k = 0; k < K; ++k) {
      if ((gidx[q * K + k] != bi[k] || gd[q * K + k] != bd[k]) && bad++ < 5)
        fprintf(stderr, "query %d rank %d: gpu (%d,%d) cpu (%d,%d)\n", q, k, gd[q * K + k], gidx[q * K + k], bd[k], bi[k]);
      h = (h ^ (uint32_t)bi[k]) * 16777619u;
      h = (h ^ (uint32_t)bd[k]) * 16777619u;
    }
    if (gwithin[q] != count && bad++ < 5) fprintf(stderr, "query %d radius count %d vs %d\n", q, gwithin[q], count);
    h = (h ^ (uint32_t)count) * 16777619u;
  }
  CHECK(cudaFree(dp)); CHECK(cudaFree(dq)); CHECK(cudaFree(didx)); CHECK(cudaFree(dd)); CHECK(cudaFree(dwithin));
  if (bad) {
    printf("VERDICT: FAIL %ld mismatches\n", bad);
    return 1;
  }
  printf("queries %d, exact hits %ld\n", nq, exact_hits);
  printf("VERDICT: PASS checksum=%08x\n", h);
  return 0;
}
