// Exercises the runtime's device-management surface and checks what it
// reports against what the program can verify:
//  - device count, properties and attributes agree with each other;
//  - hipMemGetInfo, hipPointerGetAttributes on device, pinned and plain
//    host memory, hipFuncGetAttributes, hipDeviceSetLimit/GetLimit;
//  - a launch with 2048 threads per block is refused (invalid configuration
//    or invalid value), and the error is cleared afterwards;
//  - a kernel opts in to 96 KiB of dynamic shared memory
//    (hipFuncSetAttribute), gathers a permutation of a whole tile from it
//    and reduces per-warp sums with lane = threadIdx.x % 32 and
//    __shfl_down_sync offsets 16..1: written for 32-lane warps;
//  - a grid-stride kernel launched with the block size proposed by
//    hipOccupancyMaxPotentialBlockSize.
// All results are integers and compared exactly with the CPU.
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
#define REQUIRE(cond, ...)                                                            \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      printf("VERDICT: FAIL " __VA_ARGS__);                                           \
      printf("\n");                                                                   \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

constexpr int TILE = 24576;  // uint32 elements: 96 KiB
constexpr int WARP = 32;
constexpr unsigned FULL = 0xffffffffu;

static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 16777619u;
  }
  return h;
}

__host__ __device__ inline uint32_t gather(const uint32_t* tile, int i) {
  return tile[(int)(((long long)i * 7919) % TILE)] ^ (tile[TILE - 1 - i] >> 3);
}

__global__ void big_tile(const uint32_t* __restrict__ in, uint32_t* __restrict__ out,
                         uint32_t* __restrict__ warp_sums) {
  extern __shared__ uint32_t tile[];
  const uint32_t* src = in + (size_t)blockIdx.x * TILE;
  for (int i = threadIdx.x; i < TILE; i += blockDim.x) tile[i] = src[i];
  __syncthreads();
  const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
  const int warps_per_block = blockDim.x / WARP;
  for (int base = 0; base < TILE; base += blockDim.x) {
    int i = base + threadIdx.x;  // TILE is a multiple of blockDim.x
    uint32_t v = gather(tile, i);
    out[(size_t)blockIdx.x * TILE + i] = v;
    for (int off = WARP / 2; off > 0; off >>= 1) v += __shfl_down(v, off, 32);
    if (lane == 0) warp_sums[((size_t)blockIdx.x * (TILE / blockDim.x) + base / blockDim.x) * warps_per_block + warp] = v;
  }
}

__global__ void sum_squares(const uint32_t* __restrict__ in, size_t n, unsigned long long* __restrict__ acc) {
  unsigned long long s = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    s += (unsigned long long)(in[i] & 0xffffu) * (in[i] & 0xffffu);
  atomicAdd(acc, s);
}

__global__ void never_runs(int* p) { p[threadIdx.x] = 1; }

