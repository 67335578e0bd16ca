#!/usr/bin/env python3
"""Checks what a program's bank model predicts (no GPU needed).

    expect_bank_model.py PROGRAM [ARGS...] -- CHECK...

runs `PROGRAM ARGS --bank-model` (common/bank_model.h: the CPU runner's count, one line per shared-memory
instruction and shape of warp: kernel, access, op, bytes, passes, weight, picture, lanes) and checks each
CHECK:
    KERNEL:ld=V        the kernel's loads take V passes per warp instruction (passes weighted
    KERNEL:st=V        by how often a block executes each pattern; within 0.005)
    KERNEL/ACCESS=P    the instruction pattern named ACCESS takes P passes (every line of it; P,Q,...:
                       its lines take exactly these passes, as launches with other arguments do)
Exit 0 when every check holds, 1 (one line per failed check) when one does not, 2 on bad use.

    expect_bank_model.py --measured PROGRAM [ARGS...] -- CHECK...

holds the same KERNEL:ld=V and KERNEL:st=V checks against the GPU instead: Nsight Compute's
SASS-level wavefront count per instruction (scripts/bank_conflicts.sh), within 2 % of V, and
no row where that count and the model differ but those a check KERNEL:ld=differs (st) names: a
difference the test states, which fails once the two agree, so that the list cannot go stale. So a slip in the kernel's padding fails even
where the model slipped with it. KERNEL/ACCESS checks are the model's alone (ncu counts per
kernel). A check of KERNEL<double> (or <float>) that the run did not launch is measured on
a second run with --type double (or float). Exit 77 (skipped, with the reason) without a GPU, ncu, the SASS-level counter, or
leave to read the GPU's counters.

    expect_bank_model.py --committed PROGRAM_CPU [KNOWN...]

runs, for every command of PROGRAM's chapter that a committed Nsight table shows (docs/results/*/banks.txt:
`build-gpu/CHAPTER/PROGRAM ARGS` under Nsight Compute), `PROGRAM_CPU ARGS --bank-model`, and holds each
kernel's loads and stores, passes per warp instruction, to that table's "predicted" column (two decimals)
and to its SASS-level count. KNOWN: KERNEL:ld or KERNEL:st rows whose difference the test states (and
prints); a known row that agrees fails, so the list cannot go stale. A run of the CPU twin that two commands
share (`ARGS`'s " --type double" variant and `ARGS --type double`) is made once (BANK_MODEL_KEEP).

    expect_bank_model.py --observed PROGRAM [ARGS...]

holds the table (--bank-model: the runner's shapes of each warp instruction) to the runner's own
per-line totals of a `PROGRAM ARGS --check` run with CUDA_CPU_ACCESSES set (PROGRAM: a CPU twin). For
every kernel of the run's --type (float by default) and each of ld and st, the warp instructions and
their passes, added over the launch, must be the table's (its weights, and passes times weights),
exactly: a shape miscounted changes the count even where it leaves the average as it was. A kernel
the runner saw that the table does not list fails too.
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "scripts"))
from results import bank_conflicts_table, bank_model_row, number  # noqa: E402


MODELS = {}  # a command's table, once per process: check_predictions.py asks for `banks` twice


def model(command, env=None):
    if tuple(command) in MODELS:
        return MODELS[tuple(command)]
    run = subprocess.run(command + ["--bank-model"], capture_output=True, text=True, timeout=900,
                         env=env)  # the CPU runner
    if run.returncode != 0:
        sys.exit("expect_bank_model: %s --bank-model exited %d: %s"
                 % (" ".join(command), run.returncode, run.stderr.strip()[:300]))
    rows = filter(None, map(bank_model_row, run.stdout.splitlines()))
    return MODELS.setdefault(tuple(command), [(r["kernel"], r["access"], r["op"], int(r["passes"]), int(r["weight"]))
                                              for r in rows])


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
    """{(kernel, op): [warp instructions, passes]} the runner's per-line totals of `command --check`, a kernel
    named as it was launched, before any template arguments (the book's transpose_padded and the timed
    transpose_padded<real> alike), and the run's --type."""
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
    totals = {}
    for line in text.splitlines():
        m = OBSERVED.match(line)
        if m:
            total = totals.setdefault((m.group(4).split("<")[0], m.group(1)), [0, 0])
            total[0] += int(m.group(2))
            total[1] += int(m.group(3))
    return element, totals


