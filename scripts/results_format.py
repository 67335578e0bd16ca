"""The benchmark CSV and the programs' output format, in one place.

Both scripts import this module: scripts/benchmark.py (on the GPU machine)
parses what the example programs print and writes the CSV; scripts/make_results.py
(anywhere, no GPU) reads the CSV back, checks it, and draws the plots and pages.
It also reads the ctest log and the tables of scripts/bank_conflicts.sh.
Python 3 standard library only.

What the programs print (common/report.c, common/gpu.c):
  Device 0: NVIDIA H100 80GB HBM3, compute capability 9.0, 132 SMs, 79.1 GiB, L2 50 MB, driver CUDA 13.0, runtime 13.0
  CEILING example=dot name=memcpy gbps=2990.1
  RESULT example=reduce kernel=static type=double n=100000000 value=123000000 expected=123000000
         rel_err=0 ms=0.501 gbps=1597 pct_copy=57 status=PASS       (one line; "-" = not measured)
"""

import csv
import math
import re

# --- The CSV ---------------------------------------------------------------

# Every benchmark CSV has these columns, in this order.
COLUMNS = (
    "device", "driver", "date", "example", "kernel", "type", "n", "size",
    "ms", "gbps", "pct_copy", "ceiling_gbps", "status",
)
# Written by benchmark.py too, but a CSV without them is still valid.
OPTIONAL_COLUMNS = ("l2_mb", "runtime", "reps")
NUMERIC_COLUMNS = ("ms", "gbps", "pct_copy", "ceiling_gbps")
# PASS / FAIL: the program's own check of a kernel. ERROR: the program did not
# finish (crash, CUDA error, timeout). SKIP: no usable GPU (exit 77).
STATUSES = ("PASS", "FAIL", "ERROR", "SKIP")
TYPES = ("float", "double")
MISSING = ("", "-")

# The library each example measures itself against, and kernels that are a
# reference rather than an attempt (never "the best kernel").
LIBRARY_KERNEL = {"dot": "cublas", "reduce": "cub", "transpose": "cublas"}
LIBRARY_NAME = {"cublas": "cuBLAS", "cub": "CUB"}
REFERENCE_KERNELS = {"transpose": ("copy",)}
# Arrays of n elements the kernel touches (its working set, for the L2 test).
WORKING_SET_ARRAYS = {"dot": 2, "reduce": 1, "transpose": 2}
ELEMENT_BYTES = {"float": 4, "double": 8}
DEFAULT_L2_MB = 50.0  # the H100's L2, when the CSV does not say


class FormatError(Exception):
    """A problem in an input file: prints as 'FILE:LINE: problem'."""

    def __init__(self, path, line, problem):
        super().__init__(problem)
        self.path, self.line, self.problem = path, line, problem

    def __str__(self):
        where = "%s:%d" % (self.path, self.line) if self.line else str(self.path)
        return "%s: %s" % (where, self.problem)


