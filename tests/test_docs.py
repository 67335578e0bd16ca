#!/usr/bin/env python3
"""The documents a learner reads: every chapter has its lesson in both languages,
every relative link and image resolves, and the generated tables between markers
are identical in the English and the Chinese file. No GPU needed.

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


def generated_blocks(path):
    with open(path, encoding="utf-8") as f:
        return {name: body.strip() for name, body in MARKER.findall(f.read())}


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
            for name in set(en) & set(zh):
                if en[name] != zh[name]:
                    problems.append(f"{english_name}: the generated '{name}' table differs between the two languages")
            for path, other in ((english, os.path.basename(chinese)), (chinese, os.path.basename(english))):
                head = "".join(open(path, encoding="utf-8").readlines()[:6])
                if f"]({other})" not in head:
                    problems.append(f"{os.path.relpath(path, repo)}: no link to {other} at the top")
    for document in documents(repo):
        problems += broken_links(repo, document)
    return problems


def self_test():
    """The checks can fail: a made-up repository with one of each problem."""
    import tempfile

    with tempfile.TemporaryDirectory() as repo:
        os.makedirs(os.path.join(repo, "ch01_demo"))
        os.makedirs(os.path.join(repo, "ch02_english_only"))
        table = "<!-- results:demo:begin -->\n| a |\n<!-- results:demo:end -->\n"
        files = {
            "README.md": "[中文](README.zh-CN.md)\n[lesson](ch01_demo/README.md) ![plot](docs/missing.png)\n",
            "README.zh-CN.md": "[English](README.md)\n[课程](ch01_demo/)\n",
            "ch02_english_only/README.md": "[中文](README.zh-CN.md)\n",
            "ch01_demo/README.md": "[中文](README.zh-CN.md)\n" + table,
            "ch01_demo/README.zh-CN.md": "no link back\n" + table.replace("| a |", "| b |"),
        }
        for name, text in files.items():
            with open(os.path.join(repo, name), "w", encoding="utf-8") as f:
                f.write(text)
        found = "\n".join(problems_in(repo))
        expected = ["broken link docs/missing.png", "'results:demo' table differs", "no link to README.md",
                    "ch02_english_only/README.zh-CN.md: missing", "README.zh-CN.md: links to the English ch01_demo/"]
        missing = [e for e in expected if e not in found]
        assert not missing, f"the checks missed: {missing}\n{found}"
        assert "ch01_demo/README.md: broken" not in found, found
    print("self-test: every planted problem was reported")


if __name__ == "__main__":
    self_test()
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    found = problems_in(os.path.abspath(repo))
    for line in found:
        print(line)
    print(f"docs: {len(documents(repo))} documents, {len(found)} problems")
    sys.exit(1 if found else 0)
