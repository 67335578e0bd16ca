#!/usr/bin/env bash
# The CPU runner's cost, for docs/CPU_RUNNER.md (a benchmark, never a test): each book program's
# default run on the runner, its wall time on this machine, and the runner's own counters
# (CUDA_CPU_STATS=1: launches, CUDA threads, fiber switches, seconds inside kernels).
#   bash cpu_runner/benchmark.sh [BUILD_DIR]       (default build/)
set -euo pipefail
build=${1:-build}
printf '| run | exit | wall s | CUDA threads | switches | switches/s in kernels |\n|---|---:|---:|---:|---:|---:|\n'
while read -r program arguments; do
    [ -x "$build/$program" ] || { echo "| $program $arguments | not built | | | | |"; continue; }
    start=$(date +%s%N)
    status=0
    # shellcheck disable=SC2086
    CUDA_CPU_STATS=1 "$build/$program" --cpu $arguments >/dev/null 2>"$build/cpu_benchmark.err" || status=$?
    wall_ms=$((($(date +%s%N) - start) / 1000000))
    stats=$(grep '^CPU runner stats:' "$build/cpu_benchmark.err" || echo "")
    threads=$(sed -n 's/.* \([0-9]*\) CUDA threads.*/\1/p' <<<"$stats")
    switches=$(sed -n 's/.* \([0-9]*\) switches,.*/\1/p' <<<"$stats")
    rate=$(sed -n 's/.*: \([0-9.e+]*\) switches\/s/\1/p' <<<"$stats")
    run=${program##*/}${arguments:+ $arguments}
    printf '| `%s` | %d | %d.%02d | %s | %s | %s |\n' "$run" "$status" $((wall_ms / 1000)) \
        $((wall_ms % 1000 / 10)) "$threads" \
        "$switches" "$rate"
done <<'RUNS'
ch05_dot/dot
ch05_shared_bitmap/shared_bitmap --no-window
ch05_shared_bitmap/shared_bitmap --no-window --no-sync
ch08_banks/banks
ch08_reduce/reduce
ch08_transpose/transpose
ch08_shared_vs_global/shared_vs_global
RUNS
rm -f "$build/cpu_benchmark.err"
