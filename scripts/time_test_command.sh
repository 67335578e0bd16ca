#!/usr/bin/env bash
# Times the README's two commands as a newcomer meets them, for the README's table of times:
#   bash scripts/time_test_command.sh [FILE]      (about half an hour on 2 cores)
# In a fresh clone of HEAD, in the README's order: run_examples.sh, run_tests.sh, run_tests.sh again (the
# rerun); in a second clone the other order. Their timing lines, the first test run's closing lines and the
# machine (cores, CPU, load average before and after) go to FILE (default docs/results/timings.txt), which
# scripts/readme_figures.py turns into the README's block.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=$(cd "$(dirname "${1:-docs/results/timings.txt}")" && pwd)/$(basename "${1:-docs/results/timings.txt}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
load() { cut -d ' ' -f 1-3 /proc/loadavg; }
before=$(load)
commit=$(git rev-parse --short HEAD) # both clones check out this commit, whatever HEAD becomes meanwhile
failed=0
# run KEY CLONE SCRIPT: the script in that clone (cloned on first use); KEY's timing line to $work/KEY.
run() {
    [ -d "$work/$2" ] || { git clone --quiet --no-checkout . "$work/$2" && git -C "$work/$2" checkout --quiet "$commit"; } ||
        exit 1
    (cd "$work/$2" && bash "scripts/$3" >"$work/$1.log" 2>&1)
    local status=$?
    [ "$status" -eq 0 ] || failed=1
    echo "$1: $(grep -E "^$3: [0-9]+ (min|s)" "$work/$1.log" | tail -n 1) [exit $status]" | sed 's/ \[exit 0\]$//' >"$work/$1"
}
run "examples first" readme_order run_examples.sh
run "tests next" readme_order run_tests.sh
run "tests rerun" readme_order run_tests.sh
run "tests first" other_order run_tests.sh
run "examples next" other_order run_examples.sh
{
    echo "# $(date -u +%Y-%m-%d), commit $commit, $(nproc) cores ($(grep -m 1 'model name' /proc/cpuinfo |
        sed 's/.*: //')), $(. /etc/os-release && echo "$PRETTY_NAME"), $(nvidia-smi -L 2>/dev/null | head -n 1 || true)$(
        nvidia-smi -L >/dev/null 2>&1 || echo "no GPU"); load average $before before, $(load) after"
    cat "$work/examples first" "$work/tests next" "$work/tests rerun" "$work/tests first" "$work/examples next"
    echo "summary of the first test run (after the examples):"
    grep -E "^(not installed: |skipped: |failed: |ran [0-9]+ of |tests: [0-9]+ passed)" "$work/tests next.log"
    echo "summary of the test run in the other order:"
    grep -E "^(ran [0-9]+ of |tests: [0-9]+ passed)" "$work/tests first.log"
} >"$out"
cat "$out"
exit "$failed"