def number_or_none(text):
    """'1.5' -> 1.5, '-' or '' -> None, anything else -> ValueError."""
    text = (text or "").strip()
    if text in MISSING:
        return None
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def read_csv(path):
    """Reads and checks a benchmark CSV. Returns a list of dicts with n as int
    and the numeric columns as float or None. Raises FormatError naming the
    file, the line and the problem."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            text = f.read()
    except OSError as error:
        raise FormatError(path, 0, "cannot read: %s" % error.strerror)
    except UnicodeDecodeError:
        raise FormatError(path, 0, "not a UTF-8 text file")
    if not text.strip():
        raise FormatError(path, 1, "empty file: expected a header line with the columns " + ",".join(COLUMNS))
    reader = csv.reader(text.splitlines())
    header = [name.strip() for name in next(reader)]
    missing = [name for name in COLUMNS if name not in header]
    if missing:
        raise FormatError(path, 1, "missing column%s %s (the header must name %s)" % (
            "s" if len(missing) > 1 else "", ", ".join(missing), ",".join(COLUMNS)))
    duplicated = sorted({name for name in header if header.count(name) > 1})
    if duplicated:
        raise FormatError(path, 1, "column %s appears twice" % ", ".join(duplicated))
    rows = []
    for fields in reader:
        line = reader.line_num
        if not fields or all(not field.strip() for field in fields):
            continue
        if len(fields) != len(header):
            raise FormatError(path, line, "expected %d fields, found %d" % (len(header), len(fields)))
        raw = {name: value.strip() for name, value in zip(header, fields)}
        rows.append(check_row(path, line, raw))
    if not rows:
        raise FormatError(path, 2, "no measurements: the file has a header but no data rows")
    return rows


def check_row(path, line, raw):
    row = dict(raw)
    for name in ("device", "date", "example", "kernel"):
        if not raw[name]:
            raise FormatError(path, line, "column %s is empty" % name)
    if raw["status"] not in STATUSES:
        raise FormatError(path, line, "column status: unknown status '%s' (expected one of %s)" % (
            raw["status"], ", ".join(STATUSES)))
    if raw["type"] not in TYPES + MISSING:
        raise FormatError(path, line, "column type: '%s' is not float or double" % raw["type"])
    try:
        row["n"] = int(raw["n"])
        if row["n"] <= 0:
            raise ValueError
    except ValueError:
        raise FormatError(path, line, "column n: '%s' is not a positive whole number" % raw["n"])
    for name in NUMERIC_COLUMNS + tuple(c for c in ("l2_mb",) if c in raw):
        try:
            row[name] = number_or_none(raw[name])
        except ValueError:
            raise FormatError(path, line, "column %s: '%s' is not a number" % (name, raw[name]))
        if row[name] is not None and row[name] < 0:
            raise FormatError(path, line, "column %s: '%s' is negative" % (name, raw[name]))
    if raw["status"] in ("PASS", "FAIL"):
        for name in ("ms", "gbps"):
            if row[name] is None:
                raise FormatError(path, line, "column %s: a %s row needs a measured value, found '%s'" % (
                    name, raw["status"], raw[name]))
        if row["ms"] == 0:
            raise FormatError(path, line, "column ms: a measured time cannot be 0")
    return row


class CsvWriter:
    """Writes the CSV row by row, flushing each, so a run cut short still
    leaves a valid file."""

    def __init__(self, stream):
        self.stream = stream
        self.writer = csv.writer(stream, lineterminator="\n")
        self.writer.writerow(COLUMNS + OPTIONAL_COLUMNS)
        stream.flush()

    def write(self, row):
        self.writer.writerow(["-" if row.get(name) in (None, "") else row[name]
                              for name in COLUMNS + OPTIONAL_COLUMNS])
        self.stream.flush()


# --- What the programs print -----------------------------------------------

DEVICE_LINE = re.compile(
    r"^Device (?P<index>\d+): (?P<name>.+?), compute capability (?P<cc>\d+\.\d+), (?P<sms>\d+) SMs"
    r"(?:, (?P<memory_gib>[\d.]+) GiB)?(?:, L2 (?P<l2_mb>[\d.]+) MB)?"
    r"(?:, driver CUDA (?P<driver_cuda>\d+\.\d+))?(?:, runtime (?P<runtime>\d+\.\d+))?", re.M)


def parse_key_values(line):
    """'RESULT a=1 b=x' -> {'a': '1', 'b': 'x'} (the leading word dropped)."""
    pairs = {}
    for token in line.split()[1:]:
        key, sep, value = token.partition("=")
        if sep:
            pairs[key] = value
    return pairs


def parse_device_line(text):
    """The first 'Device N: ...' line as a dict (name, cc, sms, memory_gib,
    l2_mb, driver_cuda, runtime), or None."""
    match = DEVICE_LINE.search(text)
    if not match:
        return None
    device = match.groupdict()
    for key in ("memory_gib", "l2_mb"):
        device[key] = float(device[key]) if device[key] else None
    device["sms"] = int(device["sms"])
    return device


def parse_ceilings(text):
    """Every 'CEILING example=... name=... gbps=...' line, as dicts with gbps a float or None."""
    ceilings = []
    for line in text.splitlines():
        if line.startswith("CEILING "):
            pairs = parse_key_values(line)
            try:
                pairs["gbps"] = number_or_none(pairs.get("gbps"))
            except ValueError:
                pairs["gbps"] = None
            ceilings.append(pairs)
    return ceilings


def parse_results(text):
    """Every 'RESULT ...' line, as dicts of strings (n an int, '-' kept as '-')."""
    results = []
    for line in text.splitlines():
        if line.startswith("RESULT "):
            pairs = parse_key_values(line)
            if "kernel" not in pairs or "n" not in pairs:
                continue
            try:
                pairs["n"] = int(pairs["n"])
            except ValueError:
                continue
            results.append(pairs)
    return results


def parse_kernel_list(help_text):
    """The kernel names of a program's --help line
    '--kernel NAME        one or more of: a, b, c (comma-separated), or all (default)'."""
    match = re.search(r"one or more of:\s*([^(\n]+)", help_text)
    if not match:
        return []
    return [name.strip() for name in match.group(1).split(",") if name.strip() and name.strip() != "or all"]


def parse_data_kinds(help_text):
    """The '--data KIND  input data: book, periodic (default book)' choices."""
    match = re.search(r"--data KIND\s+input data:\s*([^(\n]+)", help_text)
    return [name.strip() for name in match.group(1).split(",")] if match else []


# --- A ctest log -------------------------------------------------------------

TEST_LINE = re.compile(r"^\s*\d+/\d+\s+Test\s+#\d+:\s+(?P<name>\S+)\s+\.*\s*\**(?P<status>[^*]*?)\s+[\d.]+\s+sec\s*$")
# CMake 3 writes "100% tests passed, 0 tests failed out of 57"; CMake 4 leaves
# out the failed count when it is 0: "100% tests passed out of 190".
SUMMARY_LINE = re.compile(
    r"^(?P<percent>\d+)% tests passed(?:, (?P<failed>\d+) tests? failed)? out of (?P<total>\d+)")
LABEL_LINE = re.compile(r"^(?P<label>\S+)\s+=\s+(?P<seconds>[\d.]+) sec\*proc \((?P<tests>\d+) tests?\)")
LIST_LINE = re.compile(r"^\s*\d+ - (?P<name>\S+) \((?P<why>[^)]*)\)")
# Written by scripts/gpu_evidence.sh next to ctest's own output.
LABELS_LINE = re.compile(r"^LABELS (?P<label>\S+):(?P<names>.*)$")
EVIDENCE_LINE = re.compile(r"^EVIDENCE (?P<key>\w+)=(?P<value>.*)$")


def test_outcome(status):
    status = status.strip()
    if status == "Passed":
        return "passed"
    if status.startswith("Skipped"):
        return "skipped"
    return "failed"


def parse_ctest_log(path):
    """Reads a ctest log. Returns a dict: percent, failed, total, seconds,
    labels {label: {tests, seconds, passed, failed, skipped}}, failed_tests,
    skipped_tests [(name, why)], evidence {key: value}. Raises FormatError
    when the log has no ctest summary line."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as error:
        raise FormatError(path, 0, "cannot read: %s" % error.strerror)
    log = {"labels": {}, "failed_tests": [], "skipped_tests": [], "evidence": {}, "outcomes": {},
           "members": {}, "seconds": None}
    summary = None
    section = None
    for line in lines:
        match = TEST_LINE.match(line)
        if match:
            log["outcomes"][match.group("name")] = test_outcome(match.group("status"))
            continue
        match = SUMMARY_LINE.match(line)
        if match:
            summary = match
            continue
        if line.startswith("Label Time Summary"):
            section = "labels"
            continue
        if line.startswith("The following tests did not run"):
            section = "skipped"
            continue
        if line.startswith("The following tests FAILED"):
            section = "failed"
            continue
        if line.startswith("Total Test time (real)"):
            seconds = re.search(r"([\d.]+) sec", line)
            log["seconds"] = float(seconds.group(1)) if seconds else None
            section = None
            continue
        match = LABELS_LINE.match(line)
        if match:
            log["members"][match.group("label")] = match.group("names").split()
            continue
        match = EVIDENCE_LINE.match(line)
        if match:
            log["evidence"][match.group("key")] = match.group("value").strip()
            continue
        if section == "labels":
            match = LABEL_LINE.match(line)
            if match:
                log["labels"][match.group("label")] = {
                    "tests": int(match.group("tests")), "seconds": float(match.group("seconds"))}
            elif line.strip():
                section = None
        elif section in ("skipped", "failed"):
            match = LIST_LINE.match(line)
            if match:
                key = "skipped_tests" if section == "skipped" else "failed_tests"
                log[key].append((match.group("name"), match.group("why")))
            elif line.strip():
                section = None
    if summary is None:
        raise FormatError(path, 0, "no ctest summary line ('N% tests passed, F tests failed out of T') found")
    log["percent"] = int(summary.group("percent"))
    log["failed"] = int(summary.group("failed") or 0)
    log["total"] = int(summary.group("total"))
    # Tests listed as not run because they were skipped do not count as failures.
    skipped_names = {name for name, why in log["skipped_tests"] if why.startswith("Skipped") or why == "Disabled"}
    log["skipped"] = len(skipped_names)
    log["passed"] = log["total"] - log["failed"] - log["skipped"]
    for name in skipped_names:
        log["outcomes"].setdefault(name, "skipped")
    for name, _ in log["failed_tests"]:
        if name not in skipped_names:
            log["outcomes"][name] = "failed"
    # Per label: passed / failed / skipped when gpu_evidence.sh listed each label's tests.
    for label in set(log["labels"]) | set(log["members"]):
        entry = log["labels"].setdefault(label, {"tests": len(log["members"].get(label, [])), "seconds": None})
        names = log["members"].get(label)
        if names is not None:
            counts = {"passed": 0, "failed": 0, "skipped": 0, "not run": 0}
            for name in names:
                counts[log["outcomes"].get(name, "not run")] += 1
            entry.update(counts)
    return log


