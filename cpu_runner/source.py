#!/usr/bin/env python3
"""Writes the CPU runner's copy of a chapter's .cu, line for line (a #line
directive keeps every message and every finding on the .cu's own lines):
  kernel<<<grid, block[, bytes[, stream]]>>>(args)
      -> cuda_cpu_launcher(__FILE__, __LINE__, "kernel", [&](auto... a) { kernel(a...); }, grid, block...)(args)
  extern __shared__ [__align__(N)] T name[];  ->  T *name = (T *)cuda_cpu_dynamic_shared();
  asm(...)                                    ->  CUDA_CPU_INLINE_PTX(...)   (says it cannot run)
Nothing else changes: the kernels compile as the lesson writes them.

    python3 cpu_runner/source.py SOURCE.cu OUTPUT.cpp NAME_IN_MESSAGES
"""
import re
import sys

KERNEL = r"[A-Za-z_][\w:]*(?:<[^<>;()\n]*(?:<[^<>;()\n]*>[^<>;()\n]*)*>)?"  # a name, maybe with template arguments
LAUNCH = re.compile(r"(" + KERNEL + r")\s*<<<(.*?)>>>\s*\(")
EXTERN_SHARED = re.compile(r"extern\s+__shared__\s+(?:__align__\(\s*\d+\s*\)\s+)?([^;\[\]\n]*?)\s*\b(\w+)\s*\[\s*\]\s*;")
INLINE_PTX = re.compile(r"\basm\s*(?:volatile\s*)?\(")


def rewrite(text):
    text = LAUNCH.sub(lambda m: f"cuda_cpu_launcher(__FILE__, __LINE__, \"{m.group(1)}\", [&](auto... "
                                f"cuda_cpu_arguments) {{ {m.group(1)}(cuda_cpu_arguments...); }},"
                                + "\n" * m.group(0).count("\n") + f" {m.group(2)})(", text)
    text = EXTERN_SHARED.sub(lambda m: f"{m.group(1)} *{m.group(2)} = ({m.group(1)} *)cuda_cpu_dynamic_shared();",
                             text)
    return INLINE_PTX.sub("CUDA_CPU_INLINE_PTX(", text)


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    source, output, name = argv[1:]
    with open(source, encoding="utf-8") as f:
        text = f.read()
    rewritten = rewrite(text)
    if rewritten.count("\n") != text.count("\n"):
        sys.stderr.write(f"{source}: the rewrite changed the number of lines\n")
        return 1
    with open(output, "w", encoding="utf-8") as f:
        f.write(f'#line 1 "{name}"\n' + rewritten)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
