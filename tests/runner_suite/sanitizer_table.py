#!/usr/bin/env python3
"""The runner suite on a GPU: each program of tests/runner_suite/ under compute-sanitizer's four tools,
beside what the CPU runner reports, as one Markdown table.

    python3 tests/runner_suite/sanitizer_table.py [--out TABLE.md] [--work DIR] [--arch sm_90] [--timeout 60]
                                       [--runner-log LOG | --no-runner] [--jobs N] [--cpu-only]
                                       [--from-logs DIR] [NAME ...]

On a machine with nvcc, compute-sanitizer and a GPU (no network needed; Python 3 standard library
only), for every suite program (or the NAMEs given):
  - builds it: nvcc -lineinfo -arch=ARCH -o WORK/NAME tests/runner_suite/NAME.cu
  - runs it alone, then under `compute-sanitizer --tool T` for T in memcheck, racecheck, synccheck,
    initcheck, each under `timeout SECONDS` (a hang shows as "hang"); every output is kept in
    WORK/NAME.T.txt;
  - takes the CPU runner's results from --runner-log (the JSON lines of
    `tests/runner_suite/check.py --log LOG`), or runs check.py itself when scripts/cuda_on_cpu can
    build (g++ there), unless --no-runner;
  - writes the table: per program, each tool's error count with its kinds and lines (or "—"), the
    program's own run, the runner's findings, and the program's stated expectation.
--cpu-only runs no GPU tool (their cells say "not run"): the runner's columns alone, for a machine
without a GPU.
--from-logs DIR renders the table from the WORK folder of an earlier run (NAME.T.txt files), with
no GPU: run on the GPU machine, copy WORK back, render anywhere.
"""
import argparse
import concurrent.futures
import json
import io
import os
import re
import shutil
import subprocess
import sys

SUITE_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(SUITE_DIR, "..", "..", "scripts"))
import check  # noqa: E402  (check.py beside this file: the expectations and the runner's output)
from layout import ROOT, cuda_tool  # noqa: E402
from plot import between  # noqa: E402  (the pages' generated blocks, replaced as plot.py replaces its own)
from grader.gpu import sanitizer_count  # noqa: E402  (the count of compute-sanitizer's summary, as the grader reads it)

TOOLS = ["memcheck", "racecheck", "synccheck", "initcheck"]
RUNS = ["plain"] + TOOLS
NOT_RUN = "not run"


def find_tool(name, override=None):
    return override or cuda_tool(name)


# ----- compute-sanitizer's output -----
SKIP = ("COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "LEAK SUMMARY", "Target application returned",
        "This tool", "Note:", "Saved host backtrace")


def kind_of(header):
    """A record's header without its addresses, sizes of launches or functions: the kind of error."""
    text = header
    m = re.match(r"(Error|Warning): Race reported between (\w+) access", text)
    if m:
        return "%s: race (%s)" % (m.group(1), m.group(2).lower())
    m = re.match(r"Program hit (\w+)", text)
    if m:
        return "API error %s" % m.group(1)
    text = re.sub(r"\s+at\s.*$", "", text)          # "... at kernel(...)+0x10 in f.cu:3"
    text = re.sub(r"0x[0-9a-fA-F]+", "ADDR", text)
    return text.strip().rstrip(".")


def parse_sanitizer(text, program):
    """{'errors': N or None, 'records': [(kind, line or None)], 'summary': str}: one tool's output."""
    records, current = [], None
    suite_file = re.compile(r"\bin (?:\S*/)?%s\.cu:(\d+)" % re.escape(program))
    for raw in text.splitlines():
        if not raw.startswith("========="):
            continue
        body = raw[len("========="):]
        if not body.strip():
            current = None
            continue
        if body.startswith(" ") and not body.startswith("  "):   # a record's first line
            head = body[1:]
            if head.startswith(SKIP):
                current = None
                continue
            current = [kind_of(head), None]
            records.append(current)
            m = suite_file.search(head)
            if m:
                current[1] = int(m.group(1))
        elif current is not None and current[1] is None:
            m = suite_file.search(body)
            if m:
                current[1] = int(m.group(1))
    return {"errors": sanitizer_count(text), "records": [tuple(r) for r in records]}


def unfinished_cell(run):
    """The cell of a run that did not run or hung; None for a run that ended."""
    if run is None:
        return NOT_RUN
    if run["timed_out"]:
        return "hang (no end in %d s)" % run["timeout"]
    return None


