// CASS logical warps for cooperative groups: CUDA's warp-sized groups on every AMD wave size.
//
// In `--warp cuda` mode CASS translates `cooperative_groups` to `__cass_cg` and
// <cooperative_groups.h> (with its reduce.h and scan.h) to this header. The whole-block
// and grid groups are HIP's own (re-exported below); the groups that live inside a warp,
// thread_block_tile<N> for N <= 32 and coalesced_group, are built on <cass/warp.h>, so
// they are CUDA's 32-lane groups on a 64-lane wavefront too, and cg::reduce,
// cg::inclusive_scan and cg::exclusive_scan exist on every HIP (5.2 has none of them,
// nor meta_group_rank). docs/warps.md describes the model.
#pragma once

// hip_runtime.h first: HIP 5.2's cooperative groups header uses it without including it.
#include <hip/hip_runtime.h>

#include <hip/hip_cooperative_groups.h>

#include <cass/warp.h>

namespace __cass_cg {

// The whole-block, grid and multi-grid groups and the generic free functions: HIP's.
using ::cooperative_groups::grid_group;
using ::cooperative_groups::group_size;
using ::cooperative_groups::sync;
using ::cooperative_groups::this_grid;
using ::cooperative_groups::this_thread_block;
using ::cooperative_groups::thread_block;
using ::cooperative_groups::thread_group;
using ::cooperative_groups::thread_rank;
#if defined(__HIP__)
// HIP's alone (CUDA 13, under CASS's HIP-on-CUDA layer, has neither).
using ::cooperative_groups::is_valid;
using ::cooperative_groups::multi_grid_group;
using ::cooperative_groups::this_multi_grid;
#if defined(HIP_VERSION) && HIP_VERSION >= 60200000
using ::cooperative_groups::binary_partition;
#endif
#endif

namespace detail {

__device__ __forceinline__ unsigned block_rank() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

__device__ __forceinline__ unsigned block_threads() {
    return blockDim.x * blockDim.y * blockDim.z;
}

// The lane of the n-th (from 0) set bit of a mask.
__device__ __forceinline__ int nth_lane(unsigned mask, unsigned n) {
    for (; n > 0u; --n) mask &= mask - 1u;
    return __ffs(mask) - 1;
}

// The bits of `bits` at the set positions of `mask`, packed from bit 0 (a PDEP inverse).
__device__ __forceinline__ unsigned pack(unsigned bits, unsigned mask) {
    unsigned out = 0u;
    for (unsigned k = 0u; mask != 0u; ++k, mask &= mask - 1u) {
        if (bits & mask & (0u - mask)) out |= 1u << k;
    }
    return out;
}

}  // namespace detail

// A tile of N consecutive lanes of a logical 32-lane warp (CUDA's thread_block_tile<N>).
template <unsigned N, class Parent = void>
class thread_block_tile;

template <unsigned N>
class thread_block_tile<N, void> {
    static_assert(N == 1 || N == 2 || N == 4 || N == 8 || N == 16 || N == 32,
                  "thread_block_tile<N>: N must be a power of two of at most 32");

public:
    __device__ thread_block_tile(unsigned meta_rank, unsigned meta_size)
        : meta_rank_(meta_rank), meta_size_(meta_size) {}

    __device__ static constexpr unsigned num_threads() { return N; }
    __device__ static constexpr unsigned size() { return N; }
    __device__ unsigned thread_rank() const { return __cass_lane_id() & (N - 1u); }
    __device__ unsigned meta_group_rank() const { return meta_rank_; }
    __device__ unsigned meta_group_size() const { return meta_size_; }
    __device__ void sync() const { __cass_syncwarp(lanes()); }

    template <class T>
    __device__ T shfl(T var, int src_rank) const {
        return __cass_shfl(var, src_rank, static_cast<int>(N));
    }
    template <class T>
    __device__ T shfl_up(T var, unsigned delta) const {
        return __cass_shfl_up(var, delta, static_cast<int>(N));
    }
    template <class T>
    __device__ T shfl_down(T var, unsigned delta) const {
        return __cass_shfl_down(var, delta, static_cast<int>(N));
    }
    template <class T>
    __device__ T shfl_xor(T var, unsigned lane_mask) const {
        return __cass_shfl_xor(var, static_cast<int>(lane_mask), static_cast<int>(N));
    }

