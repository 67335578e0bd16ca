#!/bin/sh
# bank_conflicts.sh PROGRAM [ARGS...]
#
# Runs PROGRAM ARGS under Nsight Compute (ncu) and prints, as a markdown table, the
# shared-memory traffic of every kernel it launches (summed over its launches): shared
# load and store instructions (warp-wide), the wavefronts (passes through the 32 banks)
# they took, wavefronts per instruction, and the bank conflicts ncu counts. One wavefront
# per 128 bytes is conflict-free (1 for float, 2 for double); 32 is a 32-way conflict.
# For ch08_banks's bank_read<TYPE, STRIDE> (thread t reads element t * STRIDE) the table
# adds the prediction of 32 banks of 4-byte words: the most distinct words any bank holds.
#   scripts/bank_conflicts.sh build/ch08_transpose/transpose --check --n 4096
# Give the program options that launch each kernel once (--check). Needs ncu, a GPU and
# leave to read its counters. Exit 77 when ncu or a GPU is missing, 2 on bad use,
# otherwise ncu's (or the program's) exit code.
set -u
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: bank_conflicts.sh PROGRAM [ARGS...] (PROGRAM: a built executable; got '${1:-}')" >&2
    exit 2
fi
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
if [ -z "$ncu" ] || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "bank_conflicts.sh: needs Nsight Compute (ncu) and a GPU (ncu: ${ncu:-not found}): nothing measured" >&2
    exit 77
fi
metrics=""
for op in ld st; do
    metrics="$metrics,smsp__sass_inst_executed_op_shared_$op.sum"
    metrics="$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_$op.sum"
    metrics="$metrics,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_$op.sum"
done
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
# ncu's CSV lines are the quoted ones; the rest is the program's output and ncu's messages.
"$ncu" --csv --page raw --print-units base --metrics "${metrics#,}" "$@" >"$raw" 2>&1
status=$?
[ "$status" -eq 0 ] || { grep -v '^"' "$raw" >&2; exit "$status"; }
echo "\`$*\` under Nsight Compute:"
echo
grep '^"' "$raw" | python3 -c '
import csv, re, sys
lines = list(csv.reader(sys.stdin))  # a header, a units row, a row per launch
if len(lines) < 3:
    sys.exit("bank_conflicts.sh: ncu measured no kernel")
header, rows, totals = lines[0], lines[2:], {}  # totals: kernel -> its six counts, summed over launches
for row in map(lambda r: dict(zip(header, r)), rows):
    name = re.sub(r"^void |[(].*", "", row["Kernel Name"])  # keep template arguments: one row per case
    counts = [float(row[metric].replace(",", "")) for metric in sys.argv[1].split(",")]
    totals[name] = [a + b for a, b in zip(totals.get(name, [0] * 6), counts)]
def per(wavefronts, instructions):
    return "%.1f" % (wavefronts / instructions) if instructions else "–"
SIZES = {"unsigned char": 1, "unsigned short": 2, "unsigned int": 4, "float": 4, "double": 8}
def predicted(name):
    case = re.match(r"bank_read<(.+), (\d+)>$", name)
    if not case or case[1] not in SIZES:
        return "–"
    size, stride, words = SIZES[case[1]], int(case[2]), {}
    for t in range(32):  # the 4-byte words thread t touches, by bank
        for byte in range(t * stride * size, (t * stride + 1) * size, 4):
            words.setdefault(byte // 4 % 32, set()).add(byte // 4)
    return "%d" % max(map(len, words.values()))
print("| kernel | shared loads | wavefronts | per load | predicted | conflicts (ld) "
      "| shared stores | wavefronts | per store | conflicts (st) |")
print("| --- |" + " ---: |" * 9)
for name, c in totals.items():
    cells = ["%d" % c[0], "%d" % c[1], per(c[1], c[0]), predicted(name), "%d" % c[2],
             "%d" % c[3], "%d" % c[4], per(c[4], c[3]), "%d" % c[5]]
    print("| %s | %s |" % (name, " | ".join(cells)))
' "${metrics#,}"
