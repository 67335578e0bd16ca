"""The tests' own checkers on stand-in tools, no GPU: tests/expect_sass.sh (claims about a kernel's SASS),
tests/res_usage.py (registers, stack and shared memory against each GPU's limits) and tests/passed_before.sh
(a test not run again while its inputs are the same).

    python3 -m unittest discover -s tests -p test_checkers.py
"""
import os
import re
import unittest

from testkit import InTemporaryFolder, read, script, write


class ExpectSass(InTemporaryFolder):
    """expect_sass.sh with a stand-in cuobjdump printing two architectures' SASS: every claim checked on
    each, --arch scoping, one line per failing architecture, malformed claims exit 2, no cuobjdump 77."""
    SASS = """
Fatbin elf code:
================
arch = sm_75
\tcode for sm_75
\t\tFunction : _Z4treeIfEvPT_
        /*0000*/                   BAR.SYNC 0x0 ;
        /*0010*/                   LDS.U.32 R2, [R3] ;
        /*0020*/                   EXIT ;
\t\t..........

Fatbin elf code:
================
arch = sm_90
\tcode for sm_90
\t\tFunction : _Z4treeIfEvPT_
        /*0000*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0010*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0020*/                   LDS R2, [R3] ;
        /*0030*/                   CCTL.E.PF2 [R4] ;
        /*0040*/                   EXIT ;
\t\t..........
"""

    def sass(self, *claims, function="tree", cuobjdump=None):
        if cuobjdump is None:
            write(self.path("sass.txt"), self.SASS)
            cuobjdump = write(self.path("cuobjdump"), "#!/bin/sh\ncat %s/sass.txt\n" % self.folder,
                              executable=True)
        return script("tests/expect_sass.sh", cuobjdump, "program", function, *claims)

    def test_a_claim_holds_on_every_architecture_or_fails_naming_it(self):
        self.assertPrints(self.sass("--has", "LDS", "--lacks", "LOCAL"), 0,
                          "1 function(s) matching 'tree', 4 claim(s) checked on sm_75 sm_90")
        done = self.sass("--count", "BAR\\.SYNC", "1", "--lacks", "CCTL")
        self.assertEqual(done.returncode, 1)
        failures = [line for line in done.stdout.splitlines() if line.startswith("FAIL")]
        self.assertEqual(len(failures), 2, done.stdout)
        self.assertRegex(failures[0],
                         r"^FAIL: sm_90 (tree<float>|_Z4treeIfEvPT_): 2 line\(s\) match 'BAR\\\.SYNC', not 1$")
        self.assertIn("none expected (first: CCTL.E.PF2 [R4])", failures[1])

    def test_arch_restricts_the_claims_after_it(self):
        done = self.sass("--arch", "sm_80+", "--has", "CCTL", "--count", "BAR", "2", "--arch", "sm_75", "--has",
                         "LDS\\.U", "--arch", "all", "--has", "EXIT")
        self.assertPrints(done, 0, "5 claim(s) checked")
        # No such architecture here: nothing checked.
        self.assertPrints(self.sass("--arch", "sm_100+", "--has", "CCTL"), 77,
                          "no claim is about an architecture of this build: skipped")
        self.assertPrints(self.sass("--arch", "sm_75,sm_90", "--has", "CCTL"), 1, "FAIL: sm_75 ", absent=["FAIL: sm_90 "])

    def test_a_binary_is_disassembled_once_while_it_is_the_same(self):
        """Reruns and the other tests of one program read the SASS kept beside it (item 4: about 20 tests
        took 30-44 s each, every run)."""
        write(self.path("sass.txt"), self.SASS)
        log = self.path("calls")
        cuobjdump = write(self.path("cuobjdump"), '#!/bin/sh\n[ "$1" = -sass ] && echo "$*" >>%s\n'
                          'cat %s/sass.txt\n' % (log, self.folder), executable=True)
        program = write(self.path("build", "program"), "the binary\n")

        def check(*claims):
            return script("tests/expect_sass.sh", cuobjdump, program, "tree", *claims)
        first = check("--has", "LDS")
        self.assertEqual((first.returncode, len(read(log).splitlines())), (0, 1), first.stdout)
        second = check("--count", "BAR\\.SYNC", "1")  # another test of the same program: not disassembled again
        self.assertEqual(len(read(log).splitlines()), 1)
        self.assertIn("the SASS of this same binary, read before", second.stdout)
        self.assertIn("FAIL: sm_90 ", second.stdout)  # and the claims are checked as before
        self.assertEqual(second.returncode, 1)
        write(program, "the binary, rebuilt\n")
        self.assertEqual(check("--has", "LDS").returncode, 0)
        self.assertEqual(len(read(log).splitlines()), 2)
        self.assertEqual(len([name for name in os.listdir(self.path("build", "sass_cache"))
                              if not name.endswith(".lock")]), 1)  # the older binary's is gone

    def test_a_ptx_section_is_no_architecture(self):
        """A build for sm_90a holds the PTX too, which cuobjdump lists as "arch = sm_90" with no SASS."""
        write(self.path("sass.txt"), self.SASS.replace("sm_90", "sm_90a") +
              "\nFatbin ptx code:\n================\narch = sm_90\ncode version = [9,0]\n")
        cuobjdump = write(self.path("cuobjdump"), "#!/bin/sh\ncat %s/sass.txt\n" % self.folder, executable=True)
        self.assertPrints(self.sass("--has", "LDS", cuobjdump=cuobjdump), 0, "checked on sm_75 sm_90a")

    def test_malformed_claims_and_no_function(self):
        for claims in (["--arch", "sm80+", "--has", "X"], ["--count", "X"], ["--hass", "X"], ["--has"]):
            self.assertEqual(self.sass(*claims).returncode, 2, claims)
        self.assertEqual(self.sass("--has", "X", cuobjdump="/nonexistent/cuobjdump").returncode, 77)
        done = self.sass("--has", "X", function="other")
        self.assertEqual((done.returncode, done.stdout), (1, "FAIL: no function of program matches 'other'\n"))


