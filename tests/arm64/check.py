#!/usr/bin/env python3
"""The CPU runner on arm64 (issue 41): the chapters' programs and some of tests/runner_suite/, built for
x86-64 here and cross-built with Debian's aarch64 toolchain, run under qemu-aarch64, must print the same.

    python3 tests/arm64/check.py [--build-dir DIR] [--jobs N] [--list] [CASE ...]

Each program is built twice by scripts/cuda_on_cpu (--build-only): with g++/gcc, and with
aarch64-linux-gnu-g++/gcc (CXX and CC; cuda_on_cpu takes the target's flags from `$CXX -dumpmachine`:
-mfma on x86-64 only, -ffp-contract=fast for both), with the include folders a chapter's CMake twin
searches (the chapter's folder, common/*.cuh rewritten by cpu_runner/source.py, common/,
cpu_runner/stubs). Every case then runs on both builds (the aarch64 one under
`qemu-aarch64 -L /usr/aarch64-linux-gnu`), and the two runs must agree:
  - the exit code, and it is the one the case expects (a wrong kernel's 1, 3 or 4: the runs compared
    are the ones the cpu tests check, not two equal crashes);
  - standard output, line for line: every RESULT line (each value with all its digits), every PASS or
    FAIL, every finding (its kind, file:line, threads and counts);
  - standard error, less the runner's progress lines (`... about N s left`, timed).
A control build (dot for x86-64 with -ffp-contract=off) must fail the two dot cases whose inputs
make a fused multiply-add change the answer (FMA_CASES), with other RESULT bits: so the arm64
build agreeing with x86's -mfma build there shows that aarch64 gcc fused the same operations.
An invalid access's address (ASLR's, and qemu's guest space) is left out of the comparison.

Exit 0 when every case agrees, 1 with a diff of each that does not, 77 (one line) when the
aarch64 compiler or qemu-aarch64 is missing (Debian: g++-aarch64-linux-gnu, qemu-user;
scripts/install_deps.sh installs them), 2 on bad usage. Python 3 standard library only.
"""
import argparse
import concurrent.futures
import difflib
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CUDA_ON_CPU = os.path.join(ROOT, "scripts", "cuda_on_cpu")
SYSROOT = "/usr/aarch64-linux-gnu"
sys.path[:0] = [os.path.join(ROOT, "tests", "runner_suite"), os.path.join(ROOT, "scripts")]
from check import parse_expectations  # noqa: E402  (the runner suite's driver: its programs' // expect: lines)
from results import records  # noqa: E402  (the RESULT lines, as every script reads them)
RUN_TIMEOUT_S = 300

# The programs: name -> (source .cu, relative to the repository, and how its copy is changed, if at all).
# transpose_no_barrier is transpose.cu with the tile's barrier blanked, as ch08_transpose/CMakeLists.txt
# makes transpose_no_barrier_cpu (a #line keeps every finding on transpose.cu's own lines).
PROGRAMS = {
    "dot": ("ch05_dot/dot.cu", None),
    "reduce": ("ch08_reduce/reduce.cu", None),
    "transpose": ("ch08_transpose/transpose.cu", None),
    "transpose_no_barrier": ("ch08_transpose/transpose.cu",
                             ("the whole tile is in shared memory before anyone reads it", "__syncthreads();")),
    "banks": ("ch08_banks/banks.cu", None),
    "shared_vs_global": ("ch08_shared_vs_global/shared_vs_global.cu", None),
}
# tests/runner_suite/: five with findings (a shared-memory race, a divergent barrier, an invalid
# access caught by the signal handler, a stack overflow on a fiber's guard page, a deadlock), two clean.
SUITE = ["smem_transpose_nosync", "barrier_divergent_if", "wild_pointer", "stack_overflow_local_array",
         "barrier_warp_split_deadlock", "shfl_down_reduce", "cg_tile32_reduce"]
for _name in SUITE:
    PROGRAMS[_name] = ("tests/runner_suite/%s.cu" % _name, None)
# The control: dot built for x86-64 with -ffp-contract=off (no fused multiply-add), run on the cases that
# can tell: dot's float kernels on the book's data (i * 2i past 2^24: each product rounds, so a fused
# temp += a[i] * b[i] rounds once where an unfused one rounds twice, and the CPU's replays, std::fma,
# fail the unfused kernel). The other cases' inputs are exact either way.
CONTROL = ["dot"]
FMA_CASES = {"dot_float_book", "dot_float_book_block32_reverse"}

