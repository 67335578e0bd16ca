"""Where things are: the repository's root, its chapters (chapters.txt), the CUDA tools (cuda_tool.sh) and what a
build folder's CMake cache says."""
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def chapters(root=ROOT):
    """{chapter folder: its program} as ROOT's chapters.txt lists them (this checkout's, or a copy's), in the
    lessons' order; the chapter's source is FOLDER/PROGRAM.cu."""
    with open(os.path.join(root, "chapters.txt"), encoding="utf-8") as listed:
        folders = [line.strip() for line in listed if line.strip() and not line.startswith("#")]
    return {folder: re.sub(r"^ch\d\d_", "", folder) for folder in folders}


CHAPTERS, PROGRAMS = list(chapters()), list(chapters().values())  # in the lessons' order


def cached(build, key):
    """The value of KEY (CMAKE_CUDA_COMPILER) in BUILD's CMakeCache.txt, or None."""
    path = os.path.join(build, "CMakeCache.txt")
    with open(path, encoding="utf-8") if os.path.exists(path) else open(os.devnull) as cache:
        found = re.search(r"^%s:\w+=(.*)$" % re.escape(key), cache.read(), re.M)
    return found.group(1) if found else None


def cuda_tool(name, nvcc=None):
    """The path of nvcc, cuobjdump, compute-sanitizer or ncu (beside NVCC first), or None."""
    done = subprocess.run(["sh", os.path.join(ROOT, "scripts", "cuda_tool.sh"), name] + ([nvcc] if nvcc else []),
                          capture_output=True, text=True)
    return done.stdout.strip() or None