class PassedBefore(InTemporaryFolder):
    """tests/passed_before.sh: a test that passed is not run again while its inputs, its command and its
    tools' versions are the same (item 4: cmake_oldest, 93 s, and tooling, 42 s, reran in full)."""

    def run_it(self, inputs, probe="echo tools 1", exit_code=0, rerun_all=""):
        log = self.path("runs")
        done = script("tests/passed_before.sh", self.path("stamps"), inputs, probe, "sh", "-c",
                      'echo ran >>"$0"; exit %d' % exit_code, log, env=dict(os.environ, EXAMPLES_RERUN_ALL=rerun_all))
        return done, len(read(log).splitlines()) if os.path.exists(log) else 0

    def test_run_once_then_reused_until_an_input_or_a_tool_changes(self):
        source = write(self.path("inputs", "a.c"), "int a;\n")
        other = write(self.path("one.txt"), "1\n")
        inputs = os.path.dirname(source) + ":" + other
        self.assertEqual(self.run_it(inputs)[1], 1)
        done, runs = self.run_it(inputs)
        self.assertEqual((done.returncode, runs), (0, 1))
        self.assertRegex(done.stdout, r"^reused: passed on \S+ with these same inputs and tools")
        changes = [lambda: write(source, "int b;\n"), lambda: write(self.path("inputs", "new.h"), ""),
                   lambda: write(other, "2\n")]
        for count, change in enumerate(changes, start=2):
            change()
            self.assertEqual(self.run_it(inputs)[1], count)
            self.assertEqual(self.run_it(inputs)[1], count)
        self.assertEqual(self.run_it(inputs, probe="echo tools 2")[1], len(changes) + 2)
        self.assertEqual(len(os.listdir(self.path("stamps"))), 1)
        self.assertEqual(self.run_it(inputs, probe="echo tools 2", rerun_all="1")[1], len(changes) + 3)  # asked to

    def test_a_failure_or_a_skip_is_never_reused(self):
        inputs = write(self.path("one.txt"), "1\n")
        for code, runs in ((1, 1), (1, 2), (77, 3), (77, 4), (0, 5), (0, 5)):
            done, count = self.run_it(inputs, exit_code=code)
            self.assertEqual((done.returncode, count), (code, runs))


