#!/usr/bin/env python3
"""Runs every example over a range of sizes on the GPU and writes one CSV row per measurement.

    python3 scripts/benchmark.py --build build --out docs/results/benchmark.csv

Sizes: dot and reduce 2^10, 2^12, ..., 2^28 elements (plus the books' 33792 and 1e8),
transpose 256^2, 512^2, ..., 16384^2 (plus the book's 10000^2); float and double.
Each run is `<program> --kernel LIST --type T --n N --reps R`; the program measures its
own copy ceiling, times each kernel (median of R event-timed runs) and checks its result.
Columns: see scripts/results_format.py. A run that fails is recorded (FAIL / ERROR rows)
and the script carries on; it exits 1 at the end if anything failed, 77 if no GPU was
found. Then, anywhere: python3 scripts/make_results.py --csv <the CSV> (plots and pages).
Python 3 standard library only.
"""

import argparse
import datetime
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results_format as rf  # noqa: E402

PROGRAMS = {  # example -> binary, relative to the build directory
    "dot": "ch05_dot/dot",
    "reduce": "ch08_reduce/reduce",
    "transpose": "ch08_transpose/transpose",
}
EVEN_POWERS = [2 ** k for k in range(10, 29, 2)]  # 2^10 .. 2^28
SIZES = {  # the --n argument of each run (transpose: the side of a square matrix)
    "dot": sorted(EVEN_POWERS + [33 * 1024]),                 # + the book's N
    "reduce": sorted(EVEN_POWERS + [100000000]),              # + the book's 1e8
    "transpose": sorted([2 ** k for k in range(8, 15)] + [10000]),  # 256 .. 16384, + 10000
}
QUICK_SIZES = {"dot": [2 ** 10, 2 ** 20], "reduce": [2 ** 10, 2 ** 20], "transpose": [256, 1024]}
# Kernels too slow to time at large n: left out above this many elements.
# (atomic: every element is one atomicAdd into a single total, serialised at the
# L2: tens of ms per call at the book's 1e8, which it keeps for the tables.)
SLOW_KERNELS = {"reduce": {"atomic": 100000000}}
EXTRA_ARGUMENTS = {  # per example, when the program offers them
    # periodic data is exact in float at every n (a[i] = i is not above 2^24)
    "dot": lambda help_text: ["--data", "periodic"] if "periodic" in rf.parse_data_kinds(help_text) else [],
}


def log(message):
    print(message, flush=True)


def driver_version(device_line):
    """The driver version nvidia-smi reports, else the Device line's 'driver CUDA a.b'."""
    try:
        output = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                capture_output=True, text=True, timeout=30)
        version = output.stdout.strip().splitlines()[0].strip() if output.returncode == 0 else ""
        if version:
            return version
    except (OSError, subprocess.TimeoutExpired, IndexError):
        pass
    if device_line and device_line.get("driver_cuda"):
        return "CUDA " + device_line["driver_cuda"]
    return "unknown"


def program_help(binary):
    try:
        return subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def kernels_for(example, n_elements, all_kernels):
    """'all', or an explicit list without the kernels too slow at this size."""
    slow = SLOW_KERNELS.get(example, {})
    chosen = [k for k in all_kernels if n_elements <= slow.get(k, float("inf"))]
    if not all_kernels or chosen == all_kernels:
        return "all", all_kernels
    return ",".join(chosen), chosen


def run_once(binary, arguments, timeout):
    """Runs the program; returns (exit code or None on timeout, stdout, stderr, seconds)."""
    start = time.monotonic()
    try:
        done = subprocess.run([binary] + arguments, capture_output=True, text=True, timeout=timeout)
        return done.returncode, done.stdout, done.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired as expired:
        out = expired.stdout.decode(errors="replace") if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        return None, out, "timed out after %d s" % timeout, time.monotonic() - start
    except OSError as error:
        return -1, "", str(error), time.monotonic() - start


