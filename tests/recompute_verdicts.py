#!/usr/bin/env python3
"""Every verdict a program prints, recomputed from the figures it prints beside it,
so a verdict whose comparison is flipped, or a figure that no longer follows from
the others, fails a test:
- each RESULT line: rel_err from value and expected (|v - e| / |e|, or |v - e| when
  e = 0); a PASS never beside rel_err over tolerance (but for the kernels in
  PASS_BY_REPORTING, which pass by showing their wrong result); a rel_err over the
  tolerance never PASS; gbps = bytes / ms / 1e6 (gflops = flops / ms / 1e6); pct_ceiling = 100 gbps
  (gflops) / the last CEILING line of that name;
- shared_vs_global's tables and verdict: SM GHz = cycles / ns; per SM = GB/s / the
  SMs of the device line; every ratio of the verdict from the table's figures; each
  YES or NO from the program's own thresholds;
- and a figure from all the data it claims: a read's B/clock counts the cycles of its
  longest block, which lasts the kernel's time but for the launch, so per SM / B/clock
  (the cycles over the kernel's ms) is the walks' SM clock, less at most 5 % and
  10 us of its RESULT line's ms. The cycles of one block (or of some) fall short.

    recompute_verdicts.py FILE...            (a program's output, or examples.log)
    recompute_verdicts.py --run PROGRAM ARGS (runs it; its exit 77 is passed on)
    recompute_verdicts.py --self-test FILE   (plants a wrong figure or verdict in each
                                              kind of line of FILE: each must be found;
                                              some just past the slack, a few times over it)
Exit 0: every verdict follows from its figures; 1: what does not, one line each.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scripts"))
from results import fields, number  # noqa: E402
import testkit  # noqa: E402  (beside this file)

PASS_BY_REPORTING = {("shared_bitmap", "no_sync")}  # the race on purpose: it passes by counting wrong pixels
MUCH_LOWER = 2.0  # shared_vs_global's LATENCY_RATIO_MUCH_LOWER
REGISTER_LIKE = 1.5  # shared_vs_global's REGISTER_LIKE_RATIO
HUNDRED = 100.0
COVER_SLACK, LAUNCH_US = 0.05, 10.0  # the longest block's cycles: the kernel's time less its launch
READ_KERNELS = (("shared memory", "bandwidth_shared"), ("global, L2", "bandwidth_l2"), ("global, DRAM", "bandwidth_dram"))


def close(printed, computed, decimals):
    """printed, rounded to `decimals` places (or 3 significant digits, whichever is looser), equals computed."""
    if printed is None or computed is None:
        return True
    slack = max(0.5 * 10 ** -decimals, 0.0051 * abs(computed)) * 1.01 + 1e-12
    return abs(printed - computed) <= slack


def decimals_of(text):
    text = text.lower().split("e")[0]
    return len(text.split(".")[1]) if "." in text else 0


def printed(text):
    """A printed figure as (value, half a unit of its last digit): the interval it stands for."""
    value = number(text)
    return None if value is None else (value, 0.5 * 10 ** -decimals_of(text))


def quotient_holds(shown, a, b):
    """The printed quotient `shown` can be a / b rounded, a and b being printed figures (value, half)."""
    if shown is None or a is None or b is None or b[0] - b[1] <= 0:
        return True
    low = (a[0] - a[1]) / (b[0] + b[1])
    high = (a[0] + a[1]) / (b[0] - b[1])
    return low - shown[1] * 1.001 - 1e-12 <= shown[0] <= high + shown[1] * 1.001 + 1e-12


def check_result_lines(lines):
    problems, ceilings = [], {}
    for i, line in enumerate(lines, 1):
        f = fields(line) or {}
        if f.get("record") == "CEILING":
            ceilings[f.get("name")] = number(f.get("gbps") if "gbps" in f else f.get("gflops"))  # GB/s, or a peak
        if f.get("record") != "RESULT":
            continue
        where = f"line {i}: {f.get('example')} {f.get('kernel')} {f.get('type')} n={f.get('n')}"
        value, expected, rel_err, tolerance = (number(f.get(k)) for k in ("value", "expected", "rel_err", "tolerance"))
        if value is not None and expected is not None and rel_err is not None:
            computed = abs(value - expected) / abs(expected) if expected else abs(value - expected)
            if not (abs(rel_err - computed) <= 0.006 * max(rel_err, computed) + 1e-300
                    or abs(rel_err - computed) <= 1e-12):
                problems.append(f"{where}: rel_err={f['rel_err']}, but value and expected give {computed:.3g}")
        status = f.get("status")
        if rel_err is not None and tolerance is not None:
            over = rel_err > tolerance
            if status == "PASS" and over and (f.get("example"), f.get("kernel")) not in PASS_BY_REPORTING:
                problems.append(f"{where}: PASS with rel_err {f['rel_err']} over tolerance {f['tolerance']}")
        if status not in ("PASS", "FAIL"):
            problems.append(f"{where}: status={status}, neither PASS nor FAIL")
        nbytes, ms, gbps = number(f.get("bytes")), number(f.get("ms")), number(f.get("gbps"))
        if nbytes and ms and gbps is not None and not close(gbps, nbytes / ms / 1e6, decimals_of(f["gbps"])):
            problems.append(f"{where}: gbps={f['gbps']}, but bytes / ms gives {nbytes / ms / 1e6:.1f}")
        flops, gflops = number(f.get("flops")), number(f.get("gflops"))
        if flops and ms and gflops is not None and not close(gflops, flops / ms / 1e6, decimals_of(f["gflops"])):
            problems.append(f"{where}: gflops={f['gflops']}, but flops / ms gives {flops / ms / 1e6:.1f}")
        rate = gflops if "gflops" in f else gbps  # a row that counts FLOPs is a share of a peak in GFLOP/s
        pct, ceiling = number(f.get("pct_ceiling")), ceilings.get(f.get("ceiling"))
        if pct is not None and rate is not None:
            if not ceiling:
                problems.append(f"{where}: pct_ceiling={f['pct_ceiling']} of ceiling '{f.get('ceiling')}', "
                                "which no CEILING line before it measured")
            elif not close(pct, 100 * rate / ceiling, decimals_of(f["pct_ceiling"])):
                problems.append(f"{where}: pct_ceiling={f['pct_ceiling']}, but 100 x {rate} / {ceiling} gives "
                                f"{100 * rate / ceiling:.2f}")
    return problems


ROW = re.compile(r"^  (shared memory|global, L1 hit|global, L2 hit|global, DRAM|register: one FMA|global, L2|"
                 r"shared memory \(a|global, DRAM \()")


def shared_vs_global_runs(lines):
    """Each run's (first line index, lines) from its 'Latency:' table to the end of its verdict."""
    runs, start = [], None
    for i, line in enumerate(lines):
        if line.startswith("Latency: one thread"):
            start = i
        if start is not None and (line.startswith("RESULT ") or i == len(lines) - 1):
            runs.append((start, lines[start:i + 1]))
            start = None
    return runs


