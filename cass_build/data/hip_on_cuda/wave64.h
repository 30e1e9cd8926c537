// Wave64 mode of CASS's HIP-on-CUDA layer: AMD's 64-lane wavefronts on NVIDIA's 32-lane warps.
//
// Built with -DCASS_WAVE=64, translated HIP runs as on a CDNA GPU (gfx90a, gfx942), where a
// wavefront has 64 lanes: code that assumes 32 lanes computes there what it would compute on
// AMD, usually something wrong, instead of what it computes on a 32-lane NVIDIA warp. Without
// CASS_WAVE (or with CASS_WAVE=32) this file defines nothing.
//
// A virtual wave is two adjacent warps of a block: threads 64w .. 64w+63 in the block's linear
// order (x fastest), which is how both vendors cut blocks into warps and wavefronts. Every wave
// operation is a meeting of the two halves: each lane leaves its value in a per-block shared
// scratch area, the two halves meet, each lane reads what the operation asks for, and the two
// halves part. docs/hip_on_cuda.md lists what is emulated and what is not.
//
// Why a meeting protocol and not `bar.sync id, 64`: on AMD, one half of a wave may skip a wave
// operation (a branch taken by lanes 0-31 only, lanes that returned early, a kernel that lets
// warp 0 finish a reduction alone); the operation then runs with the other half's lanes
// inactive. A named barrier would wait forever for the absent half. Here the half that
// arrives registers in a per-wave word changed only by compare-and-swap, and proceeds alone,
// as AMD's inactive lanes do, once the other half is known to be elsewhere: waiting at a wave
// operation later in the source, in __syncthreads(), or silent for CASS_WAVE64_PATIENCE polls
// (it returned, or is in a branch with no wave operation). Shared memory is not initialised
// at block start, so the word carries a tag of the grid launch and block; a word with another
// tag is fresh.
//
// Included by the generated layer.h after the generated names, so CUDA spellings are used
// here and HIP names defined by the tables can be redefined.
#pragma once

#if defined(CASS_WAVE) && CASS_WAVE != 32 && CASS_WAVE != 64
#error "CASS_WAVE must be 32 (NVIDIA's warps, the default) or 64 (AMD's wavefronts, emulated)"
#endif

#if defined(CASS_WAVE) && CASS_WAVE == 64
#define CASS_WAVE64 1

#include <cstdio>
#include <cstring>
#include <type_traits>

// Polls before a silent half counts as absent (a few milliseconds on an H200): polls, not a
// clock, so a GPU time-sliced between processes does not run the patience out. A half that
// returned costs this once per wave; a half still computing for longer is taken as gone.
#ifndef CASS_WAVE64_PATIENCE
#define CASS_WAVE64_PATIENCE 16384u
#endif
// Polls after which the protocol itself is stuck: a bug, reported with a trap.
#ifndef CASS_WAVE64_STUCK
#define CASS_WAVE64_STUCK (1u << 22)
#endif

// AMD's compile-time wavefront size, which warp-size-agnostic HIP code may test.
#ifndef __AMDGCN_WAVEFRONT_SIZE
#define __AMDGCN_WAVEFRONT_SIZE 64
#endif

__device__ constexpr int cass_wave64_warp_size = 64;