# --- scripts/bank_conflicts.sh's tables ---------------------------------------------------
#
# scripts/gpu_evidence.sh runs bank_conflicts.sh once per type and puts each output
# under a header line '=== bank_conflicts TYPE N'. Each output holds one table:
#   kernel            ld conflicts   st conflicts  ld wavefronts  per shared load    time (us)
#   shared                16388937          31434       16913225             32.3        131.6
#   cublas: transpose_readWrite_alignment_ke  10427  2598  534715  1.0  45.3
# ending at the first blank line. The kernel name may hold spaces: the five figures are
# the last five fields. 'nan' (a counter ncu did not report) reads as not measured.

BANKS_HEADER = re.compile(r"^===\s*bank_conflicts\s+(?P<type>\S+)\s+(?P<size>\S+)\s*$")
BANKS_TABLE_HEADER = re.compile(r"^\s*kernel\s+ld conflicts\s+st conflicts\s+ld wavefronts\s+per shared load\s+time")
BANKS_TRANSPOSE_LINE = re.compile(r"^transpose: (?P<rows>\d+) x (?P<cols>\d+) (?P<type>\w+)")
BANKS_DEVICE_LINE = re.compile(r"^Device \d+: (?P<name>.+?), compute capability")
BANKS_FIGURES = (("ld_conflicts", "ld conflicts"), ("st_conflicts", "st conflicts"),
                 ("ld_wavefronts", "ld wavefronts"), ("per_load", "per shared load"), ("us", "time (us)"))


