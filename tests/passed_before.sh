#!/usr/bin/env bash
# passed_before.sh STAMP_DIR INPUTS PROBE COMMAND [ARGS...]
# Runs COMMAND, unless it passed before with the same inputs: then says so and exits 0
# without running it. For the host tests that take long and read only files and tools
# (the oldest CMake's configure and build, the results tooling's suite), so that a rerun
# of the test command with nothing changed does not redo them.
#   INPUTS  a :-separated list (as PATH is written) of files and folders: the path and
#           contents of every file under them count, but files git ignores (build
#           folders, hand-built programs) where the folder is in a git checkout;
#   PROBE   a shell command whose output counts too: the versions of the tools COMMAND
#           uses (python3 --version; nvcc --version), as builds_alone.sh counts nvcc's;
#   COMMAND ARGS  the test itself; its own exit status is returned.
# A stamp named by the hash of COMMAND ARGS, INPUTS' contents and PROBE's output is left
# in STAMP_DIR (the test's own folder) after COMMAND exits 0, never after a failure or a
# skip (77). Remove STAMP_DIR (or set EXAMPLES_RERUN_ALL=1) to run the test again.
set -uo pipefail
stamps=$1 inputs=$2 probe=$3
shift 3
[ $# -gt 0 ] || { echo "usage: passed_before.sh STAMP_DIR INPUTS PROBE COMMAND [ARGS...]"; exit 2; }

# Every file under each input, with its contents' hash, sorted; git's view where there is one.
file_hashes() {
    local input=$1
    if [ -f "$input" ]; then
        printf '%s %s\n' "$(sha256sum <"$input" | cut -d ' ' -f 1)" "$input"
    elif [ -d "$input" ]; then
        if git -C "$input" rev-parse --show-toplevel >/dev/null 2>&1; then
            (cd "$input" && git ls-files -co --exclude-standard -z . | LC_ALL=C sort -z | xargs -0 -r sha256sum 2>&1)
        else
            (cd "$input" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
        fi
    else
        echo "missing $input"
    fi
}
key=$({
    printf '%s\n' "$@"
    IFS=':' read -r -a list <<<"$inputs"
    for input in "${list[@]}"; do
        echo "input: $input"
        file_hashes "$input"
    done
    echo "probe: $probe"
    bash -c "$probe" 2>&1
} | sha256sum | cut -c 1-24)
stamp=$stamps/passed-$key
if [ -f "$stamp" ] && [ "${EXAMPLES_RERUN_ALL:-0}" != 1 ]; then
    echo "reused: passed on $(cat "$stamp") with these same inputs and tools (stamp $stamp); not run again"
    exit 0
fi
"$@"
status=$?
if [ "$status" -eq 0 ]; then # one stamp per test: STAMP_DIR is the test's own
    mkdir -p "$stamps" && rm -f "$stamps"/passed-* && date -u +%Y-%m-%dT%H:%M:%SZ >"$stamp"
fi
exit "$status"
