#!/usr/bin/env python3
"""Rewrites the SASS excerpts of the lessons from a build: what the compiler made of a kernel,
the instructions a lesson talks about, generated rather than pasted.

    python3 scripts/sass_excerpts.py [--check] [--cuobjdump PATH] BUILD PAGE...

A page holds an excerpt between <!-- sass:PROGRAM:FUNCTION:OPS:begin --> and <!-- sass:PROGRAM:FUNCTION:OPS:end -->:
PROGRAM a chapter's executable (BUILD/*/PROGRAM), FUNCTION the kernel's mangled name, OPS the opcodes to keep,
joined by '-' (LDS-STS-BAR keeps LDS, LDS.128, STS, BAR.SYNC ...). The excerpt: the sm_90 SASS (the GPUs
measured here), the kept instructions in program order without addresses and encodings, under a line naming
the kernel, the architecture and the nvcc (on a Chinese page, PAGE.zh-CN.md, in Chinese).
--check: rewrite nothing; exit 1 when an excerpt differs from the build's (one line each), 77 when it cannot
tell (no cuobjdump; another nvcc than the excerpt's; no sm_90 code). Exit 2 on bad use. cuobjdump's answers
are kept beside each program while it is the same (scripts/cuobjdump_cache.py).
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

import cuobjdump_cache  # answers kept beside the program while it is the same
from layout import cached, cuda_tool

MARKER = re.compile(r"^<!-- sass:(\w+):(\w+):([\w-]+):begin -->\n(.*?)^<!-- sass:\1:\2:\3:end -->$", re.S | re.M)
ARCH = "sm_90"


CAPTION = {"en": "`cuobjdump -sass` of `{kernel}`, {arch}, nvcc {version}: its {ops} instructions, in program order",
           "zh-CN": "`{kernel}` 的 `cuobjdump -sass`，{arch}，nvcc {version}：其中的 {ops} 指令，按程序中的顺序"}
RECORDED = re.compile(r"[,，] ?nvcc (\d+\.\d+)[:：]")  # the nvcc a caption names, in either language


def excerpt(cuobjdump, build, program, function, ops, version, language="en"):
    """The block's body, its caption in LANGUAGE, or None (with the reason on stderr) when the build does
    not have it."""
    paths = glob.glob(os.path.join(build, "*", program))
    if not paths:
        print("sass_excerpts: no %s in %s" % (program, build), file=sys.stderr)
        return None
    done = cuobjdump_cache.run([cuobjdump, "-sass", "-arch", ARCH, "-fun", function, paths[0]], "sass_excerpts")
    keep = tuple(ops.split("-"))
    lines = []
    for line in done.stdout.split("\n"):
        found = re.match(r"^\s+/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;?\s*(?:/\*.*)?$", line)
        if found:
            instruction = found.group(1).rstrip(" ;")
            opcode = re.sub(r"^@!?U?P\w+\s+", "", instruction).split()[0]
            if opcode.split(".")[0] in keep:
                lines.append("        " + instruction + " ;")
    if done.returncode != 0 or not lines:
        print("sass_excerpts: %s has no %s SASS of %s with %s" % (program, ARCH, function, ops), file=sys.stderr)
        return None
    head = CAPTION[language].format(kernel=cuobjdump_cache.demangle([function])[function], arch=ARCH, version=version,
                                    ops=("、" if language == "zh-CN" else ", ").join(keep))
    return head + "\n\n```text\n" + "\n".join(lines) + "\n```\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, rewrite nothing")
    parser.add_argument("--cuobjdump", default=cuda_tool("cuobjdump") or "cuobjdump")
    parser.add_argument("build")
    parser.add_argument("pages", nargs="+")
    args = parser.parse_args(argv)
    if not (os.path.isfile(args.cuobjdump) and os.access(args.cuobjdump, os.X_OK)) and not shutil.which(args.cuobjdump):
        print("sass_excerpts: no cuobjdump (%s): nothing compared" % args.cuobjdump, file=sys.stderr)
        return 77
    os.environ["PATH"] = os.path.dirname(os.path.abspath(args.cuobjdump)) + os.pathsep + os.environ["PATH"]
    found = re.match(r"\d+\.\d+", cached(args.build, "CMAKE_CUDA_COMPILER_VERSION") or "")  # the build's nvcc
    if not found:  # older caches keep it elsewhere: ask the compiler the cache names
        compiler = cached(args.build, "CMAKE_CUDA_COMPILER") or cuda_tool("nvcc")
        out = subprocess.run([compiler, "--version"], capture_output=True, text=True).stdout if compiler else ""
        found = re.search(r"(?<=release )\d+\.\d+", out)
    version = found.group(0) if found else "unknown"
    differ, unknown, written = [], 0, 0
    for page in args.pages:
        text = open(page, encoding="utf-8").read()
        def rewrite(match):
            nonlocal unknown, written
            program, function, ops, body = match.groups()
            recorded = RECORDED.search(body)  # another compiler than the excerpt's may choose other instructions
            new = None if args.check and recorded and recorded.group(1) != version else excerpt(
                args.cuobjdump, args.build, program, function, ops, version, "zh-CN" if page.endswith(".zh-CN.md") else "en")
            if new is None:
                unknown += 1
                return match.group(0)
            if new != body:
                differ.append("%s: the SASS excerpt of %s (%s) differs from the build's" % (page, function, ops))
            written += 1
            return "<!-- sass:%s:%s:%s:begin -->\n%s<!-- sass:%s:%s:%s:end -->" % (program, function, ops, new,
                                                                              program, function, ops)
        new_text = MARKER.sub(rewrite, text)
        if not args.check and new_text != text:
            with open(page, "w", encoding="utf-8") as stream:
                stream.write(new_text)
    if args.check:
        for line in differ:
            print(line)
        if differ:
            return 1
        if unknown:
            print("sass_excerpts: %d excerpt(s) could not be compared (another nvcc, or not in this build)" % unknown)
            return 77 if not written else 0
        print("sass_excerpts: %d excerpt(s) equal to the build's" % written)
        return 0
    print("sass_excerpts: %d excerpt(s) written, %d could not be" % (written, unknown))
    return 1 if unknown else 0


if __name__ == "__main__":
    sys.exit(main())