namespace cass_wave64 {

typedef unsigned long long u64;

// The per-wave word: tag (bits 0-31), then phase, done, absent[2], barrier[2], poke, site.
enum : unsigned { kEmpty = 0, kWait0 = 1, kWait1 = 2, kPaired = 3, kRelease0 = 4, kRelease1 = 5 };

struct word_state {
    unsigned phase;    // kEmpty, kWait0 + h (half h waits at `site`), kPaired, kRelease0 + h
    unsigned done;     // kPaired: one half has finished reading
    unsigned absent;   // bit h: half h timed out once; it clears the bit when it shows up
    unsigned barrier;  // bit h: half h is in __syncthreads()
    unsigned poke;     // flipped by a half that goes alone past a waiting one: it is alive
    unsigned site;     // the source line of the operation a waiting half is at
};

__device__ __forceinline__ word_state decode(u64 word, unsigned tag) {
    word_state s = {kEmpty, 0u, 0u, 0u, 0u, 0u};
    if (static_cast<unsigned>(word) != tag) return s;  // left by another block: fresh
    const unsigned hi = static_cast<unsigned>(word >> 32);
    s.phase = hi & 7u;
    s.done = (hi >> 3) & 1u;
    s.absent = (hi >> 4) & 3u;
    s.barrier = (hi >> 6) & 3u;
    s.poke = (hi >> 8) & 1u;
    s.site = hi >> 16;
    return s;
}

__device__ __forceinline__ u64 encode(const word_state& s, unsigned tag) {
    const unsigned hi = s.phase | (s.done << 3) | (s.absent << 4) | (s.barrier << 6) |
                        (s.poke << 8) | ((s.site & 0xffffu) << 16);
    return (static_cast<u64>(hi) << 32) | tag;
}

struct half_slots {
    unsigned lane[32];  // one 32-bit word per lane
    unsigned mask;      // the lanes of this half that took part
    unsigned word;      // one word for the whole half (its ballot)
};

struct wave_slots {
    u64 word;
    half_slots half[2];
};

// 16 waves of 64 lanes: the largest block. 4480 bytes of static shared memory, in kernels
// that use a wave operation only.
__device__ __forceinline__ wave_slots* scratch() {
    __shared__ wave_slots waves[16];
    return waves;
}

struct place {
    unsigned wave;  // wave in the block
    unsigned half;  // 0: lanes 0-31 of the wave, 1: lanes 32-63
    unsigned lane;  // lane in the 32-lane warp
    bool pair;      // the wave has a second warp (a block's last wave may not)
};

__device__ __forceinline__ place where() {
    const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const unsigned n = blockDim.x * blockDim.y * blockDim.z;
    place p;
    p.wave = t >> 6;
    p.half = (t >> 5) & 1u;
    p.lane = t & 31u;
    p.pair = (t & ~63u) + 32u < n;
    return p;
}

__device__ __forceinline__ unsigned lane64() {
    return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 63u;
}

// A tag for this block of this launch (never 0): %gridid numbers the launches of a context.
__device__ __forceinline__ unsigned block_tag() {
    u64 grid = 0;
#if defined(__CUDA_ARCH__)
    asm volatile("mov.u64 %0, %%gridid;" : "=l"(grid));
#endif
    const u64 block = blockIdx.x + static_cast<u64>(gridDim.x) *
                                       (blockIdx.y + static_cast<u64>(gridDim.y) * blockIdx.z);
    u64 h = grid * 0x9E3779B97F4A7C15ull ^ block * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return static_cast<unsigned>(h) | 1u;
}

__device__ __noinline__ void stuck(const char* what, unsigned site) {
    printf(
        "CASS wave64: block (%u,%u,%u) thread (%u,%u,%u): %s (line %u); the wave emulation "
        "lost step\n",
        blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, what, site);
    __trap();
}

__device__ __forceinline__ u64 load(const u64* word) {
    return *reinterpret_cast<const volatile u64*>(word);
}

__device__ __forceinline__ bool swap(u64* word, u64 seen, u64 next) {
    return atomicCAS(word, seen, next) == seen;
}

__device__ __forceinline__ void pause(unsigned polls, unsigned site) {
    if (polls >= CASS_WAVE64_STUCK) stuck("a wave operation waited too long", site);
    if (polls >= 64u) __nanosleep(polls < 1024u ? 64u : 256u);
}

// Wait until no pairing is being read: the other half may still read this half's slots.
__device__ inline void settle(u64* word, unsigned tag, unsigned site) {
    for (unsigned polls = 0;; ++polls) {
        if (decode(load(word), tag).phase != kPaired) return;
        pause(polls, site);
    }
}

// Run by one lane of half h once its slots are written: true when the other half takes part
// in this operation, false when this half goes alone.
__device__ inline bool rendezvous(u64* word, unsigned tag, unsigned h, unsigned site) {
    const unsigned o = h ^ 1u;
    for (unsigned polls = 0;; ++polls) {
        const u64 seen = load(word);
        const word_state s = decode(seen, tag);
        word_state next = s;
        next.absent &= ~(1u << h);  // this half is here
        if (s.phase == kEmpty) {
            if ((s.absent | s.barrier) & (1u << o)) {  // the other half is elsewhere
                if (next.absent == s.absent || swap(word, seen, encode(next, tag))) return false;
                continue;
            }
            next.phase = kWait0 + h;
            next.site = site & 0xffffu;
            if (swap(word, seen, encode(next, tag))) break;
            continue;
        }
        if (s.phase == kWait0 + o) {
            if (s.site == (site & 0xffffu)) {
                next.phase = kPaired;
                next.done = 0;
                if (swap(word, seen, encode(next, tag))) return true;
            } else if (s.site < (site & 0xffffu)) {
                // The halves are at different operations, as when one half skipped a branch
                // that the other is in. Source order stands for program order: the earlier
                // operation runs alone, and the half at the later one waits for the other
                // to come there (AMD's reconvergence).
                next.phase = kRelease0 + o;
                swap(word, seen, encode(next, tag));  // then wait for the pickup, and register
            } else {
                next.poke ^= 1u;  // go alone; the waiting half sees that this one is alive
                if (swap(word, seen, encode(next, tag))) return false;
            }
            continue;
        }
        if (s.phase != kRelease0 + o) stuck("a wave operation found its wave in a bad state", site);
        pause(polls, site);  // the other half has yet to notice its release
    }
    u64 last = 0;
    for (unsigned polls = 0;; ++polls) {
        const u64 seen = load(word);
        if (seen != last) polls = 0;  // the other half did something: it is alive
        last = seen;
        const word_state s = decode(seen, tag);
        if (s.phase == kPaired) return true;
        word_state next = s;
        next.phase = kEmpty;
        if (s.phase == kRelease0 + h) {
            if (swap(word, seen, encode(next, tag))) return false;
            continue;
        }
        if (s.phase != kWait0 + h) stuck("a waiting wave operation lost its registration", site);
        const bool in_barrier = (s.barrier >> o) & 1u;
        if (in_barrier || polls >= CASS_WAVE64_PATIENCE) {
            if (!in_barrier) next.absent |= 1u << o;
            if (swap(word, seen, encode(next, tag))) return false;
            continue;
        }
        pause(polls, site);
    }
}

// Run by one lane of each half after a pairing, once its lanes have read.
__device__ inline void part(u64* word, unsigned tag, unsigned site) {
    for (;;) {
        const u64 seen = load(word);
        const word_state s = decode(seen, tag);
        if (s.phase != kPaired) stuck("a paired wave operation lost its pairing", site);
        word_state next = s;
        next.done = s.done ? 0u : 1u;
        if (s.done) next.phase = kEmpty;
        if (swap(word, seen, encode(next, tag))) return;
    }
}

// One wave operation as seen by one half: after meet() every lane of the half can read both
// halves' slots; `other` holds the other half's taking-part lanes (0 when it did not take
// part, or does not exist); leave() ends the reading.
struct meeting {
    wave_slots* w;
    unsigned half;
    unsigned lane;
    unsigned mask;   // this half's lanes taking part (its active lanes)
    unsigned other;  // the other half's, or 0
    unsigned leader;
    unsigned site;
    bool paired;

