#!/usr/bin/env python3
"""Runs the built examples over sizes and types and collects their RESULT and CEILING lines in one CSV.

    python3 scripts/sweep.py [--build build] [--out build/sweep.csv] [--force] [--quick] [--type float,double] [--reps 10]

A row per line the programs print, its key=value fields the columns (known ones first). A run that
fails without RESULT lines is an ERROR row and the sweep goes on; exit 1 if any row is not PASS, 77
without a GPU. Then: copy it into docs/results/DEVICE/ and run scripts/plot.py --regenerate. Every
option is checked before the first run (one line, exit 2); an existing CSV is replaced only with --force.
"""
import csv
import os
import re
import subprocess
import sys

import layout
from plot import OneLineParser  # one line and exit 2 for a bad command line, as plot.py and the programs do
from results import number, records

BUILT = {program: "%s/%s" % (folder, program) for folder, program in layout.chapters().items()}  # in a build folder
PROGRAMS = {program: BUILT[program] for program in ("dot", "reduce", "transpose")}
BANKS = BUILT["banks"]  # run once with its defaults, when built
POWERS = [2**k for k in range(10, 29, 2)]
SIZES = {  # --n of each run; transpose: the side of a square matrix
    "dot": sorted(POWERS + [33792]),
    "reduce": sorted(POWERS + [10**8]),
    "transpose": sorted([2**k for k in range(8, 15)] + [4097, 10000]),  # 4097: no row 16-byte aligned
}
QUICK = {"dot": [2**10, 2**20], "reduce": [2**10, 2**20], "transpose": [256, 1024]}
# Sizes whose data fits in the L2 (50 MB on the H100, 60 on the H200), run again with --cold-l2: a flushed
# L2 before every timed run, so the reader sees the DRAM figure beside the warm one.
COLD = {"dot": [2**18, 2**20, 2**22], "reduce": [2**18, 2**20, 2**22], "transpose": [512, 1024, 2048]}
EXTRA = {"dot": ["--data", "periodic"]}  # exact in float at every n, so large n can be checked
# The sizes the lessons and RESULTS quote (warm L2): each run HEADLINE_RUNS times, and each row is the
# run whose time is the median of them, since one run's figures vary by about 1 % (the ceiling too).
HEADLINE = {"dot": [2**26], "reduce": [10**8], "transpose": [8192, 10000]}
HEADLINE_RUNS = 3
TYPES = ("float", "double")
MAX_REPS = 100000  # what the programs' --reps takes (common/cli.h)
KNOWN = ["device", "l2_mb", "record", "example", "kernel", "name", "type", "n", "size", "bytes", "ms", "gbps",
         "pct_ceiling", "ceiling", "l2", "scope", "status", "value", "expected", "rel_err", "tolerance"]
DEVICE = re.compile(r"^Device \d+: (?P<name>.+?), compute capability(?:.*?, L2 (?P<l2>[\d.]+) MB)?", re.M)


def parse_output(text, device, asked):
    """Rows of one run's output, each with the device (and L2 size) from its Device line; what
    the run was asked for fills the fields a line leaves out (a CEILING line has no type or n)."""
    match = DEVICE.search(text)
    if match:
        device = {"device": match["name"], "l2_mb": match["l2"] or ""}
    rows = [{**device, **asked, **row} for row in records(text)]
    return rows, device


def asked(example, type_name, n):
    """The fields of a run's rows that its command line decides: n counts elements."""
    if example == "transpose":
        return {"example": example, "type": type_name, "n": str(n * n), "size": "%dx%d" % (n, n)}
    return {"example": example, "type": type_name, "n": str(n)}


def plan(build, types, quick, reps):
    """(binary, arguments, asked) of every run, for the programs that were built: every size warm,
    then (not with --quick) the COLD sizes with --cold-l2, whose rows all say l2=cold."""
    runs = []
    for example, path in PROGRAMS.items():
        binary = os.path.join(build, path)
        if os.access(binary, os.X_OK):
            common = lambda t, n: ["--type", t, "--n", str(n), "--reps", str(reps)] + EXTRA.get(example, [])
            runs += [(binary, common(t, n), asked(example, t, n))
                     for t in types for n in (QUICK if quick else SIZES)[example]]
            runs += [(binary, common(t, n) + ["--cold-l2"], dict(asked(example, t, n), l2="cold"))
                     for t in types for n in ([] if quick else COLD[example])]
    banks = os.path.join(build, BANKS)
    if os.access(banks, os.X_OK):
        runs.append((banks, [], {"example": "banks"}))
    return runs


