#!/bin/sh
# builds_alone.sh CHAPTER_DIR SOURCE COMMON_DIR NVCC
# Copies the chapter's folder and common/ (nothing else of the repository) into
# an empty directory and runs, from the chapter's copy, exactly the nvcc line
# that SOURCE's header comment gives (its first line starting with "nvcc ").
# Skipped (77) when there is no nvcc.
chapter_dir=$1 source=$2 common_dir=$3 nvcc=$4
[ -x "$nvcc" ] || { echo "no nvcc: skipped"; exit 77; }
command=$(sed -n 's/^ \*[[:space:]]*\(nvcc .*\)$/\1/p' "$chapter_dir/$source" | head -n 1)
[ -n "$command" ] || { echo "FAIL: $source has no 'nvcc ...' line in its header comment"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chapter=$(basename "$chapter_dir")
cp -R "$chapter_dir" "$work/$chapter"
cp -R "$common_dir" "$work/common"
cd "$work/$chapter" || exit 1
echo "in $chapter/: $command"
PATH="$(dirname "$nvcc"):$PATH"
export PATH
sh -c "$command" || { echo "FAIL: the header's command did not build $source"; exit 1; }
binary=$(ls -t | head -n 1)
echo "ok: built $binary"
