#!/usr/bin/env bash
# The main job: install what is missing, build, and run every example once, in its default (book) configuration.
# Images open in windows where a display exists (close each with Esc or q); otherwise they are saved as PNG files.
# Without a CUDA GPU every example runs on the CPU runner instead (--cpu: CUDA's rules on the CPU, no timing;
# docs/CPU_RUNNER.md), and says so.
#   bash scripts/run_examples.sh         (extra arguments go to cmake's configure)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
install_dependencies
configure_and_build "$@"

examples_start=$SECONDS
images="$BUILD_DIR/images"
mkdir -p "$images"
passed=0 failed=0 skipped=0 on_cpu=()
status=0
[ -x "$BUILD_DIR/ch05_dot/dot" ] && { "$BUILD_DIR/ch05_dot/dot" --check --n 1 --kernel book >/dev/null 2>&1 || status=$?; }
if [ "$status" -eq 77 ] && [ -x "$BUILD_DIR/ch05_dot/dot_cpu" ]; then
    on_cpu=(--cpu)
    echo "No CUDA device was found: every example runs on the CPU runner (--cpu): CUDA's rules on this CPU,"
    echo "every shared-memory race and barrier error reported with its line, nothing timed (docs/CPU_RUNNER.md)."
fi
run() { # run [--expect CODE] PROGRAM ARGS...: CODE (default 0) counts as passed
    local expect=0
    if [ "$1" = --expect ]; then expect=$2 && shift 2; fi
    local binary=$1
    shift
    if [ ! -x "$binary" ]; then echo "--- $binary was not built: skipped"; skipped=$((skipped + 1)); return; fi
    echo
    echo "=== $binary $* ${on_cpu[*]}"
    local status=0
    "$binary" "$@" "${on_cpu[@]}" || status=$?
    case $status in
    "$expect") passed=$((passed + 1)) ;;
    77) skipped=$((skipped + 1)) ;;
    *) echo "--- $binary exited $status"; failed=$((failed + 1)) ;;
    esac
}

run "$BUILD_DIR/ch05_dot/dot"
run "$BUILD_DIR/ch05_shared_bitmap/shared_bitmap" --save "$images/shared_bitmap_synced.png"
# The race on purpose: on a GPU it passes by counting the wrong pixels; on the CPU runner the race
# is a finding, reported with its line, and the exit is 1.
no_sync_exit=0
[ ${#on_cpu[@]} -eq 0 ] || no_sync_exit=1
run --expect "$no_sync_exit" "$BUILD_DIR/ch05_shared_bitmap/shared_bitmap" --no-sync --save "$images/shared_bitmap_no_sync.png" \
    --save-diff "$images/shared_bitmap_no_sync_diff.png"
run "$BUILD_DIR/ch08_banks/banks"
run "$BUILD_DIR/ch08_reduce/reduce"
run "$BUILD_DIR/ch08_reduce/reduce" --type double
run "$BUILD_DIR/ch08_reduce/reduce" --demo squares
run "$BUILD_DIR/ch08_transpose/transpose"
run "$BUILD_DIR/ch08_shared_vs_global/shared_vs_global"
run "$BUILD_DIR/ch08_matmul/matmul"

phase_took examples $((SECONDS - examples_start))
echo
timing_line
if [ "$skipped" -gt 0 ] && [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then
    echo "No CUDA device was found, so no example could run (each one said why above). What they print on"
    echo "the GPUs they ran on is committed: each chapter's README.md (its lesson, with its runs),"
    echo "docs/results/h100/examples.log and docs/results/h200/examples.log, and docs/RESULTS.md (tables, plots)."
fi
echo "examples: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
