#!/usr/bin/env python3
"""Grades an exercise (exercises/README.md): your function, built into its chapter's own program,
run by the chapter's own checks on the CPU runner, and on the GPU too where there is one.

    scripts/grade.py PROGRAM N          grade exercises/mine/PROGRAM_N.cu (written from the stub
                                        the first time: edit it, then run this again)
    scripts/grade.py --list             every exercise
Options: --build DIR (default build/, or $EXAMPLES_BUILD), --cpu (the CPU runner even where a GPU
is), --lang en|zh|both (default both), --file F (grade F instead: an existing file), --stub (write
the stub again: a .cu file (.txt for a prediction) in exercises/mine/ or outside the repository,
never one of the repository's; the file it replaces is kept as F.bak, F.bak2, ...), --variant
solution|stub|wrong:NAME (grade the chapter's function, the stub or a known wrong answer instead)
and --expect PASS|KIND[,KIND] (exit 0 only if the verdict is that: the tests). Exit 0: passed (or
as --expect said), 1: not, 2: bad use (one line). A file not in UTF-8 (GBK) is compiled as its bytes.

For the tests: --check-specs checks that every
stub and known wrong answer still generates from the chapters' current sources; --tests lists the
tests' variants; --readme en|zh prints exercises/README's table."""
import os
import re
import shutil
import sys
import unicodedata

from grader.build import build_cpu, cpu_runner_built, has_gpu, tool
from grader.gpu import grade_gpu
from grader.screen import WORDS, readme_table, report, say, verdict_line
from grader.source import find_function, predict_file, read, stub_file, variant_text
from grader.spec import KINDS, SpecError, all_exercises, exercise
from grader.verdicts import Run, first_error, read_accesses, read_output, run_program
from layout import ROOT
from plot import OneLineParser  # one line and exit 2 for a bad command line, as plot.py and sweep.py do
from results import bank_model_row, records

MINE = os.path.join(ROOT, "exercises", "mine")


def grade_cpu(ex, function_text, shown, build):
    """The runs on the CPU runner; the first failing run stops the grading (one screen)."""
    program, complaint = build_cpu(ex, function_text, shown, build)
    if not program:
        return [Run([]).add("compile", first_error(complaint))], []
    runs, table, accesses = [], [], {}
    for args in ex.runs:
        counted = os.path.join(os.path.dirname(program), "accesses.%d.txt" % os.getpid())
        # A kernel spinning 20 s in one block never ends: the runner stops it then (its own limit is 120 s).
        env = dict(os.environ, CUDA_CPU_ACCESSES=counted, CUDA_CPU_FINDINGS="machine",
                   CUDA_CPU_SPIN_LIMIT_S=os.environ.get("CUDA_CPU_SPIN_LIMIT_S", "20"))
        output, code = run_program([program, "--cpu", "--check"] + args, env)
        run = read_output(Run(args), output.replace(ROOT + "/", ""), code)
        table = read_accesses(run, program, counted, shown, ex.banks, ex.coalescing, accesses)
        if os.path.exists(counted):
            os.remove(counted)
        runs.append(run)
        if run.kinds:
            break
    return runs, table


def headline(ex, lang):
    """The screen's first line: the exercise and its title, a Chinese colon on a Chinese screen."""
    return "%s%s%s" % (ex.name, "：" if lang == "zh" else ": ", say(lang, ex.title["en"] + " | " + ex.title["zh"]))


