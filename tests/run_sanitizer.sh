#!/bin/sh
# run_sanitizer.sh TOOL EXPECT HAS_DEVICE PROGRAM ARGS...
# Runs PROGRAM under compute-sanitizer --tool TOOL (memcheck, racecheck, ...).
#   EXPECT=clean         : the program passes and the tool reports nothing at all:
#                          no error, and for racecheck no hazard, warnings included.
#   EXPECT=hazards       : racecheck reports at least one hazard (a deliberately
#                          racy kernel); the program's own verdict is ignored.
#   EXPECT=reports:REGEX : the tool's output has a line matching REGEX (grep -E),
#                          e.g. synccheck's "Barrier error" for a divergent barrier.
# Exit 77 (skipped) when compute-sanitizer or a CUDA device is missing; a
# broken device (the probe exits 3) fails the test.
tool=$1 expect=$2 has_device=$3
shift 3
if ! sanitizer=$(sh "$(dirname "$0")/../scripts/cuda_tool.sh" compute-sanitizer); then
    echo "compute-sanitizer is not installed: skipped"
    exit 77
fi
"$has_device"
probe=$?
[ "$probe" -eq 77 ] && { echo "no CUDA device: skipped"; exit 77; }
[ "$probe" -ne 0 ] && { echo "FAIL: the CUDA device is broken (probe exit $probe)"; exit 1; }
log=$(mktemp)
"$sanitizer" --tool "$tool" --error-exitcode 99 "$@" >"$log" 2>&1
status=$?
cat "$log"
summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$log" | tail -n 1)
hazards=$(echo "$summary" | sed -n 's/.*SUMMARY: \([0-9][0-9]*\) hazard.*/\1/p')
echo "exit $status; ${summary:-no summary line}"
case $expect in
clean)
    [ "$status" -eq 0 ] || { echo "FAIL: expected a clean run and a passing program"; rm -f "$log"; exit 1; }
    [ -z "$hazards" ] || [ "$hazards" -eq 0 ] || { echo "FAIL: racecheck reported $hazards hazard(s)"; rm -f "$log"; exit 1; }
    ;;
hazards)
    [ -n "$hazards" ] && [ "$hazards" -gt 0 ] || { echo "FAIL: expected racecheck to report hazards"; rm -f "$log"; exit 1; }
    ;;
reports:*)
    pattern=${expect#reports:}
    grep -Eq -- "$pattern" "$log" || { echo "FAIL: expected the tool to report: $pattern"; rm -f "$log"; exit 1; }
    ;;
*)
    echo "unknown expectation $expect"
    rm -f "$log"
    exit 2
    ;;
esac
rm -f "$log"
echo "ok"
