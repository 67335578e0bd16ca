#!/usr/bin/env python3
"""The runner suite's driver: every program of tests/runner_suite/ on the CPU runner, in every order.

    python3 tests/runner_suite/check.py [--build-dir DIR] [--orders O,O,...] [--jobs N] [--log FILE]
                                        [--list] [NAME ...]

Each NAME.cu (all of them when no NAME is given) is built once with
`scripts/cuda_on_cpu NAME.cu --build-only -o DIR/NAME`, then run once per thread order (forward,
reverse, random:1, lockstep). Its first comment block says what must happen, in lines like

    // expect: clean
    // expect: exit=1 finding="race on shared memory" line=23
    // expect: exit=3 finding="stack overflow"

(several `// expect:` lines may add findings). A clean program must exit 0 with no finding at all; a
wrong one must exit with its code and print every expected finding: a line `CPU runner: <heading>...`
whose report (that line and the indented lines under it) names `at tests/runner_suite/NAME.cu:LINE`
(the access itself or, for a race, the other access of the pair). Findings beyond the expected ones
are shown as notes, not failures. Exit 0 when every expectation held in every order, 1 otherwise,
2 on bad usage. --log writes one JSON object per run (tests/runner_suite/sanitizer_table.py reads it).
Python 3 standard library only.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SUITE = os.path.relpath(HERE, ROOT)  # tests/runner_suite
ORDERS = ["forward", "reverse", "random:1", "lockstep"]
RUN_TIMEOUT_S = 120
# The headings the runner prints (docs/CPU_RUNNER.md; cpu_runner/runtime.c's kind_names): a `CPU runner:` line
# starting with one of these is a finding.
HEADINGS = (
    "race on shared memory",
    "race on global memory between blocks",
    "read of shared memory that no thread of this block wrote",
    "read of global memory that nothing wrote",
    "shared memory access out of bounds",
    "global memory access out of bounds",
    "divergent barrier",
    "barrier not reached by every thread of the block",
    "warp operation whose mask",
    "misaligned address",
    "invalid memory access",
    "stack overflow",
    "local memory access out of bounds",
    "integer division by zero",
    "illegal instruction",
    "deadlock",
)
PREFIX = "CPU runner: "


def parse_expectations(path):
    """{'exit': int, 'findings': [(heading, line or None)]} from the file's first comment block."""
    exit_code, findings, clean = None, [], False
    with open(path, encoding="utf-8") as f:
        for text in f:
            if not text.startswith("//"):
                break
            if not text.startswith("// expect:"):
                continue
            body = text[len("// expect:"):].strip()
            if body == "clean":
                clean = True
                continue
            m = re.search(r"\bexit=(\d+)", body)
            if m:
                exit_code = int(m.group(1))
            m = re.search(r'\bfinding="([^"]+)"(?:\s+line=(\d+))?', body)
            if m:
                findings.append((m.group(1), int(m.group(2)) if m.group(2) else None))
    if clean:
        if findings or exit_code not in (None, 0):
            raise ValueError("%s: 'clean' with findings or an exit code" % path)
        return {"exit": 0, "findings": [], "clean": True}
    if exit_code is None:
        raise ValueError("%s: no '// expect:' line with exit= (or 'clean')" % path)
    return {"exit": exit_code, "findings": findings, "clean": False}


def expectation_text(e):
    if e["clean"]:
        return "clean"
    parts = ["exit=%d" % e["exit"]]
    for heading, line in e["findings"]:
        parts.append('finding="%s"%s' % (heading, " line=%d" % line if line else ""))
    return " ".join(parts)


def reports(output):
    """The runner's findings in a program's output: [(heading line, [that line + indented lines])]."""
    found, current = [], None
    for line in output.splitlines():
        if line.startswith(PREFIX):
            rest = line[len(PREFIX):]
            current = None
            if rest.startswith(HEADINGS):
                current = (rest, [line])
                found.append(current)
        elif current is not None and line.startswith((" ", "\t")):
            current[1].append(line)
        else:
            current = None
    return found


def heading_of(rest):
    for h in HEADINGS:
        if rest.startswith(h):
            return h
    return rest


def check_run(name, expect, code, output):
    """The list of failed expectations (empty: it held) and notes."""
    problems, notes = [], []
    found = reports(output)
    if code != expect["exit"]:
        problems.append("exit %d, expected %d" % (code, expect["exit"]))
    if expect["clean"]:
        for rest, _ in found:
            problems.append("a finding in a correct program: %s" % rest)
        return problems, notes
    where_re = {}
    for heading, line in expect["findings"]:
        candidates = [(rest, block) for rest, block in found if rest.startswith(heading)]
        if not candidates:
            problems.append('no "%s" finding' % heading)
            continue
        if line is None:
            continue
        pattern = where_re.setdefault(line, re.compile(r"\bat (?:\S*/)?%s:%d\b" % (re.escape(SUITE + "/" + name + ".cu"),
                                                                                     line)))
        if not any(pattern.search("\n".join(block)) for _, block in candidates):
            named = sorted(set(m for _, block in candidates for m in re.findall(r"\bat (\S+:\d+)", "\n".join(block))))
            problems.append('"%s" found, but not at %s/%s.cu:%d (it names %s)' %
                            (heading, SUITE, name, line, ", ".join(named) or "no line"))
    expected = tuple(h for h, _ in expect["findings"])
    for rest, _ in found:
        if not rest.startswith(expected):
            notes.append("also: %s" % heading_of(rest))
    return sorted(set(problems), key=problems.index), sorted(set(notes))


