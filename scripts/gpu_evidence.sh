#!/usr/bin/env bash
# Everything the repository needs from a GPU machine, in one batched run:
#   bash scripts/gpu_evidence.sh          (from anywhere; OUT=DIR chooses where the files go)
#
# 1. records the machine (nvidia-smi, toolkit versions)                -> top of $OUT/examples.log
# 2. configures and builds for the local GPU (build-gpu, -DCMAKE_CUDA_ARCHITECTURES=native),
# 3. runs the whole CTest suite (host, gpu and sanitizer labels)        -> $OUT/ctest.log
#    (the build log sits at its top; each label's tests are listed at its end),
# 4. runs the benchmark sweep (scripts/benchmark.py)                   -> $OUT/benchmark.csv, benchmark.log
# 5. runs each example's default (book) configuration                  -> $OUT/examples.log (after 1.)
#    and saves the bitmap images                                        -> $OUT/shared_bitmap_*.png (3)
# 6. if scripts/bank_conflicts.sh and ncu exist and time is left, counts -> $OUT/bank_conflicts.txt
#    the transpose kernels' bank conflicts, float then double at 4096² (at most 90 s each), each
#    run's output under a line '=== bank_conflicts TYPE 4096' (what make_results.py --banks reads).
# At most 8 files under $OUT (what fetches $OUT returns no more): ctest.log, benchmark.csv,
# benchmark.log, examples.log, bank_conflicts.txt and the 3 images. Each phase runs under
# `timeout`, inside one overall budget (EVIDENCE_BUDGET_S, default 540 s), so one hang does not
# lose the rest. The last lines printed are a short summary. Then, on any machine (no GPU needed):
#   cp $OUT/benchmark.csv $OUT/ctest.log $OUT/bank_conflicts.txt docs/results/
#   python3 scripts/make_results.py --csv docs/results/benchmark.csv --tests docs/results/ctest.log \
#       --banks docs/results/bank_conflicts.txt
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-./gpu-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
BUILD=${EVIDENCE_BUILD_DIR:-build-gpu}
ARCH=${EVIDENCE_CUDA_ARCH:-native}
BUDGET=${EVIDENCE_BUDGET_S:-540}
export PYTHONUNBUFFERED=1
# nvcc on PATH when the toolkit is in its usual place.
# shellcheck source=env.sh
source scripts/env.sh

START=$SECONDS
SUMMARY=()
FAILED_PHASES=0
left() { echo $((BUDGET - (SECONDS - START))); }
# phase_limit CAP RESERVE: the seconds a phase may take: at most CAP, leaving RESERVE for the later phases.
phase_limit() {
    local limit=$(($(left) - $2))
    [ "$limit" -gt "$1" ] && limit=$1
    [ "$limit" -lt 10 ] && limit=10
    echo "$limit"
}
# record NAME STATUS SECONDS
record() {
    SUMMARY+=("$(printf '  %-16s %-26s %4d s' "$1" "$2" "$3")")
    case $2 in ok* | skipped*) ;; *) FAILED_PHASES=$((FAILED_PHASES + 1)) ;; esac
}
status_of() { # status_of EXIT_CODE
    case $1 in 0) echo ok ;; 77) echo "skipped (no GPU)" ;; 124 | 137) echo "TIMED OUT" ;; *) echo "FAILED (exit $1)" ;; esac
}
banner() { printf '\n===== %s (%s s left) =====\n' "$1" "$(left)"; }