    __device__ unsigned read(unsigned src64) const {
        const unsigned h = (src64 >> 5) & 1u;
        const unsigned l = src64 & 31u;
        const unsigned active = h == half ? mask : other;
        if (!((active >> l) & 1u)) return 0u;  // an inactive lane reads 0, as ds_bpermute does
        return reinterpret_cast<const volatile unsigned*>(w->half[h].lane)[l];
    }

    __device__ unsigned other_word() const {
        return paired ? *reinterpret_cast<const volatile unsigned*>(&w->half[half ^ 1u].word) : 0u;
    }
};

__device__ inline meeting meet(unsigned site, unsigned mask, unsigned value, unsigned half_word) {
    const place p = where();
    meeting g;
    g.w = scratch() + p.wave;
    g.half = p.half;
    g.lane = p.lane;
    g.mask = mask;
    g.other = 0u;
    g.leader = __ffs(mask) - 1;
    g.site = site;
    g.paired = false;
    half_slots& mine = g.w->half[p.half];
    unsigned tag = 0u;
    if (p.pair) {
        tag = block_tag();
        if (p.lane == g.leader) {
            settle(&g.w->word, tag, site);
            __threadfence_block();  // the other half's reads of these slots come first
        }
    }
    __syncwarp(mask);
    mine.lane[p.lane] = value;
    if (p.lane == g.leader) {
        mine.mask = mask;
        mine.word = half_word;
    }
    __syncwarp(mask);
    if (!p.pair) return g;
    int paired = 0;
    if (p.lane == g.leader) {
        __threadfence_block();
        paired = rendezvous(&g.w->word, tag, p.half, site);
        __threadfence_block();
    }
    g.paired = __shfl_sync(mask, paired, g.leader) != 0;
    __syncwarp(mask);  // a shuffle orders no memory: the leader's view passes to every lane here
    if (g.paired)
        g.other = *reinterpret_cast<const volatile unsigned*>(&g.w->half[p.half ^ 1u].mask);
    return g;
}

__device__ inline void leave(const meeting& g) {
    __syncwarp(g.mask);
    if (g.paired && g.lane == g.leader) {
        __threadfence_block();
        part(&g.w->word, block_tag(), g.site);
    }
    // Reconverge: with independent thread scheduling the other lanes would run ahead of the
    // leader into the next operation, whose __activemask() would then miss the leader and
    // split this half into two meetings (seen on an H200: the wave lost step and trapped).
    __syncwarp(g.mask);
}

// The value of `var` in lane `src64` of the wave (0 where that lane is inactive).
template <class T>
__device__ inline T fetch(unsigned site, T var, unsigned src64) {
    static_assert(sizeof(T) <= 8, "HIP-on-CUDA wave64: shuffles move at most 8 bytes");
    unsigned in[2] = {0u, 0u};
    unsigned out[2] = {0u, 0u};
    memcpy(in, &var, sizeof(T));
    const unsigned mask = __activemask();
    for (unsigned k = 0; k < (sizeof(T) + 3) / 4; ++k) {
        const meeting g = meet(site, mask, in[k], 0u);
        out[k] = g.read(src64 & 63u);
        leave(g);
    }
    T result;
    memcpy(&result, out, sizeof(T));
    return result;
}

// HIP's source lanes (amd_warp_functions.h); ds_bpermute wraps them to 0-63.
__device__ __forceinline__ unsigned src_shfl(int self, int src, int width) {
    return static_cast<unsigned>((src & (width - 1)) + (self & ~(width - 1)));
}
__device__ __forceinline__ unsigned src_up(int self, unsigned delta, int width) {
    const int index = self - static_cast<int>(delta);
    return static_cast<unsigned>(index < (self & ~(width - 1)) ? self : index);
}
__device__ __forceinline__ unsigned src_down(int self, unsigned delta, int width) {
    const int index = self + static_cast<int>(delta);
    return static_cast<unsigned>(static_cast<int>((self & (width - 1)) + delta) >= width ? self
                                                                                         : index);
}
__device__ __forceinline__ unsigned src_xor(int self, int lane_mask, int width) {
    const int index = self ^ lane_mask;
    return static_cast<unsigned>(index >= ((self + width) & ~(width - 1)) ? self : index);
}

struct votes {
    u64 ballot;
    u64 active;
};

__device__ inline votes vote(unsigned site, int predicate) {
    const unsigned mask = __activemask();
    const unsigned mine = __ballot_sync(mask, predicate);
    const meeting g = meet(site, mask, 0u, mine);
    const unsigned theirs = g.other_word();
    const unsigned other = g.other;
    leave(g);
    votes v;
    if (g.half == 0) {
        v.ballot = static_cast<u64>(theirs) << 32 | mine;
        v.active = static_cast<u64>(other) << 32 | mask;
    } else {
        v.ballot = static_cast<u64>(mine) << 32 | theirs;
        v.active = static_cast<u64>(mask) << 32 | other;
    }
    return v;
}

template <class M>
__device__ __forceinline__ u64 wide(M mask) {
    static_assert(std::is_integral<M>::value, "HIP-on-CUDA wave64: a lane mask is an integer");
    return static_cast<u64>(mask);
}

// Lanes of the wave holding the same value as this lane (a value of up to 8 bytes).
template <class T>
__device__ inline u64 match(unsigned site, T value) {
    static_assert(sizeof(T) <= 8, "HIP-on-CUDA wave64: match takes values of at most 8 bytes");
    unsigned in[2] = {0u, 0u};
    memcpy(in, &value, sizeof(T));
    const unsigned mask = __activemask();
    u64 same = ~0ull;
    for (unsigned k = 0; k < (sizeof(T) + 3) / 4; ++k) {
        const meeting g = meet(site, mask, in[k], 0u);
        u64 bits = 0;
        for (unsigned l = 0; l < 64; ++l) {
            const unsigned h = l >> 5;
            const unsigned active = h == g.half ? g.mask : g.other;
            if (((active >> (l & 31u)) & 1u) && g.read(l) == in[k]) bits |= 1ull << l;
        }
        leave(g);
        same &= bits;
    }
    return same;
}

template <class T, class Op>
__device__ inline T reduce(unsigned site, u64 lanes, T value, Op op) {
    static_assert(sizeof(T) == 4, "HIP-on-CUDA wave64: __reduce_*_sync takes 32-bit integers");
    unsigned in = 0u;
    memcpy(&in, &value, 4);
    const meeting g = meet(site, __activemask(), in, 0u);
    const u64 active = g.half == 0 ? static_cast<u64>(g.other) << 32 | g.mask
                                   : static_cast<u64>(g.mask) << 32 | g.other;
    lanes &= active;
    bool first = true;
    T acc = value;
    for (unsigned l = 0; l < 64; ++l) {
        if (!((lanes >> l) & 1ull)) continue;
        const unsigned bits = g.read(l);
        T x;
        memcpy(&x, &bits, 4);
        acc = first ? x : op(acc, x);
        first = false;
    }
    leave(g);
    return acc;
}

// The wave operations, called through macros that pass the source line (the `site` that
// tells the two halves whether they are at the same operation).
struct at {
    unsigned site;

