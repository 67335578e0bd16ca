#!/bin/sh
# expect_bank_model.py --measured judged without a GPU: a stand-in for
# bank_conflicts.sh prints a committed Nsight Compute table (docs/results), and
# the lesson's claims must hold on it, a wrong claim (the padded tile 32-way)
# must fail, a row marked as a disagreement must fail (unless the test states it, and then
# only while it is one), and a table without the
# SASS-level column or an ncu without leave must skip (77).
#   sh tests/test_expect_banks_measured.sh PYTHON
python=${1:-python3}
here=$(cd "$(dirname "$0")" && pwd)
table=$(ls "$here"/../docs/results/*/banks.txt 2>/dev/null | head -n 1)
[ -n "$table" ] || { echo "no committed banks.txt: skipped"; exit 77; }
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
# The first transpose float table of the committed run, as bank_conflicts.sh printed it.
awk '/^`.*transpose --check --n 4096` under/ { on = 1 } on && /^`/ && !/transpose --check --n 4096`/ { exit } on' \
    "$table" >"$fake/table"
grep -q "transpose_padded<float>" "$fake/table" || { echo "FAIL: no transpose float table in $table"; exit 1; }
printf '#!/bin/sh\ncat "%s"\n' "$fake/table" >"$fake/good.sh"
sed 's/Every prediction equals.*/Prediction and SASS count differ (✗) in 1 row(s):\n- transpose_shared<float>, loads: predicted 1.00, SASS-counted 32.00/' \
    "$fake/table" >"$fake/disagree"
printf '#!/bin/sh\ncat "%s"\n' "$fake/disagree" >"$fake/disagree.sh"
sed 's/ SASS per load | predicted/ predicted/; s/ SASS per store | predicted/ predicted/' "$fake/table" >"$fake/nosass"
printf '#!/bin/sh\ncat "%s"\n' "$fake/nosass" >"$fake/nosass.sh"
printf '#!/bin/sh\necho "==ERROR== ERR_NVGPUCTRPERM - no permission" >&2\nexit 1\n' >"$fake/noleave.sh"
failures=0
expect() {
    want=$1 script=$2
    shift 2
    BANK_CONFLICTS_SH=$fake/$script "$python" "$here/expect_bank_model.py" --measured true -- "$@" >"$fake/out" 2>&1
    got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL: $script $*: exit $got, want $want"
        sed 's/^/    /' "$fake/out" | tail -n 5
        failures=$((failures + 1))
    fi
}
expect 0 good.sh "transpose_shared<float>:ld=32" "transpose_padded<float>:ld=1" "transpose_padded<float>:st=1"
expect 1 good.sh "transpose_padded<float>:ld=32"
expect 1 good.sh "transpose_no_such_kernel<float>:ld=1"
expect 1 disagree.sh "transpose_padded<float>:ld=1"
# A difference the test states passes, and fails once the two agree (the list cannot go stale).
expect 0 disagree.sh "transpose_padded<float>:ld=1" "transpose_shared<float>:ld=differs"
expect 1 good.sh "transpose_padded<float>:ld=1" "transpose_shared<float>:ld=differs"
expect 77 nosass.sh "transpose_padded<float>:ld=1"
expect 77 noleave.sh "transpose_padded<float>:ld=1"
[ "$failures" -eq 0 ] || exit 1
echo "expect_bank_model --measured: 8 of 8 verdicts right on a committed table"
