#!/usr/bin/env bash
# scripts/cuda_on_cpu and cmake/CudaOnCpu.cmake on files of their own: a main of either signature, with
# and without a return, a header beside the file, -D, the program's arguments after --, the runner's
# order option taken out, the program's exit code passed on, and every wrong command line one line on
# stderr with exit 2. Prints each failure; exit 0 when none.
#   bash tests/cuda_on_cpu/check.sh WORK_DIR [CMAKE]
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$1 cmake=${2:-cmake}
command=$root/scripts/cuda_on_cpu
failures=0
rm -rf "$work" && mkdir -p "$work"
matches() { # matches REGEX FILE: '' matches anything, EMPTY an empty file
    case $1 in '') return 0 ;; EMPTY) [ ! -s "$2" ] ;; *) grep -Eq -- "$1" "$2" ;; esac
}
expect() { # expect NAME CODE STDOUT_REGEX STDERR_REGEX -- COMMAND...
    local name=$1 code=$2 out=$3 err=$4
    shift 5
    "$@" >"$work/$name.out" 2>"$work/$name.err"
    local status=$?
    if [ "$status" != "$code" ] || ! matches "$out" "$work/$name.out" || ! matches "$err" "$work/$name.err"; then
        echo "FAIL $name: exit $status (expected $code), stdout /$out/, stderr /$err/"
        sed 's/^/  out: /' "$work/$name.out" | head -5
        sed 's/^/  err: /' "$work/$name.err" | head -5
        failures=$((failures + 1))
    else
        echo "ok   $name"
    fi
}
cd "$root"
expect main_void_no_return 0 '^scaled 2 4 6 8$' '' -- "$command" tests/cuda_on_cpu/main_forms.cu
expect definition 0 '^scaled 3 6 9 12$' '' -- "$command" tests/cuda_on_cpu/main_forms.cu -D FACTOR=3.0f
expect arguments 0 '^argc 2: a b$' '' -- "$command" tests/cuda_on_cpu/arguments.cu -- a b
expect order_and_exit_code 5 '^argc 3: a b c$' '' -- "$command" tests/cuda_on_cpu/arguments.cu --cpu-order reverse -- a b c
expect build_only 0 EMPTY '' -- "$command" tests/cuda_on_cpu/arguments.cu --build-only -o "$work/arguments_cpu"
expect built_program 0 '^argc 1: x$' '' -- "$work/arguments_cpu" --cpu-order=random:4 x
expect does_not_build 2 EMPTY 'does_not_build.cu:3:.*undeclared_name' -- "$command" tests/cuda_on_cpu/does_not_build.cu
expect no_such_file 2 EMPTY '^cuda_on_cpu: nowhere.cu: no such file$' -- "$command" nowhere.cu
expect no_file 2 EMPTY '^cuda_on_cpu: which \.cu\?' -- "$command"
expect unknown_option 2 EMPTY '^cuda_on_cpu: unknown option --fast' -- "$command" tests/cuda_on_cpu/arguments.cu --fast
expect two_files 2 EMPTY '^cuda_on_cpu: one \.cu file at a time' -- "$command" tests/cuda_on_cpu/arguments.cu tests/cuda_on_cpu/main_forms.cu
expect bad_order 2 '' 'cpu-order sideways' -- "$command" tests/cuda_on_cpu/arguments.cu --cpu-order sideways
printf '__global__ void k(int *x) { x[0] = 1; }\nint main() { return 0; }\n/* an old attempt, never closed\n' >"$work/unclosed.cu"
expect unclosed_comment 2 EMPTY 'unclosed.cu:3:1: error: unterminated comment' -- "$command" "$work/unclosed.cu"
# a comment in GBK (a Chinese Windows editor's bytes): builds and runs as any other
printf '// \xc4\xe3\xba\xc3\n#include <stdio.h>\nint main(void) { printf("gbk ok\\n"); }\n' >"$work/gbk.cu"
expect gbk_comment 0 '^gbk ok$' '' -- "$command" "$work/gbk.cu"
head -c 4096 "$(command -v sh)" >"$work/binary.cu" # not a source file at all: the compiler's words, no traceback
expect binary_file 2 EMPTY 'does not build for the CPU runner' -- "$command" "$work/binary.cu"
expect dynamic_parallelism 3 '^CPU runner: tests/cuda_on_cpu/dynamic_parallelism.cu:8: child launched from a kernel' '' -- \
    "$command" tests/cuda_on_cpu/dynamic_parallelism.cu
expect help 0 '^Runs one CUDA program on the CPU runner' '' -- "$command" --help
# --banks: each line's shared passes and global sectors per warp instruction, from the lanes' own addresses;
# an edit of the kernel's index is built again and changes the answer (the cache once missed edits to the file)
expect banks_conflict 0 '^  line 11, 1 shared load of 4 B: 2\.00 passes per warp instruction' '' -- \
    "$command" tests/cuda_on_cpu/accesses.cu --banks
expect banks_sectors 0 '^  line 11, 1 global store of 4 B: 32\.00 sectors of 32 B per warp instruction' '' -- \
    "$command" tests/cuda_on_cpu/accesses.cu --banks
sed 's/tile\[2 \* t\]/tile[t]/' tests/cuda_on_cpu/accesses.cu >"$work/edited.cu"
expect banks_after_an_edit 0 '^  line 11, 1 shared load of 4 B: 1\.00 passes per warp instruction' '' -- \
    "$command" "$work/edited.cu" --banks
sed -i 's/out\[32 \* t\]/out[t]/' "$work/edited.cu"
expect sectors_after_an_edit 0 '^  line 11, 1 global store of 4 B: 4\.00 sectors of 32 B per warp instruction' '' -- \
    "$command" "$work/edited.cu" --banks
# A chapter with the bitmap and no window (a machine without freeglut): linked with libpng alone, where it is
if echo '#include <png.h>' | cc -E - >/dev/null 2>&1; then
    expect bitmap_png_only 0 EMPTY '' -- "$command" ch05_shared_bitmap/shared_bitmap.cu -I common -D BITMAP_NO_WINDOW \
        --build-only -o "$work/shared_bitmap_cpu"
    expect bitmap_png_only_runs 0 '^shared_bitmap: ' '' -- "$work/shared_bitmap_cpu" --help
fi
# A CMake project of the reader's own, through cmake/CudaOnCpu.cmake.
mkdir -p "$work/project"
cat >"$work/project/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.22)
project(mine LANGUAGES NONE)
include($root/cmake/CudaOnCpu.cmake)
add_cuda_on_cpu(scaled_cpu $here/main_forms.cu DEFINITIONS FACTOR=4.0f)
CMAKE
if "$cmake" -S "$work/project" -B "$work/project/build" >"$work/cmake.log" 2>&1 &&
    "$cmake" --build "$work/project/build" >>"$work/cmake.log" 2>&1; then
    expect cmake_function 0 '^scaled 4 8 12 16$' '' -- "$work/project/build/scaled_cpu"
else
    echo "FAIL cmake_function: the project did not configure or build"; sed 's/^/  /' "$work/cmake.log" | tail -10
    failures=$((failures + 1))
fi
echo "cuda_on_cpu: $failures failure(s)"
[ "$failures" = 0 ]
