#!/usr/bin/env python3
"""Grades an exercise (exercises/README.md): your function, built into its chapter's own program,
run by the chapter's own checks on the CPU runner, and on the GPU too where there is one.

    scripts/grade.py PROGRAM N          grade exercises/mine/PROGRAM_N.cu (written from the stub
                                        the first time: edit it, then run this again)
    scripts/grade.py --list             every exercise
Options: --build DIR (default build/, or $EXAMPLES_BUILD), --cpu (the CPU runner even where a GPU
is), --lang en|zh|both (default both), --file F (grade F instead), --stub (write the stub again,
over your file), --variant solution|stub|wrong:NAME (grade the chapter's function, the stub or a
known wrong answer instead) and --expect PASS|KIND[,KIND] (exit 0 only if the verdict is that:
the tests). Exit 0: passed (or as --expect said), 1: not, 2: bad use.

For the build and the tests: --harness PROGRAM OUT writes the chapter's harness for the CPU runner
(the .cu with every exercise's function declared, not defined); --check-specs checks that every
stub and known wrong answer still generates from the chapters' current sources; --tests lists the
tests' variants; --readme en|zh prints exercises/README's table; --check-predictions holds the
lessons' "Predict, then run" answers against the built programs."""
import argparse
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPECS = os.path.join(ROOT, "exercises")
MINE = os.path.join(ROOT, "exercises", "mine")
KINDS = ["compile", "crash", "deadlock", "barrier", "race", "unwritten", "misaligned", "value", "banks"]
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
STRIPPED = re.compile(r"\b(static|inline|__forceinline__)\s+")  # what an out-of-line copy drops

WORDS = {  # each verdict's words: English | Chinese
    "compile": "it does not compile | 编译不通过",
    "crash": "the program crashed | 程序崩溃",
    "deadlock": "the block never finishes: a deadlock, or a loop that never ends | 线程块永远结束不了：死锁，或者循环永不终止",
    "barrier": "a barrier not every thread of the block reaches, or not the same one | 块内有线程到不了（或不在同一处）的 "
               "__syncthreads()",
    "race": "a race on shared memory | 共享内存上的竞争",
    "unwritten": "a read of shared memory no thread wrote | 读了没有线程写过的共享内存",
    "misaligned": "a misaligned shared-memory access (a GPU stops the kernel) | 共享内存访问未对齐（GPU 上内核会出错终止）",
    "value": "a wrong value | 结果错误",
    "banks": "bank conflicts | bank 冲突",
    "pass": "PASS: every check holds | 通过：所有检查均通过",
}


class SpecError(Exception):
    pass


# ----- the spec files -----
class Exercise:
    def __init__(self, program, source, number):
        self.program, self.source, self.number = program, source, number
        self.title, self.todo = {}, {"en": [], "zh": []}
        self.function = self.stub_from = None
        self.blanks, self.runs, self.times, self.solution_edits, self.wrongs = [], [], [], [], []
        self.stub_kinds, self.banks, self.predicts = [], False, []

    @property
    def name(self):
        return "%s %d" % (self.program, self.number)


class Wrong:
    def __init__(self, name, kinds, base):
        self.name, self.kinds, self.base, self.edits, self.why, self.answers = name, kinds, base, [], "", None


def unquote(literal):
    """A quoted spec string: \\n a newline, \\" a quote, \\t a tab, \\\\ a backslash; other backslashes stay (regexes)."""
    escapes = {"n": "\n", '"': '"', "t": "\t", "\\": "\\"}
    return re.sub(r"\\(.)", lambda m: escapes.get(m.group(1), m.group(0)), literal[1:-1])


def strings(text, counts, where):
    found = [unquote(s) for s in STRING.findall(text)]
    if len(found) not in counts:
        raise SpecError("%s: want %s quoted strings, found %d" % (where, " or ".join(map(str, counts)), len(found)))
    return found


def kinds_of(text, where):
    kinds = re.split(r"[,\s]+", text.strip())
    for kind in kinds:
        if kind not in KINDS:
            raise SpecError("%s: unknown kind '%s' (one of %s)" % (where, kind, ", ".join(KINDS)))
    return kinds


def parse_spec(path):
    """The exercises of one spec file, in order; SpecError names the line of a malformed one."""
    program = os.path.splitext(os.path.basename(path))[0]
    source, exercises, wrong = None, [], None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for number, line in enumerate(lines, 1):
        where = "%s:%d" % (os.path.relpath(path, ROOT), number)
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, _, rest = line.strip().partition(" ")
        rest = rest.strip()
        if key == "source":
            source = rest
            continue
        if key == "exercise":
            if not source or not rest.isdigit():
                raise SpecError("%s: 'exercise N' needs a number, after a 'source' line" % where)
            exercises.append(Exercise(program, source, int(rest)))
            wrong = None
            continue
        if not exercises:
            raise SpecError("%s: '%s' before any 'exercise N'" % (where, key))
        ex = exercises[-1]
        if key == "title":
            ex.title["en"], _, ex.title["zh"] = (part.strip() for part in rest.partition("|"))
        elif key in ("todo.en", "todo.zh"):
            ex.todo[key[5:]].append(rest)
        elif key in ("function", "stub_from"):
            setattr(ex, key, rest)
        elif key == "blank":
            ex.blanks.append(strings(rest, (2, 3), where))
        elif key in ("run", "time"):
            (ex.runs if key == "run" else ex.times).append(shlex.split(rest))
        elif key == "banks":
            if rest != "conflict-free":
                raise SpecError("%s: 'banks' takes conflict-free" % where)
            ex.banks = True
        elif key == "solution_edit":
            ex.solution_edits.append(strings(rest, (2,), where))
        elif key == "stub":
            ex.stub_kinds = kinds_of(rest, where)
        elif key == "predict":
            label, _, source_line = rest.partition(" = ")
            kernel, access = strings(source_line, (2,), where)
            ex.predicts.append((label.strip(), kernel, access))
        elif key == "wrong":
            words = rest.split()
            if len(words) not in (2, 3) or (len(words) == 3 and words[2] != "stub"):
                raise SpecError("%s: 'wrong NAME KIND[,KIND] [stub]'" % where)
            wrong = Wrong(words[0], kinds_of(words[1], where), "stub" if len(words) == 3 else "solution")
            ex.wrongs.append(wrong)
        elif key in ("why", "edit", "answers"):
            if not wrong:
                raise SpecError("%s: '%s' before any 'wrong'" % (where, key))
            if key == "why":
                wrong.why = rest
            elif key == "edit":
                wrong.edits.append(strings(rest, (2,), where))
            else:
                wrong.answers = rest.split()
        else:
            raise SpecError("%s: unknown key '%s'" % (where, key))
    for ex in exercises:
        if not (ex.function or ex.predicts) or not (ex.runs or ex.predicts) or not ex.stub_kinds:
            raise SpecError("%s: exercise %d needs a function, a run and a stub line" % (path, ex.number))
    return exercises


