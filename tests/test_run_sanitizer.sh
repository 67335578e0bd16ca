#!/bin/sh
# The sanitizer wrapper (run_sanitizer.sh) judged without a GPU: a fake
# compute-sanitizer on PATH behaves as the real one does (it prints the tool's
# summary; with errors it exits with --error-exitcode's value when one is given,
# else with the program's own status) and the wrapper must fail every run the
# tool found fault with, and pass only a clean one. So a wrapper that drops
# --error-exitcode, or stops reading the summary, fails here; and the test
# shows it: the same verdicts asked of a copy without --error-exitcode must
# come out wrong.
#   sh tests/test_run_sanitizer.sh
here=$(cd "$(dirname "$0")" && pwd)
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
cat >"$fake/compute-sanitizer" <<'FAKE'
#!/bin/sh
# FAKE_ERRORS errors, FAKE_HAZARDS racecheck hazards, FAKE_LINE an extra line.
code=
while [ $# -gt 0 ]; do
    case $1 in
    --tool) tool=$2; shift 2 ;;
    --error-exitcode) code=$2; shift 2 ;;
    --*) shift ;;
    *) break ;;
    esac
done
"$@"
status=$?
[ -n "${FAKE_LINE:-}" ] && echo "$FAKE_LINE"
if [ "$tool" = racecheck ]; then
    echo "========= RACECHECK SUMMARY: ${FAKE_HAZARDS:-0} hazards displayed (${FAKE_HAZARDS:-0} errors, 0 warnings)"
    found=${FAKE_HAZARDS:-0}
else
    echo "========= ERROR SUMMARY: ${FAKE_ERRORS:-0} errors"
    found=${FAKE_ERRORS:-0}
fi
[ "$found" -gt 0 ] && [ -n "$code" ] && exit "$code"
exit "$status"
FAKE
chmod +x "$fake/compute-sanitizer"
failures=0
# expect WANT TOOL EXPECTATION PROGRAM [VAR=VALUE...]: the wrapper's exit must be WANT (0 or non-zero).
expect() {
    want=$1 tool=$2 expectation=$3 program=$4
    shift 4
    env PATH="$fake:$PATH" "$@" sh "$wrapper" "$tool" "$expectation" true "$program" >"$fake/out" 2>&1
    got=$?
    if { [ "$want" = 0 ] && [ "$got" -ne 0 ]; } || { [ "$want" != 0 ] && [ "$got" -eq 0 ]; }; then
        echo "FAIL: $tool $expectation $program $* gave exit $got, want $([ "$want" = 0 ] && echo 0 || echo non-zero)"
        sed 's/^/    /' "$fake/out"
        failures=$((failures + 1))
    fi
}
# every_verdict WRAPPER: the wrong verdicts it gives, in $failures.
every_verdict() {
    wrapper=$1 failures=0
    expect 0 memcheck clean true
    expect 1 memcheck clean true FAKE_ERRORS=2                     # errors, the program passed
    expect 1 memcheck clean false                                  # the program failed, the tool was clean
    expect 0 racecheck clean true
    expect 1 racecheck clean true FAKE_HAZARDS=3
    expect 0 racecheck hazards true FAKE_HAZARDS=3
    expect 1 racecheck hazards true                                # the racy kernel's race not seen
    expect 0 synccheck "reports:Barrier error" true FAKE_ERRORS=1 FAKE_LINE="========= Barrier error detected"
    expect 1 synccheck "reports:Barrier error" true
    expect 1 memcheck nonsense true
}
mkdir "$fake/tests" "$fake/scripts" && cp "$here/../scripts/cuda_tool.sh" "$fake/scripts/" # the copy's lookup
sed 's/ --error-exitcode 99//' "$here/run_sanitizer.sh" >"$fake/tests/weakened.sh"
cmp -s "$here/run_sanitizer.sh" "$fake/tests/weakened.sh" && { echo "FAIL: could not plant the weakening"; exit 1; }
every_verdict "$fake/tests/weakened.sh" >/dev/null
[ "$failures" -gt 0 ] || { echo "FAIL: a wrapper without --error-exitcode gave every verdict right"; exit 1; }
echo "a wrapper without --error-exitcode: $failures wrong verdicts, as it must"
every_verdict "$here/run_sanitizer.sh"
if [ "$failures" -eq 0 ]; then
    echo "run_sanitizer.sh: 10 of 10 verdicts right"
else
    echo "run_sanitizer.sh: $failures wrong verdicts"
    exit 1
fi
