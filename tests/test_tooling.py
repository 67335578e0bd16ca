"""The scripts of scripts/ (sweep.py, plot.py, mutants.sh, bank_conflicts.sh, ...) on small synthetic inputs, no GPU.

    python3 -m unittest discover -s tests -p test_tooling.py
"""
import contextlib
import glob
import io
import json
import os
import re
import shutil
import sys
import unittest
from unittest import mock

from testkit import ROOT, SCRIPTS, InTemporaryFolder, in_process, read, run, script, write
import layout  # noqa: E402
import plot  # noqa: E402
import results  # noqa: E402
import sweep  # noqa: E402

HAVE_MATPLOTLIB = plot.pyplot() is not None  # plot.py's own look for it
HAVE_CJK_FONT = HAVE_MATPLOTLIB and plot.cjk_font() is not None
NO_CJK_FONT = "matplotlib or %s is not installed for %s (Debian and Ubuntu: apt-get install python3-matplotlib " \
    "fonts-wqy-microhei)" % (plot.CJK_FONT, sys.executable)

H100 = "Device 0: NVIDIA H100 80GB HBM3, compute capability 9.0, 132 SMs, 79.2 GiB, L2 52 MB, driver CUDA 13.0"
# Stands in for an example: prints what the programs print for its --n and --type; FAKE_EXIT makes it
# fail after the Device line.
FAKE_PROGRAM = """#!/bin/sh
while [ $# -gt 0 ]; do case $1 in --n) n=$2; shift ;; --type) t=$2; shift ;; esac; shift; done
echo "%s"
[ -n "$FAKE_EXIT" ] && exit "$FAKE_EXIT"
echo "CEILING example=dot name=read gbps=3000.5 l2=cold"
echo "RESULT example=dot kernel=fast type=$t n=$n bytes=8 ms=0.1 gbps=2900 pct_ceiling=96.7 ceiling=read l2=cold \
scope=whole status=PASS"
""" % H100
PAGE = "# Page\n\nprose before\n\n<!-- results:begin -->\nold table\n<!-- results:end -->\n\nprose after\n"
CTEST = """  5/40 Test  #5: bitmap_window_xvfb ...***Skipped   0.01 sec
95% tests passed, 2 tests failed out of 40

Label Time Summary:
gpu          =  12.00 sec*proc (30 tests)
host         =   3.00 sec*proc (10 tests)

The following tests did not run:
	  5 - bitmap_window_xvfb (Skipped)

The following tests FAILED:
	 12 - dot_float_book_n1 (Failed)                        gpu
	 13 - dot_float_book_n255 (Timeout)                     gpu
"""


def result(kernel, n, gbps, **fields):
    return dict({"record": "RESULT", "example": "dot", "kernel": kernel, "type": "float", "n": str(n),
                 "ms": "0.5", "gbps": gbps, "pct_ceiling": "97.1", "status": "PASS"}, **fields)


def device_rows(name, gbps):
    """A small sweep of one device: dot float at 2^20 and 2^26, its ceiling, two kernels; 2^20 cold too."""
    rows = []
    for n in (2**20, 2**26):
        rows += [{"record": "CEILING", "example": "dot", "name": "read", "type": "float", "n": str(n), "gbps": "3000"},
                 result("fast", n, gbps), result("cublas", n, "2800.2", ceiling="read")]
    rows += [{"record": "CEILING", "example": "dot", "name": "read", "type": "float", "n": "1048576", "gbps": "3000",
              "l2": "cold"}, result("fast", 2**20, "1500", l2="cold")]  # a --cold-l2 run: a cross in the plot
    return [dict(row, device=name, l2_mb="52") for row in rows]


class Sweep(InTemporaryFolder):
    def test_result_ceiling_and_finding_lines_parsed_generically(self):
        new = results.fields("RESULT example=reduce kernel=static n=100 pct_ceiling=38 ceiling=read status=PASS")
        self.assertEqual((new["pct_ceiling"], new["ceiling"]), ("38", "read"))
        self.assertEqual(results.fields("CEILING example=dot name=memcpy gbps=2990.1 l2=warm"),
                         {"record": "CEILING", "example": "dot", "name": "memcpy", "gbps": "2990.1", "l2": "warm"})
        self.assertIsNone(results.fields("kernel  type  n  RESULT"))
        self.assertEqual([r["record"] for r in results.records("x\nFINDING kind=race\nRESULT n=1\n")], ["FINDING", "RESULT"])

    def test_device_and_what_the_run_asked_for_fill_each_row(self):
        text = H100 + "\nCEILING example=transpose name=memcpy gbps=2990\nRESULT example=transpose n=4 status=PASS"
        rows, device = sweep.parse_output(text, {}, sweep.asked("transpose", "float", 2))
        self.assertEqual(device, {"device": "NVIDIA H100 80GB HBM3", "l2_mb": "52"})
        self.assertEqual([(r["record"], r["type"], r["n"], r["size"]) for r in rows],
                         [("CEILING", "float", "4", "2x2"), ("RESULT", "float", "4", "2x2")])

    def run_sweep(self, **environment):
        """sweep.py --quick over a build folder holding only the stand-in dot: (exit code, CSV path)."""
        write(self.path("ch05_dot", "dot"), FAKE_PROGRAM, executable=True)
        csv_path = self.path("sweep.csv")
        with mock.patch.dict(os.environ, environment):
            return in_process(sweep.main, ["--build", self.folder, "--out", csv_path, "--force", "--quick", "--type",
                                           "float"])[0], csv_path

    def test_cold_l2_runs_at_the_sizes_that_fit_in_the_l2(self):
        write(self.path("ch05_dot", "dot"), FAKE_PROGRAM, executable=True)
        cold = [(arguments, fields) for _, arguments, fields in sweep.plan(self.folder, ["float"], False, 5)
                if "--cold-l2" in arguments]
        self.assertEqual([(f["n"], f["l2"]) for _, f in cold], [(str(n), "cold") for n in sweep.COLD["dot"]])
        self.assertFalse(any("--cold-l2" in run[1] for run in sweep.plan(self.folder, ["float"], True, 5)))

    def test_headline_rows_are_the_median_of_three_runs(self):
        def rows(ms, gbps, status="PASS"):
            return [{"record": "CEILING", "name": "read", "gbps": gbps},
                    {"record": "RESULT", "kernel": "static", "ms": ms, "status": status}]
        chosen = sweep.median_rows([rows("0.52", "3000"), rows("0.50", "3100"), rows("0.51", "2900")])
        self.assertEqual([(r.get("gbps"), r.get("ms"), r["runs"]) for r in chosen],
                         [("3000", None, "3"), (None, "0.51", "3")])
        failing = sweep.median_rows([rows("0.52", "3000"), rows("0.50", "3100", "FAIL"), rows("0.51", "2900")])
        self.assertEqual(failing[1]["status"], "FAIL")
        self.assertEqual(sweep.HEADLINE["reduce"], [10**8])

    def test_a_csv_that_plot_reads_a_failed_run_an_error_row_and_no_gpu_77(self):
        code, csv_path = self.run_sweep()
        self.assertEqual(code, 0)
        rows = plot.read_csv(csv_path)
        self.assertEqual([(r["record"], r["device"], r["l2_mb"], r["n"]) for r in rows],
                         [(record, "NVIDIA H100 80GB HBM3", "52", n) for n in ("1024", "1048576")
                          for record in ("CEILING", "RESULT")])
        self.assertEqual(rows[0]["l2"], "cold")
        code, csv_path = self.run_sweep(FAKE_EXIT="3")
        self.assertEqual(code, 1)
        self.assertEqual([(r["kernel"], r["status"], r["n"]) for r in plot.read_csv(csv_path)],
                         [("all", "ERROR", "1024"), ("all", "ERROR", "1048576")])
        self.assertEqual(self.run_sweep(FAKE_EXIT="77")[0], 77)

    def test_every_option_checked_before_any_run(self):
        """A bad option is one line and exit 2 before any program runs, and an existing CSV is left alone
        (--type half ran 40 programs and then replaced the CSV with ERROR rows)."""
        write(self.path("ch05_dot", "dot"), "#!/bin/sh\necho ran >>%s/ran\n" % self.folder, executable=True)
        existing = write(self.path("old.csv"), "device,record\nGPU,RESULT\n")
        cases = {("--type", "half"): "'half' is not float or double",
                 ("--type", "float,float"): "named twice",
                 ("--type", ""): "is not float or double",
                 ("--reps", "-1"): "--reps needs a whole number from 1 to 100000, got '-1'",
                 ("--reps", "0"): "got '0'", ("--reps", "2.5"): "got '2.5'", ("--reps", "100001"): "got '100001'",
                 ("--out", "/nonexistent/x.csv"): "the folder /nonexistent does not exist",
                 ("--out", self.folder): "is a folder",
                 ("--out", existing): "exists: --force replaces it",
                 ("--build", "/nonexistent"): "no such folder",
                 ("--build", self.path("ch05_dot")): "holds no built example",
                 ("--regenerate", "--bogus"): "unrecognized arguments"}
        for arguments, problem in cases.items():
            arguments = list(arguments) + ([] if "--build" in arguments else ["--build", self.folder])
            done = script("scripts/sweep.py", *arguments)
            self.assertEqual(done.stdout, "", arguments)
            self.assertOneLine(done, 2, re.compile("^sweep.py: .*" + re.escape(problem)))
            self.assertFalse(os.path.exists(self.path("ran")), "%s: a program ran" % arguments)
            self.assertEqual(read(existing), "device,record\nGPU,RESULT\n")

    def test_an_existing_csv_is_replaced_only_with_force_and_the_default_is_in_the_build_folder(self):
        write(self.path("ch05_dot", "dot"), FAKE_PROGRAM, executable=True)
        self.assertEqual(in_process(sweep.main, ["--build", self.folder, "--quick", "--type", "float"])[0], 0)
        default = self.path("sweep.csv")  # the build folder's, not the current folder's
        self.assertEqual(len(plot.read_csv(default)), 4)
        self.assertEqual(in_process(sweep.main, ["--build", self.folder, "--quick", "--type", "float"])[0], 2)
        self.assertEqual(in_process(sweep.main, ["--build", self.folder, "--quick", "--type", "double", "--force"])[0], 0)
        self.assertEqual({r["type"] for r in plot.read_csv(default)}, {"double"})