def grade_predict(ex, text, build, lang, told=None):
    """A prediction exercise: the learner's numbers against what the chapter's kernels did on the CPU runner."""
    truths = predicted(ex, build, lang)
    given = dict((l.split("=")[0].strip(), l.split("=", 1)[1].strip()) for l in text.split("\n")
                 if "=" in l and not l.lstrip().startswith("#"))
    print(headline(ex, lang))
    wrong = 0
    numbers = {}  # label: the learner's number, 2 of "2", "２", "2 次", "2 passes"; 0.03125 of "1/32"
    for label, _, _ in ex.predicts:
        given[label] = given.get(label, given.get(ex.label_zh.get(label, label), "?"))
        number = re.match(r"\s*(\d+\.?\d*|\.\d+)(?:\s*/\s*(\d+\.?\d*))?", unicodedata.normalize("NFKC", given[label]))
        over = number and float(number.group(2) or 1)
        numbers[label] = float(number.group(1)) / over if over else None
    for (label, _, access), (truth, why) in zip(ex.predicts, truths):
        mine = given.get(label, "?")
        ok = close(numbers[label], truth, access)
        wrong += not ok
        # The answer only once predicted: an untouched "?" (or no number) says so instead of giving it away.
        shown = ex.label_zh.get(label, label) if lang == "zh" else label  # padded by its width on a screen: 2 a Chinese character
        print("  %s %s %s %s" % ("ok  " if ok else "FAIL", shown + " " * (28 - len(shown.encode("gbk"))), mine, "" if ok else say(lang, (
            "(the bank model: %s) | （bank 模型：%s）" % (truth, truth) if access else
            "(the CPU runner saw %s) | （CPU 运行器实测：%s）" % (truth, truth)) if numbers[label] is not None else
            "(no number yet: predict it, then grade) | （还没有填数：先预测，再评分）")))
        if numbers[label] is not None and why:  # right or wrong, once predicted: why the kernel takes its figure
            print("       %s" % say(lang, why))
        if not ok and numbers[label] is not None:
            # The why of the known wrong answer (the spec's) that gives the learner's number for label, the one that
            # agrees with most of the learner's numbers; none when no known wrong answer gives it.
            at = [p[0] for p in ex.predicts].index(label)
            giving = [w for w in ex.wrongs if w.answers and close(numbers[label], w.answers[at], ex.predicts[at][2])]
            reason = giving and max(giving, key=lambda w: sum(close(numbers[p[0]], a, p[2]) for p, a in zip(
                ex.predicts, w.answers))).why
            if reason:
                if told is not None:
                    told.add(reason)
                mine = "%g" % numbers[label]
                print("       %s" % say(lang, ("a common reason for %s: %s" % (mine, reason.partition(" | ")[0]),
                                             "填 %s 的常见原因：%s" % (mine, reason.partition(" | ")[2]))))
    print(say(lang, WORDS["pass"]) if not wrong else say(lang, "FAIL: %d of %d wrong | 未通过：%d 个中有 %d 个不对" % (
        wrong, len(ex.predicts), len(ex.predicts), wrong)))
    return ["value"] if wrong else []


def close(number, truth, access):
    """A bank model's passes exactly; bytes per FLOP (no access) to 2 %: 0.031 is 1/32, 0.03 is not."""
    return number is not None and abs(number - float(truth)) <= (0 if access else 0.02) * float(truth)


def main(argv):
    parser = OneLineParser(prog="grade.py", usage=__doc__)
    parser.add_argument("program", nargs="?")
    parser.add_argument("number", nargs="?", type=int)
    parser.add_argument("--build", default=os.environ.get("EXAMPLES_BUILD", os.path.join(ROOT, "build")))
    parser.add_argument("--cpu", action="store_true")
    parser.add_argument("--lang", choices=["en", "zh", "both"], default="both")
    parser.add_argument("--file")
    parser.add_argument("--stub", action="store_true")
    parser.add_argument("--variant")
    parser.add_argument("--expect")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--check-specs", action="store_true")
    parser.add_argument("--tests", action="store_true")
    parser.add_argument("--readme", choices=["en", "zh"])
    a = parser.parse_args(argv)
    try:
        if a.check_specs:
            return check_specs()
        if a.tests:  # for exercises/CMakeLists.txt: one test per variant, with its expected verdict
            for ex in all_exercises():
                for variant, kinds in [("solution", ["PASS"]), ("stub", ex.stub_kinds)] + [
                        ("wrong:" + wrong.name, wrong.kinds) for wrong in ex.wrongs]:
                    print("%s %d %s %s" % (ex.program, ex.number, variant, ",".join(kinds)))
            return 0
        if a.readme:
            print(readme_table(a.readme))
            return 0
        if a.list:
            for ex in all_exercises():
                print("%-22s %s" % ("%s %d" % (ex.program, ex.number), say(a.lang, (ex.title["en"], ex.title["zh"]))))
            return 0
        if not a.program or a.number is None:
            parser.print_usage()
            return 2
        if a.expect and a.expect != "PASS" and not set(a.expect.split(",")) <= set(KINDS):
            raise SpecError("--expect %s: PASS, or kinds among %s" % (a.expect, ", ".join(KINDS)))
        ex = exercise(a.program, a.number)
        return grade(ex, a)
    except (SpecError, OSError) as e:  # bad input, or a path that cannot be read or written: one line
        print("grade.py: %s" % e, file=sys.stderr)
        return 2