    template <class T>
    __device__ T shfl(T var, int src_lane, int width = 64) const {
        return fetch(site, var, src_shfl(static_cast<int>(lane64()), src_lane, width));
    }
    template <class T>
    __device__ T shfl_up(T var, unsigned delta, int width = 64) const {
        return fetch(site, var, src_up(static_cast<int>(lane64()), delta, width));
    }
    template <class T>
    __device__ T shfl_down(T var, unsigned delta, int width = 64) const {
        return fetch(site, var, src_down(static_cast<int>(lane64()), delta, width));
    }
    template <class T>
    __device__ T shfl_xor(T var, int lane_mask, int width = 64) const {
        return fetch(site, var, src_xor(static_cast<int>(lane64()), lane_mask, width));
    }

    // HIP 7's _sync forms run over the active lanes whatever the mask (amd_warp_sync_functions.h).
    template <class M, class T>
    __device__ T shfl_sync(M mask, T var, int src_lane, int width = 64) const {
        (void)wide(mask);
        return shfl(var, src_lane, width);
    }
    template <class M, class T>
    __device__ T shfl_up_sync(M mask, T var, unsigned delta, int width = 64) const {
        (void)wide(mask);
        return shfl_up(var, delta, width);
    }
    template <class M, class T>
    __device__ T shfl_down_sync(M mask, T var, unsigned delta, int width = 64) const {
        (void)wide(mask);
        return shfl_down(var, delta, width);
    }
    template <class M, class T>
    __device__ T shfl_xor_sync(M mask, T var, int lane_mask, int width = 64) const {
        (void)wide(mask);
        return shfl_xor(var, lane_mask, width);
    }

