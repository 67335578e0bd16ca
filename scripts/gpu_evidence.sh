#!/usr/bin/env bash
# The one batched GPU run: everything the repository needs from a GPU machine, into $OUT
# (default ./gpu-out): ctest.log (the machine, then the tests), build.log, sweep.csv and
# sweep.log, examples.log (each example's default run), banks.txt, mutants.txt. Each phase runs under
# `timeout` inside one budget, EVIDENCE_BUDGET_S (default 540 s), so a hang loses only itself.
#   bash scripts/gpu_evidence.sh
# Settings: EVIDENCE_CUDA_ARCH (native), EVIDENCE_LABELS (host|gpu|sanitizer; add |large for the
# tests past 2^31 elements), EVIDENCE_CTEST=0 (no tests), EVIDENCE_CTEST_S (its cap, 240 s),
# EVIDENCE_MUTANTS=0 (no mutants), EVIDENCE_EXAMPLES=0 (no example runs), EVIDENCE_SWEEP_S and
# EVIDENCE_MUTANTS_S (those phases' caps, 240 s each), EVIDENCE_BANKS=0 (no Nsight Compute tables),
# EVIDENCE_COMMIT (the commit to record where the copy's .git is not the tree's: the device tool's copy),
# EVIDENCE_SWEEP=0 (no sweep), EVIDENCE_QUICK=1 (a short sweep). Then where the files go, and plot.py.
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-./gpu-out}
BUILD=build-gpu
BUDGET=${EVIDENCE_BUDGET_S:-540}
mkdir -p "$OUT"
# shellcheck source=env.sh
source scripts/env.sh
SUMMARY=()
exec 3>&1 # the terminal, for progress lines while a phase's output goes to its file

# phase NAME CAP COMMAND...: COMMAND under a timeout of CAP seconds or what is left of the budget.
phase() {
    local name=$1 limit=$((BUDGET - SECONDS)) start=$SECONDS status=0
    [ "$2" -lt "$limit" ] && limit=$2
    shift 2
    if [ "$limit" -lt 10 ]; then
        SUMMARY+=("$name: skipped, budget spent")
        return
    fi
    echo "=== $name (at most $limit s)" >&3
    timeout --kill-after=10 "$limit" "$@" || status=$?
    SUMMARY+=("$(printf '%-9s exit %-3s %4d s' "$name" "$status" $((SECONDS - start)))")
}

{
    echo "=== machine: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit ${EVIDENCE_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}"
    nvidia-smi -L
    nvcc --version | tail -n 2
    echo
} >"$OUT/ctest.log" 2>&1
phase configure 120 cmake -S . -B "$BUILD" -DCMAKE_CUDA_ARCHITECTURES="${EVIDENCE_CUDA_ARCH:-native}" \
    -DCMAKE_BUILD_TYPE=Release >"$OUT/build.log" 2>&1
phase build 300 cmake --build "$BUILD" -j16 >>"$OUT/build.log" 2>&1
[ "${EVIDENCE_CTEST:-1}" != 0 ] && phase ctest "${EVIDENCE_CTEST_S:-240}" ctest --test-dir "$BUILD" --output-on-failure -j4 -L "${EVIDENCE_LABELS:-host|gpu|sanitizer}" \
    >>"$OUT/ctest.log" 2>&1
if [ "${EVIDENCE_SWEEP:-1}" != 0 ]; then
    quick=()
    [ "${EVIDENCE_QUICK:-0}" = 1 ] && quick=(--quick)
    phase sweep "${EVIDENCE_SWEEP_S:-240}" python3 scripts/sweep.py --build "$BUILD" --out "$OUT/sweep.csv" --force "${quick[@]}" \
        >"$OUT/sweep.log" 2>&1