def tool_cell(run):
    """One table cell from a run's record: '—', 'N: kind @line; ...', 'hang', 'not run'."""
    if unfinished_cell(run):
        return unfinished_cell(run)
    parsed = parse_sanitizer(run["output"], run["program"])
    groups = {}
    for kind, line in parsed["records"]:
        key = "%s%s" % (kind, " @%d" % line if line else "")
        groups[key] = groups.get(key, 0) + 1
    count = parsed["errors"]
    if count is None and not groups:
        return "no summary (exit %d)" % run["exit"]
    if not count and not groups:
        return "—"
    shown = sorted(groups.items(), key=lambda kv: -kv[1])
    parts = ["%s%s" % (k, " ×%d" % n if n > 1 else "") for k, n in shown[:3]]
    if len(shown) > 3:
        parts.append("…")
    return "%s: %s" % (count if count is not None else len(parsed["records"]), "; ".join(parts))


def plain_cell(run):
    if unfinished_cell(run):
        return unfinished_cell(run)
    lines = [l for l in run["output"].splitlines() if l.strip()]
    return "exit %d%s" % (run["exit"], ": " + lines[-1][:70] if lines else "")


# ----- running things -----
def run_command(command, timeout, cwd):
    try:
        r = subprocess.run(["timeout", "-k", "10", str(timeout)] + command, cwd=cwd, capture_output=True, text=True,
                           errors="replace")
        return r.returncode, r.stdout + r.stderr
    except FileNotFoundError as e:
        return 127, str(e)


def gpu_runs(name, args, nvcc, sanitizer):
    """Builds NAME with nvcc and runs it alone and under each tool: {run: record}."""
    exe = os.path.join(args.work, name)
    src = os.path.join("tests", "runner_suite", name + ".cu")
    build = [nvcc, "-lineinfo", "-arch=" + args.arch, "-o", exe, src]
    commands = {"plain": [exe]}
    for tool in TOOLS:
        commands[tool] = [sanitizer, "--tool", tool, exe]
    def record(code, text, **more):  # a run that timeout ended (124, 137 after its kill) hung
        return dict(program=name, exit=code, timed_out=code in (124, 137), timeout=args.timeout, output=text, **more)

    if args.from_logs:
        records = {run: os.path.join(args.from_logs, "%s.%s.txt" % (name, run)) for run in RUNS}
        for run, path in records.items():
            with open(path, encoding="utf-8", errors="replace") if os.path.isfile(path) else open(os.devnull) as f:
                text = f.read()
            m = re.search(r"^# exit (\d+)", text, re.M)
            records[run] = record(int(m.group(1)) if m else 0, text) if os.path.isfile(path) else None
        return records
    code, text = run_command(build, 600, ROOT)
    if code != 0:
        return {run: dict(record(code, "nvcc failed:\n" + text, build_failed=True), timed_out=False) for run in RUNS}
    records = {}
    for run in RUNS:
        code, text = run_command(commands[run], args.timeout, ROOT)
        with open(os.path.join(args.work, "%s.%s.txt" % (name, run)), "w", encoding="utf-8") as f:
            f.write("# %s\n# exit %d\n%s" % (" ".join(commands[run]), code, text))
        records[run] = record(code, text)
    return records