    __device__ u64 ballot(int predicate) const { return vote(site, predicate).ballot; }
    __device__ int all(int predicate) const {
        const votes v = vote(site, predicate);
        return v.ballot == v.active;
    }
    __device__ int any(int predicate) const { return vote(site, predicate).ballot != 0; }
    __device__ u64 activemask() const { return vote(site, 1).active; }

    template <class M>
    __device__ u64 ballot_sync(M mask, int predicate) const {
        return vote(site, predicate).ballot & wide(mask);
    }
    template <class M>
    __device__ int all_sync(M mask, int predicate) const {
        return (vote(site, predicate).ballot & wide(mask)) == wide(mask);
    }
    template <class M>
    __device__ int any_sync(M mask, int predicate) const {
        return (vote(site, predicate).ballot & wide(mask)) != 0;
    }

    template <class M, class T>
    __device__ u64 match_any_sync(M mask, T value) const {
        return match(site, value) & wide(mask);
    }
    template <class M, class T>
    __device__ u64 match_all_sync(M mask, T value, int* pred) const {
        const u64 want = wide(mask) & vote(site, 1).active;
        const bool all_same = (match(site, value) & want) == want;
        *pred = all_same;
        return all_same ? wide(mask) : 0ull;
    }

    template <class M, class T>
    __device__ T reduce_add_sync(M mask, T value) const {
        return reduce(site, wide(mask), value, [](T a, T b) { return a + b; });
    }
    template <class M, class T>
    __device__ T reduce_min_sync(M mask, T value) const {
        return reduce(site, wide(mask), value, [](T a, T b) { return b < a ? b : a; });
    }
    template <class M, class T>
    __device__ T reduce_max_sync(M mask, T value) const {
        return reduce(site, wide(mask), value, [](T a, T b) { return a < b ? b : a; });
    }
    template <class M, class T>
    __device__ T reduce_and_sync(M mask, T value) const {
        return reduce(site, wide(mask), value, [](T a, T b) { return a & b; });
    }
    template <class M, class T>
    __device__ T reduce_or_sync(M mask, T value) const {
        return reduce(site, wide(mask), value, [](T a, T b) { return a | b; });
    }
    template <class M, class T>
    __device__ T reduce_xor_sync(M mask, T value) const {
        return reduce(site, wide(mask), value, [](T a, T b) { return a ^ b; });
    }