PROGRAMS = ["dot", "shared_bitmap", "banks", "reduce", "transpose", "shared_vs_global"]  # the lessons' order


def all_exercises():
    found = []
    for program in PROGRAMS:
        if os.path.exists(os.path.join(SPECS, program + ".spec")):
            found += parse_spec(os.path.join(SPECS, program + ".spec"))
    return found


def exercise(program, number):
    """The exercise; the program may be named by a part of its name (bitmap for shared_bitmap)."""
    named = [p for p in PROGRAMS if p == program] or [p for p in PROGRAMS if program in p]
    for ex in all_exercises():
        if len(named) == 1 and ex.program == named[0] and ex.number == number:
            return ex
    sys.exit("grade.py: no exercise '%s %d' (scripts/grade.py --list)" % (program, number))


# ----- functions in C++ source -----
def code_only(text):
    """The text with comments, strings and character literals blanked (same length, same lines)."""
    out, i, n = list(text), 0, len(text)
    while i < n:
        two = text[i:i + 2]
        end = None
        if two == "//":
            end = text.find("\n", i)
        elif two == "/*":
            end = text.find("*/", i + 2) + 2
        elif text[i] in "\"'":
            j = i + 1
            while j < n and text[j] != text[i]:
                j += 2 if text[j] == "\\" else 1
            end = j + 1
        if end is None:
            i += 1
            continue
        end = n if end <= 0 else end
        for j in range(i, min(end, n)):
            if out[j] != "\n":
                out[j] = " "
        i = end
    return "".join(out)


def find_function(text, name):
    """(start, body, end) offsets of the definition of `name` in text: its first line's start (the
    template line included), its body's '{', and one past its closing '}'; None if not defined."""
    code = code_only(text)
    for m in re.finditer(r"\b%s\s*\(" % re.escape(name), code):
        depth, i = 0, m.end() - 1
        while i < len(code):  # the parameter list
            depth += {"(": 1, ")": -1}.get(code[i], 0)
            if depth == 0:
                break
            i += 1
        j = i + 1
        while j < len(code) and code[j] in " \t\n":
            j += 1
        if j >= len(code) or code[j] != "{":
            continue  # a call or a declaration
        start = code.rfind("\n", 0, m.start()) + 1
        while start > 0:  # the lines of its head above: template <...>, __global__ void ...
            above = code.rfind("\n", 0, start - 1) + 1
            line = code[above:start - 1].strip()
            if not line or line.endswith((";", "}", "{")) or line.startswith("#"):
                break
            start = above
        depth, k = 0, j
        while k < len(code):
            depth += {"{": 1, "}": -1}.get(code[k], 0)
            if depth == 0:
                return start, j, k + 1
            k += 1
    return None


def function_of(text, name, where):
    found = find_function(text, name)
    if not found:
        raise SpecError("%s: no definition of %s" % (where, name))
    return found


def apply_edits(text, edits, where):
    for old, new in edits:
        if text.count(old) != 1:
            raise SpecError("%s: the text to replace occurs %d times, want once: %r" % (where, text.count(old), old))
        text = text.replace(old, new)
    return text


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def chapter_text(ex):
    return read(os.path.join(ROOT, ex.source))


def solution(ex):
    text = chapter_text(ex)
    start, _, end = function_of(text, ex.function, ex.source)
    return apply_edits(text[start:end], ex.solution_edits, "%s: solution_edit" % ex.name)


def stub_function(ex, lang="both"):
    """The function the learner starts from: the chapter's (or stub_from's, renamed), its blanked lines
    replaced by a TODO comment."""
    text = chapter_text(ex)
    start, _, end = function_of(text, ex.stub_from or ex.function, ex.source)
    body = text[start:end]  # the chapter's own: an exercise with solution edits starts from the chapter
    if ex.stub_from:
        body = re.sub(r"\b%s\b" % re.escape(ex.stub_from), ex.function, body, count=1)
    lines = body.split("\n")
    for blank in ex.blanks:
        first, last = blank[:2]
        a = next((i for i, line in enumerate(lines) if re.search(first, line)), None)
        b = next((i for i in range(a or 0, len(lines)) if re.search(last, lines[i])), None) if a is not None else None
        if a is None or b is None:
            raise SpecError("%s: blank %r .. %r: not found in %s" % (ex.name, first, last, ex.function))
        indent = re.match(r"\s*", lines[a]).group(0)
        todo = {"en": "see the comment at the top of this file.", "zh": "见本文件开头的注释。"}
        todo["both"] = todo["en"] + " / " + todo["zh"]
        lines[a:b + 1] = [indent + "/* TODO (%s): %s */" % (ex.name, todo[lang])] + [
            indent + line for line in blank[2:3]]
    return "\n".join(lines)


def wrapped(paragraph, prefix):
    return "\n".join(prefix + line for line in paragraph)


def stub_file(ex, lang="both"):
    """The learner's starting file: what to do, in the language asked (both by default), then the function."""
    english = ["/* Exercise %s: %s" % (ex.name, ex.title["en"]), " *", wrapped(ex.todo["en"], " * "), " *",
               " * Grade it:  scripts/grade.py %s %d" % (ex.program, ex.number),
               " * It replaces %s in %s; nothing else there changes. exercises/README.md says more." % (
                   ex.function, ex.source)]
    chinese = ["/* 练习 %s：%s" % (ex.name, ex.title["zh"]), " *", wrapped(ex.todo["zh"], " * "), " *",
               " * 评分：  scripts/grade.py %s %d --lang zh" % (ex.program, ex.number),
               " * 它替换 %s 中的 %s，其余不变。详见 exercises/README.zh-CN.md。" % (ex.source, ex.function)]
    header = {"en": english, "zh": chinese, "both": english + [" *"] + [" * " + l[3:] if l.startswith("/* ") else l
                                                                      for l in chinese]}[lang]
    return "\n".join(header) + " */\n" + stub_function(ex, lang) + "\n"