def figures_of(run):
    """{'latency': {label: (cycles, ns, ghz)}, 'bandwidth': {label: (gbps, per_sm, per_clock)}}."""
    tables, table = {"latency": {}, "bandwidth": {}}, None
    for line in run:
        if line.startswith("Latency:"):
            table = "latency"
        elif line.startswith("Bandwidth:"):
            table = "bandwidth"
        elif table and line.startswith("  ") and not line.startswith("  ("):
            parts = line.split()
            values = [number(p) for p in parts[-3:]]
            if None in values:
                table = None
                continue
            label = line[2:].split("  ")[0].strip()
            tables[table][label] = [printed(p) for p in parts[-3:]]
        else:
            table = None
    return tables


def find(table, prefix):
    for label, figures in table.items():
        if label.startswith(prefix):
            return figures
    return None


def check_shared_vs_global(lines):
    problems = []
    sms = None
    for line in lines:
        m = re.search(r", (\d+) SMs,", line)
        if m:
            sms = int(m.group(1))
    for start, run in shared_vs_global_runs(lines):
        where = f"shared_vs_global at line {start + 1}"
        t = figures_of(run)
        for label, (cycles, ns, ghz) in t["latency"].items():
            if not quotient_holds(ghz, cycles, ns):
                problems.append(f"{where}: {label}: SM GHz {ghz[0]}, but cycles / ns gives {cycles[0] / ns[0]:.3f}")
        for label, (gbps, per_sm, _) in t["bandwidth"].items():
            if sms and not quotient_holds(per_sm, gbps, (sms, 0)):
                problems.append(f"{where}: {label}: {per_sm[0]} GB/s per SM, but {gbps[0]} / {sms} SMs gives "
                                f"{gbps[0] / sms:.2f}")
        problems += [f"{where}: {problem}" for problem in blocks_cover_kernels(t, results_after(lines, start))]
        c = {k: (find(t["latency"], p) or [None])[0] for k, p in
             (("shared", "shared memory"), ("l1", "global, L1"), ("l2", "global, L2 hit"),
              ("dram", "global, DRAM"), ("fma", "register"))}
        g = {k: (find(t["bandwidth"], p) or [None, None])[1] for k, p in
             (("shared", "shared memory"), ("l2", "global, L2"), ("dram", "global, DRAM"))}
        text = "\n".join(run)
        expected = []  # (what, the printed ratio pattern's value or verdict, computed)

        def ratio(a, b):
            return a[0] / b[0] if a is not None and b is not None and b[0] else None

        m = re.search(r"a shared-memory load takes [\d.]+ cycles \([\d.]+ ns\), ([\d.]+) times less than an L2 hit"
                      r"\s+\([\d.]+ cycles\) and ([\d.]+) times less than DRAM", text)
        if m:
            expected += [("latency vs L2", m.group(1), c["l2"], c["shared"]),
                         ("latency vs DRAM", m.group(2), c["dram"], c["shared"])]
        m = re.search(r"an L1 hit takes [\d.]+ cycles, ([\d.]+) times a", text)
        if m:
            expected.append(("L1 vs shared", m.group(1), c["l1"], c["shared"]))
        m = re.search(r"lasts as long as ([\d.]+) of them", text)
        if m:
            expected.append(("shared vs FMA", m.group(1), c["shared"], c["fma"]))
        m = re.search(r"bandwidth per SM: shared memory [\d.]+ GB/s \([\d.]+ bytes a clock\), ([\d.]+) times the "
                      r"L2's \([\d.]+ GB/s\)\s+and ([\d.]+) times DRAM's", text)
        if m:
            expected += [("bandwidth vs L2", m.group(1), g["shared"], g["l2"]),
                         ("bandwidth vs DRAM", m.group(2), g["shared"], g["dram"])]
        for what, shown, a, b in expected:
            if not quotient_holds(printed(shown), a, b):
                problems.append(f"{where}: {what}: printed {shown}, the table's figures give {ratio(a, b):.3f}")

        verdicts = []
        latency, bandwidth = ratio(c["dram"], c["shared"]), ratio(g["shared"], g["dram"])
        if latency is not None and bandwidth is not None:
            verdicts.append(("hundred times faster", latency >= HUNDRED or bandwidth >= HUNDRED))
        if ratio(c["shared"], c["fma"]) is not None:
            verdicts.append(("as fast as registers", ratio(c["shared"], c["fma"]) <= REGISTER_LIKE))
        if ratio(c["l2"], c["shared"]) is not None:
            verdicts.append(("much lower latency", ratio(c["l2"], c["shared"]) >= MUCH_LOWER))
        for claim, holds in verdicts:
            m = re.search(re.escape(claim) + r"[^:]*\"[^:]*: (YES|NO):", text)
            if not m:
                problems.append(f"{where}: no verdict line for the claim '{claim}'")
            elif (m.group(1) == "YES") != holds:
                problems.append(f"{where}: claim '{claim}': {m.group(1)}, but the figures say "
                                f"{'YES' if holds else 'NO'}")
    return problems


