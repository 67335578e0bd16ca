#!/usr/bin/env python3
"""The grader's own logic (scripts/grade.py, scripts/grader/), on small synthetic inputs; no build, no GPU.
    python3 -m unittest discover -s exercises -p test_grade.py"""
import os
import re
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import testkit  # noqa: E402  (it puts scripts/ on the path)
from testkit import in_process, write  # noqa: E402
import check_predictions  # noqa: E402
import grade  # noqa: E402
from grader import screen, source, spec, verdicts  # noqa: E402

KERNEL = '''#include "x.h"
/* a comment with a { brace */
template <typename real>
__global__ void __launch_bounds__(256)
    tree(const real *x, real *y) {
    const char *s = "}";  // another } brace
    if (x) { y[0] = x[0]; }
}
int main() { tree<float><<<1, 1>>>(0, 0); return 0; }
'''


def spec_file(text):
    return write(os.path.join(tempfile.mkdtemp(), "dot.spec"), text)


def demo_build(row):
    """A build folder whose ch01_demo/demo prints ROW, a --bank-model line; and an exercise that predicts a, b and
    c, each its k/acc."""
    build = tempfile.mkdtemp()
    write(os.path.join(build, "ch01_demo", "demo"), '#!/bin/sh\nprintf "%s\\n"\n' % row, executable=True)
    ex = spec.Exercise("demo", "ch01_demo/demo.cu", 1)
    ex.title, ex.predicts = {"en": "t", "zh": "题"}, [("a", "k", "acc"), ("b", "k", "acc"), ("c", "k", "acc")]
    return build, ex


GOOD = '''source ch05_dot/dot.cu
exercise 1
title   a | 甲
function dot_book
run     --kernel book
stub    value
wrong   w race
edit    "a" "b"
'''


class Specs(unittest.TestCase):
    def test_every_stub_and_wrong_answer_generates_from_the_current_sources(self):
        self.assertEqual(grade.check_specs(), 0)  # the no-drift proof: every anchor and edit found once

    def test_the_readme_tables_are_the_specs(self):
        for name, lang in (("README.md", "en"), ("README.zh-CN.md", "zh")):
            text = source.read(os.path.join(spec.SPECS, name))
            block = text.split("<!-- exercises:begin -->\n")[1].split("\n<!-- exercises:end -->")[0]
            self.assertEqual(block, screen.readme_table(lang), "exercises/%s: run scripts/grade.py --readme %s" % (
                name, lang))

    def test_a_good_spec(self):
        ex = spec.parse_spec(spec_file(GOOD))[0]
        self.assertEqual((ex.function, ex.runs, ex.stub_kinds), ("dot_book", [["--kernel", "book"]], ["value"]))
        self.assertEqual((ex.wrongs[0].name, ex.wrongs[0].kinds, ex.wrongs[0].edits), ("w", ["race"], [["a", "b"]]))
        self.assertIsNone(ex.coalescing)  # not graded unless the spec says so
        self.assertEqual(spec.parse_spec(spec_file(GOOD.replace("stub ", "coalescing 1.5\nstub ")))[0].coalescing, 1.5)

    def test_malformed_lines_are_named(self):
        for bad, said in [(GOOD.replace("stub    value", "stub    slow"), "unknown kind 'slow'"),
                          (GOOD.replace("run ", "walk "), "unknown key 'walk'"),
                          (GOOD.replace('edit    "a" "b"', 'edit    "a"'), "want 2 quoted strings"),
                          (GOOD.replace("wrong   w race\n", ""), "'edit' before any 'wrong'"),
                          (GOOD.replace("exercise 1", "exercise one"), "needs a number"),
                          (GOOD.replace("function dot_book\n", ""), "needs a function"),
                          (GOOD.replace("stub    value", "coalescing yes\nstub    value"), "'coalescing' takes the sectors")]:
            with self.assertRaises(spec.SpecError) as raised:
                spec.parse_spec(spec_file(bad))
            self.assertIn(said, str(raised.exception))

    def test_unquote_keeps_a_regex_backslash(self):
        self.assertEqual(spec.unquote(r'"a\nb\"c\(d\\e"'), 'a\nb"c\\(d\\e')