def variant_text(ex, variant):
    """(text, shown name) of the function to grade: solution, stub, or wrong:NAME."""
    if variant == "solution":
        return solution(ex), ("the chapter's %s%s" % (ex.function, " with the lesson's change" * bool(
            ex.solution_edits)), "本章的 %s%s" % (ex.function, "（按课文改动）" * bool(ex.solution_edits)))
    if variant == "stub":
        return stub_file(ex), ("the stub", "初始文件")
    name = variant.split(":", 1)[1]
    wrong = next((w for w in ex.wrongs if w.name == name), None)
    if not wrong:
        raise SpecError("%s: no wrong answer '%s'" % (ex.name, name))
    base = stub_function(ex) if wrong.base == "stub" else solution(ex)
    why_en, _, why_zh = wrong.why.partition(" | ")
    return apply_edits(base, wrong.edits, "%s: wrong %s" % (ex.name, name)), (
        "wrong answer %s: %s" % (name, why_en), "错误答案 %s：%s" % (name, why_zh or why_en))


def out_of_line(text, name):
    """The function's head without static / inline / __forceinline__: defined in one translation unit,
    called from another."""
    start, body, _ = function_of(text, name, name)
    return text[:start] + STRIPPED.sub("", text[start:body]) + text[body:]


# ----- the CPU runner build: the harness, compiled once by CMake; the learner's part, here -----
def chapter_functions(program):
    exercises = parse_spec(os.path.join(SPECS, program + ".spec"))
    return exercises[0].source, sorted({ex.function for ex in exercises if ex.function})


def harness_text(program):
    """The chapter's .cu, every exercise function reduced to its declaration (same lines)."""
    source, functions = chapter_functions(program)
    text = read(os.path.join(ROOT, source))
    for name in functions:
        start, body, end = function_of(text, name, source)
        head = STRIPPED.sub("", text[start:body]).rstrip() + ";"
        text = text[:start] + head + "\n" * (text[start:end].count("\n") - head.count("\n")) + text[end:]
    return text


def rewrite_for_cpu(text, shown):
    sys.path.insert(0, os.path.join(ROOT, "cpu_runner"))
    import source as cpu_source  # cpu_runner/source.py: launches and extern __shared__, line for line
    return '#line 1 "%s"\n' % shown + cpu_source.rewrite(text)


def learner_unit(ex, function_text, shown, instantiations):
    """The learner's translation unit: the chapter down to its last exercise function, the function
    graded replaced by the learner's (with #line: findings name the learner's file and line), the
    others the chapter's, then the explicit instantiations the harness calls."""
    text = chapter_text(ex)
    _, functions = chapter_functions(ex.program)
    cut = max(function_of(text, name, ex.source)[2] for name in functions)
    start, _, end = function_of(text, ex.function, ex.source)
    before, after = text[:start], text[end:cut]
    for name in functions:
        if name != ex.function:
            before = out_of_line(before, name) if find_function(before, name) else before
            after = out_of_line(after, name) if find_function(after, name) else after
    resume = text[:end].count("\n") + 1  # the line of the chapter's closing brace
    unit = (before + '#line 1 "%s"\n' % os.path.join(ROOT, shown) + out_of_line(function_text, ex.function) +
            '\n#line %d "%s"\n' % (resume, os.path.join(ROOT, ex.source)) + after + "\n" +
            "".join("template %s;\n" % i for i in instantiations))
    return rewrite_for_cpu(unit, os.path.join(ROOT, ex.source))


def config(build, program):
    """What CMake wrote for the learner's build (exercises/CMakeLists.txt): compiler, flags, objects."""
    path = os.path.join(build, "exercises", program + ".CXX.cpu")
    if not os.path.exists(path):
        return None
    values = {}
    for line in read(path).split("\n"):
        key, _, value = line.partition("=")
        values[key] = [v for v in value.split(";") if v]
    return values


def instantiations(cfg, functions):
    """The template instances of the exercise functions the harness calls but does not define."""
    run = subprocess.run(["nm", "-C", "--undefined-only"] + cfg["harness"], capture_output=True, text=True)
    found = []
    for line in run.stdout.split("\n"):
        symbol = line.strip()[2:].strip() if line.strip().startswith("U ") else ""
        if any(re.search(r"(^|\s)%s<" % re.escape(f), symbol) for f in functions):
            found.append(symbol)
    return sorted(set(found))


def cache_dir(build):
    path = os.path.join(build, "exercises", "graded")
    os.makedirs(path, exist_ok=True)
    return path


def build_cpu(ex, function_text, shown, build):
    """(program path, None) or (None, the compiler's complaint)."""
    cfg = config(build, ex.program)
    if not cfg:
        return None, ("%s has no CPU-runner harness for %s: build it first (cmake --build %s) | 先构建 (cmake --build %s)"
                      % (build, ex.program, build, build))
    _, functions = chapter_functions(ex.program)
    unit = learner_unit(ex, function_text, shown, instantiations(cfg, functions))
    # The learner's warnings are not errors. DWARF 4: binutils 2.40's addr2line names the translation
    # unit, not the #line file, for some lines of DWARF 5 (the runner names a race's line by it).
    # -fno-tree-sra: a uint4 or double2 copied whole stays one 16-byte access (the GPU's LDS.128),
    # not four 4-byte ones, for the bank model; it changes no arithmetic.
    flags = [f for f in cfg["flags"] + cfg["options"] if not f.startswith("-Werror")] + ["-gdwarf-4", "-fno-tree-sra"]
    flags += ["-I" + d for d in cfg["includes"]] + ["-D" + d for d in cfg["defines"]]
    program, wraps = ex.program + "_cpu", ["-Wl,--wrap=" + symbol for symbol in cfg["wraps"]]
    steps = [cfg["compiler"] + flags + ["-c", "unit.cpp", "-o", "unit.o"],
             cfg["compiler"] + cfg["flags"] + cfg["harness"] + ["unit.o"] + cfg["counter"] + wraps +
             ["-Wl,--allow-multiple-definition", "-o", program] + cfg["link"]]
    return cached_build(build, "%s_%d" % (ex.program, ex.number), "unit.cpp", unit, steps, program)


def cached_build(build, tag, name, source, steps, program):
    """(program path, None) or (None, the compiler's complaint): source written as name, the steps run
    in a fresh folder of build/exercises/graded/, kept by the hash of what went in (a second grading
    of the same file builds nothing)."""
    # Also what the steps name (the harness object, the runtime) and common/'s headers, by time and size:
    # a rebuilt chapter or a changed header builds anew.
    common = os.path.join(ROOT, "common")
    inputs = sorted({w for step in steps for w in step if os.path.isabs(w) and os.path.isfile(w)} |
                    {os.path.join(common, f) for f in os.listdir(common)})
    stamps = ["%s %d %d" % (w, os.stat(w).st_mtime_ns, os.stat(w).st_size) for w in inputs]
    key = hashlib.sha256("\n".join([source] + [" ".join(step) for step in steps] + stamps).encode()).hexdigest()[:16]
    folder = os.path.join(cache_dir(build), "%s_%s" % (tag, key))
    if os.path.exists(os.path.join(folder, program)):
        return os.path.join(folder, program), None
    work = tempfile.mkdtemp(dir=cache_dir(build))
    with open(os.path.join(work, name), "w", encoding="utf-8") as f:
        f.write(source)
    for step in steps:
        done = subprocess.run(step, cwd=work, capture_output=True, text=True)
        if done.returncode != 0:
            shutil.rmtree(work, ignore_errors=True)
            return None, (done.stderr or done.stdout).replace(work + "/", "")
    os.replace(work, folder) if not os.path.exists(folder) else shutil.rmtree(work, ignore_errors=True)
    return os.path.join(folder, program), None


