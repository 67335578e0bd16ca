#!/bin/sh
# run_sanitizer.sh TOOL EXPECT HAS_DEVICE PROGRAM ARGS...
# Runs PROGRAM under compute-sanitizer --tool TOOL (memcheck, racecheck, ...).
#   EXPECT=clean   : passes when the program passes and the tool reports no error.
#   EXPECT=hazards : passes when racecheck reports at least one hazard (a
#                    deliberately racy kernel); the program's own verdict is ignored.
# Exit 77 (skipped) when compute-sanitizer or a CUDA device is missing.
tool=$1 expect=$2 has_device=$3
shift 3
sanitizer=$(command -v compute-sanitizer || true)
for candidate in "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" \
                 "${CUDA_HOME:-/usr/local/cuda}/compute-sanitizer/compute-sanitizer"; do
    [ -n "$sanitizer" ] && break
    [ -x "$candidate" ] && sanitizer=$candidate
done
if [ -z "$sanitizer" ]; then
    echo "compute-sanitizer is not installed: skipped"
    exit 77
fi
if ! "$has_device"; then
    echo "no CUDA device: skipped"
    exit 77
fi
log=$(mktemp)
"$sanitizer" --tool "$tool" --error-exitcode 99 "$@" >"$log" 2>&1
status=$?
cat "$log"
summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$log" | tail -n 1)
rm -f "$log"
echo "exit $status; ${summary:-no summary line}"
case $expect in
clean)
    [ "$status" -eq 0 ] || { echo "FAIL: expected a clean run and a passing program"; exit 1; }
    ;;
hazards)
    hazards=$(echo "$summary" | sed -n 's/.*SUMMARY: \([0-9][0-9]*\) hazard.*/\1/p')
    [ -n "$hazards" ] && [ "$hazards" -gt 0 ] || { echo "FAIL: expected racecheck to report hazards"; exit 1; }
    ;;
*)
    echo "unknown expectation $expect"
    exit 2
    ;;
esac
echo "ok"