def banks_figure(path, line_number, kernel, label, text):
    """One figure of a table row: a float, or None for '-' (no shared loads) or 'nan'."""
    if text in MISSING or text.lower() == "nan":
        return None
    try:
        value = float(text)
    except ValueError:
        raise FormatError(path, line_number, "kernel '%s': %s '%s' is not a number" % (kernel, label, text))
    if not math.isfinite(value) or value < 0:
        raise FormatError(path, line_number, "kernel '%s': %s '%s' is not a count" % (kernel, label, text))
    return value


def parse_banks_section(path, lines, start, type_name, size):
    """One section: lines [(line_number, text)] after its header (or the whole file).
    Returns a dict: type, size, line, device, rows [{kernel, line, ld_conflicts,
    st_conflicts, ld_wavefronts, per_load, us}], note (for a section without a
    table: the script's message, else the last line printed)."""
    section = {"type": type_name, "size": size, "line": start, "device": None, "rows": [], "note": None}
    in_table = False
    table_line = None
    other = []  # the lines that are neither the table nor the Device or transpose line
    for number, text in lines:
        if in_table:
            if not text.strip():
                break
            fields = text.split()
            if len(fields) < 6:
                raise FormatError(path, number, "table row '%s': expected a kernel name and 5 figures (%s), "
                                  "found %d fields" % (text.strip(), ", ".join(l for _, l in BANKS_FIGURES),
                                                       len(fields)))
            kernel = " ".join(fields[:-5])
            row = {"kernel": kernel, "line": number}
            for (key, label), field in zip(BANKS_FIGURES, fields[-5:]):
                row[key] = banks_figure(path, number, kernel, label, field)
            section["rows"].append(row)
            continue
        if BANKS_TABLE_HEADER.match(text):
            in_table, table_line = True, number
            continue
        match = BANKS_DEVICE_LINE.match(text)
        if match and section["device"] is None:
            section["device"] = match.group("name")
            continue
        match = BANKS_TRANSPOSE_LINE.match(text)
        if match:
            if section["type"] is None:
                section["type"] = match.group("type")
            if section["size"] is None:
                rows, cols = match.group("rows"), match.group("cols")
                section["size"] = rows if rows == cols else "%sx%s" % (rows, cols)
            continue
        if text.strip():
            other.append(text.strip())
    if in_table and not section["rows"]:
        raise FormatError(path, table_line, "the table has no kernel rows")
    # Why a section has no table: the script's own message, else the last line printed.
    messages = [text for text in other if text.startswith("bank_conflicts.sh:")]
    section["note"] = messages[0] if messages else (other[-1] if other else "no output")
    section["type"] = section["type"] or "unknown"
    section["size"] = section["size"] or "unknown"
    return section


