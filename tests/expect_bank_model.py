#!/usr/bin/env python3
"""Checks what a program's bank model predicts (no GPU needed).

    expect_bank_model.py PROGRAM [ARGS...] -- CHECK...

runs `PROGRAM ARGS --bank-model` (common/bank_model.h prints one line per shared-memory
instruction pattern: kernel, access, op, bytes, passes, weight, picture, lanes) and checks each
CHECK:
    KERNEL:ld=V        the kernel's loads take V passes per warp instruction (passes weighted
    KERNEL:st=V        by how often a block executes each pattern; within 0.005)
    KERNEL/ACCESS=P    the instruction pattern named ACCESS takes P passes (every line of it)
Exit 0 when every check holds, 1 (one line per failed check) when one does not, 2 on bad use.
"""
import subprocess
import sys


def model(command):
    run = subprocess.run(command + ["--bank-model"], capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        sys.exit("expect_bank_model: %s --bank-model exited %d: %s"
                 % (" ".join(command), run.returncode, run.stderr.strip()[:300]))
    lines = []
    for line in run.stdout.splitlines():
        fields = line.split("\t")
        if line.startswith("#") or fields[0] == "library" or len(fields) < 8:
            continue
        kernel, access, op, width, passes, weight = fields[:6]
        lines.append((kernel, access, op, int(passes), int(weight)))
    return lines


def per_instruction(lines, kernel, op):
    rows = [(p, w) for k, _, o, p, w in lines if k == kernel and o == op]
    total = sum(w for _, w in rows)
    return sum(p * w for p, w in rows) / total if total else None


def main(argv):
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
            good = got == [int(value)]
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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
