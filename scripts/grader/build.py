"""Building the learner's program: on the CPU runner by scripts/cuda_on_cpu, on the GPU by scripts/builds_alone.sh,
each as a chapter is built outside CMake; each build kept by the hash of what went in."""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

from layout import ROOT, cached, cuda_tool

from .source import whole_source


def cache_dir(build):
    path = os.path.join(build, "exercises", "graded")
    os.makedirs(path, exist_ok=True)
    return path


def cpu_runner_built(build):
    """The build has the CPU runner (EXAMPLES_CPU_RUNNER): the grader runs the learner's program on it."""
    return cached(build, "EXAMPLES_CPU_RUNNER") == "ON"


def build_cpu(ex, function_text, shown, build):
    """(program path, None) or (None, the compiler's complaint): the chapter's .cu with the learner's function,
    built by scripts/cuda_on_cpu as any .cu is (the header's -I../common, and what CMake gives the chapter's twin:
    its folder, BANK_MODEL_ROOT, PROGRAM_FOLDER), its cache inside the build folder."""
    name, chapter = os.path.basename(ex.source), os.path.dirname(ex.source)
    program = ex.program + "_cpu"
    steps = [["env", "XDG_CACHE_HOME=" + os.path.join(cache_dir(build), "cuda_on_cpu"), sys.executable,
              os.path.join(ROOT, "scripts", "cuda_on_cpu"), name, "--build-only", "-o", program,
              "-I" + os.path.join(ROOT, chapter), "-I" + os.path.join(ROOT, "common"),
              '-DBANK_MODEL_ROOT="%s"' % ROOT, '-DPROGRAM_FOLDER="%s"' % chapter]]
    text = '#line 1 "%s"\n' % os.path.join(ROOT, ex.source) + whole_source(ex, function_text, shown)  # the chapter's path
    return cached_build(build, "%s_%d" % (ex.program, ex.number), name, text, steps, program)


def cached_build(build, tag, name, source, steps, program):
    """(program path, None) or (None, the compiler's complaint): source written as name, the steps run
    in a fresh folder of build/exercises/graded/, kept by the hash of what went in (a second grading
    of the same file builds nothing)."""
    # Also what the steps name, common/'s headers and the runner's sources, by time and size: a changed
    # chapter, header or runner builds anew.
    folders = [os.path.join(ROOT, folder) for folder in ("common", "cpu_runner", os.path.join("cpu_runner", "stubs"))]
    inputs = sorted({w for step in steps for w in step if os.path.isabs(w) and os.path.isfile(w)} |
                    {os.path.join(d, f) for d in folders for f in os.listdir(d) if os.path.isfile(os.path.join(d, f))})
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