class Source(unittest.TestCase):
    def test_a_definition_not_a_call_with_its_head_lines_and_braces_in_comments_and_strings(self):
        start, body, end = source.find_function(KERNEL, "tree")
        self.assertTrue(KERNEL[start:].startswith("template <typename real>"))
        self.assertTrue(KERNEL[:end].endswith("}\n}"))
        self.assertEqual(KERNEL[body], "{")
        self.assertIsNone(source.find_function(KERNEL, "missing"))

    def test_the_scan_ends_on_a_comment_or_string_left_open(self):
        import signal

        def stuck(*_):
            raise AssertionError("code_only spins")
        signal.signal(signal.SIGALRM, stuck)
        try:
            for tail in ("/* an old attempt, never closed", "/*", "// no newline", '"never closed', "'", '"ends \\',
                         "\\", '"a\\\n'):
                signal.alarm(2)
                text = KERNEL + tail
                code = source.code_only(text)
                self.assertEqual((len(code), code.count("\n")), (len(text), text.count("\n")), repr(tail))
                self.assertEqual(code[len(KERNEL):].strip(" \n\\"), "", repr(tail))  # blanked, or a bare backslash
                self.assertEqual(source.find_function(text, "tree"), source.find_function(KERNEL, "tree"))
            # an unclosed string ends at its line: the code below it is still code
            self.assertEqual(source.code_only('x = "open\nint y;'), 'x =      \nint y;')
        finally:
            signal.alarm(0)

    def test_an_edit_applies_exactly_once(self):
        self.assertEqual(source.apply_edits("a b", [["b", "c"]], "here"), "a c")
        for text in ("a a", "b"):
            with self.assertRaises(spec.SpecError):
                source.apply_edits(text, [["a", "x"]], "here")

    def test_the_chapter_whole_numbers_the_learners_lines_and_then_the_chapters_again(self):
        ex = spec.exercise("dot", 1)
        text = source.chapter_text(ex)
        whole = source.whole_source(ex, "int mine;", "exercises/mine/dot_1.cu")
        start, _, end = source.find_function(text, "dot_book")
        self.assertEqual(whole, text[:start] + '#line 1 "%s"\nint mine;\n#line %d "%s"\n' % (
            os.path.join(grade.ROOT, "exercises/mine/dot_1.cu"), text[:end].count("\n") + 1,
            os.path.join(grade.ROOT, "ch05_dot/dot.cu")) + text[end:])

    def test_a_stub_blanks_its_lines_and_says_what_to_do(self):
        stub = source.stub_file(spec.exercise("dot", 1))
        self.assertIn("TODO (dot 1)", stub)
        self.assertNotIn("while (i != 0)", stub)
        self.assertIn("scripts/grade.py dot 1", stub)


def grading(*argv):
    """(exit code, stdout then stderr) of scripts/grade.py ARGV, in this process."""
    code, out, err = in_process(grade.main, list(argv))
    return code, out + err


