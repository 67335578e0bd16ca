#!/usr/bin/env bash
# cmake_versions.sh SOURCE_DIR WORK_DIR [VERSION]
# The collection with another CMake than the one that configured this build:
# by default the oldest the README promises (3.22, Ubuntu 22.04's). CMake comes
# from PyPI (its "cmake" wheel, VERSION a pip specifier such as 3.22.* or
# 4.*), fetched with pip download and unpacked into WORK_DIR: installed into no
# Python. Then, in WORK_DIR/build, with an nvidia-smi that sees no GPU:
#   1. configure with -DCMAKE_CUDA_ARCHITECTURES=native stops, its message one
#      line, and the cache forgets "native";
#   2. configure again without the option succeeds, twice, and neither time
#      calls its own choice the user's;
#   3. dot and the host unit tests build, warnings as errors, and dot's host
#      tests and the unit tests pass.
# Skipped (77) with a line saying why when PyPI cannot be reached (no network)
# or there is no python3 with pip. Warm runs reuse the download and the build.
set -uo pipefail
source_dir=$(cd "$1" && pwd) work=$2 version=${3:-3.22.*}
mkdir -p "$work" && work=$(cd "$work" && pwd)
fail() { echo "FAIL: $*"; exit 1; }

# 0. CMake from PyPI, once per version.
tree=$work/cmake-$(printf '%s' "$version" | tr -c 'A-Za-z0-9.' '_')
cmake=$tree/cmake/data/bin/cmake
if ! [ -x "$cmake" ]; then
    command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1 ||
        { echo "skipped: no python3 with pip to fetch CMake $version from PyPI"; exit 77; }
    rm -rf "$tree"
    sh "$source_dir/scripts/wheels.sh" "$tree" "cmake==$version" 2>"$work/wheel.log"
    case $? in
    0) chmod +x "$tree"/cmake/data/bin/* || fail "the cmake wheel holds no cmake/data/bin" ;;
    1) echo "skipped: PyPI unreachable: pip download cmake==$version failed: $(cat "$work/wheel.log")"; exit 77 ;;
    *) fail "$(cat "$work/wheel.log")" ;;
    esac
fi
ctest=$(dirname "$cmake")/ctest
echo "$("$cmake" --version | head -n 1), from PyPI (cmake==$version), in $tree"

# An nvidia-smi that sees no GPU, first on PATH: the same answers on any machine.
mkdir -p "$work/no_gpu"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed: no devices were found" >&2\nexit 6\n' >"$work/no_gpu/nvidia-smi"
chmod +x "$work/no_gpu/nvidia-smi"
export PATH="$work/no_gpu:$PATH"
unset CUDAARCHS
build=$work/build
configure() { "$cmake" -S "$source_dir" -B "$build" -DCMAKE_COMPILE_WARNING_AS_ERROR=ON "$@" >"$work/out" 2>"$work/err"; }

# 1. native without a GPU.
if configure -DCMAKE_CUDA_ARCHITECTURES=native; then fail "native without a GPU was accepted"; fi
message=$(awk '/^CMake Error at .*\(message\):$/ { on = 1; next } on && (/^Call Stack/ || /^$/) { exit } on' "$work/err")
[ "$(printf '%s\n' "$message" | grep -c .)" -eq 1 ] || { cat "$work/err"; fail "the error's message is not one line"; }
echo "1. native refused in one line:$message"
! grep -q '^CMAKE_CUDA_ARCHITECTURES:' "$build/CMakeCache.txt" || fail "the cache kept native"

# 2. The advice, in the same folder: without the option.
for attempt in 1 2; do
    configure || { cat "$work/out" "$work/err"; fail "configure $attempt without the option failed"; }
    line=$(grep -- '-- CUDA architectures:' "$work/out")
    echo "2.$attempt ${line#-- }"
    case $line in *"(no GPU visible"*) ;; *) fail "not chosen for a machine without a GPU" ;; esac
done

# 3. One chapter and the unit tests, built and tested.
"$cmake" --build "$build" --target dot dot_cpu test_cli test_report test_numerics -j "$(nproc)" >"$work/out" 2>&1 ||
    { tail -n 30 "$work/out"; fail "the build failed"; }
echo "3. dot, its CPU twin (the bank model runs it) and the unit tests built"
"$ctest" --test-dir "$build" -L host -R '^(dot_|test_cli$|test_report$|test_numerics$)' --output-on-failure \
    -j "$(nproc)" >"$work/out" 2>&1 || { cat "$work/out"; fail "host tests failed"; }
grep -E "tests passed|Skipped" "$work/out"
echo "ok"
