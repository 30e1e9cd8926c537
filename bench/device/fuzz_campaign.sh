#!/usr/bin/env bash
# The long fuzz campaign of the rule core (docs/fuzzing.md), for a many-core machine:
# at least 10^7 executions of cpp/fuzz/core_fuzz.cpp over all cores in about 8 minutes,
# then OUTDIR/fuzz.md with the executions, the findings and the exact commands.
#
#   bash bench/device/fuzz_campaign.sh OUTDIR
#
# From a bare checkout; needs a C++ compiler, cmake or not, and python3 >= 3.11 (the
# table and dictionary come from the TOML tables). No network, no pip install: the
# target is C++ only.
#
# Engine: libFuzzer where some clang++ links -fsanitize=fuzzer (coverage-guided, as in
# CI); else the standalone driver cpp/fuzz/standalone_main.cpp (the same harness and
# invariants, fed by a seeded random mutator without coverage feedback), built with the
# system C++ compiler. Both build with AddressSanitizer and UndefinedBehaviorSanitizer
# where the compiler can link them (else UBSan only, else none; fuzz.md says which).
#
# Knobs (environment): FUZZ_RUNS (total executions, 10000000), FUZZ_SECONDS (campaign
# wall limit, 420), FUZZ_DEADLINE (seconds from the start by which the report must be
# written, 570: the campaign is cut short so that a 600 s command limit still gets it),
# FUZZ_WORKERS (nproc), FUZZ_MAX_LEN (512), FUZZ_ENGINE (auto, libfuzzer or driver).
# Exit status: 0 when no finding, 1 when findings, 2 when it could not build.
set -uo pipefail

OUT=${1:?usage: fuzz_campaign.sh OUTDIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"

START_ALL=$(date +%s)
DEADLINE=${FUZZ_DEADLINE:-570}
RUNS=${FUZZ_RUNS:-10000000}
SECONDS_LIMIT=${FUZZ_SECONDS:-420}
WORKERS=${FUZZ_WORKERS:-$(nproc)}
MAX_LEN=${FUZZ_MAX_LEN:-512}
ENGINE=${FUZZ_ENGINE:-auto}
PER=$(((RUNS + WORKERS - 1) / WORKERS))
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cass-fuzz-XXXXXX")
BUILD=$WORK/build
LOG=$OUT/build.log
mkdir -p "$BUILD" "$WORK/seeds" "$OUT/findings"
: >"$LOG"
say() { echo "fuzz_campaign: $*" | tee -a "$LOG" >&2; }

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
        exit 2
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
        exit 2
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
    "${CXX_COMPILE[@]}" -Icpp/include -Icpp/src -c "$src" -o "$obj" >>"$LOG" 2>&1 &
    pids+=($!)
done
for pid in "${pids[@]}"; do
    if ! wait "$pid"; then
        say "compile failed (see $LOG)"
        exit 2
    fi
done
if ! "${CXX_LINK[@]}" "${OBJECTS[@]}" -o "$BIN" -pthread >>"$LOG" 2>&1; then
    say "link failed (see $LOG)"
    exit 2
fi
if ! PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}" python3 cpp/fuzz/dump_table.py "$BUILD" >>"$LOG" 2>&1; then
    say "cpp/fuzz/dump_table.py failed (see $LOG)"
    exit 2
fi
BUILD_SECONDS=$(($(date +%s) - START_BUILD))

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
    >"$OUT/replay.log" 2>&1; then
    say "a regression fixture fails (see $OUT/replay.log)"
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
    prefix=$OUT/findings/w$w-
    if [ "$ENGINE" = libfuzzer ]; then
        mkdir -p "$WORK/corpus$w"
        cmd=("$BIN" -seed=$((w + 1)) -runs="$PER" -max_total_time="$SECONDS_LIMIT"
            -max_len="$MAX_LEN" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1
            -dict="$BUILD/cuda.dict" -artifact_prefix="$prefix" "$WORK/corpus$w" "$WORK/seeds")
    else
        cmd=("$BIN" --seed=$((w + 1)) --runs="$PER" --max-seconds="$SECONDS_LIMIT"
            --max-len="$MAX_LEN" --dict="$BUILD/cuda.dict" --artifact-prefix="$prefix"
            "$WORK/seeds")
    fi
    COMMANDS+=("$(printf '%q ' "${cmd[@]}")")
    "${cmd[@]}" >"$WORK/w$w.log" 2>&1 &
    pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
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
    tail -c 20000 "$log" >"$WORK/w$w.tail"
done
# Findings: the artifact files, and the first lines saying what broke.
FINDINGS=$(find "$OUT/findings" -type f | sort)
NFIND=$(echo -n "$FINDINGS" | grep -c . || true)
cat "$WORK"/w*.log | grep -E 'invariant broken|runtime error|ERROR: AddressSanitizer' |
    sort | uniq -c | sort -rn | head -20 >"$WORK/what"
# Keep what comes back small: all worker logs in one file.
for ((w = 0; w < WORKERS; w++)); do
    echo "=== worker $w"
    cat "$WORK/w$w.tail"
done >"$OUT/workers.log"

{
    echo "# Fuzz campaign of the rule core on $(nproc) cores"
    echo
    echo "Run: \`bash bench/device/fuzz_campaign.sh OUTDIR\` at $(git rev-parse --short HEAD 2>/dev/null || echo '?')" \
        "on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs" \
        "($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))."
    echo
    echo "- Engine: **$ENGINE**$([ "$ENGINE" = driver ] && echo ' (no clang++ with libFuzzer here: the standalone driver, cpp/fuzz/standalone_main.cpp, seeded random mutations without coverage feedback)')."
    echo "- Compiler: $COMPILER; flags \`$FLAGS\`; sanitizers: ${SAN:-none}. Build: ${BUILD_SECONDS} s."
    echo "- Table and dictionary: $(grep -E 'rows' "$LOG" | tail -1)."
    echo "- Seeds: $NSEEDS files (fixtures, wave64, lit, bench/programs, core_regressions); max_len $MAX_LEN."
    echo "- Regression replay before the campaign: $(grep -c '^Executed ' "$OUT/replay.log" || true) of $(ls tests/fixtures/core_regressions/*.cu | wc -l) fixtures executed."
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
        echo "$FINDINGS" | sed "s|^$OUT/|- |"
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
} >"$OUT/fuzz.md"
# Findings back as one archive (what comes back from the machine is a few files).
if [ "$NFIND" -gt 0 ]; then
    tar -C "$OUT" -czf "$OUT/findings.tar.gz" findings
fi
rm -rf "$OUT/findings"
cat "$OUT/fuzz.md"
rm -rf "$WORK"
[ "$NFIND" -eq 0 ]