def results_after(lines, start):
    """{kernel: ms} of the shared_vs_global RESULT lines after line `start`, up to the next run."""
    ms = {}
    for line in lines[start + 1:]:
        if line.startswith("Latency: one thread"):
            break
        f = fields(line) or {}
        if f.get("record") == "RESULT" and f.get("example") == "shared_vs_global" and number(f.get("ms")):
            ms[f.get("kernel")] = number(f["ms"])
    return ms


def blocks_cover_kernels(t, ms):
    """Each read's B/clock from its longest block's cycles: per SM / B/clock, the cycles over the kernel's time,
    is the walks' SM clock but for the launch (within COVER_SLACK and LAUNCH_US of the kernel's ms), never more."""
    clocks = [ghz for _, _, ghz in t["latency"].values() if ghz]
    if not clocks:
        return []
    slowest, fastest = min(c[0] - c[1] for c in clocks), max(c[0] + c[1] for c in clocks)
    problems = []
    for prefix, kernel in READ_KERNELS:
        figures = find(t["bandwidth"], prefix)
        if not figures or kernel not in ms or figures[2][0] - figures[2][1] <= 0:
            continue
        (per_sm, h), (per_clock, k) = figures[1], figures[2]
        low, high = (per_sm - h) / (per_clock + k), (per_sm + h) / (per_clock - k)
        least = slowest * (1 - COVER_SLACK - LAUNCH_US / (1000 * ms[kernel]))
        if high < least:
            problems.append(f"{kernel}: {per_clock} B/clock counts {per_sm / per_clock:.2f} GHz over its "
                            f"{ms[kernel]} ms, the SM {slowest:.2f}: its cycles do not cover the kernel (one "
                            "block's, not the longest?)")
        elif low > fastest * 1.02:
            problems.append(f"{kernel}: {per_clock} B/clock counts {per_sm / per_clock:.2f} GHz over its "
                            f"{ms[kernel]} ms, the SM {fastest:.2f}: cycles longer than the kernel")
    return problems


def check(lines):
    return check_result_lines(lines) + check_shared_vs_global(lines)


