#!/usr/bin/env python3
"""Each lesson's "Predict, then run" answers (folded at the end of ch*/README*.md), held against the built
programs: a `predict` annotation's checks are expect_bank_model.py's against --bank-model; a `predict-run`
one runs the program (exit=N, then regular expressions its output must match). The Chinese page's are the
English's.
    check_predictions.py BUILD"""
import os
import re
import shlex
import sys

import expect_bank_model  # beside this file
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from grader.source import read  # noqa: E402
from grader.verdicts import run_program  # noqa: E402
from layout import CHAPTERS, ROOT  # noqa: E402

PREDICT = re.compile(r"<!-- predict(-run)?: (.*?) -->", re.S)


def check_predictions(build, root=ROOT, chapters=CHAPTERS):
    failed = checked = 0
    for chapter in chapters:
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


if __name__ == "__main__":
    sys.exit(check_predictions(os.path.abspath(sys.argv[1])))
