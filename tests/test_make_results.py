"""Tests of the results tooling, no GPU needed (label host):
scripts/results_format.py (parsing the programs' output, the CSV, a ctest log,
bank_conflicts.sh's tables), scripts/benchmark.py (against stand-in programs) and
scripts/make_results.py (plots, the results page, the README tables, malformed input
rejected).

    python3 -m unittest discover -s tests -p 'test_make_results.py' -v

Every CSV here is synthetic and lives in a temporary directory: nothing here is a
measurement, and nothing is written into the repository."""

import csv
import io
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = os.path.join(ROOT, "scripts")
sys.path.insert(0, SCRIPTS)
import results_format as rf  # noqa: E402

try:
    import matplotlib  # noqa: F401  (only: is it there?)
    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False
# The plots are part of what CI tests, so a missing matplotlib fails the plotting
# tests, unless RESULTS_TESTS_SKIP_PLOTS=1 asks to skip them.
SKIP_PLOTS = os.environ.get("RESULTS_TESTS_SKIP_PLOTS") == "1"

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

SAMPLE_OUTPUT = """\
Device 0: NVIDIA H100 80GB HBM3, compute capability 9.0, 132 SMs, 79.2 GiB, L2 50 MB, driver CUDA 13.0, runtime 13.0
dot: n = 67108864, type = float, data = periodic, book/one_launch: 32 blocks x 256 threads, fast: 1056 blocks x 256 threads

copy ceiling (cudaMemcpy device to device, >= 256 MiB): 2990.1 GB/s
CEILING example=dot name=memcpy gbps=2990.1

kernel         type              n ...
RESULT example=dot kernel=book type=float n=67108864 value=1.5e+14 expected=1.5e+14 rel_err=1e-07 ms=0.90000 gbps=596.5 pct_copy=19.9 status=PASS
RESULT example=dot kernel=fast type=float n=67108864 value=1.5e+14 expected=1.5e+14 rel_err=1e-07 ms=0.18700 gbps=2871.0 pct_copy=96.0 status=PASS
RESULT example=dot kernel=cublas type=float n=67108864 value=- expected=- rel_err=- ms=0.18600 gbps=2886.5 pct_copy=96.5 status=FAIL
all 3 checks passed
"""

TRANSPOSE_OUTPUT = """\
CEILING example=transpose name=copy_kernel gbps=2700.0
RESULT example=transpose kernel=padded type=float n=67108864 size=8192x8192 value=- expected=- rel_err=- ms=0.19700 gbps=2730.0 pct_copy=101.1 status=PASS
"""

HELP_TEXT = """\
reduce: summing an array

Options:
  --kernel NAME        one or more of: global, static, dynamic, atomic, shared_atomic, cub (comma-separated), or all (default)
  --data KIND          input data: book, periodic (default book)
"""

CTEST_LOG = """\
EVIDENCE date=2026-11-21T10:00:00Z
EVIDENCE gpu=NVIDIA H100 80GB HBM3, 580.95.05
Test project /repo/build-gpu
      Start  1: test_cli
 1/4 Test  #1: test_cli .........................   Passed    0.01 sec
 2/4 Test  #2: dot_float ........................   Passed    1.20 sec
 3/4 Test  #3: dot_racecheck ....................***Skipped   0.00 sec
 4/4 Test  #4: reduce_double ....................***Failed    2.50 sec

75% tests passed, 1 tests failed out of 4

Label Time Summary:
gpu          =   3.70 sec*proc (2 tests)
host         =   0.01 sec*proc (1 test)
sanitizer    =   0.00 sec*proc (1 test)

Total Test time (real) =   3.80 sec

The following tests did not run:
\t  3 - dot_racecheck (Skipped)

The following tests FAILED:
\t  4 - reduce_double (Failed)
Errors while running CTest
LABELS gpu: dot_float reduce_double
LABELS host: test_cli
LABELS sanitizer: dot_racecheck
"""

# What scripts/bank_conflicts.sh printed on an H100 (float, 4096²).
BANKS_OUTPUT = """\
Device 0: NVIDIA H100 80GB HBM3, compute capability 9.0, 132 SMs, 79.2 GiB, L2 50 MB, driver CUDA 13.0, runtime 13.0
transpose: 4096 x 4096 float (rows x cols, row-major) into 4096 x 4096, 67.1 MB each way; 32 x 8 threads
all 8 checks passed

kernel                                     ld conflicts   st conflicts  ld wavefronts  per shared load    time (us)
copy                                                  0              0              0                -         43.1
naive_read                                            0              0              0                -        287.7
naive_write                                           0              0              0                -        104.7
shared                                         16388937          31434       16913225             32.3        131.6
padded                                            12149          36553         536437              1.0         86.7
padded_multi                                      64945          15224         589233              1.1         42.4
swizzled                                          14537           2771         538825              1.0         43.3
cublas: transpose_readWrite_alignment_ke          10427           2598         534715              1.0         45.3

per shared load: wavefronts (shared-memory passes) per warp-wide shared load; 1 is
conflict-free for float, 2 for double (a warp's 256 bytes take two passes), 32 is
a 32-way conflict. Kernels without shared memory show 0 and '-'.
"""