class Plot(InTemporaryFolder):
    """plot.py --regenerate in this process, over a checkout of its own: README.md, docs/RESULTS.md and
    docs/results/DEVICE/."""

    def setUp(self):
        super().setUp()
        self.readme, self.results = write(self.path("README.md"), PAGE), write(self.path("docs", "RESULTS.md"), PAGE)
        mock.patch.object(plot, "TOP", self.folder).start()  # not enterContext: Python 3.11's (Ubuntu 22.04: 3.10)
        self.addCleanup(mock.patch.stopall)

    def write(self, name, text):  # a file of docs/results/
        return write(self.path("docs", "results", name), text)

    def device(self, slug, name, gbps="2950.5", rows=None):
        path = self.path("docs", "results", slug, "sweep.csv")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        sweep.write_csv(path, rows or device_rows(name, gbps))
        return path

    def plot(self):
        """(exit code, stderr)."""
        return in_process(plot.main, ["--regenerate"])[::2]

    def test_malformed_csv_rejected_with_file_and_line(self):
        header, line2 = read(self.device("h100", "GPU")).splitlines()[:2]
        cases = {
            "": (1, "no column device"),
            header.replace("gbps", "speed") + "\n" + line2: (1, "no column gbps"),
            header + "\n" + line2 + "\n" + line2.replace("3000", "fast"): (3, "gbps 'fast' is not a number"),
            header + "\n" + line2.replace("CEILING", "RESUlT"): (2, "record 'RESUlT'"),
            header + "\n" + ",".join(result("k", 8, "1", status="OK", device="GPU").get(c, "")
                                      for c in header.split(",")): (2, "status 'OK'"),
            header + "\n" + line2 + ",extra": (2, "fields where the header has"),
            header + "\n" + line2 + "\n" + line2.replace("GPU", "Other GPU"): (3, "a second device"),
            b"kernel,n\n\xff\xfe\x00\x01": (2, "not UTF-8 text at byte 9: not a CSV"),
        }
        for text, (line, problem) in cases.items():
            path = self.write("h100/sweep.csv", text)
            code, stderr = self.plot()
            self.assertEqual(code, 2, text)
            self.assertTrue(stderr.startswith("%s:%d: " % (path, line)) and problem in stderr, stderr)
            self.assertEqual(stderr.count("\n"), 1)
            self.assertEqual(read(self.readme), PAGE)
        self.write("h100/ctest.log", "Test project /x\n  1/1 Test #1: a ... Passed 0.1 sec\n")
        self.device("h100", "GPU")
        self.assertEqual(self.plot(), (2, "%s:2: no line 'N%% tests passed ... out of M': ctest did not finish\n"
                                       % self.path("docs", "results", "h100", "ctest.log")))

    def test_unpaired_markers_exit_3_and_nothing_written(self):
        self.device("h100", "GPU")
        write(self.readme, "<!-- results:begin -->\nno end\n<!-- banks:begin --> in a sentence\n")
        self.assertRegex(self.plot()[1], r"^plot.py: a <!-- NAME:begin --> line without its one <!-- NAME:end --> "
                                         r"line after it in \S*README.md: nothing written\n$")
        self.assertEqual(self.plot()[0], 3)
        self.assertEqual(read(self.readme), "<!-- results:begin -->\nno end\n<!-- banks:begin --> in a sentence\n")
        self.assertEqual((read(self.results), os.listdir(self.path("docs", "results", "h100"))), (PAGE, ["sweep.csv"]))

    def test_every_marker_filled_from_every_device(self):
        write(self.readme, PAGE + "<!-- banks:begin -->\nold\n<!-- banks:end -->\n"
              "<!-- results:summary:begin -->\n<!-- results:summary:end -->\n<!-- results:dot:begin -->\n"
              "<!-- results:dot:end -->\n<!-- banks:banks:begin -->\n<!-- banks:banks:end -->\n"
              "<!-- mutants:begin -->\n<!-- mutants:end -->\n<!-- run:banks:begin -->\n<!-- run:banks:end -->\n"
              "<!-- run:compute-sanitizer-tool-racecheck-banks-check:begin -->\n"
              "<!-- run:compute-sanitizer-tool-racecheck-banks-check:end -->\n"
              "<!-- mutants:ch08_banks:begin -->\n<!-- mutants:ch08_banks:end -->\n")
        self.write("h100/ctest.log", CTEST)
        self.write("h200/ctest.log", "100% tests passed out of 191\n")
        self.write("h100/banks.txt", "`build/t/transpose --check` under Nsight Compute:\n\n| transpose |\n"
                                     "`build/b/banks --check` under Nsight Compute:\n\n| kernel | shared loads |\n"
                                     "| --- | ---: |\n| shared | 32 |\n")
        self.write("h100/examples.log", "=== ch05_dot/dot\ndot says\n=== exit 0\n=== ch08_banks/banks\nbanks says\n"
                                        "=== exit 0\n=== ch08_banks/banks --check\nnot this\n=== exit 0\n"
                                        "=== compute-sanitizer --tool racecheck ch08_banks/banks --check\n0 hazards\n"
                                        "=== exit 0\n")
        self.write("h100/mutants.txt", "noise\n| ch | skip_last | dot_x | 1 |\n| ch08_banks | carve | banks_x | 1 |\n"
                                       "\nmutants: 2 planted, 0 not caught\n")
        self.device("h100", "NVIDIA H100 80GB HBM3", "2950.5")
        self.device("h200", "NVIDIA H200", "4100.5")
        self.assertEqual(self.plot()[0], 0)
        readme, results = read(self.readme), read(self.results)
        self.assertTrue(readme.startswith("# Page\n\nprose before\n\n<!-- results:begin -->\n**NVIDIA H100"))
        self.assertHolds(readme, [
            "\n<!-- results:end -->\n\nprose after\n",
            "| dot | float | 2^26 | fast | 0.5 | 2950.5 | 97.1 | PASS |",
            "| dot | float | 2^26 | **cublas** | 0.5 | 2800.2 | 97.1 (read) | PASS |",
            "| NVIDIA H100 80GB HBM3 | dot | float | 2^26 | – | fast 97.1 % | cublas 97.1 % | 1.05 |",
            "<!-- banks:begin -->\n**Bank conflicts on NVIDIA H100 80GB HBM3**\n\n`build/t/transpose",
            "<!-- banks:banks:begin -->\n**Bank conflicts on NVIDIA H100 80GB HBM3**\n\n`build/b/banks --check`",
            "`build/b/banks --check` under Nsight Compute:\n\n| kernel | shared loads |\n| --- | ---: |\n| shared | 32 |\n"
            "<!-- banks:banks:end -->",
            "| ch | skip_last | dot_x | 1 |\n| ch08_banks | carve | banks_x | 1 |\nmutants: 2 planted",
            "<!-- mutants:ch08_banks:begin -->\n**NVIDIA H100 80GB HBM3**\n\n| ch08_banks | carve | banks_x | 1 |\n"
            "<!-- mutants:ch08_banks:end -->",
            "<!-- run:banks:begin -->\n```\n$ build/ch08_banks/banks\nbanks says\n```\n<!-- run:banks:end -->",
            "```\n$ compute-sanitizer --tool racecheck build/ch08_banks/banks --check\n0 hazards\n```"],
            absent=["old table", "\nold\n", "2^20"])  # 2^20: not a headline size
        h100, h200 = results.index("## NVIDIA H100 80GB HBM3"), results.index("## NVIDIA H200")
        self.assertTrue(h100 < results.index("2950.5") < h200 < results.index("4100.5"))
        self.assertHolds(results, ["Data: [sweep.csv](results/h200/sweep.csv); tests ([log](results/h200/ctest.log)): "
                                   "`100% tests passed out of 191`, 0 skipped\n",
                                   "### Shared-memory bank conflicts (Nsight Compute)\n\n`build/t/transpose"])
        if HAVE_MATPLOTLIB:
            self.assertEqual(read(self.path("docs", "results", "h100", "dot_float.png"), True)[:8], b"\x89PNG\r\n\x1a\n")
            self.assertIn("![dot, float on NVIDIA H100 80GB HBM3](results/h100/dot_float.png)", results)
        self.assertEqual(self.plot()[0], 0)
        self.assertEqual((read(self.readme), read(self.results)), (readme, results))  # a second run changes nothing

    def test_kernel_only_and_cold_rows_marked(self):
        rows = [result("book", 2**26, "500", scope="partials"), result("fast", 2**20, "900", l2="cold", status="FAIL")]
        lines = plot.table({"rows": rows})
        self.assertIn("| dot | float | 2^26 | book (kernel only) | 0.5 | 500 | 97.1 | PASS |", lines)
        self.assertIn("| dot | float | 2^20 | fast (cold L2) | 0.5 | 900 | 97.1 | FAIL |", lines)
        summary = plot.summary_body([{"name": "GPU", "rows": rows + [result("fast", 2**26, "900")]}])
        self.assertIn("| GPU | dot | float | 2^26 | book (kernel only) 97.1 % | fast 97.1 % | – | – |", summary)

    def test_ctest_summary(self):
        ctest = plot.read_ctest(self.write("ctest.log", CTEST))
        self.assertEqual(plot.ctest_text(ctest), "`95% tests passed, 2 tests failed out of 40`, 1 skipped "
                         "(`bitmap_window_xvfb`); failed: `dot_float_book_n1`, `dot_float_book_n255`; "
                         "tests per label: gpu 30, host 10")
        self.assertEqual(plot.ctest_text(ctest, "zh-CN"), "`95% tests passed, 2 tests failed out of 40`，跳过 1 个"
                         "（`bitmap_window_xvfb`）；未通过：`dot_float_book_n1`、`dot_float_book_n255`；"
                         "各标签的测试数：gpu 30、host 10")

    def test_a_chinese_page_gets_its_words_in_chinese_and_the_same_figures(self):
        """PAGE.zh-CN.md: headers, marks, the test line and the bank tables' fixed words in Chinese; every figure
        and kernel name as in the English page, line for line (what tests/test_docs.py compares)."""
        chinese = write(self.path("README.zh-CN.md"), PAGE + "<!-- banks:begin -->\n<!-- banks:end -->\n"
                        "<!-- mutants:begin -->\n<!-- mutants:end -->\n")
        write(self.readme, read(chinese))
        self.write("h100/ctest.log", CTEST)
        self.write("h100/banks.txt", "`build/t/transpose --check` under Nsight Compute:\n\n| kernel | shared loads |\n"
                                     "| --- | ---: |\n| shared | 32 |\n| k (cuBLAS’s own kernel) | 1 |\n\n"
                                     "Prediction and SASS count differ (✗) in 1 row(s):\n"
                                     "- shared, loads: predicted 2.00, SASS-counted 32.00\n")
        self.write("h100/mutants.txt", "| chapter | mutant | caught by | check exit |\n| --- | --- | --- | --- |\n"
                                       "| ch | skip | dot_x | 1 |\n\nmutants: 1 planted, 0 not caught\n")
        name = "NVIDIA H100 80GB HBM3"
        self.device("h100", name, rows=device_rows(name, "2950.5") + [result("book", 2**26, "500", scope="partials",
                                                                             device=name)])
        self.assertEqual(self.plot()[0], 0)
        self.assertHolds(read(chinese), [
                      "数据：[sweep.csv](docs/results/h100/sweep.csv)；测试（[日志](docs/results/h100/ctest.log)）：`95% tests",
                      "| 程序 | 类型 | 规模 | 核函数 | ms | GB/s | 占上限的百分比 | 状态 |",
                      "| dot | float | 2^26 | book（只含核函数） | 0.5 | 500 | 97.1 | PASS |",
                      "**NVIDIA H100 80GB HBM3 上的 bank 冲突**", "在 Nsight Compute 下运行 `build/t/transpose --check`：",
                      "| 核函数 | 读指令数 |\n| --- | ---: |\n| shared | 32 |\n| k（cuBLAS 自己的核函数） | 1 |",
                      "有 1 行的预测与 SASS 级计数不同（✗）：\n- shared，读：预测 2.00，SASS 级计数 32.00",
                      "| 章 | 植入的错误 | 发现它的测试 | 检验的退出码 |", "植入的错误：共 1 个，0 个未被发现"])
        import test_docs
        english = test_docs.generated_blocks(self.readme)
        self.assertEqual(sorted(english), ["banks", "mutants", "results"])
        for name, block in test_docs.generated_blocks(chinese).items():
            self.assertIsNone(test_docs.block_difference(english[name], block), name)

    def test_size_labels_and_the_launch_floor(self):
        labels = [plot.size_label({"n": n, "size": size}) for n, size in
                  [("67108864", ""), ("100000000", ""), ("33792", ""), ("67108864", "8192x8192"), ("6", "2x3")]]
        self.assertEqual(labels, ["2^26", "1e8", "33792", "8192²", "2×3"])
        # 1000 float elements read in 8 us, 2^20 in 0.4 ms: the floor is the shortest time, 8 us, and a
        # kernel that took it at every n would show 4 bytes x n / 8 us; rows without a time count for nothing.
        rows = [{"n": "1000", "gbps": "0.5", "ms": "0.008"}, {"n": "1048576", "gbps": "10.48576", "ms": "0.4"},
                {"n": "64", "gbps": "-", "ms": "-"}]
        self.assertEqual([round(x, 9) for x in plot.launch_floor(rows)], [0.008, 4.0])
        self.assertEqual(plot.launch_floor([{"n": "5", "gbps": "-", "ms": "-"}]), (None, None))

    def test_machine_paths_cut_to_the_repository(self):
        log = self.path("examples.log")
        write(log, "=== compute-sanitizer ch05_dot/dot\n/work/main/.snap/common/book.h:162: CUDA error\n"
                   "  racecheck /root/x/build-gpu/./ch05_shared_bitmap/shared_bitmap --no-sync\n"
                   "see a/common/b and https://x.org/common/y\n=== exit 3\n")
        self.assertEqual(plot.read_examples(log)["compute-sanitizer ch05_dot/dot"],
                         ["common/book.h:162: CUDA error", "  racecheck build-gpu/ch05_shared_bitmap/shared_bitmap --no-sync",
                          "see a/common/b and https://x.org/common/y"])

    def test_bank_agreement_counts_rows_and_the_largest_deviation(self):
        # Loads and stores are separate rows; a row without a prediction (a library's kernel) or
        # without accesses is not counted; 2 % is within, 1.08 over 1.00 is not.
        header = ("| kernel | shared loads | wavefronts | per load | SASS per load | predicted | conflicts (ld) | "
                  "shared stores | wavefronts | per store | SASS per store | predicted | conflicts (st) |\n"
                  "| --- |" + " ---: |" * 12 + "\n")
        banks = ("`build-gpu/ch08_transpose/transpose --check` under Nsight Compute:\n\n" + header +
                 "| padded<float> | 100 | 102 | 1.02 | 1.00 | 1.00 | 2 | 100 | 108 | 1.08 | 1.00 | 1.00 | 8 |\n"
                 "| copy<float> | 0 | 0 | – | – | – | 0 | 0 | 0 | – | – | – | 0 |\n"
                 "| lib_kernel (cuBLAS’s own kernel) | 10 | 20 | 2.00 | 2.00 | – | 10 | 10 | 10 | 1.00 | 1.00 | – | 0 |\n"
                 "| shared<float> | 10 | 330 | 33.00 | 32.00 | 32.00 | 320 | 10 | 10 | 1.00 | 1.00 | 2.00 ✗ | 0 |\n\n"
                 "Every prediction equals the SASS count (within 2 %).\n\n"
                 "`build-gpu/ch08_banks/banks --check` under Nsight Compute:\n\n" + header +
                 "| bank_read | 32 | 64 | 2.00 | 2.00 | 2.00 | 32 | 0 | 0 | – | – | – | 0 |\n")
        body = plot.banks_agreement_body([{"name": "GPU", "banks": banks}])
        # padded: both SASS counts agree, its store's hardware count is 8 % above; shared: the load's
        # hardware count is 3 % above, the store's 2.00 ✗ matches neither count (-50 %, the largest).
        self.assertIn("| transpose --check | 4 | 3 | 1 | -50 % (shared<float>) |", body)
        self.assertIn("| banks --check | 1 | 1 | 1 | – |", body)
        self.assertEqual(plot.banks_agreement_body([{"name": "GPU", "banks": None}]), "")


