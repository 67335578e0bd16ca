#!/bin/sh
# run_book.sh: one of the books' own programs on the CPU runner (scripts/cuda_on_cpu).
#
#   run_book.sh --runner SCRIPT --sources DIR --program REL [options]
#
#   --runner SCRIPT   scripts/cuda_on_cpu
#   --sources DIR     the books' sources (EXAMPLES_BOOK_SOURCES): DIR/cuda-by-example and
#                     DIR/cuda-programming, laid out as the two public repositories are
#   --program REL     the program, relative to DIR (cuda-programming/src/10-warp/reduce.cu)
#   --work DIR        where to build and run (made afresh; the program's files land there)
#   --build-only      build the file as the book wrote it, do not run it
#   --sed EXPR        run a copy of the file with this substitution (repeatable): only the
#                     size may change; a substitution that matches nothing is a failure
#                     (the book's file is not the one these tests were written for)
#   --head FILE N     copy the first N lines of FILE (beside the program) into the work
#                     folder, where the program reads it: the size of a program whose size
#                     is its input
#   -D NAME[=V]       passed to the runner (-DUSE_DP)
#   --order ORDER     the runner's --cpu-order (forward, reverse, random:SEED, lockstep): a correct
#                     program gives the book's answer in every order
#   --arg A           a program argument (repeatable)
#   --exit N          the exit status expected (default 0)
#   --line N TEXT     exactly N lines of the output are TEXT (the whole line, as written)
#   --in-order        the --line texts appear in the output in the order given
#   --expect-n N RE   exactly N lines of the output match the extended regex RE
#   --lacks RE        no line of the output matches RE
#   --check CMD       a shell command run in the work folder after the program: exit 0 passes
#
# The output is the program's stdout and stderr together. Exit 77 (skipped) with a line
# saying where to put the sources when DIR is not set or the file is not there.
runner="" sources="" program="" work="" build_only=0 seds="" head_file="" head_lines=""
defines="" order="" want_exit=0 check_cmd="" in_order=0
tmp_lists=$(mktemp) || exit 1 # the expectations, one per line: "line N TEXT", "n N RE", "lacks RE"
trap 'rm -f "$tmp_lists"' EXIT
while [ $# -gt 0 ]; do
    case $1 in
    --runner) runner=$2; shift 2 ;;
    --sources) sources=$2; shift 2 ;;
    --sources=*) sources=${1#--sources=}; shift ;;
    --program) program=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --build-only) build_only=1; shift ;;
    --sed) seds="$seds$2
"; shift 2 ;;
    --head) head_file=$2 head_lines=$3; shift 3 ;;
    -D) defines="$defines -D $2"; shift 2 ;;
    --order) order="--cpu-order $2"; shift 2 ;;
    --arg) printf '%s\n' "$2" >>"$tmp_lists.args"; shift 2 ;;
    --exit) want_exit=$2; shift 2 ;;
    --line) printf 'line %s %s\n' "$2" "$3" >>"$tmp_lists"; shift 3 ;;
    --in-order) in_order=1; shift ;;
    --expect-n) printf 'n %s %s\n' "$2" "$3" >>"$tmp_lists"; shift 3 ;;
    --lacks) printf 'lacks %s\n' "$2" >>"$tmp_lists"; shift 2 ;;
    --check) check_cmd=$2; shift 2 ;;
    *) echo "run_book.sh: unknown argument $1"; exit 2 ;;
    esac
done
trap 'rm -f "$tmp_lists" "$tmp_lists.args"' EXIT

how="configure with -DEXAMPLES_BOOK_SOURCES=DIR, DIR holding cuda-by-example/ (git clone \
https://github.com/CodedK/CUDA-by-Example-source-code-for-the-book-s-examples- DIR/cuda-by-example) and \
cuda-programming/ (git clone https://github.com/brucefan1983/CUDA-Programming DIR/cuda-programming)"
if [ -z "$sources" ]; then
    echo "skipped: EXAMPLES_BOOK_SOURCES is not set: $how"
    exit 77
fi
source_file=$sources/$program
if [ ! -f "$source_file" ]; then
    echo "skipped: $source_file is not there: $how"
    exit 77
