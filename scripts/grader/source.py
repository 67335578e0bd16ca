"""Source surgery: a function found in a chapter's C++ by name, the learner's function put in its place, the
stub and the wrong answers made from the chapter's own function, the chapter whole with the learner's function."""
import os
import re

from layout import ROOT

from .spec import SpecError


def code_only(text):
    """The text with comments, strings and character literals blanked (same length, same lines). It ends on any
    text: each step moves past what it blanked, and what is left open (a /* never closed, a string never closed,
    a backslash at the end) runs to the end of the file, or for a string to the end of its line."""
    out, i, n = list(text), 0, len(text)
    while i < n:
        two = text[i:i + 2]
        if two == "//":
            end = text.find("\n", i)
        elif two == "/*":
            end = text.find("*/", i + 2)
            end = end + 2 if end >= 0 else n
        elif text[i] in "\"'":
            end = i + 1
            while end < n and text[end] not in (text[i], "\n"):
                end += 2 if text[end] == "\\" else 1  # a backslash-newline goes on to the next line, as in C
            end += 1
        else:
            i += 1
            continue
        end = n if end < 0 else min(end, n)
        for j in range(i, end):
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
    body = "\n".join(lines)
    for en, zh in ex.comments if lang != "en" else []:  # the chapter's comments it keeps, in Chinese too
        if "/* %s */" % en not in body:
            raise SpecError("%s: comment %r: not in the starting file" % (ex.name, en))
        body = body.replace("/* %s */" % en, "/* %s */" % (zh if lang == "zh" else en + " / " + zh))
    return body


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
               " * 评分时用它替换 %s 中的 %s，那个文件的其余部分不变。详见 exercises/README.zh-CN.md。" % (
                   ex.source, ex.function)]
    header = {"en": english, "zh": chinese, "both": english + [" *"] + [" * " + l[3:] if l.startswith("/* ") else l
                                                                      for l in chinese]}[lang]
    return "\n".join(header) + " */\n" + stub_function(ex, lang) + "\n"


def predict_file(ex, answers=None, lang="both"):
    english = ["# Exercise %s: %s" % (ex.name, ex.title["en"]), wrapped(ex.todo["en"], "# "),
               "# Grade it:  scripts/grade.py %s %d" % (ex.program, ex.number)]
    chinese = ["# 练习 %s：%s" % (ex.name, ex.title["zh"]), wrapped(ex.todo["zh"], "# "),
               "# 评分：  scripts/grade.py %s %d --lang zh" % (ex.program, ex.number)]
    lines = {"en": english, "zh": chinese, "both": english + chinese}[lang]
    for i, (label, _, _) in enumerate(ex.predicts):  # a Chinese file has the Chinese labels; grade.py takes either
        lines.append("%s = %s" % (ex.label_zh.get(label, label) if lang == "zh" else label, answers[i] if answers else "?"))
    return "\n".join(lines) + "\n"


def variant_text(ex, variant):
    """(text, shown name) of the function to grade: solution, stub, or wrong:NAME."""
    if variant == "solution":
        return solution(ex), ("the chapter's %s%s" % (ex.function, " with the lesson's change" * bool(
            ex.solution_edits)), "本章的 %s%s" % (ex.function, "（按课文改动）" * bool(ex.solution_edits)))
    if variant == "stub":
        return stub_file(ex), ("the stub", "初始文件")
    wrong = next((w for w in ex.wrongs if "wrong:" + w.name == variant), None)
    if not wrong:
        raise SpecError("%s: no variant '%s'" % (ex.name, variant))
    name = wrong.name
    base = stub_function(ex, "en") if wrong.base == "stub" else solution(ex)  # the edits quote the chapter's words
    why_en, _, why_zh = wrong.why.partition(" | ")
    return apply_edits(base, wrong.edits, "%s: wrong %s" % (ex.name, name)), (
        "wrong answer %s: %s" % (name, why_en), "错误答案 %s：%s" % (name, why_zh or why_en))


def whole_source(ex, function_text, shown):
    """The chapter's .cu with the function replaced (a #line before and after it)."""
    text = chapter_text(ex)
    start, _, end = function_of(text, ex.function, ex.source)
    return (text[:start] + '#line 1 "%s"\n' % os.path.join(ROOT, shown) + function_text +
            '\n#line %d "%s"\n' % (text[:end].count("\n") + 1, os.path.join(ROOT, ex.source)) + text[end:])