# The cases: (name, program, arguments, expected exit code). The sizes and arguments are the cpu tests'.
CASES = [
    ("dot_float_book", "dot", ["--cpu", "--n", "33792"], 0),
    ("dot_float_book_block32_reverse", "dot", ["--cpu", "--block", "32", "--n", "10007", "--cpu-order", "reverse"], 0),
    ("dot_double_periodic", "dot", ["--cpu", "--type", "double", "--data", "periodic", "--n", "33792"], 0),
    ("dot_float_periodic_block32_reverse", "dot",
     ["--cpu", "--type", "float", "--data", "periodic", "--block", "32", "--n", "10007", "--cpu-order", "reverse"], 0),
    ("dot_barrier_in_if_forward", "dot", ["--cpu", "--kernel", "barrier_in_if"], 1),
    ("dot_barrier_in_if_reverse", "dot", ["--cpu", "--kernel", "barrier_in_if", "--cpu-order", "reverse"], 1),
    ("dot_barrier_deadlock", "dot", ["--cpu", "--kernel", "barrier_deadlock"], 4),
    ("dot_barrier_first_warp_then_block", "dot", ["--cpu", "--kernel", "barrier_first_warp_then_block"], 1),
    ("reduce_float_random", "reduce", ["--cpu", "--type", "float", "--data", "random", "--n", "10007"], 0),
    ("reduce_double_random_random1", "reduce",
     ["--cpu", "--cpu-order", "random:1", "--type", "double", "--data", "random", "--n", "10007"], 0),
    ("reduce_warp_unrolled_forward", "reduce",
     ["--cpu", "--kernel", "warp_unrolled", "--type", "float", "--data", "random", "--n", "1000"], 1),
    ("reduce_warp_unrolled_reverse", "reduce",
     ["--cpu", "--cpu-order", "reverse", "--kernel", "warp_unrolled", "--type", "float", "--data", "random",
      "--n", "1000"], 1),
    ("reduce_warp_unrolled_lockstep", "reduce",
     ["--cpu", "--cpu-order", "lockstep", "--kernel", "warp_unrolled", "--type", "double", "--data", "random",
      "--n", "1000"], 1),
    ("reduce_global_unguarded", "reduce", ["--cpu", "--kernel", "global_unguarded", "--n", "100003"], 1),
    ("transpose_float_97x65", "transpose", ["--cpu", "--type", "float", "--rows", "97", "--cols", "65"], 0),
    ("transpose_double_100x68_random1", "transpose",
     ["--cpu", "--cpu-order", "random:1", "--type", "double", "--rows", "100", "--cols", "68"], 0),
    ("transpose_no_barrier_forward", "transpose_no_barrier",
     ["--cpu-order", "forward", "--kernel", "shared", "--rows", "97", "--cols", "65"], 1),
    ("transpose_no_barrier_reverse", "transpose_no_barrier",
     ["--cpu-order", "reverse", "--kernel", "shared", "--rows", "97", "--cols", "65"], 1),
    ("banks_default", "banks", ["--cpu"], 0),
    ("banks_same_address_random1", "banks", ["--cpu", "--cpu-order", "random:1", "--part", "same_address"], 1),
    ("banks_carve_misaligned", "banks", ["--cpu", "--part", "carve_misaligned"], 3),
    ("shared_vs_global_default", "shared_vs_global", ["--cpu"], 0),
    ("shared_vs_global_reverse", "shared_vs_global", ["--cpu", "--cpu-order", "reverse"], 0),
]
SUITE_EXIT = {}  # filled from each program's `// expect:` line
for _name in SUITE:
    for _order in ("forward", "lockstep"):
        CASES.append(("suite_%s_%s" % (_name, _order), _name, ["--cpu-order", _order], None))

PROGRESS = re.compile(r"^CPU runner: .* about \d+ s left in this launch$")
# An invalid access's address is where this run's mmap put device memory plus the wrong offset: it moves
# with ASLR on x86-64 (and is (nil) there when the sum leaves the 47-bit address space: a general
# protection fault carries no address), and sits elsewhere in qemu's guest space. Compared without it.
WILD_ADDRESS = re.compile(r"(, address )(0x[0-9a-f]{8,}|\(nil\))$", re.M)