def runner_results(args, names):
    """{name: [check.py's records, one per order]} or None."""
    if args.no_runner:
        return None
    log = args.runner_log
    if not log:
        cuda_on_cpu = os.path.join(ROOT, "scripts", "cuda_on_cpu")
        if not shutil.which(os.environ.get("CXX", "g++")) or not os.path.isfile(cuda_on_cpu):
            print("sanitizer_table: no g++ or scripts/cuda_on_cpu here and no --runner-log: the runner's column "
                  "says 'not run'", file=sys.stderr)
            return None
        log = os.path.join(args.work, "runner.jsonl")
        subprocess.run([sys.executable, os.path.join(SUITE_DIR, "check.py"), "--build-dir",
                        os.path.join(args.work, "cpu"), "--log", log] + names, cwd=ROOT, stdout=subprocess.DEVNULL)
    results = {}
    with open(log, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                results.setdefault(r["program"], []).append(r)
    return results


def runner_cell(records, name):
    if records is None:
        return NOT_RUN, NOT_RUN
    if not records:
        return "not in the log", "—"
    exits = sorted(set(str(r["exit"]) for r in records))
    findings = {}
    at = re.compile(r"\bat (?:\S*/)?tests/runner_suite/%s\.cu:(\d+)" % re.escape(name))
    for r in records:
        keys = set()
        for block in r["findings"]:
            heading = check.heading_of(block[0][len(check.PREFIX):])
            m = at.search("\n".join(block))
            keys.add(heading + (" @%s" % m.group(1) if m else ""))
        for key in keys:  # in how many orders
            findings[key] = findings.get(key, 0) + 1
    orders = len(records)
    text = "exit %s" % "/".join(exits)
    if findings:
        text += ": " + "; ".join(k + ("" if n >= orders else " (%d of %d orders)" % (n, orders))
                                  for k, n in sorted(findings.items()))
    else:
        text += ", no finding"
    met = sum(r["ok"] for r in records)
    return text, "yes" if met == orders else "no (%d of %d orders)" % (met, orders)


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--out", help="the Markdown table's file (default: standard output)")
    parser.add_argument("--work", default=os.path.join(ROOT, "build", "sanitizer_table"),
                        help="binaries and every tool's output (default: build/sanitizer_table)")
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--timeout", type=int, default=60, help="seconds per run (default 60)")
    parser.add_argument("--jobs", type=int, default=4, help="programs at once on the GPU (default 4)")
    parser.add_argument("--nvcc")
    parser.add_argument("--sanitizer", help="compute-sanitizer's path")
    parser.add_argument("--runner-log", help="check.py --log output to take the runner's results from")
    parser.add_argument("--no-runner", action="store_true", help="leave the runner's columns out")
    parser.add_argument("--cpu-only", action="store_true", help="no GPU tools: the runner's columns only")
    parser.add_argument("--from-logs", help="a WORK folder of an earlier run: render its outputs")
    parser.add_argument("--into", action="append", default=[],
                        help="also put the table between <!-- sanitizer-table:begin --> and <!-- sanitizer-table:end "
                             "--> in this document (repeatable)")
    parser.add_argument("--table", help="with --into: an earlier --out file, put into the documents, nothing run")
    args = parser.parse_args()
    if args.table:
        with open(args.table, encoding="utf-8") as f:
            return put_into(args.into, f.read())
    names = check.programs(args.names)
    expects = {n: check.parse_expectations(os.path.join(SUITE_DIR, n + ".cu")) for n in names}
    os.makedirs(args.work, exist_ok=True)
    args.work = os.path.abspath(args.work)

    gpu = {n: {run: None for run in RUNS} for n in names}
    device = "no GPU tools run"
    if not args.cpu_only:
        nvcc, sanitizer = find_tool("nvcc", args.nvcc), find_tool("compute-sanitizer", args.sanitizer)
        if not args.from_logs and not (nvcc and sanitizer):
            sys.exit("sanitizer_table: nvcc or compute-sanitizer not found (CUDA_HOME, PATH); --cpu-only runs the "
                     "runner alone")
        nvcc, sanitizer = nvcc or "nvcc", sanitizer or "compute-sanitizer"
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for n, records in zip(names, pool.map(lambda n: gpu_runs(n, args, nvcc, sanitizer), names)):
                gpu[n] = records
        if args.from_logs:
            device = "outputs from %s" % args.from_logs
        elif shutil.which("nvidia-smi"):
            r = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                               capture_output=True, text=True)
            device = r.stdout.strip().splitlines()[0] if r.stdout.strip() else "a GPU"
        version = subprocess.run([sanitizer, "--version"], capture_output=True, text=True) \
            if not args.from_logs else None
        if version and version.returncode == 0:
            device += ", " + version.stdout.strip().splitlines()[-1]
    runner = runner_results(args, names)

    out = io.StringIO()
    out.write("<!-- written by tests/runner_suite/sanitizer_table.py (%s, -arch=%s, timeout %d s per run) -->\n\n"
              % (device, args.arch, args.timeout))
    out.write("| program | expected on the runner | memcheck | racecheck | synccheck | initcheck | GPU run "
              "| CPU runner (4 orders) | as expected |\n")
    out.write("|---|---|---|---|---|---|---|---|---|\n")
    for n in names:
        runner_text, met = runner_cell(runner.get(n, []) if runner is not None else None, n)
        cells = [n, check.expectation_text(expects[n])] + [tool_cell(gpu[n][t]) for t in TOOLS] + \
            [plain_cell(gpu[n]["plain"]), runner_text, met]
        if gpu[n]["plain"] and gpu[n]["plain"].get("build_failed"):
            cells[2:7] = ["nvcc failed"] * 5
        out.write("| " + " | ".join(cell(c) for c in cells) + " |\n")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(out.getvalue())
        print("sanitizer_table: wrote %s (%d programs)" % (args.out, len(names)), file=sys.stderr)
    else:
        sys.stdout.write(out.getvalue())
    return put_into(args.into, out.getvalue())


def put_into(documents, table):
    """The table between each document's <!-- sanitizer-table:begin --> and <!-- sanitizer-table:end --> lines."""
    for document in documents:
        with open(document, encoding="utf-8") as f:
            text = between(f.read(), "sanitizer-table", table)
        if text is None:
            sys.exit("sanitizer_table: %s has no <!-- sanitizer-table:begin --> ... end --> block" % document)
        with open(document, "w", encoding="utf-8") as f:
            f.write(text)
        print("sanitizer_table: the table is in %s" % document, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