    // Bit r is the predicate of the tile's rank r.
    __device__ unsigned ballot(int predicate) const {
        return (__cass_ballot(predicate) >> first_lane()) & kFull;
    }
    __device__ int any(int predicate) const { return ballot(predicate) != 0u; }
    __device__ int all(int predicate) const { return ballot(!predicate) == 0u; }

    template <class T>
    __device__ unsigned match_any(T value) const {
        return __cass_match_any_sync(lanes(), value) >> first_lane();
    }
    template <class T>
    __device__ unsigned match_all(T value, int& pred) const {
        return __cass_match_all_sync(lanes(), value, &pred) >> first_lane();
    }

private:
    static constexpr unsigned kFull = N == 32u ? 0xffffffffu : (1u << N) - 1u;
    __device__ unsigned first_lane() const { return __cass_lane_id() & ~(N - 1u) & 31u; }
    __device__ unsigned lanes() const { return kFull << first_lane(); }

    unsigned meta_rank_;
    unsigned meta_size_;
};

// The typed form tiled_partition<N>(parent) returns; it converts to thread_block_tile<N>.
template <unsigned N, class Parent>
class thread_block_tile : public thread_block_tile<N, void> {
public:
    __device__ thread_block_tile(unsigned meta_rank, unsigned meta_size)
        : thread_block_tile<N, void>(meta_rank, meta_size) {}
};

template <unsigned N>
__device__ thread_block_tile<N, thread_block> tiled_partition(const thread_block& parent) {
    (void)parent;
    return thread_block_tile<N, thread_block>(detail::block_rank() / N,
                                              (detail::block_threads() + N - 1u) / N);
}

template <unsigned N, unsigned M, class P>
__device__ thread_block_tile<N, thread_block_tile<M, P>> tiled_partition(
    const thread_block_tile<M, P>& parent) {
    static_assert(N <= M, "tiled_partition<N>(tile<M>): N must not exceed M");
    return thread_block_tile<N, thread_block_tile<M, P>>(parent.thread_rank() / N, M / N);
}

// A run-time tile size gives HIP's thread_group, as CUDA's does.
__device__ inline thread_group tiled_partition(const thread_group& parent, unsigned tile_size) {
    return ::cooperative_groups::tiled_partition(parent, tile_size);
}

// The active lanes of the caller's logical warp (CUDA's coalesced_group), ranked in lane order.
class coalesced_group {
public:
    __device__ explicit coalesced_group(unsigned lanes) : lanes_(lanes) {}

    __device__ unsigned num_threads() const { return static_cast<unsigned>(__popc(lanes_)); }
    __device__ unsigned size() const { return num_threads(); }
    __device__ unsigned thread_rank() const {
        return static_cast<unsigned>(__popc(lanes_ & __cass_lanemask_lt()));
    }
    __device__ unsigned meta_group_rank() const { return 0u; }
    __device__ unsigned meta_group_size() const { return 1u; }
    __device__ void sync() const { __cass_syncwarp(lanes_); }

    template <class T>
    __device__ T shfl(T var, unsigned src_rank) const {
        return __cass_shfl(var, detail::nth_lane(lanes_, src_rank % num_threads()));
    }
    template <class T>
    __device__ T shfl_up(T var, unsigned delta) const {
        const unsigned rank = thread_rank();
        const int src = rank >= delta ? detail::nth_lane(lanes_, rank - delta)
                                      : static_cast<int>(__cass_lane_id());
        return __cass_shfl(var, src);
    }
    template <class T>
    __device__ T shfl_down(T var, unsigned delta) const {
        const unsigned rank = thread_rank();
        const int src = rank + delta < num_threads() ? detail::nth_lane(lanes_, rank + delta)
                                                     : static_cast<int>(__cass_lane_id());
        return __cass_shfl(var, src);
    }