# ----- reading a run -----
class Run:
    """One run's verdict: kinds found, and the lines that show them."""

    def __init__(self, args):
        self.args, self.kinds, self.details, self.code, self.first_wrong = args, [], [], 0, False

    def add(self, kind, detail=None):
        if kind not in self.kinds:
            self.kinds.append(kind)
        if detail and detail not in self.details:
            self.details.append(detail)


# report.h's row_note_first_wrong: "first wrong partial[17]: got 3.5, expected 3.25"
FIRST_WRONG = re.compile(r",? ?first wrong (.+?): got ([^,\s]+), expected ([^,\s]+)")
FINDINGS = [("race on shared memory", "race"), ("no thread of this block wrote", "unwritten"),
            ("misaligned address", "misaligned"), ("invalid memory access", "crash"),
            ("divergent barrier", "barrier"), ("barrier not reached", "barrier"),
            ("warp operation whose mask names a lane that has exited", "barrier"),
            ("warp operation whose mask leaves out the lane that calls it", "barrier")]


# The CPU runner's findings in Chinese (its own lines are English): the finding, then where.
FINDINGS_ZH = {
    "a thread reads what another thread wrote since the last barrier":
        "共享内存竞争：一个线程读了另一个线程在上一次 __syncthreads() 之后写的数据",
    "a thread overwrites what another thread read since the last barrier":
        "共享内存竞争：一个线程改写了另一个线程在上一次 __syncthreads() 之后读过的数据",
    "two threads write one byte with different values":
        "共享内存竞争：两个线程之间没有 __syncthreads()，却往同一个字节写了不同的值",
    "no thread of this block wrote": "读了本线程块中没有任何线程写过的共享内存（在这里读到的是 0xff 字节）",
    "misaligned address": "地址未对齐：访问的地址不是其字节数的整数倍（GPU 上内核会出错终止）",
    "divergent barrier": "同步分歧：同一线程块的线程停在不同的 __syncthreads() 上",
    "barrier not reached": "有线程到不了的 __syncthreads()：一些线程在它之前已经退出",
    "mask names a lane that has exited": "线程束操作的掩码中有已经退出的线程",
    "mask leaves out the lane that calls it": "线程束操作的掩码不包含调用它的线程",
    "invalid memory access": "非法内存访问：GPU 上内核会出错终止",
}
WHERE_ZH = [(r"^at (\S+): thread (.+?) of block (\([^)]*\))", r"位置 \1：线程块 \3 中的线程 \2"),
            (r"; the other access at (\S+), thread ([^ ]+)", r"；另一次访问在 \1，线程 \2"),
            (r" ?\((\d+) times in this launch\)", r"（本次启动中共 \1 次）"),
            (r"(\d+) thread\(s\) waited there, the others had exited", r"\1 个线程在此等待，其余线程已经退出"),
            (r", address (0x[0-9a-f]+)", r"，地址 \1"), (r", block (\([^)]*\)): ", r"，线程块 \1："), (r"^at ", "位置 "), (r" and at ", " 和 ")]


def finding_zh(line, where):
    """A runner finding and its 'at' line in Chinese: the finding translated, the place's words too."""
    text = next((zh for en, zh in FINDINGS_ZH.items() if en in line), line)
    for pattern, replacement in WHERE_ZH:
        where = re.sub(pattern, replacement, where)
    return text + ("\n      " + where if where else "")


def read_output(run, output, code):
    run.code = code
    lines = output.split("\n")
    for i, line in enumerate(lines):
        for text, kind in FINDINGS:
            if line.startswith("CPU runner: ") and text in line:
                where = lines[i + 1].strip() if i + 1 < len(lines) else ""
                where = where if where.startswith("at ") else ""
                run.add(kind, (line[12:] + ("\n      " + where if where else ""), finding_zh(line, where)))
        if line.startswith("CPU runner: deadlock") or (code == 4 and "deadlock" in line.lower()):
            run.add("deadlock", "\n      ".join(l.strip() for l in lines[i:i + 4] if l.strip()))
        if line.startswith("RESULT ") and "status=FAIL" in line:
            fields = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
            row = next((l for l in lines if l.startswith(fields.get("kernel", "?") + " ") and "FAIL" in l), "")
            note = row.split("FAIL", 1)[1].replace("(kernel only: the CPU adds the partials)", "").strip() if row else ""
            first = FIRST_WRONG.search(note)
            note = FIRST_WRONG.sub("", note).strip(" ,")
            counted = re.search(r"\bvalue: ([^,;(]+?)\s*(?:[,;(]|$)", note)  # a count: "value: elements right"
            note = note.replace("value: " + counted.group(1), "").strip(" ,;") if counted else note
            got = "NaN" if fields.get("value") in ("-", "nan", "-nan") else fields.get("value")
            size = " (" + fields["size"] + ")" if fields.get("size", "-") != "-" else ""
            head = (fields.get("kernel"), fields.get("type"), fields.get("n"), size)
            run.add("value", ("kernel %s, %s, n = %s%s: %s %s, expected %s%s" % (head + (
                counted.group(1) + ":" if counted else "got", got, fields.get("expected"), "; " + note if note else "")),
                "核函数 %s，%s，n = %s%s：%s%s，应为 %s%s" % (head + (
                    counted.group(1) + "：" if counted else "得到 ", got, fields.get("expected"),
                    "；" + note if note else ""))))
            if first:
                run.first_wrong, poison = True, first.group(2).lstrip("-") == "nan"
                run.add("value", ("the first wrong element: %s is %s, should be %s%s" % (first.groups() + (
                    " (NaN: often the poison the output starts as, never written, or copied from shared memory "
                    "no thread wrote)" * poison,)), "第一个出错的元素：%s 是 %s，应为 %s%s" % (first.groups() + (
                        "（NaN：常见于预先填入的毒值，即这个元素没有写过，或者抄来的共享内存没人写过）" * poison,))))
        if ("misaligned" in line.lower() and "CPU runner" not in line) and code not in (0, 1):
            run.add("misaligned", line.strip())
    if code == 4:
        run.add("deadlock")
    elif code == 1 and not run.kinds:
        fails = [l.strip() for l in lines if re.search(r"\bFAIL\b|DIFFERS", l)][:3]
        run.add("value", "\n      ".join(fails) or "the program's own check failed (exit 1)")
    elif code not in (0, 1, 4):  # the program's last lines, unless they are the runner's finding already shown
        tail = [l for l in lines if l.strip()][-3:] if "crash" not in run.kinds else []
        signal = " (signal %d%s)" % (-code, ": an access outside memory, an index past an array's end?" if -code in (
            7, 11) else "") if code < 0 else ""
        run.add("crash", "exit %d%s%s" % (code, signal, "".join("\n      " + l for l in tail)))
    return run


