#!/usr/bin/env python3
"""The documents a learner reads: every chapter has its lesson in both languages,
every relative link and image resolves, and the generated blocks between markers
hold the same in the English and the Chinese file: line by line the same figures
and the same kind of line (a table row of as many cells, a heading, an image),
their code blocks verbatim; only the words may differ (plot.py and sass_excerpts.py
write the Chinese page's headers, captions and pictures' names in Chinese). Each lesson shows its kernels'
code as the real lines of its .cu (a ```cuda block after a line <!-- code: PATH -->:
split at lines "// ...", each piece must stand in PATH verbatim), keeps its
unfolded prose short (outside code, tables, HTML comments and <details>: at most
MAX_CJK Chinese characters, MAX_WORDS English words), and the Chinese follows the
term table of docs/GLOSSARY.zh-CN.md (its "用词约定" section: no word of its
"不用" column, except inside a phrase of its "例外" column). Every figure annotation
(<!-- figure: PROSE = SOURCE @ PATH -->) must hold, and on the lessons of FIGURE_PAGES every
measured figure of the unfolded prose must have one (see FIGURE below). No GPU needed.

    python3 tests/test_docs.py [REPO]      (exit 0: all good; 1: what is wrong, one line each)
"""
import decimal
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from grader.source import find_function  # noqa: E402  the grader's definition finder: comments and strings blanked
from layout import CHAPTERS, chapters as listed  # noqa: E402

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
MARKER = re.compile(r"<!-- ([\w:.,-]+):begin -->(.*?)<!-- \1:end -->", re.S)  # results, results:dot, run:banks


def documents(repo):
    """README*.md at the top and in every chapter, and docs/*.md."""
    found = []
    for folder in ["."] + chapters(repo) + ["docs"]:
        path = os.path.join(repo, folder)
        if os.path.isdir(path):
            found += [os.path.join(folder, f) for f in sorted(os.listdir(path)) if f.endswith(".md")]
    return found


def chapters(repo):
    return list(listed(repo))  # chapters.txt's