class PlotOutputs(InTemporaryFolder):
    """What plot.py --regenerate writes: the repository's pages, from every device; a plot kept, byte for byte,
    while its data are the same, so regenerating leaves git clean whatever matplotlib is installed."""

    def setUp(self):
        super().setUp()
        self.repo = self.path("repo")
        for name in ("plot.py", "results.py"):
            write(os.path.join(self.repo, "scripts", name), read(os.path.join(SCRIPTS, name)))
        write(os.path.join(self.repo, ".gitignore"), "/build*/\n__pycache__/\n")
        write(os.path.join(self.repo, "README.md"), PAGE)
        write(os.path.join(self.repo, "docs", "RESULTS.md"), PAGE)
        for slug, name in (("h100", "NVIDIA H100 80GB HBM3"), ("h200", "NVIDIA H200")):
            os.makedirs(os.path.join(self.repo, "docs", "results", slug))
            sweep.write_csv(os.path.join(self.repo, "docs", "results", slug, "sweep.csv"), device_rows(name, "2950.5"))
        for arguments in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "pages"]):
            self.git(*arguments)

    def git(self, *arguments):
        done = run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"] +
                   list(arguments), cwd=self.repo)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout

    def plot(self, *arguments, environment=None):
        return script(os.path.join(self.repo, "scripts", "plot.py"), *arguments, cwd=self.repo, env=environment)

    def test_regenerate_rewrites_the_pages_from_every_device_only(self):
        self.assertEqual(self.plot("--regenerate", "--check").returncode, 1)  # the pages hold 'old table'
        self.assertEqual(self.git("status", "--porcelain"), "")
        done = self.plot("--regenerate")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertHolds(read(os.path.join(self.repo, "README.md")), ["NVIDIA H100", "NVIDIA H200"])
        self.git("add", "."), self.git("commit", "-q", "-m", "regenerated")
        done = self.plot("--regenerate", "--check")
        if not HAVE_CJK_FONT:  # without matplotlib no plot is drawn, without the font no Chinese one: --check names them
            undrawn = ["docs/results/%s/dot_float%s.png" % (slug, suffix) for slug in ("h100", "h200")
                       for suffix in ("", ".zh-CN") if suffix or not HAVE_MATPLOTLIB]
            self.assertEqual(done.stdout, "plot.py: regenerating would change %s\n" % ", ".join(undrawn))
        else:
            self.assertPrints(done, 0, "2 pages and 4 plots are what 2 device(s)' results give")
        self.assertEqual(self.plot("--regenerate").returncode, 0)
        self.assertEqual(self.git("status", "--porcelain"), "")

    def test_without_matplotlib_tables_still_written(self):
        blocker = write(self.path("blocker", "matplotlib", "__init__.py"), "raise ImportError('blocked by the test')\n")
        done = self.plot("--regenerate", environment=dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(blocker))))
        self.assertEqual((done.returncode, done.stderr),
                         (0, "plot.py: no module named matplotlib for %s: plots skipped, tables written (bash "
                             "scripts/install_deps.sh or apt install python3-matplotlib, then /usr/bin/python3 "
                             "scripts/plot.py)\n" % sys.executable))
        self.assertIn("| dot | float | 2^26 | fast |", read(os.path.join(self.repo, "docs", "RESULTS.md")))
        self.assertEqual(os.listdir(os.path.join(self.repo, "docs", "results", "h100")), ["sweep.csv"])

    @unittest.skipUnless(HAVE_CJK_FONT, NO_CJK_FONT)
    def test_a_plot_drawn_from_the_same_data_is_kept_byte_for_byte(self):
        csv_path = os.path.join(self.repo, "docs", "results", "h100", "sweep.csv")
        with contextlib.redirect_stderr(io.StringIO()):
            stale, drawn = plot.draw([plot.load(csv_path)])
        pngs = [os.path.join(os.path.dirname(csv_path), name) for name in ("dot_float.png", "dot_float.zh-CN.png")]
        self.assertEqual((stale, drawn), (pngs, pngs))  # in English and in Chinese
        before = [read(png, True) for png in pngs]
        for png in before:
            self.assertNotIn(b"Software", png)  # no matplotlib version in the file
        self.assertNotEqual(*[plot.png_source(png) for png in pngs])
        self.assertTrue(plot.png_source(pngs[0]).startswith("scripts/plot.py sha256:"))
        with mock.patch.object(plot, "plot", side_effect=AssertionError("redrawn")):
            self.assertEqual(plot.draw([plot.load(csv_path)]), ([], []))  # another matplotlib would not draw either
        self.assertEqual([read(png, True) for png in pngs], before)
        for png in pngs:  # drawn again from the same data: the same bytes
            os.remove(png)
        self.assertEqual(plot.draw([plot.load(csv_path)])[1], pngs)
        self.assertEqual([read(png, True) for png in pngs], before)
        sweep.write_csv(csv_path, device_rows("NVIDIA H100 80GB HBM3", "2000.5"))  # new data: drawn again
        self.assertEqual(plot.draw([plot.load(csv_path)])[1], pngs)
        self.assertNotEqual(read(pngs[0], True), before[0])

    @unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib is not installed for %s" % sys.executable)
    def test_without_the_chinese_font_the_english_plots_drawn_and_one_line(self):
        done = self.plot("--regenerate", environment=dict(os.environ, PLOT_CJK_FONT="/nonexistent.ttc"))
        self.assertEqual((done.returncode, done.stderr), (0, "plot.py: no WenQuanYi Micro Hei for the Chinese pictures "
                         "(Debian and Ubuntu: apt-get install fonts-wqy-microhei, which scripts/install_deps.sh does): "
                         "2 Chinese plot(s) not drawn\n"))
        plots = os.path.join(self.repo, "docs", "results", "h100")
        self.assertEqual(sorted(os.listdir(plots)), ["dot_float.png", "sweep.csv"])

    def test_bad_command_lines_and_missing_files_are_one_line_before_anything_is_written(self):
        cases = {("--bank-maps", "x", "/nonexistent.txt"): "/nonexistent.txt: no such file",
                 ("--bank-maps", "x", "docs"): "docs: a folder, not a file",
                 ("--regenerate", "docs/results/h100/sweep.csv"): "give no file",
                 ("--check", "--bank-maps", "x"): "goes with --regenerate",
                 ("--regenerate", "--bank-maps", "x"): "not allowed with argument",
                 ("--bank-maps", "README.md"): "not a folder",
                 ("docs/results/h100/sweep.csv",): "one of the arguments --regenerate --bank-maps is required",
                 ("--regenerate", "--bogus"): "unrecognized arguments"}
        for arguments, problem in cases.items():
            self.assertOneLine(self.plot(*arguments), 2, problem)
        self.assertEqual(self.git("status", "--porcelain", "--untracked-files=all"), "")


