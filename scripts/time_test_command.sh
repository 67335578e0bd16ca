#!/usr/bin/env bash
# Times the README's commands as a newcomer meets them, for the README's table of times:
# in a fresh clone of this checkout's HEAD (a temporary folder), bash scripts/run_tests.sh
# (the first run: dependencies, configure, the whole build, every test), the same again with
# nothing changed (the rerun), then bash scripts/run_examples.sh. Each prints its own timing
# line; those lines, the first run's closing lines and the machine (cores, CPU, the load
# average before and after: other work on the machine slows every figure) go to FILE, by
# default docs/results/timings.txt, which scripts/readme_figures.py turns into the tables.
#   bash scripts/time_test_command.sh [FILE]
# Takes as long as the three commands (about half an hour on 2 cores).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=$(cd "$(dirname "${1:-docs/results/timings.txt}")" && pwd)/$(basename "${1:-docs/results/timings.txt}")
clone=$(mktemp -d)
trap 'rm -rf "$clone"' EXIT
git clone --quiet . "$clone/repo" || exit 1
cd "$clone/repo" || exit 1
load() { cut -d ' ' -f 1-3 /proc/loadavg; }
before=$(load)
timing() { grep -E "^$1: [0-9]+ (min|s)" "$2" | tail -n 1; }
bash scripts/run_tests.sh >"$clone/first.log" 2>&1
first=$?
bash scripts/run_tests.sh >"$clone/rerun.log" 2>&1
rerun=$?
bash scripts/run_examples.sh >"$clone/examples.log" 2>&1
examples=$?
{
    echo "# $(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD), $(nproc) cores ($(grep -m 1 'model name' /proc/cpuinfo |
        sed 's/.*: //')), $(. /etc/os-release && echo "$PRETTY_NAME"), $(nvidia-smi -L 2>/dev/null | head -n 1 || true)$(
        nvidia-smi -L >/dev/null 2>&1 || echo "no GPU"); load average $before before, $(load) after"
    echo "first run: $(timing run_tests.sh "$clone/first.log") [exit $first]" | sed 's/ \[exit 0\]$//'
    echo "rerun: $(timing run_tests.sh "$clone/rerun.log") [exit $rerun]" | sed 's/ \[exit 0\]$//'
    echo "examples: $(timing run_examples.sh "$clone/examples.log") [exit $examples]" | sed 's/ \[exit 0\]$//'
    echo "summary of the first run:"
    grep -E "^(not installed: |skipped: |failed: |ran [0-9]+ of |tests: [0-9]+ passed)" "$clone/first.log"
    echo "summary of the rerun:"
    grep -E "^(ran [0-9]+ of |tests: [0-9]+ passed)" "$clone/rerun.log"
} >"$out"
cat "$out"
[ "$first" -eq 0 ] && [ "$rerun" -eq 0 ] && [ "$examples" -eq 0 ]