def build(name, build_dir, runner):
    exe = os.path.join(build_dir, name)
    command = [runner, os.path.join(SUITE, name + ".cu"), "--build-only", "-o", exe]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    return exe, result.returncode, result.stdout + result.stderr, command


def run_program(name, expect, build_dir, runner, orders):
    """Builds one program and runs it in each order: a list of records, one per order."""
    exe, code, text, command = build(name, build_dir, runner)
    record = lambda order, code, output, problems, notes=(), findings=(): {  # noqa: E731
        "program": name, "order": order, "exit": code, "ok": not problems, "findings": list(findings),
        "problems": problems, "notes": list(notes), "expect": expectation_text(expect), "output": output}
    records = []
    if code != 0:
        return [record(order, None, text, ["does not build" + (": %s\n%s" % (" ".join(map(shlex.quote, command)),
                                                                             text.strip()) if i == 0 else "")])
                for i, order in enumerate(orders)]
    env = dict(os.environ)
    env.setdefault("CUDA_CPU_SPIN_LIMIT_S", "30")
    for order in orders:
        try:
            result = subprocess.run([exe, "--cpu-order", order], cwd=ROOT, capture_output=True, text=True,
                                    errors="replace", timeout=RUN_TIMEOUT_S, env=env)
            code, output = result.returncode, result.stdout + result.stderr
        except subprocess.TimeoutExpired as e:
            code = -1
            output = (e.stdout or b"").decode("utf-8", "replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            output += "\n(timed out after %d s)" % RUN_TIMEOUT_S
        if code < 0:
            code = 128 - code  # a signal, as a shell shows it
        problems, notes = check_run(name, expect, code, output)
        records.append(record(order, code, output, problems, notes, (block for _, block in reports(output))))
    return records


def programs(names):
    every = sorted(f[:-3] for f in os.listdir(HERE) if f.endswith(".cu"))
    if not names:
        return every
    unknown = [n for n in names if (n[:-3] if n.endswith(".cu") else n) not in every]
    if unknown:
        sys.stderr.write("check.py: no such program in %s: %s\n" % (SUITE, ", ".join(unknown)))
        sys.exit(2)
    return [(n[:-3] if n.endswith(".cu") else n) for n in names]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="programs (NAME or NAME.cu); all when none")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build", "runner_suite"),
                        help="where the built programs go (default: build/runner_suite)")
    parser.add_argument("--runner", default=os.path.join(ROOT, "scripts", "cuda_on_cpu"))
    parser.add_argument("--orders", default=",".join(ORDERS), help="comma-separated (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="programs at once")
    parser.add_argument("--log", help="write one JSON object per run here")
    parser.add_argument("--list", action="store_true", help="print each program's expectation and stop")
    parser.add_argument("--verbose", action="store_true", help="show each failing run's output")
    args = parser.parse_args()
    names = programs(args.names)
    expects = {}
    for n in names:
        try:
            expects[n] = parse_expectations(os.path.join(HERE, n + ".cu"))
        except ValueError as e:
            sys.stderr.write("check.py: %s\n" % e)
            return 2
    if args.list:
        for n in names:
            print("%-32s %s" % (n, expectation_text(expects[n])))
        return 0
    orders = [o for o in args.orders.split(",") if o]
    os.makedirs(args.build_dir, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda n: run_program(n, expects[n], args.build_dir, args.runner, orders), names))
    failed_programs = 0
    log = open(args.log, "w", encoding="utf-8") if args.log else None
    for records in results:
        name = records[0]["program"]
        bad = [r for r in records if not r["ok"]]
        failed_programs += bool(bad)
        print("%s %-32s %s" % ("FAIL" if bad else "ok  ", name, records[0]["expect"]))
        for r in records:
            for p in r["problems"]:
                print("     %-9s %s" % (r["order"], p))
            if r["problems"] and args.verbose:
                print("\n".join("       | " + line for line in r["output"].splitlines()))
        notes = sorted(set(n for r in records for n in r["notes"]))
        if notes:
            print("     (%s)" % "; ".join(notes))
        if log:
            for r in records:
                log.write(json.dumps(r) + "\n")
    if log:
        log.close()
    print("%d of %d programs met their expectations in every order (%s)" %
          (len(results) - failed_programs, len(results), ", ".join(orders)))
    return 1 if failed_programs else 0


if __name__ == "__main__":
    sys.exit(main())