def grade(ex, a):
    build = os.path.abspath(a.build)
    variants = ["solution", "stub"] + ["wrong:" + wrong.name for wrong in ex.wrongs]
    if a.variant and a.variant not in variants:
        raise SpecError("%s: no variant %s; there are %s" % (ex.name, a.variant, ", ".join(variants)))
    wrong = next((w for w in ex.wrongs if "wrong:" + w.name == a.variant), None)
    if a.variant:
        if ex.predicts:
            truths = predicted(ex, build, a.lang) if not wrong and a.variant != "stub" else None
            text = predict_file(ex, wrong.answers if wrong else truths and [truth for truth, _ in truths])
        else:
            text, shown = variant_text(ex, a.variant)
            shown_file = "exercises/variants/%s_%d_%s.cu" % (ex.program, ex.number, a.variant.replace(":", "_"))
    else:
        path = learners_file(ex, a)
        if not path:
            return 1
        with open(path, "rb") as f:
            raw = f.read()
        # Not UTF-8 (GBK from a Chinese Windows editor): its bytes go to the compiler as they are, as
        # scripts/cuda_on_cpu builds it; comments in any encoding compile.
        text, shown_file = raw.decode("utf-8", "surrogateescape"), os.path.relpath(path, ROOT) if path.startswith(
            ROOT + os.sep) else path
        shown = shown_file
        if text.encode("utf-8", "replace") != raw:
            print(say(a.lang, "note: %s is not UTF-8 (GBK?): compiled as its bytes; a quoted line may show \ufffd | "
                              "注意：%s 不是 UTF-8 编码（GBK？）：按原字节编译，编译器引用的行里可能出现 \ufffd" % (
                                  shown_file, shown_file)))
    if not os.path.isdir(build):
        raise SpecError(say(a.lang, "--build %s: no such folder (build first: cmake -S . -B build && cmake --build "
                                    "build) | --build %s：没有这个目录（请先构建：cmake -S . -B build && cmake --build "
                                    "build）" % (build, build)))
    if ex.predicts:
        told = set()  # the known wrong answers whose why the screen gave: a wrong one's is its reason
        kinds = grade_predict(ex, text, build, a.lang, told)
        if a.expect and wrong and wrong.why not in told:
            print("a wrong prediction, but the screen does not give its why (%s)" % wrong.name)
            return 1
        return verdict_exit(kinds, a.expect)
    print("%s — %s" % (headline(ex, a.lang), say(a.lang, shown)))
    unnamed = set()  # the kinds found with no place on the screen: a value's first wrong element, a crash's line
    if not find_function(text, ex.function):
        kinds = ["compile"]
        print("  %s" % say(a.lang, "no definition of %s in %s: the grader replaces that function | %s 中没有 %s 的定义："
                                   "评分替换的正是这个函数" % (ex.function, shown_file, shown_file, ex.function)))
    else:
        kinds, graded = [], False
        if cpu_runner_built(build):
            runs, table = grade_cpu(ex, text, shown_file, build)
            unnamed |= unnamed_kinds(runs)
            if not ex.banks and ex.coalescing is None and any(run.kinds for run in runs):
                table = []  # one screen: the counts matter here only when the exercise is about them
            kinds += report(runs, table, [], a.lang, "on the CPU runner: the chapter's own checks, every shared- and "
                                                     "global-memory access watched | 在 CPU 运行器上：本章自带的检查，"
                                                     "监视每次共享内存和全局内存访问")
            graded = True
        if not a.cpu and tool(build, "nvcc") and has_gpu(build):
            runs, notes = grade_gpu(ex, text, shown_file, build)
            unnamed |= unnamed_kinds(runs)
            kinds += report(runs, [], notes, a.lang, "on the GPU: the chapter's own checks, the sanitizers, Nsight "
                                                     "Compute, the time | 在 GPU 上：本章自带的检查、compute-sanitizer、"
                                                     "Nsight Compute、计时")
            graded = True
        if not graded:
            print("  %s" % say(a.lang, "nothing to grade with: neither the CPU runner (%s is no build with "
                                       "EXAMPLES_CPU_RUNNER: cmake -S . -B %s first, or --build DIR) nor a GPU | 无从评分："
                                       "既没有 CPU 运行器（%s 不是打开了 EXAMPLES_CPU_RUNNER 的构建目录：请先运行 cmake -S . "
                                       "-B %s，或用 --build 指定构建目录）也没有 GPU" % (build, build, build, build)))
            return 2
    print(verdict_line(kinds, a.lang))
    return verdict_exit(kinds, a.expect, unnamed)