class ResUsage(InTemporaryFolder):
    """res_usage.py with a stand-in cuobjdump (-res-usage and -elf of sm_75 and sm_90) and a stand-in
    test_arch_limits: the checks fail naming program, architecture and kernel; the reserved KiB of sm_90
    is not counted as the kernel's; __launch_bounds__ is the block size; no cuobjdump is 77."""
    RES_USAGE = """
Fatbin elf code:
================
arch = sm_75
Resource usage:
 Function tree:
  REG:32 STACK:0 SHARED:4096 LOCAL:0 CONSTANT[0]:384 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function bounded:
  REG:%(registers)d STACK:%(stack)d SHARED:%(shared)d LOCAL:%(local)d CONSTANT[0]:384 TEXTURE:0

Fatbin elf code:
================
arch = %(newer)s
Resource usage:
 Function tree:
  REG:30 STACK:0 SHARED:5120 LOCAL:0 CONSTANT[0]:384 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function bounded:
  REG:%(registers)d STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:384 TEXTURE:0
"""
    ELF = """
Fatbin elf code:
================
arch = sm_75
.nv.info.bounded
\t<0x1>
\tAttribute:\tEIATTR_MAX_THREADS
\tFormat:\tEIFMT_SVAL
\tValue:\t0x100 0x1 0x1
Fatbin elf code:
================
arch = %(newer)s
   8f 125880      0  0  1    NOBITS        3    0        0 .nv.shared.reserved.0
.nv.info.bounded
\tAttribute:\tEIATTR_MAX_THREADS
\tValue:\t0x100 0x1 0x1
"""
    # Two architectures; a block fits when registers x threads <= 64 K.
    LIMITS = """#!/usr/bin/env python3
import sys
if sys.argv[1] == "--limits":
    print("# sm\\tfamily\\tshared_per_sm\\tstatic_shared_per_block\\treserved_shared_per_block")
    print("75\\tTuring\\t65536\\t49152\\t0")
    print("80\\tAmpere\\t167936\\t49152\\t1024")
    print("86\\tAmpere\\t102400\\t49152\\t1024")
    print("90\\tHopper\\t233472\\t49152\\t1024")
    sys.exit(0)
for line in sys.stdin:
    sm, threads, registers, shared = map(int, line.split())
    blocks = 0 if registers * threads > 65536 else 1
    print(line.strip(), blocks, "threads" if blocks else "more registers than a block may have")
"""

    def res_usage(self, newer="sm_90", registers=40, stack=0, local=0, shared=2048, cuobjdump=None):
        values = dict(newer=newer, registers=registers, stack=stack, local=local, shared=shared)
        write(self.path("res.txt"), self.RES_USAGE % values)
        write(self.path("elf.txt"), self.ELF % values)
        if cuobjdump is None:
            cuobjdump = write(self.path("cuobjdump"), '#!/bin/sh\ncase $1 in -res-usage) '
                              'cat %s/res.txt ;; -elf) cat %s/elf.txt ;; esac\n' % (self.folder, self.folder),
                              executable=True)
        limits = write(self.path("test_arch_limits"), self.LIMITS, executable=True)
        return script("tests/res_usage.py", cuobjdump, limits, self.path("program"))

    def test_table_with_the_kernels_own_shared_memory_and_declared_block(self):
        self.assertPrints(self.res_usage(), 0, re.compile(r"\n  bounded +256 +40/2048/1t +40/0/1t\n"),
                          re.compile(r"\n  tree +1024\* +32/4096/1t +30/4096/1t\n"))

    def test_each_check_fails_naming_architecture_and_kernel(self):
        for values, message in (
                (dict(stack=16), "FAIL: program sm_75 bounded: a 16-byte stack frame: none expected"),
                (dict(local=8), "FAIL: program sm_75 bounded: 8 bytes of local memory a thread"),
                (dict(shared=50000), "FAIL: program sm_75 bounded: 50000 bytes of static shared memory, over the "
                                     "49152"),
                (dict(newer="sm_91"), "FAIL: program: no limits for sm_91 in tests/arch_limits.h")):
            done = self.res_usage(**values)
            self.assertEqual(done.returncode, 1, values)
            self.assertIn(message, done.stdout.replace(self.path("program"), "program"))
        done = self.res_usage(registers=300)  # 300 x 256 > 64 K: no block of the declared 256 threads
        self.assertIn("FAIL: program sm_90 bounded: no block of 256 threads fits (300 registers, 0 bytes shared): "
                      "more registers than a block may have", done.stdout)

    NOT_CHECKED = "not checked (no machine code for them in this build; a newer one may compile its PTX at load time): "

    def test_each_gpu_against_the_code_it_runs(self):
        done = self.res_usage()  # sm_75 and sm_90 code: no code an sm_80 or sm_86 GPU could run
        self.assertIn(self.NOT_CHECKED + "sm_80 sm_86\n", done.stdout)
        self.assertPrints(self.res_usage(newer="sm_80"), 0,  # an sm_86 GPU runs the sm_80 code; sm_90 none
                          re.compile(r"\n  kernel +block +sm_75 +sm_80 +sm_86\(80\)\n"), self.NOT_CHECKED + "sm_90\n")
        done = self.res_usage(newer="sm_80", registers=300)
        self.assertIn("FAIL: program sm_86 (sm_80 code) bounded: no block of 256 threads fits", done.stdout)

    def test_77_without_cuobjdump(self):
        self.assertEqual(self.res_usage(cuobjdump="/nonexistent/cuobjdump").returncode, 77)


if __name__ == "__main__":
    unittest.main()