# --- 1. The machine: it opens examples.log ---------------------------------------------
banner "machine"
phase_start=$SECONDS
{
    echo "=== machine (nvidia-smi, toolchain)"
    echo "date (UTC): $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: ${EVIDENCE_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
    echo
    timeout 30 nvidia-smi || echo "nvidia-smi: not available (exit $?)"
    echo
    timeout 30 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.memory,power.limit \
        --format=csv || true
    echo
    echo "--- toolchain"
    timeout 20 nvcc --version 2>&1 | tail -n 2 || echo "nvcc: not found"
    timeout 20 cmake --version 2>&1 | head -n 1 || echo "cmake: not found"
    timeout 20 gcc --version 2>&1 | head -n 1 || echo "gcc: not found"
    timeout 20 compute-sanitizer --version 2>&1 | tail -n 1 || echo "compute-sanitizer: not found"
    timeout 20 ncu --version 2>&1 | tail -n 1 || echo "ncu: not found"
    timeout 20 python3 -c 'import sys, matplotlib; print("python", sys.version.split()[0], "matplotlib", matplotlib.__version__)' \
        2>&1 || echo "python3 or matplotlib: not found"
    echo
} >"$OUT/examples.log" 2>&1
head -n 20 "$OUT/examples.log"
GPU_LINE=$(timeout 30 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
record machine ok $((SECONDS - phase_start))

# --- 2. Configure and build: the log opens ctest.log --------------------------------------
banner "configure and build ($BUILD)"
phase_start=$SECONDS
{
    echo "EVIDENCE date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "EVIDENCE gpu=${GPU_LINE:-unknown}"
    echo "EVIDENCE commit=${EVIDENCE_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
    echo "EVIDENCE build=cmake -S . -B $BUILD -DCMAKE_CUDA_ARCHITECTURES=$ARCH -DCMAKE_BUILD_TYPE=Release"
    echo
    echo "=== configure and build"
} >"$OUT/ctest.log"
limit=$(phase_limit 360 300)
build_status=0
timeout "$limit" cmake -S . -B "$BUILD" -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DCMAKE_BUILD_TYPE=Release \
    >>"$OUT/ctest.log" 2>&1 || build_status=$?
tail -n 5 "$OUT/ctest.log"
if [ "$build_status" -eq 0 ]; then
    # Keep going past an error, so that every example that can be built is.
    keep_going=()
    if [ -f "$BUILD/Makefile" ]; then keep_going=(-- -k); elif [ -f "$BUILD/build.ninja" ]; then keep_going=(-- -k 0); fi
    limit=$(phase_limit 360 300)
    timeout "$limit" cmake --build "$BUILD" -j16 "${keep_going[@]}" >>"$OUT/ctest.log" 2>&1 || build_status=$?
    sed -n '/^=== configure and build/,$p' "$OUT/ctest.log" | grep -E 'error|warning|Error [0-9]|FAILED' | tail -n 30
    tail -n 3 "$OUT/ctest.log"
fi
record build "$(status_of "$build_status")" $((SECONDS - phase_start))

# --- 3. The test suite -------------------------------------------------------------------------
banner "ctest (every label)"
phase_start=$SECONDS
echo "=== ctest --test-dir $BUILD -j8 --output-on-failure" >>"$OUT/ctest.log"
limit=$(phase_limit 200 270)
stop_time=()
# --stop-time lets ctest end the tests still running itself, so its summary is printed.
if end=$(date -d "+$((limit - 15)) seconds" +%H:%M:%S 2>/dev/null) && [[ "$end" > "$(date +%H:%M:%S)" ]]; then
    stop_time=(--stop-time "$end")
fi
ctest_status=0
timeout --kill-after=10 "$limit" ctest --test-dir "$BUILD" -j8 --output-on-failure "${stop_time[@]}" \
    >>"$OUT/ctest.log" 2>&1 || ctest_status=$?
# Which tests carry which label, for the per-label summary of make_results.py.
{
    echo
    echo "=== tests per label"
    for label in $(timeout 30 ctest --test-dir "$BUILD" --print-labels 2>/dev/null | sed -n '/All Labels:/,$p' | tail -n +2); do
        echo "LABELS $label: $(timeout 30 ctest --test-dir "$BUILD" -N -L "^${label}\$" 2>/dev/null |
            sed -n 's/^ *Test *#[0-9]*: *//p' | tr '\n' ' ')"
    done
} >>"$OUT/ctest.log"
record ctest "$(status_of "$ctest_status")" $((SECONDS - phase_start))

# --- 4. The benchmark sweep ----------------------------------------------------------------------
banner "benchmark"
phase_start=$SECONDS
limit=$(phase_limit 270 40)
bench_status=0
timeout --kill-after=10 "$limit" python3 -u scripts/benchmark.py --build "$BUILD" --out "$OUT/benchmark.csv" \
    --deadline $((limit - 45)) --run-timeout 90 2>&1 | tee "$OUT/benchmark.log" || bench_status=$?
record benchmark "$(status_of "$bench_status")" $((SECONDS - phase_start))

# --- 5. Each example's default run, and the bitmap images ------------------------------------------
banner "examples"
phase_start=$SECONDS
examples_failed=0
examples_skipped=0
# examples.log already holds the machine's record (phase 1): the runs follow it.
run_example() { # run_example BINARY ARGS...: one run, logged, under a timeout
    local binary=$1
    shift
    if [ ! -x "$binary" ]; then
        echo "--- $binary: not built, skipped" | tee -a "$OUT/examples.log"
        return
    fi
    local limit status=0
    limit=$(phase_limit 60 5)
    echo "=== $binary $*" >>"$OUT/examples.log"
    timeout --kill-after=5 "$limit" "$binary" "$@" >>"$OUT/examples.log" 2>&1 || status=$?
    echo "--- exit $status" >>"$OUT/examples.log"
    echo >>"$OUT/examples.log"
    printf '  %-60s exit %s\n' "$(basename "$binary") $*" "$status"
    [ "$status" -eq 77 ] && examples_skipped=$((examples_skipped + 1)) && return 0 # no GPU: skipped
    return "$status"
}
run_example "$BUILD/ch05_dot/dot" || examples_failed=$((examples_failed + 1))
run_example "$BUILD/ch08_reduce/reduce" || examples_failed=$((examples_failed + 1))
run_example "$BUILD/ch08_reduce/reduce" --type double || examples_failed=$((examples_failed + 1))
run_example "$BUILD/ch08_transpose/transpose" || examples_failed=$((examples_failed + 1))
bitmap="$BUILD/ch05_shared_bitmap/shared_bitmap"
if [ -x "$bitmap" ]; then
    bitmap_help=$("$bitmap" --help 2>&1 || true)
    window=()
    if grep -q -- '--no-window' <<<"$bitmap_help"; then window=(--no-window); fi
    if grep -q -- '--save' <<<"$bitmap_help"; then
        run_example "$bitmap" "${window[@]}" --save "$OUT/shared_bitmap_synced.png" ||
            examples_failed=$((examples_failed + 1))
        diff=()
        if grep -q -- '--save-diff' <<<"$bitmap_help"; then diff=(--save-diff "$OUT/shared_bitmap_no_sync_diff.png"); fi
        # The racy run's exit code is whatever the program reports for a wrong image: logged, not judged.
        run_example "$bitmap" "${window[@]}" --no-sync --save "$OUT/shared_bitmap_no_sync.png" "${diff[@]}" || true
    else
        echo "--- $bitmap has no --save option: images skipped" | tee -a "$OUT/examples.log"
    fi