def main_observed(command):
    if not command:
        print(__doc__, file=sys.stderr)
        return 2
    element, seen = observed(command)
    modelled = {}
    for kernel, _, op, passes, weight in model(command + ["--type", element] if "--type" not in command else command):
        total = modelled.setdefault((kernel.split("<")[0], op), [0, 0])
        total[0] += weight
        total[1] += passes * weight
    failed = 0
    for key in sorted(set(seen) | set(modelled)):
        model_says, runner_says = modelled.get(key, [0, 0]), seen.get(key, [0, 0])
        if model_says != runner_says:
            failed += 1
            print("FAIL %s:%s: the table says %d warp instructions, %d passes; the runner's totals %d, %d"
                  % (key + tuple(model_says) + tuple(runner_says)))
    if not failed:
        print("--bank-model = the runner's per-line totals: %d kernel instructions (ld, st) of <%s>, warp for warp"
              % (len(modelled), element))
    return 1 if failed else 0


def main_committed(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    program, known = argv[0], set(argv[1:])
    name = os.path.basename(program)[:-len("_cpu")] if program.endswith("_cpu") else os.path.basename(program)
    results = os.path.join(HERE, os.pardir, "docs", "results")
    commands = {}  # ARGS: [(file, its table)], one run per command
    for device in sorted(os.listdir(results)):
        path = os.path.join(results, device, "banks.txt")
        if not os.path.exists(path):
            continue
        for section in open(path, encoding="utf-8").read().split("\n`"):
            m = re.match(r"`?build-gpu/\w+/(\w+)((?: \S+)*)` under Nsight Compute:", section)
            if m and m.group(1) == name:
                cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in section.split("\n")
                         if line.startswith("| ")]  # header, rule, then a row per kernel
                predicted = [i for i, name in enumerate(cells[0]) if name == "predicted"] if cells else []
                if len(predicted) == 2:  # the loads' and the stores' columns
                    commands.setdefault(tuple(m.group(2).split()), []).append(
                        ("%s/banks.txt" % device, [(row[0], dict(zip(("ld", "st"), (row[i] for i in predicted))))
                                                   for row in cells[2:]]))
    if not commands:
        print("expect_bank_model --committed: no committed Nsight table of %s" % name, file=sys.stderr)
        return 2
    failed, held, stated = 0, 0, set()
    keep = tempfile.TemporaryDirectory()  # BANK_MODEL_KEEP: a run of the same arguments is made once
    for args, tables in sorted(commands.items()):
        lines = model([program] + list(args), dict(os.environ, BANK_MODEL_KEEP=keep.name))
        for source, table in tables:
            for kernel, row in table:
                for op in ("ld", "st"):
                    committed = number(row[op])
                    if committed is None:
                        continue
                    got = per_instruction(lines, kernel, op)
                    key = "%s:%s" % (kernel, op)
                    agrees = got is not None and abs(got - committed) <= 0.005 + 1e-9
                    if key in known:
                        stated.add(key)
                        if agrees:
                            failed += 1
                            print("FAIL %s %s: listed as known to differ, but the runner gives the committed %.2f"
                                  % (source, key, committed))
                        else:
                            print("known %s %s: committed %.2f, the runner %s" % (source, key, committed,
                                  "nothing" if got is None else "%.3f" % got))
                        continue
                    held += agrees
                    if not agrees:
                        failed += 1
                        print("FAIL %s `%s %s` %s: committed %.2f, the runner's model %s"
                              % (source, name, " ".join(args), key, committed,
                                 "nothing (no such instruction)" if got is None else "%.3f" % got))
    keep.cleanup()
    for key in sorted(known - stated):
        failed += 1
        print("FAIL %s: listed as known, but no committed table has it" % key)
    if not failed:
        print("bank model = the committed tables: %d figures of %d commands of %s" % (held, len(commands), name))
    return 1 if failed else 0


def main(argv):
    if argv and argv[0] == "--committed":
        return main_committed(argv[1:])
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
        if value == "differs":  # a stated difference: its row must be among the disagreements
            kernel, op = target.rsplit(":", 1)
            row = "%s, %s: predicted" % (kernel, "loads" if op == "ld" else "stores")
            known = [line for line in disagreements if line.startswith(row)]
            if not known:
                failed += 1
                print("FAIL %s: listed as differing, but the model equals the SASS-level count" % check)
            for line in known:
                print("known difference: %s" % line)
                disagreements.remove(line)
            continue
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
