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
"不用" column, except inside a phrase of its "例外" column). No GPU needed.

    python3 tests/test_docs.py [REPO]      (exit 0: all good; 1: what is wrong, one line each)
"""
import os
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
MARKER = re.compile(r"<!-- ([\w:-]+):begin -->(.*?)<!-- \1:end -->", re.S)  # results, results:dot, run:banks


def documents(repo):
    """README*.md at the top and in every chapter, and docs/*.md."""
    found = []
    for folder in ["."] + chapters(repo) + ["docs"]:
        path = os.path.join(repo, folder)
        if os.path.isdir(path):
            found += [os.path.join(folder, f) for f in sorted(os.listdir(path)) if f.endswith(".md")]
    return found


def chapters(repo):
    return sorted(d for d in os.listdir(repo) if re.match(r"ch\d\d_", d) and os.path.isdir(os.path.join(repo, d)))


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


MAX_CJK = 3300    # "about 3,000 Chinese characters": ten minutes of reading
MAX_WORDS = 2000  # the English of the same lesson
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


def generated_blocks(path):
    with open(path, encoding="utf-8") as f:
        return {name: body.strip() for name, body in MARKER.findall(f.read())}


FIGURE = re.compile(r"\d+(?:\.\d+)?")


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
        shape.append((kind, FIGURE.findall(line)))
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


def problems_in(repo):
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
        problems += broken_links(repo, document) + code_problems(repo, document)
        if document.endswith(".zh-CN.md"):
            problems += term_problems(repo, document, avoid)
    for chapter in chapters(repo):
        problems += length_problems(repo, chapter)
    return problems


def self_test():
    """The checks can fail: a made-up repository with one of each problem."""
    import tempfile

    with tempfile.TemporaryDirectory() as repo:
        os.makedirs(os.path.join(repo, "ch01_demo"))
        os.makedirs(os.path.join(repo, "ch02_english_only"))
        table = "<!-- results:demo:begin -->\n| kernel | GB/s |\n| --- | ---: |\n| fast | 2950.5 |\n" \
            "<!-- results:demo:end -->\n"
        run = "<!-- run:demo:begin -->\nData: [a](h100/a.png)\n```\n$ demo\nsum 1.5\n```\n<!-- run:demo:end -->\n"
        files = {
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
        files["ch01_demo/README.md"] += good + "<!-- code: ch01_demo/k.cu -->\n```cuda\n    x[threadIdx.x] = 1;\n```\n"
        files["ch01_demo/README.zh-CN.md"] += good + "线程块" * 1200 + "占用率很高。\n<details>" + "折半" * 500 + \
            "</details>\n"
        os.makedirs(os.path.join(repo, "docs"))
        os.makedirs(os.path.join(repo, "h100"))
        files["h100/a.png"] = files["h100/a.zh-CN.png"] = ""
        files["docs/GLOSSARY.md"] = "[中文](GLOSSARY.zh-CN.md)\n"
        files["docs/GLOSSARY.zh-CN.md"] = "[English](GLOSSARY.md)\n## 用词约定\n| 用 | 不用 | 例外 |\n| --- | --- | --- |\n" \
            "| 占有率 | 占用率 | |\n| 同步函数 | 栅栏 | 内存栅栏 |\n## 其他\n内存栅栏可以用。\n"
        for name, text in files.items():
            with open(os.path.join(repo, name), "w", encoding="utf-8") as f:
                f.write(text)
        found = "\n".join(problems_in(repo))
        expected = ["broken link docs/missing.png", "ch01_demo/README.md: the generated 'results:demo' table differs "
                    "between the two languages beyond its words (line 3: '| fast | 2950.5 |' / '| fast | 2950.6 |')",
                    "README.md: the generated 'run:demo' table differs between the two languages beyond its words "
                    "(line 4: 'sum 1.5' / '和 1.5')", "no link to README.md",
                    "ch02_english_only/README.zh-CN.md: missing", "README.zh-CN.md: links to the English ch01_demo/",
                    "ch01_demo/README.md: code block from ch01_demo/k.cu is not its text: 'x[threadIdx.x] = 1;'",
                    "ch01_demo/README.zh-CN.md: 3605 Chinese characters unfolded",
                    "ch01_demo/README.zh-CN.md:9: '占用率'", "ch02_english_only/README.md: shows no code"]
        missing = [e for e in expected if e not in found]
        assert not missing, f"the checks missed: {missing}\n{found}"
        assert "ch01_demo/README.md: broken" not in found and "h100/a" not in found, found
        assert "'results:demo'" not in found.replace("ch01_demo/README.md: the generated 'results:demo'", ""), found
        assert "GLOSSARY" not in found and "__global__ void k" not in found, found  # the table, the good block
    print("self-test: every planted problem was reported")


if __name__ == "__main__":
    self_test()
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    found = problems_in(os.path.abspath(repo))
    for line in found:
        print(line)
    print(f"docs: {len(documents(repo))} documents, {len(found)} problems")
    sys.exit(1 if found else 0)
