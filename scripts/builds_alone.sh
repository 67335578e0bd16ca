#!/bin/sh
# builds_alone.sh CHAPTER_DIR SOURCE COMMON_DIR NVCC [CACHE_DIR] [OUT]
# builds_alone.sh --line CHAPTER_DIR SOURCE: prints that nvcc line, builds nothing.
# The one way a chapter is built outside CMake: copies the chapter's folder and common/ (nothing else of the
# repository) into an empty directory and runs, from the chapter's copy, exactly the nvcc line that SOURCE's header
# comment gives (its first line starting with "nvcc "; its last with BUILDS_ALONE_LINE=last). The chapters'
# *_builds_alone tests run it, and scripts/grade.py builds a learner's copy of a chapter with it (OUT: where the
# program goes; NVCC_APPEND_FLAGS adds nvcc options). Skipped (77) when there is no nvcc.
#
# A successful build leaves a stamp in CACHE_DIR named by a hash of all it reads that can change (the nvcc
# line, the compilers' versions, NVCC_* variables, every file of the chapter and common/): with the stamp there
# nothing is compiled. CACHE_DIR defaults to builds_alone_cache/ in a CTest build folder, else no cache.
line_only=
[ "$1" = --line ] && line_only=1 && shift
chapter_dir=$1 source=$2 common_dir=${3:-} nvcc=${4:-} cache_dir=${5:-} out=${6:-}
pick="head -n 1"
[ "${BUILDS_ALONE_LINE:-first}" = last ] && pick="tail -n 1"
command=$(sed -n 's/^ \*[[:space:]]*\(nvcc .*\)$/\1/p' "$chapter_dir/$source" | $pick)
[ -n "$command" ] || { echo "FAIL: $source has no 'nvcc ...' line in its header comment"; exit 1; }
[ -z "$line_only" ] || { echo "$command"; exit 0; }
[ -x "$nvcc" ] || { echo "no nvcc: skipped"; exit 77; }
chapter=$(basename "$chapter_dir")
if [ -z "$cache_dir" ] && [ -f CTestTestfile.cmake ]; then cache_dir=builds_alone_cache; fi
[ -z "$out" ] || cache_dir= # a build whose program is wanted is always built
case $cache_dir in /* | "") ;; *) cache_dir=$PWD/$cache_dir ;; esac
case $out in /* | "") ;; *) out=$PWD/$out ;; esac
PATH="$(dirname "$nvcc"):$PATH"
export PATH

# Every file under a folder: its path inside the folder and its sha256, sorted.
file_hashes() (
    cd "$1" && find . -type f -print | LC_ALL=C sort | while IFS= read -r file; do
        printf '%s %s\n' "$(sha256sum <"$file" | cut -d ' ' -f 1)" "$file"
    done
)
stamp=
if [ -n "$cache_dir" ]; then
    key=$({
        echo "line: $command"
        echo "nvcc: $nvcc"
        "$nvcc" --version
        for compiler in gcc g++; do
            echo "$compiler: $(command -v "$compiler") $("$compiler" --version 2>/dev/null | head -n 1)"
        done
        echo "NVCC_CCBIN=${NVCC_CCBIN:-} NVCC_PREPEND_FLAGS=${NVCC_PREPEND_FLAGS:-} NVCC_APPEND_FLAGS=${NVCC_APPEND_FLAGS:-}"
        echo "folder: $chapter"
        file_hashes "$chapter_dir"
        echo "common:"
        file_hashes "$common_dir"
    } | sha256sum | cut -d ' ' -f 1)
    # One stamp per chapter folder (two tests may build copies of one chapter).
    stamps=$cache_dir/$chapter-$(cd "$chapter_dir" && pwd | sha256sum | cut -c 1-12)
    stamp=$stamps-$key
    if [ -f "$stamp" ]; then
        echo "in $chapter/: $command"
        echo "reused: this line $(cat "$stamp") from these same files with this same nvcc before (stamp $stamp)"
        echo "ok: nothing compiled"
        exit 0
    fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$chapter_dir" "$work/$chapter"
cp -R "$common_dir" "$work/common"
cd "$work/$chapter" || exit 1
echo "in $chapter/: $command"
sh -c "$command" || { echo "FAIL: the header's command did not build $source"; exit 1; }
binary=$(ls -t | head -n 1)
echo "ok: built $binary"
[ -z "$out" ] || cp "$binary" "$out" || exit 1
if [ -n "$stamp" ]; then # only the newest build of a chapter is kept
    mkdir -p "$cache_dir" && rm -f "$stamps"-* && echo "built $binary" >"$stamp"
fi