# The same for double (invented figures, for the tests only).
BANKS_DOUBLE_OUTPUT = """\
transpose: 4096 x 4096 double (rows x cols, row-major) into 4096 x 4096, 134.2 MB each way
all 8 checks passed

kernel                                     ld conflicts   st conflicts  ld wavefronts  per shared load    time (us)
copy                                                  0              0              0                -         84.0
shared                                         16777216          60000       33554432             64.0        250.0
padded                                            20000          40000        1073741              2.0        160.0
swizzled                                          18000           3000        1073741              2.0         85.0
"""

# As scripts/gpu_evidence.sh writes them: one section per type.
BANKS_TWO_SECTIONS = ("=== bank_conflicts float 4096\n" + BANKS_OUTPUT + "\n=== bank_conflicts double 4096\n" +
                      BANKS_DOUBLE_OUTPUT)


# --- Synthetic measurements ------------------------------------------------

def synthetic_rows(examples=("dot", "reduce", "transpose"), types=("float", "double"), quick=False):
    """A plausible-looking but invented sweep: time = launch + bytes / bandwidth,
    faster while the working set fits in a 50 MB L2. For tests only."""
    kernels = {
        "dot": [("book", 600.0, 4.0), ("one_launch", 620.0, 3.5), ("fast", 2870.0, 2.5), ("cublas", 2890.0, 3.0)],
        "reduce": [("global", 500.0, 5.0), ("static", 1600.0, 4.0), ("atomic", 40.0, 3.0),
                   ("fast", 2950.0, 2.5), ("cub", 2960.0, 6.0)],
        "transpose": [("copy", 2700.0, 2.5), ("naive_read", 413.0, 2.5), ("shared", 1580.0, 2.5),
                      ("padded", 2730.0, 2.5), ("cublas", 2765.0, 3.0)],
    }
    arrays = {"dot": 2, "reduce": 1, "transpose": 2}
    rows = []
    for example in examples:
        if example == "transpose":
            sides = [256, 1024] if quick else [256, 512, 1024, 2048, 4096, 8192, 10000, 16384]
            sizes = [(s * s, "%dx%d" % (s, s)) for s in sides]
        else:
            powers = [2 ** 10, 2 ** 20] if quick else [2 ** k for k in range(10, 29, 2)]
            extra = [33792] if example == "dot" else [100000000]
            sizes = [(n, str(n)) for n in sorted(powers + ([] if quick else extra))]
        for type_name in types:
            element = 4 if type_name == "float" else 8
            for n, size in sizes:
                ceiling = 2990.1
                for kernel, gbps_dram, launch_us in kernels[example]:
                    moved = (arrays[example] * n + (n if example == "transpose" else 0)) * element
                    in_l2 = arrays[example] * n * element <= 50e6
                    bandwidth = gbps_dram * (1.8 if in_l2 else 1.0)
                    ms = launch_us / 1000 + moved / (bandwidth * 1e9) * 1000
                    gbps = moved / (ms / 1000) / 1e9
                    rows.append({
                        "device": "NVIDIA H100 80GB HBM3", "driver": "580.95.05", "date": "2026-11-21T10:00:00Z",
                        "example": example, "kernel": kernel, "type": type_name, "n": n, "size": size,
                        "ms": "%.5f" % ms, "gbps": "%.1f" % gbps, "pct_copy": "%.1f" % (100 * gbps / ceiling),
                        "ceiling_gbps": "%.1f" % ceiling, "status": "PASS", "l2_mb": "50", "runtime": "13.0",
                        "reps": "10"})
    return rows


def write_csv(path, rows, columns=None):
    columns = columns or list(rf.COLUMNS + rf.OPTIONAL_COLUMNS)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([row.get(c, "-") for c in columns])


README_TEXT = """\
# CUDA shared memory

Intro text that must survive.

## Results

<!-- results:begin -->
(old table)
<!-- results:end -->

## After

Closing text that must survive.
"""

README_WITH_BANKS = README_TEXT + """
## Bank conflicts

<!-- banks:begin -->
(old bank tables)
<!-- banks:end -->

The end.
"""


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="make_results_test_")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def make_results(self, *arguments):
        return subprocess.run([sys.executable, os.path.join(SCRIPTS, "make_results.py")] + list(arguments),
                              capture_output=True, text=True, cwd=self.dir, timeout=300)


# --- Parsing what the programs print ------------------------------------------------

class ReadmeMarkers(unittest.TestCase):
    """Markers count only alone on their line: prose may quote them."""

    def test_quoted_markers_are_not_markers(self):
        import make_results as mr  # noqa: E402
        text = ("Prose: the table between `<!-- results:begin -->` and `<!-- results:end -->`.\n"
                "<!-- results:begin -->\nold\n<!-- results:end -->\n")
        begin, end = mr.check_markers("README.md", text, "results")
        self.assertEqual(text[begin:].splitlines()[0], "<!-- results:begin -->")
        self.assertEqual(text[end:].splitlines()[0], "<!-- results:end -->")

    def test_two_marker_lines_are_rejected(self):
        import make_results as mr  # noqa: E402
        text = "<!-- banks:begin -->\n<!-- banks:end -->\n<!-- banks:begin -->\n<!-- banks:end -->\n"
        with self.assertRaises(mr.UsageError):
            mr.check_markers("README.md", text, "banks")


