#!/usr/bin/env python3
"""Checks what a program's bank model predicts (no GPU needed).

    expect_bank_model.py PROGRAM [ARGS...] -- CHECK...

runs `PROGRAM ARGS --bank-model` (common/bank_model.h prints one line per shared-memory
instruction pattern: kernel, access, op, bytes, passes, weight, picture, lanes) and checks each
CHECK:
    KERNEL:ld=V        the kernel's loads take V passes per warp instruction (passes weighted
    KERNEL:st=V        by how often a block executes each pattern; within 0.005)
    KERNEL/ACCESS=P    the instruction pattern named ACCESS takes P passes (every line of it; P,Q,...:
                       its lines take exactly these passes, as launches with other arguments do)
Exit 0 when every check holds, 1 (one line per failed check) when one does not, 2 on bad use.

    expect_bank_model.py --measured PROGRAM [ARGS...] -- CHECK...

holds the same KERNEL:ld=V and KERNEL:st=V checks against the GPU instead: Nsight Compute's
SASS-level wavefront count per instruction (scripts/bank_conflicts.sh), within 2 % of V, and
no row where that count and the model differ. So a slip in the kernel's padding fails even
where the model slipped with it. KERNEL/ACCESS checks are the model's alone (ncu counts per
kernel). A check of KERNEL<double> (or <float>) that the run did not launch is measured on
a second run with --type double (or float). Exit 77 (skipped, with the reason) without a GPU, ncu, the SASS-level counter, or
leave to read the GPU's counters.

    expect_bank_model.py --observed PROGRAM [ARGS...]

holds the model against the CPU runner instead (no GPU): PROGRAM is the chapter's CPU twin, run as
`PROGRAM ARGS --check` with CUDA_CPU_ACCESSES set, so that cpu_runner/warp_accesses.c sees every
shared-memory access and puts the warps' instructions back together. For every kernel of the run's --type (float by default) and each of ld
and st, the warp instructions and their passes, added over the launch, must be the model's (its weights,
and passes times weights), exactly: an edge tile's lanes counted wrong change the count even where they
leave the average as it was. A kernel the runner saw that the model does not list fails too.
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scripts"))
from results import bank_conflicts_table, bank_model_row, number  # noqa: E402


def model(command):
    run = subprocess.run(command + ["--bank-model"], capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        sys.exit("expect_bank_model: %s --bank-model exited %d: %s"
                 % (" ".join(command), run.returncode, run.stderr.strip()[:300]))
    rows = filter(None, map(bank_model_row, run.stdout.splitlines()))
    return [(r["kernel"], r["access"], r["op"], int(r["passes"]), int(r["weight"])) for r in rows]


def per_instruction(lines, kernel, op):
    rows = [(p, w) for k, _, o, p, w in lines if k == kernel and o == op]
    total = sum(w for _, w in rows)
    return sum(p * w for p, w in rows) / total if total else None


def measured(command):
    """{(kernel, op): SASS-counted wavefronts per instruction} and the rows ncu and the model disagree on."""
    script = os.environ.get("BANK_CONFLICTS_SH", os.path.join(HERE, "..", "scripts", "bank_conflicts.sh"))
    run = subprocess.run(["sh", script] + command, capture_output=True, text=True, timeout=900)
    if run.returncode == 77 or "ERR_NVGPUCTRPERM" in run.stdout + run.stderr:
        reason = "no leave to read the GPU's counters (ERR_NVGPUCTRPERM)" if run.returncode != 77 else \
            run.stderr.strip()
        print("expect_bank_model --measured: skipped: %s" % reason)
        sys.exit(77)
    if run.returncode != 0:
        sys.exit("expect_bank_model --measured: bank_conflicts.sh exited %d: %s"
                 % (run.returncode, (run.stderr or run.stdout).strip()[-600:]))
    print(run.stdout)
    header, table = bank_conflicts_table(run.stdout)
    if "SASS per load" not in header:
        print("expect_bank_model --measured: skipped: this ncu has no SASS-level wavefront counter")
        sys.exit(77)
    counts = {(kernel, op): number(row["SASS per " + name]) for kernel, row in table.items()
              for op, name in (("ld", "load"), ("st", "store")) if number(row["SASS per " + name]) is not None}
    disagreements = [line[2:] for line in run.stdout.splitlines() if line.startswith("- ") and "predicted" in line]
    return counts, disagreements


OBSERVED = re.compile(r"^code \S+ space shared op (ld|st) bytes \d+ warps (\d+) passes (\d+) .*\bkernel (\S+)")


def observed(command):
    """{(kernel, op): [warp instructions, passes]} the runner saw in `command --check`, a template's <real>
    named by the run's --type; and the kernels it saw that are not templates (the book's program's)."""
    element = command[command.index("--type") + 1] if "--type" in command[:-1] else "float"
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "banks.txt")
        run = subprocess.run(command + ["--check"], env=dict(os.environ, CUDA_CPU_ACCESSES=path),
                             capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            sys.exit("expect_bank_model --observed: %s --check exited %d: %s"
                     % (" ".join(command), run.returncode, (run.stdout + run.stderr).strip()[-600:]))
        text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    if "dropped" in text or not text:
        sys.exit("expect_bank_model --observed: %s counted %s: is it a CPU twin (cpu_runner/warp_accesses.c counts)?"
                 % (command[0], "too many accesses (dropped)" if text else "nothing"))
    totals, plain = {}, set()
    for line in text.splitlines():
        m = OBSERVED.match(line)
        if not m:
            continue
        op, warps, passes, kernel = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        if "<real>" not in kernel:
            plain.add(kernel)
            continue
        total = totals.setdefault((kernel.replace("<real>", "<%s>" % element), op), [0, 0])
        total[0] += warps
        total[1] += passes
    return element, totals, plain


def main_observed(command):
    if not command:
        print(__doc__, file=sys.stderr)
        return 2
    element, seen, plain = observed(command)
    modelled = {}
    for kernel, _, op, passes, weight in model(command):
        if kernel.endswith("<%s>" % element):
            total = modelled.setdefault((kernel, op), [0, 0])
            total[0] += weight
            total[1] += passes * weight
    failed = 0
    for key in sorted(set(seen) | set(modelled)):
        model_says, runner_says = modelled.get(key, [0, 0]), seen.get(key, [0, 0])
        if model_says != runner_says:
            failed += 1
            print("FAIL %s:%s: the model says %d warp instructions, %d passes; the runner saw %d, %d"
                  % (key + tuple(model_says) + tuple(runner_says)))
    if not failed:
        print("bank model = the runner's observation: %d kernel instructions (ld, st) of <%s>, warp for warp%s"
              % (len(modelled), element, " (not modelled: %s)" % ", ".join(sorted(plain)) if plain else ""))
    return 1 if failed else 0


def main(argv):
    if argv and argv[0] == "--measured":
        return main_measured(argv[1:])
    if argv and argv[0] == "--observed":
        return main_observed(argv[1:])
    if "--" not in argv or argv.index("--") == 0 or argv.index("--") == len(argv) - 1:
        print(__doc__, file=sys.stderr)
        return 2
    split = argv.index("--")
    lines = model(argv[:split])
    failed = 0
    for check in argv[split + 1:]:
        target, _, value = check.rpartition("=")
        if ":" in target and target.rsplit(":", 1)[1] in ("ld", "st"):
            kernel, op = target.rsplit(":", 1)
            got = per_instruction(lines, kernel, op)
            good = got is not None and abs(got - float(value)) <= 0.005
            shown = "no %s instruction" % op if got is None else "%.3f" % got
        elif "/" in target:
            kernel, access = target.split("/", 1)
            got = sorted({p for k, a, _, p, _ in lines if k == kernel and a == access})
            good = got == sorted(int(v) for v in value.split(","))
            shown = "no such access" if not got else ", ".join(map(str, got))
        else:
            print("expect_bank_model: cannot read check '%s'" % check, file=sys.stderr)
            return 2
        if not good:
            failed += 1
            print("FAIL %s: the model says %s" % (check, shown))
    if not failed:
        print("bank model: %d checks hold" % (len(argv) - split - 1))
    return 1 if failed else 0


def main_measured(argv):
    if "--" not in argv or argv.index("--") == 0 or argv.index("--") == len(argv) - 1:
        print(__doc__, file=sys.stderr)
        return 2
    split = argv.index("--")
    command = argv[:split]
    counts, disagreements = measured(command)
    # --bank-model models both element types whatever --type says; a run launches one. A check
    # of a type the run did not launch is measured on a second run of that --type.
    for element in sorted({m.group(1) for check in argv[split + 1:] for m in [re.search(r"<(float|double)\b", check)]
                           if m}):
        if "--type" not in command and not any("<%s" % element in kernel for kernel, _ in counts):
            more, more_disagreements = measured(command + ["--type", element])
            counts.update(more)
            disagreements += more_disagreements
    failed, checked = 0, 0
    for check in argv[split + 1:]:
        target, _, value = check.rpartition("=")
        if "/" in target.split(":")[0] or not re.search(r":(ld|st)$", target):
            continue  # a single access: the model's claim alone
        kernel, op = target.rsplit(":", 1)
        got = counts.get((kernel, op))
        checked += 1
        if got is None or abs(got - float(value)) > 0.02 * float(value):
            failed += 1
            print("FAIL %s: Nsight Compute's SASS-level count says %s" % (
                check, "nothing (no such kernel or no instruction)" if got is None else "%.2f" % got))
    for line in disagreements:
        failed += 1
        print("FAIL the model and the SASS-level count differ: %s" % line)
    if checked == 0:
        print("expect_bank_model --measured: no KERNEL:ld/st check to measure", file=sys.stderr)
        return 2
    if not failed:
        print("bank claims on the GPU: %d checks hold, and the model equals the SASS-level count in every row" % checked)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
