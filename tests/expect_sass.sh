#!/usr/bin/env bash
# The compiled code as evidence: the SASS of every function of PROGRAM whose
# (mangled) name matches FUNCTION, for every architecture the build holds, must
# have or lack the instructions named.
#   expect_sass.sh CUOBJDUMP PROGRAM FUNCTION [--arch ARCHS] [--has REGEX]... [--lacks REGEX]... [--count REGEX N]...
#                  [--order REGEX,REGEX[,REGEX...]]...
# --count: exactly N lines match REGEX in each such function. Regexes are grep -E.
# --order A,B,C: a line matching A, a later one matching B, a later one matching C
# (the first A, then the first B after it, ...): the instructions in that place,
# not only present (a store, then the fence, then the ticket's atomic).
# --arch ARCHS: the claims after it hold only on those architectures (until the
# next --arch); ARCHS is a comma list of sm_NN (that one, sm_NNa too), sm_NNa
# (that arch-specific code alone), sm_NN+ (that one and newer) or all (the
# default). A fatbinary holds one SASS per architecture (all-major with nvcc
# 13.0: sm_75 80 90 100 110 120), and the compiler may
# choose other instructions on each: a claim true on sm_90 alone is not a claim
# about the program.
# Exit 0: every claim holds in every matching function of every architecture
# it names; 1: one does not (one line per claim, function and architecture);
# 2: a malformed claim; 77: no cuobjdump (or nvdisasm) here, or no claim names
# an architecture the build holds (--arch sm_75 in an sm_90 build).
set -u
cuobjdump=$1 program=$2 function=$3
shift 3
claims=("$@")

# The number of an architecture name: sm_90a -> 90.
arch_number() { local digits=${1#sm_}; digits=${digits%%[!0-9]*}; echo "${digits:-0}"; }

# Does architecture $1 belong to the comma list $2?
arch_in() {
    local number item
    number=$(arch_number "$1")
    for item in ${2//,/ }; do
        case $item in
        all) return 0 ;;
        sm_[0-9]*[a-z]) [ "$1" = "$item" ] && return 0 ;; # sm_90a: that code alone, not sm_90's
        sm_[0-9]*+) [ "$number" -ge "$(arch_number "${item%+}")" ] && return 0 ;;
        sm_[0-9]*) [ "$number" -eq "$(arch_number "$item")" ] && return 0 ;;
        esac
    done
    return 1
}

# Malformed claims are the test's own bug: say so before reading anything.
set -- "${claims[@]}"
while [ $# -gt 0 ]; do
    case $1 in
    --has | --lacks) [ $# -ge 2 ] || { echo "expect_sass: $1 needs a REGEX"; exit 2; }; shift 2 ;;
    --order) [ $# -ge 2 ] && [[ $2 == *,* ]] || { echo "expect_sass: --order needs REGEX,REGEX[,...]"; exit 2; }; shift 2 ;;
    --count)
        [ $# -ge 3 ] && [[ $3 =~ ^[0-9]+$ ]] || { echo "expect_sass: --count needs a REGEX and a number"; exit 2; }
        shift 3 ;;
    --arch)
        [ $# -ge 2 ] || { echo "expect_sass: --arch needs a list (sm_80+, sm_75,sm_90, all)"; exit 2; }
        for item in ${2//,/ }; do
            [[ $item =~ ^(all|sm_[0-9]+[a-z]?\+?)$ ]] || { echo "expect_sass: --arch '$item': not sm_NN, sm_NN+ or all"; exit 2; }
        done
        shift 2 ;;
    *) echo "expect_sass: unknown claim '$1'"; exit 2 ;;
    esac
done

if [ ! -x "$cuobjdump" ]; then
    echo "expect_sass: no cuobjdump (run scripts/install_deps.sh, or install the CUDA toolkit's): skipped"
    exit 77
fi
PATH="$(dirname "$cuobjdump"):$PATH" # nvdisasm sits beside it
export PATH
# The SASS, split into one folder per architecture, one file per function: sm_NN/function.sass.
split_sass() {
    if ! "$cuobjdump" -sass "$program" >"$1/all" 2>"$1/err"; then
        if grep -q "nvdisasm" "$1/err"; then echo "expect_sass: cuobjdump needs nvdisasm beside it: skipped"; exit 77; fi
        cat "$1/err"
        exit 1
    fi
    # A PTX section names an architecture too ("arch = sm_90" in a build for sm_90a) but holds no SASS.
    awk -v dir="$1" '
        BEGIN { elf = 1 }
        /^Fatbin (elf|ptx) code:/ { elf = $2 == "elf" }
        elf && /^[ \t]*arch = / { arch = $3; system("mkdir -p " dir "/" arch) }
        /Function : / { file = dir "/" arch "/" $3 ".sass"; next }
        /^[ \t]*\.{10,}/ { file = "" }
        file != "" { print > file }
    ' "$1/all"
    rm -f "$1/all"
}
# Disassembling an all-major program takes half a minute, and a program has many of these tests: its
# split SASS is kept beside it (sass_cache/), named by a hash of the program and of cuobjdump, read by
# every test of that program and by a rerun while the binary is the same; one test at a time writes it.
cache=$(dirname "$program")/sass_cache
if [ -f "$program" ] && mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ]; then
    key=$({ sha256sum <"$program"; echo "$cuobjdump"; "$cuobjdump" --version 2>&1; } | sha256sum | cut -c 1-16)
    dump=$cache/$(basename "$program")-$key
    exec 9>"$cache/$(basename "$program").lock"
    command -v flock >/dev/null && flock 9
    if [ -f "$dump/complete" ]; then
        echo "expect_sass: the SASS of this same binary, read before: $dump"
    else
        rm -rf "$cache/$(basename "$program")"-* # an older binary's
        work=$(mktemp -d "$cache/new.XXXXXX")
        trap 'rm -rf "$work"' EXIT
        split_sass "$work"
        rm -f "$work/err" && touch "$work/complete" && mv "$work" "$dump"
    fi
    exec 9>&-
