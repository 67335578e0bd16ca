"""The exercises' spec files (exercises/*.spec): what each exercise is, its stub, its known wrong answers."""
import os
import re
import shlex

from layout import PROGRAMS, ROOT

SPECS = os.path.join(ROOT, "exercises")


KINDS = ["compile", "crash", "deadlock", "barrier", "race", "unwritten", "misaligned", "value", "banks", "coalescing"]


STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


class SpecError(Exception):
    pass


class Exercise:
    def __init__(self, program, source, number):
        self.program, self.source, self.number = program, source, number
        self.title, self.todo = {}, {"en": [], "zh": []}
        self.function = self.stub_from = None
        self.blanks, self.runs, self.times, self.solution_edits, self.wrongs = [], [], [], [], []
        self.comments = []  # (English, 中文): a comment of the chapter's that the starting file keeps, in Chinese
        self.stub_kinds, self.banks, self.predicts, self.label_zh = [], False, [], {}
        self.coalescing = None  # the sectors per warp instruction a global access may take over its ideal

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
        elif key == "coalescing":
            if not re.fullmatch(r"\d+(\.\d+)?", rest):
                raise SpecError("%s: 'coalescing' takes the sectors per request allowed over the ideal (a number)" % where)
            ex.coalescing = float(rest)
        elif key == "comment":
            ex.comments.append(strings(rest, (2,), where))
        elif key == "solution_edit":
            ex.solution_edits.append(strings(rest, (2,), where))
        elif key == "stub":
            ex.stub_kinds = kinds_of(rest, where)
        elif key == "predict":
            label, _, source_line = rest.partition(" = ")
            kernel, access = (strings(source_line, (1, 2), where) + [None])[:2]  # a kernel alone: its bytes per FLOP
            label, _, zh = (part.strip() for part in label.partition(" | "))
            ex.predicts.append((label, kernel, access))
            ex.label_zh[label] = zh or label
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
        if any(access is None for _, _, access in ex.predicts) and not ex.runs:
            raise SpecError("%s: exercise %d predicts a kernel's bytes per FLOP: it needs a run" % (path, ex.number))
    return exercises


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
    raise SpecError("no exercise '%s %d' (scripts/grade.py --list)" % (program, number))