class Paths(unittest.TestCase):
    """Every path is checked before anything is written: nothing of the repository's is replaced, nothing of the
    learner's is lost, a bad path is one line and exit 2. No build: the stub is written before any build."""

    def setUp(self):  # the learner's exercises/mine/, here outside ROOT (not enterContext: Python 3.11's)
        mock.patch.object(grade, "MINE", tempfile.mkdtemp()).start()
        self.addCleanup(mock.patch.stopall)

    def test_the_repositorys_files_are_never_written_and_a_bad_path_is_one_line(self):
        chapter, readme = (os.path.join(grade.ROOT, name) for name in ("ch05_dot/dot.cu", "README.md"))
        before = [source.read(chapter), source.read(readme)]
        missing, notes = os.path.join(grade.MINE, "nothing", "here.cu"), os.path.join(grade.MINE, "notes.txt")
        write(notes, "mine\n")  # the learner's, but not a .cu file: not a stub's place
        for argv, said in [(["--stub", "--file", chapter], "--stub writes only a .cu file of yours"),
                           (["--stub", "--file", readme], "--stub writes only a .cu file of yours"),
                           (["--stub", "--file", notes], "--stub writes only a .cu file of yours"),
                           (["--file", missing], "no such file"), (["--stub", "--file", missing], "no such file"),
                           (["--file", grade.MINE], "is a folder, not a file"),
                           (["--variant", "bogus"], "no variant bogus; there are solution, stub, wrong:"),
                           (["--variant", "stub", "--build", missing], "no such folder"),
                           (["--expect", "bogus"], "--expect bogus: PASS, or kinds among compile"),
                           (["--lang", "xx"], "invalid choice: 'xx'"), (["--number", "x"], "unrecognized arguments")]:
            try:
                code, shown = grading("dot", "1", "--lang", "en", *argv)
            finally:  # a grader that wrote over them anyway: the repository put back, then the test fails
                after = [source.read(chapter), source.read(readme)]
                for path, text, now in zip((chapter, readme), before, after):
                    if os.path.exists(path + ".bak"):
                        os.remove(path + ".bak")
                    if now != text:  # untouched files keep their time: the build sees no change
                        write(path, text)
            self.assertEqual(after, before, argv)
            self.assertEqual((code, shown.count("\n")), (2, 1), (argv, shown))
            self.assertIn(said, shown)
        self.assertEqual(source.read(notes), "mine\n")
        code, shown = grading("dot", "99")
        self.assertEqual((code, shown), (2, "grade.py: no exercise 'dot 99' (scripts/grade.py --list)\n"))
        self.assertFalse(os.path.exists(os.path.dirname(missing)))

    def test_a_stub_over_the_learners_file_keeps_a_copy_the_message_names(self):
        mine = os.path.join(grade.MINE, "dot_1.cu")
        self.assertEqual(grading("dot", "1", "--lang", "both")[0], 1)  # the first time: the stub, nothing to keep
        self.assertEqual(os.listdir(grade.MINE), ["dot_1.cu"])
        stub = source.read(mine)
        self.assertEqual(grading("dot", "1", "--stub", "--lang", "both")[0], 1)  # the same stub again: nothing lost
        self.assertEqual(os.listdir(grade.MINE), ["dot_1.cu"])
        for solved, kept in (("// solved\n", "dot_1.cu.bak"), ("// solved again\n", "dot_1.cu.bak2")):
            write(mine, solved)
            code, shown = grading("dot", "1", "--stub", "--lang", "both")
            self.assertEqual(code, 1)
            self.assertIn("(yours kept as %s)" % os.path.join(os.path.relpath(grade.MINE), kept), shown)
            self.assertIn("（原来的文件另存为 %s）" % os.path.join(os.path.relpath(grade.MINE), kept), shown)
            self.assertEqual(source.read(os.path.join(grade.MINE, kept)), solved)
            self.assertEqual(source.read(mine), stub)

    def test_a_gbk_file_is_read_with_a_note(self):
        mine = os.path.join(grade.MINE, "gbk.cu")
        write(mine, "/* 我的答案 */\nint other(void) { return 0; }\n".encode("gbk"))
        code, shown = grading("dot", "1", "--lang", "zh", "--file", mine)
        self.assertEqual(code, 1)
        self.assertIn("不是 UTF-8 编码", shown)
        self.assertIn("没有 dot_book 的定义", shown)


RACE = """CPU runner: dot_book, launched at ch05_dot/dot.cu:779: what it found
CPU runner: race on shared memory: a thread reads what another thread wrote since the last barrier
  at exercises/mine/dot_1.cu:17: thread 1 of block (0,0,0); the other access at exercises/mine/dot_1.cu:17, thread 3
FINDING kind=race_read_after_write file=exercises/mine/dot_1.cu line=17 block=0,0,0 thread=1 \
other=exercises/mine/dot_1.cu:16 other_thread=3 other_block=0,0,0 address=0 count=1
FINDING kind=barrier_exited file=a.cu line=26 block=0,0,0 thread=128 other=- other_thread=0 other_block=0,0,0 \
address=0 count=256
FINDING kind=global_out_of_bounds file=a.cu line=3 block=0,0,0 thread=1 other=- other_thread=0 other_block=0,0,0 \
address=0 count=1
RESULT example=dot kernel=book type=float n=1001 value=1 expected=2 rel_err=0.5 status=FAIL
"""


def verdict(output, code):
    """The grader's verdicts on a run that printed OUTPUT and exited CODE."""
    return verdicts.read_output(verdicts.Run([]), output, code)