def learners_file(ex, a):
    """The learner's file to grade, or None after writing the stub there (the message says so); every path checked
    before anything is written (the module's --file and --stub)."""
    default = os.path.join(MINE, "%s_%d.%s" % (ex.program, ex.number, "txt" if ex.predicts else "cu"))
    path = os.path.abspath(a.file) if a.file else default
    shown = a.file or os.path.relpath(path)
    if os.path.exists(path) and not os.path.isfile(path):
        raise SpecError(say(a.lang, "%s is a folder, not a file | %s 是目录，不是文件" % (shown, shown) if os.path.isdir(
            path) else "%s is not a regular file | %s 不是普通文件" % (shown, shown)))
    if not os.path.exists(path) and a.file:
        raise SpecError(say(a.lang, "--file %s: no such file (without --file the grader writes the stub in "
                                    "exercises/mine/) | --file %s：没有这个文件（不加 --file 时，初始文件生成在 "
                                    "exercises/mine/ 中）" % (shown, shown)))
    if os.path.exists(path) and not a.stub:
        return path
    real, mine, suffix = os.path.realpath(path), os.path.realpath(MINE) + os.sep, os.path.splitext(default)[1]
    if not real.endswith(suffix) or real.startswith(os.path.realpath(ROOT) + os.sep) and not real.startswith(mine):
        raise SpecError(say(a.lang, "--stub writes only a %s file of yours, in exercises/mine/ or outside the "
                                    "repository: %s is not one | --stub 只写你自己的 %s 文件（exercises/mine/ 中或仓库"
                                    "之外的）：%s 不是" % (suffix, shown, suffix, shown)))
    text = predict_file(ex, lang=a.lang) if ex.predicts else stub_file(ex, a.lang)
    kept = None
    if os.path.exists(path):
        with open(path, "rb") as f:
            if f.read() != text.encode("utf-8"):  # the same stub again loses nothing
                kept = next(path + ".bak" + "%d" % k * (k > 1) for k in range(1, 1000)
                            if not os.path.exists(path + ".bak" + "%d" % k * (k > 1)))
                shutil.copy2(path, kept)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    kept = kept and shown + kept[len(path):]  # named as the learner named the file
    was = (" (yours kept as %s)" % kept, "（原来的文件另存为 %s）" % kept) if kept else ("", "")
    print("%s\n  %s" % (headline(ex, a.lang), say(a.lang, (
        "written: %s%s — edit it, then run this again" % (shown, was[0]), "已生成 %s%s，改好后再运行本命令" % (shown, was[1])))))
    return None