def missing_tools():
    missing = []
    for tool, package in (("aarch64-linux-gnu-g++", "g++-aarch64-linux-gnu"),
                          ("aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu"),
                          ("qemu-aarch64", "qemu-user")):
        if shutil.which(tool) is None:
            missing.append("%s (Debian package %s)" % (tool, package))
    if not missing and not os.path.isfile(os.path.join(SYSROOT, "lib", "ld-linux-aarch64.so.1")):
        missing.append("%s/lib/ld-linux-aarch64.so.1 (Debian package libc6-arm64-cross)" % SYSROOT)
    return missing


def rewrite_headers(folder):
    """common/*.cuh that launch kernels, rewritten as cpu_runner/CMakeLists.txt does (cuda_cpu_headers)."""
    sys.path.insert(0, os.path.join(ROOT, "cpu_runner"))
    import source  # cpu_runner/source.py
    os.makedirs(folder, exist_ok=True)
    common = os.path.join(ROOT, "common")
    for name in sorted(os.listdir(common)):
        if name.endswith(".cuh"):
            with open(os.path.join(common, name), encoding="utf-8") as f:
                text = '#line 1 "common/%s"\n' % name + source.rewrite(f.read())
            target = os.path.join(folder, name)
            if not os.path.isfile(target) or open(target, encoding="utf-8").read() != text:
                with open(target, "w", encoding="utf-8") as f:
                    f.write(text)


def source_of(name, build):
    """The .cu that cuda_on_cpu builds for NAME: the repository's, or a changed copy under BUILD/src."""
    cu, change = PROGRAMS[name]
    if change is None:
        return cu
    marker, removed = change
    with open(os.path.join(ROOT, cu), encoding="utf-8") as f:
        lines = f.read().split("\n")
    hits = [i for i, line in enumerate(lines) if marker in line and removed in line]
    if len(hits) != 1:
        raise SystemExit("arm64: %s: expected one line with %r in %s, found %d" % (name, marker, cu, len(hits)))
    lines[hits[0]] = lines[hits[0]].replace(removed, "")
    copy = os.path.join(build, "src", name + ".cu")
    os.makedirs(os.path.dirname(copy), exist_ok=True)
    text = '#line 1 "%s"\n' % cu + "\n".join(lines)
    if not os.path.isfile(copy) or open(copy, encoding="utf-8").read() != text:
        with open(copy, "w", encoding="utf-8") as f:
            f.write(text)
    return copy


def compilers(build, arch):
    if arch == "aarch64":
        return "aarch64-linux-gnu-g++", "aarch64-linux-gnu-gcc"
    if arch == "x86_64":
        return "g++", "gcc"
    # the control: g++ with -ffp-contract=off after flags.txt's -ffp-contract=fast (the last one wins)
    wrapper = os.path.join(build, "g++-no-contract")
    text = '#!/bin/sh\nexec g++ "$@" -ffp-contract=off\n'
    if not os.path.isfile(wrapper) or open(wrapper).read() != text:
        with open(wrapper, "w") as f:
            f.write(text)
        os.chmod(wrapper, 0o755)
    return wrapper, "gcc"


def build_one(name, arch, build, include):
    cu = source_of(name, build)
    cxx, cc = compilers(build, arch)
    env = dict(os.environ, CXX=cxx, CC=cc, XDG_CACHE_HOME=os.path.join(build, "cache", arch))
    cu_dir = os.path.dirname(os.path.join(ROOT, PROGRAMS[name][0]))
    output = os.path.join(build, arch, name)
    os.makedirs(os.path.dirname(output), exist_ok=True)
    command = [sys.executable, CUDA_ON_CPU, cu, "-I", cu_dir, "-I", include, "-I", os.path.join(ROOT, "common"),
               "-I", os.path.join(ROOT, "cpu_runner", "stubs"), "--build-only", "-o", output]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        return "building %s for %s failed (exit %d):\n%s%s" % (name, arch, done.returncode, done.stdout, done.stderr)
    return None