else
    dump=$(mktemp -d)
    trap 'rm -rf "$dump"' EXIT
    split_sass "$dump"
fi
archs=$(cd "$dump" && for d in sm_*/; do [ -d "$d" ] && echo "${d%/}"; done | sort -t_ -k2 -n | tr '\n' ' ')
archs=${archs% }
if [ -z "$archs" ]; then
    echo "FAIL: $program holds no SASS (cuobjdump -sass printed no architecture)"
    exit 1
fi

# A readable name in messages, as Nsight prints it (dot_fast<float>), where
# c++filt is here; the mangled one otherwise.
readable() { if command -v c++filt >/dev/null; then c++filt -p "$1"; else echo "$1"; fi; }

functions="" failed=0 checked=0
for arch in $archs; do
    found=0
    for file in "$dump/$arch"/*.sass; do
        [ -e "$file" ] || continue
        name=${file##*/} && name=${name%.sass}
        [[ $name =~ $function ]] || continue # no process per function: a program holds hundreds (CUB);
        # its readable name (c++filt) only in a failure's line
        found=$((found + 1))
        case " $functions " in *" $name "*) ;; *) functions="$functions $name" ;; esac
        scope=all
        set -- "${claims[@]}"
        while [ $# -gt 0 ]; do
            case $1 in
            --arch) scope=$2; shift 2; continue ;;
            --has | --lacks | --order) kind=$1 regex=$2; shift 2 ;;
            --count) kind=$1 regex=$2 expect=$3; shift 3 ;;
            esac
            arch_in "$arch" "$scope" || continue
            checked=$((checked + 1))
            if [ "$kind" = --order ]; then
                # The instruction lines only (a SASS line holds /*offset*/ then the instruction).
                missing_step=$(grep -E '^ +/\*[0-9a-f]{4}\*/' "$file" | awk -v list="$regex" '
                    BEGIN { steps = split(list, step, ","); at = 1 }
                    at <= steps && $0 ~ step[at] { at++ }
                    END { if (at <= steps) print step[at] }')
                [ -z "$missing_step" ] || { echo "FAIL: $where: no '$missing_step' after the earlier steps of '$regex'"; failed=1; }
                continue
            fi
            count=$(grep -Ec -- "$regex" "$file")
            if [ "$kind" = --has ]; then
                [ "$count" -gt 0 ] || { echo "FAIL: $arch $(readable "$name"): no line matches '$regex'"; failed=1; }
            elif [ "$kind" = --lacks ]; then
                if [ "$count" -gt 0 ]; then
                    first=$(grep -E -m 1 -- "$regex" "$file" | sed -e 's|/\*[0-9a-fx]*\*/||' -e 's| *;.*||' -e 's|^ *||')
                    echo "FAIL: $arch $(readable "$name"): $count line(s) match '$regex', none expected (first: $first)"
                    failed=1
                fi
            elif [ "$count" -ne "$expect" ]; then
                echo "FAIL: $arch $(readable "$name"): $count line(s) match '$regex', not $expect"
                failed=1
            fi
        done
    done
    [ "$found" -gt 0 ] || missing="${missing:-} $arch"
done
set -- $functions
if [ $# -eq 0 ]; then
    echo "FAIL: no function of $program matches '$function'"
    exit 1
elif [ -n "${missing:-}" ]; then
    echo "FAIL: no function matching '$function' in the SASS of$missing (found in the others)"
    failed=1
fi
echo "expect_sass: $# function(s) matching '$function', $checked claim(s) checked on $archs"
if [ "$checked" -eq 0 ] && [ "$failed" -eq 0 ]; then
    echo "expect_sass: no claim is about an architecture of this build: skipped"
    exit 77
fi
exit "$failed"