class Output(testkit.Checks):
    def test_the_runners_finding_lines_in_both_languages_and_a_wrong_value_with_its_size(self):
        run = verdict(RACE, 1)
        self.assertEqual(run.kinds, ["race", "barrier", "value"])  # not a kind the grader judges: no verdict
        self.assertEqual(run.details[0], (
            "race on shared memory: a thread reads what another thread wrote since the last barrier\n      at "
            "exercises/mine/dot_1.cu:17: thread 1 of block (0,0,0); the other access at exercises/mine/dot_1.cu:16, "
            "thread 3", "共享内存竞争：一个线程读了另一个线程在上一次 __syncthreads() 之后写的数据\n      位置 "
            "exercises/mine/dot_1.cu:17：线程块 (0,0,0) 中的线程 1；另一次访问在 exercises/mine/dot_1.cu:16，线程 3"))
        self.assertEqual(run.details[1][1], "有线程到不了的 __syncthreads()：一些线程在它之前已经退出\n      位置 a.cu:26，"
                                            "线程块 (0,0,0)：128 个线程在此等待，其余线程已经退出（本次启动中共 256 次）")
        self.assertIn("kernel book, float, n = 1001: got 1, expected 2", run.details[2][0])
        self.assertIn("核函数 book，float，n = 1001：得到 1，应为 2", run.details[2][1])

    def test_every_kind_the_grader_judges_is_one_the_runner_prints(self):
        runtime = source.read(os.path.join(grade.ROOT, "cpu_runner", "runtime.c"))
        keys = re.search(r"kind_keys\[\] = \{(.*?)\};", runtime, re.S).group(1)
        self.assertLessEqual(set(verdicts.FINDINGS), set(re.findall(r'"(\w+)"', keys)))

    def test_the_first_wrong_element_from_the_rows_note_in_both_languages(self):
        row = ("kernel shared float 2145 0 2145 1 0 - - -  FAIL  3 wrong, first wrong out[0][2]: got nan, "
               "expected 66, more words\nRESULT example=transpose kernel=shared type=float n=2145 value=0 "
               "expected=2145 status=FAIL\n").replace("kernel shared", "shared")
        run = verdict(row, 1)
        self.assertTrue(run.first_wrong)
        self.assertEqual(run.details[0][0], "kernel shared, float, n = 2145: got 0, expected 2145; 3 wrong, more words")
        en, zh = run.details[1]
        self.assertEqual(en, "the first wrong element: out[0][2] is nan, should be 66 (NaN: often the poison the "
                             "output starts as, never written, or copied from shared memory no thread wrote)")
        self.assertTrue(zh.startswith("第一个出错的元素：out[0][2] 是 nan，应为 66（NaN"))
        self.assertFalse(verdict(RACE, 1).first_wrong)
        counted = verdict(row.replace("3 wrong,", "value: elements right, 3 wrong,"), 1)
        self.assertEqual(counted.details[0][0], "kernel shared, float, n = 2145: elements right: 0, expected 2145; "
                                             "3 wrong, more words")

    def test_a_sum_in_another_order_is_told_the_check_is_the_kernels_order(self):
        row = ("book float 33791 2 1 0 0 - - -  FAIL  (kernel only: the CPU adds the partials)  24 partials differ from "
               "the CPU's, exact 25721281068030, first wrong partial[0]: got 1.04154327e+12, expected 1.0415432e+12\n"
               "RESULT example=dot kernel=book type=float n=33791 value=25721279873024 expected=25721277775872 "
               "rel_err=8.2e-08 tolerance=0 status=FAIL\n")
        run = verdict(row, 1)
        self.assertIn("24 个部分和与 CPU 重算的不同，精确值 25721281068030", run.details[0][1])
        en, zh = run.details[1]  # the serial loop's sum: nearer the exact one, and still wrong
        self.assertHolds(en, ["bit for bit against the CPU's replay of this kernel's order of additions",
                              "another order", "though yours is nearer the exact sum"])
        self.assertHolds(zh, ["逐位相同", "哪怕你的结果离精确和更近"])
        far = verdict(row.replace("value=25721279873024", "value=99348119552"), 1)
        self.assertNotIn("another order", far.details[1][0])  # a quarter of the sum: no order explains it
        within = verdict(row.replace("tolerance=0", "tolerance=1e-09"), 1)
        self.assertIn("within a relative tolerance of 1e-09", within.details[1][0])
        counted = "shared float 10 9 10 0.1 0 - - -  FAIL  value: elements right, 1 wrong\nRESULT example=t kernel=shared " \
                  "type=float n=10 value=9 expected=10 rel_err=0.1 tolerance=0 status=FAIL\n"
        self.assertEqual(verdict(counted, 1).details[1], (
            "the check: bit for bit (tolerance 0)", "检验方式：逐位相同（容差为 0）"))
        self.assertIn("核函数 shared，float，n = 10：正确的元素数：9，应为 10；1 个元素出错",
                      verdict(counted, 1).details[0][1])

    def test_a_row_failed_only_by_the_runners_findings_is_no_wrong_value(self):
        findings = RACE.split("FINDING kind=barrier_exited")[0]
        row = ("book float 1001 2 2 0 0 - - -  FAIL  exact 2, its check passed, but the CPU runner's findings above "
               "fail it\nRESULT example=dot kernel=book type=float n=1001 value=2 expected=2 rel_err=0 tolerance=0 "
               "status=FAIL\n")
        self.assertEqual(verdict(findings + row, 1).kinds, ["race"])
        both = row.replace("value=2 expected=2", "value=1 expected=2").replace("its check passed, but ", "")
        run = verdict(findings + both, 1)
        self.assertEqual(run.kinds, ["race", "value"])
        self.assertNotIn("findings", run.details[1][0])

    def test_a_compile_error_whole_and_once(self):
        complaint = ("u.cpp: In function 'f':\nu.cpp:3:5: error: 'g' was not declared\n    3 |     g();\n"
                     "      |     ^\nu.cpp:4:9: error: expected expression\n")
        text, same = verdicts.first_error(complaint)
        self.assertEqual(text, same)  # no " | " split into two languages
        self.assertIn("    3 |     g();", text)
        self.assertIn("^", text)
        self.assertNotIn("expected expression", text)  # the first error only
        self.assertEqual(screen.say_lines("both", (text, text)), [text])

    def test_exit_codes(self):
        self.assertEqual([verdict(*run).kinds for run in (("all passed", 0), ("CPU runner: deadlock in block (0,0,0)", 4),
                                                           ("Checked: FAIL", 1), ("CUDA error: misaligned address", 3))],
                         [[], ["deadlock"], ["value"], ["misaligned", "crash"]])
        crash = verdict("", -11)
        self.assertEqual(crash.kinds, ["crash"])
        self.assertHolds(crash.details[0][0] + crash.details[0][1], ["signal 11", "信号 11"])

    def test_the_runners_deadlocks_from_their_finding_lines_in_both_languages(self):
        at = "file=a.cu line=%d block=1,0,0 thread=%d other=%s other_thread=%d other_block=1,0,0 address=0 count=1 " \
             "kernel=k%s\n"
        split = ("CPU runner: deadlock in block (1,0,0): in warp 1, thread 32 waits at a.cu:5 and thread 33 at a.cu:7;"
                 "\nFINDING kind=deadlock_split_warp " + at % (5, 32, "a.cu:7", 33, ""))
        run = verdict(split, 4)
        self.assertEqual((run.kinds, run.details), (["deadlock"], [(
            "deadlock: a warp split between two barriers never finishes its block on a GPU\n      in warp 1 of block "
            "(1,0,0): thread 32 waits at a.cu:5, thread 33 at a.cu:7", "死锁：一个线程束分开停在两个 __syncthreads() 上，"
            "在 GPU 上这个线程块永远结束不了\n      线程块 (1,0,0) 的第 1 号线程束中：线程 32 停在 a.cu:5，线程 33 停在 a.cu:7")]))
        waiting = "".join("FINDING kind=deadlock_waiting " + at % (line, thread, "-", 0, " waits=" + waits)
                          for line, thread, waits in ((9, 0, "__syncwarp()"), (10, 1, "__syncthreads()")))
        run = verdict("CPU runner: deadlock in block (1,0,0): no thread can go on:\n" + waiting, 4)
        self.assertEqual((run.kinds, run.details), (["deadlock"], [(  # one heading, a line for each place
            "deadlock: no thread of the block can go on\n      thread 0 of block (1,0,0) and those after it wait at "
            "a.cu:9, in __syncwarp()\n      thread 1 of block (1,0,0) and those after it wait at a.cu:10, in "
            "__syncthreads()", "死锁：线程块中没有一个线程能继续执行\n      线程块 (1,0,0) 中的线程 0 及其后的线程停在 "
            "a.cu:9 的 __syncwarp()\n      线程块 (1,0,0) 中的线程 1 及其后的线程停在 a.cu:10 的 __syncthreads()")]))
        run = verdict("FINDING kind=deadlock_spinning " + at.replace("a.cu line=%d", "- line=0") % (3, "-", 0, " seconds=5"), 4)
        self.assertEqual(run.kinds, ["deadlock"])
        self.assertHolds(run.details[0][0], ["a kernel ran on without ending", "in kernel k: thread 3 of block (1,0,0), "
                                             "stopped after 5 s"])
        self.assertIn("核函数 k 中：线程块 (1,0,0) 中的线程 3，运行 5 秒后被停下", run.details[0][1])
        self.assertEqual(verdict("", 4).details, [])  # the grader's own timeout: the verdict, no runner's line

    def test_compute_sanitizers_count_from_its_last_summary(self):  # the GPU grading's and sanitizer_table.py's
        from grader.gpu import sanitizer_count
        self.assertEqual([sanitizer_count(text) for text in (
            "========= RACECHECK SUMMARY: 3 hazards displayed (3 errors, 0 warnings)", "========= ERROR SUMMARY: 1 error",
            "========= ERROR SUMMARY: 0 errors", "a run that printed no summary")], [3, 1, 0, None])

    def test_a_crash_names_its_kernel_thread_and_line_in_both_languages(self):
        line = ("FINDING kind=%s file=exercises/mine/dot_1.cu line=9 block=1,0,0 thread=3 other=- other_thread=3 "
                "other_block=1,0,0 address=0 count=1 kernel=dot_book<float>\n")
        for kind in ("invalid_access", "host_memory_in_kernel", "stack_overflow", "local_out_of_bounds",
                     "integer_division", "trap"):
            run = verdict(line % kind, 3)
            self.assertEqual((run.kinds, run.crash_named, grade.unnamed_kinds([run])), (["crash"], True, set()), kind)
            self.assertEqual(len(run.details), 1, kind)  # the finding alone: no "exit 3" under it
            en, zh = run.details[0]
            self.assertIn("\n      in kernel dot_book<float>, at exercises/mine/dot_1.cu:9: thread 3 of block (1,0,0)", en)
            self.assertIn("\n      核函数 dot_book<float> 中，位置 exercises/mine/dot_1.cu:9：线程块 (1,0,0) 中的线程 3", zh)
        bare = verdict("", -11)  # a crash the runner did not catch: no place
        self.assertEqual((bare.crash_named, grade.unnamed_kinds([bare])), (False, {"crash"}))

    def accesses(self, rows, places, conflict_free, coalescing=None):
        """read_accesses on a file of the runner's lines (cpu_runner/warp_accesses.c), addr2line's answers given."""
        path = os.path.join(tempfile.mkdtemp(), "accesses.txt")
        line = "code %s space %s op %s bytes %d warps %d passes %d ideal %d conflicted %d max %d misaligned %d kernel k<a, b>\n"
        with open(path, "w") as f:
            f.write("".join(line % row if isinstance(row, tuple) else row for row in rows))
        with mock.patch.object(verdicts, "addr2line", lambda program, codes: places):
            run = verdicts.Run([])
            return run, verdicts.read_accesses(run, "program", path, "exercises/mine/t_2.cu", conflict_free, coalescing)

    def test_the_accesses_file_per_line_only_the_learners_lines_and_a_misaligned_access_anywhere(self):
        mine = os.path.join(grade.ROOT, "exercises/mine/t_2.cu")
        places = {"0x10": mine + ":7", "0x20": mine + ":9 (discriminator 1)", "0x30": "/x/ch08_banks/banks.cu:151",
                  "0x40": mine + ":9"}
        run, table = self.accesses([("0x10", "shared", "ld", 4, 10, 320, 10, 10, 32, 0),
                                    ("0x20", "shared", "ld", 4, 10, 10, 10, 0, 1, 0),
                                    ("0x30", "shared", "ld", 4, 10, 10, 10, 0, 1, 3),
                                    ("0x40", "global", "st", 4, 10, 320, 40, 10, 32, 2)], places, True)
        self.assertEqual(run.kinds, ["misaligned", "banks"])  # the global line: no coalescing graded here
        self.assertIn("ch08_banks/banks.cu:151: 3 loads", run.details[0][0])
        self.assertIn("ch08_banks/banks.cu:151：3 次 4 字节的读", run.details[0][1])
        self.assertEqual([en.split(":")[0] for en, _ in table], ["line 7, 1 shared load of 4 B",
                                                                 "line 9, 1 shared load of 4 B"])
        self.assertIn("32.00 passes per warp instruction (1.00 without conflicts)", table[0][0])

    def test_a_global_access_past_the_allowance_is_uncoalesced_with_its_line_and_sectors(self):
        mine = os.path.join(grade.ROOT, "exercises/mine/t_2.cu")
        places = {"0x10": mine + ":7", "0x20": mine + ":11"}
        read = ("0x10", "global", "ld", 4, 10, 50, 40, 10, 5, 0)  # a row off its sectors: one more each, allowed
        run, table = self.accesses([read, ("0x20", "global", "st", 4, 10, 320, 40, 10, 32, 0)], places, False, 1)
        self.assertEqual(run.kinds, ["coalescing"])
        en, zh = run.details[0]
        self.assertTrue(en.startswith("line 11, 1 global store of 4 B: 32.00 sectors of 32 B per warp instruction, "
                                      "where a coalesced one takes 4.00 (1 more allowed"), en)
        self.assertTrue(zh.startswith("第 11 行，1 条 4 字节全局内存写：每条线程束指令平均 32.00 个 32 字节扇区，合并访问只需 "
                                      "4.00 个"), zh)
        self.assertEqual(len(table), 2)
        self.assertIn("5.00 sectors of 32 B per warp instruction (4.00 if contiguous and aligned), 5 at most", table[0][0])
        # Exactly at the allowance passes; a hair over it, or the same read with none allowed, does not.
        self.assertEqual(self.accesses([read], places, False, 1)[0].kinds, [])
        self.assertEqual(self.accesses([read[:5] + (51,) + read[6:]], places, False, 1)[0].kinds, ["coalescing"])
        self.assertEqual(self.accesses([read], places, False, 0)[0].kinds, ["coalescing"])
        # Accesses the runner could not keep are said, not silently left out of the counts.
        self.assertIn("7 accesses of k<a, b> not counted", self.accesses(["dropped 7 kernel k<a, b>\n"], places, False)[1][0][0])

    def test_what_a_test_expects(self):
        # (kinds found, --expect, the kinds the screen did not place, the exit): a value unplaced is no first wrong
        # element shown, a crash unplaced an exit -11 and no line; two kinds expected: both must be found.
        for kinds, expect, unnamed, code in [
                ([], "PASS", (), 0), (["race", "value"], "race", (), 0), (["value"], "race", (), 1),
                (["value"], "PASS", (), 1), ([], None, (), 0), (["value"], "value", (), 0),
                (["value"], "value", {"value"}, 1), (["race", "value"], "race", {"value"}, 0),
                (["crash"], "crash", {"crash"}, 1), (["crash", "value"], "crash", {"value"}, 0),
                (["value", "banks"], "value,banks", (), 0), (["banks"], "value,banks", (), 1),
                (["value"], "value,banks", (), 1)]:
            self.assertEqual(in_process(grade.verdict_exit, kinds, expect, unnamed)[0], code, (kinds, expect, unnamed))

    def test_the_predictions_hold_and_a_wrong_one_fails(self):
        root, build = tempfile.mkdtemp(), tempfile.mkdtemp()
        write(os.path.join(build, "ch01_demo", "demo"),  # its bank model: one line; a run: one line of output, exit 0
              '#!/bin/sh\n[ "$1" = --bank-model ] && printf "k\\tacc\\tld\\t4\\t8\\t1\\t-\\t-\\n" || echo ran ok\n',
              executable=True)

        def pages(en, zh=None):
            for name, text in (("README.md", en), ("README.zh-CN.md", en if zh is None else zh)):
                write(os.path.join(root, "ch01_demo", name), text)
            return check_predictions.check_predictions(build, root, ["ch01_demo"])

        good = '<!-- predict: demo -- "k/acc=8" --> <!-- predict-run: demo -- exit=0 "ran ok" -->'
        self.assertEqual(pages(good), 0)
        self.assertEqual(pages(good.replace("acc=8", "acc=1")), 1)
        self.assertEqual(pages(good.replace("exit=0", "exit=1")), 1)
        self.assertEqual(pages(good.replace("ran ok", "ran badly")), 1)
        self.assertEqual(pages(good, good.replace("acc=8", "acc=7")), 1)  # the pages disagree

    def test_a_prediction_with_a_unit_or_full_width_digits_counts_and_an_untouched_one_gives_nothing_away(self):
        build, ex = demo_build("k\\tacc\\tld\\t4\\t8\\t1\\t-\\t-")
        kinds, shown, _ = in_process(grade.grade_predict, ex, "a = ８ 次\nb = ?\nc = 8 passes\n", build, "en")
        lines = shown.split("\n")
        self.assertEqual(kinds, ["value"])
        self.assertTrue(lines[1].startswith("  ok   a") and lines[3].startswith("  ok   c"), lines)
        self.assertIn("no number yet", lines[2])
        self.assertNotIn("8", lines[2])  # the answer is not given away before a prediction
        self.assertIn("FAIL: 1 of 3 wrong", shown)
        # A wrong number a known wrong answer gives: its why; the Chinese labels read as well as the English.
        wrong = spec.Wrong("myth", ["value"], "solution")
        wrong.why, wrong.answers = "the myth | 误解", ["7", "7", "1"]
        ex.wrongs, ex.label_zh = [wrong], {"a": "甲", "b": "乙", "c": "丙"}
        shown = in_process(grade.grade_predict, ex, "甲 = 7\nb = 8\nc = 3\n", build, "zh")[1]
        self.assertIn("FAIL 甲", shown)
        self.assertIn("填 7 的常见原因：误解", shown)
        self.assertEqual(shown.count("常见原因"), 1)  # 3 is no known wrong answer's

    def test_a_wrong_prediction_is_told_why_from_the_models_lanes(self):
        lanes = lambda stride, width: ",".join("%d:0" % (t * stride * width) for t in range(32))
        row = {"bytes": "4", "passes": "2", "lanes": lanes(2, 4)}
        self.assertEqual(grade.bank_why(row)[0], "word = byte address / 4, bank = word % 32: the warp's 32 words fill "
                                                 "bank 0 with 2 of them, so 2 passes")
        self.assertIn("32 个不同的 bank，只要 1 次", grade.bank_why(dict(row, passes="1", lanes=lanes(3, 4)))[1])
        self.assertIn("2 x 2 passes", grade.bank_why({"bytes": "8", "passes": "4", "lanes": lanes(2, 8)})[0])
        self.assertIn("broadcast", grade.bank_why(dict(row, passes="1", lanes=lanes(0, 4)))[0])
        self.assertIsNone(grade.bank_why(dict(row, passes="3")))  # not the model's count: nothing said
        # Through the grading: a right answer and a wrong one each get the model's why, an unanswered one none.
        build, ex = demo_build("k\\tacc\\tld\\t4\\t2\\t1\\t-\\t" + lanes(2, 4))
        shown = in_process(grade.grade_predict, ex, "a = 2\nb = 3\nc = ?\n", build, "en")[1]
        self.assertEqual(shown.count("so 2 passes"), 2, shown)

    def test_bytes_per_flop_are_the_runners_global_loads_per_launch_and_right_within_2_percent(self):
        build, ex = demo_build("-")
        loads = ["code 0x10 space global op ld bytes 4 warps 2 passes 8 ideal 8 conflicted 0 max 4 misaligned 0 "
                 "accesses 64 kernel k<1, 2>"] * 2 + [  # two launches: 256 bytes each; C's store not counted
            "code 0x20 space global op st bytes 4 warps 2 passes 8 ideal 8 conflicted 0 max 4 misaligned 0 accesses 64 "
            "kernel k<1, 2>", "code 0x30 space global op ld bytes 16 warps 1 passes 16 ideal 16 conflicted 0 max 16 "
            "misaligned 0 accesses 32 kernel other"]  # a cp.async copy's 512 bytes
        twin = '#!/bin/sh\nprintf "%s\\n" >> "$CUDA_CPU_ACCESSES"\necho "RESULT example=demo kernel=x flops=2048"\n'
        write(os.path.join(build, "ch01_demo", "demo_cpu"), twin % "\\n".join(loads), executable=True)
        ex.predicts, ex.runs = [("a", "k<1, 2>", None), ("b", "other", None)], [["--n", "8"]]
        self.assertEqual(in_process(grade.grade_predict, ex, "a = 1/8\nb = 0.251 B/FLOP\n", build, "en")[0], [])
        wrong = spec.Wrong("half", ["value"], "solution")
        wrong.why, wrong.answers = "halved | 减半", ["0.0625", "0.5"]
        ex.wrongs = [wrong]
        kinds, shown, _ = in_process(grade.grade_predict, ex, "a = 0.12\nb = 0.0625\n", build, "en")
        self.assertEqual(kinds, ["value"])  # 0.12 is 4 % off 0.125
        self.assertIn("FAIL a                            0.12 (the CPU runner saw 0.125)", shown)
        self.assertIn("256 bytes from global memory in a launch, for 2048 FLOPs", shown)
        self.assertNotIn("common reason", shown)  # b's 0.0625 is a's wrong answer, not b's
        shown = in_process(grade.grade_predict, ex, "a = 0.0625\nb = 0.0625\n", build, "en")[1]
        self.assertEqual(shown.count("a common reason for 0.0625: halved"), 1)
        write(os.path.join(build, "ch01_demo", "demo_cpu"), twin % "dropped 3 kernel other", executable=True)
        with self.assertRaises(spec.SpecError):  # not all counted: no figure rather than a wrong one
            in_process(grade.grade_predict, ex, "a = 1\nb = 1\n", build, "en")
        with self.assertRaises(spec.SpecError) as raised:  # a kernel's bytes per FLOP need a run
            spec.parse_spec(spec_file('source ch05_dot/dot.cu\nexercise 1\npredict x = "k"\nstub value\n'))
        self.assertIn("needs a run", str(raised.exception))

    def test_both_languages(self):
        self.assertEqual(screen.say("zh", "yes | 是"), "是")
        self.assertEqual(screen.say("both", ("yes", "是")), "yes / 是")
        self.assertEqual(screen.say_lines("both", ("yes", "是")), ["yes", "是"])
        self.assertEqual(screen.verdict_line(["value", "race"], "en"), "FAIL: a race on shared memory; a wrong value")


if __name__ == "__main__":
    unittest.main()
