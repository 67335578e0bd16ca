#!/bin/sh
# broken_driver.sh FAKE_DRIVER_DIR PROGRAM...
# Runs each program with a fake driver (fake_libcuda.c, as libcuda.so.1 in
# FAKE_DRIVER_DIR) whose initialisation fails in the ways a real machine's can,
# and checks the exit code: 77 (skipped) only when the driver sees no device,
# 3 with the error's name for every broken state. No GPU needed.
fake_dir=$1
shift
failed=0
# CUresult from cuInit -> the exit code and the runtime's error name expected
for case in "100 77 no.CUDA.device" "802 3 cudaErrorSystemNotReady" "46 3 cudaErrorDevicesUnavailable" \
            "803 3 cudaErrorSystemDriverMismatch" "999 3 cudaErrorUnknown"; do
    result=${case%% *} rest=${case#* }
    expected=${rest%% *} pattern=${rest#* }
    for program in "$@"; do
        message=$(LD_LIBRARY_PATH="$fake_dir" FAKE_CUINIT_RESULT=$result "$program" --check 2>&1 >/dev/null)
        status=$?
        if [ "$status" -eq "$expected" ] && echo "$message" | grep -Eq "$pattern"; then
            echo "ok    cuInit -> $result: $(basename "$program") exit $status: $message"
        else
            echo "FAIL  cuInit -> $result: $(basename "$program") exit $status (expected $expected, /$pattern/): $message"
            failed=$((failed + 1))
        fi
    done
done
echo "$failed failed"
[ "$failed" -eq 0 ]
