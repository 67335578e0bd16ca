"""Building the learner's program: on the CPU runner with the flags CMake wrote (exercises/CMakeLists.txt), on the
GPU by scripts/builds_alone.sh; each build kept by the hash of what went in."""
import hashlib
import os
import re
import shutil
import subprocess
import tempfile

from layout import ROOT, cached, cuda_tool

from .source import chapter_functions, learner_unit, read, whole_source


def config(build, program):
    """What CMake wrote for the learner's build (exercises/CMakeLists.txt): compiler, flags, objects."""
    path = os.path.join(build, "exercises", program + ".CXX.cpu")
    if not os.path.exists(path):
        return None
    values = {}
    for line in read(path).split("\n"):
        key, _, value = line.partition("=")
        values[key] = [v for v in value.split(";") if v]
    return values


def instantiations(cfg, functions):
    """The template instances of the exercise functions the harness calls but does not define."""
    run = subprocess.run(["nm", "-C", "--undefined-only"] + cfg["harness"], capture_output=True, text=True)
    found = []
    for line in run.stdout.split("\n"):
        symbol = line.strip()[2:].strip() if line.strip().startswith("U ") else ""
        if any(re.search(r"(^|\s)%s<" % re.escape(f), symbol) for f in functions):
            found.append(symbol)
    return sorted(set(found))


def cache_dir(build):
    path = os.path.join(build, "exercises", "graded")
    os.makedirs(path, exist_ok=True)
    return path


def build_cpu(ex, function_text, shown, build):
    """(program path, None) or (None, the compiler's complaint)."""
    cfg = config(build, ex.program)
    if not cfg:
        return None, ("%s has no CPU-runner harness for %s: build it first (cmake --build %s) | %s 中没有 %s 的 CPU 运行器"
                      "框架：请先构建（cmake --build %s）" % (build, ex.program, build, build, ex.program, build))
    _, functions = chapter_functions(ex.program)
    unit = learner_unit(ex, function_text, shown, instantiations(cfg, functions))
    # The learner's warnings are not errors. DWARF 4: binutils 2.40's addr2line names the translation
    # unit, not the #line file, for some lines of DWARF 5 (the runner names a race's line by it).
    flags = [f for f in cfg["flags"] + cfg["options"] if not f.startswith("-Werror")] + ["-gdwarf-4"]
    flags += ["-I" + d for d in cfg["includes"]] + ["-D" + d for d in cfg["defines"]]
    program, wraps = ex.program + "_cpu", ["-Wl,--wrap=" + symbol for symbol in cfg["wraps"]]
    steps = [cfg["compiler"] + flags + ["-c", "unit.cpp", "-o", "unit.o"],
             cfg["compiler"] + cfg["flags"] + cfg["harness"] + ["unit.o"] + wraps +
             ["-Wl,--allow-multiple-definition", "-o", program] + cfg["link"]]
    return cached_build(build, "%s_%d" % (ex.program, ex.number), "unit.cpp", unit, steps, program)


def cached_build(build, tag, name, source, steps, program):
    """(program path, None) or (None, the compiler's complaint): source written as name, the steps run
    in a fresh folder of build/exercises/graded/, kept by the hash of what went in (a second grading
    of the same file builds nothing)."""
    # Also what the steps name (the harness object, the runtime) and common/'s headers, by time and size:
    # a rebuilt chapter or a changed header builds anew.
    common = os.path.join(ROOT, "common")
    inputs = sorted({w for step in steps for w in step if os.path.isabs(w) and os.path.isfile(w)} |
                    {os.path.join(common, f) for f in os.listdir(common)})
    stamps = ["%s %d %d" % (w, os.stat(w).st_mtime_ns, os.stat(w).st_size) for w in inputs]
    key = hashlib.sha256("\n".join([source] + [" ".join(step) for step in steps] + stamps).encode(
        errors="surrogateescape")).hexdigest()[:16]
    folder = os.path.join(cache_dir(build), "%s_%s" % (tag, key))
    if os.path.exists(os.path.join(folder, program)):
        return os.path.join(folder, program), None
    work = tempfile.mkdtemp(dir=cache_dir(build))
    with open(os.path.join(work, name), "w", encoding="utf-8", errors="surrogateescape") as f:  # a GBK file's bytes
        f.write(source)
    for step in steps:
        done = subprocess.run(step, cwd=work, capture_output=True, text=True, errors="replace")
        if done.returncode != 0:
            shutil.rmtree(work, ignore_errors=True)
            return None, (done.stderr or done.stdout).replace(work + "/", "")
    os.replace(work, folder) if not os.path.exists(folder) else shutil.rmtree(work, ignore_errors=True)
    return os.path.join(folder, program), None


def tool(build, name):
    """nvcc, compute-sanitizer or ncu: beside the build's nvcc first (scripts/cuda_tool.sh)."""
    return cuda_tool(name, cached(build, "CMAKE_CUDA_COMPILER"))


def has_gpu(build):
    probe = os.path.join(build, "tests", "has_cuda_device")
    return os.path.exists(probe) and subprocess.run([probe], capture_output=True).returncode == 0


def build_gpu(ex, function_text, shown, build):
    """(program, None) or (None, complaint): the chapter's folder with the learner's function in its .cu, built
    by scripts/builds_alone.sh as a learner builds it by hand (the header's nvcc line; its last, which needs no
    window), with -lineinfo for the sanitizers' lines."""
    name, chapter = os.path.basename(ex.source), os.path.join(ROOT, os.path.dirname(ex.source))
    steps = [["cp", "-R", chapter, "copy"], ["cp", name, os.path.join("copy", name)],
             ["env", "BUILDS_ALONE_LINE=last", "NVCC_APPEND_FLAGS=-lineinfo", "sh",
              os.path.join(ROOT, "scripts", "builds_alone.sh"), "copy", name, os.path.join(ROOT, "common"),
              tool(build, "nvcc"), "", ex.program]]
    return cached_build(build, "gpu_%s_%d" % (ex.program, ex.number), name, whole_source(ex, function_text, shown),
                        steps, ex.program)