fi
[ -n "$runner" ] && [ -n "$work" ] || { echo "run_book.sh: --runner and --work are needed"; exit 2; }
program_dir=$(cd "$(dirname "$source_file")" && pwd)
name=$(basename "$program" .cu)
rm -rf "$work" && mkdir -p "$work" || exit 1

if [ $build_only -eq 1 ]; then
    echo "\$ $runner $source_file$defines --build-only -o $work/$name"
    # shellcheck disable=SC2086
    "$runner" "$source_file" $defines --build-only -o "$work/$name" >"$work/output.txt" 2>&1
    status=$?
    cat "$work/output.txt"
    [ $status -eq 0 ] || { echo "FAIL: the book's $program does not build as written (exit $status)"; exit 1; }
    [ -x "$work/$name" ] || { echo "FAIL: no program $work/$name after the build"; exit 1; }
    echo "built as written: $program"
    exit 0
fi

run_file=$source_file
if [ -n "$seds" ]; then
    run_file=$work/$name.cu
    set --
    old_ifs=$IFS
    IFS='
'
    for expression in $seds; do set -- "$@" -e "$expression"; done
    IFS=$old_ifs
    sed "$@" "$source_file" >"$run_file" || exit 1
    if cmp -s "$source_file" "$run_file"; then
        echo "FAIL: the size substitution changed nothing in $source_file: not the book's file these tests know"
        exit 1
    fi
    echo "the copy differs from the book's file only in:"
    diff "$source_file" "$run_file" | grep '^[<>]'
fi
if [ -n "$head_file" ]; then
    head -n "$head_lines" "$program_dir/$head_file" >"$work/$head_file" || exit 1
    echo "input: the first $head_lines lines of $head_file"
fi

set --
if [ -f "$tmp_lists.args" ]; then
    set -- --
    while IFS= read -r argument; do set -- "$@" "$argument"; done <"$tmp_lists.args"
fi
echo "\$ cd $work && $runner $run_file -I $program_dir$defines${order:+ $order} $*"
# shellcheck disable=SC2086
(cd "$work" && exec "$runner" "$run_file" -I "$program_dir" $defines $order "$@") >"$work/output.txt" 2>&1
status=$?
cat "$work/output.txt"
failed=0
if [ $status -ne "$want_exit" ]; then
    echo "FAIL: exit $status, expected $want_exit"
    failed=1
fi
while IFS= read -r line; do
    case $line in
    "n "*)
        rest=${line#n }
        count=${rest%% *}
        regex=${rest#* }
        got=$(grep -c -E -e "$regex" "$work/output.txt")
        if [ "$got" -ne "$count" ]; then
            echo "FAIL: $got lines match '$regex', expected $count"
            failed=1
        fi
        ;;
    "line "*)
        rest=${line#line }
        count=${rest%% *}
        text=${rest#* }
        got=$(grep -c -x -F -e "$text" "$work/output.txt")
        if [ "$got" -ne "$count" ]; then
            echo "FAIL: $got lines are '$text', expected $count"
            failed=1
        fi
        ;;
    "lacks "*)
        regex=${line#lacks }
        if grep -q -E -e "$regex" "$work/output.txt"; then
            echo "FAIL: a line matches '$regex':"
            grep -E -e "$regex" "$work/output.txt" | head -5
            failed=1
        fi
        ;;
    esac
done <"$tmp_lists"
if [ $in_order -eq 1 ]; then
    # Each --line text, in the order given, after the one before it.
    grep '^line ' "$tmp_lists" | sed 's/^line [0-9]* //' >"$work/in_order.txt"
    missing=$(awk 'BEGIN { i = 0; n = 0 } NR == FNR { want[n++] = $0; next } i < n && $0 == want[i] { i++ }
                   END { if (i < n) print want[i] }' "$work/in_order.txt" "$work/output.txt")
    if [ -n "$missing" ]; then
        echo "FAIL: the book's lines are not in the book's order: '$missing' is not after the lines before it"
        failed=1
    fi
fi
if [ -n "$check_cmd" ]; then
    echo "\$ (in $work) $check_cmd"
    (cd "$work" && sh -c "$check_cmd") || { echo "FAIL: the check failed"; failed=1; }
fi
[ $failed -eq 0 ] && echo "the book's answer: $program"
exit $failed