class Mutants(InTemporaryFolder):
    """mutants.sh on a fake chapter (a plain C main built by nvcc) with a stand-in nvidia-smi: a caught
    mutant, a survivor, a script that changes nothing, and a check that fails without the bug."""
    SOURCE = "/* a fake chapter\n *   nvcc -O3 prog.cu -o prog\n */\nint main(void) {\n    int value = 42;\n" \
             "    return value == 42 ? 0 : 1;\n}\n"
    TABLE = ["caught\tprog_test\ts/value = 42/value = 41/\t$PROGRAM\tserial",
             "survived\tprog_test\ts/return value == 42 ? 0 : 1/return 0/\t$PROGRAM",
             "unplanted\tprog_test\ts/nothing here/x/\t$PROGRAM",
             "useless_check\tprog_test\ts/value = 42/value = 40/\ttest -e no_such_file"]

    @unittest.skipUnless(layout.cuda_tool("nvcc"), "nvcc is not installed")
    def test_verdicts(self):
        write(self.path("ch99_fake", "prog.cu"), self.SOURCE)
        write(self.path("ch99_fake", "mutants.tsv"), "\n".join(self.TABLE) + "\n")
        write(self.path("bin", "nvidia-smi"), "#!/bin/sh\necho GPU 0\n", executable=True)
        environment = dict(os.environ, MUTANTS_ROOT=self.folder, PATH=self.path("bin") + os.pathsep +
                           os.environ["PATH"])
        done = script("scripts/mutants.sh", env=environment)
        self.assertPrints(done, 1, "| ch99_fake | caught | prog_test | 1 |", "| ch99_fake | survived | SURVIVED | 0 |",
                          "| ch99_fake | unplanted | NOT PLANTED (a sed script changed nothing) | - |",
                          "| ch99_fake | useless_check | CHECK FAILS WITHOUT THE BUG (exit 1) | 1 |",
                          "mutants: 4 planted, 3 not caught")
        for selection, planted in ("only", "1 planted, 0 not caught"), ("skip", "3 planted, 3 not caught"):
            done = script("scripts/mutants.sh", env=dict(environment, MUTANTS_SERIAL=selection))
            self.assertIn("mutants: " + planted, done.stdout)
            self.assertEqual("| ch99_fake | caught | prog_test | 1 |" in done.stdout, selection == "only")
        done = script("scripts/mutants.sh", env=dict(environment, MUTANTS_PLANT_ONLY="1"))
        self.assertEqual((done.returncode, done.stdout), (1, "NOT PLANTED: ch99_fake unplanted\n"
                                                            "mutants: 4 sed scripts, 1 change nothing\n"))