def predicted(ex, build, lang):
    """(answer, why or None) of each prediction, in order: its line's passes in the chapter's --bank-model, or (a
    kernel alone) the bytes the kernel's threads load from global memory per FLOP in the exercise's run."""
    rows = {}  # (kernel, access): its row in the chapter's --bank-model (results.bank_model_row), the first line of each
    if any(access for _, _, access in ex.predicts):
        program = os.path.join(build, os.path.dirname(ex.source), ex.program)
        output, code = run_program([program, "--bank-model"]) if os.path.exists(program) else ("", 127)
        if code != 0:
            raise SpecError(say(lang, "%s --bank-model exited %d: build the chapter first | %s --bank-model 的退出码为 %d："
                                      "请先构建这一章" % (program, code, program, code)))
        for row in filter(None, map(bank_model_row, output.split("\n"))):
            rows.setdefault((row["kernel"], row["access"]), row)
    loads = global_loads(ex, build, lang, ex.runs[0])[0] if not all(access for _, _, access in ex.predicts) else {}
    truths = []
    for _, kernel, access in ex.predicts:
        row = rows.get((kernel, access)) if access else loads.get(kernel)
        if row is None:
            raise SpecError("%s: no %s in %s's %s" % (ex.name, "line %s / %s" % (kernel, access) if access else
                                                      "global load of kernel %s" % kernel, ex.program, "--bank-model"
                                                      if access else "run"))
        truths.append((row["passes"], bank_why(row)) if access else ("%.4g" % (row[0] / row[1]), (
            "its threads load %.0f bytes from global memory in a launch, for %.0f FLOPs (2·M·N·K): %.4g bytes per FLOP"
            % (row[0], row[1], row[0] / row[1]), "它的线程每次启动从全局内存读 %.0f 字节，做 %.0f 次浮点运算"
            "（2·M·N·K）：每次浮点运算 %.4g 字节" % (row[0], row[1], row[0] / row[1]))))
    return truths


def global_loads(ex, build, lang, args):
    """({kernel: (bytes, FLOPs)}, the RESULT lines): the bytes its threads loaded from global memory (every lane's
    load and cp.async copy: cpu_runner/warp_accesses.c's accesses x bytes) in one launch of a run of the chapter's
    CPU twin with args, and the FLOPs of a launch (the RESULT lines' flops)."""
    twin, counted = os.path.join(build, os.path.dirname(ex.source), ex.program + "_cpu"), os.path.join(
        build, "loads.%d.txt" % os.getpid())
    output, code = run_program([twin, "--check"] + args, dict(os.environ, CUDA_CPU_ACCESSES=counted)) if \
        os.path.exists(twin) else ("", 127)
    lines = read(counted).split("\n") if os.path.exists(counted) else []
    if os.path.exists(counted):
        os.remove(counted)
    flops = [float(r["flops"]) for r in records(output, "RESULT") if r.get("flops", "-") != "-"]
    if code != 0 or not flops or any(line.startswith("dropped ") for line in lines):
        raise SpecError(say(lang, "%s --check %s exited %d, without FLOPs or with accesses dropped: build the chapter "
                                  "first | %s --check %s 的退出码为 %d，没有浮点运算数或丢了访问记录：请先构建这一章" % (
                                      (twin, " ".join(args), code) * 2)))
    loaded, launches = {}, {}  # a launch gives a line per code address: a kernel's launches, its codes' most lines
    for line in lines:
        words, kernel = line.split(), line.partition(" kernel ")[2]
        if words[:1] == ["code"] and words[3:6] == ["global", "op", "ld"]:
            f = dict(zip(words[0:24:2], words[1:24:2]))
            loaded[kernel] = loaded.get(kernel, 0) + int(f["accesses"]) * int(f["bytes"])
            launches[kernel, f["code"], f["bytes"]] = launches.get((kernel, f["code"], f["bytes"]), 0) + 1
    return {kernel: (total / max(n for (k, _, _), n in launches.items() if k == kernel), flops[0])
            for kernel, total in loaded.items()}, records(output, "RESULT")


