// What NVIDIA's __syncwarp does across groups of one warp (sm_90): released by a __syncwarp
// with another mask? at another call site? with exited lanes in the mask?
#include <cstdio>
#include <cstring>
__device__ __forceinline__ unsigned long long now() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
// Busy for `ns` nanoseconds of the global timer.
__device__ void spin(unsigned long long ns) {
    const unsigned long long s = now();
    while (now() - s < ns) {
    }
}

// 1: lanes 0-15 __syncwarp(full); lanes 16-31 do __syncwarp(0xffff0000) 4 times, spin 200 us, then
// __syncwarp(full). If lanes 0-15 leave before lanes 16-31's full sync: released by the other mask.
__global__ void mismatched(unsigned long long* out) {
    const int l = threadIdx.x;
    if (l < 16) {
        __syncwarp(0xffffffffu);
        out[l] = now();
    } else {
        for (int i = 0; i < 4; ++i) __syncwarp(0xffff0000u);
        spin(200000);
        out[l] = now();
        __syncwarp(0xffffffffu);
    }
}
// 2: different call sites, same mask: both groups must be released together.
__global__ void sites(unsigned long long* out) {
    const int l = threadIdx.x;
    if (l & 1) {
        spin(100000);
        out[l] = now();
        __syncwarp(0xffffffffu);
    } else {
        __syncwarp(0xffffffffu);
        out[l] = now();
    }
}
// 3: exited lanes in the mask.
__global__ void exited(unsigned long long* out) {
    const int l = threadIdx.x;
    if (l >= 20) return;
    __syncwarp(0xffffffffu);
    out[l] = 1;
    unsigned b = __ballot_sync(0xffffffffu, 1);
    out[32 + l] = b;
}
// 4: mismatched ballot: lanes 0-15 __ballot_sync(full); lanes 16-31 __syncwarp(0xffff0000)
// then later __ballot_sync(full).
__global__ void ballot_mismatch(unsigned long long* out) {
    const int l = threadIdx.x;
    if (l < 16) {
        unsigned b = __ballot_sync(0xffffffffu, 1);
        out[l] = now();
        out[32 + l] = b;
    } else {
        for (int i = 0; i < 4; ++i) __syncwarp(0xffff0000u);
        spin(200000);
        out[l] = now();
        unsigned b = __ballot_sync(0xffffffffu, 1);
        out[32 + l] = b;
    }
}
// 5: group A blocked in __syncwarp(full); group B runs a __shfl_sync(B) loop then __syncwarp(full).
__global__ void shfl_mismatch(unsigned long long* out) {
    const int l = threadIdx.x;
    if (l < 16) {
        __syncwarp(0xffffffffu);
        out[l] = now();
    } else {
        int v = l;
        for (int i = 0; i < 4; ++i) v += __shfl_sync(0xffff0000u, v, 16 + (i % 16));
        spin(200000);
        out[l] = now() + (v == -1);
        __syncwarp(0xffffffffu);
    }
}
// 6: lanes 0-15 take a branch and block in __syncwarp(full) inside it; lanes 16-31 skip it and
// call __syncwarp(full) after its end. If NVIDIA held lanes 16-31 at the branch's end until
// lanes 0-15 got there, this would hang (the process is run under a time limit).
__global__ void branch_end(unsigned long long* out) {
    const int l = threadIdx.x;
    volatile unsigned long long* o = out;
    if (l < 16) {
        for (int i = 0; i < 1000; ++i) o[32 + l] += i;  // a real branch, not predicated
        __syncwarp(0xffffffffu);
        out[l] = now();
    }
    if (l >= 16) {
        out[l] = now();
        __syncwarp(0xffffffffu);
    }
}
// 7: as 6, but lanes 16-31 have no code of their own after the branch: they reach
// __syncwarp(full) in a function both sides call after it.
__device__ __noinline__ void meet_all(unsigned long long* out, int l) {
    __syncwarp(0xffffffffu);
    out[l] += 1;
}
__global__ void branch_end_shared(unsigned long long* out) {
    const int l = threadIdx.x;
    volatile unsigned long long* o = out;
    if (l < 16) {
        for (int i = 0; i < 1000; ++i) o[32 + l] += i;
        __syncwarp(0xffffffffu);
        out[l] = now();
    }
    meet_all(out, l);
}
template <class K>
void run(const char* name, K k, int threads) {
    unsigned long long* d;
    cudaMalloc(&d, 64 * 8);
    cudaMemset(d, 0, 64 * 8);
    k<<<1, threads>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    unsigned long long h[64];
    cudaMemcpy(h, d, 64 * 8, cudaMemcpyDeviceToHost);
    printf("%s: %s\n", name, cudaGetErrorString(e));
    unsigned long long base = ~0ull;
    for (int i = 0; i < 32; ++i)
        if (h[i] > 1 && h[i] < base) base = h[i];
    for (int i = 0; i < 32; ++i)
        printf(" %d:%lld", i, h[i] > 1 ? (long long)(h[i] - base) / 1000 : (long long)h[i]);
    printf("\n ballots:");
    for (int i = 32; i < 64; ++i) printf(" %llx", h[i]);
    printf("\n");
    cudaFree(d);
}
int main(int argc, char** argv) {
    // A probe that may hang runs alone: `probe branch_end` or `probe branch_end_shared`.
    if (argc > 1) {
        if (!strcmp(argv[1], "branch_end")) run("branch_end", branch_end, 32);
        if (!strcmp(argv[1], "branch_end_shared")) run("branch_end_shared", branch_end_shared, 32);
        return 0;
    }
    for (int rep = 0; rep < 2; ++rep) {
        run("mismatched (us; lanes <16 leave before 16-31's full sync if released by another mask)",
            mismatched, 32);
        run("sites (odd lanes sync 100us late at another site)", sites, 32);
        run("exited (lanes >=20 returned)", exited, 32);
        run("ballot_mismatch", ballot_mismatch, 32);
        run("shfl_mismatch", shfl_mismatch, 32);
    }
    return 0;
}