def run_one(case, arch, build):
    name, program, args, _ = case
    binary = os.path.join(build, arch, program)
    command = ([binary] if arch != "aarch64" else ["qemu-aarch64", "-L", SYSROOT, binary]) + args
    env = dict(os.environ, QEMU_LD_PREFIX=SYSROOT)
    env.pop("CUDA_CPU_STATS", None)
    start = time.time()
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                              errors="replace", timeout=RUN_TIMEOUT_S)
        code, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as e:
        code, out, err = "timeout", (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (
            e.stdout or ""), "ran past %d s\n" % RUN_TIMEOUT_S
    err = "".join(line for line in err.splitlines(True) if not PROGRESS.match(line.rstrip("\n")))
    out = WILD_ADDRESS.sub(r"\1<address>", out)
    return code, out, err, time.time() - start


def diff(a, b, what):
    return "".join(difflib.unified_diff(a.splitlines(True), b.splitlines(True),
                                        "x86_64 " + what, "aarch64 " + what, n=2))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build", "arm64"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("cases", nargs="*")
    options = parser.parse_args(argv)
    if options.list:
        for case in CASES:
            print(case[0], case[1], " ".join(case[2]))
        return 0
    cases = [c for c in CASES if not options.cases or c[0] in options.cases]
    unknown = set(options.cases) - {c[0] for c in CASES}
    if unknown:
        sys.stderr.write("arm64: no case named %s (--list)\n" % ", ".join(sorted(unknown)))
        return 2
    missing = missing_tools()
    if missing:
        print("arm64: skipped: missing %s (scripts/install_deps.sh installs them)" % ", ".join(missing))
        return 77
    build = os.path.abspath(options.build_dir)
    include = os.path.join(build, "include")
    rewrite_headers(include)
    for name in SUITE:
        SUITE_EXIT[name] = parse_expectations(os.path.join(ROOT, PROGRAMS[name][0]))["exit"]
    cases = [(n, p, a, SUITE_EXIT[p] if e is None else e) for n, p, a, e in cases]
    programs = sorted({c[1] for c in cases})
    controls = [p for p in CONTROL if p in programs]
    started = time.time()
    jobs = [(p, arch) for p in programs for arch in ("x86_64", "aarch64")] + [(p, "x86_64-nofma") for p in controls]
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max(1, options.jobs)) as pool:
        for error in pool.map(lambda job: build_one(job[0], job[1], build, include), jobs):
            if error:
                failures.append(error)
    if failures:
        print("\n".join(failures))
        print("arm64: FAIL: %d build(s) failed" % len(failures))
        return 1
    built = time.time()
    runs = [(case, arch) for case in cases for arch in ("x86_64", "aarch64")]
    runs += [(case, "x86_64-nofma") for case in cases if case[0] in FMA_CASES]
    with concurrent.futures.ThreadPoolExecutor(max(1, options.jobs)) as pool:
        results = dict(zip([(c[0], arch) for c, arch in runs], pool.map(lambda r: run_one(r[0], r[1], build), runs)))
    compared = {"RESULT": 0, "finding": 0, "lines": 0}
    for case in cases:
        name, program, args, expected = case
        x_code, x_out, x_err, x_s = results[(name, "x86_64")]
        a_code, a_out, a_err, a_s = results[(name, "aarch64")]
        problems = []
        if x_code != expected:
            problems.append("x86_64 exited %s, expected %s" % (x_code, expected))
        if a_code != x_code:
            problems.append("exit codes differ: x86_64 %s, aarch64 %s" % (x_code, a_code))
        if a_out != x_out:
            problems.append("standard output differs:\n" + diff(x_out, a_out, "stdout"))
        if a_err != x_err:
            problems.append("standard error differs:\n" + diff(x_err, a_err, "stderr"))
        if (name, "x86_64-nofma") in results:
            n_code, n_out = results[(name, "x86_64-nofma")][:2]
            if n_code == 0 or records(n_out, "RESULT") == records(x_out, "RESULT"):
                problems.append("the control (x86-64, -ffp-contract=off) passed or printed the same RESULT lines "
                                "as the fused build (exit %s): this case cannot tell fused from unfused" % n_code)
        shown = "%s %s" % (program, " ".join(args))
        if problems:
            failures.append(name)
            print("FAIL %s (%s)\n  %s" % (name, shown, "\n  ".join(p.replace("\n", "\n    ") for p in problems)))
        else:
            findings = sum(1 for line in x_out.splitlines() if line.startswith("  at "))
            compared["RESULT"] += len(records(x_out, "RESULT"))
            compared["finding"] += findings
            compared["lines"] += len(x_out.splitlines())
            print("same %-40s exit %s, %d lines, %d RESULT, %d finding location(s); %.1f s here, %.1f s under qemu"
                  % (name, x_code, len(x_out.splitlines()), len(records(x_out, "RESULT")), findings, x_s, a_s))
    print("arm64: %d of %d cases the same on x86_64 and aarch64 (%d output lines, %d RESULT lines, %d finding "
          "locations); builds %.0f s, runs %.0f s" % (len(cases) - len(failures), len(cases), compared["lines"],
                                                      compared["RESULT"], compared["finding"], built - started,
                                                      time.time() - built))
    if failures:
        print("arm64: FAIL: %s" % " ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