def parse_banks(path):
    """Reads the output of scripts/bank_conflicts.sh: one table per '=== bank_conflicts
    TYPE N' section, or a single table without a header (type and size then from the
    program's 'transpose: N x N TYPE' line, else 'unknown'). Returns the sections that
    hold a table, in file order, plus (as 'missing') those that do not, e.g. a run that
    timed out. Raises FormatError naming the file and line when no table is found or a
    row is malformed."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as error:
        raise FormatError(path, 0, "cannot read: %s" % error.strerror)
    if not any(line.strip() for line in lines):
        raise FormatError(path, 1, "empty file: expected the output of scripts/bank_conflicts.sh")
    # Split at the section headers; text before the first one is a section of its own.
    parts = [(None, None, 1, [])]
    for number, text in enumerate(lines, 1):
        match = BANKS_HEADER.match(text)
        if match:
            parts.append((match.group("type"), match.group("size"), number, []))
        else:
            parts[-1][3].append((number, text))
    sections, missing = [], []
    for index, (type_name, size, start, body) in enumerate(parts):
        section = parse_banks_section(path, body, start, type_name, size)
        if section["rows"]:
            sections.append(section)
        elif index > 0:  # a header whose run printed no table
            missing.append(section)
    if not sections:
        raise FormatError(path, 1, "no bank-conflict table found (expected a line 'kernel  ld conflicts  "
                          "st conflicts  ld wavefronts  per shared load  time (us)' as scripts/bank_conflicts.sh "
                          "prints, then one row per kernel)")
    return {"sections": sections, "missing": missing}
