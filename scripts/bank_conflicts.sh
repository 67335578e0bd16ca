#!/bin/sh
# bank_conflicts.sh [BUILD_DIR] [transpose options...]
#
# Shows, for every ch08_transpose kernel, the shared-memory bank conflicts that
# Nsight Compute counts, beside the kernel's time: the 32-way conflicts of
# `shared` and the zero of `padded` and `swizzled`.
#
#   scripts/bank_conflicts.sh                          # build/, --n 4096 --type float
#   scripts/bank_conflicts.sh build --n 10000 --type double
#   scripts/bank_conflicts.sh build --rows 4097 --cols 1023 --kernel shared,padded
#
# The program runs with --check: each kernel is launched exactly once (and
# checked), so each one is profiled once. --clock-control none lets the GPU run
# at its usual clocks, so the times are comparable with the program's own.
# Needs Nsight Compute (ncu) and permission to read the GPU's performance
# counters (root, or the driver's NVreg_RestrictProfilingToAdminUsers=0).
# Exit codes: 0 done, 2 bad use, 77 ncu or python3 missing (nothing was run),
# otherwise ncu's or the program's exit code.
set -u

build=build
case ${1:-} in
--help | -h)
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
-*) ;;
?*)
    build=$1
    shift
    ;;
esac
program=$build/ch08_transpose/transpose
if [ ! -x "$program" ]; then
    echo "bank_conflicts.sh: $program not found: build it first (cmake --build $build --target transpose)" >&2
    exit 2
fi
[ $# -gt 0 ] || set -- --n 4096 --type float

ncu=$(command -v ncu || true)
for candidate in "${CUDA_HOME:-/usr/local/cuda}/bin/ncu" /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
    [ -n "$ncu" ] && break
    [ -x "$candidate" ] && ncu=$candidate
done
if [ -z "$ncu" ]; then
    echo "bank_conflicts.sh: Nsight Compute (ncu) is not installed (looked on PATH, in \$CUDA_HOME/bin," \
        "/usr/local/cuda/bin and /opt/nvidia/nsight-compute): nothing was measured."
    exit 77
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "bank_conflicts.sh: python3 is needed to read ncu's CSV: nothing was measured."
    exit 77
fi

# Bank conflicts of shared loads and stores; shared-load wavefronts and shared
# load instructions give the "ways" (wavefronts per warp-wide load); the time.
metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
metrics=$metrics,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics=$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
metrics=$metrics,smsp__sass_inst_executed_op_shared_ld.sum
metrics=$metrics,gpu__time_duration.sum

output=$(mktemp)
trap 'rm -f "$output"' EXIT
echo "$ncu --metrics <bank conflicts, wavefronts, time> $program --check $*"
# ncu prints its CSV (every line starts with a double quote) on stdout, between
# the program's own lines and its ==PROF== messages.
"$ncu" --csv --page raw --print-units base --clock-control none --launch-count 50 \
    --metrics "$metrics" "$program" --check "$@" >"$output" 2>&1
status=$?
if [ "$status" -ne 0 ]; then
    echo "bank_conflicts.sh: ncu or the program exited with $status; their messages:"
    grep -v '^"' "$output"
else
    grep -E '^(Device|transpose:|all .* checks passed)' "$output"
fi

python3 - "$output" <<'EOF'
import csv, re, sys

with open(sys.argv[1], newline="") as f:
    lines = [line for line in f if line.startswith('"')]  # the CSV; the program's own output is not quoted
rows = list(csv.reader(lines))
if len(rows) < 3:
    sys.exit("bank_conflicts.sh: ncu produced no kernel rows (see the messages above)")
header, units, data = rows[0], rows[1], rows[2:]
column = {name: i for i, name in enumerate(header)}


def number(row, metric):
    text = row[column[metric]].replace(",", "").strip()
    try:
        return float(text)
    except ValueError:
        return float("nan")


OURS = {"copy_matrix": "copy", "transpose_naive_read": "naive_read", "transpose_naive_write": "naive_write",
        "transpose_shared": "shared", "transpose_padded": "padded", "transpose_padded_multi": "padded_multi",
        "transpose_swizzled": "swizzled"}


def short_name(full):
    name = re.sub(r"<.*", "", re.sub(r"^void ", "", full).split("(")[0])
    # cuBLAS's geam kernel is itself called transpose_...: match ours exactly.
    return OURS.get(name, "cublas: " + name[:32])


time_scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3,
              "second": 1e6, "s": 1e6}
time_unit = units[column["gpu__time_duration.sum"]].strip()
print()
print("%-40s %14s %14s %14s %16s %12s" % ("kernel", "ld conflicts", "st conflicts", "ld wavefronts",
                                         "per shared load", "time (us)"))
for row in data:
    loads = number(row, "smsp__sass_inst_executed_op_shared_ld.sum")
    wavefronts = number(row, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")
    per_load = "%.1f" % (wavefronts / loads) if loads > 0 else "-"
    print("%-40s %14.0f %14.0f %14.0f %16s %12.1f" % (
        short_name(row[column["Kernel Name"]]),
        number(row, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
        number(row, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
        wavefronts, per_load,
        number(row, "gpu__time_duration.sum") * time_scale.get(time_unit, float("nan"))))
print()
print("per shared load: wavefronts (shared-memory passes) per warp-wide shared load; 1 is")
print("conflict-free for float, 2 for double (a warp's 256 bytes take two passes), 32 is")
print("a 32-way conflict. Kernels without shared memory show 0 and '-'.")
EOF
table_status=$?
[ "$status" -ne 0 ] && exit "$status"
exit "$table_status"