def addr2line(program, offsets):
    if not offsets:
        return {}
    out = subprocess.run(["addr2line", "-e", program] + offsets, capture_output=True, text=True).stdout.split("\n")
    return dict(zip(offsets, out))


def read_banks(run, program, path, shown, conflict_free, rows=None):
    """The learner's shared-memory accesses, per line, load or store and width, from the file
    exercises/cpu_banks.c wrote, added to rows (the runs before: a float run's and a double run's lines
    both show); a misaligned access anywhere is a finding."""
    rows = {} if rows is None else rows
    lines = read(path).split("\n") if os.path.exists(path) else []
    codes = sorted({line.split()[1] for line in lines if line.startswith("code ")})
    places = addr2line(program, codes)
    for line in lines:
        words = line.split()
        if len(words) < 20 or words[0] != "code":
            continue
        f = dict(zip(words[0:20:2], words[1:20:2]))
        place = places.get(f["code"], "?").split(" ")[0]
        if int(f["misaligned"]):
            run.add("misaligned", "%s: %s %s of %s bytes at an address not a multiple of %s" % (
                short(place), f["misaligned"], "loads" if f["op"] == "ld" else "stores", f["bytes"], f["bytes"]))
        if not place.startswith(os.path.join(ROOT, shown) + ":") or not int(f["warps"]):
            continue
        key = (int(place.rsplit(":", 1)[1]), f["op"], int(f["bytes"]))
        row = rows.setdefault(key, dict.fromkeys(["warps", "passes", "ideal", "conflicted", "max", "codes"], 0))
        for name in ("warps", "passes", "ideal", "conflicted"):
            row[name] += int(f[name])
        row["max"] = max(row["max"], int(f["max"]))
        row["codes"] = len({f["code"]} | set(row.get("seen", ())))
        row["seen"] = set(row.get("seen", ())) | {f["code"]}
    table = []
    for (line, op, width), row in sorted(rows.items()):
        n, load = row["codes"], op == "ld"
        what = "%d %s%s of %d B" % (n, "load" if load else "store", "s" if n > 1 else "", width)
        zh_what = "%d 条 %d 字节%s" % (n, width, "读" if load else "写")
        mean, ideal = row["passes"] / row["warps"], row["ideal"] / row["warps"]
        table.append((
            "line %d, %s: %.2f passes per warp instruction (%.2f without conflicts), %d at most; %s" % (
                line, what, mean, ideal, row["max"], "%d of %d conflicted" % (row["conflicted"], row["warps"])
                if row["conflicted"] else "no conflict"),
            "第 %d 行，%s：每条线程束指令平均 %.2f 次内存事务（无冲突时 %.2f），最多 %d 次；%s" % (
                line, zh_what, mean, ideal, row["max"], "%d 条中 %d 条有冲突" % (row["warps"], row["conflicted"])
                if row["conflicted"] else "无冲突")))
        if conflict_free and row["conflicted"]:
            run.add("banks", ("line %d, %s: up to %d passes where %.0f would do" % (line, what, row["max"], ideal),
                              "第 %d 行，%s：最多 %d 次内存事务，无冲突时 %.0f 次" % (line, zh_what, row["max"], ideal)))
    return table


def short(place):
    """A path as the learner knows it: from the repository's root, or from the chapter's folder."""
    return re.sub(r"^.*/(ch\d\d_[^/]+/)", r"\1", place.replace(ROOT + "/", ""))


# ----- the GPU: the whole chapter built by its own nvcc line, the sanitizers, Nsight, the timing -----
def cmake_cache(build, name):
    path = os.path.join(build, "CMakeCache.txt")
    m = re.search(r"^%s:\w+=(.*)$" % name, read(path), re.M) if os.path.exists(path) else None
    return m.group(1) if m else None


def tool(build, name):
    """nvcc, compute-sanitizer or ncu: beside the build's nvcc, on PATH, or in /usr/local/cuda/bin."""
    nvcc = cmake_cache(build, "CMAKE_CUDA_COMPILER") or ""
    for candidate in [os.path.join(os.path.dirname(nvcc), name), shutil.which(name) or "",
                      "/usr/local/cuda/bin/" + name]:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def has_gpu(build):
    probe = os.path.join(build, "tests", "has_cuda_device")
    return os.path.exists(probe) and subprocess.run([probe], capture_output=True).returncode == 0


def whole_source(ex, function_text, shown):
    """The chapter's .cu with the function replaced (a #line before and after it)."""
    text = chapter_text(ex)
    start, _, end = function_of(text, ex.function, ex.source)
    return (text[:start] + '#line 1 "%s"\n' % os.path.join(ROOT, shown) + function_text +
            '\n#line %d "%s"\n' % (text[:end].count("\n") + 1, os.path.join(ROOT, ex.source)) + text[end:])


def build_gpu(ex, function_text, shown, build):
    """(program, None) or (None, complaint): the chapter's header's nvcc line (its last; its -o names the
    program), on the copy."""
    nvcc = tool(build, "nvcc")
    line = [l.split("nvcc ", 1)[1] for l in chapter_text(ex).split("\n")[:30] if re.match(r"^ \*\s+nvcc ", l)][-1]
    source = whole_source(ex, function_text, shown)
    name = os.path.basename(ex.source)
    command = [nvcc, "-lineinfo", "-I" + os.path.join(ROOT, os.path.dirname(ex.source))]
    for word in shlex.split(line):
        command.append("-I" + os.path.join(ROOT, "common") if word == "-I../common" else word)
    if not any(w.startswith("-arch") for w in command):
        command.append("-arch=native")
    return cached_build(build, "gpu_%s_%d" % (ex.program, ex.number), name, source, [command], ex.program)


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
        summary = re.findall(r"(?:ERROR|RACECHECK) SUMMARY: (\d+) (?:errors?|hazards?)", output)
        where = re.search(r" in (\S+\.cuh?):(\d+)", output)
        if summary and int(summary[-1]) > 0:
            run.add(kind, "compute-sanitizer --tool %s: %s%s" % (name, summary[-1] + " reported",
                                                                  " at %s:%s" % (os.path.basename(where.group(1)), where.group(2))
                                                                  if where else ""))
        notes.append("compute-sanitizer --tool %s: %s" % (name, summary[-1] + " reported" if summary else "clean"))
    return notes


