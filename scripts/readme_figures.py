#!/usr/bin/env python3
"""The figures the top-level READMEs quote about the test command, generated, never typed.

    python3 scripts/readme_figures.py [--check] [--ctest CTEST] BUILD [PAGE ...]

Between <!-- tests:without-gpu:begin --> and <!-- tests:without-gpu:end -->: the closing lines of the test
command on a machine without a GPU where every host test passes, worked out from BUILD's own list of tests
(ctest --show-only=json-v1) by scripts/ctest_summary.py, the code that prints them after a real run. Between
<!-- timings:begin --> and <!-- timings:end -->: the lines the README's commands printed in
scripts/time_test_command.sh's runs (docs/results/timings.txt). Both blocks are program output, the same in
both languages. PAGE: README.md and README.zh-CN.md of this checkout by default.
--check writes nothing: exit 1 naming each page whose figures differ (the host test readme_figures), 77 when
BUILD lacks a chapter (the counts are for a build of all of them). Exit 2: a bad command line, a missing
file or a page without its markers.
"""
import functools
import os
import re
import subprocess
import sys

import ctest_summary  # the closing lines' own code
from layout import PROGRAMS, ROOT as TOP
from plot import OneLineParser, between, refuse as one_line  # one line and exit 2 for a bad input; the markers

TIMINGS = os.path.join(TOP, "docs", "results", "timings.txt")
NO_DRIVER = "no NVIDIA driver is installed (libcuda.so.1 is missing)"  # what CI's machine says
TIMED = ["examples first", "tests next", "tests rerun", "tests first", "examples next"]  # timings.txt's lines, in order
LINE = re.compile(r"^(?P<key>[\w ]+): (?P<script>\S+): (?P<total>.+?) in all on (?P<cores>\d+) cores \((?P<phases>.*)\)$")
refuse = functools.partial(one_line, program="readme_figures.py")


def without_gpu(tests):
    """The closing lines of a run without a GPU (no driver, as on CI) where every host test passes; the
    books' programs (label books) are skipped there too, for want of the books' sources, saying what
    tests/books/run_book.sh says then."""
    said = "x: no CUDA device was found: %s. Nothing was run." % NO_DRIVER
    books = subprocess.run(["sh", os.path.join(TOP, "tests", "books", "run_book.sh"), "--sources=", "--program", "x.cu",
                            "--work", os.devnull], capture_output=True, text=True).stdout.strip() \
        if any("books" in labels for labels in tests.values()) else ""
    left_out = sorted(name for name, labels in tests.items() if "mutants" in labels)  # as scripts/env.sh selects
    run = [(name, "skipped", said) if ctest_summary.GPU_LABELS & set(labels) else
           (name, "skipped", books) if "books" in labels else (name, "passed", "")
           for name, labels in sorted(tests.items()) if name not in left_out]
    return ctest_summary.summary(run, tests, left_out)


def timings_block(path):
    """The header and the timing lines of timings.txt, as they are, in a code block: the same in both
    languages (the prose around it says what they mean); nothing before the first timed run."""
    if not os.path.isfile(path):  # not timed yet: an empty block
        return ""
    lines = open(path, encoding="utf-8").read().splitlines()
    timed = {LINE.match(line)["key"]: line for line in lines if LINE.match(line)}
    missing = [key for key in TIMED if key not in timed]
    if missing or not lines or not lines[0].startswith("# "):
        refuse("%s: no %s: not what scripts/time_test_command.sh writes" % (
            path, "line '%s: ...'" % missing[0] if missing else "header line"))
    return "```\n%s\n```" % "\n".join([lines[0]] + [timed[key] for key in TIMED])


def main(argv=None):
    parser = OneLineParser(prog="readme_figures.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("build", help="a configured build folder (build)")
    parser.add_argument("pages", nargs="*", help="README.md and README.zh-CN.md of this checkout by default")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a page's figures differ")
    parser.add_argument("--ctest", default="ctest", help="the ctest to list the build's tests with")
    parser.add_argument("--timings", default=TIMINGS, help="the timing lines (default docs/results/timings.txt)")
    args = parser.parse_args(argv)
    pages = args.pages or [os.path.join(TOP, "README.md"), os.path.join(TOP, "README.zh-CN.md")]
    for page in pages:
        if not os.path.isfile(page):
            refuse("%s: no such page" % page)
    if not os.path.isfile(os.path.join(args.build, "CTestTestfile.cmake")):
        refuse("%s: not a configured build folder (no CTestTestfile.cmake)" % args.build)
    done = subprocess.run([args.ctest, "--test-dir", args.build, "--show-only=json-v1"], capture_output=True, text=True)
    if done.returncode != 0:
        refuse("%s --show-only failed in %s: %s" % (args.ctest, args.build, done.stderr.strip()))
    tests = ctest_summary.labels_of(done.stdout)  # {test name: [labels]} of every test the build holds
    left_out = [p for p in PROGRAMS if p + "_help" not in tests]
    if left_out:
        print("readme_figures.py: this build has no %s: the README's counts are for a build of every chapter: "
              "skipped" % ", ".join(left_out))
        return 77 if args.check else 2
    timings, counts = timings_block(args.timings), "```\n%s\n```" % "\n".join(without_gpu(tests))
    differ = []
    for page in pages:
        text = new = open(page, encoding="utf-8").read()
        for name, body in (("tests:without-gpu", counts), ("timings", timings)):  # between: None without the markers
            new = between(new, name, body) or refuse("%s: no pair of lines <!-- %s:begin --> and <!-- %s:end -->" % (
                page, name, name))
        if new != text:
            differ.append(page)
            if not args.check:
                with open(page, "w", encoding="utf-8") as stream:
                    stream.write(new)
    if args.check and differ:
        print("readme_figures.py: the figures in %s are not what this build's %d tests and %s give: run "
              "python3 scripts/readme_figures.py BUILD" % (", ".join(map(os.path.relpath, differ)), len(tests),
                                                           os.path.relpath(args.timings)))
        for line in without_gpu(tests):
            print("  " + line)
        return 1
    print("readme_figures.py: %s %s (%d tests)" % (", ".join(map(os.path.relpath, pages)),
                                                  "checked" if args.check else "rewritten where they differed",
                                                  len(tests)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