class BankConflicts(InTemporaryFolder):
    """bank_conflicts.sh with a stand-in ncu that prints a raw CSV page (or lacks the SASS-level metric), a
    stand-in program with a bank model, and without ncu."""
    NCU = """#!/bin/sh
if [ "$1" = --query-metrics ]; then %s; exit 0; fi
echo "the program's own line"
echo '"ID","Kernel Name","%s"'
echo '"","","inst","","","inst","","","",""'
row='"0","void transpose_shared<float>(const float *, float *)","16,384","524288","507904","500000","16384","16384","0","16384"'
echo "$row"; echo "$row"
echo '"2","void bank_read<double, 2>(const double *, int)","10","40","30","40","0","0","0","0"'
echo '"3","void transpose_readWrite_alignment_kernel<float>(int)","10","10","0","10","10","10","0","10"'
"""
    PROGRAM = """#!/bin/sh
[ "$2" = --bank-model ] || exit 0
printf '# kernel\\taccess\\top\\tbytes\\tpasses\\tweight\\tpicture\\tlanes\\n'
printf 'library\\ttranspose_readWrite_alignment_kernel\\tcuBLAS\\n'
printf 'transpose_shared<float>\\tcolumn read\\tld\\t4\\t32\\t32\\t-\\t-\\n'
printf 'transpose_shared<float>\\trow write\\tst\\t4\\t1\\t32\\t-\\t-\\n'
printf 'bank_read<double, 2>\\tread\\tld\\t8\\t4\\t8\\t-\\t-\\n'
"""

    def run_script(self, path, *arguments):
        arguments = arguments or (self.path("program"), "--check")
        return run(["/bin/sh", os.path.join(SCRIPTS, "bank_conflicts.sh"), *arguments], env=dict(os.environ, PATH=path))

    def fake(self, sass):
        metrics = ["smsp__sass_inst_executed_op_shared_%s.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_%s.sum",
                   "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_%s.sum",
                   "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_%s.sum"]
        names = [m % op for op in ("ld", "st") for m in metrics]
        query = "echo smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld" if sass else ":"
        write(self.path("ncu"), self.NCU % (query, '","'.join(names)), executable=True)
        write(self.path("nvidia-smi"), "#!/bin/sh\necho GPU 0\n", executable=True)
        write(self.path("program"), self.PROGRAM, executable=True)
        return self.run_script(self.folder + os.pathsep + "/usr/bin:/bin")

    def test_table_with_sass_counts_and_predictions(self):
        # loads: hardware 32.0 per load, SASS 30.5, predicted 32: differs by more than 2 %
        self.assertPrints(self.fake(sass=True), 0, "| transpose_shared<float> | 32768 | 1048576 | 32.00 | 30.52 | 32.00 "
                          "\u2717 | 1015808 | 32768 | 32768 | 1.00 | 1.00 | 1.00 | 0 |",
                          "| bank_read<double, 2> | 10 | 40 | 4.00 | 4.00 | 4.00 | 30 | 0 | 0 | \u2013 | \u2013 | \u2013 | 0 |",
                          "| transpose_readWrite_alignment_kernel<float> (cuBLAS\u2019s own kernel) | 10 |",
                          "differ (\u2717) in 1 row(s):\n- transpose_shared<float>, loads: predicted 32.00, "
                          "SASS-counted 30.52")

    def test_an_ncu_without_sass_counts_is_77(self):
        self.assertOneLine(self.fake(sass=False), 77, "has no SASS-level wavefront count (an old Nsight Compute)")

    def test_help_exits_0_bad_use_2_and_no_ncu_77(self):
        for option in ("--help", "-h"):
            done = self.run_script(os.environ["PATH"], option)
            self.assertEqual((done.returncode, done.stderr), (0, ""), option)
            self.assertTrue(done.stdout.startswith("bank_conflicts.sh PROGRAM [ARGS...]\n"), done.stdout)
            self.assertHolds(done.stdout, ["Runs PROGRAM ARGS under Nsight Compute", "Exit 77 when ncu, its SASS count or a"])
        done = run(["sh", os.path.join(SCRIPTS, "bank_conflicts.sh")])
        self.assertEqual(done.returncode, 2)
        self.assertIn("--help says more", done.stderr)
        write(self.path("program"), self.PROGRAM, executable=True)
        self.assertEqual(self.run_script("/nonexistent").returncode, 77)  # no ncu


