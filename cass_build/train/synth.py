"""A seeded synthesizer of complete, self-checking CUDA programs.

Each program is one kernel family (map, grid-stride, reductions, scans,
histograms, stencils, transposes, matmul tiles, ballot compaction, sorting
networks, hashes) drawn together with a host-API style (plain copies, pinned
memory on a stream with events, managed memory), warp-size idioms and naming and
formatting variation. ``synthesize(seed)`` returns the program twice:

- ``naive``: warp-size idioms as CUDA code usually writes them (``& 31``,
  ``>> 5``, ``blockDim.x / 32``, offset-16 shuffle loops, ballots kept in 32 bits,
  ``1u << lane``, ``== 0xffffffff``): right on 32-lane warps only;
- ``agnostic``: the same program written for any warp size (``warpSize``,
  ``unsigned long long`` ballots with ``__popcll``, loops from ``warpSize / 2``).

Every random draw happens whatever the form, so both forms cut into the same
top-level declarations in the same order, and the units align one to one.
Families without a warp idiom give two identical texts. Every output a program
prints is independent of the warp size, so a two-sided run compares equal in a
64-lane emulation too.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field, replace
from string import Template

from ..rules.diagnostics import rule_id
from .synth_style import decorate

__all__ = ["FAMILIES", "Program", "synthesize"]


@dataclass(frozen=True)
class Program:
    name: str
    family: str
    naive: str
    agnostic: str
    hazards: tuple[str, ...]
    """Hazard classes of the naive form (CASS diagnostic ids where one exists)."""
    domain: str
    description: str
    features: tuple[str, ...] = ()

    @property
    def has_hazards(self) -> bool:
        return bool(self.hazards)


# ----------------------------------------------------------------------------- style


@dataclass
class Style:
    indent: str
    braces: str  # "knr", "allman", "func" (function braces on their own line)
    comments: int  # 0 none, 1 line comments, 2 block comments
    ptr_left: bool  # "int* p" or "int *p"
    suffix_u: bool


def _style(rng: random.Random) -> Style:
    return Style(
        indent=rng.choice(["  ", "  ", "    ", "    ", "\t", "   "]),
        braces=rng.choice(["knr", "knr", "allman", "func"]),
        comments=rng.choice([0, 1, 1, 2]),
        ptr_left=rng.random() < 0.6,
        suffix_u=rng.random() < 0.5,
    )


_COMMENT = re.compile(r"^(\s*)//# (.*)$")
_TRAIL = re.compile(r"^(.*?\S)\s*//# (.*)$")


def _format(code: str, st: Style) -> str:
    """Canonical text (two-space indent, K&R braces, ``//#`` comments) in ``st``'s style."""
    out: list[str] = []
    for raw in code.split("\n"):
        line = raw.rstrip()
        m = _COMMENT.match(line)
        if m:
            if st.comments == 0:
                continue
            body = m.group(2)
            line = m.group(1) + (f"// {body}" if st.comments == 1 else f"/* {body} */")
        else:
            m = _TRAIL.match(line)
            if m:
                body = m.group(2)
                if st.comments == 0:
                    line = m.group(1)
                elif st.comments == 1:
                    line = f"{m.group(1)}  // {body}"
                else:
                    line = f"{m.group(1)}  /* {body} */"
        stripped = line.lstrip(" ")
        level = (len(line) - len(stripped)) // 2
        pad = st.indent * level
        if not stripped:
            out.append("")
            continue
        split = (
            stripped.endswith("{")
            and not stripped.startswith(("#", "do {", "//", "/*"))
            and not stripped.endswith("= {")
            and (st.braces == "allman" or (st.braces == "func" and level == 0))
        )
        if split and stripped != "{":
            head = stripped[:-1].rstrip()
            if head.startswith("} "):
                out.append(pad + "}")
                head = head[2:]
            out.append(pad + head)
            out.append(pad + "{")
        else:
            out.append(pad + stripped)
    return "\n".join(out)


# ----------------------------------------------------------------------------- names

# Vocabularies drawn from real code: short and long forms, snake and camel case,
# Hungarian-ish prefixes. Lists of one field never share a name with another's.
_IN = ["in", "src", "input", "data", "values", "vals", "source", "inp"]
_IN += ["in_data", "srcData", "samples", "elems", "g_in", "inBuf", "keysIn", "readings"]
_OUT = ["out", "dst", "output", "result", "res", "dest", "outv"]
_OUT += ["out_data", "dstBuf", "results", "g_out", "outBuf", "sink", "scoresOut", "partials"]
_N = ["n", "count", "len", "numElems", "size", "N", "num", "total"]
_N += ["nElems", "n_elems", "length", "numElements", "elemCount", "nTotal", "problemSize"]
_KPRE = ["", "k", "kernel_", "gpu", "dev"]
_KPRE += ["", "cu", "k_", "d_", "run"]
_KSUF = ["", "", "", "Kernel", "_kernel", "K", "Kern"]
# Abbreviations real code uses for words of kernel and helper names.
_ABBREV = {
    "reduce": "red",
    "histogram": "histo",
    "count": "cnt",
    "segment": "seg",
    "normalize": "norm",
    "prefix": "pfx",
    "matrix": "mat",
    "vector": "vec",
    "compute": "comp",
    "partial": "part",
    "bucket": "bkt",
    "aggregate": "agg",
    "transpose": "tr",
    "block": "blk",
    "warp": "wp",
    "lane": "ln",
    "score": "scr",
    "pattern": "pat",
    "totals": "tot",
}


def _camel(words: list[str], snake: bool) -> str:
    words = [p for w in words for p in re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", w).split()]
    if snake:
        return "_".join(w.lower() for w in words)
    return words[0].lower() + "".join(w[:1].upper() + w[1:] for w in words[1:])


class Names:
    """Identifier spelling of one program: every name is drawn once, up front.

    The same spelling serves both forms, so a renaming is applied consistently to
    source and target: the model learns the rewrite, not the names.
    """

    def __init__(self, rng: random.Random) -> None:
        self.snake = rng.random() < 0.4
        self.kpre = rng.choice(_KPRE)
        self.dev = rng.choice(
            ["d_{}", "d{}", "{}_d", "dev_{}", "g{}", "{}Dev", "{}_gpu", "gpu_{}", "dptr{}"]
        )
        self.host = rng.choice(
            ["h_{}", "h{}", "{}_h", "host_{}", "{}Host", "{}", "cpu_{}", "{}_cpu", "hst{}"]
        )
        self.n = rng.choice(_N)
        self.inn = rng.choice(_IN)
        self.out = rng.choice([o for o in _OUT if o != self.inn])
        self.tid = rng.choice(
            ["tid", "i", "idx", "gid", "gi", "index", "gtid", "globalIdx", "g_idx", "thread_id"]
        )
        self.lane = rng.choice(
            ["lane", "laneId", "lane_id", "ln", "l", "lane_idx", "laneIdx", "lid", "myLane"]
        )
        self.warp = rng.choice(
            ["warp", "warpId", "warp_id", "wid", "w", "warpIdx", "warp_idx", "wIdx", "warpNo"]
        )
        self.nwarps = rng.choice(
            ["nwarps", "numWarps", "warpsPerBlock", "nWarps", "warps", "num_warps", "warpCount"]
        )
        self.val = rng.choice(
            ["v", "val", "acc", "sum", "s", "x0", "partial", "accum", "tmp", "running", "mySum"]
        )
        self.off = rng.choice(["offset", "o", "off", "delta", "d", "step", "ofs", "dist", "lm"])
        self.bits = rng.choice(
            ["bits", "mask", "ballot", "vote", "b", "m", "vmask", "predBits", "voteBits", "bmask"]
        )
        self.smem = rng.choice(
            ["sh", "smem", "shared", "sdata", "tile", "buf", "scratch", "s_data", "shmem", "lds"]
        )
        self.threads = rng.choice(
            ["threads", "block", "blockSize", "tpb", "nthreads", "BS", "threadsPerBlock", "TPB"]
        )
        self.blocks = rng.choice(
            ["blocks", "grid", "gridSize", "nblocks", "numBlocks", "nBlocks", "blocksPerGrid"]
        )
        self.bad = rng.choice(
            ["bad", "errors", "mismatches", "wrong", "nbad", "failures", "nErr", "num_bad"]
        )
        self.h = rng.choice(["h", "hash", "sum", "crc", "digest", "chk", "checksum", "fp", "sig"])
        self.stream = rng.choice(["stream", "s", "st", "strm", "queue", "stream0", "cuStream"])
        if self.h == self.val:
            self.h = "hsh"
        # Drawn last: the draws of the names above stay where they were.
        self.ksuf = rng.choice(_KSUF)
        self.abbrev = rng.random() < 0.25
        self.item = rng.choice(["item", "row", "seg", "bucket", "walker", "node", "query"])
        self.items = rng.choice(["items", "numItems", "nItems", "num_items", "nSeg", "nRows"])
        self.leader = rng.choice(["leader", "owner", "first", "elected", "ldr", "head"])
        self.peers = rng.choice(["peers", "group", "same_key", "peerMask", "mates", "grp"])
        self.key = rng.choice(["key", "k0", "bin", "bkt", "hashKey", "slot", "pat"])
        self.hist = rng.choice(["hist", "histo", "freq", "binCounts", "tally", "bucket_counts"])
        self.keys = rng.choice(["keys", "codes", "tokens", "symbols", "bytes_in", "labels"])
        self.counts = rng.choice(["counts", "blockCounts", "perBlock", "hitCount", "tallies"])
        self.thresh = rng.choice(["threshold", "thr", "cutoff", "limit", "minScore", "pivot"])
        self.rows = rng.choice(["rows", "nrows", "numRows", "n_rows", "nRow", "height"])
        self.cols = rng.choice(["cols", "ncols", "numCols", "n_cols", "nCol", "width"])
        self.mat = rng.choice(["A", "mat", "matrix", "weights", "Amat", "W"])
        self.queue = rng.choice(["queue", "outQueue", "worklist", "frontier", "q_out", "pending"])
        self.qlen = rng.choice(["qlen", "queueLen", "tail", "numOut", "qsize", "outCount"])
        self.offsets = rng.choice(["offsets", "rowPtr", "segStart", "csr_offsets", "indptr"])
        if self.stream == "queue":  # a queue-append kernel may name a parameter queue
            self.stream = "strm"

    def kernel(self, *words: str) -> str:
        parts = [p for w in words for p in re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", w).split()]
        if self.abbrev:
            parts = [_ABBREV.get(p.lower(), p) for p in parts]
        base = _camel(parts, self.snake)
        if self.ksuf:
            base += ("_" + self.ksuf.lower().lstrip("_")) if self.snake else self.ksuf
        if not self.kpre:
            return base
        if self.kpre.endswith("_"):
            return self.kpre + base
        return self.kpre + base[:1].upper() + base[1:]

    def d(self, key: str) -> str:
        return self.dev.format(key if self.dev.startswith("{") else key[:1].upper() + key[1:])

    def hname(self, key: str) -> str:
        if self.host == "{}":
            return "host" + key[:1].upper() + key[1:]
        return self.host.format(key if self.host.startswith("{") else key[:1].upper() + key[1:])


# ----------------------------------------------------------------------------- warp idioms


_WARP_MACROS = ["WARP_SIZE", "WARPSZ", "kWarp", "WARP", "kWarpSize", "LANES", ""]
_WARP_MACROS += ["WARP_SZ", "THREADS_PER_WARP"]


class Warp:
    """Naive and agnostic spellings of the warp idioms of one program.

    ``pair`` returns the naive or the agnostic spelling: the draw that picks a
    spelling is made whatever the form.
    """

    def __init__(self, rng: random.Random, naive: bool, nm: Names) -> None:
        self.naive = naive
        self.macro = rng.choice(_WARP_MACROS)
        self.lane_form = rng.randrange(4)
        self.warp_form = rng.randrange(3)
        self.shift = rng.choice([">>= 1", "/= 2"])
        self.unroll = rng.random() < 0.4
        self.mask = rng.choice(["0xffffffff", "0xffffffffu", "FULL_MASK", "~0u", "kFull"])
        self.const_kw = rng.choice(["constexpr int", "static constexpr int", "const int"])
        self.mask_name = rng.choice(["kFull", "kFullMask", "kAllLanes", "kMaskAll"])
        if self.mask == "kFull":
            self.mask = self.mask_name
        self.uint = rng.choice(["unsigned", "unsigned int", "uint32_t"])
        self.half = rng.choice(["warpSize / 2", "warpSize >> 1"])
        self.nm = nm
        self.labels: set[str] = set()

    def literal(self) -> str:
        """The 32 of the naive form: a literal or the program's warp macro."""
        if self.macro:
            self.labels.add(rule_id("warp-size-literal"))
            return self.macro
        return "32"

    def lane(self, x: str = "threadIdx.x") -> str:
        if not self.naive:
            return f"{x} % warpSize" if self.lane_form != 1 else f"{x} & (warpSize - 1)"
        self.labels.add(rule_id("warp-lane-arith"))
        w = self.literal()
        forms = [f"{x} & 31", f"{x} % 32", f"{x} % {w}", f"{x} & ({w} - 1)"]
        return forms[self.lane_form]

    def warp(self, x: str = "threadIdx.x") -> str:
        if not self.naive:
            return f"{x} / warpSize"
        self.labels.add(rule_id("warp-lane-arith"))
        return [f"{x} >> 5", f"{x} / 32", f"{x} / {self.literal()}"][self.warp_form]

    def count(self, x: str = "blockDim.x") -> str:
        if not self.naive:
            return f"({x} + warpSize - 1) / warpSize" if self.warp_form else f"{x} / warpSize"
        self.labels.add(rule_id("warp-count"))
        return [f"{x} >> 5", f"{x} / 32", f"{x} / {self.literal()}"][self.warp_form]

    def start(self) -> str:
        """First offset of a shuffle reduction."""
        if not self.naive:
            return self.half
        self.labels.add(rule_id("shfl-offset"))
        if self.macro == "" or self.warp_form != 2:
            return "16"
        return f"{self.literal()} / 2"

    def limit(self) -> str:
        """Upper bound of an offset loop that counts up (scans)."""
        if not self.naive:
            return "warpSize"
        self.labels.add(rule_id("shfl-offset"))
        return "32" if self.warp_form != 2 or not self.macro else self.literal()

    def last(self) -> str:
        """Last lane of a warp."""
        if not self.naive:
            return "warpSize - 1"
        self.labels.add(rule_id("warp-lane-arith"))
        return "31"

    def ballot_t(self) -> str:
        if not self.naive:
            return "unsigned long long"
        self.labels.add(rule_id("ballot-width"))
        return self.uint

    def popc(self) -> str:
        return "__popc" if self.naive else "__popcll"

    def ffs(self) -> str:
        return "__ffs" if self.naive else "__ffsll"

    def one(self) -> str:
        if not self.naive:
            return "1ull"
        self.labels.add(rule_id("lane-mask-width"))
        return "1u"

    def glue(self) -> str:
        """Macros the program's idioms name (naive form: the warp macro)."""
        lines = []
        if self.mask == "FULL_MASK":
            lines.append("#define FULL_MASK 0xffffffffu")
        if self.naive and self.macro and not self.macro.startswith("k"):
            lines.append(f"#define {self.macro} 32")
        return "\n".join(lines)

    def consts(self) -> str:
        """Constants the idioms name: a declaration in both forms, so units stay aligned."""
        parts = []
        if self.mask.startswith("k"):
            parts.append(f"constexpr unsigned {self.mask} = 0xffffffffu;")
        if self.macro.startswith("k"):
            if self.naive:
                parts.append(f"{self.const_kw} {self.macro} = 32;")
            else:
                parts.append(
                    "constexpr int kMaxWarps = 1024 / 32;  //# 32 lanes: the smallest warp"
                )
        return "\n".join(parts)


# ----------------------------------------------------------------------------- host


@dataclass
class Buf:
    key: str
    ctype: str
    count: str
    role: str  # "in", "out", "io"
    init: str = "0"  # host expression of i for inputs


@dataclass
class Launch:
    kernel: str
    grid: str
    block: str
    smem: str | None
    args: list[str]


@dataclass
class Parts:
    device: list[str]
    params: list[str]
    bufs: list[Buf]
    launches: list[Launch]
    check: str
    """Host code using ``$h_<key>`` names; sets ``bad`` and folds outputs into ``h``."""
    pre: list[str] = field(default_factory=list)
    """Host lines before the launches, with ``$CK`` for the error check."""
    helpers: list[str] = field(default_factory=list)
    """Host functions (reference computations) placed before main."""
    domain: str = "basic"
    description: str = ""
    features: tuple[str, ...] = ()


_FOLD = re.compile(r"FOLD\(([^;]*)\);")

_CHECKS = ["CHECK", "CUDA_CHECK", "CK", "CUDA_TRY", "gpuErrchk", "checkCuda", "CU"]
_CHECKS += ["CUDA_SAFE_CALL", "CHECK_CUDA", "cudaCheck"]


class Host:
    def __init__(self, rng: random.Random) -> None:
        self.mode = rng.choice(["sync", "sync", "stream", "managed"])
        self.check = rng.choice(_CHECKS)
        self.check_fn = rng.random() < 0.35
        self.vectors = rng.random() < 0.5
        self.events = rng.random() < 0.5
        self.last_error = rng.choice(["cudaGetLastError", "cudaPeekAtLastError"])
        self.device_sync = rng.random() < 0.5
        self.memset = rng.random() < 0.7  # kept: the draw sequence of every seed stays put
        self.new_alloc = rng.random() < 0.5
        self.fnv = rng.randrange(3)
        self.early_return = rng.random() < 0.5

    def glue(self) -> str:
        c = self.check
        if self.check_fn:
            return f"#define {c}(call) check_cuda((call), __FILE__, __LINE__)"
        return "\n".join(
            [
                f"#define {c}(call)                                                      \\",
                "  do {                                                                 \\",
                "    cudaError_t err_ = (call);                                         \\",
                "    if (err_ != cudaSuccess) {                                         \\",
                '      printf("VERDICT: FAIL %s at %s:%d\\n", cudaGetErrorString(err_), \\',
                "             __FILE__, __LINE__);                                      \\",
                "      exit(1);                                                         \\",
                "    }                                                                  \\",
                "  } while (0)",
            ]
        )

    def check_decl(self) -> str | None:
        if not self.check_fn:
            return None
        return "\n".join(
            [
                "static void check_cuda(cudaError_t err, const char* file, int line) {",
                "  if (err != cudaSuccess) {",
                '    printf("VERDICT: FAIL %s at %s:%d\\n", cudaGetErrorString(err), file, line);',
                "    exit(1);",
                "  }",
                "}",
            ]
        )

    def fold(self, h: str, v: str) -> str:
        """One output value folded into the checksum."""
        if self.fnv == 0:
            return f"{h} = ({h} ^ (uint32_t)({v})) * 16777619u;"
        if self.fnv == 1:
            return f"{h} = {h} * 31u + (uint32_t)({v});"
        return f"{h} ^= (uint32_t)({v}) + 0x9e3779b9u + ({h} << 6) + ({h} >> 2);"

    def seed(self) -> str:
        return ["2166136261u", "17u", "0u"][self.fnv]


def _main(p: Parts, host: Host, nm: Names, rng: random.Random) -> str:
    """The host program around a family's kernels."""
    ck = host.check
    h = nm.h
    bad = nm.bad
    lines: list[str] = ["int main() {"]
    lines += ["  " + x for x in p.params]
    names: dict[str, str] = {"CK": ck, "h": h, "bad": bad, "fold": ""}
    managed = host.mode == "managed"
    pinned = host.mode == "stream"
    stream = nm.stream
    for b in p.bufs:
        hn = nm.d(b.key) if managed else nm.hname(b.key)
        names[f"h_{b.key}"] = hn
        names[f"d_{b.key}"] = nm.d(b.key)
    if pinned:
        lines.append(f"  cudaStream_t {stream};")
        lines.append(f"  {ck}(cudaStreamCreate(&{stream}));")
    if host.events:
        lines.append("  cudaEvent_t start, stop;")
        lines.append(f"  {ck}(cudaEventCreate(&start));")
        lines.append(f"  {ck}(cudaEventCreate(&stop));")
    # host and device buffers
    for b in p.bufs:
        hn, dn = names[f"h_{b.key}"], names[f"d_{b.key}"]
        nbytes = f"({b.count}) * sizeof({b.ctype})"
        if managed:
            lines.append(f"  {b.ctype}* {dn} = nullptr;")
            lines.append(f"  {ck}(cudaMallocManaged(&{dn}, {nbytes}));")
            continue
        if pinned:
            lines.append(f"  {b.ctype}* {hn} = nullptr;")
            lines.append(f"  {ck}(cudaMallocHost(&{hn}, {nbytes}));")
        elif host.vectors:
            lines.append(f"  std::vector<{b.ctype}> {hn}({b.count});")
        elif host.new_alloc:
            lines.append(f"  {b.ctype}* {hn} = new {b.ctype}[{b.count}];")
        else:
            lines.append(f"  {b.ctype}* {hn} = ({b.ctype}*)malloc({nbytes});")
        lines.append(f"  {b.ctype}* {dn} = nullptr;")
        lines.append(f"  {ck}(cudaMalloc(&{dn}, {nbytes}));")
    for b in p.bufs:
        if b.role in ("in", "io"):
            hn = names[f"h_{b.key}"]
            lines.append(f"  for (int i = 0; i < ({b.count}); ++i) {hn}[i] = {b.init};")

    def hptr(b: Buf) -> str:
        hn = names[f"h_{b.key}"]
        return f"{hn}.data()" if host.vectors and not pinned and not managed else hn

    lines += ["  " + Template(x).substitute(names) for x in p.pre]
    if not managed:
        for b in p.bufs:
            if b.role in ("in", "io"):
                dn = names[f"d_{b.key}"]
                nbytes = f"({b.count}) * sizeof({b.ctype})"
                if pinned:
                    lines.append(
                        f"  {ck}(cudaMemcpyAsync({dn}, {hptr(b)}, {nbytes}, "
                        f"cudaMemcpyHostToDevice, {stream}));"
                    )
                else:
                    lines.append(
                        f"  {ck}(cudaMemcpy({dn}, {hptr(b)}, {nbytes}, cudaMemcpyHostToDevice));"
                    )
    for b in p.bufs:
        if b.role == "out":
            dn = names[f"d_{b.key}"]
            nbytes = f"({b.count}) * sizeof({b.ctype})"
            if pinned:
                lines.append(f"  {ck}(cudaMemsetAsync({dn}, 0, {nbytes}, {stream}));")
            else:  # kernels accumulate into their outputs with atomics
                lines.append(f"  {ck}(cudaMemset({dn}, 0, {nbytes}));")
    if host.events:
        lines.append(f"  {ck}(cudaEventRecord(start{', ' + stream if pinned else ''}));")
    for la in p.launches:
        args = ", ".join(Template(a).substitute(names) for a in la.args)
        cfg = [la.grid, la.block]
        if la.smem is not None or pinned:
            cfg.append(la.smem if la.smem is not None else "0")
        if pinned:
            cfg.append(stream)
        lines.append(f"  {la.kernel}<<<{', '.join(cfg)}>>>({args});")
        lines.append(f"  {ck}({host.last_error}());")
    if host.events:
        lines.append(f"  {ck}(cudaEventRecord(stop{', ' + stream if pinned else ''}));")
    if managed:
        lines.append(f"  {ck}(cudaDeviceSynchronize());")
    else:
        for b in p.bufs:
            if b.role in ("out", "io"):
                dn = names[f"d_{b.key}"]
                nbytes = f"({b.count}) * sizeof({b.ctype})"
                if pinned:
                    lines.append(
                        f"  {ck}(cudaMemcpyAsync({hptr(b)}, {dn}, {nbytes}, "
                        f"cudaMemcpyDeviceToHost, {stream}));"
                    )
                else:
                    lines.append(
                        f"  {ck}(cudaMemcpy({hptr(b)}, {dn}, {nbytes}, cudaMemcpyDeviceToHost));"
                    )
        if pinned:
            lines.append(f"  {ck}(cudaStreamSynchronize({stream}));")
        elif host.device_sync:
            lines.append(f"  {ck}(cudaDeviceSynchronize());")
    if host.events:
        lines.append(f"  {ck}(cudaEventSynchronize(stop));")
        lines.append("  float ms = 0.0f;")
        lines.append(f"  {ck}(cudaEventElapsedTime(&ms, start, stop));")
        lines.append("  (void)ms;  //# timing is not printed: stdout must be deterministic")
    lines.append(f"  uint32_t {h} = {host.seed()};")
    lines.append(f"  int {bad} = 0;")
    body = Template(p.check).substitute(names)
    body = _FOLD.sub(lambda m: host.fold(h, m.group(1)), body)
    lines += ["  " + x if x else "" for x in body.split("\n")]
    # teardown
    for b in p.bufs:
        hn, dn = names[f"h_{b.key}"], names[f"d_{b.key}"]
        lines.append(f"  {ck}(cudaFree({dn}));")
        if managed:
            continue
        if pinned:
            lines.append(f"  {ck}(cudaFreeHost({hn}));")
        elif not host.vectors:
            lines.append(f"  delete[] {hn};" if host.new_alloc else f"  free({hn});")
    if pinned:
        lines.append(f"  {ck}(cudaStreamDestroy({stream}));")
    if host.events:
        lines.append(f"  {ck}(cudaEventDestroy(start));")
        lines.append(f"  {ck}(cudaEventDestroy(stop));")
    lines.append(f"  if ({bad}) {{")
    lines.append(f'    printf("VERDICT: FAIL %d mismatches\\n", {bad});')
    lines.append("    return 1;")
    lines.append("  }")
    lines.append(f'  printf("VERDICT: PASS checksum=%08x\\n", {h});')
    lines.append("  return 0;")
    lines.append("}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- families
# Each family draws its parameters first, then renders with the Warp object, whose
# spellings depend on the form but whose draws do not.


def _ptr(st: Style, t: str) -> str:
    return f"{t}* " if st.ptr_left else f"{t} *"


def _ints(rng: random.Random) -> str:
    """A deterministic integer input pattern of i, small enough to sum without overflow."""
    a, b, m = rng.choice([3, 7, 13, 37, 101]), rng.randrange(1, 50), rng.choice([17, 29, 61, 97])
    return f"(int)((i * {a} + {b}) % {m})"


def _quarters(rng: random.Random) -> str:
    """Floats on a quarter grid: sums of thousands stay exact in any order."""
    a, b, m = rng.choice([5, 11, 13]), rng.randrange(1, 9), rng.choice([9, 17, 33])
    return f"(float)((i * {a} + {b}) % {m}) * 0.25f"


def fam_map(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    n = rng.choice([1000, 4096, 10007, 65536, 100000, 3 * 1024 + 17])
    t = rng.choice([128, 256, 512, 192])
    op = rng.randrange(5)
    kind = rng.choice(["float", "int"])
    k = nm.kernel(rng.choice(["saxpy", "scale", "axpb", "poly", "clampMap", "fuse"]))
    i, nn = nm.tid, nm.n
    P = _ptr(st, kind)
    cP = "const " + P
    idx = rng.choice(
        [
            "blockIdx.x * blockDim.x + threadIdx.x",
            "threadIdx.x + blockIdx.x * blockDim.x",
            "blockDim.x * blockIdx.x + threadIdx.x",
        ]
    )
    a, b = rng.choice(["2", "3", "5"]), rng.choice(["1", "7", "-4"])
    if kind == "float":
        a, b = a + ".0f", b + ".0f"
        init = _quarters(rng)
    else:
        init = _ints(rng)
    exprs = [
        (f"{a} * x + y", f"{a} * x + y"),
        (f"x * x - {b} * y", f"x * x - {b} * y"),
        (f"(x > y ? x : y) + {b}", f"(x > y ? x : y) + {b}"),
        (f"x * {a} - y + {b}", f"x * {a} - y + {b}"),
        ("(x - y) * (x + y)", "(x - y) * (x + y)"),
    ]
    dev_e, ref_e = exprs[op]
    guard = rng.random() < 0.5
    lines = [
        "//# each thread combines one element of both inputs",
        f"__global__ void {k}({cP}xs, {cP}ys, {P}{nm.out}, int {nn}) {{",
        f"  int {i} = {idx};",
    ]
    if guard:
        lines += [
            f"  if ({i} < {nn}) {{",
            f"    {kind} x = xs[{i}], y = ys[{i}];",
            f"    {nm.out}[{i}] = {dev_e};",
            "  }",
        ]
    else:
        lines += [
            f"  if ({i} >= {nn}) return;",
            f"  {kind} x = xs[{i}];",
            f"  {kind} y = ys[{i}];",
            f"  {nm.out}[{i}] = {dev_e};",
        ]
    lines.append("}")
    check = "\n".join(
        [
            "for (int i = 0; i < $n; ++i) {",
            f"  {kind} x = $h_x[i], y = $h_y[i];",
            f"  {kind} want = {ref_e};",
            "  if ($h_o[i] != want) ++$bad;",
            "  FOLD((int)(want * 4));" if kind == "float" else "  FOLD(want);",
            "}",
        ]
    )
    init2 = init.replace("i *", "(i + 3) *")
    return Parts(
        device=["\n".join(lines)],
        params=[f"const int {nm.n} = {n};", f"const int {nm.threads} = {t};"],
        bufs=[
            Buf("x", kind, nm.n, "in", init),
            Buf("y", kind, nm.n, "in", init2),
            Buf("o", kind, nm.n, "out"),
        ],
        launches=[
            Launch(
                k,
                f"({nm.n} + {nm.threads} - 1) / {nm.threads}",
                nm.threads,
                None,
                ["$d_x", "$d_y", "$d_o", nm.n],
            )
        ],
        check=check.replace("$n", nm.n),
        domain="basic-vector",
        description="elementwise map of two vectors checked against the CPU",
    )


def fam_gridstride(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    n = rng.choice([50000, 123457, 262144, 99991])
    t = rng.choice([128, 256])
    k = nm.kernel(rng.choice(["hashMix", "mixAll", "transform", "scramble"]))
    i, nn = nm.tid, nm.n
    mul = rng.choice(["0x9e3779b1u", "2654435761u", "0x85ebca6bu"])
    sh = rng.choice(["13", "15", "16", "11"])
    helper = rng.random() < 0.6
    fn = _camel(["mix", "bits"], nm.snake)
    dev: list[str] = []
    if helper:
        dev.append(
            "\n".join(
                [
                    f"__host__ __device__ inline unsigned {fn}(unsigned v) {{",
                    f"  v ^= v >> {sh};",
                    f"  v *= {mul};",
                    f"  v ^= v >> {sh};",
                    "  return v;",
                    "}",
                ]
            )
        )
        body = [f"    {nm.out}[{i}] = {fn}({nm.inn}[{i}] + seed);"]
        ref = f"{fn}($h_x[i] + seed)"
    else:
        body = [
            f"    unsigned v = {nm.inn}[{i}] + seed;",
            f"    v ^= v >> {sh};",
            f"    v *= {mul};",
            f"    v ^= v >> {sh};",
            f"    {nm.out}[{i}] = v;",
        ]
        ref = "0"
    loop = rng.random() < 0.5
    lines = [
        "//# grid-stride loop: any grid size covers the whole array",
        f"__global__ void {k}(const unsigned* {nm.inn}, unsigned* {nm.out}, int {nn},"
        " unsigned seed) {",
    ]
    if loop:
        lines += [
            f"  for (int {i} = blockIdx.x * blockDim.x + threadIdx.x; {i} < {nn};"
            f" {i} += blockDim.x * gridDim.x) {{",
            *body,
            "  }",
        ]
    else:
        lines += [
            "  int stride = gridDim.x * blockDim.x;",
            f"  int {i} = blockIdx.x * blockDim.x + threadIdx.x;",
            f"  while ({i} < {nn}) {{",
            *body,
            f"    {i} += stride;",
            "  }",
        ]
    lines.append("}")
    dev.append("\n".join(lines))
    seed = rng.randrange(1, 1 << 16)
    if helper:
        check = "\n".join(
            [
                f"const unsigned seed = {seed}u;",
                f"for (int i = 0; i < {nn}; ++i) {{",
                f"  unsigned want = {ref};",
                "  if ($h_o[i] != want) ++$bad;",
                "  FOLD(want);",
                "}",
            ]
        )
    else:
        check = "\n".join(
            [
                f"for (int i = 0; i < {nn}; ++i) {{",
                f"  unsigned v = $h_x[i] + {seed}u;",
                f"  v ^= v >> {sh};",
                f"  v *= {mul};",
                f"  v ^= v >> {sh};",
                "  if ($h_o[i] != v) ++$bad;",
                "  FOLD(v);",
                "}",
            ]
        )
    use_props = rng.random() < 0.6
    pre = []
    grid = nm.blocks
    if use_props:
        pre = [
            "cudaDeviceProp prop;",
            "$CK(cudaGetDeviceProperties(&prop, 0));",
            f"const int {nm.blocks} = prop.multiProcessorCount * {rng.choice([2, 4, 8])};",
        ]
    else:
        pre = [f"const int {nm.blocks} = {rng.choice([16, 40, 96, 120])};"]
    return Parts(
        device=dev,
        params=[f"const int {nn} = {n};", f"const int {nm.threads} = {t};"],
        bufs=[
            Buf("x", "unsigned", nn, "in", "(unsigned)(i * 2654435761u)"),
            Buf("o", "unsigned", nn, "out"),
        ],
        launches=[Launch(k, grid, nm.threads, None, ["$d_x", "$d_o", nn, f"{seed}u"])],
        check=check,
        pre=pre,
        domain="basic-vector",
        description="grid-stride integer hash over an array",
        features=("grid-stride",),
    )


def _warp_reduce_fn(rng: random.Random, nm: Names, w: Warp, T: str, mask: str) -> tuple[str, str]:
    """A warp shuffle reduction helper: (name, declaration)."""
    fn = (
        _camel(["warp", "reduce", "sum"], nm.snake)
        if rng.random() < 0.5
        else _camel(["warp", "sum"], nm.snake)
    )
    xor = rng.random() < 0.4
    shfl = "__shfl_xor_sync" if xor else "__shfl_down_sync"
    o = nm.off
    templ = rng.random() < 0.3
    head = (
        f"template <typename T>\n__device__ __forceinline__ T {fn}(T v) {{"
        if templ
        else f"__device__ __forceinline__ {T} {fn}({T} v) {{"
    )
    lines = [head]
    if w.unroll:
        lines.append("#pragma unroll")
    lines += [
        f"  for (int {o} = {w.start()}; {o} > 0; {o} {w.shift}) {{",
        f"    v += {shfl}({mask}, v, {o});",
        "  }",
        "  return v;",
        "}",
    ]
    return fn, "\n".join(lines)


def fam_block_reduce_warp(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    """Per-warp shuffle sums, partials in shared memory, the first warp sums them."""
    t = rng.choice([128, 256, 512, 1024, 192 + 64])
    blocks = rng.choice([37, 64, 100, 150])
    T = rng.choice(["int", "unsigned", "float"])
    fn, helper = _warp_reduce_fn(rng, nm, w, T, w.mask)
    atomic_total = rng.random() < 0.3
    k = nm.kernel(rng.choice(["blockSum", "reduce", "sumBlocks", "partialSums"]))
    ln, wp, v, sm = nm.lane, nm.warp, nm.val, nm.smem
    lines = [
        f"__global__ void {k}(const {T}* {nm.inn}, {T}* {nm.out}, int {nm.n}) {{",
        f"  __shared__ {T} {sm}[32];  //# one slot per warp: 1024 threads / 32 lanes at most",
        f"  int {nm.tid} = blockIdx.x * blockDim.x + threadIdx.x;",
        f"  int {ln} = {w.lane()};",
        f"  int {wp} = {w.warp()};",
        f"  {T} {v} = {nm.tid} < {nm.n} ? {nm.inn}[{nm.tid}] : ({T})0;",
        f"  {v} = {fn}({v});",
        f"  if ({ln} == 0) {sm}[{wp}] = {v};",
        "  __syncthreads();",
        f"  if ({wp} == 0) {{",
        f"    int {nm.nwarps} = {w.count()};",
        f"    {v} = {ln} < {nm.nwarps} ? {sm}[{ln}] : ({T})0;",
        f"    {v} = {fn}({v});",
    ]
    if atomic_total:
        lines.append(f"    if ({ln} == 0) atomicAdd(&{nm.out}[0], {v});")
    else:
        lines.append(f"    if ({ln} == 0) {nm.out}[blockIdx.x] = {v};")
    lines += ["  }", "}"]
    nout = "1" if atomic_total else nm.blocks
    init = _quarters(rng) if T == "float" else _ints(rng)
    if atomic_total:
        check = "\n".join(
            [
                f"{T} want = 0;",
                f"for (int i = 0; i < {nm.n}; ++i) want += $h_x[i];",
                "if ($h_o[0] != want) ++$bad;",
                "FOLD((long long)(want * 4));" if T == "float" else "FOLD(want);",
            ]
        )
    else:
        check = "\n".join(
            [
                f"for (int b = 0; b < {nm.blocks}; ++b) {{",
                f"  {T} want = 0;",
                f"  for (int i = b * {nm.threads}; i < (b + 1) * {nm.threads} && i < {nm.n}; ++i)"
                " want += $h_x[i];",
                "  if ($h_o[b] != want) ++$bad;",
                "  FOLD((long long)(want * 4));" if T == "float" else "  FOLD(want);",
                "}",
            ]
        )
    n_expr = f"{nm.blocks} * {nm.threads} - {rng.choice([0, 0, 5, 33])}"
    return Parts(
        device=[helper, "\n".join(lines)],
        params=[
            f"const int {nm.threads} = {t};",
            f"const int {nm.blocks} = {blocks};",
            f"const int {nm.n} = {n_expr};",
        ],
        bufs=[Buf("x", T, nm.n, "in", init), Buf("o", T, nout, "out")],
        launches=[Launch(k, nm.blocks, nm.threads, None, ["$d_x", "$d_o", nm.n])],
        check=check,
        domain="sort-scan-reduce",
        description="block sums from warp shuffle reductions and a shared array of warp partials",
        features=("warp-shuffle", "shared-memory"),
    )


def fam_warp_atomic(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    """Grid-stride accumulation, a warp shuffle sum, lane 0 adds it to a global total."""
    t = rng.choice([128, 256, 512])
    T = rng.choice(["int", "unsigned long long"])
    fn, helper = _warp_reduce_fn(rng, nm, w, T, w.mask)
    k = nm.kernel(rng.choice(["totalSum", "sumAll", "accumulate", "dotCount"]))
    v = nm.val
    sq = rng.random() < 0.5 and T != "int"  # squares of thousands of ints overflow int
    term = f"({T}){nm.inn}[{nm.tid}] * {nm.inn}[{nm.tid}]" if sq else f"{nm.inn}[{nm.tid}]"
    lines = [
        f"__global__ void {k}(const int* {nm.inn}, {T}* {nm.out}, int {nm.n}) {{",
        f"  {T} {v} = 0;",
        f"  for (int {nm.tid} = blockIdx.x * blockDim.x + threadIdx.x; {nm.tid} < {nm.n};"
        f" {nm.tid} += gridDim.x * blockDim.x)",
        f"    {v} += {term};",
        f"  {v} = {fn}({v});",
        f"  if (({w.lane()}) == 0) atomicAdd({nm.out}, {v});  //# one atomic per warp",
        "}",
    ]
    check = "\n".join(
        [
            f"{T} want = 0;",
            f"for (int i = 0; i < {nm.n}; ++i) want += "
            + ("($T)$h_x[i] * $h_x[i];" if sq else "$h_x[i];").replace("$T", T),
            "if ($h_o[0] != want) ++$bad;",
            "FOLD(want & 0xffffffffu);",
            "FOLD(want >> 16);",
        ]
    )
    return Parts(
        device=[helper, "\n".join(lines)],
        params=[
            f"const int {nm.n} = {rng.choice([100000, 65536 + 7, 250000])};",
            f"const int {nm.threads} = {t};",
        ],
        bufs=[Buf("x", "int", nm.n, "in", _ints(rng)), Buf("o", T, "1", "out")],
        launches=[
            Launch(k, str(rng.choice([24, 60, 128])), nm.threads, None, ["$d_x", "$d_o", nm.n])
        ],
        check=check,
        domain="sort-scan-reduce",
        description="grid-wide sum: warp shuffle reduction then one atomic per warp",
        features=("warp-shuffle", "atomics"),
    )


def fam_ballot_count(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    """Per-block predicate counts from ballots."""
    t = rng.choice([64, 128, 256, 512])
    blocks = rng.choice([40, 96, 128])
    thr = rng.randrange(10, 80)
    k = nm.kernel(rng.choice(["countAbove", "countHits", "tally", "voteCount"]))
    bt, b = w.ballot_t(), nm.bits
    variant = rng.randrange(3)
    ln = nm.lane
    lines = [
        f"__global__ void {k}(const int* {nm.inn}, int threshold, int* counts, int {nm.n}) {{",
        f"  int {nm.tid} = blockIdx.x * blockDim.x + threadIdx.x;",
        f"  bool pred = {nm.tid} < {nm.n} && {nm.inn}[{nm.tid}] > threshold;",
        f"  {bt} {b} = __ballot_sync({w.mask}, pred);  //# one bit per lane",
    ]
    if variant == 0:
        lines.append(f"  if (({w.lane()}) == 0) atomicAdd(&counts[blockIdx.x], {w.popc()}({b}));")
    elif variant == 1:
        lines += [
            f"  int {ln} = {w.lane()};",
            f"  int c = {w.popc()}({b});",
            f"  if ({ln} == 0 && c > 0) atomicAdd(&counts[blockIdx.x], c);",
        ]
    else:
        # The lowest voting lane adds: a leader election through __ffs of the ballot.
        lines += [
            f"  int {ln} = {w.lane()};",
            f"  int leader = {w.ffs()}({b}) - 1;",
            f"  if ({b} != 0 && {ln} == leader) atomicAdd(&counts[blockIdx.x], {w.popc()}({b}));",
        ]
    lines.append("}")
    check = "\n".join(
        [
            f"for (int b = 0; b < {nm.blocks}; ++b) {{",
            "  int want = 0;",
            f"  for (int i = b * {nm.threads}; i < (b + 1) * {nm.threads} && i < {nm.n}; ++i)",
            f"    want += $h_x[i] > {thr};",
            "  if ($h_o[b] != want) ++$bad;",
            "  FOLD(want);",
            "}",
        ]
    )
    return Parts(
        device=["\n".join(lines)],
        params=[
            f"const int {nm.threads} = {t};",
            f"const int {nm.blocks} = {blocks};",
            f"const int {nm.n} = {nm.blocks} * {nm.threads} - {rng.choice([0, 3, 17])};",
        ],
        bufs=[
            Buf(
                "x",
                "int",
                nm.n,
                "in",
                "(int)((i * 37 + 11) % 101)",
            ),
            Buf("o", "int", nm.blocks, "out"),
        ],
        launches=[Launch(k, nm.blocks, nm.threads, None, ["$d_x", str(thr), "$d_o", nm.n])],
        check=check,
        domain="histogram",
        description="per-block predicate counts from warp ballots",
        features=("ballot", "atomics"),
    )


def fam_compact(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    """Order-preserving per-block stream compaction with ballots and warp offsets."""
    t = rng.choice([128, 256, 512])
    blocks = rng.choice([32, 64, 90])
    mod = rng.choice([3, 5, 7])
    k = nm.kernel(rng.choice(["compact", "selectKeep", "filterKeep", "streamCompact"]))
    bt, b, ln, wp, sm = w.ballot_t(), nm.bits, nm.lane, nm.warp, nm.smem
    lines = [
        "//# keeps the elements that pass, in order, packed at the start of each block's segment",
        f"__global__ void {k}(const int* {nm.inn}, int* {nm.out}, int* kept) {{",
        f"  __shared__ int {sm}[33];  //# warp counts, then their prefix; 1024 / 32 + 1 slots",
        f"  int {nm.tid} = blockIdx.x * blockDim.x + threadIdx.x;",
        f"  int {ln} = {w.lane()};",
        f"  int {wp} = {w.warp()};",
        f"  int {nm.val} = {nm.inn}[{nm.tid}];",
        f"  bool keep = ({nm.val} % {mod}) != 0;",
        f"  {bt} {b} = __ballot_sync({w.mask}, keep);",
        f"  {bt} below = {b} & (({w.one()} << {ln}) - 1);",
        f"  int rank = {w.popc()}(below);",
        f"  if ({ln} == 0) {sm}[{wp}] = {w.popc()}({b});",
        "  __syncthreads();",
        "  if (threadIdx.x == 0) {",
        f"    int {nm.nwarps} = {w.count()};",
        "    int run = 0;",
        f"    for (int j = 0; j < {nm.nwarps}; ++j) {{",
        f"      int c = {sm}[j];",
        f"      {sm}[j] = run;",
        "      run += c;",
        "    }",
        "    kept[blockIdx.x] = run;",
        "  }",
        "  __syncthreads();",
        f"  if (keep) {nm.out}[blockIdx.x * blockDim.x + {sm}[{wp}] + rank] = {nm.val};",
        "}",
    ]
    check = "\n".join(
        [
            f"for (int b = 0; b < {nm.blocks}; ++b) {{",
            "  int want = 0;",
            f"  for (int i = b * {nm.threads}; i < (b + 1) * {nm.threads}; ++i) {{",
            f"    if ($h_x[i] % {mod} == 0) continue;",
            f"    if ($h_o[b * {nm.threads} + want] != $h_x[i]) ++$bad;",
            "    FOLD($h_x[i]);",
            "    ++want;",
            "  }",
            "  if ($h_k[b] != want) ++$bad;",
            "}",
        ]
    )
    total = f"{nm.blocks} * {nm.threads}"
    return Parts(
        device=["\n".join(lines)],
        params=[f"const int {nm.threads} = {t};", f"const int {nm.blocks} = {blocks};"],
        bufs=[
            Buf("x", "int", total, "in", "(int)((i * 7919u) % 1000)"),
            Buf("o", "int", total, "out"),
            Buf("k", "int", nm.blocks, "out"),
        ],
        launches=[Launch(k, nm.blocks, nm.threads, None, ["$d_x", "$d_o", "$d_k"])],
        check=check,
        domain="data-structures",
        description="order-preserving stream compaction with warp ballots and lane masks",
        features=("ballot", "shared-memory"),
    )


def fam_warp_scan(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    """Block inclusive scan: shuffle-up scans per warp, warp totals in shared memory."""
    t = rng.choice([128, 256, 512])
    blocks = rng.choice([20, 48, 75])
    k = nm.kernel(rng.choice(["inclusiveScan", "scanBlock", "prefixSum", "blockScan"]))
    ln, wp, v, sm, o = nm.lane, nm.warp, nm.val, nm.smem, nm.off
    lines = [
        f"__global__ void {k}(const int* {nm.inn}, int* {nm.out}) {{",
        f"  __shared__ int {sm}[32];",
        f"  int {nm.tid} = blockIdx.x * blockDim.x + threadIdx.x;",
        f"  int {ln} = {w.lane()};",
        f"  int {wp} = {w.warp()};",
        f"  int {v} = {nm.inn}[{nm.tid}];",
    ]
    if w.unroll:
        lines.append("#pragma unroll")
    lines += [
        f"  for (int {o} = 1; {o} < {w.limit()}; {o} <<= 1) {{",
        f"    int up = __shfl_up_sync({w.mask}, {v}, {o});",
        f"    if ({ln} >= {o}) {v} += up;",
        "  }",
        f"  if ({ln} == {w.last()}) {sm}[{wp}] = {v};  //# the warp's total",
        "  __syncthreads();",
        "  if (threadIdx.x == 0) {",
        f"    for (int j = 1; j < {w.count()}; ++j) {sm}[j] += {sm}[j - 1];",
        "  }",
        "  __syncthreads();",
        f"  if ({wp} > 0) {v} += {sm}[{wp} - 1];",
        f"  {nm.out}[{nm.tid}] = {v};",
        "}",
    ]
    check = "\n".join(
        [
            f"for (int b = 0; b < {nm.blocks}; ++b) {{",
            "  int run = 0;",
            f"  for (int i = b * {nm.threads}; i < (b + 1) * {nm.threads}; ++i) {{",
            "    run += $h_x[i];",
            "    if ($h_o[i] != run) ++$bad;",
            "  }",
            "  FOLD(run);",
            "}",
        ]
    )
    total = f"{nm.blocks} * {nm.threads}"
    return Parts(
        device=["\n".join(lines)],
        params=[f"const int {nm.threads} = {t};", f"const int {nm.blocks} = {blocks};"],
        bufs=[Buf("x", "int", total, "in", _ints(rng)), Buf("o", "int", total, "out")],
        launches=[Launch(k, nm.blocks, nm.threads, None, ["$d_x", "$d_o"])],
        check=check,
        domain="sort-scan-reduce",
        description="block inclusive scan from warp shuffle-up scans",
        features=("warp-shuffle", "shared-memory"),
    )


def fam_warp_rows(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    """One warp per matrix row (GEMV / row sums); lane 0 broadcasts the row's bounds."""
    rows = rng.choice([300, 512, 1000])
    cols = rng.choice([96, 200, 257, 640])
    t = rng.choice([128, 256])
    k = nm.kernel(rng.choice(["rowDot", "gemvWarp", "rowSums", "matVec"]))
    ln, v, o = nm.lane, nm.val, nm.off
    broadcast = rng.random() < 0.5
    xor = rng.random() < 0.5
    shfl = "__shfl_xor_sync" if xor else "__shfl_down_sync"
    lines = [
        f"__global__ void {k}(const int* A, const int* xv, int* {nm.out}, int rows, int cols) {{",
        f"  int {ln} = {w.lane()};",
        f"  int row = blockIdx.x * ({w.count()}) + ({w.warp()});",
        "  if (row >= rows) return;  //# the whole warp leaves together",
    ]
    step = "warpSize" if not w.naive else ("32" if not w.macro else w.literal())
    if broadcast:
        lines += [
            "  int begin = 0;",
            f"  if ({ln} == 0) begin = row * cols;  //# lane 0 computes, the warp receives",
            f"  begin = __shfl_sync({w.mask}, begin, 0);",
        ]
        if w.naive:
            w.labels.add(rule_id("lane0-broadcast"))
    else:
        lines.append("  int begin = row * cols;")
    lines += [
        f"  int {v} = 0;",
        f"  for (int c = {ln}; c < cols; c += {step}) {v} += A[begin + c] * xv[c];",
        f"  for (int {o} = {w.start()}; {o} > 0; {o} {w.shift}) {v} += {shfl}({w.mask}, {v}, {o});",
        f"  if ({ln} == 0) {nm.out}[row] = {v};",
        "}",
    ]
    if w.naive:
        w.labels.add(rule_id("host-warp-count"))
        rpb = f"const int rowsPerBlock = {nm.threads} / 32;"
        pre = [rpb]
    else:
        pre = [
            "int ws = 0;",
            "$CK(cudaDeviceGetAttribute(&ws, cudaDevAttrWarpSize, 0));",
            f"const int rowsPerBlock = {nm.threads} / ws;",
        ]
    check = (
        "\n".join(
            [
                "for (int r = 0; r < ROWS; ++r) {",
                "  int want = 0;",
                "  for (int c = 0; c < COLS; ++c) want += $h_a[r * COLS + c] * $h_v[c];",
                "  if ($h_o[r] != want) ++$bad;",
                "  FOLD(want);",
                "}",
            ]
        )
        .replace("ROWS", "rows")
        .replace("COLS", "cols")
    )
    return Parts(
        device=["\n".join(lines)],
        params=[
            f"const int rows = {rows};",
            f"const int cols = {cols};",
            f"const int {nm.threads} = {t};",
        ],
        bufs=[
            Buf("a", "int", "rows * cols", "in", "(int)(i % 13) - 6"),
            Buf("v", "int", "cols", "in", "(int)(i % 7) + 1"),
            Buf("o", "int", "rows", "out"),
        ],
        pre=pre,
        launches=[
            Launch(
                k,
                "(rows + rowsPerBlock - 1) / rowsPerBlock",
                nm.threads,
                None,
                ["$d_a", "$d_v", "$d_o", "rows", "cols"],
            )
        ],
        check=check,
        domain="linear-algebra",
        description="matrix-vector product with one warp per row",
        features=("warp-shuffle",),
    )


def fam_warp_rows_norm(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    """A warp per row: the row sum is reduced, lane 0's result broadcast, every lane scales."""
    rows = rng.choice([200, 333, 512])
    cols = rng.choice([64, 100, 250, 512])
    t = rng.choice([128, 256, 512])
    scale = rng.choice([1000, 4096, 100])
    k = nm.kernel(rng.choice(["normalizeRows", "rowScale", "shareOfRow", "rowFractions"]))
    ln, v, o = nm.lane, nm.val, nm.off
    step = w.literal() if w.naive else "warpSize"
    lines = [
        f"__global__ void {k}(const int* A, int* {nm.out}, int rows, int cols) {{",
        f"  int {ln} = {w.lane()};",
        f"  int row = (blockIdx.x * blockDim.x + threadIdx.x) / {step};",
        "  if (row >= rows) return;",
        "  const int* r = A + row * cols;",
        f"  int {v} = 0;",
        f"  for (int c = {ln}; c < cols; c += {step}) {v} += r[c];",
        f"  for (int {o} = {w.start()}; {o} > 0; {o} {w.shift})",
        f"    {v} += __shfl_down_sync({w.mask}, {v}, {o});",
        f"  int rowSum = __shfl_sync({w.mask}, {v}, 0);  //# lane 0 holds the whole row",
        f"  for (int c = {ln}; c < cols; c += {step})",
        f"    {nm.out}[row * cols + c] = r[c] * {scale} / (rowSum + 1);",
        "}",
    ]
    if w.naive:
        w.labels.add(rule_id("lane0-broadcast"))
        w.labels.add(rule_id("host-warp-count"))
        pre = ["const int lanes = 32;"]
    else:
        pre = [
            "cudaDeviceProp prop;",
            "$CK(cudaGetDeviceProperties(&prop, 0));",
            "const int lanes = prop.warpSize;",
        ]
    check = "\n".join(
        [
            "for (int r = 0; r < rows; ++r) {",
            "  int s = 0;",
            "  for (int c = 0; c < cols; ++c) s += $h_a[r * cols + c];",
            "  for (int c = 0; c < cols; ++c) {",
            f"    int want = $h_a[r * cols + c] * {scale} / (s + 1);",
            "    if ($h_o[r * cols + c] != want) ++$bad;",
            "    FOLD(want);",
            "  }",
            "}",
        ]
    )
    return Parts(
        device=["\n".join(lines)],
        params=[
            f"const int rows = {rows};",
            f"const int cols = {cols};",
            f"const int {nm.threads} = {t};",
        ],
        pre=pre,
        bufs=[
            Buf("a", "int", "rows * cols", "in", "(int)((i * 7) % 50)"),
            Buf("o", "int", "rows * cols", "out"),
        ],
        launches=[
            Launch(
                k,
                f"(rows * lanes + {nm.threads} - 1) / {nm.threads}",
                nm.threads,
                None,
                ["$d_a", "$d_o", "rows", "cols"],
            )
        ],
        check=check,
        domain="linear-algebra",
        description="row normalization with one warp per row and a lane-0 broadcast of the row sum",
        features=("warp-shuffle",),
    )


def fam_all_lanes(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    """Counts with a fast path when every lane of the warp votes yes."""
    t = rng.choice([128, 256])
    blocks = rng.choice([64, 100])
    k = nm.kernel(rng.choice(["countPositive", "denseCount", "fastTally"]))
    b, ln = nm.bits, nm.lane
    alt = rng.random() < 0.5
    lines = [
        f"__global__ void {k}(const int* {nm.inn}, int* total) {{",
        f"  int {nm.tid} = blockIdx.x * blockDim.x + threadIdx.x;",
        f"  int {ln} = {w.lane()};",
        f"  bool yes = {nm.inn}[{nm.tid}] >= 0;",
    ]
    if w.naive:
        w.labels.add(rule_id("warp-mask32"))
        lines += [
            f"  {w.ballot_t()} {b} = __ballot_sync({w.mask}, yes);",
            f"  if ({b} == 0xffffffff) {{  //# every lane voted yes",
            f"    if ({ln} == 0) atomicAdd(total, 32);",
            "  } else if (yes) {",
            "    atomicAdd(total, 1);",
            "  }",
        ]
    elif alt:
        lines += [
            f"  {w.ballot_t()} {b} = __ballot_sync({w.mask}, yes);",
            f"  if ({w.popc()}({b}) == warpSize) {{  //# every lane voted yes",
            f"    if ({ln} == 0) atomicAdd(total, warpSize);",
            "  } else if (yes) {",
            "    atomicAdd(total, 1);",
            "  }",
        ]
    else:
        lines += [
            f"  bool all_ = __all_sync({w.mask}, yes);",
            "  if (all_) {  //# every lane voted yes",
            f"    if ({ln} == 0) atomicAdd(total, warpSize);",
            "  } else if (yes) {",
            "    atomicAdd(total, 1);",
            "  }",
        ]
    lines.append("}")
    check = "\n".join(
        [
            "int want = 0;",
            f"for (int i = 0; i < {nm.blocks} * {nm.threads}; ++i) want += $h_x[i] >= 0;",
            "if ($h_o[0] != want) ++$bad;",
            "FOLD(want);",
        ]
    )
    # Long runs of non-negative values make whole warps vote yes.
    init = "(i / 500) % 3 == 1 ? (int)(i % 5) - 2 : (int)(i % 11)"
    return Parts(
        device=["\n".join(lines)],
        params=[f"const int {nm.threads} = {t};", f"const int {nm.blocks} = {blocks};"],
        bufs=[
            Buf("x", "int", f"{nm.blocks} * {nm.threads}", "in", init),
            Buf("o", "int", "1", "out"),
        ],
        launches=[Launch(k, nm.blocks, nm.threads, None, ["$d_x", "$d_o"])],
        check=check,
        domain="histogram",
        description="predicate count with an all-lanes fast path",
        features=("ballot", "atomics"),
    )


def fam_warp_hist(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    """Warp-aggregated histogram: one ballot per bin, the leader adds the population."""
    bins = rng.choice([4, 8, 16])
    t = rng.choice([128, 256])
    n = rng.choice([20000, 65536, 40000 + 64 * 3])
    k = nm.kernel(rng.choice(["histWarp", "binCount", "aggHist", "histogram"]))
    b, ln = nm.bits, nm.lane
    lines = [
        f"__global__ void {k}(const unsigned char* keys, int* hist, int {nm.n}) {{",
        f"  __shared__ int local[{bins}];",
        f"  if (threadIdx.x < {bins}) local[threadIdx.x] = 0;",
        "  __syncthreads();",
        f"  int {ln} = {w.lane()};",
        f"  for (int base = blockIdx.x * blockDim.x; base < {nm.n};"
        " base += gridDim.x * blockDim.x) {",
        f"    int {nm.tid} = base + threadIdx.x;",
        f"    int key = {nm.tid} < {nm.n} ? keys[{nm.tid}] % {bins} : -1;",
        f"    for (int bin = 0; bin < {bins}; ++bin) {{",
        f"      {w.ballot_t()} {b} = __ballot_sync({w.mask}, key == bin);",
        f"      if ({ln} == 0 && {b}) atomicAdd(&local[bin], {w.popc()}({b}));",
        "    }",
        "  }",
        "  __syncthreads();",
        f"  if (threadIdx.x < {bins}) atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);",
        "}",
    ]
    check = "\n".join(
        [
            f"int want[{bins}] = {{0}};",
            f"for (int i = 0; i < {nm.n}; ++i) ++want[$h_k[i] % {bins}];",
            f"for (int j = 0; j < {bins}; ++j) {{",
            "  if ($h_o[j] != want[j]) ++$bad;",
            "  FOLD(want[j]);",
            "}",
        ]
    )
    return Parts(
        device=["\n".join(lines)],
        params=[f"const int {nm.n} = {n};", f"const int {nm.threads} = {t};"],
        bufs=[
            Buf("k", "unsigned char", nm.n, "in", "(unsigned char)((i * 2654435761u) >> 24)"),
            Buf("o", "int", str(bins), "out"),
        ],
        launches=[
            Launch(k, str(rng.choice([16, 32, 50])), nm.threads, None, ["$d_k", "$d_o", nm.n])
        ],
        check=check,
        domain="histogram",
        description="warp-aggregated histogram with one ballot per bin",
        features=("ballot", "atomics", "shared-memory"),
    )


def fam_tree_reduce(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    """Classic shared-memory tree reduction (no warp idiom)."""
    t = rng.choice([128, 256, 512])
    blocks = rng.choice([50, 64, 200])
    dyn = rng.random() < 0.5
    k = nm.kernel(rng.choice(["reduceShared", "treeSum", "blockReduce"]))
    sm = nm.smem
    decl = f"  extern __shared__ int {sm}[];" if dyn else f"  __shared__ int {sm}[{t}];"
    lines = [
        f"__global__ void {k}(const int* {nm.inn}, int* {nm.out}, int {nm.n}) {{",
        decl,
        "  unsigned t = threadIdx.x;",
        f"  int {nm.tid} = blockIdx.x * blockDim.x + t;",
        f"  {sm}[t] = {nm.tid} < {nm.n} ? {nm.inn}[{nm.tid}] : 0;",
        "  __syncthreads();",
        "  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {",
        f"    if (t < s) {sm}[t] += {sm}[t + s];",
        "    __syncthreads();",
        "  }",
        f"  if (t == 0) {nm.out}[blockIdx.x] = {sm}[0];",
        "}",
    ]
    check = "\n".join(
        [
            "long long gotSum = 0, wantSum = 0;",
            f"for (int b = 0; b < {nm.blocks}; ++b) gotSum += $h_o[b];",
            f"for (int i = 0; i < {nm.n}; ++i) wantSum += $h_x[i];",
            "if (gotSum != wantSum) ++$bad;",
            f"for (int b = 0; b < {nm.blocks}; ++b) FOLD($h_o[b]);",
        ]
    )
    return Parts(
        device=["\n".join(lines)],
        params=[
            f"const int {nm.threads} = {t};",
            f"const int {nm.blocks} = {blocks};",
            f"const int {nm.n} = {nm.blocks} * {nm.threads} - {rng.choice([0, 7, 100])};",
        ],
        bufs=[Buf("x", "int", nm.n, "in", _ints(rng)), Buf("o", "int", nm.blocks, "out")],
        launches=[
            Launch(
                k,
                nm.blocks,
                nm.threads,
                f"{nm.threads} * sizeof(int)" if dyn else None,
                ["$d_x", "$d_o", nm.n],
            )
        ],
        check=check,
        domain="sort-scan-reduce",
        description="shared-memory tree reduction per block",
        features=("shared-memory",),
    )


def fam_hs_scan(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    """Hillis-Steele block scan with a double buffer in shared memory."""
    t = rng.choice([64, 128, 256])
    blocks = rng.choice([16, 40])
    k = nm.kernel(rng.choice(["hillisSteele", "scanShared", "prefixBlock"]))
    sm = nm.smem
    lines = [
        f"__global__ void {k}(const int* {nm.inn}, int* {nm.out}) {{",
        f"  __shared__ int {sm}[2][{t}];",
        "  int t = threadIdx.x;",
        f"  int {nm.tid} = blockIdx.x * blockDim.x + t;",
        "  int cur = 0;",
        f"  {sm}[cur][t] = {nm.inn}[{nm.tid}];",
        "  __syncthreads();",
        "  for (int d = 1; d < blockDim.x; d <<= 1) {",
        f"    int v = {sm}[cur][t];",
        f"    if (t >= d) v += {sm}[cur][t - d];",
        f"    {sm}[1 - cur][t] = v;",
        "    cur = 1 - cur;",
        "    __syncthreads();",
        "  }",
        f"  {nm.out}[{nm.tid}] = {sm}[cur][t];",
        "}",
    ]
    check = "\n".join(
        [
            f"for (int b = 0; b < {nm.blocks}; ++b) {{",
            "  int run = 0;",
            f"  for (int i = b * {nm.threads}; i < (b + 1) * {nm.threads}; ++i) {{",
            "    run += $h_x[i];",
            "    if ($h_o[i] != run) ++$bad;",
            "    FOLD(run);",
            "  }",
            "}",
        ]
    )
    total = f"{nm.blocks} * {nm.threads}"
    return Parts(
        device=["\n".join(lines)],
        params=[f"const int {nm.threads} = {t};", f"const int {nm.blocks} = {blocks};"],
        bufs=[Buf("x", "int", total, "in", _ints(rng)), Buf("o", "int", total, "out")],
        launches=[Launch(k, nm.blocks, nm.threads, None, ["$d_x", "$d_o"])],
        check=check,
        domain="sort-scan-reduce",
        description="Hillis-Steele inclusive scan in shared memory",
        features=("shared-memory",),
    )


def fam_shared_hist(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    bins = rng.choice([16, 64, 256])
    n = rng.choice([100000, 1 << 18, 77777])
    t = rng.choice([128, 256])
    k = nm.kernel(rng.choice(["histShared", "byteHist", "privHist"]))
    lines = [
        f"__global__ void {k}(const unsigned char* bytes, unsigned* hist, int {nm.n}) {{",
        f"  __shared__ unsigned local[{bins}];",
        f"  for (int j = threadIdx.x; j < {bins}; j += blockDim.x) local[j] = 0;",
        "  __syncthreads();",
        f"  for (int {nm.tid} = blockIdx.x * blockDim.x + threadIdx.x; {nm.tid} < {nm.n};"
        f" {nm.tid} += blockDim.x * gridDim.x)",
        f"    atomicAdd(&local[bytes[{nm.tid}] % {bins}], 1u);",
        "  __syncthreads();",
        f"  for (int j = threadIdx.x; j < {bins}; j += blockDim.x) atomicAdd(&hist[j], local[j]);",
        "}",
    ]
    check = "\n".join(
        [
            f"std::vector<unsigned> want({bins}, 0u);",
            f"for (int i = 0; i < {nm.n}; ++i) ++want[$h_k[i] % {bins}];",
            f"for (int j = 0; j < {bins}; ++j) {{",
            "  if ($h_o[j] != want[j]) ++$bad;",
            "  FOLD(want[j]);",
            "}",
        ]
    )
    return Parts(
        device=["\n".join(lines)],
        params=[f"const int {nm.n} = {n};", f"const int {nm.threads} = {t};"],
        bufs=[
            Buf("k", "unsigned char", nm.n, "in", "(unsigned char)((i * 131u + (i >> 7)) & 255u)"),
            Buf("o", "unsigned", str(bins), "out"),
        ],
        launches=[
            Launch(k, str(rng.choice([30, 64, 120])), nm.threads, None, ["$d_k", "$d_o", nm.n])
        ],
        check=check,
        domain="histogram",
        description="privatized shared-memory histogram",
        features=("shared-memory", "atomics"),
    )


def fam_stencil(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    """1-D stencil with a shared-memory tile and halo."""
    r = rng.choice([1, 2, 3, 4])
    t = rng.choice([128, 256])
    n = rng.choice([10000, 65536, 4096 * 5 + 3])
    k = nm.kernel(rng.choice(["stencil1d", "blur1d", "smooth", "convolve"]))
    sm = nm.smem
    wts = [rng.randrange(1, 5) for _ in range(2 * r + 1)]
    lines = [
        f"__global__ void {k}(const int* {nm.inn}, int* {nm.out}, int {nm.n}) {{",
        f"  __shared__ int {sm}[{t} + 2 * {r}];",
        "  int g = blockIdx.x * blockDim.x + threadIdx.x;",
        f"  int l = threadIdx.x + {r};",
        f"  {sm}[l] = g < {nm.n} ? {nm.inn}[g] : 0;",
        f"  if (threadIdx.x < {r}) {{",
        f"    int left = g - {r}, right = g + blockDim.x;",
        f"    {sm}[l - {r}] = left >= 0 && left < {nm.n} ? {nm.inn}[left] : 0;",
        f"    {sm}[l + blockDim.x] = right < {nm.n} ? {nm.inn}[right] : 0;",
        "  }",
        "  __syncthreads();",
        f"  if (g >= {nm.n}) return;",
        "  int acc = 0;",
    ]
    for j, wt in enumerate(wts):
        lines.append(f"  acc += {wt} * {sm}[l + ({j - r})];")
    lines += [f"  {nm.out}[g] = acc;", "}"]
    ref = " + ".join(f"{wt} * at(i + ({j - r}))" for j, wt in enumerate(wts))
    check = "\n".join(
        [
            f"auto at = [&](int j) {{ return j >= 0 && j < {nm.n} ? $h_x[j] : 0; }};",
            f"for (int i = 0; i < {nm.n}; ++i) {{",
            f"  int want = {ref};",
            "  if ($h_o[i] != want) ++$bad;",
            "  FOLD(want);",
            "}",
        ]
    )
    return Parts(
        device=["\n".join(lines)],
        params=[f"const int {nm.n} = {n};", f"const int {nm.threads} = {t};"],
        bufs=[Buf("x", "int", nm.n, "in", _ints(rng)), Buf("o", "int", nm.n, "out")],
        launches=[
            Launch(
                k,
                f"({nm.n} + {nm.threads} - 1) / {nm.threads}",
                nm.threads,
                None,
                ["$d_x", "$d_o", nm.n],
            )
        ],
        check=check,
        domain="stencil-pde",
        description=f"radius-{r} 1-D stencil with a shared-memory halo",
        features=("shared-memory",),
    )


def fam_stencil2d(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    nx, ny = rng.choice([(128, 96), (256, 200), (300, 77)])
    bx, by = rng.choice([(16, 16), (32, 8), (16, 8)])
    k = nm.kernel(rng.choice(["jacobiStep", "laplace", "heatStep", "fivePoint"]))
    c = rng.choice([4, 2])
    lines = [
        f"__global__ void {k}(const int* u, int* un, int nx, int ny) {{",
        "  int x = blockIdx.x * blockDim.x + threadIdx.x;",
        "  int y = blockIdx.y * blockDim.y + threadIdx.y;",
        "  if (x >= nx || y >= ny) return;",
        "  int id = y * nx + x;",
        "  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {",
        "    un[id] = u[id];  //# fixed boundary",
        "    return;",
        "  }",
        f"  un[id] = u[id - 1] + u[id + 1] + u[id - nx] + u[id + nx] - {c} * u[id];",
        "}",
    ]
    check = "\n".join(
        [
            "for (int y = 0; y < ny; ++y) {",
            "  for (int x = 0; x < nx; ++x) {",
            "    int id = y * nx + x;",
            "    int want = $h_u[id];",
            "    if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1)",
            "      want = $h_u[id - 1] + $h_u[id + 1] + $h_u[id - nx] + $h_u[id + nx]"
            f" - {c} * $h_u[id];",
            "    if ($h_o[id] != want) ++$bad;",
            "    FOLD(want);",
            "  }",
            "}",
        ]
    )
    return Parts(
        device=["\n".join(lines)],
        params=[
            f"const int nx = {nx};",
            f"const int ny = {ny};",
            f"const dim3 {nm.threads}({bx}, {by});",
        ],
        pre=[f"const dim3 {nm.blocks}((nx + {bx - 1}) / {bx}, (ny + {by - 1}) / {by});"],
        bufs=[Buf("u", "int", "nx * ny", "in", _ints(rng)), Buf("o", "int", "nx * ny", "out")],
        launches=[Launch(k, nm.blocks, nm.threads, None, ["$d_u", "$d_o", "nx", "ny"])],
        check=check,
        domain="stencil-pde",
        description="five-point stencil step on a 2-D grid",
        features=("2d-grid",),
    )


def fam_transpose(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    tile = rng.choice([16, 32])
    rows_per = rng.choice([8, 4]) if tile == 32 else rng.choice([16, 8])
    W_, H_ = rng.choice([(512, 256), (300, 200), (1024, 64)])
    k = nm.kernel(rng.choice(["transpose", "transposeTiled", "flip"]))
    tn = rng.choice(["TILE", "TILE_DIM", "kTile", "BLK"])
    sm = nm.smem
    lines = [
        f"__global__ void {k}(const float* {nm.inn}, float* {nm.out}, int width, int height) {{",
        f"  __shared__ float {sm}[{tn}][{tn} + 1];  //# +1: no bank conflicts on the column reads",
        f"  int x = blockIdx.x * {tn} + threadIdx.x;",
        f"  int y = blockIdx.y * {tn} + threadIdx.y;",
        f"  for (int j = 0; j < {tn}; j += blockDim.y)",
        f"    if (x < width && y + j < height) {sm}[threadIdx.y + j][threadIdx.x] ="
        f" {nm.inn}[(y + j) * width + x];",
        "  __syncthreads();",
        f"  x = blockIdx.y * {tn} + threadIdx.x;",
        f"  y = blockIdx.x * {tn} + threadIdx.y;",
        f"  for (int j = 0; j < {tn}; j += blockDim.y)",
        f"    if (x < height && y + j < width) {nm.out}[(y + j) * height + x] ="
        f" {sm}[threadIdx.x][threadIdx.y + j];",
        "}",
    ]
    dev = "\n".join(lines)
    if tn.startswith("k"):
        dev = f"constexpr int {tn} = {tile};\n" + dev
        glue = ""
    else:
        glue = f"#define {tn} {tile}"
    check = "\n".join(
        [
            "for (int y = 0; y < H; ++y) {",
            "  for (int x = 0; x < W; ++x) {",
            "    float want = $h_x[y * W + x];",
            "    if ($h_o[x * H + y] != want) ++$bad;",
            "    FOLD((int)(want * 8));",
            "  }",
            "}",
        ]
    )
    return Parts(
        device=[glue, dev] if glue else dev.split("\n", 1),
        params=[
            f"const int W = {W_};",
            f"const int H = {H_};",
            f"const dim3 {nm.threads}({tile}, {rows_per});",
        ],
        pre=[f"const dim3 {nm.blocks}((W + {tile - 1}) / {tile}, (H + {tile - 1}) / {tile});"],
        bufs=[
            Buf("x", "float", "W * H", "in", "(float)(i % 1000) * 0.125f"),
            Buf("o", "float", "W * H", "out"),
        ],
        launches=[Launch(k, nm.blocks, nm.threads, None, ["$d_x", "$d_o", "W", "H"])],
        check=check,
        domain="memory",
        description="tiled matrix transpose through padded shared memory",
        features=("shared-memory", "2d-grid"),
    )


def fam_matmul(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    tile = rng.choice([8, 16])
    M, N, K = rng.choice([(64, 64, 64), (96, 80, 48), (128, 32, 100), (50, 70, 30)])
    k = nm.kernel(rng.choice(["matmulTiled", "gemmTile", "mm", "sgemmInt"]))
    T = rng.choice(["int", "float"])
    lines = [
        f"__global__ void {k}(const {T}* A, const {T}* B, {T}* C, int M, int N, int K) {{",
        f"  __shared__ {T} As[{tile}][{tile}];",
        f"  __shared__ {T} Bs[{tile}][{tile}];",
        f"  int row = blockIdx.y * {tile} + threadIdx.y;",
        f"  int col = blockIdx.x * {tile} + threadIdx.x;",
        f"  {T} acc = 0;",
        f"  for (int t0 = 0; t0 < K; t0 += {tile}) {{",
        "    int ka = t0 + threadIdx.x, kb = t0 + threadIdx.y;",
        "    As[threadIdx.y][threadIdx.x] = row < M && ka < K ? A[row * K + ka] : 0;",
        "    Bs[threadIdx.y][threadIdx.x] = kb < K && col < N ? B[kb * N + col] : 0;",
        "    __syncthreads();",
        f"    for (int j = 0; j < {tile}; ++j) acc += As[threadIdx.y][j] * Bs[j][threadIdx.x];",
        "    __syncthreads();",
        "  }",
        "  if (row < M && col < N) C[row * N + col] = acc;",
        "}",
    ]
    init_a = "(int)(i % 7) - 3" if T == "int" else "(float)((int)(i % 7) - 3)"
    init_b = "(int)(i % 5) - 2" if T == "int" else "(float)((int)(i % 5) - 2)"
    ref_fn = _camel(["reference", "gemm"], nm.snake)
    helper = "\n".join(
        [
            f"static void {ref_fn}(const {T}* A, const {T}* B, {T}* C, int M, int N, int K) {{",
            "  for (int r = 0; r < M; ++r)",
            "    for (int c = 0; c < N; ++c) {",
            f"      {T} s = 0;",
            "      for (int j = 0; j < K; ++j) s += A[r * K + j] * B[j * N + c];",
            "      C[r * N + c] = s;",
            "    }",
            "}",
        ]
    )
    check = "\n".join(
        [
            f"std::vector<{T}> want(M * N);",
            f"{ref_fn}(&$h_a[0], &$h_b[0], want.data(), M, N, K);",
            "for (int i = 0; i < M * N; ++i) {",
            "  if ($h_c[i] != want[i]) ++$bad;",  # small integers: exact in float too
            "  FOLD((int)want[i]);",
            "}",
        ]
    )
    return Parts(
        device=["\n".join(lines)],
        helpers=[helper],
        params=[
            f"const int M = {M}, N = {N}, K = {K};",
            f"const dim3 {nm.threads}({tile}, {tile});",
        ],
        pre=[f"const dim3 {nm.blocks}((N + {tile - 1}) / {tile}, (M + {tile - 1}) / {tile});"],
        bufs=[
            Buf("a", T, "M * K", "in", init_a),
            Buf("b", T, "K * N", "in", init_b),
            Buf("c", T, "M * N", "out"),
        ],
        launches=[Launch(k, nm.blocks, nm.threads, None, ["$d_a", "$d_b", "$d_c", "M", "N", "K"])],
        check=check,
        domain="linear-algebra",
        description="shared-memory tiled matrix multiply",
        features=("shared-memory", "2d-grid"),
    )


def fam_bitonic(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    t = rng.choice([64, 128, 256, 512])
    blocks = rng.choice([8, 20, 33])
    k = nm.kernel(rng.choice(["bitonicSort", "sortBlocks", "bitonicShared"]))
    sm = nm.smem
    desc = rng.random() < 0.3
    cmp = ">" if not desc else "<"
    lines = [
        "//# sorts each block's segment in shared memory; blockDim.x is a power of two",
        f"__global__ void {k}(int* keys) {{",
        f"  extern __shared__ int {sm}[];",
        "  unsigned t = threadIdx.x;",
        "  int base = blockIdx.x * blockDim.x;",
        f"  {sm}[t] = keys[base + t];",
        "  __syncthreads();",
        "  for (unsigned size = 2; size <= blockDim.x; size <<= 1) {",
        "    for (unsigned stride = size >> 1; stride > 0; stride >>= 1) {",
        "      unsigned p = t ^ stride;",
        "      if (p > t) {",
        "        bool up = (t & size) == 0;",
        f"        int a = {sm}[t], b = {sm}[p];",
        f"        if ((a {cmp} b) == up) {{",
        f"          {sm}[t] = b;",
        f"          {sm}[p] = a;",
        "        }",
        "      }",
        "      __syncthreads();",
        "    }",
        "  }",
        f"  keys[base + t] = {sm}[t];",
        "}",
    ]
    order = "std::greater<int>()" if desc else "std::less<int>()"
    check = "\n".join(
        [
            f"for (int b = 0; b < {nm.blocks}; ++b) {{",
            f"  std::vector<int> want(ref.begin() + b * {nm.threads},"
            f" ref.begin() + (b + 1) * {nm.threads});",
            f"  std::sort(want.begin(), want.end(), {order});",
            f"  for (int j = 0; j < {nm.threads}; ++j) {{",
            f"    if ($h_k[b * {nm.threads} + j] != want[j]) ++$bad;",
            "    FOLD(want[j]);",
            "  }",
            "}",
        ]
    )
    total = f"{nm.blocks} * {nm.threads}"
    return Parts(
        device=["\n".join(lines)],
        params=[f"const int {nm.threads} = {t};", f"const int {nm.blocks} = {blocks};"],
        pre=[
            f"std::vector<int> ref({total});",
            f"for (int i = 0; i < {total}; ++i) ref[i] = (int)((i * 2654435761u) >> 20);",
        ],
        bufs=[Buf("k", "int", total, "io", "(int)((i * 2654435761u) >> 20)")],
        launches=[Launch(k, nm.blocks, nm.threads, f"{nm.threads} * sizeof(int)", ["$d_k"])],
        check=check,
        domain="sort-scan-reduce",
        description="bitonic sorting network per block in shared memory",
        features=("shared-memory",),
    )


def fam_monte_carlo(rng: random.Random, nm: Names, w: Warp, st: Style) -> Parts:
    """Integer Monte Carlo: hashed points inside a quarter circle, counted per block."""
    t = rng.choice([128, 256])
    blocks = rng.choice([32, 64])
    per = rng.choice([16, 32, 64])
    k = nm.kernel(rng.choice(["monteCarlo", "piEstimate", "samplePoints"]))
    hf = _camel(["hash", "u32"], nm.snake)
    mix = rng.randrange(2)
    if mix == 0:
        body = ["  x ^= x << 13;", "  x ^= x >> 17;", "  x ^= x << 5;", "  return x;"]
    else:
        body = [
            "  x = (x ^ 61u) ^ (x >> 16);",
            "  x *= 9u;",
            "  x ^= x >> 4;",
            "  x *= 0x27d4eb2du;",
            "  x ^= x >> 15;",
            "  return x;",
        ]
    helper = "\n".join([f"__host__ __device__ inline unsigned {hf}(unsigned x) {{", *body, "}"])
    lines = [
        f"__global__ void {k}(unsigned seed, unsigned* hits) {{",
        f"  unsigned {nm.tid} = blockIdx.x * blockDim.x + threadIdx.x;",
        f"  unsigned s = {hf}(seed ^ ({nm.tid} * 0x9e3779b9u)) | 1u;",
        "  unsigned c = 0;",
        f"  for (int j = 0; j < {per}; ++j) {{",
        f"    s = {hf}(s);",
        "    unsigned x = s & 0xffffu;",
        f"    s = {hf}(s);",
        "    unsigned y = s & 0xffffu;",
        "    if ((unsigned long long)x * x + (unsigned long long)y * y < 0xfffe0001ull) ++c;  }",
        "  atomicAdd(&hits[blockIdx.x], c);",
        "}",
    ]
    seed = rng.randrange(1, 1 << 20)
    check = "\n".join(
        [
            f"for (int b = 0; b < {nm.blocks}; ++b) {{",
            "  unsigned want = 0;",
            f"  for (unsigned t = b * {nm.threads}; t < (unsigned)((b + 1) * {nm.threads});"
            " ++t) {",
            f"    unsigned s = {hf}({seed}u ^ (t * 0x9e3779b9u)) | 1u;",
            f"    for (int j = 0; j < {per}; ++j) {{",
            f"      s = {hf}(s);",
            "      unsigned x = s & 0xffffu;",
            f"      s = {hf}(s);",
            "      unsigned y = s & 0xffffu;",
            "      if ((unsigned long long)x * x + (unsigned long long)y * y < 0xfffe0001ull)",
            "        ++want;",
            "    }",
            "  }",
            "  if ($h_o[b] != want) ++$bad;",
            "  FOLD(want);",
            "}",
        ]
    )
    return Parts(
        device=[helper, "\n".join(lines)],
        params=[f"const int {nm.threads} = {t};", f"const int {nm.blocks} = {blocks};"],
        bufs=[Buf("o", "unsigned", nm.blocks, "out")],
        launches=[Launch(k, nm.blocks, nm.threads, None, [f"{seed}u", "$d_o"])],
        check=check,
        domain="monte-carlo-rng",
        description="hashed random points counted inside a quarter circle",
        features=("atomics",),
    )


FAMILIES = {
    "map": (fam_map, False),
    "gridstride": (fam_gridstride, False),
    "tree_reduce": (fam_tree_reduce, False),
    "hs_scan": (fam_hs_scan, False),
    "shared_hist": (fam_shared_hist, False),
    "stencil1d": (fam_stencil, False),
    "stencil2d": (fam_stencil2d, False),
    "transpose": (fam_transpose, False),
    "matmul": (fam_matmul, False),
    "bitonic": (fam_bitonic, False),
    "monte_carlo": (fam_monte_carlo, False),
    "warp_block_reduce": (fam_block_reduce_warp, True),
    "warp_atomic": (fam_warp_atomic, True),
    "ballot_count": (fam_ballot_count, True),
    "ballot_compact": (fam_compact, True),
    "warp_scan": (fam_warp_scan, True),
    "warp_rows": (fam_warp_rows, True),
    "warp_rows_norm": (fam_warp_rows_norm, True),
    "all_lanes": (fam_all_lanes, True),
    "warp_hist": (fam_warp_hist, True),
}
"""Family name -> (builder, has warp-size idioms)."""

# Imported here: the idiom families build on this module's Names, Warp and Parts.
from .synth_idioms import IDIOM_FAMILIES  # noqa: E402

FAMILIES.update(IDIOM_FAMILIES)

# Hazard families are drawn more often: they are where rules are weakest.
_WEIGHTS: dict[str, float] = {name: (3 if hz else 1) for name, (_, hz) in FAMILIES.items()}
# The idiom families hold more hazard units per program: about 5% of programs each.
_WEIGHTS.update({name: 2.5 for name in IDIOM_FAMILIES})

# Words older families spell literally, respelled from the program's Names (whole
# identifiers only, in every part of the program, so both forms agree).
_RESPELL = {
    "warp_rows": {"rows": "rows", "cols": "cols", "A": "mat"},
    "warp_rows_norm": {"rows": "rows", "cols": "cols", "A": "mat"},
    "warp_hist": {"keys": "keys", "hist": "hist"},
    "shared_hist": {"bytes": "keys", "hist": "hist"},
    "ballot_count": {"threshold": "thresh", "counts": "counts"},
}


def _respell(p: Parts, nm: Names, words: dict[str, str]) -> Parts:
    table = {w: getattr(nm, attr) for w, attr in words.items()}
    pat = re.compile(r"\b(" + "|".join(map(re.escape, table)) + r")\b")

    def sub(x: str) -> str:
        return pat.sub(lambda m: table[m.group(1)], x)

    return replace(
        p,
        device=[sub(x) for x in p.device],
        params=[sub(x) for x in p.params],
        bufs=[replace(b, count=sub(b.count), init=sub(b.init)) for b in p.bufs],
        launches=[
            replace(la, grid=sub(la.grid), block=sub(la.block), args=[sub(a) for a in la.args])
            for la in p.launches
        ],
        check=sub(p.check),
        pre=[sub(x) for x in p.pre],
        helpers=[sub(x) for x in p.helpers],
    )


_INCLUDES = ["#include <cstdio>", "#include <cstdlib>", "#include <cstdint>"]


def _render(
    seed: int, naive: bool, family: str | None, rename: int = 0
) -> tuple[str, str, Parts, set[str]]:
    rng = random.Random(seed)
    names = list(FAMILIES)
    fam = family or rng.choices(names, weights=[_WEIGHTS[n] for n in names])[0]
    if family:
        rng.random()  # the same draw count with or without a forced family
    st = _style(rng)
    nm = Names(rng)
    names_rng = random.Random(f"names:{seed}:{rename}")
    if rename:
        # The same program under other names: its own stream, the main one drawn as before.
        nm = Names(names_rng)
    w = Warp(rng, naive, nm)
    host = Host(rng)
    if rename:
        host.check = names_rng.choice(_CHECKS)
        if w.macro:
            w.macro = names_rng.choice([m for m in _WARP_MACROS if m])
    builder, _ = FAMILIES[fam]
    parts = builder(rng, nm, w, st)
    if fam in _RESPELL:
        parts = _respell(parts, nm, _RESPELL[fam])
    main = _main(parts, host, nm, rng)
    glue_lines = list(_INCLUDES)
    if rng.random() < 0.5:
        glue_lines.insert(0, "#include <cuda_runtime.h>")
    else:
        glue_lines.append("#include <cuda_runtime.h>")
    glue_lines += ["#include <vector>", "#include <algorithm>", "#include <functional>"]
    text: list[str] = []
    header = rng.random() < 0.5
    if header:
        text.append(f"//# {parts.description}")
    text.append("\n".join(glue_lines))
    text.append(host.glue())
    if FAMILIES[fam][1]:
        # Only families with warp idioms name a warp macro or mask constant.
        if g := w.glue():
            text.append(g)
        if c := w.consts():
            text.append(c)
    decl = host.check_decl()
    if decl:
        text.append(decl)
    text += [d for d in parts.device if d]
    text += parts.helpers
    text.append(main)
    body = "\n\n".join(_format(x, st) if not x.startswith("#") else x for x in text) + "\n"
    body = decorate(
        body,
        seed,
        naive=naive,
        hazard=FAMILIES[fam][1],
        title=parts.description,
        file=f"synth_{seed:06d}_{fam}.cu",
    )
    return fam, body, parts, set(w.labels)


def synthesize(seed: int, family: str | None = None, rename: int = 0) -> Program:
    """The program of ``seed``: both forms, drawn from the same random stream.

    ``rename`` > 0 gives the same program with its identifiers drawn again (kernels,
    helpers, variables, macros), the same in both forms.
    """
    fam, naive, parts, labels = _render(seed, True, family, rename)
    _, agnostic, _, _ = _render(seed, False, family, rename)
    _, has_hazard = FAMILIES[fam]
    hazards = tuple(sorted(labels)) if has_hazard and naive != agnostic else ()
    return Program(
        name=f"synth_{seed:06d}_{fam}" + (f"_r{rename}" if rename else ""),
        family=fam,
        naive=naive,
        agnostic=agnostic,
        hazards=hazards,
        domain=parts.domain,
        description=parts.description,
        features=parts.features,
    )
