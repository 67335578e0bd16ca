#!/bin/sh
# bank_conflicts.sh PROGRAM [ARGS...]
#
# Runs PROGRAM ARGS under Nsight Compute (ncu) and prints, as a markdown table, the shared-memory traffic of every
# kernel it launches (summed over its launches): shared load and store instructions (warp-wide) and the wavefronts
# (passes through the 32 banks) they took, per instruction, three ways:
#   measured   the L1's hardware counter (l1tex__data_pipe_lsu_wavefronts_mem_shared_*): every
#              cycle the shared-memory pipe spent, also waiting for the banks while the L1 was
#              busy filling lines for global loads (arbitration), not only bank conflicts;
#   SASS       what Nsight Compute computes from each instruction's addresses
#              (smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_*): bank conflicts only;
#   predicted  the program's own bank model (PROGRAM ARGS --bank-model): each instruction's passes
#              from the addresses its lanes touched when the CPU runner ran the same kernels.
# A row whose prediction differs from the SASS count by more than 2 % is marked ✗ and listed under the table.
# "conflicts" is ncu's own count: wavefronts beyond the ideal (1 per 128 bytes), so 2 passes for 32 doubles count 0.
#   scripts/bank_conflicts.sh build/ch08_transpose/transpose --check --n 4096
# Give the program options that launch each kernel once (--check). Needs ncu (one with the SASS count), a GPU and
# leave to read its counters. Exit 77 when ncu, its SASS count or a GPU is missing, 2 on bad use, otherwise ncu's (or
# the program's) exit code.
set -u
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then # this header, without its comment marks
    sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"
    exit 0
fi
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: bank_conflicts.sh PROGRAM [ARGS...] (PROGRAM: a built executable; got '${1:-}'; --help says more)" >&2
    exit 2
fi
ncu=$(sh "$(dirname "$0")/cuda_tool.sh" ncu)
if [ -z "$ncu" ] || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "bank_conflicts.sh: needs Nsight Compute (ncu) and a GPU (ncu: ${ncu:-not found}): nothing measured" >&2
    exit 77
fi
if ! "$ncu" --query-metrics 2>/dev/null | grep -q "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld"; then
    echo "bank_conflicts.sh: this ncu ($ncu) has no SASS-level wavefront count (an old Nsight Compute): nothing measured" >&2
    exit 77
fi
metrics=""
for op in ld st; do
    metrics="$metrics,smsp__sass_inst_executed_op_shared_$op.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_$op.sum"
    metrics="$metrics,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_$op.sum"
    metrics="$metrics,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_$op.sum"
done
raw=$(mktemp)
model=$(mktemp)
trap 'rm -f "$raw" "$model"' EXIT
# The prediction: a program without a bank model (it rejects the option) predicts nothing.
"$@" --bank-model >"$model" 2>/dev/null || : >"$model"
# ncu's CSV lines are the quoted ones; the rest is the program's output and ncu's messages.
"$ncu" --csv --page raw --print-units base --metrics "${metrics#,}" "$@" >"$raw" 2>&1
status=$?
[ "$status" -eq 0 ] || { grep -v '^"' "$raw" >&2; exit "$status"; }
echo "\`$*\` under Nsight Compute:"
echo
grep '^"' "$raw" | python3 -c '
import csv, re, sys
metrics, model_path = sys.argv[1].split(","), sys.argv[2]
sys.path.insert(0, sys.argv[3])
from plot import agrees  # the one tolerance: 2 % of the prediction, as in plot.py banks:agreement
from results import bank_model_row
lines = list(csv.reader(sys.stdin))  # a header, a units row, a row per launch
if len(lines) < 3:
    sys.exit("bank_conflicts.sh: ncu measured no kernel")
header, rows, totals = lines[0], lines[2:], {}  # totals: kernel -> metric -> summed over launches
for row in map(lambda r: dict(zip(header, r)), rows):
    name = re.sub(r"^void |[(].*", "", row["Kernel Name"])  # keep template arguments: one row per case
    sums = totals.setdefault(name, dict.fromkeys(metrics, 0.0))
    for metric in metrics:
        sums[metric] += float(row[metric].replace(",", ""))
predicted, library = {}, []  # (kernel, op) -> [passes x weight, weight]; (prefix, library name)
for line in open(model_path, encoding="utf-8"):
    fields, row = line.rstrip("\n").split("\t"), bank_model_row(line)
    if fields[0] == "library" and len(fields) == 3:
        library.append((fields[1], fields[2]))
    elif row:
        entry = predicted.setdefault((row["kernel"], row["op"]), [0, 0])
        entry[0] += int(row["passes"]) * int(row["weight"])
        entry[1] += int(row["weight"])
def label(name):
    for prefix, owner in library:
        if name.startswith(prefix):
            return "%s (%s\u2019s own kernel)" % (name, owner)
    return name
def per(count, instructions):
    return "%.2f" % (count / instructions) if instructions else "\u2013"
disagreements = []
def cells(name, sums, op):
    instructions = sums["smsp__sass_inst_executed_op_shared_%s.sum" % op]
    measured = sums["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_%s.sum" % op]
    counted = sums["smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_%s.sum" % op]
    model = predicted.get((name, op))
    prediction = "\u2013"
    if model and model[1] and instructions:
        value = model[0] / model[1]
        prediction = "%.2f" % value
        if not agrees(counted / instructions, value):
            prediction += " \u2717"
            disagreements.append("%s, %s: predicted %.2f, SASS-counted %.2f" % (name, "loads" if op == "ld" else
                                 "stores", value, counted / instructions))
    elif instructions and not model and not any(name.startswith(p) for p, _ in library):
        prediction = "none"
    return ["%d" % instructions, "%d" % measured, per(measured, instructions), per(counted, instructions), prediction,
            "%d" % sums["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_%s.sum" % op]]
half = ["wavefronts", "per %s", "SASS per %s", "predicted", "conflicts (%s)"]
names = ["shared loads"] + [h.replace("%s", "load" if "per" in h else "ld") for h in half] + \
        ["shared stores"] + [h.replace("%s", "store" if "per" in h else "st") for h in half]
print("| kernel | " + " | ".join(names) + " |")
print("| --- |" + " ---: |" * len(names))
for name, sums in totals.items():
    print("| %s | %s |" % (label(name), " | ".join(cells(name, sums, "ld") + cells(name, sums, "st"))))
if predicted:
    print()
    if disagreements:
        print("Prediction and SASS count differ (\u2717) in %d row(s):" % len(disagreements))
        for line in disagreements:
            print("- " + line)
    else:
        print("Every prediction equals the SASS count (within 2 %).")
' "${metrics#,}" "$model" "$(dirname "$0")"
