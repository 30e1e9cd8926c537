// Cellular automaton on a torus, run through two CUDA graphs.
// Graph 1 is captured from a stream: step A->B, count population, bump the
// generation counter, step B->A, count, bump (six kernel nodes; the counter
// lives on the device so that replays write successive slots). It is
// replayed `launches` times.
// Graph 2 is built node by node: memset(changed) -> step(A->B, rule) ->
// diff(A, B -> changed) -> memcpy(B -> A). It runs 10 times with Conway's
// rule (B3/S23); then the step node's parameters are replaced in the
// executable graph with HighLife (B36/S23) for 10 more runs. After each run
// the number of changed cells is copied out. The CPU replays everything.
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

constexpr unsigned CONWAY_BIRTH = 1u << 3, SURVIVE = (1u << 2) | (1u << 3);
constexpr unsigned HIGHLIFE_BIRTH = (1u << 3) | (1u << 6);
constexpr int MANUAL_RUNS = 10;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

__host__ __device__ inline uint8_t next_cell(const uint8_t* g, int n, int x, int y, unsigned birth, unsigned survive) {
  int c = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      if (dx || dy) c += g[((y + dy + n) % n) * n + (x + dx + n) % n];
  return g[y * n + x] ? (uint8_t)((survive >> c) & 1u) : (uint8_t)((birth >> c) & 1u);
}

__global__ void life_step(const uint8_t* __restrict__ in, uint8_t* __restrict__ out, int n, unsigned birth,
                          unsigned survive) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n) out[y * n + x] = next_cell(in, n, x, y, birth, survive);
}

__global__ void population(const uint8_t* __restrict__ g, int n, const int* __restrict__ gen, int* __restrict__ pop) {
  __shared__ int part[256];
  int s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n * n; i += gridDim.x * blockDim.x) s += g[i];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int off = blockDim.x / 2; off > 0; off >>= 1) {
    if ((int)threadIdx.x < off) part[threadIdx.x] += part[threadIdx.x + off];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(&pop[*gen], part[0]);
}

__global__ void bump(int* gen) { *gen += 1; }

