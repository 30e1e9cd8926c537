// Wave64 mode of CASS's HIP-on-CUDA layer: AMD's 64-lane wavefronts on NVIDIA's 32-lane warps.
//
// Built with -DCASS_WAVE=64, translated HIP runs as on a CDNA GPU (gfx90a, gfx942), where a
// wavefront has 64 lanes: code that assumes 32 lanes computes there what it would compute on
// AMD, usually something wrong, instead of what it computes on a 32-lane NVIDIA warp. Without
// CASS_WAVE (or with CASS_WAVE=32) this file defines nothing.
//
// A virtual wave is two adjacent warps of a block: threads 64w .. 64w+63 in the block's linear
// order (x fastest), which is how both vendors cut blocks into warps and wavefronts. Every wave
// operation is a gathering in a per-wave record in shared memory, changed under a lock: each
// group of lanes that arrives at it together (a crew: the lanes one __activemask() names)
// leaves its values and joins; the gathering closes once every lane of the wave is accounted
// for, and its lanes read what the operation asks for and leave. docs/hip_on_cuda.md lists
// what is emulated and what is not.
//
// Why not `bar.sync id, 64`: on AMD, some lanes of a wave may skip a wave operation (a branch,
// lanes that returned early, a kernel that lets warp 0 finish a reduction alone); the
// operation then runs with those lanes inactive. A named barrier would wait forever for them.
// A lane is accounted for when it has joined, waits at a wave operation later in the source
// (the branch or loop it is in comes first, as AMD reconverges), is in __syncthreads(), does
// not exist (a partial last wave), or was waited for in vain (it returned, or is in a branch
// with no wave operation): a short patience for lanes of a warp that already has lanes in the
// gathering, a longer one for a whole warp. A crew is only what the scheduler runs together:
// with independent thread scheduling one warp may arrive as several crews, which join the
// same gathering. Builds through cass_build.wave64.build_convergent (the default of
// `cass compare` and `cass bench`) give the warps AMD's convergence instead
// (CASS_WAVE64_CONVERGENT, below): a crew is then its warp's whole part of the operation.
// Shared memory is not initialised at block start, so the record carries a
// tag of the grid launch and block; a record with another tag is fresh.
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

// CASS_WAVE64_CONVERGENT: the build gives NVIDIA's warps the convergence of pre-Volta
// GPUs, as AMD's wavefronts have it (cass_build/wave64.py compiles the device code as PTX
// for sm_60, which ptxas lowers for the GPU with the warp reconverging where the branch
// ends, instead of with independent thread scheduling). A warp's active lanes are then
// those a 64-lane wave would have active in that half, so the protocol takes each crew as
// its warp's whole part and waits only for the other warp. Set by the build, never by
// hand: without that PTX target the same source runs with independent scheduling.
#ifdef CASS_WAVE64_CONVERGENT
#define CASS_WAVE64_CONVERGENT_ 1
#else
#define CASS_WAVE64_CONVERGENT_ 0
#endif
// What a converged crew does between polls: nothing on the GPU (sm_60's PTX has no
// __nanosleep); the CPU model of the protocol gives the processor up here.
#ifndef CASS_WAVE64_BACKOFF
#define CASS_WAVE64_BACKOFF(polls) ((void)(polls))
#endif