NCU_METRICS = ["smsp__sass_inst_executed_op_shared_%s.sum", "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_%s.sum"]


def wavefronts(program, args, kernel, build):
    """Nsight Compute's passes per shared load and store of the kernel (SASS-level), or a reason."""
    ncu = tool(build, "ncu")
    if not ncu:
        return None, "ncu not found: Nsight Compute not run | 没有 ncu：未运行 Nsight Compute"
    metrics = ",".join(m % op for m in NCU_METRICS for op in ("ld", "st"))
    output, code = run_program([ncu, "--csv", "--page", "raw", "--metrics", metrics, "--kernel-name",
                                "regex:%s" % kernel, program, "--check"] + args, timeout=900)
    with open(program + ".ncu.txt", "w", encoding="utf-8") as f:
        f.write(output)
    if "ERR_NVGPUCTRPERM" in output or code != 0:
        return None, "Nsight Compute could not read the counters (exit %d) | Nsight Compute 读不到计数器" % code
    rows = [r for r in output.split("\n") if r.startswith('"')]
    header = [h.strip('"') for h in rows[0].split('","')] if rows else []
    sums = {}
    for row in rows[2:]:
        for name, value in zip(header, [v.strip('"') for v in row.split('","')]):
            if name.startswith("smsp__"):
                sums[name] = sums.get(name, 0.0) + float(value.replace(",", "") or 0)
    per = {}
    for op in ("ld", "st"):
        count = sums.get(NCU_METRICS[0] % op, 0)
        if count:
            per[op] = sums.get(NCU_METRICS[1] % op, 0) / count
    return per, None


def timed_ms(program, args, kernel):
    output, code = run_program([program] + args + ["--reps", "20"], timeout=900)
    for line in output.split("\n"):
        if line.startswith("RESULT ") and " kernel=%s " % kernel in line:
            m = re.search(r" ms=([0-9.]+) ", line)
            return float(m.group(1)) if m else None
    return None


def first_error(complaint):
    """The compiler's first error whole (its context lines, the source line, the caret), up to the next
    error or note of another place: not cut after a fixed count of lines."""
    lines = complaint.strip().split("\n")
    first = next((i for i, line in enumerate(lines) if "error" in line), 0)
    start = max(0, first - 2)  # "In function ...", "At global scope" lines before it
    end = next((i for i in range(first + 1, len(lines)) if re.search(r":\d+:\d+: (error|warning)", lines[i])), len(lines))
    text = "\n      ".join(lines[start:min(end, first + 12)])
    return (text, text)  # as it is in both languages: its " | " source lines are not "English | 中文"


def grade_gpu(ex, function_text, shown, build):
    """The runs on the GPU, then the sanitizers, Nsight Compute against the chapter's function, the timing."""
    program, complaint = build_gpu(ex, function_text, shown, build)
    notes = []
    if not program:
        run = Run([])
        run.add("compile", first_error(complaint))
        return [run], notes
    runs = []
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
        mine, why = wavefronts(program, first, kernel, build)
        theirs, _ = wavefronts(reference, first, kernel, build) if mine else (None, None)
        if mine and theirs:
            for op in sorted(mine):
                worse = mine[op] > theirs.get(op, mine[op]) * 1.02
                if worse:
                    runs[0].add("banks", "Nsight Compute: %.2f passes per shared %s, the chapter's %.2f" % (
                        mine[op], "load" if op == "ld" else "store", theirs[op]))
                notes.append(("Nsight Compute: %.2f passes per shared %s (the chapter's function: %.2f)" % (
                    mine[op], "load" if op == "ld" else "store", theirs.get(op, float("nan"))),
                              "Nsight Compute：每条共享内存%s %.2f 次内存事务（本章的函数：%.2f）" % (
                    "读" if op == "ld" else "写", mine[op], theirs.get(op, float("nan")))))
        else:
            notes.append(why or "Nsight Compute counted no shared-memory instruction | Nsight Compute 未计到共享内存指令")
    for args in ex.times:
        kernel_row = args[args.index("--kernel") + 1] if "--kernel" in args else None
        mine, theirs = timed_ms(program, args, kernel_row), timed_ms(reference, args, kernel_row) if reference else None
        if mine and theirs:
            notes.append(("%s: %.3f ms, the chapter's %.3f ms (%.2f times its time)" % (
                " ".join(args), mine, theirs, mine / theirs),
                          "%s：%.3f 毫秒，本章的 %.3f 毫秒（其 %.2f 倍）" % (" ".join(args), mine, theirs, mine / theirs)))
    return runs, notes


