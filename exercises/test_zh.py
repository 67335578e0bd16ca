#!/usr/bin/env python3
"""--lang zh is Chinese throughout: every exercise's stub and every known wrong answer graded on the CPU runner
with --lang zh, and every starter file written with --lang zh, hold no English sentence outside code; a known wrong
prediction is told its own reason (its why) in Chinese.

    python3 exercises/test_zh.py BUILD        (the tests: exercise_zh; exit 0 clean, 1 with each English line)

An English sentence ("Latin sentence") is three or more English words in a row: a word is letters alone, all
small or capitalised ("differ", "The"), the punctuation around it aside. Not words: identifiers (s_y, dot_book,
cudaMemcpy, CPU, FAIL), paths, options (--kernel), numbers, anything between backticks. The starter files are
C++: their comments are checked (a .txt prediction file: its # lines), but the "bank: LABEL" comments that
name a line for --bank-model."""
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "scripts")]
from grader.spec import all_exercises  # noqa: E402

GRADE = os.path.join(HERE, "..", "scripts", "grade.py")
WORD = re.compile(r"^[A-Za-z][a-z]*$")
EDGES = ",;:.!?()[]\"'“”‘’"


def english_sentence(line, words=3):
    """The first run of `words` English words in line (outside backticks), or None."""
    run = []
    for token in re.sub(r"`[^`]*`", " ", line).split():
        bare = token.strip(EDGES)
        # a token glued to Chinese ("Harris 的", "（sinf") is cut at the first non-ASCII character
        if bare and WORD.match(bare) and bare.isascii():
            run.append(bare)
            if len(run) >= words:
                return " ".join(run)
        else:
            run = []
    return None


def comments(text, path):
    """The comment text of a starter file: # lines of a .txt, /* */ and // comments of a .cu."""
    if path.endswith(".txt"):
        return [l for l in text.split("\n") if l.lstrip().startswith("#")]
    found = re.findall(r"/\*.*?\*/|//[^\n]*", text, re.S)
    # "bank: LABEL" names a line for --bank-model (common/bank_model.h reads it): a label, not a sentence
    return [line for c in found for line in c.split("\n") if not re.match(r"\s*(//|/\*)\s*bank:", line)]


def grade(build, ex, variant):
    done = subprocess.run([sys.executable, GRADE, "--build", build, ex.program, str(ex.number), "--variant", variant,
                           "--cpu", "--lang", "zh"], capture_output=True, text=True, timeout=300)
    wrong = next((w for w in ex.wrongs if "wrong:" + w.name == variant), None)  # a prediction's: told its why
    why = "常见原因：" + wrong.why.partition(" | ")[2] if ex.predicts and wrong else None
    return "%s %d %s" % (ex.program, ex.number, variant), done.stdout + done.stderr, done.returncode, why


def starter(ex, folder):
    path = os.path.join(folder, "%s_%d.%s" % (ex.program, ex.number, "txt" if ex.predicts else "cu"))
    open(path, "w").close()  # --stub --file replaces an existing file only (exercises/test_grade.py)
    subprocess.run([sys.executable, GRADE, ex.program, str(ex.number), "--stub", "--lang", "zh", "--file", path],
                   capture_output=True, text=True, timeout=60)
    with open(path, encoding="utf-8") as f:
        return "the starter file of %s" % ex.name, "\n".join(comments(f.read(), path)), 1, None


def main(argv):
    if len(argv) != 1 or not os.path.isdir(argv[0]):
        print("usage: test_zh.py BUILD (a configured build folder with the CPU runner's exercise harnesses)",
              file=sys.stderr)
        return 2
    assert english_sentence("32 partials differ from the CPU's, exact 1.5") == "partials differ from"
    assert english_sentence("核函数 static，float，n = 100003：得到 NaN；`a wrong value`") is None
    build, jobs, problems, count = os.path.abspath(argv[0]), [], [], 0
    with tempfile.TemporaryDirectory() as folder, concurrent.futures.ThreadPoolExecutor(2) as pool:
        for ex in all_exercises():
            jobs.append(pool.submit(starter, ex, folder))
            for variant in ["stub"] + ["wrong:" + w.name for w in ex.wrongs]:
                jobs.append(pool.submit(grade, build, ex, variant))
        for job in jobs:
            what, output, code, why = job.result()
            count += 1
            if code != 1:  # a stub and a wrong answer fail: 0 or 2 would be no grading at all
                problems.append("%s: exit %d, not 1:\n%s" % (what, code, output))
            if why and why not in output:
                problems.append("%s: its reason is not given (%s):\n%s" % (what, why, output))
            for line in output.split("\n"):
                sentence = english_sentence(line)
                if sentence:
                    problems.append("%s: English (%s): %s" % (what, sentence, line.strip()))
    for problem in problems:
        print(problem)
    print("%d outputs and starter files under --lang zh: %s" % (
        count, "%d English lines" % len(problems) if problems else "Chinese throughout"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
