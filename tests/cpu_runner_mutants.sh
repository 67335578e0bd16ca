#!/usr/bin/env bash
# Plants each bug of cpu_runner/mutants.tsv in a copy of cpu_runner/runtime.c (or of the file its
# fourth column names: warp_accesses.c), links the CPU runner's cases (tests/cpu_runner_cases.cu, already compiled by the build) with it, and runs the
# row's check, which must fail: a runner with that bug would pass its tests otherwise. Every check
# first runs against the runner as it is (the control), where it must pass. The asynchronous copies'
# cases (tests/cpu_runner_pipeline.cu) are linked the same way, as $PIPELINE.
#   bash tests/cpu_runner_mutants.sh CASES_OBJECT LIBRARIES_OBJECT HOST_API_OBJECT CUDA_INCLUDE_DIR PIPELINE_OBJECT
# Exit 0: every mutant caught; 1: one survived, did not plant, or its check fails the control.
set -u -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cases_object=$1 libraries_object=$2 host_api_object=$3 cuda_include=$4 pipeline_object=$5
link_flags=$(sed -n -e 's/^wrap: /-Wl,--wrap=/p' -e 's/^link: //p' "$here/cpu_runner/flags.txt")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TESTS=$here/tests
mkdir "$work/cpu_runner" && ln -s "$here/common" "$work/common" # warp_accesses.c includes ../common/bank_model.h
build() { # build FOLDER OUTPUT: FOLDER's runtime.c and warp_accesses.c
    for source in runtime warp_accesses; do
        gcc -std=gnu11 -O2 -g -c -DCUDA_CPU_RUNTIME_SOURCE -I"$here/cpu_runner" -I"$cuda_include" "$1/$source.c" \
            -o "$work/$source.o" || return 1
    done
    link "$cases_object" "$2" && link "$pipeline_object" "$2_pipeline"
}
link() { # link OBJECT OUTPUT: a cases program with the runner just built
    g++ "$1" "$work/runtime.o" "$work/warp_accesses.o" "$libraries_object" "$host_api_object" $link_flags -o "$2"
}
build "$here/cpu_runner" "$work/control" || { echo "the control does not build"; exit 1; }
failed=0 count=0
while IFS=$'\t' read -r name script check file; do
    case $name in '' | '#'*) continue ;; esac
    file=${file:-runtime.c}
    count=$((count + 1))
    if ! CASES=$work/control PIPELINE=$work/control_pipeline sh -c "$check" >"$work/out" 2>&1; then
        echo "CONTROL FAILS: $name: $check"; sed 's/^/  /' "$work/out" | head -20; failed=1; continue
    fi
    cp "$here/cpu_runner/runtime.c" "$here/cpu_runner/warp_accesses.c" "$work/cpu_runner/"
    sed -e "$script" "$here/cpu_runner/$file" >"$work/cpu_runner/$file"
    if cmp -s "$here/cpu_runner/$file" "$work/cpu_runner/$file"; then echo "NOT PLANTED: $name"; failed=1; continue; fi
    if ! build "$work/cpu_runner" "$work/mutant" 2>"$work/build.log"; then
        echo "DOES NOT BUILD: $name"; head -5 "$work/build.log"; failed=1; continue
    fi
    if CASES=$work/mutant PIPELINE=$work/mutant_pipeline timeout 60 sh -c "$check" >"$work/out" 2>&1; then
        echo "SURVIVED: $name"; failed=1
    else
        echo "caught: $name"
    fi
done <"$here/cpu_runner/mutants.tsv"
echo "cpu runner mutants: $count planted, $([ $failed = 0 ] && echo "all caught" || echo "NOT all caught")"
exit $failed