class ParseProgramOutput(unittest.TestCase):
    def test_device_line(self):
        device = rf.parse_device_line(SAMPLE_OUTPUT)
        self.assertEqual(device["name"], "NVIDIA H100 80GB HBM3")
        self.assertEqual(device["cc"], "9.0")
        self.assertEqual(device["sms"], 132)
        self.assertEqual(device["l2_mb"], 50.0)
        self.assertEqual(device["driver_cuda"], "13.0")
        self.assertEqual(device["runtime"], "13.0")
        self.assertIsNone(rf.parse_device_line("no device here\n"))

    def test_device_line_without_optional_parts(self):
        device = rf.parse_device_line("Device 1: Some GPU, compute capability 8.6, 84 SMs\n")
        self.assertEqual(device["name"], "Some GPU")
        self.assertIsNone(device["l2_mb"])

    def test_ceiling_lines(self):
        ceilings = rf.parse_ceilings(SAMPLE_OUTPUT + TRANSPOSE_OUTPUT)
        self.assertEqual([(c["example"], c["name"], c["gbps"]) for c in ceilings],
                         [("dot", "memcpy", 2990.1), ("transpose", "copy_kernel", 2700.0)])

    def test_result_lines(self):
        results = rf.parse_results(SAMPLE_OUTPUT)
        self.assertEqual([r["kernel"] for r in results], ["book", "fast", "cublas"])
        self.assertEqual(results[1]["n"], 67108864)
        self.assertEqual(results[1]["gbps"], "2871.0")
        self.assertEqual(results[2]["value"], "-")
        self.assertEqual(results[2]["status"], "FAIL")
        transpose = rf.parse_results(TRANSPOSE_OUTPUT)[0]
        self.assertEqual(transpose["size"], "8192x8192")

    def test_kernel_list_and_data_kinds_from_help(self):
        self.assertEqual(rf.parse_kernel_list(HELP_TEXT),
                         ["global", "static", "dynamic", "atomic", "shared_atomic", "cub"])
        self.assertEqual(rf.parse_data_kinds(HELP_TEXT), ["book", "periodic"])
        self.assertEqual(rf.parse_kernel_list("no kernels\n"), [])

    def test_ctest_log(self):
        with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
            f.write(CTEST_LOG)
        try:
            log = rf.parse_ctest_log(f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual((log["percent"], log["failed"], log["total"], log["skipped"], log["passed"]),
                         (75, 1, 4, 1, 2))
        self.assertEqual(log["labels"]["gpu"]["tests"], 2)
        self.assertEqual((log["labels"]["gpu"]["passed"], log["labels"]["gpu"]["failed"]), (1, 1))
        self.assertEqual(log["labels"]["sanitizer"]["skipped"], 1)
        self.assertEqual(log["failed_tests"], [("reduce_double", "Failed")])
        self.assertEqual(log["evidence"]["gpu"], "NVIDIA H100 80GB HBM3, 580.95.05")

    def test_ctest_log_cmake4_summary(self):
        # CMake 4 leaves out "0 tests failed" when nothing failed.
        text = CTEST_LOG.replace("75% tests passed, 1 tests failed out of 4", "100% tests passed out of 4")
        with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
            f.write(text)
        try:
            log = rf.parse_ctest_log(f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual((log["percent"], log["failed"], log["total"]), (100, 0, 4))

    def test_ctest_log_without_summary_is_rejected(self):
        with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
            f.write("Test project /x\nsomething went wrong\n")
        try:
            with self.assertRaises(rf.FormatError) as caught:
                rf.parse_ctest_log(f.name)
        finally:
            os.unlink(f.name)
        self.assertIn("no ctest summary line", str(caught.exception))


# --- bank_conflicts.sh's tables ---------------------------------------------------

class ParseBanks(TempDirTest):
    def parse(self, text):
        path = self.path("banks.txt")
        with open(path, "w") as f:
            f.write(text)
        return rf.parse_banks(path)

    def rejected(self, text, *fragments):
        with self.assertRaises(rf.FormatError) as caught:
            self.parse(text)
        message = str(caught.exception)
        self.assertTrue(message.startswith(self.path("banks.txt") + ":"), message)
        for fragment in fragments:
            self.assertIn(fragment, message)
        return message

    def test_single_table_without_header(self):
        banks = self.parse(BANKS_OUTPUT)
        self.assertEqual(banks["missing"], [])
        (section,) = banks["sections"]
        self.assertEqual((section["type"], section["size"]), ("float", "4096"))  # from the transpose: line
        self.assertEqual(section["device"], "NVIDIA H100 80GB HBM3")
        kernels = [row["kernel"] for row in section["rows"]]
        self.assertEqual(kernels, ["copy", "naive_read", "naive_write", "shared", "padded", "padded_multi",
                                   "swizzled", "cublas: transpose_readWrite_alignment_ke"])
        shared = section["rows"][3]
        self.assertEqual((shared["ld_conflicts"], shared["st_conflicts"], shared["ld_wavefronts"]),
                         (16388937, 31434, 16913225))
        self.assertEqual((shared["per_load"], shared["us"], shared["line"]), (32.3, 131.6, 9))
        copy = section["rows"][0]
        self.assertIsNone(copy["per_load"])  # '-': no shared loads
        self.assertEqual((copy["ld_conflicts"], copy["us"]), (0, 43.1))
        self.assertEqual(section["rows"][-1]["us"], 45.3)

    def test_the_table_ends_at_the_blank_line(self):
        banks = self.parse(BANKS_OUTPUT)
        self.assertNotIn("per", [row["kernel"].split()[0] for row in banks["sections"][0]["rows"]])

    def test_two_sections(self):
        banks = self.parse(BANKS_TWO_SECTIONS)
        self.assertEqual([(s["type"], s["size"], len(s["rows"])) for s in banks["sections"]],
                         [("float", "4096", 8), ("double", "4096", 4)])
        double = banks["sections"][1]
        self.assertEqual([row["per_load"] for row in double["rows"]], [None, 64.0, 2.0, 2.0])
        self.assertEqual(double["line"], BANKS_TWO_SECTIONS.splitlines().index("=== bank_conflicts double 4096") + 1)

    def test_header_names_the_type_and_size(self):
        text = "=== bank_conflicts double 2048\n" + BANKS_OUTPUT.split("\n", 3)[3]  # no Device or transpose line
        (section,) = self.parse(text)["sections"]
        self.assertEqual((section["type"], section["size"]), ("double", "2048"))

    def test_no_header_and_no_transpose_line(self):
        (section,) = self.parse(BANKS_OUTPUT.split("\n", 3)[3])["sections"]
        self.assertEqual((section["type"], section["size"]), ("unknown", "unknown"))
        self.assertIsNone(section["device"])

    def test_rectangular_size_from_the_transpose_line(self):
        text = BANKS_OUTPUT.replace("transpose: 4096 x 4096 float", "transpose: 4097 x 1023 double")
        (section,) = self.parse(text)["sections"]
        self.assertEqual((section["type"], section["size"]), ("double", "4097x1023"))

    def test_section_without_a_table_is_listed_as_missing(self):
        text = ("=== bank_conflicts float 4096\n" + BANKS_OUTPUT + "\n=== bank_conflicts double 4096\n"
                "/usr/local/cuda/bin/ncu --metrics <...> build-gpu/ch08_transpose/transpose --check\n"
                "bank_conflicts.sh: ncu or the program exited with 124; their messages:\n"
                "==PROF== Connected to process 1234\n")
        banks = self.parse(text)
        self.assertEqual([s["type"] for s in banks["sections"]], ["float"])
        (missing,) = banks["missing"]
        self.assertEqual((missing["type"], missing["size"]), ("double", "4096"))
        self.assertIn("exited with 124", missing["note"])

    def test_nan_reads_as_not_measured(self):
        text = BANKS_OUTPUT.replace("131.6", "nan")
        (section,) = self.parse(text)["sections"]
        self.assertIsNone(section["rows"][3]["us"])

    def test_empty_file(self):
        self.rejected("", ":1:", "empty file")

    def test_no_table(self):
        self.rejected("=== bank_conflicts float 4096\nbank_conflicts.sh: Nsight Compute (ncu) is not installed\n",
                      ":1:", "no bank-conflict table found")

    def test_non_numeric_count(self):
        text = BANKS_OUTPUT.replace("16388937", "lots")
        self.rejected(text, ":9:", "kernel 'shared': ld conflicts 'lots' is not a number")

    def test_non_numeric_count_in_the_second_section(self):
        text = BANKS_TWO_SECTIONS.replace("60000", "6e4x")
        line = BANKS_TWO_SECTIONS.splitlines().index(
            [l for l in BANKS_TWO_SECTIONS.splitlines() if "60000" in l][0]) + 1
        self.rejected(text, ":%d:" % line, "st conflicts '6e4x' is not a number")

    def test_negative_count(self):
        self.rejected(BANKS_OUTPUT.replace(" 31434 ", " -31434 "), ":9:", "'-31434' is not a count")

    def test_row_with_too_few_fields(self):
        text = BANKS_OUTPUT.replace("padded                                            12149          36553",
                                    "padded 12149")
        self.rejected(text, ":10:", "expected a kernel name and 5 figures")

    def test_table_header_without_rows(self):
        header = [line for line in BANKS_OUTPUT.splitlines() if line.startswith("kernel")][0]
        self.rejected("=== bank_conflicts float 4096\n" + header + "\n\n", ":2:", "no kernel rows")

    def test_unreadable_file(self):
        with self.assertRaises(rf.FormatError) as caught:
            rf.parse_banks(self.path("missing.txt"))
        self.assertIn("cannot read", str(caught.exception))


# --- The CSV ------------------------------------------------------------------

class CsvFormat(TempDirTest):
    def test_round_trip_through_the_writer(self):
        stream = io.StringIO()
        writer = rf.CsvWriter(stream)
        writer.write({"device": "GPU", "driver": "580", "date": "2026-11-21T10:00:00Z", "example": "dot",
                      "kernel": "fast", "type": "float", "n": 1024, "size": "1024", "ms": "0.00300",
                      "gbps": "2.7", "pct_copy": "0.1", "ceiling_gbps": 2990.1, "status": "PASS"})
        with open(self.path("x.csv"), "w") as f:
            f.write(stream.getvalue())
        rows = rf.read_csv(self.path("x.csv"))
        self.assertEqual(rows[0]["n"], 1024)
        self.assertEqual(rows[0]["ms"], 0.003)
        self.assertIsNone(rows[0]["l2_mb"])

    def check_rejected(self, text, *fragments):
        path = self.path("bad.csv")
        with open(path, "w") as f:
            f.write(text)
        with self.assertRaises(rf.FormatError) as caught:
            rf.read_csv(path)
        message = str(caught.exception)
        self.assertIn(path, message)
        for fragment in fragments:
            self.assertIn(fragment, message)
        return message

    def valid_text(self):
        stream = io.StringIO()
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(rf.COLUMNS)
        writer.writerow(["GPU", "580", "2026-11-21", "dot", "fast", "float", "1024", "1024", "0.003", "2.7",
                         "0.1", "2990", "PASS"])
        writer.writerow(["GPU", "580", "2026-11-21", "dot", "book", "float", "1024", "1024", "0.004", "2.0",
                         "0.1", "2990", "PASS"])
        return stream.getvalue()

    def test_valid_minimal_csv(self):
        with open(self.path("ok.csv"), "w") as f:
            f.write(self.valid_text())
        self.assertEqual(len(rf.read_csv(self.path("ok.csv"))), 2)

    def test_empty_file(self):
        self.check_rejected("", ":1:", "empty file")

    def test_missing_column(self):
        text = self.valid_text().replace(",ms,", ",millis,", 1)
        self.check_rejected(text, ":1:", "missing column ms")

    def test_non_numeric_ms(self):
        text = self.valid_text().replace("0.004", "fast", 1)
        self.check_rejected(text, ":3:", "column ms", "'fast' is not a number")

    def test_unknown_status(self):
        text = self.valid_text().replace("PASS", "OK", 1)
        self.check_rejected(text, ":2:", "unknown status 'OK'")

    def test_wrong_field_count(self):
        self.check_rejected(self.valid_text() + "GPU,580\n", ":4:", "expected 13 fields, found 2")

    def test_bad_n(self):
        self.check_rejected(self.valid_text().replace(",1024,1024,0.003", ",-5,1024,0.003"), ":2:", "column n")

    def test_header_only(self):
        self.check_rejected(",".join(rf.COLUMNS) + "\n", ":2:", "no measurements")

    def test_pass_row_needs_a_time(self):
        self.check_rejected(self.valid_text().replace("0.003", "-"), ":2:", "needs a measured value")


# --- benchmark.py against stand-in programs -------------------------------------

FAKE_PROGRAM = r'''#!/usr/bin/env python3
import sys
args = sys.argv[1:]
if "--help" in args:
    print("  --kernel NAME        one or more of: %s (comma-separated), or all (default)" % ", ".join(KERNELS))
    sys.exit(0)
def value(flag, default):
    return args[args.index(flag) + 1] if flag in args else default
n = int(value("--n", "1024")); t = value("--type", "float")
kernels = KERNELS if value("--kernel", "all") == "all" else value("--kernel", "all").split(",")
if EXAMPLE == "transpose":
    size = " size=%dx%d" % (n, n); n = n * n
else:
    size = ""
if EXAMPLE == "reduce" and t == "double" and n >= 2 ** 20:
    sys.stderr.write("reduce: CUDA error cudaErrorIllegalAddress\n"); sys.exit(3)
print("Device 0: Fake GPU, compute capability 9.0, 132 SMs, 79.2 GiB, L2 50 MB, driver CUDA 13.0, runtime 13.0")
print("CEILING example=%s name=memcpy gbps=2990.1" % EXAMPLE)
for k in kernels:
    print("RESULT example=%s kernel=%s type=%s n=%d%s value=1 expected=1 rel_err=0 ms=0.01000 gbps=%.1f "
          "pct_copy=10.0 status=%s" % (EXAMPLE, k, t, n, size, n / 1e4, "FAIL" if k == "bad" else "PASS"))
'''


class Benchmark(TempDirTest):
    def install(self, example, relative, kernels):
        path = self.path("build", relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            program = FAKE_PROGRAM.replace("#!/usr/bin/env python3", "#!" + sys.executable, 1)
            f.write(program.replace("import sys", "import sys\nEXAMPLE = %r\nKERNELS = %r" % (example, kernels), 1))
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)

    def run_benchmark(self, *extra):
        # A stand-in nvidia-smi that fails: the driver then comes from the Device line.
        fake_bin = self.path("bin")
        os.makedirs(fake_bin, exist_ok=True)
        with open(os.path.join(fake_bin, "nvidia-smi"), "w") as f:
            f.write("#!/bin/sh\nexit 9\n")
        os.chmod(os.path.join(fake_bin, "nvidia-smi"), 0o755)
        env = dict(os.environ, PATH=fake_bin + os.pathsep + os.environ.get("PATH", ""))
        return subprocess.run([sys.executable, os.path.join(SCRIPTS, "benchmark.py"), "--build",
                               self.path("build"), "--out", self.path("out", "bench.csv"), "--reps", "3"]
                              + list(extra), capture_output=True, text=True, env=env, timeout=120)

    def test_quick_sweep_records_every_run(self):
        self.install("dot", "ch05_dot/dot", ["book", "fast", "cublas"])
        self.install("reduce", "ch08_reduce/reduce", ["static", "atomic", "cub"])
        self.install("transpose", "ch08_transpose/transpose", ["copy", "padded", "cublas"])
        done = self.run_benchmark("--quick")
        self.assertEqual(done.returncode, 1, done.stdout + done.stderr)  # the reduce double crash
        rows = rf.read_csv(self.path("out", "bench.csv"))
        self.assertEqual({r["device"] for r in rows}, {"Fake GPU"})
        self.assertEqual({r["driver"] for r in rows}, {"CUDA 13.0"})
        self.assertEqual({r["l2_mb"] for r in rows}, {50.0})
        transpose = [r for r in rows if r["example"] == "transpose"]
        self.assertEqual({r["n"] for r in transpose}, {256 * 256, 1024 * 1024})
        self.assertIn("1024x1024", {r["size"] for r in transpose})
        errors = [r for r in rows if r["status"] == "ERROR"]
        self.assertEqual({(r["example"], r["type"], r["n"]) for r in errors}, {("reduce", "double", 2 ** 20)})
        self.assertIn("NOT clean", done.stdout)

    def test_crash_is_recorded_as_error_rows(self):
        self.install("reduce", "ch08_reduce/reduce", ["static", "atomic", "cub"])
        done = self.run_benchmark("--types", "double", "--quick")
        rows = rf.read_csv(self.path("out", "bench.csv"))
        self.assertEqual(done.returncode, 1)
        small = [r for r in rows if r["n"] == 2 ** 10]
        large = [r for r in rows if r["n"] == 2 ** 20]
        self.assertTrue(all(r["status"] == "PASS" for r in small))
        self.assertEqual(sorted(r["kernel"] for r in large if r["status"] == "ERROR"), ["atomic", "cub", "static"])
        self.assertIn("CUDA error", done.stdout)

    def test_slow_kernel_left_out_at_large_n(self):
        self.install("reduce", "ch08_reduce/reduce", ["static", "atomic", "cub"])
        done = self.run_benchmark("--types", "float", "--examples", "reduce")
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        rows = rf.read_csv(self.path("out", "bench.csv"))
        atomic_sizes = {r["n"] for r in rows if r["kernel"] == "atomic"}
        self.assertIn(100000000, atomic_sizes)
        self.assertNotIn(2 ** 28, atomic_sizes)
        self.assertIn(2 ** 28, {r["n"] for r in rows if r["kernel"] == "cub"})
        self.assertIn(100000000, {r["n"] for r in rows})

    def test_missing_binary_named_explicitly(self):
        done = self.run_benchmark("--examples", "transpose")
        self.assertEqual(done.returncode, 2)
        self.assertIn("no binary for transpose", done.stderr)


# --- make_results.py ----------------------------------------------------------------

class MakeResults(TempDirTest):
    def setUp(self):
        if not HAVE_MATPLOTLIB:
            if SKIP_PLOTS:
                self.skipTest("matplotlib is not installed and RESULTS_TESTS_SKIP_PLOTS=1")
            self.fail("matplotlib is not installed, and the plots are tested: python3 -m pip install matplotlib "
                      "(or RESULTS_TESTS_SKIP_PLOTS=1 to skip these tests)")
        super().setUp()
        self.rows = synthetic_rows()
        write_csv(self.path("bench.csv"), self.rows)
        with open(self.path("README.md"), "w") as f:
            f.write(README_TEXT)
        with open(self.path("ctest.log"), "w") as f:
            f.write(CTEST_LOG)

    def test_plots_page_and_readme(self):
        done = self.make_results("--csv", "bench.csv", "--tests", "ctest.log", "--out-dir", "docs",
                                 "--readme", "README.md")
        self.assertEqual(done.returncode, 0, done.stderr)
        for example in ("dot", "reduce", "transpose"):
            for type_name in ("float", "double"):
                path = self.path("docs", "results", "%s_%s.png" % (example, type_name))
                with open(path, "rb") as f:
                    data = f.read()
                self.assertTrue(data.startswith(PNG_SIGNATURE), path)
                self.assertGreater(len(data), 10000, path)

        with open(self.path("docs", "RESULTS.md")) as f:
            page = f.read()
        self.assertIn("NVIDIA H100 80GB HBM3", page)
        self.assertIn("580.95.05", page)
        self.assertIn("2026-11-21T10:00:00Z", page)
        self.assertIn("75% tests passed, 1 failed out of 4", page)
        self.assertIn("| gpu | 2 | 1 | 1 | 0 |", page)
        self.assertIn("`reduce_double`", page)
        self.assertIn("![dot, float: GB/s against size](results/dot_float.png)", page)
        # A figure from the CSV appears as it is: dot fast, float, n = 2^26.
        fast = next(r for r in self.rows if (r["example"], r["kernel"], r["type"], r["n"]) ==
                    ("dot", "fast", "float", 2 ** 26))
        table = page.split("n = 2^26 (67,108,864 elements")[1].split("\n\n")[1]
        self.assertIn("| fast | %.4f | %s |" % (float(fast["ms"]), fast["gbps"]), table)
        self.assertIn("n = 2^26", page)
        self.assertIn("n = 1e8", page)
        self.assertIn("n = 8192²", page)
        self.assertIn("**Launch-bound", page)
        self.assertIn("**L2-flattered", page)
        self.assertIn("**DRAM-bound", page)

        with open(self.path("README.md")) as f:
            readme = f.read()
        self.assertTrue(readme.startswith("# CUDA shared memory\n\nIntro text that must survive.\n"))
        self.assertTrue(readme.endswith("## After\n\nClosing text that must survive.\n"))
        self.assertNotIn("(old table)", readme)
        between = readme.split("<!-- results:begin -->")[1].split("<!-- results:end -->")[0]
        self.assertIn("| dot | 2^26 | float | fast |", between)
        self.assertIn("docs/RESULTS.md", between)

        # Regenerating gives the same files.
        before = readme
        self.assertEqual(self.make_results("--csv", "bench.csv", "--tests", "ctest.log").returncode, 0)
        with open(self.path("README.md")) as f:
            self.assertEqual(f.read(), before)

    def test_failed_rows_are_shown(self):
        rows = synthetic_rows(examples=("dot",), quick=True)
        rows[0]["status"] = "FAIL"
        rows.append(dict(rows[1], kernel="fast", n=2 ** 22, size=str(2 ** 22), ms="-", gbps="-", pct_copy="-",
                         status="ERROR"))
        write_csv(self.path("bench.csv"), rows)
        done = self.make_results("--csv", "bench.csv", "--no-readme")
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(self.path("docs", "RESULTS.md")) as f:
            page = f.read()
        self.assertIn("1 FAIL", page)
        self.assertIn("1 ERROR", page)
        self.assertIn("No GPU test log was given", page)

    def test_readme_without_markers(self):
        with open(self.path("README.md"), "w") as f:
            f.write("# no markers here\n")
        done = self.make_results("--csv", "bench.csv")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("results markers are missing", done.stderr)
        self.assertIn("<!-- results:begin -->", done.stderr)
        with open(self.path("README.md")) as f:
            self.assertEqual(f.read(), "# no markers here\n")

    def write_banks(self, text=BANKS_TWO_SECTIONS):
        with open(self.path("banks.txt"), "w") as f:
            f.write(text)

    def test_banks_section_and_readme(self):
        self.write_banks()
        with open(self.path("README.md"), "w") as f:
            f.write(README_WITH_BANKS)
        arguments = ("--csv", "bench.csv", "--tests", "ctest.log", "--banks", "banks.txt")
        done = self.make_results(*arguments)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(self.path("docs", "RESULTS.md")) as f:
            page = f.read()
        section = page.split("## Shared-memory bank conflicts (Nsight Compute)\n", 1)[1]
        self.assertIn("32-way bank conflict", section)
        self.assertIn("conflict-free for 8-byte elements", section)
        self.assertIn("[`banks.txt`](../banks.txt)", section)
        self.assertIn("NVIDIA H100 80GB HBM3", section)
        self.assertIn("| kernel | shared-load bank conflicts | shared-store bank conflicts | "
                      "wavefronts per shared load | time (µs) |", section)
        float_table, double_table = section.split("### float, 4096²\n", 1)[1].split("### double, 4096²\n", 1)
        self.assertIn("| shared | 16,388,937 | 31,434 | 32.3 | 131.6 |", float_table)
        self.assertIn("| copy | 0 | 0 | – | 43.1 |", float_table)
        self.assertIn("| cublas: transpose_readWrite_alignment_ke | 10,427 | 2,598 | 1.0 | 45.3 |", float_table)
        self.assertIn("| padded | 20,000 | 40,000 | 2.0 | 160.0 |", double_table)
        self.assertNotIn("16,388,937", double_table)

        with open(self.path("README.md")) as f:
            readme = f.read()
        self.assertNotIn("(old bank tables)", readme)
        self.assertNotIn("(old table)", readme)
        self.assertTrue(readme.endswith("<!-- banks:end -->\n\nThe end.\n"))
        between = readme.split("<!-- banks:begin -->")[1].split("<!-- banks:end -->")[0]
        self.assertIn("**float, 4096²**", between)
        self.assertIn("**double, 4096²**", between)
        self.assertIn("| shared | 16,388,937 | 31,434 | 32.3 | 131.6 |", between)
        self.assertIn("| swizzled | 18,000 | 3,000 | 2.0 | 85.0 |", between)
        self.assertIn("docs/RESULTS.md#shared-memory-bank-conflicts-nsight-compute", between)
        self.assertNotIn("| dot |", between)

        # Regenerating gives the same README; without --banks the bank tables stay as they are.
        self.assertEqual(self.make_results(*arguments).returncode, 0)
        with open(self.path("README.md")) as f:
            self.assertEqual(f.read(), readme)
        done = self.make_results("--csv", "bench.csv")
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(self.path("README.md")) as f:
            self.assertEqual(f.read().split("<!-- banks:begin -->")[1], readme.split("<!-- banks:begin -->")[1])
        with open(self.path("docs", "RESULTS.md")) as f:
            self.assertNotIn("bank conflicts", f.read())

    def test_banks_without_markers_in_the_readme(self):
        self.write_banks()
        done = self.make_results("--csv", "bench.csv", "--banks", "banks.txt")
        self.assertEqual(done.returncode, 3, done.stderr)
        self.assertIn("README.md: the banks markers are missing", done.stderr)
        self.assertIn("<!-- banks:begin -->", done.stderr)
        self.assertIn("<!-- banks:end -->", done.stderr)
        with open(self.path("README.md")) as f:
            self.assertEqual(f.read(), README_TEXT)  # nothing written
        self.assertFalse(os.path.exists(self.path("docs", "RESULTS.md")))

    def test_banks_markers_not_needed_without_banks_or_readme(self):
        self.write_banks()
        done = self.make_results("--csv", "bench.csv", "--banks", "banks.txt", "--no-readme")
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(self.path("docs", "RESULTS.md")) as f:
            self.assertIn("## Shared-memory bank conflicts (Nsight Compute)", f.read())
        with open(self.path("README.md")) as f:
            self.assertEqual(f.read(), README_TEXT)

    def test_banks_section_without_a_table(self):
        self.write_banks("=== bank_conflicts float 4096\n" + BANKS_OUTPUT + "\n=== bank_conflicts double 4096\n"
                         "bank_conflicts.sh: exit 124\n")
        done = self.make_results("--csv", "bench.csv", "--banks", "banks.txt", "--no-readme")
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(self.path("docs", "RESULTS.md")) as f:
            page = f.read()
        self.assertIn("### double, 4096²\n\nNo table: the run printed `bank_conflicts.sh: exit 124`.", page)

    def test_csv_with_only_skipped_runs(self):
        rows = synthetic_rows(examples=("dot",), quick=True)
        for row in rows:
            row.update(ms="-", gbps="-", pct_copy="-", status="SKIP")
        write_csv(self.path("bench.csv"), rows)
        done = self.make_results("--csv", "bench.csv", "--no-readme")
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("nothing to plot", done.stderr)


class MakeResultsRejects(TempDirTest):
    """Malformed input: exit 2, one line naming the file, the line and the problem.
    (Checked before matplotlib is imported, so these run without it.)"""

    def rejected(self, text, *fragments):
        with open(self.path("bad.csv"), "w") as f:
            f.write(text)
        done = self.make_results("--csv", "bad.csv", "--no-readme")
        self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
        message = done.stderr.strip()
        self.assertEqual(len(message.splitlines()), 1, message)
        self.assertTrue(message.startswith("make_results: error: bad.csv:"), message)
        for fragment in fragments:
            self.assertIn(fragment, message)
        self.assertFalse(os.path.exists(self.path("docs", "RESULTS.md")))

    def good_text(self):
        stream = io.StringIO()
        rows = synthetic_rows(examples=("dot",), types=("float",), quick=True)
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(rf.COLUMNS)
        for row in rows:
            writer.writerow([row[c] for c in rf.COLUMNS])
        return stream.getvalue()

    def test_empty(self):
        self.rejected("", "bad.csv:1:", "empty file")

    def test_missing_column(self):
        lines = self.good_text().splitlines()
        header = lines[0].split(",")
        index = header.index("gbps")
        fixed = [",".join(f for i, f in enumerate(line.split(",")) if i != index) for line in lines]
        self.rejected("\n".join(fixed) + "\n", "bad.csv:1:", "missing column gbps")

    def test_non_numeric_ms(self):
        lines = self.good_text().splitlines()
        fields = lines[3].split(",")
        fields[rf.COLUMNS.index("ms")] = "0.5ms"
        lines[3] = ",".join(fields)
        self.rejected("\n".join(lines) + "\n", "bad.csv:4:", "column ms: '0.5ms' is not a number")

    def test_unknown_status(self):
        lines = self.good_text().splitlines()
        lines[2] = lines[2].rsplit(",", 1)[0] + ",MAYBE"
        self.rejected("\n".join(lines) + "\n", "bad.csv:3:", "unknown status 'MAYBE'")

    def test_missing_matplotlib_is_explained(self):
        with open(self.path("good.csv"), "w") as f:
            f.write(self.good_text())
        blocker = self.path("no_matplotlib", "matplotlib")
        os.makedirs(blocker)
        with open(os.path.join(blocker, "__init__.py"), "w") as f:
            f.write("raise ImportError('matplotlib hidden by the test')\n")
        env = dict(os.environ, PYTHONPATH=self.path("no_matplotlib"))
        done = subprocess.run([sys.executable, os.path.join(SCRIPTS, "make_results.py"), "--csv", "good.csv",
                               "--no-readme"], capture_output=True, text=True, cwd=self.dir, env=env, timeout=120)
        self.assertEqual(done.returncode, 3, done.stderr)
        self.assertIn("matplotlib is not installed", done.stderr)
        self.assertIn("python3 -m pip install matplotlib", done.stderr)

    def test_malformed_banks_file(self):
        with open(self.path("good.csv"), "w") as f:
            f.write(self.good_text())
        for text, fragments in (
                (BANKS_OUTPUT.replace("36553", "many"), ("banks.txt:10:", "st conflicts 'many' is not a number")),
                ("=== bank_conflicts float 4096\nno table here\n", ("banks.txt:1:", "no bank-conflict table")),
                ("", ("banks.txt:1:", "empty file"))):
            with open(self.path("banks.txt"), "w") as f:
                f.write(text)
            done = self.make_results("--csv", "good.csv", "--banks", "banks.txt", "--no-readme")
            self.assertEqual(done.returncode, 2, done.stderr)
            message = done.stderr.strip()
            self.assertEqual(len(message.splitlines()), 1, message)
            self.assertTrue(message.startswith("make_results: error: banks.txt:"), message)
            for fragment in fragments:
                self.assertIn(fragment, message)
            self.assertFalse(os.path.exists(self.path("docs", "RESULTS.md")))

    def test_bad_ctest_log(self):
        with open(self.path("good.csv"), "w") as f:
            f.write(self.good_text())
        with open(self.path("ctest.log"), "w") as f:
            f.write("nothing useful\n")
        done = self.make_results("--csv", "good.csv", "--tests", "ctest.log", "--no-readme")
        self.assertEqual(done.returncode, 2)
        self.assertIn("ctest.log: no ctest summary line", done.stderr)


if __name__ == "__main__":
    unittest.main()