    // A wave-level barrier with memory ordering: AMD's wavefront runs in lockstep, so
    // whatever one lane wrote before it, every lane of the wave sees after it.
    __device__ void syncwarp() const { leave(meet(site, __activemask(), 0u, 0u)); }
    template <class M>
    __device__ void syncwarp(M mask) const {
        (void)wide(mask);
        syncwarp();
    }
    // HIP before 7.0 has no __syncwarp; CASS translates it to __threadfence_block(), which
    // a lockstep wavefront makes a wave barrier too.
    __device__ void threadfence_block() const {
        __threadfence_block();
        syncwarp();
    }
};

// __syncthreads(): each half says it is in the block barrier, so that a half waiting at a
// wave operation goes alone at once instead of waiting out its patience.
__device__ inline void block_barrier() {
    const place p = where();
    unsigned mask = 0u;
    unsigned tag = 0u;
    u64* word = nullptr;
    if (p.pair) {
        mask = __activemask();
        tag = block_tag();
        word = &scratch()[p.wave].word;
        if (p.lane == static_cast<unsigned>(__ffs(mask) - 1)) {
            for (;;) {
                const u64 seen = load(word);
                word_state s = decode(seen, tag);
                s.barrier |= 1u << p.half;
                s.absent &= ~(1u << p.half);
                if (swap(word, seen, encode(s, tag))) break;
            }
        }
    }
    __syncthreads();
    if (p.pair && p.lane == static_cast<unsigned>(__ffs(mask) - 1)) {
        // Both halves have passed this barrier: both marks are stale.
        for (;;) {
            const u64 seen = load(word);
            word_state s = decode(seen, tag);
            s.barrier = 0u;
            if (swap(word, seen, encode(s, tag))) break;
        }
    }
    if (p.pair) __syncwarp(mask);  // as in leave(): no lane runs ahead of the leader
}

// hipDeviceProp_t with HIP's warpSize (the macro below renames the member, which CUDA's
// struct, declared before it, keeps under its own name).
struct device_prop : cudaDeviceProp {
    int cass_wave64_warp_size;
};

inline cudaError_t get_device_properties(device_prop* prop, int device) {
    const cudaError_t status = cudaGetDeviceProperties(prop, device);
    prop->cass_wave64_warp_size = 64;
    return status;
}
inline cudaError_t get_device_properties(cudaDeviceProp* prop, int device) {
    return cudaGetDeviceProperties(prop, device);
}

inline cudaError_t device_attribute(int* value, cudaDeviceAttr attribute, int device) {
    const cudaError_t status = cudaDeviceGetAttribute(value, attribute, device);
    if (status == cudaSuccess && attribute == cudaDevAttrWarpSize) *value = 64;
    return status;
}

}  // namespace cass_wave64