namespace cass_wave64 {

typedef unsigned long long u64;

enum : unsigned { kIdle = 0, kOpen = 1, kClosed = 2 };

// One wave's state, changed only under its lock. A wave operation is a gathering: each
// group of lanes that arrives at it (a crew: the lanes one __activemask() names) leaves its
// values and joins; the gathering closes once every lane of the wave is accounted for, and
// its lanes read what they need and leave.
struct wave_record {
    u64 lock;          // tag << 32 | next ticket << 16 | served; another tag: fresh
    unsigned tag;      // the block (of the launch) the rest belongs to; another: fresh
    unsigned phase;    // kIdle, kOpen (lanes gathering at `site`), kClosed (reading)
    unsigned site;     // the open or closed gathering's operation: 4 x its line, + 1
                       // but for __activemask(), evaluated before the operation it is
                       // an argument of (`__shfl_sync(__activemask(), ...)`)
    unsigned version;  // bumped by every change: a waiting crew's patience restarts
    unsigned beat;     // bumped, without the lock, by a crew that skips the record (alone())
                       // while lanes wait for it at a later operation: their patience
                       // restarts too (a field of its own: the lock holder's lanes each
                       // read the others, which must not change under them)
    u64 arrived;       // kOpen: the lanes gathered
    u64 participants;  // kClosed: the lanes that took part
    u64 readers;       // kClosed: the lanes still reading
    u64 pending;       // lanes waiting to gather at another operation (wait_site)
    u64 barrier;       // lanes in __syncthreads()
    u64 absent;        // lanes waited for in vain (returned, or elsewhere) until seen again
    u64 expect;        // kOpen: the lanes the operation's masks name (all: a maskless one)
    u64 settled;       // kOpen: warps whose lanes came as a named crew: complete
    unsigned short wait_site[64];
    unsigned value[64];  // each registered lane's 32-bit value for its operation
};

// 16 waves of 64 lanes: the largest block. 7.4 KB of static shared memory, in kernels that
// use a wave operation only.
__device__ __forceinline__ wave_record* scratch() {
    __shared__ wave_record waves[16];
    return waves;
}

struct place {
    unsigned wave;  // wave in the block
    unsigned half;  // 0: lanes 0-31 of the wave, 1: lanes 32-63
    unsigned lane;  // lane in the 32-lane warp
    u64 existing;   // the wave's lanes that exist (a block's last wave may be partial)
};

__device__ __forceinline__ place where() {
    const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const unsigned n = blockDim.x * blockDim.y * blockDim.z;
    place p;
    p.wave = t >> 6;
    p.half = (t >> 5) & 1u;
    p.lane = t & 31u;
    const unsigned left = n - (t & ~63u);  // threads from this wave's first on
    p.existing = left >= 64u ? ~0ull : (1ull << left) - 1ull;
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

// inline: one definition in a program of several translation units (host stub and
// device code alike); __noinline__ keeps the printf out of every wave operation.
__device__ inline __noinline__ void stuck(const char* what, unsigned site, bool speak) {
    if (speak)
        printf(
            "CASS wave64: block (%u,%u,%u) thread (%u,%u,%u): %s (line %u); the wave "
            "emulation lost step\n",
            blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, what,
            site >> 2);  // sites are 4 x the line (see the macros at the end)
    __trap();
}

template <class T>
__device__ __forceinline__ T peek(const T& field) {
    return *reinterpret_cast<const volatile T*>(&field);
}
template <class T>
__device__ __forceinline__ void poke(T& field, T value) {
    *reinterpret_cast<volatile T*>(&field) = value;
}

// The lanes of one warp that arrive at a wave operation together, and how they run the
// protocol: every lane runs every step, the same in each (the record is read by all while
// the crew holds the lock, and decisions are computed from that snapshot), and only the
// leader writes the record's shared fields. No lane ever waits at a reconvergence point
// for another that spins: with independent thread scheduling, lanes parked while their
// leader spun (with __nanosleep) were let go, stayed a separate group even after a
// __syncwarp, and met the next operation without the leader (H200, second run).
struct crew {
    unsigned mask;    // the warp's lanes in this crew
    unsigned leader;  // the lowest of them
    unsigned lane;    // the calling lane, 0-31
    unsigned half;    // the warp's half of the wave
    u64 lanes;        // the crew's lanes as wave lanes

    __device__ bool lead() const { return lane == leader; }

    __device__ void pause(unsigned polls, unsigned site) const {
        if (polls >= CASS_WAVE64_STUCK) stuck("a wave operation waited too long", site, lead());
#if CASS_WAVE64_CONVERGENT_  // __nanosleep needs sm_70's PTX
        CASS_WAVE64_BACKOFF(polls);
#else
        if (polls >= 64u) __nanosleep(polls < 1024u ? 64u : 256u);
#endif
    }
};

__device__ inline crew crew_of(unsigned mask, const place& p) {
    crew c;
    c.mask = mask;
    c.leader = static_cast<unsigned>(__ffs(mask) - 1);
    c.lane = p.lane;
    c.half = p.half;
    c.lanes = static_cast<u64>(mask) << (32u * p.half);
    return c;
}

// The record's scalar fields, as one crew sees them under the lock.
struct snapshot {
    unsigned phase, site, version;
    u64 arrived, participants, readers, pending, barrier, absent, expect, settled;
};

// -DCASS_WAVE64_TRACE=N keeps the first N changes of the wave records in host memory mapped
// into the device (so that they survive a trap), for cass_wave64::trace_dump() to write
// out: how the protocol took its decisions when a run disagrees with its model. A debugging
// aid; the program calls trace_init() before its first launch.
#ifdef CASS_WAVE64_TRACE
enum : unsigned { kTraceChange = 1, kTraceGot = 2, kTraceFinish = 3, kTraceBarrier = 4 };
struct trace_event {
    u64 clock, crew, arrived, pending, absent, participants, barrier, readers;
    unsigned kind, block, wave, site, phase, polls, quiet, pad;
};
// inline variables: one of each in a program of several translation units
__device__ inline trace_event* trace_log;
__device__ inline unsigned* trace_count;
__device__ inline unsigned* trace_where;  // per thread of the launch: site << 4 | step, last passed

__device__ inline void mark(unsigned site, unsigned step) {
    if (trace_where == nullptr) return;
    const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const unsigned n = blockDim.x * blockDim.y * blockDim.z;
    const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    trace_where[block * n + t] = site << 4 | step;
    __threadfence_system();
}
#define CASS_WAVE64_MARK(site, step) mark(site, step)

__device__ inline void trace(unsigned kind, const crew& c, unsigned wave, unsigned site,
                             const snapshot& r, unsigned polls, unsigned quiet) {
    if (!c.lead() || trace_log == nullptr) return;
    const unsigned i = atomicAdd(trace_count, 1u);
    if (i >= CASS_WAVE64_TRACE) return;
    u64 now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    trace_log[i] = trace_event{now,       c.lanes,   r.arrived, r.pending, r.absent, r.participants,
                               r.barrier, r.readers, kind,      block,     wave,     site,
                               r.phase,   polls,     quiet,     0u};
    __threadfence_system();
}
#define CASS_WAVE64_TRACE_AT(...) trace(__VA_ARGS__)
#else
#define CASS_WAVE64_TRACE_AT(...) ((void)0)
#define CASS_WAVE64_MARK(site, step) ((void)0)
#endif

// The lock is a ticket lock: tag << 32 | next ticket << 16 | ticket served. First come,
// first served: with a test-and-set lock, two crews of one warp that the hardware had merged
// again raced for it in one instruction, the lower lane's crew won every time, and the other
// never got in (H200, run 5: a crew that had only to see its gathering closed spun until
// the protocol trapped, while the crews it held up waited for it).
__device__ inline void acquire(const crew& c, wave_record* w, unsigned tag, unsigned site) {
    u64 seen = __shfl_sync(c.mask, peek(w->lock), c.leader);
    unsigned ticket = 0;
    for (unsigned polls = 0;; ++polls) {
        const bool fresh = static_cast<unsigned>(seen >> 32) != tag;  // another block's
        const unsigned next = fresh ? 0u : static_cast<unsigned>(seen >> 16) & 0xffffu;
        const u64 want =
            fresh ? (static_cast<u64>(tag) << 32 | 1ull << 16)
                  : (seen & 0xffffffff0000ffffull) | static_cast<u64>((next + 1u) & 0xffffu) << 16;
        u64 got = 0;
        if (c.lead()) got = atomicCAS(&w->lock, seen, want);
        got = __shfl_sync(c.mask, got, c.leader);
        if (got == seen) {
            ticket = next;
            break;
        }
        seen = got;
        c.pause(polls, site);
    }
    for (unsigned polls = 0;; ++polls) {
        const u64 now = __shfl_sync(c.mask, peek(w->lock), c.leader);
        if ((static_cast<unsigned>(now) & 0xffffu) == ticket) break;
        c.pause(polls, site);
    }
    __threadfence_block();
    __syncwarp(c.mask);
}

__device__ inline void release(const crew& c, wave_record* w, unsigned tag) {
    (void)tag;
    __syncwarp(c.mask);  // every lane's writes come before the unlock
    __threadfence_block();
    if (c.lead()) {
        // Only the holder changes the ticket served: 0xffff wraps to 0 without a carry into
        // the next ticket.
        const bool wrap = (peek(w->lock) & 0xffffull) == 0xffffull;
        atomicAdd(&w->lock, wrap ? 0ull - 0xffffull : 1ull);
    }
    __syncwarp(c.mask);
}

__device__ inline snapshot read(const wave_record* w, unsigned tag) {
    snapshot r;
    if (peek(w->tag) != tag) {  // left by another block, or garbage: fresh
        r = snapshot{kIdle, 0u, 0u, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull, 0ull};
        return r;
    }
    r.phase = peek(w->phase);
    r.site = peek(w->site);
    r.version = peek(w->version);
    r.arrived = peek(w->arrived);
    r.participants = peek(w->participants);
    r.readers = peek(w->readers);
    r.pending = peek(w->pending);
    r.barrier = peek(w->barrier);
    r.absent = peek(w->absent);
    r.expect = peek(w->expect);
    r.settled = peek(w->settled);
    return r;
}

__device__ inline void write(const crew& c, wave_record* w, unsigned tag, snapshot r) {
    __syncwarp(c.mask);  // every lane has read the old fields
    if (c.lead()) {
        poke(w->tag, tag);
        poke(w->phase, r.phase);
        poke(w->site, r.site);
        poke(w->version, r.version + 1u);
        poke(w->arrived, r.arrived);
        poke(w->participants, r.participants);
        poke(w->readers, r.readers);
        poke(w->pending, r.pending);
        poke(w->barrier, r.barrier);
        poke(w->absent, r.absent);
        poke(w->expect, r.expect);
        poke(w->settled, r.settled);
    }
}

// The lanes in `pending` that wait at an operation after `site` in the source: a gathering
// at `site` need not wait for them (source order stands for program order, as in a loop
// one half leaves first, or a branch one half skips: on AMD the wave reconverges there).
__device__ inline u64 waiting_later(const wave_record* w, u64 pending, unsigned site) {
    u64 later = 0;
    for (unsigned l = 0; l < 64; ++l)
        if (((pending >> l) & 1ull) && peek(w->wait_site[l]) > site) later |= 1ull << l;
    return later;
}

// Reads of the record's version between two turns of the lock while a crew waits.
#ifndef CASS_WAVE64_PEEKS
#define CASS_WAVE64_PEEKS 8u
#endif
// Lanes of a warp with a crew in the gathering wait for its other lanes this long before
// taking them as absent: a warp split by the scheduler meets again within microseconds,
// and lanes parked at the end of a branch wait for this crew and never come.
#ifndef CASS_WAVE64_LANE_PATIENCE
#define CASS_WAVE64_LANE_PATIENCE 256u
#endif
// Run when a gathering closes without lanes it waited for in vain (`lanes`): nothing on the
// GPU; the CPU model of the protocol counts it, to tell a lane that was only off the
// processor past the patience from a wrong answer of the protocol's own.
#ifndef CASS_WAVE64_GAVE_UP
#define CASS_WAVE64_GAVE_UP(lanes) ((void)(lanes))
#endif

// One wave operation as seen by one crew: after gather() every lane of the crew can read
// the values of the lanes that took part (`participants`); finish() ends the reading.
struct gathering {
    wave_record* w;
    crew c;
    unsigned tag;
    unsigned site;
    u64 participants;
    bool solo;  // the other half is not waited for: a gathering of this crew alone (alone())

    // The value of wave lane `src`, 0 where that lane did not take part (as ds_bpermute
    // reads 0 from an inactive lane).
    __device__ unsigned read(unsigned src) const {
        return ((participants >> src) & 1ull) ? peek(w->value[src]) : 0u;
    }
};

// Whom a wave operation waits for. A `_sync` operation names its lanes, and HIP 7, like
// CUDA, requires every named lane that has not exited to make the call. The named lanes of
// the caller's own warp first meet in NVIDIA's __ballot_sync over them: they reconverge
// (NVIDIA does not bring a warp's groups together again after a branch on its own; H200,
// run 5), lanes that exited are left out, and the crew is then the warp's whole part, so
// the gathering waits only for the other warp's named lanes. A maskless operation (HIP 5's,
// __activemask(), __syncwarp()) names none: its crew is the lanes NVIDIA runs together, and
// the gathering waits for every lane of the wave that is not accounted for otherwise.
struct party {
    unsigned mask;  // the crew: the calling warp's lanes that run the protocol together
    u64 expect;     // the wave lanes the operation waits for (all: maskless)
    bool named;     // the crew is its warp's whole part of the operation
};

__device__ inline party maskless() { return party{__activemask(), ~0ull, false}; }

__device__ inline party named(u64 lanes) {
    const place p = where();
    const u64 expect = lanes & p.existing;
    const unsigned own = static_cast<unsigned>(expect >> (32u * p.half));
    // Converged, the warp's active lanes are its part: a mask naming others would hang in
    // __ballot_sync (sm_6x requires its mask to be the active lanes).
    if (CASS_WAVE64_CONVERGENT_) return party{__activemask(), expect, true};
    if ((own >> p.lane) & 1u) return party{__ballot_sync(own, 1), expect, true};
    // A lane that is not named calls anyway, which HIP leaves undefined: it runs maskless,
    // apart from the named lanes of its warp.
    return party{__activemask() & ~own, ~0ull, false};
}

// Whether the crew is its warp's whole part of the operation: in convergent builds always; in
// independent ones for a `_sync` operation's named lanes (party).
__device__ __forceinline__ bool whole_part(const party& who) {
    return CASS_WAVE64_CONVERGENT_ || who.named;
}

// Whether a gathering of `c` at `site` may skip the record: the crew is its warp's whole
// part, and every lane of the other half the operation would wait for does not exist (a
// partial last wave, a block of 32 threads), waits in __syncthreads() (which it cannot leave
// before this warp arrives there too), waits at an operation later in the source (gathered
// or pending there: the branch it skipped comes first, and it cannot go on without this
// warp), or was found absent (it returned, or is in a branch without wave operations) and
// has not shown up since. Such a gathering would close with this crew alone, so the values
// go through the crew's own warp (a __syncwarp, no lock): a reduction under
// `if (threadIdx.y == 0)` or a loop of __any() that one half runs costs about what it costs
// natively, instead of a round trip through the record at every call. A lane that shows up
// again clears its absent mark under the lock, and this crew's next operation sees it and
// gathers. The crew's own lanes must not be marked absent: the protocol clears such marks.
// Lanes waiting at a later operation count this crew's quiet polls as their patience: each
// skipped gathering bumps the record's beat, so that they do not take this warp as gone.
__device__ inline bool alone(const crew& c, const place& p, const party& who, wave_record* w,
                             unsigned tag, unsigned site) {
    const u64 other = ~(0xffffffffull << (32u * p.half));
    const u64 needed = other & p.existing & who.expect;
    if (needed == 0) return true;
    bool solo = false;
    if (c.lead() && peek(w->tag) == tag) {
        const u64 absent = peek(w->absent);
        const u64 away = absent | peek(w->barrier);
        u64 later = 0;
        if (needed & ~away) {
            later = waiting_later(w, peek(w->pending), site);
            if (peek(w->phase) == kOpen && peek(w->site) > site) later |= peek(w->arrived);
        }
        solo = (needed & ~(away | later)) == 0 && (absent & c.lanes) == 0;
        if (solo && (needed & later)) atomicAdd(&w->beat, 1u);
    }
    return __shfl_sync(c.mask, solo ? 1 : 0, c.leader) != 0;  // one decision for the crew
}

__device__ inline gathering gather(unsigned site, const party& who, unsigned value) {
    const place p = where();
    gathering g;
    g.w = scratch() + p.wave;
    // Lanes that NVIDIA runs together here may have come from different operations: the
    // protocol's functions are shared by every call site, so a warp's groups from two
    // operations can meet in them (H200, run 8: the lanes of `if (lane % 2 == 0)` and
    // those that skipped it, one crew). A crew is the lanes at one operation.
#if CASS_WAVE64_CONVERGENT_  // one operation's lanes only: the warp is converged
    g.c = crew_of(who.mask, p);
    const u64 settles = 0xffffffffull << (32u * p.half);
#else
    g.c = crew_of(__match_any_sync(who.mask, site & 0xffffu), p);
    const u64 settles = who.named ? 0xffffffffull << (32u * p.half) : 0ull;
#endif
    g.tag = block_tag();
    g.site = site & 0xffffu;
    const crew& c = g.c;
    const unsigned me = 32u * p.half + p.lane;
    g.solo = whole_part(who) && alone(c, p, who, g.w, g.tag, g.site);
    if (g.solo) {
        // Lanes of this half are read in no open or closed gathering: the other half is
        // in none, and this crew finished its last.
        poke(g.w->value[me], value);
        __syncwarp(c.mask);
        g.participants = c.lanes;
        return g;
    }
    CASS_WAVE64_MARK(g.site, 1u);
    bool registered = false;
    unsigned quiet = 0;
    unsigned last = ~0u;
    unsigned last_beat = 0u;
    for (unsigned polls = 0;; ++polls) {
        acquire(c, g.w, g.tag, g.site);
        snapshot r = read(g.w, g.tag);
        const snapshot before = r;
        // Someone changed the record, or went through a gathering without it: alive.
        const unsigned beat = __shfl_sync(c.mask, peek(g.w->beat), c.leader);
        quiet = r.version == last && beat == last_beat ? quiet + 1u : 0u;
        last = r.version;
        last_beat = beat;
        if (!registered && !(r.phase == kClosed && (r.participants & c.lanes))) {
            // The crew's lanes may still be read in a closed gathering: not before it ends.
            poke(g.w->value[me], value);
            poke(g.w->wait_site[me], static_cast<unsigned short>(g.site));
            registered = true;
            r.absent &= ~c.lanes;
            r.pending |= c.lanes;
        }
        __syncwarp(c.mask);  // the crew's wait sites, read below, are written
        if (registered && (r.pending & c.lanes)) {
            quiet = 0;  // patience counts from when this crew is in the gathering
            if (r.phase == kIdle) {
                r.phase = kOpen;
                r.site = g.site;
                r.arrived = c.lanes;
                r.pending &= ~c.lanes;
                r.expect = who.expect;
                r.settled = settles;
            } else if (r.phase == kOpen && r.site == g.site) {
                r.arrived |= c.lanes;
                r.pending &= ~c.lanes;
                r.expect |= who.expect;
                r.settled |= settles;
            } else if (r.phase == kOpen && r.site > g.site) {
                // An earlier operation goes first: the lanes gathered for the later one
                // wait for it (they are a branch or loop ahead of these).
                r.pending = (r.pending | r.arrived) & ~c.lanes;
                r.arrived = c.lanes;
                r.site = g.site;
                r.expect = who.expect;
                r.settled = settles;
            }
        }
        if (r.phase == kOpen && (r.arrived & c.lanes)) {
            const u64 accounted = r.arrived | r.barrier | r.absent | ~p.existing | ~r.expect |
                                  r.settled | waiting_later(g.w, r.pending, g.site);
            const u64 missing = ~accounted;
            // Missing lanes only of warps with lanes in the protocol: a short wait (they
            // are parked at a branch's end, or returned); of a warp not seen: a longer one.
            const u64 seen = r.arrived | r.pending;
            u64 here = 0;
            if (seen & 0xffffffffull) here |= 0xffffffffull;
            if (seen >> 32) here |= 0xffffffff00000000ull;
            // Lanes a mask names are promised: only lanes that exited never come.
            const bool promised = r.expect != ~0ull;
            const unsigned patience =
                (missing & ~here) || promised ? CASS_WAVE64_PATIENCE : CASS_WAVE64_LANE_PATIENCE;
            if (missing == 0 || quiet >= patience) {
                if (missing) CASS_WAVE64_GAVE_UP(missing);
                r.absent |= missing;
                r.phase = kClosed;
                r.participants = r.arrived;
                r.readers = r.arrived;
                r.arrived = 0;
            }
        }
        const bool changed = r.phase != before.phase || r.site != before.site ||
                             r.arrived != before.arrived || r.pending != before.pending ||
                             r.absent != before.absent || r.expect != before.expect ||
                             r.settled != before.settled || peek(g.w->tag) != g.tag;
        if (changed) {
            write(c, g.w, g.tag, r);
            last = r.version + 1u;
            CASS_WAVE64_TRACE_AT(kTraceChange, c, p.wave, g.site, r, polls, quiet);
        }
        release(c, g.w, g.tag);
        if (registered && r.phase == kClosed && (r.participants & c.lanes)) {
            if (r.site != g.site || (r.participants & c.lanes) != c.lanes)
                stuck("a wave operation found its lanes in another gathering", g.site, c.lead());
            g.participants = r.participants;
            CASS_WAVE64_TRACE_AT(kTraceGot, c, p.wave, g.site, r, polls, quiet);
            CASS_WAVE64_MARK(g.site, 2u);
            return g;
        }
        c.pause(polls, g.site);
        // Until someone changes the record, its lock is not worth taking: a few reads of the
        // version (each poll of the patience then lasts a little longer, never less), so
        // that a crew arriving to close the gathering finds the lock free.
        for (unsigned peeks = 0; peeks < CASS_WAVE64_PEEKS; ++peeks)
            if (__shfl_sync(c.mask, peek(g.w->version), c.leader) != last) break;
    }
}

__device__ inline void finish(const gathering& g) {
    if (g.solo) {
        __syncwarp(g.c.mask);  // every lane has read before any writes its next value
        return;
    }
    CASS_WAVE64_MARK(g.site, 3u);
    acquire(g.c, g.w, g.tag, g.site);
    snapshot r = read(g.w, g.tag);
    if (r.phase != kClosed || !(r.readers & g.c.lanes))
        stuck("a wave operation lost its gathering", g.site, g.c.lead());
    r.readers &= ~g.c.lanes;
    if (r.readers == 0) r.phase = kIdle;
    write(g.c, g.w, g.tag, r);
    CASS_WAVE64_TRACE_AT(kTraceFinish, g.c, static_cast<unsigned>(g.w - scratch()), g.site, r, 0u,
                         0u);
    release(g.c, g.w, g.tag);
    // The crews of this warp that took part leave as one, as the lanes of an AMD wave leave
    // an operation together. Without this a warp, once split (lanes parked at a branch's end
    // are let go while a crew spins), stays split: on the H200 (run 5) the 200 shuffles of
    // selftest's loop met as up to eight crews per wave, each gathering waited out the lane
    // patience for a late one, and the wave lost step. Every lane named here runs this same
    // __syncwarp, since every participant of a gathering finishes it.
    const unsigned mine = static_cast<unsigned>(g.participants >> (32u * g.c.half));
    CASS_WAVE64_MARK(g.site, 4u);
    if (!CASS_WAVE64_CONVERGENT_ && mine != g.c.mask) __syncwarp(mine);
    CASS_WAVE64_MARK(g.site, 5u);
}

// The value of `var` in lane `src64` of the wave (0 where that lane is inactive). `within`:
// the operation's arguments keep every lane's source in the caller's half (a width of at most
// 32, below), so the other half's values are not needed: the two halves are two real warps,
// and the crew, its warp's whole part, shuffles through NVIDIA's own instruction.
template <class T>
__device__ inline T fetch(unsigned site, const party& who, T var, unsigned src64, bool within) {
    static_assert(sizeof(T) <= 8, "HIP-on-CUDA wave64: shuffles move at most 8 bytes");
    unsigned in[2] = {0u, 0u};
    unsigned out[2] = {0u, 0u};
    memcpy(in, &var, sizeof(T));
    if (whole_part(who) && within) {
        const unsigned src = src64 & 31u;
        const bool active = (who.mask >> src) & 1u;  // an inactive lane reads 0 (ds_bpermute)
        for (unsigned k = 0; k < (sizeof(T) + 3) / 4; ++k) {
            const unsigned got = __shfl_sync(who.mask, in[k], static_cast<int>(src));
            out[k] = active ? got : 0u;
        }
        T result;
        memcpy(&result, out, sizeof(T));
        return result;
    }
    for (unsigned k = 0; k < (sizeof(T) + 3) / 4; ++k) {
        const gathering g = gather(site, who, in[k]);
        if (g.solo) {
            const unsigned src = src64 & 63u;
            const unsigned got = __shfl_sync(g.c.mask, in[k], static_cast<int>(src & 31u));
            out[k] = ((g.participants >> src) & 1ull) ? got : 0u;
        } else {
            out[k] = g.read(src64 & 63u);
        }
        finish(g);
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

// Whether a shuffle's arguments keep every source lane in the caller's half, by HIP's formulas
// above: a power-of-two width of at most 32 (`__shfl(v, s, 32)`, CUDA's logical warps), and
// for __shfl_up/__shfl_down a delta that is not negative as an int, for __shfl_xor a lane
// mask below the width (a larger one reaches lanes of lower segments, the other half's
// among them). One decision for the crew, since its lanes must shuffle together.
__device__ __forceinline__ bool narrow(int width) {
    return width > 0 && width <= 32 && (width & (width - 1)) == 0;
}
__device__ __forceinline__ bool in_half(const party& who, bool within) {
    return whole_part(who) && __all_sync(who.mask, within) != 0;
}

struct votes {
    u64 ballot;
    u64 active;
};

__device__ inline votes vote(unsigned site, const party& who, int predicate) {
    const gathering g = gather(site, who, predicate != 0);
    votes v = {0ull, g.participants};
    if (g.solo) {
        v.ballot = static_cast<u64>(__ballot_sync(g.c.mask, predicate)) << (32u * g.c.half);
    } else {
        for (unsigned l = 0; l < 64; ++l)
            if (g.read(l)) v.ballot |= 1ull << l;
    }
    finish(g);
    return v;
}

template <class M>
__device__ __forceinline__ u64 wide(M mask) {
    static_assert(std::is_integral<M>::value, "HIP-on-CUDA wave64: a lane mask is an integer");
    return static_cast<u64>(mask);
}

// Lanes of the wave holding the same value as this lane (a value of up to 8 bytes).
template <class T>
__device__ inline u64 match(unsigned site, const party& who, T value) {
    static_assert(sizeof(T) <= 8, "HIP-on-CUDA wave64: match takes values of at most 8 bytes");
    unsigned in[2] = {0u, 0u};
    memcpy(in, &value, sizeof(T));
    u64 same = ~0ull;
    for (unsigned k = 0; k < (sizeof(T) + 3) / 4; ++k) {
        const gathering g = gather(site, who, in[k]);
        u64 bits = 0;
        for (unsigned l = 0; l < 64; ++l)
            if (((g.participants >> l) & 1ull) && g.read(l) == in[k]) bits |= 1ull << l;
        finish(g);
        same &= bits;
    }
    return same;
}

template <class T, class Op>
__device__ inline T reduce(unsigned site, u64 lanes, T value, Op op) {
    static_assert(sizeof(T) == 4, "HIP-on-CUDA wave64: __reduce_*_sync takes 32-bit integers");
    unsigned in = 0u;
    memcpy(&in, &value, 4);
    const gathering g = gather(site, named(lanes), in);
    lanes &= g.participants;
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
    finish(g);
    return acc;
}

// The wave operations, called through macros that pass the source line (the `site` that
// tells the two halves whether they are at the same operation).
struct at {
    unsigned site;

    template <class T>
    __device__ T shfl(T var, int src_lane, int width = 64) const {
        const party who = maskless();
        return fetch(site, who, var, src_shfl(static_cast<int>(lane64()), src_lane, width),
                     in_half(who, narrow(width)));
    }
    template <class T>
    __device__ T shfl_up(T var, unsigned delta, int width = 64) const {
        const party who = maskless();
        return fetch(site, who, var, src_up(static_cast<int>(lane64()), delta, width),
                     in_half(who, narrow(width) && static_cast<int>(delta) >= 0));
    }
    template <class T>
    __device__ T shfl_down(T var, unsigned delta, int width = 64) const {
        const party who = maskless();
        return fetch(site, who, var, src_down(static_cast<int>(lane64()), delta, width),
                     in_half(who, narrow(width) && static_cast<int>(delta) >= 0));
    }
    template <class T>
    __device__ T shfl_xor(T var, int lane_mask, int width = 64) const {
        const party who = maskless();
        return fetch(site, who, var, src_xor(static_cast<int>(lane64()), lane_mask, width),
                     in_half(who, narrow(width) && (lane_mask & ~(width - 1)) == 0));
    }

    // HIP 7's _sync forms compute over the active lanes whatever the mask
    // (amd_warp_sync_functions.h); the mask says whom the emulation waits for (party).
    template <class M, class T>
    __device__ T shfl_sync(M mask, T var, int src_lane, int width = 64) const {
        const party who = named(wide(mask));
        return fetch(site, who, var, src_shfl(static_cast<int>(lane64()), src_lane, width),
                     in_half(who, narrow(width)));
    }
    template <class M, class T>
    __device__ T shfl_up_sync(M mask, T var, unsigned delta, int width = 64) const {
        const party who = named(wide(mask));
        return fetch(site, who, var, src_up(static_cast<int>(lane64()), delta, width),
                     in_half(who, narrow(width) && static_cast<int>(delta) >= 0));
    }
    template <class M, class T>
    __device__ T shfl_down_sync(M mask, T var, unsigned delta, int width = 64) const {
        const party who = named(wide(mask));
        return fetch(site, who, var, src_down(static_cast<int>(lane64()), delta, width),
                     in_half(who, narrow(width) && static_cast<int>(delta) >= 0));
    }
    template <class M, class T>
    __device__ T shfl_xor_sync(M mask, T var, int lane_mask, int width = 64) const {
        const party who = named(wide(mask));
        return fetch(site, who, var, src_xor(static_cast<int>(lane64()), lane_mask, width),
                     in_half(who, narrow(width) && (lane_mask & ~(width - 1)) == 0));
    }

    __device__ u64 ballot(int predicate) const { return vote(site, maskless(), predicate).ballot; }
    __device__ int all(int predicate) const {
        const votes v = vote(site, maskless(), predicate);
        return v.ballot == v.active;
    }
    __device__ int any(int predicate) const {
        return vote(site, maskless(), predicate).ballot != 0;
    }
    __device__ u64 activemask() const { return vote(site, maskless(), 1).active; }

    template <class M>
    __device__ u64 ballot_sync(M mask, int predicate) const {
        return vote(site, named(wide(mask)), predicate).ballot & wide(mask);
    }
    template <class M>
    __device__ int all_sync(M mask, int predicate) const {
        return (vote(site, named(wide(mask)), predicate).ballot & wide(mask)) == wide(mask);
    }
    template <class M>
    __device__ int any_sync(M mask, int predicate) const {
        return (vote(site, named(wide(mask)), predicate).ballot & wide(mask)) != 0;
    }

    template <class M, class T>
    __device__ u64 match_any_sync(M mask, T value) const {
        return match(site, named(wide(mask)), value) & wide(mask);
    }
    template <class M, class T>
    __device__ u64 match_all_sync(M mask, T value, int* pred) const {
        const party who = named(wide(mask));
        const u64 want = wide(mask) & vote(site, who, 1).active;
        const bool all_same = (match(site, who, value) & want) == want;
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
    __device__ void syncwarp() const { finish(gather(site, maskless(), 0u)); }
    template <class M>
    __device__ void syncwarp(M mask) const {
        finish(gather(site, named(wide(mask)), 0u));
    }
    // HIP before 7.0 has no __syncwarp; CASS translates it to __threadfence_block(), which
    // a lockstep wavefront makes a wave barrier too.
    __device__ void threadfence_block() const {
        __threadfence_block();
        syncwarp();
    }
};

// __syncthreads(): the lanes say they are in the block barrier, so that a gathering that
// misses them closes at once instead of waiting out its patience.
__device__ inline void block_barrier() {
    const place p = where();
    const crew c = crew_of(__activemask(), p);
    wave_record* w = scratch() + p.wave;
    const unsigned tag = block_tag();
    acquire(c, w, tag, 0xffffu);
    snapshot r = read(w, tag);
    r.barrier |= c.lanes;
    r.absent &= ~c.lanes;
    write(c, w, tag, r);
    CASS_WAVE64_TRACE_AT(kTraceBarrier, c, p.wave, 0xffffu, r, 0u, 0u);
    release(c, w, tag);
    __syncthreads();
    acquire(c, w, tag, 0xffffu);
    r = read(w, tag);
    r.barrier &= ~c.lanes;
    write(c, w, tag, r);
    release(c, w, tag);
    // Every lane's mark is gone before any lane goes on: a mark left standing a moment
    // longer would let a gathering after the barrier close without that lane.
    __syncthreads();
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

#ifdef CASS_WAVE64_TRACE
inline trace_event* trace_host = nullptr;
inline volatile unsigned* trace_host_count = nullptr;
inline unsigned* trace_host_where = nullptr;

inline void trace_init() {
    void* events = nullptr;
    void* count = nullptr;
    cudaHostAlloc(&events, sizeof(trace_event) * CASS_WAVE64_TRACE, cudaHostAllocMapped);
    cudaHostAlloc(&count, sizeof(unsigned), cudaHostAllocMapped);
    *static_cast<unsigned*>(count) = 0;
    trace_host = static_cast<trace_event*>(events);
    trace_host_count = static_cast<volatile unsigned*>(count);
    void* d_events = nullptr;
    void* d_count = nullptr;
    cudaHostGetDevicePointer(&d_events, events, 0);
    cudaHostGetDevicePointer(&d_count, count, 0);
    cudaMemcpyToSymbol(trace_log, &d_events, sizeof d_events);
    cudaMemcpyToSymbol(trace_count, &d_count, sizeof d_count);
    void* where = nullptr;
    cudaHostAlloc(&where, sizeof(unsigned) << 20, cudaHostAllocMapped);
    memset(where, 0, sizeof(unsigned) << 20);
    trace_host_where = static_cast<unsigned*>(where);
    void* d_where = nullptr;
    cudaHostGetDevicePointer(&d_where, where, 0);
    cudaMemcpyToSymbol(trace_where, &d_where, sizeof d_where);
}

// Appends the trace to `path` (one line per change, `label` first) and empties it.
inline void trace_dump(const char* path, const char* label) {
    if (trace_host == nullptr) return;
    unsigned n = *trace_host_count;
    if (n > CASS_WAVE64_TRACE) n = CASS_WAVE64_TRACE;
    if (FILE* f = fopen(path, "a")) {
        for (unsigned i = 0; i < n; ++i) {
            const trace_event& e = trace_host[i];
            fprintf(f,
                    "%s %llu k%u b%u w%u s%u ph%u crew=%016llx arr=%016llx pend=%016llx "
                    "abs=%016llx part=%016llx bar=%016llx rd=%016llx polls=%u quiet=%u\n",
                    label, e.clock, e.kind, e.block, e.wave, e.site, e.phase, e.crew, e.arrived,
                    e.pending, e.absent, e.participants, e.barrier, e.readers, e.polls, e.quiet);
        }
        for (unsigned t = 0; t < 4096; ++t)
            fprintf(f, "%s where %u site %u step %u\n", label, t, trace_host_where[t] >> 4,
                    trace_host_where[t] & 15u);
        fclose(f);
    }
    memset(trace_host_where, 0, sizeof(unsigned) << 20);
    *trace_host_count = 0;
}
#endif

}  // namespace cass_wave64

__device__ __forceinline__ cass_wave64::at cass_wave64_at(unsigned site) {
    return cass_wave64::at{site};
}

// HIP's __any(); a plain name because libstdc++ and libcu++ use `__any` as an identifier.
__device__ inline int cass_wave64_any(int predicate) {
    return cass_wave64::vote(0xffffu, cass_wave64::maskless(), predicate).ballot != 0;
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
#define __shfl cass_wave64_at(__LINE__ * 4u + 1u).shfl
#define __shfl_up cass_wave64_at(__LINE__ * 4u + 1u).shfl_up
#define __shfl_down cass_wave64_at(__LINE__ * 4u + 1u).shfl_down
#define __shfl_xor cass_wave64_at(__LINE__ * 4u + 1u).shfl_xor
#define __shfl_sync cass_wave64_at(__LINE__ * 4u + 1u).shfl_sync
#define __shfl_up_sync cass_wave64_at(__LINE__ * 4u + 1u).shfl_up_sync
#define __shfl_down_sync cass_wave64_at(__LINE__ * 4u + 1u).shfl_down_sync
#define __shfl_xor_sync cass_wave64_at(__LINE__ * 4u + 1u).shfl_xor_sync
#define __ballot cass_wave64_at(__LINE__ * 4u + 1u).ballot
#define __all cass_wave64_at(__LINE__ * 4u + 1u).all
#define __any cass_wave64_any
#define __activemask cass_wave64_at(__LINE__ * 4u).activemask
#define __ballot_sync cass_wave64_at(__LINE__ * 4u + 1u).ballot_sync
#define __all_sync cass_wave64_at(__LINE__ * 4u + 1u).all_sync
#define __any_sync cass_wave64_at(__LINE__ * 4u + 1u).any_sync
#define __match_any_sync cass_wave64_at(__LINE__ * 4u + 1u).match_any_sync
#define __match_all_sync cass_wave64_at(__LINE__ * 4u + 1u).match_all_sync
#define __reduce_add_sync cass_wave64_at(__LINE__ * 4u + 1u).reduce_add_sync
#define __reduce_min_sync cass_wave64_at(__LINE__ * 4u + 1u).reduce_min_sync
#define __reduce_max_sync cass_wave64_at(__LINE__ * 4u + 1u).reduce_max_sync
#define __reduce_and_sync cass_wave64_at(__LINE__ * 4u + 1u).reduce_and_sync
#define __reduce_or_sync cass_wave64_at(__LINE__ * 4u + 1u).reduce_or_sync
#define __reduce_xor_sync cass_wave64_at(__LINE__ * 4u + 1u).reduce_xor_sync
#define __syncwarp cass_wave64_at(__LINE__ * 4u + 1u).syncwarp
#define __threadfence_block cass_wave64_at(__LINE__ * 4u + 1u).threadfence_block
#define __syncthreads cass_wave64_syncthreads

#undef hipDeviceProp_t
#undef hipGetDeviceProperties
#undef hipDeviceGetAttribute
#define hipDeviceProp_t ::cass_wave64::device_prop
#define hipGetDeviceProperties ::cass_wave64::get_device_properties
#define hipDeviceGetAttribute ::cass_wave64::device_attribute

#endif  // CASS_WAVE == 64