# ----- running and reporting -----
def run_program(command, env=None, timeout=300):
    """(stdout and stderr, exit code), run in the program's folder (a chapter may save a picture there)."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env,
                              cwd=os.path.dirname(command[0]) or None)
        return done.stdout + done.stderr, done.returncode
    except subprocess.TimeoutExpired as e:
        return (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), 4


def grade_cpu(ex, function_text, shown, build):
    """The runs on the CPU runner; the first failing run stops the grading (one screen)."""
    program, complaint = build_cpu(ex, function_text, shown, build)
    if not program:
        run = Run([])
        run.add("compile", first_error(complaint))
        return [run], []
    runs, table, accesses = [], [], {}
    for args in ex.runs:
        banks = os.path.join(os.path.dirname(program), "banks.%d.txt" % os.getpid())
        # A kernel spinning 20 s in one block never ends: the runner stops it then (its own limit is 120 s).
        env = dict(os.environ, EXERCISE_BANKS_FILE=banks,
                   CUDA_CPU_SPIN_LIMIT_S=os.environ.get("CUDA_CPU_SPIN_LIMIT_S", "20"))
        output, code = run_program([program, "--cpu", "--check"] + args, env)
        run = read_output(Run(args), output.replace(ROOT + "/", ""), code)
        table = read_banks(run, program, banks, shown, ex.banks, accesses)
        if os.path.exists(banks):
            os.remove(banks)
        runs.append(run)
        if run.kinds:
            break
    return runs, table


def say(lang, text):
    """text in the language asked: "English | 中文" or ("English", "中文"); a plain string as it is."""
    if isinstance(text, tuple):
        en, zh = text
    else:
        en, _, zh = text.partition(" | ")
    return {"en": en, "zh": zh or en, "both": en + (" / " + zh if zh else "")}[lang]


def say_lines(lang, text):
    """Like say(), a line each for both languages: for the longer lines."""
    if lang == "both" and isinstance(text, tuple):
        return list(text) if text[0] != text[1] else [text[0]]
    return [say(lang, text)]


def report(runs, table, notes, lang, where):
    """One section of the screen: where it ran, each run, the bank table, the notes; returns the kinds."""
    print("  %s" % say(lang, where))
    for run in runs:
        command = " ".join(["--check"] + run.args) if run.args else say(lang, "(the build) | （构建）")
        print("  %s %s" % ("FAIL" if run.kinds else "ok  ", command))
        for kind in sorted(run.kinds, key=KINDS.index):  # the cause first: a barrier before the race it lets in
            print("    %s" % say(lang, WORDS[kind]))
        for detail in run.details:
            for line in say_lines(lang, detail):
                print("      " + line)
    if table:
        print("  %s" % say(lang, "your shared-memory accesses, by the bank model | 你的共享内存访问（bank 模型）"))
    for row in table + notes:
        for line in say_lines(lang, row):
            print("    " + line)
    return [k for run in runs for k in run.kinds]


def verdict_line(kinds, lang):
    if not kinds:
        return say(lang, WORDS["pass"])
    found = sorted(set(kinds), key=KINDS.index)
    en = "FAIL: " + "; ".join(WORDS[k].split(" | ")[0] for k in found)
    zh = "未通过：" + "；".join(WORDS[k].split(" | ")[1] for k in found)
    return {"en": en, "zh": zh, "both": en + "\n" + zh}[lang]


def grade_predict(ex, text, build, lang):
    """A prediction exercise: the learner's numbers against the chapter's --bank-model."""
    program = os.path.join(build, os.path.dirname(ex.source), ex.program)
    output, code = run_program([program, "--bank-model"])
    if code != 0:
        sys.exit("grade.py: %s --bank-model exited %d: build the chapter first" % (program, code))
    passes = {}
    for line in output.split("\n"):
        fields = line.split("\t")
        if len(fields) > 4 and not line.startswith("#"):
            passes.setdefault((fields[0], fields[1]), fields[4])
    given = dict((l.split("=")[0].strip(), l.split("=", 1)[1].strip()) for l in text.split("\n")
                 if "=" in l and not l.lstrip().startswith("#"))
    print("%s: %s" % (ex.name, say(lang, ex.title["en"] + " | " + ex.title["zh"])))
    wrong = 0
    for label, kernel, access in ex.predicts:
        truth, mine = passes.get((kernel, access)), given.get(label, "?")
        if truth is None:
            sys.exit("grade.py: %s --bank-model has no line %s / %s" % (program, kernel, access))
        number = re.match(r"\s*(\d+)", unicodedata.normalize("NFKC", mine))  # "2", "２", "2 次", "2 passes"
        ok = bool(number) and number.group(1) == truth
        wrong += not ok
        # The answer only once predicted: an untouched "?" (or no number) says so instead of giving it away.
        print("  %s %-28s %s %s" % ("ok  " if ok else "FAIL", label, mine, "" if ok else say(lang, (
            "(the bank model: %s) | （bank 模型：%s）" % (truth, truth)) if number else
            "(no number yet: predict it, then grade) | （还没有填数：先预测，再评分）")))
    print(say(lang, WORDS["pass"]) if not wrong else say(lang, "FAIL: %d of %d wrong | 未通过：%d 个中有 %d 个不对" % (
        wrong, len(ex.predicts), len(ex.predicts), wrong)))
    return ["value"] if wrong else []


def predict_file(ex, answers=None, lang="both"):
    english = ["# Exercise %s: %s" % (ex.name, ex.title["en"]), wrapped(ex.todo["en"], "# "),
               "# Grade it:  scripts/grade.py %s %d" % (ex.program, ex.number)]
    chinese = ["# 练习 %s：%s" % (ex.name, ex.title["zh"]), wrapped(ex.todo["zh"], "# "),
               "# 评分：  scripts/grade.py %s %d --lang zh" % (ex.program, ex.number)]
    lines = {"en": english, "zh": chinese, "both": english + chinese}[lang]
    for i, (label, _, _) in enumerate(ex.predicts):
        lines.append("%s = %s" % (label, answers[i] if answers else "?"))
    return "\n".join(lines) + "\n"


def main(argv):
    parser = argparse.ArgumentParser(usage=__doc__)
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
    parser.add_argument("--harness", nargs=2, metavar=("PROGRAM", "OUT"))
    parser.add_argument("--check-specs", action="store_true")
    parser.add_argument("--tests", action="store_true")
    parser.add_argument("--readme", choices=["en", "zh"])
    parser.add_argument("--check-predictions", action="store_true")
    a = parser.parse_args(argv)
    try:
        if a.harness:
            # The chapter's own path, whole: a finding in the harness's lines names ch08_banks/banks.cu, not a
            # path under the build folder the compiler would join a relative #line to.
            text = rewrite_for_cpu(harness_text(a.harness[0]), os.path.join(ROOT, chapter_functions(a.harness[0])[0]))
            with open(a.harness[1], "w", encoding="utf-8") as f:
                f.write(text)
            return 0
        if a.check_specs:
            return check_specs()
        if a.check_predictions:
            return check_predictions(os.path.abspath(a.build))
        if a.tests:  # for exercises/CMakeLists.txt: one test per variant, with its expected verdict
            for ex in all_exercises():
                print("%s %d solution PASS" % (ex.program, ex.number))
                print("%s %d stub %s" % (ex.program, ex.number, ",".join(ex.stub_kinds)))
                for wrong in ex.wrongs:
                    print("%s %d wrong:%s %s" % (ex.program, ex.number, wrong.name, ",".join(wrong.kinds)))
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
        ex = exercise(a.program, a.number)
        return grade(ex, a)
    except SpecError as e:
        print("grade.py: %s" % e, file=sys.stderr)
        return 2


def grade(ex, a):
    build = os.path.abspath(a.build)
    if a.variant:
        if ex.predicts:
            wrong = next((w for w in ex.wrongs if "wrong:" + w.name == a.variant), None)
            text = predict_file(ex, wrong.answers if wrong else None if a.variant == "stub" else
                                [truth_of(ex, build, p) for p in ex.predicts])
        else:
            text, shown = variant_text(ex, a.variant)
            shown_file = "exercises/variants/%s_%d_%s.cu" % (ex.program, ex.number, a.variant.replace(":", "_"))
    else:
        path = os.path.abspath(a.file) if a.file else os.path.join(MINE, "%s_%d.%s" % (
            ex.program, ex.number, "txt" if ex.predicts else "cu"))
        if a.stub or not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(predict_file(ex, lang=a.lang) if ex.predicts else stub_file(ex, a.lang))
            print("%s: %s\n  %s" % (ex.name, say(a.lang, ex.title["en"] + " | " + ex.title["zh"]), say(
                a.lang, "written: %s — edit it, then run this again | 已生成 %s，改好后再运行本命令" % (
                    os.path.relpath(path), os.path.relpath(path)))))
            return 1
        text, shown_file = read(path), os.path.relpath(path, ROOT)
        shown = shown_file
    if ex.predicts:
        return verdict_exit(grade_predict(ex, text, build, a.lang), a.expect)
    print("%s: %s — %s" % (ex.name, say(a.lang, ex.title["en"] + " | " + ex.title["zh"]), say(a.lang, shown)))
    unnamed = False  # a run with a wrong value whose screen names no first wrong element
    if not find_function(text, ex.function):
        kinds = ["compile"]
        print("  %s" % say(a.lang, "no definition of %s in %s: the grader replaces that function | %s 中没有 %s 的定义："
                                   "评分替换的正是这个函数" % (ex.function, shown_file, shown_file, ex.function)))
    else:
        kinds, graded = [], False
        if config(build, ex.program):
            runs, table = grade_cpu(ex, text, shown_file, build)
            unnamed |= any("value" in run.kinds and not run.first_wrong for run in runs)
            if not ex.banks and any(run.kinds for run in runs):
                table = []  # one screen: the passes matter here only when the exercise is about them
            kinds += report(runs, table, [], a.lang, "on the CPU runner: the chapter's own checks, every shared-memory "
                                                     "access watched | 在 CPU 运行器上：本章自带的检查，监视每次共享内存访问")
            graded = True
        if not a.cpu and tool(build, "nvcc") and has_gpu(build):
            runs, notes = grade_gpu(ex, text, shown_file, build)
            unnamed |= any("value" in run.kinds and not run.first_wrong for run in runs)
            kinds += report(runs, [], notes, a.lang, "on the GPU: the chapter's own checks, the sanitizers, Nsight "
                                                     "Compute, the time | 在 GPU 上：本章自带的检查、compute-sanitizer、"
                                                     "Nsight Compute、计时")
            graded = True
        if not graded:
            print("  %s" % say(a.lang, "nothing to grade with: neither the CPU runner's harness (cmake --build %s "
                                       "first, or --build DIR) nor a GPU | 无从评分：既没有 CPU 运行器的框架（请先 "
                                       "cmake --build %s，或用 --build 指定构建目录）也没有 GPU" % (build, build)))
            return 2
    print(verdict_line(kinds, a.lang))
    return verdict_exit(kinds, a.expect, unnamed)


def truth_of(ex, build, predict):
    program = os.path.join(build, os.path.dirname(ex.source), ex.program)
    output, _ = run_program([program, "--bank-model"])
    for line in output.split("\n"):
        fields = line.split("\t")
        if len(fields) > 4 and (fields[0], fields[1]) == predict[1:]:
            return fields[4]
    return "?"


def verdict_exit(kinds, expect, unnamed=False):
    """The exit code; with --expect, a value verdict must also name the first wrong element (unless unnamed
    is False: a prediction, or no run whose value was wrong)."""
    if not expect:
        return 1 if kinds else 0
    if expect == "PASS":
        ok = not kinds
    else:
        ok = all(kind in kinds for kind in expect.split(","))
        if ok and "value" in expect.split(",") and unnamed:
            ok = False
            print("a wrong value, but the screen does not name the first wrong element")
    print("expected %s: %s" % (expect, "yes" if ok else "NO"))
    return 0 if ok else 1


def readme_table(lang):
    """The exercises as a table for exercises/README*.md (between its exercises:begin/end markers)."""
    zh = lang == "zh"
    head = ("| 练习 | 写什么 | 已知的错误答案 → 评分结果 |" if zh else "| exercise | you write | known wrong answers → verdict |")
    rows = [head, "| --- | --- | --- |"]
    for ex in all_exercises():
        title = ex.title["zh" if zh else "en"]
        what = ("预测 %d 个数" % len(ex.predicts) if zh else "%d predictions" % len(ex.predicts)) if ex.predicts else (
            "`%s`%s" % (ex.function, "（从 `%s` 改起）" % ex.stub_from if zh else " (from `%s`)" % ex.stub_from)
            if ex.stub_from else "`%s`" % ex.function)
        stub = "%s → %s" % ("初始文件" if zh else "the stub", ", ".join(ex.stub_kinds))
        wrongs = "; ".join("%s → %s" % (w.name, ", ".join(w.kinds)) for w in ex.wrongs)
        rows.append("| `%s %d` %s | %s | %s; %s |" % (ex.program, ex.number, title, what, stub, wrongs))
    return "\n".join(rows)


PREDICT = re.compile(r"<!-- predict(-run)?: (.*?) -->", re.S)


def check_predictions(build, root=ROOT):
    """Each lesson's "Predict, then run" answers, held against the program: a `predict` annotation's
    checks are tests/expect_bank_model.py's against --bank-model; a `predict-run` one runs the program
    (exit=N, then regular expressions its output must match). The Chinese page's are the English's."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import expect_bank_model
    failed = checked = 0
    for chapter in sorted(d for d in os.listdir(root) if re.match(r"ch\d\d_", d)):
        pages = [read(os.path.join(root, chapter, name)) for name in ("README.md", "README.zh-CN.md")]
        found = [PREDICT.findall(page) for page in pages]
        if found[0] != found[1]:
            print("%s: the two pages' predictions differ: %s / %s" % (chapter, found[0], found[1]))
            failed += 1
        for kind, annotation in found[0]:
            words = shlex.split(annotation)
            split = words.index("--")
            program = [os.path.join(build, chapter, words[0])] + words[1:split]
            if not os.path.exists(program[0]):
                print("%s: not built here (%s): its predictions are not checked" % (chapter, program[0]))
                continue
            checks, checked = words[split + 1:], checked + 1
            if not kind:
                failed += expect_bank_model.main(program + ["--"] + checks) != 0
                continue
            output, code = run_program(program)
            for check in checks:
                good = code == int(check[5:]) if check.startswith("exit=") else re.search(check, output, re.M)
                if not good:
                    failed += 1
                    print("%s: %s: %s does not hold (exit %d)" % (chapter, " ".join(words[:split]), check, code))
    print("%d predictions checked, %d failed" % (checked, failed))
    return 1 if failed else 0


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
            harness_text(ex.program)
            count += 1
        except SpecError as e:
            problems.append(str(e))
    for problem in problems:
        print(problem)
    print("%d exercises generate from the chapters' sources" % count if not problems else "")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
