#!/usr/bin/env bash
# Plants known bugs one at a time and runs the check that must catch each (docs/MUTANTS.md says why).
#   bash scripts/mutants.sh [CHAPTER...]     (default: every chapter with a mutants.tsv)
# A chapter's mutants.tsv, one mutant a line, tab-separated: its name, the test that catches it, a sed
# script for the chapter's .cu ("common/FILE::SCRIPT" plants it in common/FILE), the check (a shell
# command, given $PROGRAM, $TESTS and $CUOBJDUMP), and "serial" for a check that must have the GPU alone.
# Its weakened.tsv (optional): a weakening's name, the mutant it lets through, its sed script.
# Each copy (the chapter and common/) is built by scripts/builds_alone.sh with the header's last nvcc line
# (-arch=native, or MUTANTS_ARCH). Every check runs first on the unmutated copy, where it must pass; a
# mutant is caught when its check then fails with a verdict (not 2, 77, 124, 126, 127: it did not run);
# a weakening, planted with its mutant, must let it through. MUTANTS_JOBS at a time (default: the cores);
# MUTANTS_SERIAL=skip or only: the rows without or with "serial" (CTest's mutants and mutants_serial).
# Prints a markdown table; exit 1 if any row fails, 77 without a GPU. MUTANTS_PLANT_ONLY=1: only plant each
# script and say which change nothing (no GPU: the host test mutants_plant). MUTANTS_ROOT: the chapters'
# repository (tests use a fake one).
set -u -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=${MUTANTS_ROOT:-$here}
source "$here/scripts/env.sh"
chapters=("$@")
[ ${#chapters[@]} -gt 0 ] || for table in "$root"/ch*/mutants.tsv; do chapters+=("$(basename "$(dirname "$table")")"); done
declare -A sources
for chapter in "${chapters[@]}"; do
    source_file=$(cd "$root/$chapter" && ls ./*.cu | head -n 1)
    sources[$chapter]=${source_file#./}
done

# rows TABLE: its rows, comments and blank lines left out (none when there is no TABLE).
rows() { [ -e "$1" ] && grep -v -E '^(#|$)' "$1"; }

# copy_chapter CHAPTER FOLDER [SED_SCRIPT...]: the chapter and common/ copied into FOLDER, the scripts
# planted one after the other (into the chapter's .cu; "common/FILE::SCRIPT" into common/FILE); exit 3
# when a script changed nothing.
copy_chapter() {
    local chapter=$1 folder=$2 script target
    shift 2
    mkdir -p "$folder" && cp -R "$root/$chapter" "$folder/$chapter" && cp -R "$root/common" "$folder/common"
    for script in "$@"; do
        target=$chapter/${sources[$chapter]}
        case $script in common/*::*) target=${script%%::*} script=${script#*::} ;; esac
        cp "$folder/$target" "$folder/before"
        sed -i -e "$script" "$folder/$target"
        cmp -s "$folder/before" "$folder/$target" && return 3
    done
    return 0
}

if [ "${MUTANTS_PLANT_ONLY:-0}" = 1 ]; then
    unplanted=0 count=0
    for chapter in "${chapters[@]}"; do
        while IFS=$'\t' read -r name script; do
            count=$((count + 1)) work=$(mktemp -d)
            copy_chapter "$chapter" "$work" "$script" || { echo "NOT PLANTED: $chapter $name"; unplanted=$((unplanted + 1)); }
            rm -rf "$work"
        done < <(rows "$root/$chapter/mutants.tsv" | cut -f1,3
                 rows "$root/$chapter/weakened.tsv" | cut -f1,3 | sed 's/^/weakened /')
    done
    echo "mutants: $count sed scripts, $unplanted change nothing"
    [ "$unplanted" -eq 0 ]
    exit
fi
nvidia-smi -L >/dev/null 2>&1 || { echo "mutants: no GPU visible: the checks cannot run" >&2; exit 77; }
nvcc=$("$here/scripts/cuda_tool.sh" nvcc) || { echo "mutants: no nvcc: the mutants cannot be built" >&2; exit 77; }
cuobjdump=$("$here/scripts/cuda_tool.sh" cuobjdump "$nvcc")
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT

wait_for_a_slot() { while [ "$(jobs -rp | wc -l)" -ge "${MUTANTS_JOBS:-$(nproc)}" ]; do sleep 1; done; }

# wanted SERIAL_FIELD: whether MUTANTS_SERIAL selects a row with that fifth field.
wanted() {
    case ${MUTANTS_SERIAL:-all} in
    skip) [ "$1" != serial ] ;;
    only) [ "$1" = serial ] ;;
    *) true ;;
    esac
}

# build_copy CHAPTER FOLDER [SED_SCRIPT...]: copy_chapter, then built there. Prints nothing; exit 3 if
# a script changed nothing, 4 if the copy does not build (the first error in FOLDER/build.log).
build_copy() {
    local chapter=$1 folder=$2 source_file=${sources[$1]}
    copy_chapter "$@" || return 3
    BUILDS_ALONE_LINE=last NVCC_APPEND_FLAGS="${NVCC_APPEND_FLAGS:+$NVCC_APPEND_FLAGS }-arch=${MUTANTS_ARCH:-native}" \
        sh "$here/scripts/builds_alone.sh" "$folder/$chapter" "$source_file" "$folder/common" "$nvcc" "" \
        "$folder/$chapter/${source_file%.cu}" >"$folder/build.log" 2>&1 || return 4
}

# run_check FOLDER CHAPTER SOURCE CHECK [serial]: the check's exit code against that copy's
# program. Checks share a lock; a serial one holds it alone, so nothing else runs on the GPU.
run_check() {
    local mode=-s
    [ "${5:-}" = serial ] && mode=-x
    (cd "$1/$2" && PROGRAM="./${3%.cu}" TESTS="$here/tests" CUOBJDUMP="$cuobjdump" flock "$mode" "$results/gpu.lock" \
        timeout 300 bash -c "$4") >"$1/check.log" 2>&1
}

# one_row CHAPTER NAME TEST CHECK SERIAL THROUGH SED_SCRIPT...: a copy with the scripts planted, the check run
# against it; writes one table row to $results. A mutant (THROUGH empty) is caught when the check fails with a
# verdict; a weakening (THROUGH: the mutant it plants too) shows when the check then passes.
one_row() {
    local chapter=$1 name=$2 test=$3 check=$4 serial=$5 through=$6 work verdict status=- control start=$SECONDS
    shift 6
    work=$(mktemp -d)
    build_copy "$chapter" "$work" "$@"
    case $? in
    3) verdict="NOT PLANTED (a sed script changed nothing)" ;;
    4) verdict="NOT PLANTED (does not build: $(grep -m1 error "$work/build.log"))" ;;
    *)
        run_check "$work" "$chapter" "${sources[$chapter]}" "$check" "$serial"
        status=$?
        case $through:$status in
        ?*:0) verdict="lets $through through" ;;
        ?*:*) verdict="NOT SHOWN ($through is still caught: exit $status)" ;;
        :0 | :77) verdict="SURVIVED" ;;
        :2 | :124 | :126 | :127) verdict="NOT CAUGHT (the check did not run: exit $status)" ;;
        *) verdict="$test" ;;
        esac
        if [ -z "$through" ]; then
            control=$(cat "$results/control.$chapter.$(echo "$check" | md5sum | cut -c1-16)")
            [ "$control" -eq 0 ] || verdict="CHECK FAILS WITHOUT THE BUG (exit $control)"
        fi
        ;;
    esac
    echo "| $chapter | ${through:+weakened: }$name | $verdict | $status |" >"$results/$chapter.${through:+weakened.}$name"
    echo "$((SECONDS - start)) s  $chapter $name" >"$results/seconds.$chapter.$name"
    rm -rf "$work"
}

for chapter in "${chapters[@]}"; do
    wait_for_a_slot
    build_copy "$chapter" "$results/control.$chapter" &
done
wait
# The controls: each distinct check once on the unmutated program (in its own copy: some
# checks write files), its exit code kept for the mutants' rows.
for chapter in "${chapters[@]}"; do
    [ -x "$results/control.$chapter/$chapter/${sources[$chapter]%.cu}" ] ||
        { echo "mutants: $chapter does not build unmutated: $(grep -m1 error "$results/control.$chapter/build.log")" >&2; exit 1; }
    while IFS=$'\t' read -r name _ _ check serial; do
        wanted "$serial" || continue
        key=$(echo "$check" | md5sum | cut -c1-16)
        [ -e "$results/control.$chapter.$key" ] && continue
        echo running >"$results/control.$chapter.$key"
        wait_for_a_slot
        (
            copy=$(mktemp -d)
            cp -R "$results/control.$chapter/." "$copy"
            run_check "$copy" "$chapter" "${sources[$chapter]}" "$check" "$serial"
            echo $? >"$results/control.$chapter.$key"
            rm -rf "$copy"
        ) &
    done < <(rows "$root/$chapter/mutants.tsv")
done
wait
for chapter in "${chapters[@]}"; do
    while IFS=$'\t' read -r name test script check serial; do
        wanted "$serial" || continue
        wait_for_a_slot
        one_row "$chapter" "$name" "$test" "$check" "$serial" "" "$script" &
    done < <(rows "$root/$chapter/mutants.tsv")
    while IFS=$'\t' read -r name mutant weakening; do
        row=$(awk -F'\t' -v m="$mutant" '$1 == m' "$root/$chapter/mutants.tsv")
        [ -n "$row" ] || { echo "| $chapter | weakened: $name | NOT SHOWN (no mutant $mutant in mutants.tsv) | - |" \
            >"$results/$chapter.weakened.$name"; continue; }
        IFS=$'\t' read -r _ test script check serial <<<"$row"
        wanted "$serial" || continue
        wait_for_a_slot
        one_row "$chapter" "$name" "$test" "$check" "$serial" "$mutant" "$weakening" "$script" &
    done < <(rows "$root/$chapter/weakened.tsv")
done
wait
echo "| chapter | mutant | caught by | check exit |"
echo "| --- | --- | --- | --- |"
cat "$results"/ch*.* 2>/dev/null
failures=$(cat "$results"/ch*.* 2>/dev/null | grep -c -E '\| (SURVIVED|NOT PLANTED|NOT CAUGHT|NOT SHOWN|CHECK FAILS)')
echo
echo "mutants: $(ls "$results"/ch*.* | wc -l) planted, $failures not caught"
echo "mutants: the slowest (build and check): $(sort -rn "$results"/seconds.* | head -n 3 | paste -sd ';')" >&2
[ "$failures" -eq 0 ]
