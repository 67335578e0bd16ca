#!/bin/sh
# expect_exit.sh CODE PROGRAM ARGS...: passes when PROGRAM exits with CODE and,
# for a command-line error, says why in exactly one line on stderr.
expected=$1
shift
errors=$(mktemp)
"$@" >/dev/null 2>"$errors"
status=$?
lines=$(wc -l <"$errors")
echo "exit $status, stderr: $(cat "$errors")"
rm -f "$errors"
if [ "$status" -eq 77 ] && [ "$expected" -ne 77 ]; then
    echo "no CUDA device: skipped"
    exit 77
fi
if [ "$status" -ne "$expected" ]; then
    echo "FAIL: expected exit $expected"
    exit 1
fi
if [ "$expected" -eq 2 ] && [ "$lines" -ne 1 ]; then
    echo "FAIL: expected one line on stderr, got $lines"
    exit 1
fi
echo "ok"
