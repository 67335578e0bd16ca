#!/bin/sh
# expect_exit.sh CODE [--skip-on-exit C REGEX] [--stdout-matches REGEX]... [--stdout-lacks REGEX]... PROGRAM ARGS...
# Passes when PROGRAM exits with CODE and its standard output has a line
# matching every --stdout-matches pattern and none matching a --stdout-lacks
# pattern (grep -E). With --skip-on-exit C REGEX, exit C with a line on stderr
# matching REGEX is reported as skipped (77) with the program's own line (a
# large test on a GPU with too little memory); exit C for any other reason fails. A command-line error (CODE 2) must also say why in
# exactly one line on stderr. Exit 77 from the program (no CUDA device) is
# passed on as "skipped" unless 77 was the expected code.
expected=$1
shift
skip_on= skip_reason=
if [ "$1" = "--skip-on-exit" ]; then
    skip_on=$2 skip_reason=$3
    shift 3
fi
checks=$(mktemp)
while [ "$1" = "--stdout-matches" ] || [ "$1" = "--stdout-lacks" ]; do
    printf '%s\t%s\n' "$1" "$2" >>"$checks"
    shift 2
done
output=$(mktemp)
errors=$(mktemp)
"$@" >"$output" 2>"$errors"
status=$?
lines=$(wc -l <"$errors")
echo "exit $status, stderr: $(cat "$errors")"
verdict=0
if [ "$status" -eq 77 ] && [ "$expected" -ne 77 ]; then
    echo "no CUDA device: skipped"
    verdict=77
elif [ -n "$skip_on" ] && [ "$status" -eq "$skip_on" ] && grep -Eq -- "$skip_reason" "$errors"; then
    echo "skipped: $(cat "$errors")"
    verdict=77
elif [ "$status" -ne "$expected" ]; then
    echo "FAIL: expected exit $expected"
    verdict=1
elif [ "$expected" -eq 2 ] && [ "$lines" -ne 1 ]; then
    echo "FAIL: expected one line on stderr, got $lines"
    verdict=1
else
    while IFS="$(printf '\t')" read -r kind pattern; do
        if [ "$kind" = "--stdout-matches" ] && ! grep -Eq -- "$pattern" "$output"; then
            echo "FAIL: no line of the output matches: $pattern"
            verdict=1
        elif [ "$kind" = "--stdout-lacks" ] && grep -Eq -- "$pattern" "$output"; then
            echo "FAIL: the output has a line matching: $pattern"
            verdict=1
        fi
    done <"$checks"
fi
[ "$verdict" -eq 1 ] && { echo "--- the program's output:"; cat "$output"; }
rm -f "$checks" "$output" "$errors"
[ "$verdict" -eq 0 ] && echo "ok"
exit "$verdict"
