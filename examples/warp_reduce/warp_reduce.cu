// Sum of a vector with a block-wide reduction built from warp shuffles: the
// kind of kernel that compiles on AMD as-is and silently sums half the lanes.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                          \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,          \
                         cudaGetErrorString(err_));                          \
            std::exit(1);                                                    \
        }                                                                    \
    } while (0)

constexpr int kBlock = 256;

__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__global__ void block_sum(const float* __restrict__ in, float* out, int n) {
    __shared__ float partial[kBlock / 32];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x / 32;
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += in[i];
    v = warp_sum(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < kBlock / 32 ? partial[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}

int main() {
    const int n = 1 << 20;
    std::vector<float> host(n);
    for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i % 7);
    float *in = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&in, n * sizeof(float)));
    CHECK(cudaMalloc(&out, sizeof(float)));
    CHECK(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(out, 0, sizeof(float)));
    block_sum<<<128, kBlock>>>(in, out, n);
    CHECK(cudaGetLastError());
    float sum = 0.0f;
    CHECK(cudaMemcpy(&sum, out, sizeof(float), cudaMemcpyDeviceToHost));
    double expect = 0.0;
    for (float x : host) expect += x;
    std::printf("VERDICT: %s sum=%.0f expected=%.0f\n",
                sum == static_cast<float>(expect) ? "PASS" : "FAIL", sum, expect);
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    return sum == static_cast<float>(expect) ? 0 : 1;
}
