#!/usr/bin/env python3
"""Every kernel of a program fits every architecture the build holds, and spills nothing.

    res_usage.py CUOBJDUMP ARCH_LIMITS PROGRAM...

ARCH_LIMITS: the test_arch_limits program (tests/arch_limits.h's table and occupancy). For each
architecture of each PROGRAM's fatbinary (cuobjdump -res-usage and -elf), each GPU that runs that
code (sm_80 code on sm_86/87/89, sm_120 on sm_121) and each kernel: LOCAL and STACK are 0 (but for
LOCAL_ALLOWED and STACK_ALLOWED, each with its reason); static shared memory is at most 48 KiB and the
SM's (from sm_90 -res-usage's SHARED includes the driver's 1 KiB per block, taken off); a block of the
size __launch_bounds__ declares (else 1024 threads) fits on an SM by arch_blocks_per_sm. Prints a
table, kernel by architecture, of registers / static shared bytes / blocks per SM and their limit (t
threads, r registers, s shared memory, b the most blocks; instances differing only in an integer
template argument share a row), the kernels with a stack frame, then a line per failed check.
Exit 0: every check holds; 1: one fails; 77: no cuobjdump.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "scripts"))
import cuobjdump_cache  # noqa: E402

# Kernels allowed a stack frame, where, and why: (regex on the demangled name, regex on the
# architecture, reason), each found in the kernel's SASS (cuobjdump -sass -arch ARCH -fun NAME).
STACK_ALLOWED = [
    (r"^dot_fast<float>$", r"^sm_1[01]0$",
     "nvcc 13.0 for sm_100 and sm_110 only: the 64-bit division of the loop's trip count is a called "
     "subroutine, and across it one 4-byte value is spilled (ptxas -v: 8 bytes stack frame, 4 bytes spill "
     "stores, 4 bytes spill loads): one STL and one LDL a thread, outside the loops; elsewhere no frame"),
    (r"^shared_bitmap_(no_sync|synced)$", r"^sm_90a?$",
     "nvcc 13.0 for sm_90 (and sm_90a) only: sinf's slow path for large arguments (the Payne-Hanek range reduction) "
     "keeps its work array in a 32-byte frame (ptxas -v: no spills); elsewhere it stays in registers"),
]
# Kernels allowed local memory, where, and why: none.
LOCAL_ALLOWED = []

WORST_CASE_THREADS = 1024
LIMITER_LETTER = {"threads": "t", "registers": "r", "shared": "s", "blocks": "b"}


def run(command, cached=False):
    """COMMAND's output; CACHED: a cuobjdump command on a program, answered again from the program's
    cache while the binary is the same (scripts/cuobjdump_cache.py)."""
    done = cuobjdump_cache.run(command, "res_usage") if cached else subprocess.run(command, capture_output=True,
                                                                                    text=True)
    if done.returncode != 0:
        sys.exit("res_usage: %s failed (exit %d): %s" % (" ".join(command), done.returncode, done.stderr.strip()))
    return done.stdout


def arch_number(arch):
    """sm_90a -> 90."""
    return int(re.match(r"sm_(\d+)", arch).group(1))


def parse_res_usage(text):
    """{arch: {mangled function: {"REG": n, "STACK": n, "SHARED": n, "LOCAL": n}}}."""
    usage, arch, function = {}, None, None
    for line in text.splitlines():
        match = re.match(r"\s*arch = (\S+)", line)
        if match:
            arch = match.group(1)
            usage.setdefault(arch, {})
            continue
        match = re.match(r"\s*Function (\S+):\s*$", line)
        if match:
            function = match.group(1)
            continue
        if function and "REG:" in line:
            fields = dict(re.findall(r"(\w+(?:\[\d+\])?):(\d+)", line))
            usage[arch][function] = {key: int(fields.get(key, 0)) for key in ("REG", "STACK", "SHARED", "LOCAL")}
            function = None
    return usage


def parse_elf(text):
    """From cuobjdump -elf: {arch: {mangled function: threads}}, from EIATTR_MAX_THREADS
    (__launch_bounds__) or EIATTR_REQNTID (a required block size) in each kernel's .nv.info
    section; and the architectures whose kernels' shared memory includes the driver's reserved
    1 KiB (from sm_90 on, a section .nv.shared.reserved.0: -res-usage's SHARED of a kernel
    without any __shared__ is 1024 there)."""
    bounds, reserved, arch, function, attribute = {}, set(), None, None, None
    for line in text.splitlines():
        if not ("arch =" in line or line.startswith(".") or "Attribute:" in line or "Value:" in line or
                line.endswith(".nv.shared.reserved.0")):
            continue  # none of the patterns below: a section's hex dump, millions of lines in banks
        match = re.match(r"\s*arch = (\S+)", line)
        if match:
            arch, function = match.group(1), None
            bounds.setdefault(arch, {})
            continue
        if re.search(r"\s\.nv\.shared\.reserved\.0$", line):
            reserved.add(arch)
        match = re.match(r"\.nv\.info\.(\S+)", line)
        if match:
            function = match.group(1)
            continue
        if line.startswith("."):  # another section
            function = None
            continue
        match = re.match(r"\s*Attribute:\s*(\S+)", line)
        if match:
            attribute = match.group(1)
            continue
        match = re.match(r"\s*Value:\s*(.*)", line)
        if match and function and attribute in ("EIATTR_MAX_THREADS", "EIATTR_REQNTID"):
            threads = 1
            for value in match.group(1).split():
                threads *= int(value, 16)
            if threads > 0:
                bounds[arch][function] = min(threads, bounds[arch].get(function, threads))
    return bounds, reserved


def short(name, width=72):
    """A table's kernel column. CUB's kernels by their name and the argument types that tell the
    instances apart (the policy, operator and identity dropped), labelled as CUB's; long names cut."""
    match = re.match(r"cub::CUB_\w+::detail::(?:\w+::)*(\w+)<.*?policy_hub<[^,]+, ([^,]+),.*?::Policy\d+, (.*)>$",
                     name)
    if match:
        arguments = []
        for argument in match.group(3).split(", "):
            if "cuda::std" in argument:
                break
            arguments.append(argument)
        offsets = {"unsigned int": "u32", "unsigned long long": "u64"}.get(match.group(2), match.group(2))
        name = "%s<%s> (CUB, %s)" % (match.group(1), ", ".join(arguments), offsets)
        name = name.replace("unsigned long long", "u64").replace("unsigned int", "u32")
    name = re.sub(r"cub::CUB_\w+::detail::(.*)", r"\1 (CUB)", name)
    return name if len(name) <= width else name[:width - 1] + "\u2026"


