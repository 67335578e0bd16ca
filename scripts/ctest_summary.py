#!/usr/bin/env python3
"""The closing lines of the test command (scripts/run_tests.sh): what ran, what was skipped and why,
so that nobody reads a skip as a pass. Reads CTest's JUnit file (ctest --output-junit) and, for the
labels, its test list (ctest --show-only=json-v1). Plain Python 3, no GPU.

    python3 scripts/ctest_summary.py JUNIT.xml [TESTS.json]

Prints a line per other reason for a skip, the failed tests, then 'ran 33 of 207 tests; 174 skipped: they
need a CUDA GPU (...)' and 'tests: 33 passed, 0 failed, 174 skipped' (the line the CI reads). Counts as CTest
does: a test it could not start failed; one that asked to be skipped (exit 77) or is disabled was skipped.
Exit 0 when the file was read (whatever the tests did), 2 when it could not be.
"""
import json
import re
import sys
import xml.etree.ElementTree as ElementTree

NO_GPU = re.compile(r"no CUDA device", re.I)
NO_GPU_REASON = re.compile(r"no CUDA device was found: (.*?)(?:\. Nothing was run\.?)?$", re.I | re.M)
GPU_LABELS = {"gpu", "sanitizer", "large", "ncu", "mutants"}  # tests that need a CUDA device


def read_junit(path):
    """[(name, verdict, output)] with verdict passed, failed or skipped, as CTest counts them."""
    tests = []
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        status, skip = case.get("status"), case.find("skipped")
        output = case.findtext("system-out") or ""
        if status == "run":
            verdict = "passed"
        elif status == "disabled":
            verdict, output = "skipped", "disabled (the test's DISABLED property)"
        elif status == "notrun" and skip is not None and skip.get("message", "").startswith("SKIP_"):
            verdict = "skipped"
        else:  # fail, or notrun because CTest could not start it
            verdict = "failed"
        tests.append((case.get("name"), verdict, output))
    return tests


def labels_of(listing):
    """{test name: [labels]} of every test in ctest --show-only=json-v1's LISTING (its text)."""
    return {test.get("name"): next((list(p.get("value") or []) for p in test.get("properties", [])
                                    if p.get("name") == "LABELS"), []) for test in json.loads(listing).get("tests", [])}


def summary(tests, labels, left_out=()):
    """The closing lines, the last one 'tests: N passed, N failed, N skipped'; LEFT_OUT: the tests the
    command did not select (label mutants unless asked), named so that nobody reads them as run."""
    passed = [name for name, verdict, _ in tests if verdict == "passed"]
    failed = [name for name, verdict, _ in tests if verdict == "failed"]
    skipped = [(name, output) for name, verdict, output in tests if verdict == "skipped"]
    # No GPU: some test said so; then every skipped test that needs one is skipped for that reason first.
    said = [output for _, output in skipped if NO_GPU.search(output)]
    no_gpu = [name for name, output in skipped if said and (NO_GPU.search(output) or
                                                            GPU_LABELS & set(labels.get(name, [])))]
    groups = {}  # every other skip, by its own reason: the last line it printed, without a trailing 'skipped'
    for name, output in skipped:
        said_last = [line.strip() for line in output.splitlines() if line.strip()][-1:] or ["no reason given"]
        if name not in no_gpu:
            groups.setdefault(re.sub(r"^skipped: |: skipped$", "", said_last[0]), []).append(name)

    def labelled(names):
        seen = sorted({label for name in names for label in labels.get(name, [])})
        return " (label%s %s)" % ("s" if len(seen) > 1 else "", ", ".join(seen)) if seen else ""

    lines = []
    for reason, names in sorted(groups.items(), key=lambda group: -len(group[1])):
        which = names[0] if len(names) == 1 else "%d tests%s" % (len(names), labelled(names))
        lines.append("skipped: %s: %s" % (which, reason))
    if left_out:
        mutants = all("mutants" in labels.get(name, []) for name in left_out)
        lines.append("not run: %d tests%s: left out of this command%s" % (
            len(left_out), labelled(left_out),
            "; EXAMPLES_MUTANTS=1 bash scripts/run_tests.sh runs them too" if mutants else ""))
    if failed:
        lines.append("failed: %s" % ", ".join(failed))
    why = "ran %d of %d tests" % (len(passed) + len(failed), len(tests) + len(left_out))
    if no_gpu:
        reason = NO_GPU_REASON.search(said[0])
        why += "; %d skipped: they need a CUDA GPU%s and none was found%s" % (
            len(no_gpu), labelled(no_gpu), " (%s)" % reason.group(1) if reason else "")
    if groups:
        why += "; %d skipped for the reason%s above" % (len(skipped) - len(no_gpu), "s" if len(groups) > 1 else "")
    if left_out:
        why += "; %d not run (above)" % len(left_out)
    if not skipped and not left_out:
        why += "; none skipped"
    lines.append(why)
    lines.append("tests: %d passed, %d failed, %d skipped" % (len(passed), len(failed), len(skipped)))
    return lines


def main(arguments):
    if not 1 <= len(arguments) <= 2:
        print("usage: python3 scripts/ctest_summary.py JUNIT.xml [TESTS.json]", file=sys.stderr)
        return 2
    try:
        tests = read_junit(arguments[0])
    except (OSError, ElementTree.ParseError) as problem:
        print("tests: no summary: %s: %s" % (arguments[0], problem), file=sys.stderr)
        return 2
    try:  # labels_of TESTS.json; {} without one
        with open(arguments[1]) as stream:
            labels = labels_of(stream.read())
    except (IndexError, OSError, ValueError):
        labels = {}
    ran = {name for name, _, _ in tests}
    for line in summary(tests, labels, sorted(name for name in labels if name not in ran)):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