fi
# Each example's default run (the book's program first), as the main job runs it, then the runs the
# lessons show (the pitfalls, the demo, what the sanitizers say of them): one section per run,
# '=== COMMAND' then its output, for the lessons' run:SLUG markers (scripts/plot.py). In the list,
# @ stands for the build folder; a section names the command as run from there.
examples() {
    local run
    while read -r run; do
        echo "=== ${run//@\//}"
        # shellcheck disable=SC2086
        (cd "$BUILD" && timeout 120 ${run//@/.} 2>&1)
        echo "=== exit $?"
    done <<LIST
@/ch05_dot/dot
@/ch05_dot/dot --check --kernel barrier_in_if,barrier_deadlock
compute-sanitizer --tool synccheck --print-limit 1 @/ch05_dot/dot --check --n 10007 --kernel barrier_deadlock
@/ch05_dot/dot --check --kernel barrier_first_warp,barrier_first_warp_then_block
compute-sanitizer --tool synccheck --print-limit 1 @/ch05_dot/dot --check --n 10007 --kernel barrier_first_warp_then_block
@/ch05_dot/dot --part cpu_sum
@/ch05_dot/dot --part cpu_sum --n 1e8
@/ch05_shared_bitmap/shared_bitmap --no-window --save /tmp/evidence_shared_bitmap.png
@/ch05_shared_bitmap/shared_bitmap --no-window --no-sync --save-diff /tmp/evidence_shared_bitmap_diff.png
compute-sanitizer --tool racecheck --print-limit 1 @/ch05_shared_bitmap/shared_bitmap --no-window --no-sync
@/ch08_banks/banks
compute-sanitizer --tool memcheck --print-limit 1 @/ch08_banks/banks --part carve_misaligned
compute-sanitizer --tool racecheck --print-limit 1 @/ch08_banks/banks --check --part same_address
@/ch08_reduce/reduce
@/ch08_reduce/reduce --kernel warp_unrolled,warp_synced,static
@/ch08_reduce/reduce --kernel interleaved,strided_index,static
compute-sanitizer --tool racecheck @/ch08_reduce/reduce --check --n 100003 --data random --kernel warp_unrolled,warp_synced
compute-sanitizer --tool memcheck --print-limit 1 @/ch08_reduce/reduce --check --n 100003 --kernel global_unguarded
@/ch08_reduce/reduce --demo squares
@/ch08_transpose/transpose
@/ch08_shared_vs_global/shared_vs_global
@/ch08_matmul/matmul
LIST
}
export -f examples # timeout runs programs, not shell functions
export BUILD OUT
[ "${EVIDENCE_EXAMPLES:-1}" != 0 ] && phase examples 240 bash -c examples >"$OUT/examples.log" 2>&1
# Every chapter's shared-memory traffic under Nsight Compute, beside its bank model's prediction.
# The last two runs are a side experiment: the same kernels on a grid so small (4 and 8 blocks)
# that no SM runs two blocks, so no block's global loads fill the L1 while another reads shared
# memory: does the hardware count then equal the addresses' (SASS) count?
if [ "${EVIDENCE_BANKS:-1}" != 0 ]; then
    : >"$OUT/banks.txt"
    while read -r program args; do
        [ -x "$BUILD/$program" ] || continue
        [ -s "$OUT/banks.txt" ] && echo >>"$OUT/banks.txt"
        # shellcheck disable=SC2086 # the options, word by word
        phase banks 120 bash scripts/bank_conflicts.sh "$BUILD/$program" $args >>"$OUT/banks.txt"
    done <<'LIST'
ch08_transpose/transpose --check --n 4096
ch08_transpose/transpose --check --n 4096 --type double
ch08_banks/banks --check --part stride,size
ch08_banks/banks --check --part carve,alias,same_address
ch08_reduce/reduce --check --n 2^20 --data random
ch08_reduce/reduce --check --n 2^20 --data random --type double
ch08_reduce/reduce --check --n 2^20 --data random --kernel interleaved,strided_index,static --block 128
ch08_reduce/reduce --check --n 2^20 --data random --kernel interleaved,strided_index,static --block 1024
ch05_dot/dot --check --n 2^20
ch05_dot/dot --check --n 2^20 --type double
ch05_shared_bitmap/shared_bitmap --no-window
ch08_shared_vs_global/shared_vs_global --check
ch08_transpose/transpose --check --n 64
ch08_reduce/reduce --check --n 1024 --data random --kernel static,strided_index
LIST
fi
[ "${EVIDENCE_MUTANTS:-1}" != 0 ] && phase mutants "${EVIDENCE_MUTANTS_S:-240}" bash scripts/mutants.sh >"$OUT/mutants.txt" 2>&1

slug=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | tr '[:upper:]' '[:lower:]' |
    grep -o '[a-z]*[0-9][a-z0-9]*' | head -n 1)
echo
echo "===== summary ($SECONDS s of $BUDGET s); files in $OUT"
printf '  %s\n' "${SUMMARY[@]}"
grep -E '^[0-9]+% tests passed' "$OUT/ctest.log"
sed -n '/^The following tests FAILED/,/^$/p' "$OUT/ctest.log"
tail -n 1 "$OUT/sweep.log" 2>/dev/null
folder=docs/results/${slug:-DEVICE}
echo "Next: mkdir -p $folder && cp $OUT/{sweep.csv,ctest.log,banks.txt,mutants.txt,examples.log} $folder/"
echo "      python3 scripts/plot.py --regenerate   # every page with markers, both languages, and the plots"
! printf '%s\n' "${SUMMARY[@]}" | grep -qvE 'exit (0|77) ' # 77: a phase found no GPU or no ncu