int main(int argc, char** argv) {
  int tiles = argc > 1 ? atoi(argv[1]) : 48;
  if (tiles < 1 || tiles > 4096) {
    printf("VERDICT: FAIL bad-args\n");
    return 1;
  }
  int count = 0, dev = -1;
  CHECK(hipGetDeviceCount(&count));
  REQUIRE(count >= 1, "no device");
  CHECK(hipSetDevice(0));
  CHECK(hipGetDevice(&dev));
  REQUIRE(dev == 0, "hipGetDevice returned %d after hipSetDevice(0)", dev);
  hipDeviceProp_t prop;
  CHECK(hipGetDeviceProperties(&prop, 0));
  int sms = 0, warp_attr = 0, max_threads = 0, optin = 0, cc_major = 0;
  CHECK(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, 0));
  CHECK(hipDeviceGetAttribute(&warp_attr, hipDeviceAttributeWarpSize, 0));
  CHECK(hipDeviceGetAttribute(&max_threads, hipDeviceAttributeMaxThreadsPerBlock, 0));
  CHECK(hipDeviceGetAttribute(&optin, hipDeviceAttributeSharedMemPerBlockOptin, 0));
  CHECK(hipDeviceGetAttribute(&cc_major, hipDeviceAttributeComputeCapabilityMajor, 0));
  fprintf(stderr, "device 0: %s, cc %d.%d, %d SMs, %.1f GiB, opt-in shared %d bytes\n", prop.name, prop.major,
          prop.minor, sms, prop.totalGlobalMem / 1073741824.0, optin);
  REQUIRE(sms == prop.multiProcessorCount && warp_attr == prop.warpSize && cc_major == prop.major &&
              max_threads == prop.maxThreadsPerBlock,
          "attributes disagree with properties");
  REQUIRE(max_threads >= 1024, "max threads per block %d", max_threads);
  REQUIRE(optin >= TILE * 4, "opt-in shared memory %d bytes is below %d", optin, TILE * 4);

  size_t free_b = 0, total_b = 0;
  CHECK(hipMemGetInfo(&free_b, &total_b));
  REQUIRE(free_b > 0 && free_b <= total_b && total_b <= prop.totalGlobalMem + (1ull << 30), "memory info inconsistent");

  // HIP 5.2 has neither hipLimitStackSize nor hipDeviceSetLimit: the heap limit is read only.
  size_t heap = 0;
  CHECK(hipDeviceGetLimit(&heap, hipLimitMallocHeapSize));
  REQUIRE(heap > 0, "heap limit %zu", heap);

  // A bad launch configuration: the error is reported once, then cleared.
  int* d_dummy;
  CHECK(hipMalloc(&d_dummy, 4096 * sizeof(int)));
  never_runs<<<1, 2048>>>(d_dummy);
  hipError_t bad = hipGetLastError();
  // CUDA 12 reports hipErrorInvalidConfiguration here; CUDA 13 reports
  // hipErrorInvalidValue. Either is a refused launch.
  fprintf(stderr, "2048-thread launch: %s\n", hipGetErrorName(bad));
  REQUIRE(bad == hipErrorInvalidConfiguration || bad == hipErrorInvalidValue, "bad launch gave error %d", (int)bad);
  REQUIRE(hipGetLastError() == hipSuccess, "error not cleared by hipGetLastError");

  const size_t n = (size_t)tiles * TILE;
  std::vector<uint32_t> in(n);
  uint32_t s = 0xc3a5c85cu;
  for (auto& v : in) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    v = s;
  }
  uint32_t *d_in, *d_out, *d_ws, *h_pinned;
  unsigned long long* d_acc;
  const int threads = 256, warps_total = tiles * (TILE / threads) * (threads / WARP);
  CHECK(hipMalloc(&d_in, n * 4));
  CHECK(hipMalloc(&d_out, n * 4));
  CHECK(hipMalloc(&d_ws, warps_total * 4));
  CHECK(hipMalloc(&d_acc, sizeof(unsigned long long)));
  CHECK(hipHostMalloc(&h_pinned, 64, hipHostMallocDefault));
  std::vector<int> plain(16);

  hipPointerAttribute_t pa;
  CHECK(hipPointerGetAttributes(&pa, d_in));
  REQUIRE(pa.memoryType == hipMemoryTypeDevice && pa.device == 0, "device pointer reported as type %d", (int)pa.memoryType);
  CHECK(hipPointerGetAttributes(&pa, h_pinned));
  REQUIRE(pa.memoryType == hipMemoryTypeHost, "pinned pointer reported as type %d", (int)pa.memoryType);
  // HIP 5.2 has no unregistered memory type: it refuses a pageable pointer instead.
  REQUIRE(hipPointerGetAttributes(&pa, plain.data()) != hipSuccess, "pageable pointer has attributes");
  (void)hipGetLastError();

  hipFuncAttributes fa;
  CHECK(hipFuncSetAttribute(reinterpret_cast<const void*>(big_tile), hipFuncAttributeMaxDynamicSharedMemorySize, TILE * 4));
  CHECK(hipFuncGetAttributes(&fa, reinterpret_cast<const void*>(big_tile)));
  fprintf(stderr, "big_tile: %d registers, max dynamic shared %d bytes\n", fa.numRegs, fa.maxDynamicSharedSizeBytes);
  REQUIRE(fa.maxDynamicSharedSizeBytes == TILE * 4 && fa.maxThreadsPerBlock >= threads, "function attributes");

  CHECK(hipMemcpy(d_in, in.data(), n * 4, hipMemcpyHostToDevice));
  CHECK(hipMemset(d_acc, 0, sizeof(unsigned long long)));
  big_tile<<<tiles, threads, TILE * 4>>>(d_in, d_out, d_ws);
  CHECK(hipGetLastError());
  int min_grid = 0, block = 0;
  CHECK(hipOccupancyMaxPotentialBlockSize(&min_grid, &block, sum_squares, 0, 0));
  REQUIRE(block > 0 && block <= max_threads && min_grid > 0, "occupancy suggestion %d x %d", min_grid, block);
  fprintf(stderr, "occupancy: %d blocks of %d\n", min_grid, block);
  sum_squares<<<min_grid, block>>>(d_in, n, d_acc);
  CHECK(hipGetLastError());
  CHECK(hipDeviceSynchronize());
  std::vector<uint32_t> out(n), ws(warps_total);
  unsigned long long acc = 0;
  CHECK(hipMemcpy(out.data(), d_out, n * 4, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(ws.data(), d_ws, warps_total * 4, hipMemcpyDeviceToHost));
  CHECK(hipMemcpy(&acc, d_acc, sizeof(acc), hipMemcpyDeviceToHost));
  CHECK(hipFree(d_in));
  CHECK(hipFree(d_out));
  CHECK(hipFree(d_ws));
  CHECK(hipFree(d_acc));
  CHECK(hipFree(d_dummy));
  CHECK(hipHostFree(h_pinned));

  std::vector<uint32_t> ref(n), ref_ws(warps_total, 0u);
  unsigned long long ref_acc = 0;
  for (int t = 0; t < tiles; ++t)
    for (int i = 0; i < TILE; ++i) {
      uint32_t v = gather(&in[(size_t)t * TILE], i);
      ref[(size_t)t * TILE + i] = v;
      ref_ws[((size_t)t * TILE + i) / WARP] += v;  // consecutive groups of 32
    }
  for (size_t i = 0; i < n; ++i) ref_acc += (unsigned long long)(in[i] & 0xffffu) * (in[i] & 0xffffu);
  REQUIRE(out == ref, "gathered tile differs");
  for (int w = 0; w < warps_total; ++w) REQUIRE(ws[w] == ref_ws[w], "warp sum %d: %u != %u", w, ws[w], ref_ws[w]);
  REQUIRE(acc == ref_acc, "sum of squares %llu != %llu", acc, ref_acc);
  printf("warp_size=%d tiles=%d dynamic_shared_bytes=%d warp_sums=%d\n", warp_attr, tiles, TILE * 4, warps_total);
  uint32_t c = fnv1a(2166136261u, ref.data(), n * 4);
  c = fnv1a(c, ref_ws.data(), ref_ws.size() * 4);
  c = fnv1a(c, &ref_acc, sizeof(ref_acc));
  printf("VERDICT: PASS checksum=%08x\n", c);
  return 0;
}