    // Bit r is the predicate of the group's rank r.
    __device__ unsigned ballot(int predicate) const {
        return detail::pack(__cass_ballot(predicate), lanes_);
    }
    __device__ int any(int predicate) const { return (__cass_ballot(predicate) & lanes_) != 0u; }
    __device__ int all(int predicate) const { return (__cass_ballot(!predicate) & lanes_) == 0u; }

    // The caller's 32-lane mask of the group's lanes (not a CUDA member; used below).
    __device__ unsigned lanes() const { return lanes_; }

private:
    unsigned lanes_;
};

__device__ inline coalesced_group coalesced_threads() {
    return coalesced_group(__cass_activemask());
}

// ---- the operators of cooperative_groups/functional.h ------------------------------

template <class T>
struct plus {
    __device__ T operator()(const T& a, const T& b) const { return a + b; }
};
template <class T>
struct less {  // as a reduction: the lesser operand
    __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <class T>
struct greater {  // as a reduction: the greater operand
    __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
    __device__ T operator()(const T& a, const T& b) const { return a & b; }
};
template <class T>
struct bit_or {
    __device__ T operator()(const T& a, const T& b) const { return a | b; }
};
template <class T>
struct bit_xor {
    __device__ T operator()(const T& a, const T& b) const { return a ^ b; }
};

// ---- reduce and scans --------------------------------------------------------------
// A tile's lanes must all take part (as in CUDA): a butterfly and a Hillis-Steele scan.
// A coalesced group's lanes may be any: one shuffle per member, in rank order.

template <unsigned N, class P, class T, class Op>
__device__ T reduce(const thread_block_tile<N, P>& g, T value, Op op) {
    for (unsigned offset = N / 2u; offset > 0u; offset >>= 1) value = op(value, g.shfl_xor(value, offset));
    return value;
}

template <unsigned N, class P, class T, class Op>
__device__ T inclusive_scan(const thread_block_tile<N, P>& g, T value, Op op) {
    const unsigned rank = g.thread_rank();
    for (unsigned d = 1u; d < N; d <<= 1) {
        const T lower = g.shfl_up(value, d);
        if (rank >= d) value = op(lower, value);
    }
    return value;
}

// Rank 0 gets T() (CUDA leaves it undefined for operators other than plus).
template <unsigned N, class P, class T, class Op>
__device__ T exclusive_scan(const thread_block_tile<N, P>& g, T value, Op op) {
    const T inclusive = inclusive_scan(g, value, op);
    const T below = g.shfl_up(inclusive, 1u);
    return g.thread_rank() == 0u ? T() : below;
}

template <class T, class Op>
__device__ T reduce(const coalesced_group& g, T value, Op op) {
    unsigned left = g.lanes();
    T acc = __cass_shfl(value, __ffs(left) - 1);
    for (left &= left - 1u; left != 0u; left &= left - 1u) acc = op(acc, __cass_shfl(value, __ffs(left) - 1));
    return acc;
}

template <class T, class Op>
__device__ T inclusive_scan(const coalesced_group& g, T value, Op op) {
    const unsigned rank = g.thread_rank();
    unsigned left = g.lanes();
    T acc = __cass_shfl(value, __ffs(left) - 1);
    unsigned r = 1u;
    for (left &= left - 1u; left != 0u; left &= left - 1u, ++r) {
        const T next = __cass_shfl(value, __ffs(left) - 1);
        if (r <= rank) acc = op(acc, next);
    }
    return acc;
}

template <class T, class Op>
__device__ T exclusive_scan(const coalesced_group& g, T value, Op op) {
    const T inclusive = inclusive_scan(g, value, op);
    const T below = g.shfl_up(inclusive, 1u);
    return g.thread_rank() == 0u ? T() : below;
}

template <class G, class T>
__device__ T inclusive_scan(const G& g, T value) {
    return inclusive_scan(g, value, plus<T>());
}

template <class G, class T>
__device__ T exclusive_scan(const G& g, T value) {
    return exclusive_scan(g, value, plus<T>());
}

}  // namespace __cass_cg