class BankMaps(InTemporaryFolder):
    """plot.py --bank-maps: a bank model's pictures drawn; malformed lines and names given twice rejected."""
    LINE = "k<float>\tcolumn read\tld\t4\t32\t32\t%s\t" + ",".join("%d:%d" % (128 * t, t) for t in range(32))

    def plot(self, text, *arguments, **options):
        return script("scripts/plot.py", "--bank-maps", *(arguments or (self.folder,)), input=text, **options)

    @unittest.skipUnless(HAVE_CJK_FONT, NO_CJK_FONT)
    def test_pictures_drawn_and_kept_while_the_model_is_the_same(self):
        line = "# header\n" + self.LINE % "demo" + "\n" + self.LINE % "-" + "\n"
        done = self.plot(line)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(sorted(os.listdir(self.folder)), ["demo.png", "demo.zh-CN.png"])  # in English and in Chinese
        drawn = read(self.path("demo.png"), True)
        self.assertEqual(drawn[:8], b"\x89PNG\r\n\x1a\n")
        self.assertEqual(self.plot(line).stdout, "plot.py: 0 bank map(s) drawn into %s, 2 kept (drawn from the same "
                         "model)\n" % self.folder)
        self.assertEqual(read(self.path("demo.png"), True), drawn)
        done = self.plot(line.replace("\t32\t32\tdemo", "\t31\t32\tdemo"))  # 31 passes: another picture
        self.assertPrints(done, 0, "2 bank map(s) drawn")
        self.assertNotEqual(read(self.path("demo.png"), True), drawn)
        self.assertOneLine(self.plot(line, self.path("demo.png", "x")), 2, "demo.png/x: Not a directory")  # OSError

    @unittest.skipUnless(HAVE_CJK_FONT, NO_CJK_FONT)
    def test_the_same_picture_twice_is_the_same_bytes(self):
        """Nothing in a PNG changes from one drawing to the next (no date, no matplotlib version): a redrawn
        picture is the committed one, byte for byte, where matplotlib and the font are the same."""
        plt, _ = plot.pyplot(), plot.cjk_font()  # the font added
        picture = plot.read_bank_model(io.StringIO(self.LINE % "demo" + "\n"), "test")[0]
        for language, access in (("en", picture[2]), ("zh-CN", plot.chinese_access(picture[2]))):
            with plot.lettering(plt, language):
                drawn = [plot.draw_bank_map(plt, *picture[:2], access, *picture[3:], "key", language) for _ in "12"]
            self.assertEqual(drawn[0], drawn[1], language)

    def test_every_access_named_for_a_picture_has_its_chinese(self):
        cases = {"cache[tid] write (the block's elements)": "写 cache[tid]（线程块的各元素）",
                 "offset 16: cache[tid + offset] read": "offset 为 16：读 cache[tid + offset]",
                 "s 2: s_y[tid] read": "s 为 2：读 s_y[tid]", "column write": "按列写",
                 "mirrored column read": "按列读中心对称的位置", "tile column read": "按列读分块",
                 "s_words[s * threadIdx.x], s = 32": "s_words[s * threadIdx.x]，s = 32",
                 "s_row[0 * row_elements]": "s_row[0 * row_elements]", "16-byte read": "16 字节的读取",
                 "16-byte piece write": "写 16 字节的一块", "column read (16 lanes)": "按列读（16 个线程）",
                 "a new access": None}
        self.assertEqual({access: plot.chinese_access(access) for access in cases}, cases)
        done = self.plot(self.LINE.replace("column read", "a new access") % "demo" + "\n")
        self.assertEqual((done.returncode, done.stderr), (2, "plot.py: no Chinese for the access 'a new access': add a "
                                                              "rule to ACCESS_CHINESE in scripts/plot.py; nothing drawn\n"))
        self.assertEqual(os.listdir(self.folder), [])

    def test_without_matplotlib_or_the_chinese_font_one_line_and_77(self):
        blocker = write(self.path("blocker", "matplotlib", "__init__.py"), "raise ImportError\n")
        cases = [({"PYTHONPATH": os.path.dirname(os.path.dirname(blocker))}, "--bank-maps draws pictures, and %s has no "
                  "module named matplotlib (bash scripts/install_deps.sh or apt install python3-matplotlib)" %
                  sys.executable)] + [
            ({"PLOT_CJK_FONT": self.path("no_such_font.ttc")}, "no WenQuanYi Micro Hei for the Chinese pictures (Debian "
             "and Ubuntu: apt-get install fonts-wqy-microhei, which scripts/install_deps.sh does)")] * HAVE_MATPLOTLIB
        for environment, said in cases:
            done = self.plot(self.LINE % "demo" + "\n", self.path("out"), env=dict(os.environ, **environment))
            self.assertEqual((done.returncode, done.stderr), (77, "plot.py: %s: nothing drawn\n" % said))
            self.assertFalse(os.path.exists(self.path("out")))

    def test_malformed_twice_and_binary_rejected(self):
        binary = write(self.path("binary", "model.txt"), b"\xff\xfe")
        for text, sources, problem in (
                (self.LINE % "demo" + ",7:0\n", (), "<stdin>:1: not a bank model line"),  # 33 lanes
                (self.LINE % "same" + "\n" + self.LINE % "same" + "\n", (), "given twice: same"),
                (self.LINE % "Demo" + "\n", (), "<stdin>:1: picture name 'Demo': use [a-z0-9_]"),
                ("", (binary,), "an input is not UTF-8 text")):
            self.assertOneLine(self.plot(text, self.path("out"), *sources), 2, problem)
        self.assertFalse(os.path.exists(self.path("out")))