def self_test(path):
    """Each kind of wrong figure or verdict, planted in a copy of FILE's lines, must be found."""
    lines = open(path, encoding="utf-8").read().split("\n")
    if check(lines):
        print(f"self-test: {path} is not clean to begin with")
        return 1

    def plant(pattern, replace):
        for i, line in enumerate(lines):
            changed = re.sub(pattern, replace, line, count=1)
            if changed != line:
                return lines[:i] + [changed] + lines[i + 1:]
        return None

    plants = {
        "rel_err": (r"(RESULT .*value=)(\d+)( expected=\2 )", lambda m: m.group(1) + str(int(m.group(2)) * 2 + 1) +
                    m.group(3)),
        "PASS with rel_err": (r"(RESULT .*rel_err=)0( tolerance=0 .*status=)PASS", r"\g<1>1\g<2>PASS"),
        "bytes / ms": (r"(RESULT .*gbps=)(\d+)\.", lambda m: m.group(1) + str(int(m.group(2)) * 2 + 1) + "."),
        "pct_ceiling": (r"(RESULT .*pct_ceiling=)(\d+)\.", lambda m: m.group(1) + str(int(m.group(2)) + 7) + "."),
        "which no CEILING": (r"^CEILING (.*)name=read ", r"CEILING \1name=elsewhere "),
        "SM GHz": (r"^(  shared memory \(a .* chain\) .* )(\d)\.(\d\d)$", r"\g<1>9.\3"),
        "per SM": (r"^(  global, DRAM \(.*read once\)\s+[\d.]+\s+)(\d+)\.", lambda m: m.group(1) +
                   str(int(m.group(2)) + 9) + "."),
        "latency vs L2": (r"(\), )([\d.]+)( times less than an L2 hit)", r"\g<1>99.9\3"),
        "shared vs FMA": (r"(lasts as long as )([\d.]+)", r"\g<1>0.5"),
        "bandwidth vs DRAM": (r"(    and )([\d.]+)( times DRAM's)", r"\g<1>999.0\3"),
        "do not cover the kernel": (r"^(  shared memory \(a .* tile per block\)\s+[\d.]+\s+[\d.]+\s+)(\d+)\.",
                                    lambda m: m.group(1) + str(int(m.group(2)) * 2) + "."),
        "longer than the kernel": (r"^(  global, DRAM \(.*read once\)\s+[\d.]+\s+[\d.]+\s+)(\d+)\.",
                                   lambda m: m.group(1) + str(int(m.group(2)) // 2) + "."),
        "'hundred times faster'": (r"(上百倍快\): )NO:", r"\1YES:"),
        "'as fast as registers'": (r"(堪比寄存器\): )NO:", r"\1YES:"),
        "'much lower latency'": (r"(than global memory\": )YES:", r"\1NO:"),
    }
    # Just past each slack (a few times over it, under ten times): found only while the slack is as tight as stated.
    near = {
        "rel_err=": (r"(RESULT .*rel_err=)([1-9][\d.]*e-\d+)( )", lambda m: m.group(1) +
                     "%.3g" % (float(m.group(2)) * 1.03) + m.group(3)),
        "but bytes / ms": (r"(RESULT .*gbps=)(\d+\.\d)( )", lambda m: m.group(1) + "%.1f" % (float(m.group(2)) * 1.02) +
                           m.group(3)),
        "latency vs L2:": (r"(\), )([\d.]+)( times less than an L2 hit)", lambda m: m.group(1) +
                           "%.1f" % (float(m.group(2)) + 0.2) + m.group(3)),
        "cover the kernel": (r"^(  global, L2 \(.*read by every block\)\s+[\d.]+\s+[\d.]+\s+)([\d.]+)$",
                             lambda m: m.group(1) + "%.1f" % (float(m.group(2)) * 1.15)),
    }
    return testkit.planted({**plants, **near}, lambda edit: None if plant(*edit) is None else check(plant(*edit)), path)


def main(argv):
    if len(argv) >= 2 and argv[0] == "--self-test":
        return max(self_test(path) for path in argv[1:])
    if len(argv) >= 2 and argv[0] == "--run":
        run = subprocess.run(argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        sys.stdout.write(run.stdout)
        if run.returncode == 77:
            return 77
        lines, sources = run.stdout.split("\n"), [" ".join(argv[1:])]
        if run.returncode != 0:
            print(f"recompute_verdicts: the program exited {run.returncode}")
            return 1
    elif argv and not argv[0].startswith("-"):
        lines, sources = [], argv
        for path in argv:
            lines += open(path, encoding="utf-8").read().split("\n")
    else:
        print(__doc__.strip().split("\n\n")[-2], file=sys.stderr)
        return 2
    problems = check(lines)
    for problem in problems:
        print(problem)
    results = sum(1 for line in lines if (fields(line) or {}).get("record") == "RESULT")
    runs = len(shared_vs_global_runs(lines))
    if problems:
        return 1
    print(f"recompute_verdicts: {results} RESULT lines and {runs} shared_vs_global verdicts follow from their figures "
          f"({', '.join(sources)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
