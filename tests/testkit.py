"""What the tooling's Python tests share: files written and read, commands and scripts run with their output
captured, a script's main run in this process, a temporary folder per test."""
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = os.path.join(ROOT, "scripts")
sys.path.insert(0, SCRIPTS)


def write(path, text, executable=False):
    """Writes a file (and its folders); returns its path."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as stream:
        stream.write(text if isinstance(text, bytes) else text.encode())
    os.chmod(path, 0o755 if executable else 0o644)
    return path


def read(path, binary=False):
    with open(path, "rb") if binary else open(path, encoding="utf-8") as stream:
        return stream.read()


def run(command, **options):
    """subprocess.run with text output captured."""
    return subprocess.run(command, capture_output=True, text=True, **options)


def script(path, *arguments, **options):
    """run of the repository's script PATH (scripts/plot.py, tests/expect_sass.sh: bash for .sh, this Python for
    .py; an absolute PATH as it is) with ARGUMENTS."""
    path = os.path.join(ROOT, path)
    return run((["bash"] if path.endswith(".sh") else [sys.executable]) + [path] + list(arguments), **options)


def in_process(function, *arguments):
    """(what FUNCTION(*ARGUMENTS) returned, its stdout, its stderr), run here: a script's main(argv), whose
    SystemExit (argparse's) is its exit code."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = function(*arguments)
        except SystemExit as stop:
            code = stop.code
    return code, out.getvalue(), err.getvalue()


def planted(plants, found, where):
    """A checker's self-test: 1 unless, for each EXPECTED: PLANT of PLANTS, FOUND(PLANT) (the problems the checker
    reports with PLANT in WHERE; None: it could not be planted) has one naming EXPECTED; 0, and a line, if so."""
    failed = 0
    for expected, plant in plants.items():
        problems = found(plant)
        if problems is None or not any(expected in problem for problem in problems):
            print(f"self-test: planted '{expected}' in {where}: " +
                  ("it could not be planted" if problems is None else f"not reported (found: {problems[:3]})"))
            failed = 1
    if not failed:
        print(f"self-test: each of {len(plants)} planted problems was reported in {where}")
    return failed


class Checks(unittest.TestCase):
    """The assertions the tests share."""

    def assertHolds(self, text, words, absent=()):
        """TEXT holds each of WORDS (a compiled one: a match of it) and none of ABSENT."""
        for word in words:
            self.assertRegex(text, word) if hasattr(word, "pattern") else self.assertIn(word, text)
        for word in absent:
            self.assertNotIn(word, text)

    def assertOneLine(self, done, code, *words):
        """DONE (a run) exited CODE with one line on stderr holding each of WORDS."""
        self.assertEqual((done.returncode, len(done.stderr.splitlines())), (code, 1), done.stderr)
        self.assertHolds(done.stderr, words)

    def assertPrints(self, done, code, *words, absent=()):
        """DONE (a run) exited CODE, its stdout holding each of WORDS and none of ABSENT."""
        self.assertEqual(done.returncode, code, done.stdout + done.stderr)
        self.assertHolds(done.stdout, words, absent)


class InTemporaryFolder(Checks):
    def setUp(self):
        temporary = tempfile.TemporaryDirectory()
        self.addCleanup(temporary.cleanup)
        self.folder = temporary.name

    def path(self, *parts):
        return os.path.join(self.folder, *parts)