def broken_links(repo, document):
    """Relative links and images of one document whose target does not exist; from a Chinese
    document, links to an English page (or a folder, which shows its English README) that has a
    Chinese counterpart."""
    base = os.path.dirname(os.path.join(repo, document))
    text = open(os.path.join(repo, document), encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold commands, not links
    problems = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = target.split("#")[0]
        full = os.path.normpath(os.path.join(base, path))
        if path and not os.path.exists(full):
            problems.append(f"{document}: broken link {target}")
        elif path and document.endswith(".zh-CN.md"):
            page = os.path.join(full, "README.md") if os.path.isdir(full) else full
            own = os.path.normpath(os.path.join(repo, document))[:-len(".zh-CN.md")] + ".md"  # the language switch
            if page.endswith(".md") and not page.endswith(".zh-CN.md") and os.path.exists(page[:-3] + ".zh-CN.md") \
                    and page != own:
                problems.append(f"{document}: links to the English {target}, which has a Chinese counterpart")
    return problems


MAX_CJK = 2200    # about ten minutes of reading, the lesson's unfolded text
MAX_WORDS = 1300  # the English of the same lesson
CODE = re.compile(r"^<!-- code: (\S+) -->\n```(?:cuda|c|cpp)\n(.*?)^```", re.S | re.M)


def code_problems(repo, document):
    """Code blocks of a lesson that are not the real lines of the file they name."""
    text = open(os.path.join(repo, document), encoding="utf-8").read()
    problems = []
    for source, body in CODE.findall(text):
        path = os.path.join(repo, source)
        if not os.path.exists(path):
            problems.append(f"{document}: code block from {source}, which does not exist")
            continue
        lines = open(path, encoding="utf-8").read().split("\n")
        pieces, piece = [], []
        for line in body.rstrip("\n").split("\n"):
            if line.strip() == "// ...":
                pieces.append(piece)
                piece = []
            else:
                piece.append(line)
        pieces.append(piece)
        for piece in filter(None, pieces):
            if not any(lines[i:i + len(piece)] == piece for i in range(len(lines) - len(piece) + 1)):
                problems.append(f"{document}: code block from {source} is not its text: {piece[0].strip()[:60]!r}")
    return problems


# A sanitizer's frame in a quoted excerpt: "at void reduce_warp_unrolled<float>(const T1 *, ...)+0x3b0 in reduce.cu:252"
FRAME = re.compile(r"(\w+)(?:<(?:[^<>()]|\([^()]*\))*>)?\((?:[^()]|\([^()]*\))*\)\+0x[0-9a-f]+ in (\w+\.cu):(\d+)")


def quoted_line_problems(repo, document):
    """Excerpts that name a function and a line of a chapter's .cu where that line is no longer in that
    function: the code moved under a quoted excerpt (the lesson would send a reader to other code)."""
    text = open(os.path.join(repo, document), encoding="utf-8").read()
    problems = []
    for function, name, line in sorted(set(FRAME.findall(text))):
        folders = [os.path.dirname(document)] + chapters(repo)
        path = next((os.path.join(repo, f, name) for f in folders if os.path.isfile(os.path.join(repo, f, name))), None)
        if not path:
            problems.append(f"{document}: quotes {name}:{line}, and no chapter has {name}")
            continue
        source = open(path, encoding="utf-8").read()
        found = find_function(source, function)
        first, last = (source[:found[0]].count("\n") + 1, source[:found[2]].count("\n") + 1) if found else (0, -1)
        if not first <= int(line) <= last:
            problems.append(f"{document}: quotes {name}:{line} in {function}, which is "
                            f"{'lines %d-%d' % (first, last) if found else 'not defined there'} now")
    return problems


# A command line in a document that runs a script by its path: "scripts/grade.py dot 1", "$ scripts/x.sh"
RUN_BY_PATH = re.compile(r"^\s*(?:\$ )?(scripts/[\w.]+\.(?:py|sh))\b", re.M)


def unrunnable_scripts(repo, document):
    """Scripts a document runs by their path (no python3 or bash before) that a fresh clone cannot run:
    git keeps the execute bit, so a file without it is "Permission denied" for every reader."""
    text = open(os.path.join(repo, document), encoding="utf-8").read()
    return [f"{document}: runs {script}, which is not executable (git update-index --chmod=+x {script})"
            for script in sorted(set(RUN_BY_PATH.findall(text)))
            if os.path.isfile(os.path.join(repo, script)) and not os.access(os.path.join(repo, script), os.X_OK)]


def unfolded(text):
    """The prose a reader meets without unfolding anything: no code blocks, HTML comments, folded
    <details>, tables or generated blocks."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"<details>.*?</details>", "", text, flags=re.S)
    text = MARKER.sub("", text)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("|"))


def length_problems(repo, chapter):
    problems = []
    for name, limit, count in (("README.zh-CN.md", MAX_CJK, lambda t: len(re.findall(r"[\u4e00-\u9fff]", t))),
                               ("README.md", MAX_WORDS, lambda t: len(re.findall(r"[A-Za-z][A-Za-z'-]*", t)))):
        path = os.path.join(repo, chapter, name)
        if not os.path.exists(path):
            continue
        text = open(path, encoding="utf-8").read()
        found = count(unfolded(text))
        if found > limit:
            unit = "Chinese characters" if name.endswith("zh-CN.md") else "English words"
            problems.append(f"{chapter}/{name}: {found} {unit} unfolded (at most {limit}: fold the rest in <details>)")
        if not CODE.search(text):
            problems.append(f"{chapter}/{name}: shows no code (a ```cuda block after <!-- code: PATH -->)")
    return problems


def term_table(repo):
    """The "用词约定" table of docs/GLOSSARY.zh-CN.md: [(word to avoid, [phrases that may hold it])]."""
    path = os.path.join(repo, "docs", "GLOSSARY.zh-CN.md")
    if not os.path.exists(path):
        return []
    text = open(path, encoding="utf-8").read()
    section = re.search(r"^## [^\n]*用词约定[^\n]*\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    avoid = []
    for line in (section.group(1).split("\n") if section else []):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1] and not set(cells[1]) <= set("- ") and cells[1] != "不用":
            allowed = [a.strip("` ") for a in re.split(r"[、，,]", cells[2]) if a.strip("` ")]
            avoid += [(word.strip("` "), allowed) for word in re.split(r"[、，,]", cells[1]) if word.strip("` ")]
    return avoid


def term_problems(repo, document, avoid):
    text = open(os.path.join(repo, document), encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"^## [^\n]*用词约定.*?(?=^## |\Z)", "", text, flags=re.S | re.M)  # the table itself
    problems = []
    for word, allowed in avoid:
        for match in re.finditer(re.escape(word), text):
            around = text[max(0, match.start() - 8):match.end() + 8]
            if not any(a in around and word in a for a in allowed):
                line = text.count("\n", 0, match.start()) + 1
                problems.append(f"{document}:{line}: '{word}' (the term table says what to write instead)")
    return problems


# Figure provenance. A measured figure in a lesson's prose is followed, in its paragraph, by
#     <!-- figure: PROSE_TEXT = SOURCE_TEXT @ PATH -->     or, when the two are the same,
#     <!-- figure: TEXT @ PATH -->
# PATH is from the repository root: a file of a GPU run (docs/results/<gpu>/...) or a page whose
# generated blocks (<!-- NAME:begin --> ... <!-- NAME:end -->) hold SOURCE_TEXT. PROSE_TEXT must
# stand in the prose of the paragraph before the annotation, SOURCE_TEXT in PATH, and where they
# differ, the numbers PROSE_TEXT shows must be the last numbers of SOURCE_TEXT rounded to the
# digits shown ("1,234", "0.0088", "17 %", "14.9 万"), so a GPU rerun that changes a figure fails
# here instead of leaving the prose stale. Text is compared with each run of white space as one.
# An annotation goes at the end of its sentence's line (or in the table cell it sources): on a line
# of its own, inside a paragraph, it would split the paragraph; after a table, add an empty row.
FIGURE = re.compile(r"<!-- figure: (.*?) -->", re.S)
FIGURE_SOURCES = re.compile(r"docs/results/(h100|h200)/[^/]+")
# Lessons whose unfolded prose must annotate every measured figure (a number with a unit of time,
# bandwidth, share, ratio or cycles). The other chapters join once their figures are annotated.
FIGURE_PAGES = {f"{chapter}/{page}" for chapter in CHAPTERS for page in ("README.md", "README.zh-CN.md")}
NUMBER = re.compile(r"(?:\d{1,3}(?:,\d{3}(?!\d))+|\d+)(?:\.\d+)?(?:[eE][+-]?\d+)?(?:\s?万)?")  # 1,234 or 1234
MEASURED = re.compile(r"(?<![\w.^/-])((?:\d{1,3}(?:,\d{3}(?!\d))+|\d+)(?:\.\d+)?)\s?万?\s?"
                      r"(?:(?:ms|µs|us|ns|GB/s|GiB/s|TB/s|cycles?)\b|微秒|毫秒|纳秒|%|倍|个?周期|[x×](?![\w.])(?!\s*[-+*/=^(\d]))")  # not 32 x 33, 32x + y, 255 × (
# Numbers with a unit that are not measurements, so need no source: (pattern, why). Keep it short.
# MEASURED itself skips products and formulas (32 x 33, 32x + y, 255 × (), and the lessons quote the
# books' own tables without a unit after each figure.
NOT_MEASURED = [
    (re.compile(r"至少是 L2 的 8 倍|小于 L2 的 4 倍"), "a buffer's size the program chooses against the L2's"),
    (re.compile(r"至少是共享内存的 2 倍"), "the threshold of shared_vs_global's verdict"),
]


def one_space(text):
    return re.sub(r"\s+", " ", text).strip()


def without_folds(text, keep_folds):
    """The text with code blocks, generated blocks (and, unless keep_folds, <details>) replaced by
    as many empty lines, so that positions keep their line numbers and paragraphs their ends."""
    blank = lambda m: "\n" * m.group(0).count("\n")
    text = re.sub(r"```.*?```", blank, text, flags=re.S)
    if not keep_folds:
        text = re.sub(r"<details>.*?</details>", blank, text, flags=re.S)
    return MARKER.sub(blank, text)


def paragraphs(text):
    """(first line number, text) of each run of non-blank lines."""
    found, lines, start = [], [], 0
    for number, line in enumerate(text.split("\n") + [""], 1):
        if line.strip():
            if not lines:
                start = number
            lines.append(line)
        elif lines:
            found.append((start, "\n".join(lines)))
            lines = []
    return found


def shown_numbers(text):
    """[(value, the place of its last digit shown, how many trailing zeros it may round)]."""
    found = []
    for match in NUMBER.finditer(text):
        digits = match.group(0).replace(",", "").replace(" ", "")
        scale = 4 if digits.endswith("万") else 0
        value = decimal.Decimal(digits.rstrip("万")).scaleb(scale)
        exponent = value.as_tuple().exponent
        integer = digits.rstrip("万").split(".")[0].split("e")[0].split("E")[0]
        zeros = len(integer) - len(integer.rstrip("0")) if "." not in digits and integer.strip("0") else 0
        found.append((value, exponent, zeros))
    return found


def rounds_to(prose, source):
    """The numbers of prose are the last numbers of source, rounded to the digits prose shows."""
    shown, exact = shown_numbers(prose), shown_numbers(source)
    if not shown or len(exact) < len(shown):
        return False
    for (value, place, zeros), (truth, truth_place, _) in zip(shown, exact[len(exact) - len(shown):]):
        if place < truth_place:  # more digits than the source has
            return False
        if not any(truth.quantize(decimal.Decimal(1).scaleb(place + k), rounding=mode) == value
                   for k in range(zeros + 1) for mode in (decimal.ROUND_HALF_UP, decimal.ROUND_HALF_EVEN)):
            return False
    return True


def figure_problems(repo, document, check_unannotated):
    """Annotations of a document whose figure is not where it says; with check_unannotated, also the
    measured figures of its unfolded prose that no annotation of their paragraph covers."""
    text = open(os.path.join(repo, document), encoding="utf-8").read()
    problems = []
    for start, paragraph in paragraphs(without_folds(text, keep_folds=True)):
        for match in FIGURE.finditer(paragraph):
            line = start + paragraph.count("\n", 0, match.start())
            where = f"{document}:{line}: figure"
            before_line = paragraph[:match.start()].rstrip(" ")
            after = re.sub(r"<!--.*?-->", "", paragraph[match.end():], flags=re.S).strip()
            if before_line.endswith("\n") and (after or before_line.rstrip().split("\n")[-1].lstrip().startswith("|")):
                problems.append(f"{where} annotation starts a line inside a paragraph (Markdown ends the paragraph "
                                f"there, or adds a table row): put it at the end of its sentence's line")
            body, at, path = match.group(1).rpartition(" @ ")
            if not at:
                problems.append(f"{where} annotation without ' @ PATH': {match.group(0)}")
                continue
            prose, equals, source = (one_space(part) for part in body.partition(" = "))
            source = source if equals else prose
            before = one_space(re.sub(r"<!--.*?-->", " ", paragraph[:match.start()], flags=re.S))
            if prose not in before:
                problems.append(f"{where} '{prose}' is not in the prose of its paragraph before the annotation")
            full = os.path.join(repo, path.strip())
            if not os.path.isfile(full) or not (FIGURE_SOURCES.fullmatch(path.strip()) or path.strip().endswith(".md")):
                problems.append(f"{where} source {path.strip()} is not a file of docs/results/<gpu>/ or a page")
                continue
            if path.strip().endswith(".md"):
                haystack, within = "\n".join(generated_blocks(full).values()), " (in its generated blocks)"
            else:
                haystack, within = open(full, encoding="utf-8", errors="replace").read(), ""
            if source not in haystack and source not in one_space(haystack):
                problems.append(f"{where} '{source}' is not in {path.strip()}{within}")
            elif prose != source and not rounds_to(prose, source):
                problems.append(f"{where} '{prose}' is not '{source}' rounded to the digits it shows")
    if not check_unannotated:
        return problems
    for start, paragraph in paragraphs(without_folds(text, keep_folds=False)):
        covered = [one_space(m.group(1).rpartition(" @ ")[0].partition(" = ")[0]) for m in FIGURE.finditer(paragraph)]
        lines = [line for line in paragraph.split("\n") if not line.lstrip().startswith("|")]
        prose = one_space(re.sub(r"<!--.*?-->", " ", "\n".join(lines), flags=re.S))
        spans = [(m.start(), m.end()) for figure in covered if figure for m in re.finditer(re.escape(figure), prose)]
        spans += [(m.start(), m.end()) for pattern, _ in NOT_MEASURED for m in pattern.finditer(prose)]
        for match in MEASURED.finditer(prose):
            if not any(s <= match.start(1) and match.end(1) <= e for s, e in spans):
                offset = next((i for i, line in enumerate(paragraph.split("\n")) if match.group(1) in line), 0)
                problems.append(f"{document}:{start + offset}: measured figure '{match.group(0).strip()}' has no "
                                f"<!-- figure: ... @ SOURCE --> in its paragraph")
    return problems


def generated_blocks(path):
    with open(path, encoding="utf-8") as f:
        return {name: body.strip() for name, body in MARKER.findall(f.read())}


BLOCK_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def block_shape(body):
    """What a generated block must hold in both languages, a line each: the lines of its code blocks as
    they are; every other line its kind (a table row and its cells, a heading, an image, text, empty) and
    its figures in order."""
    shape, code = [], False
    for line in body.split("\n"):
        if line.startswith("```") or code:
            code = code != line.startswith("```")
            shape.append(line)
            continue
        kind = "table row of %d cells" % (line.count("|") - 1) if line.startswith("|") else "heading" \
            if line.startswith("#") else "image" if line.startswith("![") else "text" if line.strip() else "empty"
        shape.append((kind, BLOCK_NUMBER.findall(line)))
    return shape


def block_difference(english, chinese):
    """Where two generated blocks differ beyond their words: 'line N: ENGLISH / CHINESE', or None."""
    en, zh = block_shape(english), block_shape(chinese)
    for number, (en_line, zh_line) in enumerate(zip(en, zh), 1):
        if en_line != zh_line:
            lines = english.split("\n")[number - 1], chinese.split("\n")[number - 1]
            return "line %d: %r / %r" % (number, lines[0][:80], lines[1][:80])
    if len(en) != len(zh):
        return "%d lines in English, %d in Chinese" % (len(en), len(zh))
    return None


def problems_in(repo, figure_pages=None):
    figure_pages = FIGURE_PAGES if figure_pages is None else figure_pages
    problems = []
    pairs = [(os.path.join(folder, "README.md"), os.path.join(folder, "README.zh-CN.md"))
             for folder in ["."] + chapters(repo)]
    docs = os.path.join(repo, "docs")
    pairs += [(os.path.join("docs", f), os.path.join("docs", f[:-3] + ".zh-CN.md"))
              for f in (sorted(os.listdir(docs)) if os.path.isdir(docs) else []) if f.endswith(".md") and ".zh-CN" not in f]
    for english_name, chinese_name in pairs:
        english, chinese = os.path.join(repo, english_name), os.path.join(repo, chinese_name)
        for path in (english, chinese):
            if not os.path.exists(path):
                problems.append(f"{os.path.relpath(path, repo)}: missing")
        if os.path.exists(english) and os.path.exists(chinese):
            en, zh = generated_blocks(english), generated_blocks(chinese)
            if sorted(en) != sorted(zh):
                problems.append(f"{english_name}: generated blocks differ: {sorted(en)} in English, {sorted(zh)} in Chinese")
            for name in sorted(set(en) & set(zh)):
                difference = block_difference(en[name], zh[name])
                if difference:
                    problems.append(f"{english_name}: the generated '{name}' table differs between the two languages "
                                    f"beyond its words ({difference})")
            for path, other in ((english, os.path.basename(chinese)), (chinese, os.path.basename(english))):
                head = "".join(open(path, encoding="utf-8").readlines()[:6])
                if f"]({other})" not in head:
                    problems.append(f"{os.path.relpath(path, repo)}: no link to {other} at the top")
    avoid = term_table(repo)
    for document in documents(repo):
        problems += broken_links(repo, document) + code_problems(repo, document) + quoted_line_problems(repo, document)
        problems += unrunnable_scripts(repo, document)
        if document.endswith(".zh-CN.md"):
            problems += term_problems(repo, document, avoid)
        problems += figure_problems(repo, document, os.path.normpath(document) in figure_pages)
    for chapter in chapters(repo):
        problems += length_problems(repo, chapter)
    return problems


def self_test():
    """The checks can fail: a made-up repository with one of each problem."""
    import tempfile
    from testkit import write

    with tempfile.TemporaryDirectory() as repo:
        table = "<!-- results:demo:begin -->\n| kernel | GB/s |\n| --- | ---: |\n| fast | 2950.5 |\n" \
            "<!-- results:demo:end -->\n"
        run = "<!-- run:demo:begin -->\nData: [a](h100/a.png)\n```\n$ demo\nsum 1.5\n```\n<!-- run:demo:end -->\n"
        files = {
            "chapters.txt": "# the made-up chapters\nch01_demo\nch02_english_only\n",
            "README.md": "[中文](README.zh-CN.md)\n[lesson](ch01_demo/README.md) ![plot](docs/missing.png)\n" +
                         table + run,
            "README.zh-CN.md": "[English](README.md)\n[课程](ch01_demo/)\n" +  # the words translated: the same
                               table.replace("| kernel |", "| 核函数 |") +
                               run.replace("Data: [a](h100/a.png)", "数据：[甲](h100/a.zh-CN.png)").replace("sum", "和"),
            "ch02_english_only/README.md": "[中文](README.zh-CN.md)\n",
            "ch01_demo/README.md": "[中文](README.zh-CN.md)\n" + table,
            "ch01_demo/README.zh-CN.md": "no link back\n" + table.replace("2950.5", "2950.6"),
        }
        kernel = "__global__ void k(float *x) {\n    x[threadIdx.x] = 0;\n}\n"
        good = "<!-- code: ch01_demo/k.cu -->\n```cuda\n__global__ void k(float *x) {\n// ...\n}\n```\n"
        files["ch01_demo/k.cu"] = kernel
        files["ch01_demo/README.md"] += good + "<!-- code: ch01_demo/k.cu -->\n```cuda\n    x[threadIdx.x] = 1;\n```\n" + \
            "```\n= at k(float *)+0x10 in k.cu:2\n= at void k<float, (bool)1>(float *)+0x20 in k.cu:7\n= at gone(int)+0x8 in k.cu:2\n```\n"
        files["ch01_demo/README.zh-CN.md"] += good + "线程块" * 1200 + "占用率很高。\n<details>" + "折半" * 500 + \
            "</details>\n"
        files["h100/a.png"] = files["h100/a.zh-CN.png"] = ""
        files["scripts/go.sh"] = files["scripts/ok.sh"] = "true\n"
        files["ch02_english_only/README.md"] += "```\nscripts/go.sh\n$ scripts/ok.sh\npython3 scripts/go.sh\n```\n"
        files["docs/GLOSSARY.md"] = "[中文](GLOSSARY.zh-CN.md)\n"
        files["docs/GLOSSARY.zh-CN.md"] = "[English](GLOSSARY.md)\n## 用词约定\n| 用 | 不用 | 例外 |\n| --- | --- | --- |\n" \
            "| 占有率 | 占用率 | |\n| 同步函数 | 栅栏 | 内存栅栏 |\n## 其他\n内存栅栏可以用。\n"
        files["docs/results/h200/examples.log"] = "book  ms=0.00877 gbps=30.8\n"
        run = "<!-- run:demo:begin -->\n```\nms=1.25\n```\n<!-- run:demo:end -->\n"
        log = " @ docs/results/h200/examples.log -->\n"
        files["ch01_demo/README.md"] += run + "\n".join([
            "Good: 0.0088 ms, <!-- figure: 0.0088 ms = ms=0.00877" + log + "then 1.3 ms. "
            "<!-- figure: 1.3 ms = ms=1.25 @ ch01_demo/README.md -->", "",
            "Own line: 1.25 ms.", "<!-- figure: 1.25 ms = ms=1.25 @ ch01_demo/README.md -->", "then more.", "",
            "Last line: 1.25 ms.", "<!-- figure: 1.25 ms = ms=1.25 @ ch01_demo/README.md -->", "",
            "| table | 1.25 ms |", "<!-- figure: 1.25 ms = ms=1.25 @ ch01_demo/README.md -->", "",
            "Stale: 9.1 ms. <!-- figure: 9.9 ms = ms=0.00877" + log,
            "Gone: 31.8 GB/s. <!-- figure: 31.8 GB/s = gbps=31.8" + log,
            "Rounded wrong: 32 GB/s. <!-- figure: 32 GB/s = gbps=30.8" + log,
            "Where: 1.25 ms. <!-- figure: 1.25 ms = ms=1.25 @ docs/missing.log -->\n",
            "Outside the block: 30.8 GB/s. <!-- figure: 30.8 GB/s = gbps=30.8 @ ch01_demo/README.md -->\n",
            "Unsourced: a launch costs 6.5 µs, 2.5x faster; a 32 x 33 tile and 33x + y are not figures.",
            "Exempt: the book's V100 took 1.8 ms.", "",
            "<details>\nFolded: 7 ms needs no source here.\n</details>\n"])
        files["ch01_demo/README.zh-CN.md"] += run
        for name, text in files.items():
            write(os.path.join(repo, name), text, executable=name == "scripts/ok.sh")
        NOT_MEASURED.append((re.compile(r"V100 took [\d.]+ ms"), "a figure of the book"))
        try:
            found = "\n".join(problems_in(repo, figure_pages={"ch01_demo/README.md"}))
        finally:
            NOT_MEASURED.pop()
        expected = ["broken link docs/missing.png", "ch01_demo/README.md: the generated 'results:demo' table differs "
                    "between the two languages beyond its words (line 3: '| fast | 2950.5 |' / '| fast | 2950.6 |')",
                    "README.md: the generated 'run:demo' table differs between the two languages beyond its words "
                    "(line 4: 'sum 1.5' / '和 1.5')", "no link to README.md",
                    "ch02_english_only/README.zh-CN.md: missing", "README.zh-CN.md: links to the English ch01_demo/",
                    "ch01_demo/README.md: code block from ch01_demo/k.cu is not its text: 'x[threadIdx.x] = 1;'",
                    "ch01_demo/README.zh-CN.md: 3605 Chinese characters unfolded",
                    "ch01_demo/README.zh-CN.md:9: '占用率'", "ch02_english_only/README.md: shows no code",
                    "figure '9.9 ms' is not in the prose", "figure 'gbps=31.8' is not in docs/results/h200/examples.log",
                    "figure '32 GB/s' is not 'gbps=30.8' rounded", "source docs/missing.log is not a file",
                    "figure 'gbps=30.8' is not in ch01_demo/README.md (in its generated blocks)",
                    "measured figure '6.5 µs' has no", "measured figure '2.5x' has no",
                    "figure annotation starts a line inside a paragraph",
                    "quotes k.cu:7 in k, which is lines 1-3 now", "quotes k.cu:2 in gone, which is not defined there",
                    "ch02_english_only/README.md: runs scripts/go.sh, which is not executable"]
        missing = [e for e in expected if e not in found]
        assert not missing, f"the checks missed: {missing}\n{found}"
        assert "ch01_demo/README.md: broken" not in found and "h100/a" not in found, found
        assert "'results:demo'" not in found.replace("ch01_demo/README.md: the generated 'results:demo'", ""), found
        assert "k.cu:2 in k," not in found and "scripts/ok.sh" not in found, found  # in its function; executable
        assert "GLOSSARY" not in found and "__global__ void k" not in found, found  # the table, the good block
        assert not re.search(r"'(0\.0088|1\.3|7) ms'|'32 x|'33x", found), found  # sourced, folded, not figures
        assert len(re.findall("measured figure", found)) == 3 and "measured figure '9.1 ms'" in found, found
        assert len(re.findall("starts a line", found)) == 2, found  # mid-paragraph and after a table; last line ok
    print("self-test: every planted problem was reported")


if __name__ == "__main__":
    self_test()
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    found = problems_in(os.path.abspath(repo))
    for line in found:
        print(line)
    print(f"docs: {len(documents(repo))} documents, {len(found)} problems")
    sys.exit(1 if found else 0)
