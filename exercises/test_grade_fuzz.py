#!/usr/bin/env python3
"""The grader fed what a learner's editor, a bad paste or a crash can leave: every exercise's stub and
solution (the texts --variant grades) truncated, with binary bytes spliced in, saved as GBK, and with a
random span cut out (a fixed seed: the same files every run). Each is graded on the CPU runner within
LIMIT_S and must end in a verdict (exit 0 or 1, its last line PASS or FAIL) or in one line (exit 2):
no traceback, no hang, no other exit code.
    python3 exercises/test_grade_fuzz.py BUILD        (ctest: exercise_grader_fuzz, label exercise)

Its size: a file of each kind per text (GBK: the stubs alone, their comments Chinese already), 91 gradings of 0.1 to 3 s
of CPU, two at a time (34 s; TIMEOUT 600); a second cut per text found nothing new: each exercise meets each damage."""
import concurrent.futures
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from grade import predict_file  # noqa: E402
from grader.build import cpu_runner_built  # noqa: E402
from grader import source, spec  # noqa: E402

LIMIT_S = 60  # a grading's limit: its runs stop after CUDA_CPU_SPIN_LIMIT_S (2 s) in a block that never ends


def damaged(text, rng, stub):
    """{kind: bytes}: the text truncated, with binary bytes spliced in, (a stub) in GBK, with a span cut out."""
    raw = binary = text.encode("utf-8")
    # 8 places (code, comments, a prediction's answers), the last at the end: a prediction's last answer
    for at in sorted([rng.randrange(len(raw)) for _ in range(7)] + [len(raw) - 1])[::-1]:
        binary = binary[:at] + bytes([rng.randrange(128, 256)]) + binary[at:]  # not ASCII: seldom UTF-8
    at, span = rng.randrange(len(raw)), rng.randrange(1, 65)
    files = {"truncated": raw[:rng.randrange(len(raw))], "binary": binary, "cut": raw[:at] + raw[at + span:]}
    if stub:
        files["gbk"] = text.encode("gbk", "replace")  # as a Chinese Windows editor saves it: "?" for what GBK lacks
    return files


def texts():
    """(exercise, 'stub' or 'solution', text) for every exercise."""
    for ex in spec.all_exercises():
        if ex.predicts:  # a prediction's file: the stub, and every answer filled in
            yield ex, "stub", predict_file(ex)
            yield ex, "solution", predict_file(ex, ["2"] * len(ex.predicts))
        else:
            yield ex, "stub", source.stub_file(ex)
            yield ex, "solution", source.solution(ex)


def grade(build, ex, path):
    """The problem with one grading, or None."""
    start = time.time()
    try:
        done = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "grade.py"), ex.program, str(ex.number),
                               "--file", path, "--cpu", "--lang", "en", "--build", build], capture_output=True,
                              timeout=LIMIT_S, env=dict(os.environ, CUDA_CPU_SPIN_LIMIT_S="2", PYTHONIOENCODING="utf-8"))
    except subprocess.TimeoutExpired:  # PYTHONIOENCODING: strict, as a UTF-8 terminal is (the C locale is lenient)
        return "no verdict within %d s" % LIMIT_S
    try:
        done.stdout, done.stderr = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
    except UnicodeDecodeError as e:
        return "output that is not UTF-8 (%s)" % e
    shown = (done.stdout + done.stderr).strip()
    lines = shown.split("\n")
    if "Traceback" in shown:
        return "a traceback:\n" + shown
    if done.returncode == 2:
        return None if len(lines) == 1 and lines[0].startswith("grade.py: ") else "exit 2 in more than one line:\n" + shown
    if done.returncode not in (0, 1):
        return "exit %d:\n%s" % (done.returncode, shown)
    last = done.stdout.strip().split("\n")[-1]
    if not last.startswith(("PASS", "FAIL")):
        return "exit %d with no verdict as its last line (%.1f s):\n%s" % (done.returncode, time.time() - start, shown)
    return None


def main(argv):
    if len(argv) != 1:
        print(__doc__)
        return 2
    build = os.path.abspath(argv[0])
    if not cpu_runner_built(build):
        print("%s is no build with the CPU runner (EXAMPLES_CPU_RUNNER): not run" % build)
        return 77
    rng, folder, jobs = random.Random(44), tempfile.mkdtemp(prefix="grade_fuzz_"), []
    for ex, which, text in texts():
        for kind, data in damaged(text, rng, which == "stub").items():
            path = os.path.join(folder, "%s_%d_%s_%s%s" % (ex.program, ex.number, which, kind,
                                                           ".txt" if ex.predicts else ".cu"))
            with open(path, "wb") as f:
                f.write(data)
            jobs.append((ex, path))
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        problems = [(path, problem) for (_, path), problem in zip(jobs, pool.map(lambda job: grade(build, *job), jobs))
                    if problem]
    for path, problem in problems:
        print("FAIL %s: %s\n" % (path, problem))
    if not problems:
        shutil.rmtree(folder)  # else kept: the files that failed, to grade again by hand
    print("%d of %d damaged files graded to a verdict or one line, each within %d s (%.0f s in all)" % (
        len(jobs) - len(problems), len(jobs), LIMIT_S, time.time() - start))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