def median_rows(runs):
    """Rows of several runs of one command, row by row: the row whose ms (a CEILING line: gbps) is the
    median of the runs', each marked runs=N. A failing row wins over the median; rows that do not line
    up (another kernel or name at that place) come from the first run."""
    chosen = []
    for place, first in enumerate(runs[0]):
        same = [rows[place] for rows in runs if place < len(rows) and rows[place].get("record") == first.get(
            "record") and rows[place].get("kernel", rows[place].get("name")) == first.get("kernel", first.get("name"))]
        failing = [row for row in same if row.get("status", "PASS") != "PASS"]
        key = "gbps" if first.get("record") == "CEILING" else "ms"
        figure = lambda row: float("inf") if number(row.get(key)) is None else number(row.get(key))  # noqa: E731
        pick = failing[0] if failing else sorted(same, key=figure)[(len(same) - 1) // 2] if len(same) == len(
            runs) else first
        chosen.append(dict(pick, runs=str(len(same))))
    return chosen


def write_csv(path, rows):
    """The CSV, known columns first and then the others in the order first seen."""
    columns = KNOWN + [k for k in dict.fromkeys(k for row in rows for k in row) if k not in KNOWN]
    with open(path, "w", newline="") as stream:
        writer = csv.DictWriter(stream, columns, restval="")
        writer.writeheader()
        writer.writerows(rows)


def main(argv=None):
    parser = OneLineParser(prog="sweep.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="the CMake build directory (default build)")
    parser.add_argument("--out", help="the CSV to write (default: sweep.csv in the build directory)")
    parser.add_argument("--force", action="store_true", help="replace --out when it exists")
    parser.add_argument("--type", default="float,double", help="float, double or both (default float,double)")
    parser.add_argument("--reps", default="10", help="timed repeats per kernel, 1 to %d (default 10)" % MAX_REPS)
    parser.add_argument("--quick", action="store_true", help="two sizes per example: a smoke test")
    args = parser.parse_args(argv)
    types = args.type.split(",")
    for name in types:
        if name not in TYPES:
            parser.error("--type %s: '%s' is not float or double" % (args.type, name))
    if len(set(types)) < len(types):
        parser.error("--type %s: a type named twice: name each once" % args.type)
    if not re.fullmatch(r"[0-9]+", args.reps) or not 1 <= int(args.reps) <= MAX_REPS:
        parser.error("--reps needs a whole number from 1 to %d, got '%s'" % (MAX_REPS, args.reps))
    if not os.path.isdir(args.build):
        parser.error("--build %s: no such folder (configure and build first: bash scripts/run_examples.sh)" % args.build)
    out = args.out or os.path.join(args.build, "sweep.csv")
    folder = os.path.dirname(os.path.abspath(out))
    if os.path.isdir(out):
        parser.error("--out %s is a folder: name a file" % out)
    if not os.path.isdir(folder):
        parser.error("--out %s: the folder %s does not exist" % (out, folder))
    if not os.access(folder, os.W_OK):
        parser.error("--out %s: the folder %s is not writable" % (out, folder))
    if os.path.exists(out) and not args.force:
        parser.error("--out %s exists: --force replaces it (or name another file)" % out)
    runs = plan(args.build, types, args.quick, int(args.reps))
    if not runs:
        parser.error("--build %s holds no built example (%s): build first" % (
            args.build, ", ".join(list(PROGRAMS.values()) + [BANKS])))
    rows, device, failed = [], {"device": "unknown", "l2_mb": ""}, False
    for index, (binary, arguments, fields) in enumerate(runs, 1):
        headline = fields.get("l2") != "cold" and fields.get("example") in HEADLINE and any(
            ["--n", str(n)] == arguments[i:i + 2] for n in HEADLINE[fields["example"]] for i in range(len(arguments)))
        outputs = []
        for _ in range(HEADLINE_RUNS if headline else 1):
            try:  # a hung run is ended after 120 s and becomes an ERROR row
                done = subprocess.run([binary] + arguments, capture_output=True, text=True, timeout=120)
                code, output = done.returncode, done.stdout
                sys.stderr.write(done.stderr[-2000:] if code else "")
            except subprocess.TimeoutExpired:
                code, output = -1, ""
            if code == 77:
                print("sweep: no CUDA device: nothing measured", file=sys.stderr)
                return 77
            found, device = parse_output(output, device, fields)
            outputs.append(found)
            if code:
                break
        found = median_rows(outputs) if len(outputs) > 1 else outputs[0]
        if code and not any(row["record"] == "RESULT" for row in found):
            found.append({**device, **fields, "record": "RESULT", "kernel": "all", "status": "ERROR"})
        failed |= code != 0 or any(row.get("status", "PASS") != "PASS" for row in found)
        rows += found
        print("[%d/%d] %s %s: exit %d, %d rows" % (index, len(runs), binary, " ".join(arguments), code, len(found)),
              flush=True)
        write_csv(out, rows)  # after every run, so a sweep cut short keeps what it measured
    print("sweep: %d rows in %s%s" % (len(rows), out, ", NOT all PASS" if failed else ", all PASS"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