__device__ __forceinline__ cass_wave64::at cass_wave64_at(unsigned site) {
    return cass_wave64::at{site};
}

// HIP's __any(); a plain name because libstdc++ and libcu++ use `__any` as an identifier.
__device__ inline int cass_wave64_any(int predicate) {
    return cass_wave64::vote(0xffffu, predicate).ballot != 0;
}

__device__ inline void cass_wave64_syncthreads() { cass_wave64::block_barrier(); }

// HIP's lane functions (amd_device_functions.h), which CUDA does not have.
__device__ inline unsigned __lane_id() { return cass_wave64::lane64(); }
__device__ inline unsigned long long __lanemask_lt() {
    return (1ull << cass_wave64::lane64()) - 1ull;
}
__device__ inline unsigned long long __lanemask_gt() {
    const unsigned lane = cass_wave64::lane64();
    return lane == 63u ? 0ull : ~0ull << (lane + 1u);
}
__device__ inline unsigned long long __lanemask_eq() { return 1ull << cass_wave64::lane64(); }

// From here on, HIP's names mean the 64-lane operations. The generated public headers
// suspend these macros around the CUDA headers they include (wave64_suspend.h).
#undef __ballot
#undef __all
#undef __any
#define warpSize cass_wave64_warp_size
#define __shfl cass_wave64_at(__LINE__).shfl
#define __shfl_up cass_wave64_at(__LINE__).shfl_up
#define __shfl_down cass_wave64_at(__LINE__).shfl_down
#define __shfl_xor cass_wave64_at(__LINE__).shfl_xor
#define __shfl_sync cass_wave64_at(__LINE__).shfl_sync
#define __shfl_up_sync cass_wave64_at(__LINE__).shfl_up_sync
#define __shfl_down_sync cass_wave64_at(__LINE__).shfl_down_sync
#define __shfl_xor_sync cass_wave64_at(__LINE__).shfl_xor_sync
#define __ballot cass_wave64_at(__LINE__).ballot
#define __all cass_wave64_at(__LINE__).all
#define __any cass_wave64_any
#define __activemask cass_wave64_at(__LINE__).activemask
#define __ballot_sync cass_wave64_at(__LINE__).ballot_sync
#define __all_sync cass_wave64_at(__LINE__).all_sync
#define __any_sync cass_wave64_at(__LINE__).any_sync
#define __match_any_sync cass_wave64_at(__LINE__).match_any_sync
#define __match_all_sync cass_wave64_at(__LINE__).match_all_sync
#define __reduce_add_sync cass_wave64_at(__LINE__).reduce_add_sync
#define __reduce_min_sync cass_wave64_at(__LINE__).reduce_min_sync
#define __reduce_max_sync cass_wave64_at(__LINE__).reduce_max_sync
#define __reduce_and_sync cass_wave64_at(__LINE__).reduce_and_sync
#define __reduce_or_sync cass_wave64_at(__LINE__).reduce_or_sync
#define __reduce_xor_sync cass_wave64_at(__LINE__).reduce_xor_sync
#define __syncwarp cass_wave64_at(__LINE__).syncwarp
#define __threadfence_block cass_wave64_at(__LINE__).threadfence_block
#define __syncthreads cass_wave64_syncthreads

#undef hipDeviceProp_t
#undef hipGetDeviceProperties
#undef hipDeviceGetAttribute
#define hipDeviceProp_t ::cass_wave64::device_prop
#define hipGetDeviceProperties ::cass_wave64::get_device_properties
#define hipDeviceGetAttribute ::cass_wave64::device_attribute

#endif  // CASS_WAVE == 64
