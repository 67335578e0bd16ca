"""Where things are: the repository's root, its chapters (chapters.txt) and the CUDA tools (cuda_tool.sh)."""
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(ROOT, "chapters.txt"), encoding="utf-8") as _list:
    CHAPTERS = [line.strip() for line in _list if line.strip() and not line.startswith("#")]
PROGRAMS = [re.sub(r"^ch\d\d_", "", chapter) for chapter in CHAPTERS]  # in the lessons' order


def cuda_tool(name, nvcc=None):
    """The path of nvcc, cuobjdump, compute-sanitizer or ncu (beside NVCC first), or None."""
    done = subprocess.run(["sh", os.path.join(ROOT, "scripts", "cuda_tool.sh"), name] + ([nvcc] if nvcc else []),
                          capture_output=True, text=True)
    return done.stdout.strip() or None