def rows_from_run(example, type_name, n_requested, kernels, code, stdout, stderr, meta):
    """CSV rows for one program run: one per RESULT line, or ERROR / SKIP rows."""
    ceilings = [c for c in rf.parse_ceilings(stdout) if c.get("example") in (None, example)]
    ceiling = ceilings[0]["gbps"] if ceilings else None
    results = rf.parse_results(stdout)
    base = dict(meta, example=example, type=type_name, ceiling_gbps=ceiling)
    rows = []
    for result in results:
        rows.append(dict(base, kernel=result["kernel"], type=result.get("type", type_name), n=result["n"],
                         size=result.get("size") or str(result["n"]), ms=result.get("ms"),
                         gbps=result.get("gbps"), pct_copy=result.get("pct_copy"),
                         status=result.get("status", "FAIL")))
    if code == 0 and rows:
        return rows
    # A run that did not finish: keep whatever it printed, and mark every kernel
    # it did not report.
    status = "SKIP" if code == 77 else "ERROR"
    reported = {row["kernel"] for row in rows}
    n_elements = n_requested * n_requested if example == "transpose" else n_requested
    size = "%dx%d" % (n_requested, n_requested) if example == "transpose" else str(n_requested)
    for kernel in (kernels or ["all"]):
        if kernel not in reported:
            rows.append(dict(base, kernel=kernel, n=n_elements, size=size, ms=None, gbps=None,
                             pct_copy=None, status=status))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="the CMake build directory (default: build)")
    parser.add_argument("--out", default="benchmark.csv", help="the CSV to write (default: benchmark.csv)")
    parser.add_argument("--examples", default=None,
                        help="comma-separated: dot,reduce,transpose (default: those whose binary exists)")
    parser.add_argument("--types", default="float,double", help="comma-separated (default: float,double)")
    parser.add_argument("--reps", type=int, default=10, help="timed repeats per kernel (default 10)")
    parser.add_argument("--quick", action="store_true", help="two sizes per example (a smoke test)")
    parser.add_argument("--run-timeout", type=int, default=120, help="seconds one program run may take (default 120)")
    parser.add_argument("--deadline", type=float, default=None,
                        help="seconds after which no new run starts (the CSV keeps what was measured)")
    args = parser.parse_args()
    if args.reps < 1:
        parser.error("--reps must be at least 1")

    if args.examples:
        examples = [e.strip() for e in args.examples.split(",") if e.strip()]
        unknown = [e for e in examples if e not in PROGRAMS]
        if unknown:
            parser.error("unknown example %s (choose from %s)" % (", ".join(unknown), ", ".join(PROGRAMS)))
        absent = [e for e in examples if not os.access(os.path.join(args.build, PROGRAMS[e]), os.X_OK)]
        if absent:
            parser.error("no binary for %s in %s: build it first (cmake --build %s)" % (
                ", ".join(absent), args.build, args.build))
    else:
        examples = [e for e in PROGRAMS if os.access(os.path.join(args.build, PROGRAMS[e]), os.X_OK)]
        if not examples:
            parser.error("no example binary found under %s: build first (cmake -S . -B %s && cmake --build %s)" % (
                args.build, args.build, args.build))
    types = [t.strip() for t in args.types.split(",") if t.strip()]
    if any(t not in rf.TYPES for t in types):
        parser.error("--types takes float and/or double")

    plan = []
    helps = {}
    for example in examples:
        binary = os.path.join(args.build, PROGRAMS[example])
        helps[example] = program_help(binary)
        for type_name in types:
            for n in (QUICK_SIZES if args.quick else SIZES)[example]:
                plan.append((example, binary, type_name, n))
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    log("benchmark: %d runs (%s; %s), %d reps each, into %s" % (
        len(plan), ", ".join(examples), ", ".join(types), args.reps, args.out))

    out_dir = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(out_dir, exist_ok=True)
    start = time.monotonic()
    meta = None
    counts = {status: 0 for status in rf.STATUSES}
    runs_failed = runs_skipped_no_gpu = runs_left_out = 0
    best = {}  # (example, type) -> the largest size's rows, for the summary
    with open(args.out, "w", newline="", encoding="utf-8") as stream:
        writer = rf.CsvWriter(stream)
        for index, (example, binary, type_name, n) in enumerate(plan, 1):
            if args.deadline is not None and time.monotonic() - start > args.deadline:
                runs_left_out = len(plan) - index + 1
                log("benchmark: time budget of %.0f s spent: %d runs left out" % (args.deadline, runs_left_out))
                break
            n_elements = n * n if example == "transpose" else n
            kernel_argument, kernels = kernels_for(example, n_elements, rf.parse_kernel_list(helps[example]))
            arguments = ["--kernel", kernel_argument, "--type", type_name, "--n", str(n), "--reps", str(args.reps)]
            arguments += EXTRA_ARGUMENTS.get(example, lambda _: [])(helps[example])
            code, stdout, stderr, seconds = run_once(binary, arguments, args.run_timeout)
            if meta is None:
                device = rf.parse_device_line(stdout)
                if device:
                    meta = {"device": device["name"], "driver": driver_version(device), "date": date,
                            "l2_mb": "%g" % device["l2_mb"] if device["l2_mb"] else None,
                            "runtime": device["runtime"], "reps": args.reps}
            run_meta = meta or {"device": "unknown", "driver": "unknown", "date": date, "reps": args.reps}
            rows = rows_from_run(example, type_name, n, kernels, code, stdout, stderr, run_meta)
            for row in rows:
                writer.write(row)
                counts[row["status"]] += 1
            statuses = sorted({row["status"] for row in rows})
            label = "%s %s --n %d" % (example, type_name, n)
            log("[%2d/%d] %-32s %5.1f s  exit %s  %d rows  %s%s" % (
                index, len(plan), label, seconds, "timeout" if code is None else code, len(rows),
                "/".join(statuses), "" if kernel_argument == "all" else "  (kernels: %s)" % kernel_argument))
            if code == 77:
                runs_skipped_no_gpu += 1
                log("    " + (stderr.strip().splitlines() or ["no CUDA device"])[-1])
                if runs_skipped_no_gpu == index:  # the very first runs: there is no GPU here
                    log("benchmark: no CUDA device here: run this on a GPU machine")
                    best.clear()
                    runs_left_out = len(plan) - index
                    break
            elif code != 0:
                runs_failed += 1
                for line in (stderr.strip().splitlines() or ["(nothing on stderr)"])[-3:]:
                    log("    stderr: " + line)
            best[(example, type_name)] = rows
    elapsed = time.monotonic() - start

    log("")
    log("benchmark: %.0f s, %d rows: %s" % (
        elapsed, sum(counts.values()), ", ".join("%d %s" % (v, k) for k, v in counts.items() if v)))
    for (example, type_name), rows in best.items():
        timed = [r for r in rows if r.get("gbps") not in (None, "-")]
        if timed:
            log("  %-9s %-6s n=%-11s %s" % (example, type_name, timed[0]["n"], "  ".join(
                "%s %s" % (r["kernel"], r["gbps"]) for r in timed)))
    log("CSV: %s" % args.out)
    if runs_skipped_no_gpu and runs_skipped_no_gpu + runs_left_out == len(plan):
        log("benchmark: no CUDA device: nothing was measured")
        return 77
    if runs_failed or runs_left_out or counts["FAIL"] or counts["ERROR"] or runs_skipped_no_gpu:
        log("benchmark: NOT clean: %d runs failed, %d left out, %d FAIL rows, %d ERROR rows, %d runs without GPU" % (
            runs_failed, runs_left_out, counts["FAIL"], counts["ERROR"], runs_skipped_no_gpu))
        return 1
    log("benchmark: every run passed its checks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