class SassExcerpts(InTemporaryFolder):
    """sass_excerpts.py with a stand-in cuobjdump: an excerpt written, checked, found stale, and not
    compared under another nvcc."""
    CUOBJDUMP = """#!/bin/sh
cat <<'SASS'
        Function : _Z1kPf
        /*0000*/                   LDC R1, c[0x0][0x28] ;      /* 0x00000a00ff017b82 */
        /*0010*/              @!P0 STS [R0], R15 ;             /* 0x0000000f00008388 */
        /*0020*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ; /* 0x0000000000007b1d */
        /*0030*/                   LDS.128 R4, [R12] ;         /* 0x000000000c047984 */
        /*0040*/                   EXIT ;                      /* 0x000000000000794d */
SASS
"""

    def run_script(self, *args):
        return script("scripts/sass_excerpts.py", "--cuobjdump", self.path("cuobjdump"), *args)

    def test_written_checked_and_stale(self):
        write(self.path("cuobjdump"), self.CUOBJDUMP, executable=True)
        build = self.path("build")
        write(os.path.join(build, "ch01", "prog"), "", executable=True)
        write(os.path.join(build, "CMakeCache.txt"), "CMAKE_CUDA_COMPILER_VERSION:STRING=12.8.93\n")
        marker = "<!-- sass:prog:_Z1kPf:LDS-STS-BAR:%s -->\n"
        for name, caption in (("page.md", ", sm_90, nvcc 12.8: its LDS, STS, BAR instructions"),  # a Chinese page:
                              ("page.zh-CN.md", "` 的 `cuobjdump -sass`，sm_90，nvcc 12.8：其中的 LDS、STS、BAR 指令，"
                                                "按程序中的顺序\n\n```text\n        @!P0 STS [R0], R15 ;")):  # in Chinese
            page = write(self.path(name), "text\n" + marker % "begin" + marker % "end")
            self.assertEqual(self.run_script(build, page).returncode, 0)
            text = read(page)
            self.assertHolds(text, [caption, "```text\n        @!P0 STS [R0], R15 ;\n        BAR.SYNC.DEFER_BLOCKING 0x0 ;"
                                             "\n        LDS.128 R4, [R12] ;\n```\n"])
            self.assertEqual(self.run_script("--check", build, page).returncode, 0)
            write(page, text.replace("LDS.128", "LDS"))
            self.assertPrints(self.run_script("--check", build, page), 1, "differs from the build's")
            write(page, text.replace("nvcc 12.8", "nvcc 12.4"))
            self.assertEqual(self.run_script("--check", build, page).returncode, 77)


