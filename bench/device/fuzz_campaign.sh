#!/usr/bin/env bash
# The long fuzz campaign of the rule core (docs/fuzzing.md), for a many-core machine:
# at least 10^7 executions of cpp/fuzz/core_fuzz.cpp over FUZZ_JOBS cores in a bounded
# time, then ONE archive, OUTDIR/fuzz_campaign.tar.gz, holding fuzz.md (the report),
# summary.json (executions, findings, engine, the exact commands), the logs and the
# findings themselves.
#
#   bash bench/device/fuzz_campaign.sh OUTDIR
#   # next to a GPU job, on 12 of 16 cores, in the background:
#   FUZZ_JOBS=12 bash bench/device/fuzz_campaign.sh OUTDIR > OUTDIR.log 2>&1 &
#
# From a bare checkout; needs a C++ compiler and python3 >= 3.11 (the table and
# dictionary come from the TOML tables; python also writes summary.json). No network,
# no pip install, no cmake: the target is C++ only, compiled here with the compiler
# the engine needs.
#
# Engine: libFuzzer where some clang++ links -fsanitize=fuzzer (coverage-guided, as in
# CI); else the standalone driver cpp/fuzz/standalone_main.cpp (the same harness and
# invariants, fed by a seeded random mutator without coverage feedback), built with the
# system C++ compiler ($CXX, else c++, g++, clang++). Both build with AddressSanitizer
# and UndefinedBehaviorSanitizer where the compiler can link them (else UBSan only,
# else none; fuzz.md and summary.json say which).
#
# Sharing the machine: the build and every worker run under `nice -n FUZZ_NICE` and,
# where taskset exists, pinned to the LAST FUZZ_JOBS CPUs this process may use, so a
# job started beside it keeps the first ones (a training job's data loader, say) and
# the campaign never takes more than FUZZ_JOBS cores, its build included.
#
# Knobs (environment): FUZZ_JOBS (workers and cores, default min(12, nproc);
# FUZZ_WORKERS is the old name), FUZZ_RUNS (total executions, 10000000; split evenly,
# rounded up), FUZZ_SECONDS (campaign wall limit, 420), FUZZ_DEADLINE (seconds from
# the start by which the archive must be written, 570: the campaign is cut short so
# that a 600 s command limit still gets it), FUZZ_MAX_LEN (512), FUZZ_ENGINE (auto,
# libfuzzer or driver), FUZZ_NICE (10), FUZZ_PIN (1; 0 leaves the affinity alone),
# FUZZ_SEED_BASE (0; worker w uses seed BASE + w + 1, so a new base explores new inputs).
# Exit status: 0 when no finding, 1 when findings, 2 when it could not build.
set -uo pipefail