def read_limits(helper):
    """{sm: {field: value}} from test_arch_limits --limits (the header's table)."""
    lines = run([helper, "--limits"]).splitlines()
    header = lines[0].lstrip("# ").split("\t")
    limits = {}
    for line in lines[1:]:
        row = dict(zip(header, line.split("\t")))
        limits[int(row["sm"])] = {key: (value if key == "family" else int(value)) for key, value in row.items()}
    return limits


def occupancy(helper, queries):
    """[(blocks, limiter)] for each (sm, threads, registers, shared), by arch_blocks_per_sm."""
    text = "".join("%d %d %d %d\n" % query for query in queries)
    done = subprocess.run([helper, "--occupancy"], input=text, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("res_usage: %s --occupancy failed: %s" % (helper, done.stderr.strip()))
    answers = []
    for line in done.stdout.splitlines():
        fields = line.split(" ", 5)
        answers.append((int(fields[4]), fields[5]))
    return answers


def allowed(rules, name, arch):
    for pattern, archs, reason in rules:
        if re.search(pattern, name) and re.search(archs, arch):
            return reason
    return None


def family(name):
    """Instances that differ only in integer template arguments share a table row:
    bank_read<double, 17> -> bank_read<double, N>."""
    return re.sub(r"(?<=[<,] )\d+(?=[,>])|(?<=<)\d+(?=[,>])", "N", name)


def span(values):
    low, high = min(values), max(values)
    return "%d" % low if low == high else "%d-%d" % (low, high)


def code_for(gpu, code_archs):
    """The machine code a GPU of sm_<gpu> runs from this build: the newest of its major version not
    newer than itself (CUDA's binary compatibility: sm_80 code runs on sm_86, 87 and 89), or None
    (then the driver compiles the build's PTX at load time, if it has any: no SASS to check)."""
    runnable = [a for a in code_archs if arch_number(a) // 10 == gpu // 10 and arch_number(a) <= gpu]
    return max(runnable, key=arch_number) if runnable else None


def check_program(cuobjdump, helper, limits, program):
    """Prints the program's table; returns its failures (one line each)."""
    usage = parse_res_usage(run([cuobjdump, "-res-usage", program], cached=True))
    bounds, reserved = parse_elf(run([cuobjdump, "-elf", program], cached=True))
    code_archs = sorted(usage, key=arch_number)
    if not code_archs:
        return ["%s: holds no SASS (cuobjdump -res-usage printed no architecture)" % program]
    failures = ["%s: no limits for %s in tests/arch_limits.h: add its row" % (program, code)
                for code in code_archs if arch_number(code) not in limits]
    # Every GPU of the table that runs some of this build's machine code, and which.
    gpus = [(gpu, code_for(gpu, code_archs)) for gpu in sorted(limits)]
    unchecked = ["sm_%d" % gpu for gpu, code in gpus if code is None]
    gpus = [(gpu, code) for gpu, code in gpus if code is not None]
    functions = sorted({f for code in code_archs for f in usage[code]})
    names = cuobjdump_cache.demangle(functions)
    prefix = os.path.basename(program)

    # What each architecture's code of each kernel uses: its own static shared memory, its block.
    used_by = {}
    for code in code_archs:
        for function, used in usage[code].items():
            used = dict(used)
            if code in reserved and arch_number(code) in limits:  # arch_blocks_per_sm adds the 1 KiB itself
                used["SHARED"] = max(0, used["SHARED"] - limits[arch_number(code)]["reserved_shared_per_block"])
            used["THREADS"] = bounds.get(code, {}).get(function, WORST_CASE_THREADS)
            used_by[(code, function)] = used
            name = names[function]
            if used["LOCAL"] and not allowed(LOCAL_ALLOWED, name, code):
                failures.append("%s %s %s: %d bytes of local memory a thread: none expected"
                                % (prefix, code, name, used["LOCAL"]))
            if used["STACK"] and not allowed(STACK_ALLOWED, name, code):
                failures.append("%s %s %s: a %d-byte stack frame: none expected (a register spill, or a call not "
                                "inlined: look for STL/LDL and CALL in its SASS)" % (prefix, code, name, used["STACK"]))

    # Each GPU against the code it runs.
    cells, queries = {}, []
    for gpu, code in gpus:
        for function in usage[code]:
            used = used_by[(code, function)]
            cells[(gpu, function)] = used
            queries.append((gpu, used["THREADS"], used["REG"], used["SHARED"]))
    answers = dict(zip(queries, occupancy(helper, queries))) if queries else {}
    for (gpu, function), used in cells.items():
        code, limit = code_for(gpu, code_archs), limits[gpu]
        where = "%s sm_%d%s %s" % (prefix, gpu, "" if arch_number(code) == gpu else " (%s code)" % code,
                                   names[function])
        if used["SHARED"] > limit["static_shared_per_block"]:
            failures.append("%s: %d bytes of static shared memory, over the %d a kernel may declare"
                            % (where, used["SHARED"], limit["static_shared_per_block"]))
        if used["SHARED"] > limit["shared_per_sm"]:
            failures.append("%s: %d bytes of static shared memory, over the SM's %d"
                            % (where, used["SHARED"], limit["shared_per_sm"]))
        blocks, limiter = answers[(gpu, used["THREADS"], used["REG"], used["SHARED"])]
        if blocks < 1:
            failures.append("%s: no block of %d threads fits (%d registers, %d bytes shared): %s"
                            % (where, used["THREADS"], used["REG"], used["SHARED"], limiter))

    # The table: one row per kernel (or family of instances), one column per GPU architecture.
    columns = ["sm_%d" % gpu if arch_number(code) == gpu else "sm_%d(%d)" % (gpu, arch_number(code))
               for gpu, code in gpus]
    header = ["kernel", "block"] + columns
    rows, families = [], {}
    for function in functions:
        families.setdefault(family(names[function]), []).append(function)
    for label in sorted(families):
        members = families[label]
        declared = {bounds.get(code, {}).get(f) for code in code_archs for f in members if (code, f) in used_by}
        block = "/".join(["%d" % t for t in sorted(declared - {None})] +
                         ["%d*" % WORST_CASE_THREADS] * (None in declared))
        row = [short(label) + (" (%d)" % len(members) if len(members) > 1 else ""), block]
        for gpu, _ in gpus:
            present = [cells[(gpu, f)] for f in members if (gpu, f) in cells]
            if not present:
                row.append("-")
                continue
            found = [answers[(gpu, used["THREADS"], used["REG"], used["SHARED"])] for used in present]
            fewest, limiter = min(found)
            row.append("%s/%s/%d%s" % (span([used["REG"] for used in present]),
                                       span([used["SHARED"] for used in present]), fewest,
                                       LIMITER_LETTER.get(limiter, "!")))
        rows.append(row)
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    print("%s: %d kernels; machine code for %s" % (prefix, len(functions), " ".join(code_archs)))
    for row in [header] + rows:
        print("  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    if unchecked:
        print("  not checked (no machine code for them in this build; a newer one may compile its PTX at load "
              "time): "
              + " ".join(unchecked))
    frames = {}
    for (code, function), used in sorted(used_by.items(), key=lambda item: arch_number(item[0][0])):
        if used["STACK"] or used["LOCAL"]:
            frames.setdefault(names[function], []).append("%s %d/%d" % (code, used["STACK"], used["LOCAL"]))
    for name in sorted(frames):
        reason = allowed(STACK_ALLOWED, name, frames[name][0].split()[0]) or "not allowed"
        print("  stack/local bytes: %s: %s: %s" % (name, ", ".join(frames[name]), reason))
    return failures


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__.split("\n\n")[1])
    cuobjdump, helper, programs = argv[1], argv[2], argv[3:]
    if not (os.path.isfile(cuobjdump) and os.access(cuobjdump, os.X_OK)):
        print("res_usage: no cuobjdump (run scripts/install_deps.sh, or install the CUDA toolkit's): skipped")
        return 77
    os.environ["PATH"] = os.path.dirname(os.path.abspath(cuobjdump)) + os.pathsep + os.environ.get("PATH", "")
    limits = read_limits(helper)
    print("cell: registers/static shared bytes/blocks per SM at the block size, limited by t(hreads), "
          "r(egisters), s(hared), b(locks per SM)\ncolumn: a GPU's architecture, and in brackets the architecture of "
          "the code it runs where they differ\nblock: __launch_bounds__ (several: they differ by architecture), "
          "or 1024* (none: the worst case)")
    failures = []
    for program in programs:
        failures += check_program(cuobjdump, helper, limits, program)
    for line in failures:
        print("FAIL: " + line)
    print("res_usage: %d program(s), %d failure(s)" % (len(programs), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
