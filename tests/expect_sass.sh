#!/usr/bin/env bash
# The compiled code as evidence: the SASS of every function of PROGRAM whose
# (mangled) name matches FUNCTION, for every architecture the build holds, must
# have or lack the instructions named.
#   expect_sass.sh CUOBJDUMP PROGRAM FUNCTION [--has REGEX]... [--lacks REGEX]... [--count REGEX N]...
# --count: exactly N lines match REGEX in each such function. Regexes are grep -E.
# Exit 0: every assertion holds in every matching function of every architecture;
# 1: one does not (the line says which); 77: no cuobjdump (or nvdisasm) here.
set -u
cuobjdump=$1 program=$2 function=$3
shift 3
assertions=("$@")
if [ ! -x "$cuobjdump" ]; then
    echo "expect_sass: no cuobjdump (run scripts/install_deps.sh, or install the CUDA toolkit's): skipped"
    exit 77
fi
PATH="$(dirname "$cuobjdump"):$PATH" # nvdisasm sits beside it
export PATH
dump=$(mktemp -d)
trap 'rm -rf "$dump"' EXIT
if ! "$cuobjdump" -sass "$program" >"$dump/all" 2>"$dump/err"; then
    if grep -q "nvdisasm" "$dump/err"; then echo "expect_sass: cuobjdump needs nvdisasm beside it: skipped"; exit 77; fi
    cat "$dump/err"
    exit 1
fi
# One file per function and architecture: arch@function.sass.
awk -v dir="$dump" '
    /^[ \t]*arch = / { arch = $3 }
    /Function : / { name = $3; file = dir "/" arch "@" name ".sass"; next }
    /^[ \t]*\.{10,}/ { file = "" }
    file != "" { print > file }
' "$dump/all"
found=0 failed=0
for file in "$dump"/*.sass; do
    [ -e "$file" ] || continue
    base=$(basename "$file" .sass)
    arch=${base%%@*} name=${base#*@}
    echo "$name" | grep -Eq "$function" || continue
    found=$((found + 1))
    set -- "${assertions[@]}"
    while [ $# -gt 0 ]; do
        case $1 in
        --has) grep -Eq "$2" "$file" || { echo "FAIL: $arch $name has no '$2'"; failed=1; }; shift 2 ;;
        --lacks)
            if grep -Eq "$2" "$file"; then echo "FAIL: $arch $name has '$2':"; grep -E "$2" "$file" | head -3; failed=1; fi
            shift 2 ;;
        --count)
            count=$(grep -Ec "$2" "$file")
            [ "$count" -eq "$3" ] || { echo "FAIL: $arch $name has $count lines matching '$2', not $3"; failed=1; }
            shift 3 ;;
        *) echo "expect_sass: unknown assertion '$1'"; exit 2 ;;
        esac
    done
done
if [ "$found" -eq 0 ]; then
    echo "FAIL: no function of $program matches '$function'"
    exit 1
fi
echo "expect_sass: $found function(s) matching '$function' checked"
exit "$failed"