def bank_why(row):
    """Why the model's row takes its passes, from its lanes' byte addresses, as (English, Chinese): the busiest
    bank's words, per group of lanes served together; None where that does not give the model's count (a
    broadcast of one wide word, a row without addresses)."""
    width, lanes = int(row["bytes"]), [int(lane.split(":")[0]) for lane in row["lanes"].split(",") if lane != "-"]
    if len(lanes) != 32:
        return None
    size = 32 if width <= 4 else 128 // width  # lanes served together: the warp, or 128 bytes' worth
    busiest = []
    for first in range(0, 32, size):
        words = {w for a in lanes[first:first + size] for w in range(a // 4, (a + width - 1) // 4 + 1)}
        banks = [sum(w % 32 == b for w in words) for b in range(32)]
        busiest.append((max(banks), banks.index(max(banks)), len(words)))
    if sum(k for k, _, _ in busiest) != int(row["passes"]):
        return None
    k, bank, words = busiest[0]
    if words == 1:
        return ("every lane reads the same word: one pass serves them all (a broadcast)",
                "所有线程读同一个字：一次内存事务就全部送达（广播）")
    if size == 32 and k == 1:
        return ("word = byte address / 4, bank = word %% 32: the warp's %d words fall in %d different banks: 1 pass" % (
            words, words), "字 = 字节地址 / 4，bank = 字 %% 32；这个线程束读的 %d 个字落在 %d 个不同的 bank，只要 1 次内存事务" % (
            words, words))
    if size == 32:
        return ("word = byte address / 4, bank = word %% 32: the warp's %d words fill bank %d with %d of them, so %d "
                "pass%s" % (words, bank, k, k, "es" if k > 1 else ""),
                "字 = 字节地址 / 4，bank = 字 %% 32；这个线程束读的 %d 个字中，第 %d 个 bank 里有 %d 个，所以要 %d 次内存"
                "事务" % (words, bank, k, k))
    return ("a pass serves 128 bytes, so %d groups of %d lanes are served one after another; in each the busiest bank "
            "holds %d word%s: %d x %d passes" % (len(busiest), size, k, "s" * (k > 1), len(busiest), k),
            "一次内存事务最多传 128 字节，所以线程束分成 %d 组（每组 %d 个线程）先后进行；每组中最忙的 bank 有 %d 个字，"
            "共 %d x %d 次内存事务" % (len(busiest), size, k, len(busiest), k)) if len(set(busiest)) == 1 else None


def unnamed_kinds(runs):
    return {kind for run in runs for kind, named in (("value", run.first_wrong), ("crash", run.crash_named))
            if kind in run.kinds and not named}


def verdict_exit(kinds, expect, unnamed=()):
    """The exit code; with --expect, a value or crash verdict must also name where (unnamed: the kinds whose
    place the screen left out, unnamed_kinds): the first wrong element, the crash's line."""
    if not expect:
        return 1 if kinds else 0
    if expect == "PASS":
        ok = not kinds
    else:
        ok = all(kind in kinds for kind in expect.split(","))
        missing = [kind for kind in expect.split(",") if kind in unnamed]
        if ok and missing:
            ok = False
            print({"value": "a wrong value, but the screen does not name the first wrong element",
                   "crash": "a crash, but the screen does not name its kernel, thread and line"}[missing[0]])
    print("expected %s: %s" % (expect, "yes" if ok else "NO"))
    return 0 if ok else 1


def check_specs():
    """Every stub and wrong answer generates from the current sources; every kind is known."""
    problems, count = [], 0
    for ex in all_exercises():
        try:
            if ex.predicts:
                continue
            stub_file(ex)
            for wrong in ex.wrongs:
                variant_text(ex, "wrong:" + wrong.name)
            count += 1
        except SpecError as e:
            problems.append(str(e))
    for problem in problems:
        print(problem)
    print("%d exercises generate from the chapters' sources" % count if not problems else "")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.stdout.reconfigure(errors="replace")  # a learner's bytes that are not UTF-8, shown back: "?", not a traceback
    sys.exit(main(sys.argv[1:]))
