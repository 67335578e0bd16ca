"""Where things are: the repository's root, its chapters (chapters.txt), the CUDA tools (cuda_tool.sh) and what a
build folder's CMake cache says."""
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(ROOT, "chapters.txt"), encoding="utf-8") as _list:
    CHAPTERS = [line.strip() for line in _list if line.strip() and not line.startswith("#")]
PROGRAMS = [re.sub(r"^ch\d\d_", "", chapter) for chapter in CHAPTERS]  # in the lessons' order


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
