"""Synthesizer families for the warp idioms real code fails on in wave64 (issue 21).

- ``warp_items``: one warp per item (segment sums or maxima over CSR offsets); the
  host sizes the launch as ``items * 32`` threads;
- ``ballot_leader``: warp-aggregated queue append, the owner lane elected with
  ``__ffs`` (or ``__clz``) of a 32-bit ballot, ranks from ``1u << lane`` masks;
- ``match_peers``: per-key aggregated atomics from ``__match_any_sync`` peer groups;
  HIP 5.2 has no match intrinsic, so the agnostic form is the ballot loop on 64-bit
  masks;
- ``ptx_lane``: the lane id read by inline PTX ``%laneid`` and 32-wide butterflies.

Each builder follows ``synth.py``'s contract: every draw happens whatever the form,
both forms have the same top-level declarations, and what ``main`` prints does not
depend on the warp size.
"""

from __future__ import annotations

import random

from ..rules.diagnostics import rule_id
from .synth import Buf, Launch, Names, Parts, Style, Warp, _camel, _ints, _ptr

__all__ = ["IDIOM_FAMILIES"]


def _host_warp(w: Warp, var: str, form: int) -> list[str]:
    """Host lines that set ``var`` to the lanes of a warp (naive: the literal 32)."""
    if w.naive:
        w.labels.add(rule_id("host-warp-count"))
        return [f"const int {var} = {w.literal()};"]
    if form == 0:
        return [f"int {var} = 0;", f"$CK(cudaDeviceGetAttribute(&{var}, cudaDevAttrWarpSize, 0));"]
    return [
        "cudaDeviceProp prop;",
        "$CK(cudaGetDeviceProperties(&prop, 0));",
        f"const int {var} = prop.warpSize;",
    ]


def _comb(op: str, a: str, b: str) -> str:
    """``a`` combined with ``b``: a sum or a maximum."""
    return f"{a} += {b}" if op == "sum" else f"{a} = max({a}, {b})"


