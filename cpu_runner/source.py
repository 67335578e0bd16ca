#!/usr/bin/env python3
"""Writes the CPU runner's copy of a chapter's .cu, line for line (a #line
directive keeps every message and every finding on the .cu's own lines):
  kernel<<<grid, block[, bytes[, stream]]>>>(args)
      -> cuda_cpu_launcher(__FILE__, __LINE__, "kernel", [&](auto... a) { kernel(a...); }, grid, block...)(args)
  extern __shared__ [__align__(N)] T name[];  ->  T *name = (T *)cuda_cpu_dynamic_shared();
  __shared__ T name[dims];                    ->  a reference to the variable's place in the block's shared
                                                  memory (cuda_cpu_static_shared), which knows its bounds
  asm(...)                                    ->  CUDA_CPU_INLINE_PTX(...)   (says it cannot run), or, for
                                                  TMA, mbarrier and cluster PTX, CUDA_CPU_SM90_PTX(...) (a build
                                                  error with the line)
Nothing else changes: the kernels compile as the lesson writes them.

    python3 cpu_runner/source.py SOURCE.cu OUTPUT.cpp NAME_IN_MESSAGES
"""
import re
import sys

KERNEL = r"[A-Za-z_][\w:]*(?:<[^<>;()\n]*(?:<[^<>;()\n]*>[^<>;()\n]*)*>)?"  # a name, maybe with template arguments
LAUNCH = re.compile(r"(" + KERNEL + r")\s*<<<(.*?)>>>\s*\(")
EXTERN_SHARED = re.compile(r"extern\s+__shared__\s+(?:__align__\(\s*\d+\s*\)\s+)?([^;\[\]\n]*?)\s*\b(\w+)\s*\[\s*\]\s*;")
INLINE_PTX = re.compile(r"\basm\s*(?:volatile\s*)?\(")
# The instructions of sm_90's Tensor Memory Accelerator, its mbarrier and thread block clusters, in an asm's
# strings: a build error naming the line (cuda_on_cpu.h's CUDA_CPU_SM90_PTX), not the runtime's "cannot run".
SM90_PTX = re.compile(r"cp\.(?:reduce\.)?async\.bulk|mbarrier|cluster|mapa|multimem|fence\.proxy\.async")
QUALIFIERS = r"(?:(?:static|volatile|const)\s+)*"
SHARED = re.compile(r"(?<![\w])(" + QUALIFIERS + r")__shared__\s+(" + QUALIFIERS + r")([^;{}=]*?)\s*;")
ALIGN = re.compile(r"__align__\s*\(\s*(\d+)\s*\)")
FIRST = re.compile(r"^(.*?[\w>:])\s*([*&\s]*?)\b([A-Za-z_]\w*)\s*((?:\[[^\[\]]*\]\s*)*)$", re.S)
OTHER = re.compile(r"^\s*([*\s]*?)\b([A-Za-z_]\w*)\s*((?:\[[^\[\]]*\]\s*)*)$", re.S)


def code_spans(text):
    """Where text is code: a list, per character, False inside comments and string or character literals."""
    code = [True] * len(text)
    i, n = 0, len(text)
    while i < n:
        two = text[i:i + 2]
        if two == "//" or two == "/*":
            end = text.find("\n" if two == "//" else "*/", i + 2)
            end = n if end < 0 else end + (0 if two == "//" else 2)
        elif text[i] in "\"'":
            end = i + 1
            while end < n and text[end] != text[i] and text[end] != "\n":
                end += 2 if text[end] == "\\" else 1
            end = min(end + 1, n)
        else:
            i += 1
            continue
        for j in range(i, end):
            code[j] = False
        i = end
    return code


def top_level_split(text):
    """Splits "float a[4], b[N]" at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c in "<([" and 1 or c in ">)]" and -1 or 0
        if c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return parts + [text[start:]]


def shared_declaration(m):
    """__shared__ T a[N], b; -> for each name, its place in the block's shared memory, on the same line."""
    text = m.group(3)
    align = max([int(a) for a in ALIGN.findall(text)] or [0])
    text = ALIGN.sub(" ", text)
    qualifiers = " ".join(q for q in (m.group(1) + " " + m.group(2)).split() if q != "static")
    parts = top_level_split(text)
    first = FIRST.match(parts[0].strip())
    if not first or not first.group(1).strip() or first.group(1).strip() in ("struct", "class", "union", "enum"):
        return None
    base = (qualifiers + " " + first.group(1).strip()).strip()
    declarators = [first.groups()[1:]]
    for part in parts[1:]:
        other = OTHER.match(part)
        if not other:
            return None
        declarators.append(other.groups())
    out = []
    for stars, name, dims in declarators:
        t = "cuda_cpu_shared_%s_t" % name
        alignment = "alignof(%s)" % t if not align else "(%d > alignof(%s) ? %d : alignof(%s))" % (align, t, align, t)
        out.append("typedef %s %s%s%s; static cuda_cpu_shared_slot cuda_cpu_shared_%s_slot; %s &%s = *(%s *)"
                   "cuda_cpu_static_shared(&cuda_cpu_shared_%s_slot, sizeof(%s), %s, \"%s\", __FILE__, __LINE__);"
                   % (base, stars.replace(" ", ""), t, dims.strip(), name, t, name, t, name, t, alignment, name))
    return " ".join(out)


def rewrite(text):
    text = LAUNCH.sub(lambda m: f"cuda_cpu_launcher(__FILE__, __LINE__, \"{m.group(1)}\", [&](auto... "
                                f"cuda_cpu_arguments) {{ {m.group(1)}(cuda_cpu_arguments...); }},"
                                + "\n" * m.group(0).count("\n") + f" {m.group(2)})(", text)
    text = EXTERN_SHARED.sub(lambda m: f"{m.group(1)} *{m.group(2)} = ({m.group(1)} *)cuda_cpu_dynamic_shared();",
                             text)
    code = code_spans(text)
    text = SHARED.sub(lambda m: code[m.start()] and shared_declaration(m) or m.group(0), text)
    return INLINE_PTX.sub(lambda m: "CUDA_CPU_SM90_PTX(" if SM90_PTX.search(asm_strings(text, m.end()))
                          else "CUDA_CPU_INLINE_PTX(", text)


def asm_strings(text, i):
    """The string literals of the asm statement whose argument list starts at i, up to its first ':' or ')'."""
    strings, depth = [], 0
    while i < len(text):
        c = text[i]
        if c == '"':
            end = i + 1
            while end < len(text) and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            strings.append(text[i + 1:end])
            i = end + 1
            continue
        if c in "([":
            depth += 1
        elif c in ")]":
            if depth == 0:
                break
            depth -= 1
        elif c == ":" and depth == 0:
            break
        i += 1
    return "".join(strings)


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
