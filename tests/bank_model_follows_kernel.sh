#!/bin/sh
# bank_model_follows_kernel.sh SOURCE_DIR BUILD_DIR: --bank-model is the CPU runner's count of the real
# kernel, so an edit of a kernel's index expression alone changes its answer. A copy of the transpose with
# transpose_padded's padding column taken out (s_tile[32][33] -> [32][32]), built as its CPU twin is built
# (cpu_runner/source.py, the twin's own flags), must say 32 passes for that kernel's column read where the
# chapter's program says 1. Exit 0 when it does, 1 when not, 77 when the build has no twin.
set -eu
src=$1 build=$2
flags=$build/ch08_transpose/CMakeFiles/transpose_cpu.dir/flags.make
[ -f "$flags" ] || { echo "skipped: no transpose_cpu in $build"; exit 77; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/ch08_transpose"
sed 's/__shared__ real s_tile\[TILE_DIM\]\[TILE_DIM + 1\];/__shared__ real s_tile[TILE_DIM][TILE_DIM];/' \
    "$src/ch08_transpose/transpose.cu" >"$tmp/ch08_transpose/transpose.cu"
[ "$(grep -c 's_tile\[TILE_DIM\]\[TILE_DIM + 1\]' "$tmp/ch08_transpose/transpose.cu")" = 0 ] ||
    { echo "FAIL: the edit did not apply"; exit 1; }
python3 "$src/cpu_runner/source.py" "$tmp/ch08_transpose/transpose.cu" "$tmp/t.cpp" ch08_transpose/transpose.cu
value() { sed -n "s/^$1 = //p" "$flags" | sed "s|-DBANK_MODEL_ROOT=[^ ]*|-DBANK_MODEL_ROOT=\\\\\"$tmp\\\\\"|"; }
# shellcheck disable=SC2046
eval c++ $(value CXX_DEFINES) $(value CXX_INCLUDES) $(value CXX_FLAGS) -fdebug-prefix-map="$tmp"=. \
    -c "$tmp/t.cpp" -o "$tmp/t.o"
c++ -Wl,--wrap=main -Wl,--wrap=memcpy -Wl,--wrap=memset -Wl,--wrap=memmove -Wl,--wrap=malloc -Wl,--wrap=calloc \
    -Wl,--wrap=realloc -Wl,--wrap=free "$tmp/t.o" -o "$tmp/transpose_cpu" "$build/cpu_runner/libcuda_cpu_runtime.a" -ldl -lm
passes() { awk -F'\t' '$1 == "transpose_padded<float>" && $3 == "ld" {print $5}' | sort -u | tr '\n' ' '; }
before=$("$build/ch08_transpose/transpose_cpu" --bank-model --n 64 --type float | passes)
"$tmp/transpose_cpu" --bank-model --n 64 --type float >"$tmp/after.txt" || { echo "FAIL: the edited copy's --bank-model:"; cat "$tmp/after.txt"; exit 1; }
after=$(passes <"$tmp/after.txt")
echo "transpose_padded<float>'s shared load (its tile column read): ${before}passes as written, ${after}without the padding column"
[ "$before" = "1 " ] && [ "$after" = "32 " ] || { echo "FAIL: expected 1, then 32"; exit 1; }
