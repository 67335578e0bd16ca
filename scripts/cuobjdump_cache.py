"""cuobjdump's answers about a program, kept beside it while the binary is the same (reading an all-major
program's code takes up to half a minute, and res_usage.py and sass_excerpts.py run on every test command):
sass_cache/PROGRAM-HASH.TAG.json, HASH of the binary and of cuobjdump. And kernel names demangled as Nsight prints
them (demangle)."""
import contextlib
import hashlib
import json
import os
import shutil
import subprocess

_KEYS = {}  # (cuobjdump, program) -> its hash, once per process


def _key(cuobjdump, program):
    if (cuobjdump, program) not in _KEYS:
        digest = hashlib.sha256()
        with open(program, "rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
        tool = os.stat(cuobjdump)
        digest.update(("%s %d %d" % (os.path.realpath(cuobjdump), tool.st_size, tool.st_mtime_ns)).encode())
        _KEYS[(cuobjdump, program)] = digest.hexdigest()[:16]
    return _KEYS[(cuobjdump, program)]


def demangle(names):
    """{mangled: the name as Nsight prints it, dot_fast<float>} (c++filt -p, or cu++filt -p where it is alone),
    or each name as it is when neither is here."""
    for filt in filter(shutil.which, ("c++filt", "cu++filt")):
        done = subprocess.run([filt, "-p"] + list(names), capture_output=True, text=True)
        if done.returncode == 0 and len(done.stdout.splitlines()) == len(names):
            return dict(zip(names, done.stdout.splitlines()))
    return {name: name for name in names}


def run(command, tag):
    """subprocess.run(COMMAND, capture_output=True, text=True) for a cuobjdump COMMAND whose last word
    is a program; TAG names the caller's file (two tests may read one program at once)."""
    program = command[-1]
    folder = os.path.join(os.path.dirname(os.path.abspath(program)), "sass_cache")
    try:
        name = "%s-%s" % (os.path.basename(program), _key(command[0], program))
        os.makedirs(folder, exist_ok=True)
    except OSError:  # no such program, or a folder we may not write: no cache
        return subprocess.run(command, capture_output=True, text=True)
    path = os.path.join(folder, "%s.%s.json" % (name, tag))
    try:
        with open(path, encoding="utf-8") as stream:
            answers = json.load(stream)
    except (OSError, ValueError):
        answers = {}
    asked = " ".join(command[1:-1])
    if asked in answers:
        return subprocess.CompletedProcess(command, 0, answers[asked], "")
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode == 0:
        answers[asked] = done.stdout
        prefix = os.path.basename(program) + "-"
        for old in os.listdir(folder):  # an older binary's answers
            if old.startswith(prefix) and old.endswith(".%s.json" % tag) and not old.startswith(name + "."):
                with contextlib.suppress(OSError):
                    os.remove(os.path.join(folder, old))
        with contextlib.suppress(OSError):  # a folder we may not write: no cache
            with open(path + ".new", "w", encoding="utf-8") as stream:
                json.dump(answers, stream)
            os.replace(path + ".new", path)
    return done
