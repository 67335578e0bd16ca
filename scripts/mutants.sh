#!/usr/bin/env bash
# Plants known bugs one at a time and runs the check that must catch each.
#   bash scripts/mutants.sh [CHAPTER...]     (default: every chapter with a mutants.tsv)
# Each chapter's mutants.tsv has one mutant per line, four tab-separated fields:
#   name    the test that catches it    a sed script (applied to the chapter's .cu)    the check (a shell command)
# For each mutant: the chapter folder and common/ are copied alone, the sed
# script is applied (it must change the file, or the table is wrong), the copy
# is built with the nvcc line of the source's header (plus -arch=native), and
# the check runs with $PROGRAM set to the mutant program and $TESTS to the
# repository's tests/ folder. The mutant is caught when the check exits
# non-zero (77, "no GPU", is not a catch). Mutants build and run MUTANTS_JOBS
# at a time (default 8). Prints a markdown table; exits 1 if any mutant
# survives or cannot be planted, 77 if no GPU is visible.
set -u -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/env.sh"
nvidia-smi -L >/dev/null 2>&1 || { echo "mutants: no GPU visible: the checks cannot run" >&2; exit 77; }
chapters=("$@")
[ ${#chapters[@]} -gt 0 ] || for table in "$root"/ch*/mutants.tsv; do chapters+=("$(basename "$(dirname "$table")")"); done
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT

# one_mutant CHAPTER SOURCE BUILD_COMMAND NAME TEST SCRIPT CHECK: writes one table row to $results.
one_mutant() {
    local chapter=$1 source_file=$2 build=$3 name=$4 test=$5 script=$6 check=$7 work verdict status=-
    work=$(mktemp -d)
    cp -R "$root/$chapter" "$work/$chapter" && cp -R "$root/common" "$work/common"
    sed -i -e "$script" "$work/$chapter/$source_file"
    if cmp -s "$root/$chapter/$source_file" "$work/$chapter/$source_file"; then
        verdict="NOT PLANTED (the sed script changed nothing)"
    elif ! (cd "$work/$chapter" && eval "$build -arch=native" >"$work/build.log" 2>&1); then
        verdict="NOT PLANTED (does not build: $(grep -m1 error "$work/build.log"))"
    else
        (cd "$work/$chapter" && PROGRAM="./${source_file%.cu}" TESTS="$root/tests" timeout 300 bash -c "$check") \
            >"$work/check.log" 2>&1
        status=$?
        if [ "$status" -ne 0 ] && [ "$status" -ne 77 ]; then verdict="$test"; else verdict="SURVIVED"; fi
    fi
    echo "| $chapter | $name | $verdict | $status |" >"$results/$chapter.$name"
    rm -rf "$work"
}

for chapter in "${chapters[@]}"; do
    source_file=$(cd "$root/$chapter" && ls ./*.cu | head -n 1)
    source_file=${source_file#./}
    # The header's first nvcc line, or the next one where freeglut (-lglut) is not installed.
    build=$(sed -n 's/^ \*[[:space:]]*\(nvcc .*\)$/\1/p' "$root/$chapter/$source_file" |
        { ldconfig -p | grep 'libglut\.so ' >/dev/null && cat || grep -v -- '-lglut'; } | head -n 1)
    while IFS=$'\t' read -r name test script check; do
        case $name in '' | '#'*) continue ;; esac
        while [ "$(jobs -rp | wc -l)" -ge "${MUTANTS_JOBS:-8}" ]; do sleep 1; done
        one_mutant "$chapter" "$source_file" "$build" "$name" "$test" "$script" "$check" &
    done <"$root/$chapter/mutants.tsv"
done
wait
echo "| chapter | mutant | caught by | check exit |"
echo "| --- | --- | --- | --- |"
cat "$results"/* 2>/dev/null
survivors=$(cat "$results"/* 2>/dev/null | grep -c -E '\| (SURVIVED|NOT PLANTED)')
echo
echo "mutants: $(ls "$results" | wc -l) planted, $survivors not caught"
[ "$survivors" -eq 0 ]