else
    echo "--- $bitmap: not built, skipped" | tee -a "$OUT/examples.log"
fi
if [ "$examples_failed" -eq 0 ] && [ "$examples_skipped" -gt 0 ]; then
    record examples "skipped ($examples_skipped: no GPU)" $((SECONDS - phase_start))
elif [ "$examples_failed" -eq 0 ]; then record examples ok $((SECONDS - phase_start)); else
    record examples "FAILED ($examples_failed runs)" $((SECONDS - phase_start))
fi

# --- 6. Bank conflicts under Nsight Compute (optional) -------------------------------------------------
# Both runs go into one file, each under its own header line, for make_results.py --banks.
if [ -f scripts/bank_conflicts.sh ] && command -v ncu >/dev/null 2>&1; then
    : >"$OUT/bank_conflicts.txt"
    for type in float double; do
        # Each run gets at most 90 s, and starts only while more than 40 s of the budget are left.
        if [ "$(left)" -gt 40 ]; then
            banner "bank conflicts, $type (ncu)"
            phase_start=$SECONDS
            echo "=== bank_conflicts $type 4096" >>"$OUT/bank_conflicts.txt"
            limit=$(phase_limit 90 5)
            bank_status=0
            timeout --kill-after=5 "$limit" bash scripts/bank_conflicts.sh "$BUILD" --n 4096 --type "$type" \
                >>"$OUT/bank_conflicts.txt" 2>&1 || bank_status=$?
            [ "$bank_status" -ne 0 ] && echo "bank_conflicts.sh: exit $bank_status" >>"$OUT/bank_conflicts.txt"
            echo >>"$OUT/bank_conflicts.txt"
            sed -n '/^=== bank_conflicts '"$type"'/,$p' "$OUT/bank_conflicts.txt" | tail -n 15
            record "banks $type" "$(status_of "$bank_status")" $((SECONDS - phase_start))
        else
            record "banks $type" "skipped (no time left)" 0
        fi
    done
else
    record bank_conflicts "skipped (no script or ncu)" 0
fi

# --- Summary ---------------------------------------------------------------------------------------------
echo
echo "===================== SUMMARY ($((SECONDS - START)) s of $BUDGET s) ====================="
echo "GPU: ${GPU_LINE:-unknown}   commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
printf '%s\n' "${SUMMARY[@]}"
echo
echo "--- ctest"
grep -E '^[0-9]+% tests passed' "$OUT/ctest.log" || echo "  (no ctest summary line: see ctest.log)"
sed -n '/^Label Time Summary:/,/^$/p' "$OUT/ctest.log"
sed -n '/^The following tests FAILED:/,/^$/p' "$OUT/ctest.log" | head -n 30
skipped=$(sed -n '/^The following tests did not run:/,/^$/p' "$OUT/ctest.log" | grep -c ' - ')
echo "skipped: $skipped"
echo
echo "--- benchmark"
tail -n 14 "$OUT/benchmark.log" 2>/dev/null || echo "  (no benchmark log)"
echo
echo "--- examples"
grep -E '^RESULT|^=== |^--- exit' "$OUT/examples.log" | cut -c1-160 | tail -n 40
echo
echo "--- files in $OUT"
find "$OUT" -maxdepth 1 -type f -printf '  %-32f %10s bytes\n' | sort
echo
banks_copy="" banks_option=""
if [ -s "$OUT/bank_conflicts.txt" ]; then
    banks_copy=" $OUT/bank_conflicts.txt" banks_option=" --banks docs/results/bank_conflicts.txt"
fi
echo "Next, on any machine: cp $OUT/benchmark.csv $OUT/ctest.log$banks_copy docs/results/ &&"
echo "  python3 scripts/make_results.py --csv docs/results/benchmark.csv --tests docs/results/ctest.log$banks_option"
[ "$FAILED_PHASES" -eq 0 ]
