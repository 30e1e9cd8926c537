// RUN: cass translate %s -o %t --strategy rules --verify none --hip-version 6.2
// Built-in variables, synchronization, fences, atomics and clocks are HIP's too.
__device__ int counter;
__shared__ float tile[256];

__global__ void histogram(const int* keys, int n, unsigned* bins, float* out) {
  // CHECK: int tid = threadIdx.x + blockIdx.x * blockDim.x;
  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  // CHECK: int stride = blockDim.x * gridDim.x;
  int stride = blockDim.x * gridDim.x;
  for (int i = tid; i < n; i += stride) {
    // CHECK: atomicAdd(&bins[keys[i] & 255], 1u);
    atomicAdd(&bins[keys[i] & 255], 1u);
  }
  // CHECK: tile[threadIdx.x] = atomicExch(&out[0], 0.0f);
  tile[threadIdx.x] = atomicExch(&out[0], 0.0f);
  // CHECK: __syncthreads();
  __syncthreads();
  // CHECK: atomicMax(&counter, tid);
  atomicMax(&counter, tid);
  // CHECK: atomicMin(&counter, -tid);
  atomicMin(&counter, -tid);
  // CHECK: atomicCAS(&counter, 0, 1);
  atomicCAS(&counter, 0, 1);
  // CHECK: atomicAnd(&bins[0], 0xffu);
  atomicAnd(&bins[0], 0xffu);
  // CHECK: atomicOr(&bins[1], 1u);
  atomicOr(&bins[1], 1u);
  // CHECK: atomicXor(&bins[2], 3u);
  atomicXor(&bins[2], 3u);
  // CHECK: atomicInc(&bins[3], 100u);
  atomicInc(&bins[3], 100u);
  // CHECK: atomicDec(&bins[4], 100u);
  atomicDec(&bins[4], 100u);
  // CHECK: __threadfence();
  __threadfence();
  // CHECK: __threadfence_block();
  __threadfence_block();
  // CHECK: __threadfence_system();
  __threadfence_system();
  // CHECK: int all = __syncthreads_count(tid & 1) + __syncthreads_and(tid > 0) + __syncthreads_or(tid == 0);
  int all = __syncthreads_count(tid & 1) + __syncthreads_and(tid > 0) + __syncthreads_or(tid == 0);
  // CHECK: long long t0 = clock64();
  long long t0 = clock64();
  // CHECK: out[tid] = tile[threadIdx.x] + all + (float)(clock64() - t0) + __ldg(&out[0]);
  out[tid] = tile[threadIdx.x] + all + (float)(clock64() - t0) + __ldg(&out[0]);
}