class ReadmeFigures(InTemporaryFolder):
    """scripts/readme_figures.py: the README's counts worked out from the build's test list by the summary's
    own code, its times the lines of the latest timed run; a page whose figures differ fails the check
    (item 5: the README said 'ran 57 of 281 tests' where the run said 111 of 335)."""
    TIMINGS = ("# 2025-01-01, commit abc, 2 cores (a CPU), Debian GNU/Linux 12 (bookworm), no GPU; load average 1 before\n"
               "examples first: run_examples.sh: 9 min 2 s in all on 2 cores (dependencies 1 min, configure 20 s, build "
               "7 min, examples 40 s)\n"
               "tests next: run_tests.sh: 4 min in all on 2 cores (dependencies 3 s, configure 5 s, build 30 s, tests 3 min)\n"
               "tests rerun: run_tests.sh: 50 s in all on 2 cores (dependencies 3 s, configure 5 s, build 2 s, tests 40 s)\n"
               "tests first: run_tests.sh: 12 min in all on 2 cores (dependencies 1 min, configure 20 s, build 7 min, "
               "tests 3 min)\n"
               "examples next: run_examples.sh: 12 s in all on 2 cores (dependencies 3 s, configure 5 s, build 2 s, "
               "examples 2 s)\nsummary of the first test run (after the examples):\nran 3 of 5 tests; ...\n")
    PAGE = "# Top\n\n<!-- tests:without-gpu:begin -->\nran 57 of 281\n<!-- tests:without-gpu:end -->\n\n" \
           "<!-- timings:begin -->\n<!-- timings:end -->\nprose\n"

    def listing(self, names):
        listing = {"kind": "ctestInfo", "tests": [
            {"name": name, "properties": [{"name": "LABELS", "value": [label]}]} for name, label in names]}
        write(self.path("tests.json"), json.dumps(listing))

    def figures(self, *arguments):
        ctest = write(self.path("ctest"), "#!/bin/sh\ncat %s/tests.json\n" % self.folder, executable=True)
        write(self.path("build", "CTestTestfile.cmake"), "")
        return script("scripts/readme_figures.py", "--ctest", ctest, "--timings", self.path("timings.txt"),
                      self.path("build"), self.page, *arguments)

    def setUp(self):
        super().setUp()
        self.page = write(self.path("README.md"), self.PAGE)
        write(self.path("timings.txt"), self.TIMINGS)
        self.names = [(p + "_help", "host") for p in layout.PROGRAMS] + [("dot_float", "gpu"), ("dot_memcheck",
                                                                                                  "sanitizer")]
        self.listing(self.names)

    def test_written_then_checked_then_stale_when_a_test_is_added(self):
        self.assertEqual(self.figures("--check").returncode, 1)
        done = self.figures()
        self.assertEqual(done.returncode, 0, done.stderr)
        page = read(self.page)
        hosts = len(layout.PROGRAMS)  # one --help test per program
        self.assertIn("<!-- tests:without-gpu:begin -->\n```\nran %d of %d tests; 2 skipped: they need a CUDA GPU (labels "
                      "gpu, sanitizer) and none was found (no NVIDIA driver is installed (libcuda.so.1 is missing))\n"
                      "tests: %d passed, 0 failed, 2 skipped\n```\n<!-- tests:without-gpu:end -->" % (hosts, hosts + 2, hosts),
                      page)
        self.assertIn("<!-- timings:begin -->\n```\n# 2025-01-01, commit abc, 2 cores", page)
        self.assertIn("\ntests rerun: run_tests.sh: 50 s in all on 2 cores (dependencies 3 s, configure 5 s, build 2 s, "
                      "tests 40 s)\ntests first: run_tests.sh: 12 min", page)
        self.assertIn("\nexamples next: run_examples.sh: 12 s", page)
        self.assertNotIn("summary of", page)
        self.assertTrue(page.endswith("<!-- timings:end -->\nprose\n"))
        self.assertEqual(self.figures("--check").returncode, 0)
        self.listing(self.names + [("dot_bad_input", "host")])
        self.assertPrints(self.figures("--check"), 1, "ran %d of %d tests" % (hosts + 1, hosts + 3))
        self.assertEqual(read(self.page), page)

    def test_a_build_without_a_chapter_is_skipped_and_bad_timings_refused(self):
        self.listing(self.names[:1] + self.names[2:])
        self.assertEqual(self.figures("--check").returncode, 77)
        self.listing(self.names)
        write(self.path("timings.txt"), self.TIMINGS.replace("rerun:", "again:"))
        self.assertOneLine(self.figures("--check"), 2, "no line 'tests rerun: ...'")


class CuobjdumpCache(InTemporaryFolder):
    """scripts/cuobjdump_cache.py (res_usage.py, sass_excerpts.py): cuobjdump is asked once per command while the
    binary is the same; a rebuilt binary is asked again; a failed command is never kept."""

    def test_asked_once_per_binary(self):
        import cuobjdump_cache
        log = self.path("calls")
        cuobjdump = write(self.path("cuobjdump"), '#!/bin/sh\necho "$*" >>%s\n[ "$1" = -bad ] && '
                          'exit 1\necho "answer to $1"\n' % log, executable=True)
        program = write(self.path("build", "program"), "binary 1\n")
        calls = lambda: len(read(log).splitlines())
        for _ in range(2):
            done = cuobjdump_cache.run([cuobjdump, "-elf", program], "test")
            self.assertEqual((done.returncode, done.stdout, calls()), (0, "answer to -elf\n", 1))
        self.assertEqual(cuobjdump_cache.run([cuobjdump, "-res-usage", program], "test").stdout,
                         "answer to -res-usage\n")
        self.assertEqual(calls(), 2)
        for count in (3, 4):
            self.assertEqual(cuobjdump_cache.run([cuobjdump, "-bad", program], "test").returncode, 1)
            self.assertEqual(calls(), count)
        cuobjdump_cache._KEYS.clear()  # a new process
        write(program, "binary 2\n")
        self.assertEqual(cuobjdump_cache.run([cuobjdump, "-elf", program], "test").stdout, "answer to -elf\n")
        self.assertEqual(calls(), 5)
        self.assertEqual(len(os.listdir(self.path("build", "sass_cache"))), 1)  # binary 1's gone
        self.assertEqual(cuobjdump_cache.run([cuobjdump, "-elf", "/nonexistent/program"], "test").returncode, 0)

    @unittest.skipUnless(shutil.which("c++filt"), "no c++filt")
    def test_kernel_names_as_nsight_prints_them(self):
        import cuobjdump_cache
        names = ["_Z8dot_fastIfEvPKT_S2_PS0_x", "_Z1kPf", "not_mangled"]
        self.assertEqual(cuobjdump_cache.demangle(names), dict(zip(names, ["dot_fast<float>", "k", "not_mangled"])))


class Size(unittest.TestCase):
    """Issue 42: every file of scripts/ and their Python tests (as wc -l counts them) fewer lines than the chapters'
    .cu files, and a ratchet at today's count, lowered as lines go."""
    TESTS = ["tests/test_tooling.py", "tests/testkit.py", "exercises/test_grade.py", "exercises/test_grade_fuzz.py",
             "exercises/test_zh.py"]
    MOST = 5561

    def test_the_scripts_and_their_tests_fewer_than_the_chapters(self):
        lines = lambda paths: sum(read(path, True).count(b"\n") for path in paths)  # noqa: E731
        ours = lines([os.path.join(folder, name) for folder, _, names in os.walk(SCRIPTS) for name in names
                      if "__pycache__" not in folder] + [os.path.join(ROOT, path) for path in self.TESTS])
        chapters = lines(glob.glob(os.path.join(ROOT, "ch*", "*.cu")))
        said = f"scripts/ and Size.TESTS: {ours} lines (at most {self.MOST}), the chapters' .cu files {chapters}"
        self.assertLessEqual(ours, self.MOST, said)
        self.assertLess(ours, chapters, said)


if __name__ == "__main__":
    unittest.main()
