#!/bin/sh
# expect_bad_input.sh PROGRAM CASE...
# Each CASE is one command line (split at spaces) that PROGRAM must reject:
# exit 2 and exactly one line on stderr, before any CUDA call (so this runs on
# machines without a GPU). Prints one line per case; fails if any case does.
program=$1
shift
failed=0
errors=$(mktemp)
for case in "$@"; do
    set -f # a case like "--n *" must reach the program as typed
    # shellcheck disable=SC2086
    "$program" $case >/dev/null 2>"$errors"
    status=$?
    set +f
    lines=$(wc -l <"$errors")
    if [ "$status" -eq 2 ] && [ "$lines" -eq 1 ]; then
        echo "ok    [$case] -> $(cat "$errors")"
    else
        echo "FAIL  [$case] -> exit $status, $lines line(s) on stderr (expected exit 2, one line): $(cat "$errors")"
        failed=$((failed + 1))
    fi
done
rm -f "$errors"
echo "$# cases, $failed failed"
[ "$failed" -eq 0 ]
