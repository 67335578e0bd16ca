#!/usr/bin/env bash
# Plants known bugs one at a time and runs the check that must catch each.
#   bash scripts/mutants.sh [CHAPTER...]     (default: every chapter with a mutants.tsv)
# Each chapter's mutants.tsv has one mutant per line, four tab-separated fields:
#   name    the test that catches it    a sed script (applied to the chapter's .cu)    the check (a shell command)
# For each mutant: the chapter folder and common/ are copied alone, the sed
# script is applied (it must change the file, or the table is wrong), the copy
# is built with the nvcc line of the source's header (plus -arch=native when a
# GPU is visible), and the check runs with $PROGRAM set to the mutant program
# and $TESTS to the repository's tests/ folder. The mutant is caught when the
# check exits non-zero (77, "no GPU", is not a catch). Prints a markdown table;
# exits 1 if any mutant survives or cannot be planted, 77 if no GPU is visible.
set -u -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/env.sh"
arch=""
nvidia-smi -L >/dev/null 2>&1 && arch="-arch=native"
[ -n "$arch" ] || { echo "mutants: no GPU visible: the checks cannot run" >&2; exit 77; }
chapters=("$@")
[ ${#chapters[@]} -gt 0 ] || for table in "$root"/ch*/mutants.tsv; do chapters+=("$(basename "$(dirname "$table")")"); done
echo "| chapter | mutant | caught by | check exit |"
echo "| --- | --- | --- | --- |"
survivors=0
for chapter in "${chapters[@]}"; do
    source_file=$(cd "$root/$chapter" && ls ./*.cu | head -n 1)
    build=$(sed -n 's/^ \*[[:space:]]*\(nvcc .*\)$/\1/p' "$root/$chapter/$source_file" | head -n 1)
    while IFS=$'\t' read -r name test script check; do
        case $name in '' | '#'*) continue ;; esac
        work=$(mktemp -d)
        cp -R "$root/$chapter" "$work/$chapter" && cp -R "$root/common" "$work/common"
        sed -i -e "$script" "$work/$chapter/$source_file"
        if cmp -s "$root/$chapter/$source_file" "$work/$chapter/$source_file"; then
            verdict="NOT PLANTED (the sed script changed nothing)" status=-
        elif ! (cd "$work/$chapter" && eval "$build $arch" >"$work/build.log" 2>&1); then
            verdict="NOT PLANTED (does not build: $(grep -m1 error "$work/build.log"))" status=-
        else
            program=$(cd "$work/$chapter" && ls -t | head -n 1)
            (cd "$work/$chapter" && PROGRAM="./$program" TESTS="$root/tests" timeout 300 bash -c "$check") \
                >"$work/check.log" 2>&1
            status=$?
            if [ "$status" -ne 0 ] && [ "$status" -ne 77 ]; then verdict="$test"; else verdict="SURVIVED"; fi
        fi
        case $verdict in SURVIVED | NOT*) survivors=$((survivors + 1)) ;; esac
        echo "| $chapter | $name | $verdict | $status |"
        rm -rf "$work"
    done <"$root/$chapter/mutants.tsv"
done
echo
echo "mutants: $survivors not caught"
[ "$survivors" -eq 0 ]