__global__ void diff(const uint8_t* __restrict__ a, const uint8_t* __restrict__ b, int n, int* __restrict__ changed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int d = (i < n * n && a[i] != b[i]) ? 1 : 0;
  d = __syncthreads_count(d);
  if (threadIdx.x == 0 && d) atomicAdd(changed, d);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 256;
  int launches = argc > 2 ? atoi(argv[2]) : 50;
  if (n < 8 || n > 4096 || launches < 1 || launches > 10000) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  const size_t cells = (size_t)n * n;
  std::vector<uint8_t> board(cells);
  uint32_t s = 0x0badcafeu;
  for (auto& c : board) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    c = (s % 100u) < 35u ? 1 : 0;
  }
  const int gens = 2 * launches;
  uint8_t *d_a, *d_b;
  int *d_gen, *d_pop, *d_changed, *h_changed;
  CHECK(hipMalloc(&d_a, cells));
  CHECK(hipMalloc(&d_b, cells));
  CHECK(hipMalloc(&d_gen, sizeof(int)));
  CHECK(hipMalloc(&d_pop, gens * sizeof(int)));
  CHECK(hipMalloc(&d_changed, sizeof(int)));
  CHECK(hipHostMalloc(&h_changed, 2 * MANUAL_RUNS * sizeof(int), hipHostMallocDefault));
  CHECK(hipMemcpy(d_a, board.data(), cells, hipMemcpyHostToDevice));
  CHECK(hipMemset(d_gen, 0, sizeof(int)));
  CHECK(hipMemset(d_pop, 0, gens * sizeof(int)));
  hipStream_t st;
  CHECK(hipStreamCreateWithFlags(&st, hipStreamNonBlocking));
  const dim3 blk(16, 16), grd((n + 15) / 16, (n + 15) / 16);

  // Graph 1: stream capture.
  hipGraph_t g1;
  CHECK(hipStreamBeginCapture(st, hipStreamCaptureModeGlobal));
  life_step<<<grd, blk, 0, st>>>(d_a, d_b, n, CONWAY_BIRTH, SURVIVE);
  population<<<64, 256, 0, st>>>(d_b, n, d_gen, d_pop);
  bump<<<1, 1, 0, st>>>(d_gen);
  life_step<<<grd, blk, 0, st>>>(d_b, d_a, n, CONWAY_BIRTH, SURVIVE);
  population<<<64, 256, 0, st>>>(d_a, n, d_gen, d_pop);
  bump<<<1, 1, 0, st>>>(d_gen);
  CHECK(hipStreamEndCapture(st, &g1));
  size_t nnodes = 0;
  CHECK(hipGraphGetNodes(g1, nullptr, &nnodes));
  if (nnodes != 6) {
    printf("VERDICT: FAIL captured graph has %zu nodes, expected 6\n", nnodes);
    return 1;
  }
  hipGraphExec_t e1;
  CHECK(hipGraphInstantiate(&e1, g1, nullptr, nullptr, 0));
  for (int l = 0; l < launches; ++l) CHECK(hipGraphLaunch(e1, st));

  // Graph 2: explicit nodes.
  hipGraph_t g2;
  CHECK(hipGraphCreate(&g2, 0));
  hipGraphNode_t n_memset, n_step, n_diff, n_copy;
  hipMemsetParams mp{};
  mp.dst = d_changed;
  mp.value = 0;
  mp.elementSize = sizeof(int);
  mp.width = 1;
  mp.height = 1;
  mp.pitch = sizeof(int);
  CHECK(hipGraphAddMemsetNode(&n_memset, g2, nullptr, 0, &mp));
  unsigned birth = CONWAY_BIRTH, survive = SURVIVE;
  int nn = n;
  void* step_args[] = {&d_a, &d_b, &nn, &birth, &survive};
  hipKernelNodeParams kp{};
  kp.func = (void*)life_step;
  kp.gridDim = grd;
  kp.blockDim = blk;
  kp.sharedMemBytes = 0;
  kp.kernelParams = step_args;
  kp.extra = nullptr;
  CHECK(hipGraphAddKernelNode(&n_step, g2, &n_memset, 1, &kp));
  void* diff_args[] = {&d_a, &d_b, &nn, &d_changed};
  hipKernelNodeParams dp{};
  dp.func = (void*)diff;
  dp.gridDim = dim3((unsigned)((cells + 255) / 256));
  dp.blockDim = dim3(256);
  dp.kernelParams = diff_args;
  CHECK(hipGraphAddKernelNode(&n_diff, g2, &n_step, 1, &dp));
  CHECK(hipGraphAddMemcpyNode1D(&n_copy, g2, &n_diff, 1, d_a, d_b, cells, hipMemcpyDeviceToDevice));
  hipGraphExec_t e2;
  CHECK(hipGraphInstantiate(&e2, g2, nullptr, nullptr, 0));
  for (int r = 0; r < 2 * MANUAL_RUNS; ++r) {
    if (r == MANUAL_RUNS) {  // switch the rule in the executable graph
      birth = HIGHLIFE_BIRTH;
      CHECK(hipGraphExecKernelNodeSetParams(e2, n_step, &kp));
    }
    CHECK(hipGraphLaunch(e2, st));
    CHECK(hipMemcpyAsync(&h_changed[r], d_changed, sizeof(int), hipMemcpyDeviceToHost, st));
  }
  CHECK(hipStreamSynchronize(st));
  std::vector<uint8_t> g_board(cells);
  std::vector<int> g_pop(gens);
  int g_gen = 0;
  CHECK(hipMemcpy(g_board.data(), d_a, cells, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(g_pop.data(), d_pop, gens * sizeof(int), hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(&g_gen, d_gen, sizeof(int), hipMemcpyDeviceToHost));
  CHECK(hipGraphExecDestroy(e1));
  CHECK(hipGraphExecDestroy(e2));
  CHECK(hipGraphDestroy(g1));
  CHECK(hipGraphDestroy(g2));
  CHECK(hipStreamDestroy(st));

  // CPU replay.
  std::vector<uint8_t> a = board, b(cells);
  std::vector<int> pop(gens), changed(2 * MANUAL_RUNS);
  auto step = [&](const std::vector<uint8_t>& in, std::vector<uint8_t>& out, unsigned bi, unsigned su) {
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) out[(size_t)y * n + x] = next_cell(in.data(), n, x, y, bi, su);
  };
  auto count = [&](const std::vector<uint8_t>& g) {
    int c = 0;
    for (uint8_t v : g) c += v;
    return c;
  };
  for (int l = 0; l < launches; ++l) {
    step(a, b, CONWAY_BIRTH, SURVIVE);
    pop[2 * l] = count(b);
    step(b, a, CONWAY_BIRTH, SURVIVE);
    pop[2 * l + 1] = count(a);
  }
  for (int r = 0; r < 2 * MANUAL_RUNS; ++r) {
    step(a, b, r < MANUAL_RUNS ? CONWAY_BIRTH : HIGHLIFE_BIRTH, SURVIVE);
    int d = 0;
    for (size_t i = 0; i < cells; ++i) d += a[i] != b[i];
    changed[r] = d;
    a = b;
  }
  if (g_gen != gens) {
    printf("VERDICT: FAIL generation counter %d, expected %d\n", g_gen, gens);
    return 1;
  }
  for (int k = 0; k < gens; ++k)
    if (g_pop[k] != pop[k]) {
      printf("VERDICT: FAIL population at generation %d: %d, expected %d\n", k + 1, g_pop[k], pop[k]);
      return 1;
    }
  for (int r = 0; r < 2 * MANUAL_RUNS; ++r)
    if (h_changed[r] != changed[r]) {
      printf("VERDICT: FAIL explicit-graph run %d changed %d cells, expected %d\n", r, h_changed[r], changed[r]);
      return 1;
    }
  if (g_board != a) {
    printf("VERDICT: FAIL final board differs\n");
    return 1;
  }
  printf("board=%dx%d generations=%d final_population=%d\n", n, n, gens + 2 * MANUAL_RUNS, count(a));
  uint32_t c = fnv1a(2166136261u, a.data(), cells);
  c = fnv1a(c, pop.data(), gens * sizeof(int));
  c = fnv1a(c, changed.data(), changed.size() * sizeof(int));
  CHECK(hipHostFree(h_changed));
  CHECK(hipFree(d_a));
  CHECK(hipFree(d_b));
  CHECK(hipFree(d_gen));
  CHECK(hipFree(d_pop));
  CHECK(hipFree(d_changed));
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