def fam_warp_items(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    """One warp per item: a lane-strided pass over the item's segment, a shuffle reduction."""
    items = rng.choice([333, 500, 1000, 1537])
    t = rng.choice([64, 128, 256, 512])
    op = rng.choice(["sum", "max"])
    maxlen = rng.choice([40, 61, 97])
    k = nm.kernel(
        rng.choice(
            ["segmentSum", "bucketTotals", "itemReduce", "rowScore", "walkerSum", "rankSegments"]
        )
        if op == "sum"
        else rng.choice(["segmentMax", "bucketPeak", "itemMax", "bestScore", "patternMax"])
    )
    ln, v, o, it = nm.lane, nm.val, nm.off, nm.item
    xor = rng.random() < 0.5
    shfl = "__shfl_xor_sync" if xor else "__shfl_down_sync"
    gid = rng.choice(
        ["blockIdx.x * blockDim.x + threadIdx.x", "threadIdx.x + blockIdx.x * blockDim.x"]
    )
    per_warp = rng.random() < 0.4  # item from the block's warp count rather than the global id
    step = w.literal() if w.naive else "warpSize"
    P = _ptr(st, "int")
    lines = [
        "//# one warp per item; the lanes stride over the item's segment",
        f"__global__ void {k}(const {P}{nm.inn}, const {P}{nm.offsets}, {P}{nm.out},"
        f" int {nm.items}) {{",
    ]
    if per_warp:
        lines += [
            f"  int {it} = blockIdx.x * ({w.count()}) + ({w.warp()});",
            f"  int {ln} = {w.lane()};",
        ]
    else:
        lines += [
            f"  int {nm.tid} = {gid};",
            f"  int {it} = {w.warp(nm.tid)};",
            f"  int {ln} = {w.lane(nm.tid)};",
        ]
    lines += [
        f"  if ({it} >= {nm.items}) return;  //# the whole warp leaves together",
        f"  int {v} = 0;",
        f"  for (int j = {nm.offsets}[{it}] + {ln}; j < {nm.offsets}[{it} + 1]; j += {step})",
        f"    {_comb(op, v, nm.inn + '[j]')};",
    ]
    if w.unroll:
        lines.append("#pragma unroll")
    lines += [
        f"  for (int {o} = {w.start()}; {o} > 0; {o} {w.shift})",
        f"    {_comb(op, v, f'{shfl}({w.mask}, {v}, {o})')};",
        f"  if ({ln} == 0) {nm.out}[{it}] = {v};",
        "}",
    ]
    host_form = rng.randrange(3)
    size_form = rng.randrange(2)
    lw = rng.choice(["lanes", "warpLanes", "ws", "lanesPerItem", "kLanes"])
    pre = [
        f"for (int i = 0, at = 0; i <= {nm.items}; ++i) {{",
        "  $h_f[i] = at;",
        f"  at += (i * 7 + 3) % {maxlen};",
        "}",
    ]
    if host_form < 2:
        pre += _host_warp(w, lw, host_form)
        if size_form == 0:
            pre.append(f"const int totalThreads = {nm.items} * {lw};")
            grid = f"(totalThreads + {nm.threads} - 1) / {nm.threads}"
        else:
            pre.append(
                f"const int {nm.blocks} = ({nm.items} * {lw} + {nm.threads} - 1) / {nm.threads};"
            )
            grid = nm.blocks
        helpers: list[str] = []
    else:
        # The sizing lives in a host helper, as launch wrappers often do.
        fn = _camel(["grid", "for"], nm.snake)
        body = _host_warp(w, lw, 0 if size_form == 0 else 1)
        body = [x.replace("$CK", "(void)") for x in body]
        helpers = [
            "\n".join(
                [
                    f"static int {fn}(int itemCount, int perBlock) {{",
                    *["  " + x for x in body],
                    f"  return (itemCount * {lw} + perBlock - 1) / perBlock;",
                    "}",
                ]
            )
        ]
        grid = f"{fn}({nm.items}, {nm.threads})"
    ref = "want += $h_x[j];" if op == "sum" else "want = std::max(want, $h_x[j]);"
    check = "\n".join(
        [
            f"for (int r = 0; r < {nm.items}; ++r) {{",
            "  int want = 0;",
            f"  for (int j = $h_f[r]; j < $h_f[r + 1]; ++j) {ref}",
            "  if ($h_o[r] != want) ++$bad;",
            "  FOLD(want);",
            "}",
        ]
    )
    if w.naive:
        w.labels.add(rule_id("warp-lane-arith"))
    return Parts(
        device=["\n".join(lines)],
        helpers=helpers,
        params=[f"const int {nm.items} = {items};", f"const int {nm.threads} = {t};"],
        pre=pre,
        bufs=[
            Buf("x", "int", f"{nm.items} * {maxlen}", "in", _ints(rng)),
            Buf("f", "int", f"{nm.items} + 1", "in", "0"),
            Buf("o", "int", nm.items, "out"),
        ],
        launches=[Launch(k, grid, nm.threads, None, ["$d_x", "$d_f", "$d_o", nm.items])],
        check=check,
        domain="sparse-graph",
        description=f"segment {op} over CSR offsets with one warp per item sized on the host",
        features=("warp-shuffle", "host-warp-sizing"),
    )


def fam_ballot_leader(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    """Warp-aggregated queue append: the elected owner reserves slots for the warp."""
    t = rng.choice([128, 256, 512])
    blocks = rng.choice([30, 64, 100])
    mod, rem = rng.choice([(3, 1), (4, 0), (5, 2), (7, 3)])
    k = nm.kernel(rng.choice(["appendMatches", "enqueueHits", "pushBucket", "gatherPattern"]))
    bt, b, ln, ld = w.ballot_t(), nm.bits, nm.lane, nm.leader
    high = rng.random() < 0.3  # the highest voting lane owns the reservation
    if high:
        elect = f"{31 if w.naive else 63} - {'__clz' if w.naive else '__clzll'}({b})"
    else:
        elect = f"{w.ffs()}({b}) - 1"
    base = rng.choice(["base", "slot0", "start", "qpos"])
    P = _ptr(st, "int")
    lines = [
        f"__global__ void {k}(const {P}{nm.inn}, {P}{nm.queue}, {P}{nm.qlen}, int {nm.n}) {{",
        f"  int {nm.tid} = blockIdx.x * blockDim.x + threadIdx.x;",
        f"  int {ln} = {w.lane()};",
        f"  int {nm.val} = {nm.tid} < {nm.n} ? {nm.inn}[{nm.tid}] : -1;",
        f"  bool take = {nm.val} >= 0 && {nm.val} % {mod} == {rem};",
        f"  {bt} {b} = __ballot_sync({w.mask}, take);",
        f"  if ({b} == 0) return;  //# the same for every lane of the warp",
        f"  int {ld} = {elect};  //# owner of the warp's reservation",
        f"  int {base} = 0;",
        f"  if ({ln} == {ld}) {base} = atomicAdd({nm.qlen}, {w.popc()}({b}));",
        f"  {base} = __shfl_sync({w.mask}, {base}, {ld});",
        f"  {bt} below = {b} & (({w.one()} << {ln}) - 1);",
        f"  if (take) {nm.queue}[{base} + {w.popc()}(below)] = {nm.val};",
        "}",
    ]
    check = "\n".join(
        [
            "std::vector<int> want, got;",
            f"for (int i = 0; i < {nm.n}; ++i)",
            f"  if ($h_x[i] % {mod} == {rem}) want.push_back($h_x[i]);",
            "if ($h_c[0] != (int)want.size()) ++$bad;",
            f"for (int i = 0; i < $h_c[0] && i < {nm.n}; ++i) got.push_back($h_q[i]);",
            "std::sort(got.begin(), got.end());  //# warps append in any order",
            "if (got != want) ++$bad;",
            "for (int x : want) FOLD(x);",
        ]
    )
    return Parts(
        device=["\n".join(lines)],
        params=[
            f"const int {nm.threads} = {t};",
            f"const int {nm.blocks} = {blocks};",
            f"const int {nm.n} = {nm.blocks} * {nm.threads} - {rng.choice([0, 9, 31])};",
        ],
        bufs=[
            # Sorted input: the sorted queue equals the filtered input in order.
            Buf("x", "int", nm.n, "in", f"(int)(i / {rng.choice([1, 2, 3])})"),
            Buf("q", "int", nm.n, "out"),
            Buf("c", "int", "1", "out"),
        ],
        launches=[Launch(k, nm.blocks, nm.threads, None, ["$d_x", "$d_q", "$d_c", nm.n])],
        check=check,
        domain="data-structures",
        description="warp-aggregated queue append with an elected owner lane",
        features=("ballot", "atomics"),
    )


def _peer_loop(w: Warp, key: str, peers: str, pad: str) -> list[str]:
    """Agnostic peer groups: lanes with the key of the first unserved lane, one pass each."""
    return [
        f"{pad}unsigned long long todo = __ballot_sync({w.mask}, 1);",
        f"{pad}unsigned long long {peers} = 0;",
        f"{pad}while (todo) {{  //# uniform: every lane holds the same todo",
        f"{pad}  int lead = __ffsll(todo) - 1;",
        f"{pad}  int other = __shfl_sync({w.mask}, {key}, lead);",
        f"{pad}  unsigned long long same = __ballot_sync({w.mask}, {key} == other);",
        f"{pad}  if ({key} == other) {peers} = same;",
        f"{pad}  todo &= ~same;",
        f"{pad}}}",
    ]


def fam_match_peers(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    """Histogram with one atomic per distinct key of a warp (peer groups)."""
    bins = rng.choice([5, 8, 13, 32, 100])
    t = rng.choice([128, 256])
    n = rng.choice([30000, 65536, 99999])
    k = nm.kernel(rng.choice(["bucketCount", "hashHist", "keyTally", "peerHistogram"]))
    helper = rng.random() < 0.5
    fn = _camel(["peers", "of"], nm.snake)
    ln, pk, ky = nm.lane, nm.peers, nm.key
    bt = "unsigned long long" if not w.naive else w.uint
    if w.naive:
        w.labels.add(rule_id("ballot-width"))
    dev: list[str] = []
    if helper:
        body = (
            [f"  return __match_any_sync({w.mask}, {ky});"]
            if w.naive
            else [*_peer_loop(w, ky, "peers", "  "), "  return peers;"]
        )
        dev.append("\n".join([f"__device__ {bt} {fn}(int {ky}) {{", *body, "}"]))
        group = [f"    {bt} {pk} = {fn}({ky});"]
    elif w.naive:
        group = [f"    {bt} {pk} = __match_any_sync({w.mask}, {ky});"]
    else:
        group = _peer_loop(w, ky, pk, "    ")
    lines = [
        f"__global__ void {k}(const unsigned* {nm.inn}, unsigned* {nm.hist}, int {nm.n}) {{",
        f"  int {ln} = {w.lane()};",
        f"  for (int base = blockIdx.x * blockDim.x; base < {nm.n};"
        " base += gridDim.x * blockDim.x) {",
        f"    int {nm.tid} = base + threadIdx.x;",
        f"    int {ky} = {nm.tid} < {nm.n} ? (int)({nm.inn}[{nm.tid}] % {bins}u) : -1;",
        *group,
        f"    if ({ky} >= 0 && {ln} == {w.ffs()}({pk}) - 1)  //# the group's first lane adds",
        f"      atomicAdd(&{nm.hist}[{ky}], (unsigned){w.popc()}({pk}));",
        "  }",
        "}",
    ]
    dev.append("\n".join(lines))
    check = "\n".join(
        [
            f"std::vector<unsigned> want({bins}, 0u);",
            f"for (int i = 0; i < {nm.n}; ++i) ++want[$h_k[i] % {bins}u];",
            f"for (int j = 0; j < {bins}; ++j) {{",
            "  if ($h_o[j] != want[j]) ++$bad;",
            "  FOLD(want[j]);",
            "}",
        ]
    )
    # Runs of equal keys: warps see a few peer groups, not one per lane.
    run = rng.choice([1, 4, 16])
    return Parts(
        device=dev,
        params=[f"const int {nm.n} = {n};", f"const int {nm.threads} = {t};"],
        bufs=[
            Buf("k", "unsigned", nm.n, "in", f"(unsigned)((i / {run}) * 2654435761u >> 7)"),
            Buf("o", "unsigned", str(bins), "out"),
        ],
        launches=[
            Launch(k, str(rng.choice([20, 48, 90])), nm.threads, None, ["$d_k", "$d_o", nm.n])
        ],
        check=check,
        domain="histogram",
        description="aggregated per-key atomics from warp peer groups",
        features=("match", "ballot", "atomics"),
    )


def fam_ptx_lane(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    """Block totals from butterfly all-reductions; the lane id comes from ``%laneid``."""
    t = rng.choice([64, 128, 256, 512])
    blocks = rng.choice([24, 60, 128])
    op = rng.choice(["sum", "max"])
    fn = rng.choice(
        [
            _camel_of(nm, ["lane", "id"]),
            _camel_of(nm, ["get", "lane"]),
            _camel_of(nm, ["my", "lane"]),
        ]
    )
    k = nm.kernel(rng.choice(["blockTotals", "scoreBlocks", "rankSums", "walkerPeak", "blockPeak"]))
    ln, v, o = nm.lane, nm.val, nm.off
    if fn == ln:  # `unsigned myLane = myLane();` would not compile
        fn = _camel_of(nm, ["read", "lane", "id"])
    up = rng.random() < 0.5  # butterfly offsets counting up or down
    writer = rng.randrange(3)
    # Helpers of this kind are short: vary their spelling so they are not all one text.
    head = rng.choice(
        ["__device__ __forceinline__", "static __device__ __forceinline__", "__device__ inline"]
    )
    rt = rng.choice(["unsigned", "unsigned int", "int", "uint32_t"])
    reg = rng.choice(["r", "id", "ret", "laneReg", "out_"])
    kw = rng.choice(["asm volatile", "asm", "asm volatile"])
    if w.naive:
        w.labels.add(rule_id("inline-ptx"))
        body = [
            f"  unsigned {reg};",
            f'  {kw}("mov.u32 %0, %%laneid;" : "=r"({reg}));',
            f"  return {'(int)' if rt == 'int' else ''}{reg};",
        ]
    else:
        body = [
            f"  return {'(int)' if rt == 'int' else ''}(threadIdx.x % warpSize);"
            "  //# 1-D blocks: the lane in the wave"
        ]
    helper = "\n".join([f"{head} {rt} {fn}() {{", *body, "}"])
    loop = (
        f"  for (int {o} = 1; {o} < {w.limit()}; {o} <<= 1)"
        if up
        else f"  for (int {o} = {w.start()}; {o} > 0; {o} {w.shift})"
    )
    if writer == 0:
        who = "0"
    elif writer == 1:
        who = w.last()
    else:
        who = f"blockIdx.x % {'32' if w.naive else 'warpSize'}"
        if w.naive:
            w.labels.add(rule_id("warp-lane-arith"))
    lines = [
        f"__global__ void {k}(const int* {nm.inn}, int* {nm.out}, int {nm.n}) {{",
        f"  int {nm.tid} = blockIdx.x * blockDim.x + threadIdx.x;",
        f"  {rt} {ln} = {fn}();",
        f"  int {v} = {nm.tid} < {nm.n} ? {nm.inn}[{nm.tid}] : 0;",
        "//# butterfly: afterwards every lane holds the warp's result",
    ]
    if w.unroll:
        lines.append("#pragma unroll")
    lines += [
        loop,
        f"    {_comb(op, v, f'__shfl_xor_sync({w.mask}, {v}, {o})')};",
        f"  if ({ln} == ({rt})({who}))",
        f"    {'atomicAdd' if op == 'sum' else 'atomicMax'}(&{nm.out}[blockIdx.x], {v});",
        "}",
    ]
    ref = "want += $h_x[i];" if op == "sum" else "want = std::max(want, $h_x[i]);"
    check = "\n".join(
        [
            f"for (int b = 0; b < {nm.blocks}; ++b) {{",
            "  int want = 0;",
            f"  for (int i = b * {nm.threads}; i < (b + 1) * {nm.threads} && i < {nm.n}; ++i)",
            f"    {ref}",
            "  if ($h_o[b] != want) ++$bad;",
            "  FOLD(want);",
            "}",
        ]
    )
    return Parts(
        device=[helper, "\n".join(lines)],
        params=[
            f"const int {nm.threads} = {t};",
            f"const int {nm.blocks} = {blocks};",
            f"const int {nm.n} = {nm.blocks} * {nm.threads} - {rng.choice([0, 5, 40])};",
        ],
        bufs=[Buf("x", "int", nm.n, "in", _ints(rng)), Buf("o", "int", nm.blocks, "out")],
        launches=[Launch(k, nm.blocks, nm.threads, None, ["$d_x", "$d_o", nm.n])],
        check=check,
        domain="sort-scan-reduce",
        description=f"block {op} from butterfly shuffles with the lane id read by inline PTX",
        features=("warp-shuffle", "inline-ptx", "atomics"),
    )


def _camel_of(nm: Names, words: list[str]) -> str:
    return _camel(words, nm.snake)


IDIOM_FAMILIES = {
    "warp_items": (fam_warp_items, True),
    "ballot_leader": (fam_ballot_leader, True),
    "match_peers": (fam_match_peers, True),
    "ptx_lane": (fam_ptx_lane, True),
}
"""Family name -> (builder, has warp-size idioms), merged into ``synth.FAMILIES``."""