OUT=${1:?usage: fuzz_campaign.sh OUTDIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"

# The device copies the working tree over a checkout of an older commit: name HEAD and
# say when the files differ from it, rather than report HEAD alone.
commit_of_tree() {
    local head
    head=$(git rev-parse "$@" HEAD 2>/dev/null) || { echo unknown; return; }
    git diff --quiet HEAD -- 2>/dev/null && echo "$head" || echo "$head+changes"
}

START_ALL=$(date +%s)
DEADLINE=${FUZZ_DEADLINE:-570}
RUNS=${FUZZ_RUNS:-10000000}
SECONDS_LIMIT=${FUZZ_SECONDS:-420}
NCPU=$(nproc)
WORKERS=${FUZZ_JOBS:-${FUZZ_WORKERS:-$((NCPU < 12 ? NCPU : 12))}}
[ "$WORKERS" -ge 1 ] 2>/dev/null || WORKERS=1
MAX_LEN=${FUZZ_MAX_LEN:-512}
ENGINE=${FUZZ_ENGINE:-auto}
NICE=${FUZZ_NICE:-10}
PER=$(((RUNS + WORKERS - 1) / WORKERS))
SEED_BASE=${FUZZ_SEED_BASE:-0}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cass-fuzz-XXXXXX")
BUILD=$WORK/build
# Everything that goes into the archive is written under $REP first.
REP=$WORK/fuzz_campaign
LOG=$REP/build.log
mkdir -p "$BUILD" "$WORK/seeds" "$REP/findings"
: >"$LOG"
say() { echo "fuzz_campaign: $*" | tee -a "$LOG" >&2; }

# The CPUs to keep to: the last $WORKERS of those this process may use.
CPUS=""
if [ "${FUZZ_PIN:-1}" != 0 ] && command -v taskset >/dev/null 2>&1; then
    CPUS=$(python3 -c 'import os, sys; c = sorted(os.sched_getaffinity(0)); n = int(sys.argv[1]); print(",".join(map(str, c[-n:])))' "$WORKERS" 2>/dev/null || true)
fi
if [ -n "$CPUS" ]; then
    taskset -pc "$CPUS" $$ >/dev/null  # the build and the workers inherit it
    say "pinned to CPUs $CPUS of $NCPU"
fi
renice -n "$NICE" -p $$ >/dev/null 2>&1 || true
STATUS=2  # until the build has succeeded

# The archive, however the script ends: a failed build still sends back its log.
finish() {
    trap - EXIT TERM INT HUP
    # Stopped early: what still runs (compiles, workers) goes first.
    for pid in $(jobs -p); do  # a compiler driver's own children (cc1plus) too
        pkill -TERM -P "$pid" 2>/dev/null
        kill "$pid" 2>/dev/null
    done
    wait 2>/dev/null
    python3 - "$REP" "$STATUS" <<'PYEOF' >>"$LOG" 2>&1 || true
import json, sys
from pathlib import Path
rep, status = Path(sys.argv[1]), int(sys.argv[2])
path = rep / "summary.json"
doc = json.loads(path.read_text()) if path.exists() else {"built": False}
doc["exit_status"] = status
path.write_text(json.dumps(doc, indent=2) + "\n")
PYEOF
    tar -C "$WORK" -czf "$OUT/fuzz_campaign.tar.gz.part" fuzz_campaign &&
        mv "$OUT/fuzz_campaign.tar.gz.part" "$OUT/fuzz_campaign.tar.gz"
    [ -f "$REP/summary.json" ] && cat "$REP/summary.json"
    rm -rf "$WORK"
    exit "$STATUS"
}
trap finish EXIT
trap 'exit' TERM INT HUP  # a signal, too, ends through finish()

# A sanitizer set the compiler can link, tried from the strongest.
pick_sanitizers() {  # $1 compiler, $2 extra flags for the probe
    local cxx=$1 extra=$2 san
    printf '#include <cstdio>\nint main() { std::puts("ok"); }\n' >"$WORK/probe.cpp"
    for san in "address,undefined" "undefined" ""; do
        local flags=""
        [ -n "$san" ] && flags="-fsanitize=$san -fno-sanitize-recover=all"
        if "$cxx" $flags $extra "$WORK/probe.cpp" -o "$WORK/probe" >>"$LOG" 2>&1 &&
            "$WORK/probe" >/dev/null 2>&1; then
            echo "$san"
            return 0
        fi
    done
    return 1
}

CLANG=""
if [ "$ENGINE" != driver ]; then
    printf '#include <cstdint>\n#include <cstddef>\nextern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n' \
        >"$WORK/fuzzprobe.cpp"
    for cxx in clang++-15 clang++-16 clang++-17 clang++-18 clang++-19 clang++-14 clang++; do
        command -v "$cxx" >/dev/null 2>&1 || continue
        if "$cxx" -fsanitize=fuzzer "$WORK/fuzzprobe.cpp" -o "$WORK/fuzzprobe" >>"$LOG" 2>&1; then
            CLANG=$(command -v "$cxx")
            break
        fi
    done
    if [ -z "$CLANG" ] && [ "$ENGINE" = libfuzzer ]; then
        say "no clang++ here links -fsanitize=fuzzer"
        exit
    fi
fi

START_BUILD=$(date +%s)
if [ -n "$CLANG" ]; then
    ENGINE=libfuzzer
    SAN=$(pick_sanitizers "$CLANG" "") || SAN=""
    FLAGS="-std=c++17 -O2 -g -fno-omit-frame-pointer -D_GLIBCXX_ASSERTIONS"
    [ -n "$SAN" ] && FLAGS="$FLAGS -fsanitize=$SAN -fno-sanitize-recover=all"
    COMPILER="$CLANG ($("$CLANG" --version | head -1))"
    # libFuzzer's coverage instrumentation for every object, its main at the link.
    CXX_COMPILE=("$CLANG" $FLAGS -fsanitize=fuzzer-no-link)
    CXX_LINK=("$CLANG" $FLAGS -fsanitize=fuzzer)
    BIN=$BUILD/cass_core_fuzz
else
    ENGINE=driver
    CXX=${CXX:-$(command -v c++ || command -v g++ || command -v clang++ || true)}
    if [ -z "$CXX" ]; then
        say "no C++ compiler found"
        exit
    fi
    SAN=$(pick_sanitizers "$CXX" "-pthread") || SAN=""
    FLAGS="-std=c++17 -O2 -g -fno-omit-frame-pointer -D_GLIBCXX_ASSERTIONS"
    [ -n "$SAN" ] && FLAGS="$FLAGS -fsanitize=$SAN -fno-sanitize-recover=all"
    COMPILER="$CXX ($("$CXX" --version | head -1))"
    CXX_COMPILE=("$CXX" $FLAGS)
    CXX_LINK=("$CXX" $FLAGS)
    BIN=$BUILD/cass_core_fuzz_driver
fi
say "engine $ENGINE, compiler $COMPILER, sanitizers ${SAN:-none}"

# One object per source, in parallel; the core without NDEBUG, so CASS_CHECK traps.
# Every source of the core, as cpp/CMakeLists.txt builds it (a new one must not be missed).
SOURCES=(cpp/src/*.cpp cpp/fuzz/core_fuzz.cpp)
[ "$ENGINE" = driver ] && SOURCES+=(cpp/fuzz/standalone_main.cpp)
OBJECTS=()
pids=()
for src in "${SOURCES[@]}"; do
    obj=$BUILD/$(basename "$src" .cpp).o
    OBJECTS+=("$obj")
    while [ "$(jobs -rp | wc -l)" -ge "$WORKERS" ]; do sleep 0.2; done
    "${CXX_COMPILE[@]}" -Icpp/include -Icpp/src -c "$src" -o "$obj" >>"$LOG" 2>&1 &
    pids+=($!)
done
for pid in "${pids[@]}"; do
    if ! wait "$pid"; then
        say "compile failed (see build.log)"
        exit
    fi
done
if ! "${CXX_LINK[@]}" "${OBJECTS[@]}" -o "$BIN" -pthread >>"$LOG" 2>&1; then
    say "link failed (see build.log)"
    exit
fi
# -S: no site packages, so an installed cass_build (an editable install's finder
# elsewhere, say) cannot stand in for this checkout's tables.
if ! PYTHONPATH="$ROOT" python3 -S cpp/fuzz/dump_table.py "$BUILD" >>"$LOG" 2>&1; then
    say "cpp/fuzz/dump_table.py failed (see build.log)"
    exit
fi
BUILD_SECONDS=$(($(date +%s) - START_BUILD))
STATUS=1  # built; 0 once the campaign has run without a finding

# The seeds CI uses (tests/test_core_fuzz.py): fixtures, lit tests, bench programs and
# every regression fixture.
for dir in tests/fixtures/programs tests/fixtures/wave64 tests/lit bench/programs \
    tests/fixtures/core_regressions; do
    [ -d "$dir" ] || continue
    find "$dir" -type f -name '*.cu*' | sort | while read -r path; do
        cp "$path" "$WORK/seeds/$(echo "$path" | tr / _)"
    done
done
NSEEDS=$(find "$WORK/seeds" -type f | wc -l)

# The regressions first: a build that misses one of them is no campaign.
if ! CASS_FUZZ_TABLE=$BUILD/table.tsv "$BIN" tests/fixtures/core_regressions/*.cu \
    >"$REP/replay.log" 2>&1; then
    say "a regression fixture fails (see $REP/replay.log)"
    REPLAY_FAILED=1
fi

# What is left of the deadline, less the time the report takes, bounds the campaign.
LEFT=$((DEADLINE - ($(date +%s) - START_ALL) - 15))
if [ "$LEFT" -lt "$SECONDS_LIMIT" ]; then
    say "campaign cut to ${LEFT} s to meet the ${DEADLINE} s deadline"
    SECONDS_LIMIT=$((LEFT > 10 ? LEFT : 10))
fi
export CASS_FUZZ_TABLE=$BUILD/table.tsv
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:abort_on_error=1}
COMMANDS=()
START=$(date +%s)
pids=()
for ((w = 0; w < WORKERS; w++)); do
    prefix=$REP/findings/w$w-
    if [ "$ENGINE" = libfuzzer ]; then
        mkdir -p "$WORK/corpus$w"
        cmd=("$BIN" -seed=$((SEED_BASE + w + 1)) -runs="$PER" -max_total_time="$SECONDS_LIMIT"
            -max_len="$MAX_LEN" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1
            -dict="$BUILD/cuda.dict" -artifact_prefix="$prefix" "$WORK/corpus$w" "$WORK/seeds")
    else
        cmd=("$BIN" --seed=$((SEED_BASE + w + 1)) --runs="$PER" --max-seconds="$SECONDS_LIMIT"
            --max-len="$MAX_LEN" --dict="$BUILD/cuda.dict" --artifact-prefix="$prefix"
            "$WORK/seeds")
    fi
    COMMANDS+=("$(printf '%q ' "${cmd[@]}")")
    "${cmd[@]}" >"$WORK/w$w.log" 2>&1 &
    pids+=($!)
done
# Stopped from outside (TERM, ^C): the workers go too, and what they did is reported.
STOPPED=""
trap 'STOPPED=1; kill "${pids[@]}" 2>/dev/null' TERM INT HUP
for pid in "${pids[@]}"; do wait "$pid"; done
for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done  # again, after a signal
trap 'exit' TERM INT HUP
[ -n "$STOPPED" ] && say "stopped from outside: the workers were killed"
WALL=$(($(date +%s) - START))

# Executions per worker: libFuzzer's "Done N runs" (or its last "#N" status line when
# it stopped at a finding), the driver's "Done N runs" or "finding after N".
TOTAL=0
ROWS=""
for ((w = 0; w < WORKERS; w++)); do
    log=$WORK/w$w.log
    n=$(grep -oE '^Done [0-9]+ runs' "$log" | tail -1 | grep -oE '[0-9]+')
    [ -z "$n" ] && n=$(grep -oE 'finding after [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
    [ -z "$n" ] && n=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
    n=${n:-0}
    TOTAL=$((TOTAL + n))
    status=ok
    grep -qE 'invariant broken|ERROR: |runtime error|deadly signal|finding after' "$log" &&
        status=FINDING
    ROWS+="| $w | $n | $status |"$'\n'
    echo "$w $n $status" >>"$WORK/workers.tsv"
    tail -c 20000 "$log" >"$WORK/w$w.tail"
done
# Findings: the artifact files, and the first lines saying what broke.
FINDINGS=$(find "$REP/findings" -type f | sort)
NFIND=$(echo -n "$FINDINGS" | grep -c . || true)
cat "$WORK"/w*.log | grep -E 'invariant broken|runtime error|ERROR: AddressSanitizer' |
    sort | uniq -c | sort -rn | head -20 >"$WORK/what"
# Keep what comes back small: all worker logs in one file.
for ((w = 0; w < WORKERS; w++)); do
    echo "=== worker $w"
    cat "$WORK/w$w.tail"
done >"$REP/workers.log"

{
    echo "# Fuzz campaign of the rule core on $WORKERS of $NCPU cores"
    echo
    echo "Run: \`bash bench/device/fuzz_campaign.sh OUTDIR\` at $(commit_of_tree --short)" \
        "on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC'); $NCPU CPUs, ${CPUS:+pinned to $CPUS, }nice $NICE" \
        "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))."
    echo
    echo "- Engine: **$ENGINE**$([ "$ENGINE" = driver ] && echo ' (no clang++ with libFuzzer here: the standalone driver, cpp/fuzz/standalone_main.cpp, seeded random mutations without coverage feedback)')."
    echo "- Compiler: $COMPILER; flags \`$FLAGS\`; sanitizers: ${SAN:-none}. Build: ${BUILD_SECONDS} s."
    echo "- Table and dictionary: $(grep -E 'rows' "$LOG" | tail -1)."
    echo "- Seeds: $NSEEDS files (fixtures, wave64, lit, bench/programs, core_regressions); max_len $MAX_LEN."
    echo "- Regression replay before the campaign: $(grep -c '^Executed ' "$REP/replay.log" || true) of $(ls tests/fixtures/core_regressions/*.cu | wc -l) fixtures executed."
    echo "- Workers: $WORKERS, $PER runs each at most, $SECONDS_LIMIT s at most; wall ${WALL} s;" \
        "$((TOTAL / (WALL > 0 ? WALL : 1) / WORKERS)) executions per second per worker."
    echo
    echo "**Executions: $TOTAL; findings: $NFIND.** Target: >= 10000000 with 0 findings:" \
        "$([ "$TOTAL" -ge 10000000 ] && [ "$NFIND" -eq 0 ] && echo met || echo NOT met)."
    echo
    echo "| worker | executions | status |"
    echo "|---|---|---|"
    echo -n "$ROWS"
    echo
    if [ "$NFIND" -gt 0 ]; then
        echo "Findings (in findings/; each becomes a fixture in tests/fixtures/core_regressions):"
        echo
        echo "$FINDINGS" | sed "s|^$REP/|- |"
        echo
        echo "What broke (count, line):"
        echo
        echo '```'
        cat "$WORK/what"
        echo '```'
        echo
    fi
    echo "Environment: \`CASS_FUZZ_TABLE=<build>/table.tsv ASAN_OPTIONS=$ASAN_OPTIONS UBSAN_OPTIONS=$UBSAN_OPTIONS\`."
    echo "Worker commands (worker 0, then the others differ only in the seed and artifact prefix):"
    echo
    echo '```sh'
    echo "${COMMANDS[0]}"
    echo '```'
} >"$REP/fuzz.md"
# The summary, for scripts: what fuzz.md says, as numbers (values passed in the
# environment, so that no quoting of theirs can break the Python).
FC_COMMIT=$(commit_of_tree) FC_HOST=$(hostname) \
    FC_CPUS=$NCPU FC_PINNED=$CPUS FC_NICE=$NICE FC_ENGINE=$ENGINE FC_COMPILER=$COMPILER \
    FC_FLAGS=$FLAGS FC_SAN=${SAN:-none} FC_BUILD=$BUILD_SECONDS FC_SEEDS=$NSEEDS \
    FC_MAX_LEN=$MAX_LEN FC_WORKERS=$WORKERS FC_PER=$PER FC_LIMIT=$SECONDS_LIMIT FC_WALL=$WALL \
    FC_FINDINGS=$FINDINGS FC_REP=$REP/ FC_COMMAND=${COMMANDS[0]} \
    python3 - "$REP/summary.json" "$WORK/workers.tsv" <<'PYEOF'
import json, os, sys
e = os.environ
rows = [line.split() for line in open(sys.argv[2]).read().splitlines() if line.strip()]
total = sum(int(n) for _, n, _ in rows)
findings = [f.replace(e["FC_REP"], "") for f in e["FC_FINDINGS"].split()]
wall, workers = int(e["FC_WALL"]), int(e["FC_WORKERS"])
doc = {
    "built": True,
    "commit": e["FC_COMMIT"],
    "host": e["FC_HOST"],
    "cpus": int(e["FC_CPUS"]),
    "pinned_cpus": e["FC_PINNED"],
    "nice": int(e["FC_NICE"]),
    "engine": e["FC_ENGINE"],
    "compiler": e["FC_COMPILER"],
    "flags": e["FC_FLAGS"],
    "sanitizers": e["FC_SAN"],
    "build_seconds": int(e["FC_BUILD"]),
    "seeds": int(e["FC_SEEDS"]),
    "max_len": int(e["FC_MAX_LEN"]),
    "workers": workers,
    "runs_per_worker": int(e["FC_PER"]),
    "seconds_limit": int(e["FC_LIMIT"]),
    "wall_seconds": wall,
    "executions": total,
    "executions_per_second_per_worker": round(total / max(wall, 1) / workers),
    "per_worker": [{"worker": int(w), "executions": int(n), "status": s} for w, n, s in rows],
    "findings": len(findings),
    "finding_files": findings,
    "target": {"executions": 10**7, "findings": 0, "met": total >= 10**7 and not findings},
    "worker_command": e["FC_COMMAND"],
}
open(sys.argv[1], "w").write(json.dumps(doc, indent=2) + "\n")
PYEOF
cat "$REP/fuzz.md"
# No finding counts only when the fixtures replayed and the workers really ran.
[ "$NFIND" -eq 0 ] && [ "${REPLAY_FAILED:-0}" -eq 0 ] && [ "${TOTAL:-0}" -gt 0 ] && STATUS=0
exit
