"""On the GPU: the learner's chapter run by its own checks, compute-sanitizer, Nsight Compute, the timing."""
import os
import re

from results import bank_conflicts_table, number, records

from .build import build_gpu, tool
from .source import solution
from .verdicts import Run, first_error, read_output, run_program
from layout import ROOT


def sanitizer_count(output):
    """What compute-sanitizer's last summary line counts (racecheck's hazards, the other tools' errors), or None."""
    found = re.findall(r"(?:ERROR|RACECHECK) SUMMARY: (\d+) (?:errors?|hazards?)", output)
    return int(found[-1]) if found else None


def sanitize(run, program, args, build):
    """racecheck and synccheck on the first run: their hazards and barrier errors, with a line."""
    sanitizer = tool(build, "compute-sanitizer")
    if not sanitizer:
        return ["compute-sanitizer not found: not run | 没有 compute-sanitizer：未运行"]
    notes = []
    for name, kind in (("racecheck", "race"), ("synccheck", "barrier")):
        output, _ = run_program([sanitizer, "--tool", name, program, "--check"] + args, timeout=900)
        with open(program + "." + name + ".txt", "w", encoding="utf-8") as f:
            f.write(output)
        count, where = sanitizer_count(output), re.search(r" in (\S+\.cuh?):(\d+)", output)
        if count:
            at = (os.path.basename(where.group(1)), where.group(2)) if where else None
            run.add(kind, ("compute-sanitizer --tool %s: %d reported%s" % (name, count, " at %s:%s" % at if at else ""),
                           "compute-sanitizer --tool %s：报告了 %d 个问题%s" % (name, count, "，位置 %s:%s" % at if at
                                                                             else "")))
        notes.append(("compute-sanitizer --tool %s: %s" % (name, "%d reported" % count if count is not None else "clean"),
                      "compute-sanitizer --tool %s：%s" % (name, "报告了 %d 个问题" % count if count is not None else
                                                             "没有发现问题")))
    return notes


def wavefronts(program, args, kernel):
    """Nsight Compute's SASS-level passes per shared load and store of the kernel (its instances together),
    by scripts/bank_conflicts.sh, or a reason."""
    output, code = run_program(["sh", os.path.join(ROOT, "scripts", "bank_conflicts.sh"), program, "--check"] + args,
                               timeout=900)
    with open(program + ".ncu.txt", "w", encoding="utf-8") as f:
        f.write(output)
    header, table = bank_conflicts_table(output)
    if code != 0 or "SASS per load" not in header:
        return None, "Nsight Compute counted nothing (bank_conflicts.sh exited %d: no ncu, no leave to read the " \
            "counters, or no SASS-level count) | Nsight Compute 未能计数" % code
    per = {}
    for op, name in (("ld", "load"), ("st", "store")):
        rows = [row for found, row in table.items() if found == kernel or found.startswith(kernel + "<")]
        count = sum(number(row["shared %ss" % name]) or 0 for row in rows)
        if count:
            per[op] = sum((number(row["shared %ss" % name]) or 0) * (number(row["SASS per " + name]) or 0)
                          for row in rows) / count
    return per, None


def timed_ms(program, args, kernel):
    output, _ = run_program([program] + args + ["--reps", "20"], timeout=900)
    return number(next((r for r in records(output, "RESULT") if r.get("kernel") == kernel), {}).get("ms"))


def grade_gpu(ex, function_text, shown, build):
    """The runs on the GPU, then the sanitizers, Nsight Compute against the chapter's function, the timing."""
    program, complaint = build_gpu(ex, function_text, shown, build)
    if not program:
        return [Run([]).add("compile", first_error(complaint))], []
    runs, notes = [], []
    for args in ex.runs:
        args = [a for i, a in enumerate(args) if a != "--cpu-order" and (i == 0 or args[i - 1] != "--cpu-order")]
        output, code = run_program([program, "--check"] + args)
        runs.append(read_output(Run(args), output.replace(ROOT + "/", ""), code))
        if runs[-1].kinds:
            return runs, notes
    first = runs[0].args
    notes += sanitize(runs[0], program, first, build)
    kernel = ex.function  # the kernel Nsight Compute profiles: the exercises about banks write a kernel
    reference, _ = build_gpu(ex, solution(ex), "exercises/variants/%s_%d_solution.cu" % (ex.program, ex.number), build)
    if ex.banks and reference:
        mine, why = wavefronts(program, first, kernel)
        theirs, _ = wavefronts(reference, first, kernel) if mine else (None, None)
        if mine and theirs:
            for op in sorted(mine):
                if mine[op] > theirs.get(op, mine[op]) * 1.02:  # worse than the chapter's
                    runs[0].add("banks", ("Nsight Compute: %.2f passes per shared %s, the chapter's %.2f" % (
                        mine[op], "load" if op == "ld" else "store", theirs[op]),
                        "Nsight Compute：每条共享内存%s指令 %.2f 次内存事务，本章的函数只要 %.2f 次" % (
                            "读" if op == "ld" else "写", mine[op], theirs[op])))
                notes.append(("Nsight Compute: %.2f passes per shared %s (the chapter's function: %.2f)" % (
                    mine[op], "load" if op == "ld" else "store", theirs.get(op, float("nan"))),
                              "Nsight Compute：每条共享内存%s指令 %.2f 次内存事务（本章的函数：%.2f 次）" % (
                    "读" if op == "ld" else "写", mine[op], theirs.get(op, float("nan")))))
        else:
            notes.append(why or "Nsight Compute counted no shared-memory instruction | Nsight Compute 未计到共享内存指令")
    for args in ex.times:
        kernel_row = args[args.index("--kernel") + 1] if "--kernel" in args else None
        mine, theirs = timed_ms(program, args, kernel_row), timed_ms(reference, args, kernel_row) if reference else None
        if mine and theirs:
            notes.append(("%s: %.3f ms, the chapter's %.3f ms (%.2f times its time)" % (
                " ".join(args), mine, theirs, mine / theirs),
                          "%s：%.3f 毫秒，本章的函数 %.3f 毫秒（你的用时是它的 %.2f 倍）" % (" ".join(args), mine, theirs, mine / theirs)))
    return runs, notes
