#!/usr/bin/env python3
"""Draws the plots and the tables of the docs from the sweep CSVs (scripts/sweep.py), one per device.

    python3 scripts/plot.py build/sweep.csv [MORE.csv ...] [--out DIR] [--force]

Your own run: its plots (EXAMPLE_TYPE.png, drawn with matplotlib where installed) and a page with
every table (RESULTS.md) go into DIR, by default build/plots/ of this checkout; nothing tracked is
touched, and files already in DIR are replaced only with --force.

    python3 scripts/plot.py --regenerate [CSV ...] [--readme PAGE]... [--results PAGE] [--check]

The repository's own pages and committed plots, from every device's docs/results/DEVICE/sweep.csv
(the default CSVs; given CSVs must include them all, unless --readme names the pages). Beside each
CSV: its plots and, where present, the device's ctest.log, banks.txt (scripts/bank_conflicts.sh)
and mutants.txt (scripts/mutants.sh). A plot carries, in its PNG text, a hash of what it was drawn
from (its rows and the drawing code): a plot whose hash is already the one its data gives is left
as it is, byte for byte, whatever matplotlib is installed, so regenerating twice leaves git clean.
--check writes nothing and exits 1 naming each file that regenerating would change.
What lies between a pair of marker lines <!-- NAME:begin --> and
<!-- NAME:end --> is rewritten, by NAME: results (every device's headline table; in --results a
section per device with tests, plots and bank conflicts), results:summary (the book's kernel, our
best and the library at the headline sizes), results:EXAMPLE (that example's rows), banks (every
bank table), banks:PROGRAM (the tables of that program), banks:agreement (per device and run, how
many of the tables' predicted rows the SASS-level and the hardware counts equal, within 2 %), run:SLUG (one run from examples.log, in a
code block: SLUG is its command's words, paths cut to their last part, dashes dropped, joined by '-':
run:banks, run:reduce-demo-squares), mutants (the mutant table; mutants:CHAPTER, its rows). Prose that interprets figures is written by hand,
outside the markers.

    PROGRAM --bank-model | python3 scripts/plot.py --bank-maps docs/images/banks [--force]

draws, from a program's bank model (common/bank_model.h), each shared-memory access it names a
picture for: FOLDER/PICTURE.png, the 32 banks across, a row per pass, each lane in its bank(s). A
picture already there is kept when it shows the same (same hash, or the same pixels); one that
differs is replaced only with --force.

Every option is checked before anything is read or drawn. Without matplotlib in this Python, the
script runs itself again under the system's (/usr/bin/python3, or $SYSTEM_PYTHON) where that one
has it (Debian's python3-matplotlib, which scripts/install_deps.sh installs); with none, tables are
still written and plots skipped, saying so. Exit 0: done (or, with --check, nothing to change);
1: --check found files to change; 2: a bad command line, a missing or malformed input (one line,
FILE:LINE: problem for a malformed one), or an output that --force would be needed to replace;
3: a page without its markers; 77: --bank-maps without matplotlib anywhere. Nothing is written
unless the exit is 0.
"""
import argparse
import csv
import glob
import hashlib
import inspect
import io
import json
import math
import os
import re
import statistics
import struct
import subprocess
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))  # the checkout

HEADLINE = {"dot": [2**26], "reduce": [10**8], "transpose": [4097**2, 8192**2, 10000**2]}  # n; others: every n
LIBRARY = {"cub", "cublas", "geam"}
L2_MB = {"H100": 52, "H200": 63}  # for CSVs without l2_mb: 50 and 60 MiB, in MB as the Device line prints them
REQUIRED = ["device", "record", "example", "kernel", "type", "n", "gbps", "status"]
NUMBERS = ["n", "bytes", "ms", "gbps", "pct_ceiling", "l2_mb"]
CEILING_FIELDS = {"device", "l2_mb", "record", "example", "name", "type", "n", "size", "gbps"}  # more: in its label
SUMMARY = re.compile(r"^\d+% tests passed(?:, \d+ tests? failed)? out of \d+")
LABEL = re.compile(r"^(\S+)\s+=\s+[\d.]+ sec\*proc \((\d+) tests?\)")
LISTED = re.compile(r"^\s*\d+ - (\S+) \(")


def reject(path, line, problem):
    """Stops with one line naming the file, the line and the problem (exit 2), before any writing."""
    print("%s:%d: %s" % (path, line, problem), file=sys.stderr)
    sys.exit(2)


def number(text):
    """The value of a numeric field; None when it is empty, '-' (not measured) or not a finite number."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def problem(row, first):
    """What is wrong with one CSV row (None if nothing): a figure in the docs never comes from a bad row."""
    if first and row["device"] != first["device"]:
        return "a second device '%s': one CSV per device" % row["device"]
    for key in NUMBERS:
        if row.get(key, "") not in ("", "-") and number(row[key]) is None:
            return "%s '%s' is not a number" % (key, row[key])
    if row["record"] == "CEILING":
        return None if number(row["gbps"]) is not None else "a CEILING row without gbps"
    if row["record"] != "RESULT":
        return "record '%s' is neither RESULT nor CEILING" % row["record"]
    if row["status"] not in ("PASS", "FAIL", "ERROR"):
        return "status '%s' is not PASS, FAIL or ERROR" % row["status"]
    if row["status"] != "ERROR" and not row["n"].isdigit():
        return "n '%s' is not a whole number" % row["n"]
    return None


def read_csv(path):
    """The rows of one device's sweep CSV, every line checked."""
    with open(path, newline="", encoding="utf-8") as stream:
        reader = csv.reader(stream)
        header = next(reader, [])
        missing = [column for column in REQUIRED if column not in header]
        if missing:
            reject(path, 1, "no column %s: not a scripts/sweep.py CSV" % ", ".join(missing))
        rows = []
        for fields in filter(None, reader):
            if len(fields) != len(header):
                reject(path, reader.line_num, "%d fields where the header has %d" % (len(fields), len(header)))
            row = dict(zip(header, fields))
            why = problem(row, rows[0] if rows else None)
            if why:
                reject(path, reader.line_num, why)
            rows.append(row)
    if not rows:
        reject(path, 1, "no data rows")
    return rows


def read_ctest(path):
    """One line for the docs: ctest's own summary line, the skipped and failed tests, the tests per label."""
    summary, lists, labels, section, count = None, {"skipped": [], "failed": []}, [], None, 1
    with open(path, encoding="utf-8", errors="replace") as stream:
        for count, line in enumerate(stream, 1):
            if SUMMARY.match(line):
                summary = SUMMARY.match(line).group(0)
            elif line.startswith("The following tests"):
                section = "skipped" if "did not run" in line else "failed"
            elif LABEL.match(line):
                labels.append("%s %s" % LABEL.match(line).groups())
            elif section and LISTED.match(line):
                lists[section].append("`%s`" % LISTED.match(line).group(1))
    if not summary:
        reject(path, count, "no line 'N% tests passed ... out of M': ctest did not finish")
    skipped, failed = lists["skipped"], lists["failed"]
    text = "`%s`, %d skipped" % (summary, len(skipped))
    text += " (%s)" % ", ".join(skipped) if 0 < len(skipped) < 10 else ""  # a GPU-less run skips most
    text += "; failed: " + ", ".join(failed) if failed else ""
    return text + ("; tests per label: " + ", ".join(labels) if labels else "")


def load(path):
    """A device: its rows, name, L2 size and, from the CSV's folder, its test summary and bank table."""
    rows, folder = read_csv(path), os.path.dirname(path) or "."
    name = rows[0]["device"]
    l2 = number(rows[0].get("l2_mb", "")) or next((mb for key, mb in L2_MB.items() if key in name), None)
    ctest, banks = os.path.join(folder, "ctest.log"), os.path.join(folder, "banks.txt")
    return {"csv": path, "folder": folder, "plots": folder, "rows": rows, "name": name, "l2_mb": l2,
            "ctest": read_ctest(ctest) if os.path.exists(ctest) else None, "ctest_path": ctest,
            "banks": open(banks, encoding="utf-8").read().strip() if os.path.exists(banks) else None,
            "mutants": read_mutants(os.path.join(folder, "mutants.txt")),
            "examples": read_examples(os.path.join(folder, "examples.log"))}


def read_examples(path):
    """examples.log's runs: '=== PROGRAM ARGS' -> its output (up to '=== exit N')."""
    runs, current = {}, None
    with open(path, encoding="utf-8") if os.path.exists(path) else io.StringIO() as stream:
        lines = stream.readlines()
    for line in lines:
        if line.startswith("=== exit"):
            current = None
        elif line.startswith("=== "):
            current = runs.setdefault(line[4:].strip(), [])
        elif current is not None:
            current.append(REPOSITORY_PATH.sub("", line.rstrip("\n")).replace("build-gpu/./", "build-gpu/"))
    return runs


# The machine's path to the repository, which __FILE__ and the sanitizer print
# ("/work/main/.snap/common/book.h:162"): a lesson shows paths from the repository's root.
REPOSITORY_PATH = re.compile(r"(?<![\w.:/])/(?:[\w.+-]+/)+?(?=(?:common|build-gpu|ch\d\d_\w+)/)")


def read_mutants(path):
    """The table and the closing count of scripts/mutants.sh's output, or None."""
    if not os.path.exists(path):
        return None
    lines = [line.rstrip() for line in open(path, encoding="utf-8")]
    return "\n".join(line for line in lines if line.startswith("|") or line.startswith("mutants:")) or None


def groups(device):
    """(example, type) -> (timed RESULT rows, CEILING rows), in the CSV's order."""
    found = {}
    for row in device["rows"]:
        if number(row["gbps"]) and number(row["n"]):
            found.setdefault((row["example"], row["type"]), ([], []))[row["record"] == "CEILING"].append(row)
    return found


def launch_floor(results):
    """The launch floor of one plot: the shortest time any kernel took at any size (ms), and the bytes one
    element moves (the median over the rows). A kernel that took that time at every n would show
    GB/s = bytes per element x n / floor: a rising line that the small sizes follow, whatever the kernel."""
    timed = [r for r in results if number(r.get("ms", "")) and float(r["ms"]) > 0]
    if not timed:
        return None, None
    moved = statistics.median(float(r["gbps"]) * float(r["ms"]) * 1e6 / int(r["n"]) for r in timed)
    return min(float(r["ms"]) for r in timed), moved


def plot(plt, device, example, type_name, results, ceilings, path, key):
    """GB/s against n: a line per kernel (the library bold), each ceiling dashed, the sizes that fit in L2
    shaded, and the launch floor dotted. Written to PATH with KEY (what it was drawn from) in its PNG text,
    no matplotlib version there, 1000 x 500 pixels, its ticks chosen here: the same data, the same picture
    in any matplotlib but for the rendering of lines and letters."""
    figure, axes = plt.subplots(figsize=(10, 5))
    # Bytes moved per element, from GB/s x time: where n elements outgrow the L2, whatever the example.
    moved = [float(r["gbps"]) * float(r["ms"]) * 1e6 / int(r["n"]) for r in results if number(r.get("ms", ""))]
    if device["l2_mb"] and moved:
        axes.axvspan(min(int(r["n"]) for r in results), device["l2_mb"] * 1e6 / statistics.median(moved),
                     color="tab:blue", alpha=0.12, label="fits in L2 (%g MB)" % device["l2_mb"])
    cold = [r for r in results if r.get("l2") == "cold"]  # --cold-l2 runs: a cross beside the warm line
    for kernel in dict.fromkeys(r["kernel"] for r in results):
        points = sorted((int(r["n"]), float(r["gbps"])) for r in results if r["kernel"] == kernel and r not in cold)
        library, partials = kernel in LIBRARY, any(r.get("scope") == "partials" for r in results if r["kernel"] == kernel)
        line, = axes.plot(*zip(*points), marker="o", markersize=3, linewidth=3 if library else 1.3,
                          color="black" if library else None,
                          label=kernel + (" (library)" if library else " (kernel only)" if partials else ""))
        crosses = [(int(r["n"]), float(r["gbps"])) for r in cold if r["kernel"] == kernel]
        if crosses:
            axes.plot(*zip(*crosses), linestyle="none", marker="x", markersize=6, color=line.get_color())
    if cold:
        axes.plot([], [], linestyle="none", marker="x", color="gray", label="--cold-l2 (L2 flushed first)")
    def ceiling(row):  # its name and any further field (l2=cold, ...)
        return " ".join([row["name"]] + ["%s=%s" % kv for kv in row.items() if kv[0] not in CEILING_FIELDS and kv[1]])
    for index, name in enumerate(dict.fromkeys(map(ceiling, ceilings))):
        points = sorted((int(r["n"]), float(r["gbps"])) for r in ceilings if ceiling(r) == name)
        axes.plot(*zip(*points), linestyle=("--", ":", "-.")[index % 3], color="gray", label="ceiling: " + name)
    floor_ms, per_element = launch_floor([r for r in results if r not in cold])
    if floor_ms:
        sizes = sorted({int(r["n"]) for r in results})
        axes.plot(sizes, [per_element * n / (floor_ms * 1e-3) / 1e9 for n in sizes], linestyle=":", linewidth=1,
                  color="tab:red", label="launch floor: every n in %.1f µs" % (floor_ms * 1e3))
        axes.set_ylim(bottom=0, top=1.15 * max(float(r["gbps"]) for r in results + ceilings))
    axes.set(xlabel="n (elements)", ylabel="GB/s (1e9 bytes/s)",
             title="%s, %s on %s" % (example, type_name, device["name"]))
    axes.set_xscale("log", base=2)
    sizes = [int(r["n"]) for r in results + ceilings]
    low, high = math.ceil(math.log2(min(sizes))), math.floor(math.log2(max(sizes)))
    powers = range(low, high + 1, 2 if high - low <= 20 else 3)  # the locator's choice changed between versions
    axes.set_xticks([2**k for k in powers], ["$2^{%d}$" % k for k in powers])
    axes.set_xticks([], minor=True)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the axes: never over a line
    figure.tight_layout()
    figure.savefig(path, dpi=100, metadata={"Software": None, "Source": key})
    plt.close(figure)


def pyplot():
    """matplotlib's pyplot, drawing into files (Agg); None where this Python has no matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def drawing_key(parts, function):
    """What a picture is drawn from, as one line for its PNG text: a hash of PARTS (its data) and of
    the source of FUNCTION, 'plot' or 'draw_bank_map' (the code that draws it). The same key, the same
    picture."""
    text = json.dumps(parts, sort_keys=True) + DRAWING_CODE[function]
    return "scripts/plot.py sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def png_text(path):
    """The text entries (tEXt, iTXt) of a PNG file: {keyword: text}; {} for a missing or unreadable file."""
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError:
        return {}
    found, at = {}, 8
    while data.startswith(b"\x89PNG") and at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        chunk = data[at + 8:at + 8 + length]
        if kind == b"tEXt" and b"\0" in chunk:
            keyword, text = chunk.split(b"\0", 1)
            found[keyword.decode("latin-1")] = text.decode("latin-1")
        elif kind == b"iTXt" and b"\0" in chunk:
            keyword, rest = chunk.split(b"\0", 1)
            if rest[:1] == b"\0":  # not compressed: flag, method, language, translated keyword, text
                found[keyword.decode("latin-1")] = rest[2:].split(b"\0", 2)[-1].decode("utf-8", "replace")
        at += 12 + length
    return found


def plot_jobs(device):
    """(path, key, example, type, results, ceilings) of every plot of a device."""
    for (example, type_name), (results, ceilings) in groups(device).items():
        if len({r["n"] for r in results}) > 1:  # the ceilings of the cold runs repeat the warm ones
            ceilings = [c for c in ceilings if c.get("l2") != "cold"]
            key = drawing_key([device["name"], device["l2_mb"], example, type_name, results, ceilings], "plot")
            yield image(device, example, type_name), key, example, type_name, results, ceilings


def draw(devices, check=False):
    """Every plot of every device, into its plots folder. A plot whose PNG already carries the key of its
    data is kept as it is. Returns (stale, drawn): the plots whose PNG is missing or drawn from other data,
    and those drawn now (none with check, or without matplotlib: a line says so)."""
    jobs = [job for device in devices for job in plot_jobs(device)]
    stale = [job for job in jobs if png_text(job[0]).get("Source") != job[1]]
    if check or not stale:
        return [job[0] for job in stale], []
    plt = pyplot()
    if plt is None:
        print("plot.py: matplotlib is not installed for %s: plots skipped, tables written (Debian: apt-get install "
              "python3-matplotlib)" % sys.executable, file=sys.stderr)
        return [job[0] for job in stale], []
    by_path = {image(d, *key): d for d in devices for key in groups(d)}
    for path, key, example, type_name, results, ceilings in stale:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        plot(plt, by_path[path], example, type_name, results, ceilings, path, key)
    return [job[0] for job in stale], [job[0] for job in stale]


def image(device, example, type_name):
    return os.path.join(device["plots"], "%s_%s.png" % (example, type_name))


def size_label(row):
    """8192² for a square matrix, 2^26 for a power of two, 1e8 for a power of ten, else n itself."""
    sides = row.get("size", "").split("x")
    if len(sides) == 2:
        return sides[0] + "²" if sides[0] == sides[1] else "%s×%s" % tuple(sides)
    n = int(row["n"]) if row["n"].isdigit() else 0
    if n >= 1024 and n & (n - 1) == 0:
        return "2^%d" % (n.bit_length() - 1)
    return "1e%d" % (len(row["n"]) - 1) if n >= 10**6 and row["n"].rstrip("0") == "1" else row["n"]


def table(device):
    """The headline sizes' rows, plus every row that did not pass, whatever its size."""
    lines = ["| example | type | size | kernel | ms | GB/s | % of ceiling | status |",
             "| --- | --- | --- | --- | ---: | ---: | ---: | --- |"]
    for row in device["rows"]:
        sizes = HEADLINE.get(row["example"])
        shown = row["status"] != "PASS" or not sizes or row["n"].isdigit() and int(row["n"]) in sizes
        if row["record"] == "RESULT" and shown:
            kernel = "**%s**" % row["kernel"] if row["kernel"] in LIBRARY else row["kernel"] + marks(row)
            named = row.get("ceiling", "-") not in ("", "-")
            percent = (row.get("pct_ceiling") or "–") + (" (%s)" % row["ceiling"] if named else "")
            lines.append("| %s |" % " | ".join([row["example"], row["type"], size_label(row), kernel,
                                                row.get("ms") or "–", row["gbps"] or "–", percent, row["status"]]))
    return lines


def marks(row):
    """What a reader must know beside a kernel's figure: the books' kernels time the kernel alone (the CPU
    adds their partials), and a --cold-l2 run flushed the L2 first."""
    return (" (kernel only)" if row.get("scope") == "partials" else "") + (" (cold L2)" if row.get("l2") == "cold" else "")


def link(path, page):
    return os.path.relpath(path, os.path.dirname(os.path.abspath(page)) or ".")


def body(devices, page, full):
    """Per device: its test summary and headline table; full (the results page): a section with its plots
    and bank conflicts too."""
    lines = []
    for device in devices:
        tests = "tests ([log](%s)): %s" % (link(device["ctest_path"], page), device["ctest"]) if device["ctest"] else ""
        lines += ["## " + device["name"] if full else "**%s**" % device["name"], "",
                  "Data: [sweep.csv](%s)%s" % (link(device["csv"], page), "; " + tests if tests else ""), ""]
        lines += table(device) + [""]
        images = [(key, image(device, *key)) for key in groups(device)] if full else []
        lines += ["![%s, %s on %s](%s)" % (*key, device["name"], link(path, page))
                  for key, path in images if os.path.exists(path)]
        if full and device["banks"]:
            lines += ["", "### Shared-memory bank conflicts (Nsight Compute)", "", device["banks"], ""]
    return "\n".join(lines)


def banks_body(devices, program=None):
    """Every device's bank tables; with PROGRAM only the sections (each opens with a line quoting the
    command) of that program."""
    lines = []
    for device in devices:
        sections = re.split(r"\n(?=`)", device["banks"] or "")
        chosen = [s for s in sections if not program or re.match(r"`\S*/%s[ `]" % re.escape(program), s)]
        if chosen:
            lines.append("**Bank conflicts on %s**\n\n%s\n" % (device["name"], "\n".join(chosen)))
    return "\n".join(lines)


def agrees(measured, predicted):
    """A measured count of passes per instruction equals the bank model's prediction: within 2 % of
    the prediction, and half the last printed digit. The one tolerance of bank_conflicts.sh's ✗ marks
    and of banks:agreement."""
    return abs(measured - predicted) <= 0.02 * predicted + 0.005


def banks_agreement_body(devices):
    """Per device and Nsight run (a section of banks.txt), loads and stores counted as separate rows:
    how many rows have a prediction, how many the SASS-level count and the hardware count equal
    (per access, as agrees() says), and the hardware count's largest deviation from the prediction.
    Columns are found by their headers, so a table without the SASS column (an older ncu) counts too."""
    lines = []
    for device in devices:
        rows = []
        for section in re.split(r"\n(?=`)", device["banks"] or ""):
            command = re.match(r"`(?:\S*/)?([^`]*)`", section)
            predicted = sass_equal = hardware_equal = 0
            worst, columns = None, None
            for line in section.split("\n"):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if cells[0] == "kernel":
                    columns = cells
                    continue
                if not columns or len(cells) != len(columns) or not cells[1].isdigit():
                    continue  # not a kernel's row (rule, prose)
                bounds = [columns.index("shared loads"), columns.index("shared stores"), len(columns)]
                for access, begin, end in (("load", bounds[0], bounds[1]), ("store", bounds[1], bounds[2])):
                    value = dict(zip(columns[begin:end], cells[begin:end]))  # this op's half of the row
                    accesses = int(value["shared %ss" % access])
                    model = number(value["predicted"].split(" ")[0])  # '2.00 ✗': the SASS count disagrees
                    if accesses == 0 or not model:
                        continue
                    hardware = int(value["wavefronts"]) / accesses
                    sass = number(value.get("SASS per %s" % access, "–"))
                    predicted += 1
                    sass_equal += bool(sass) and agrees(sass, model)
                    hardware_equal += agrees(hardware, model)
                    deviation = hardware / model - 1
                    if not agrees(hardware, model) and (worst is None or abs(deviation) > abs(worst[0])):
                        worst = (deviation, cells[0].split(" (")[0])
            if command and predicted:
                rows.append("| %s | %d | %d | %d | %s |" % (
                    command.group(1), predicted, sass_equal, hardware_equal,
                    "%+.0f %% (%s)" % (100 * worst[0], worst[1].replace("|", "\\|")) if worst else "–"))
        if rows:
            lines += ["**%s**" % device["name"], "",
                      "| run | rows predicted | SASS count = prediction | hardware count = prediction | "
                      "largest hardware deviation |", "| --- | ---: | ---: | ---: | --- |"] + rows + [""]
    return "\n".join(lines)


def summary_body(devices):
    """Per device, example, type and headline size: the book's kernel, our fastest and the library, as
    % of the ceiling measured in the same run, and our fastest over the library."""
    lines = ["| device | example | type | size | book's kernel | our best | library | best ÷ library |",
             "| --- | --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for device in devices:
        cases = {}
        for row in device["rows"]:
            sizes = HEADLINE.get(row["example"], [])
            if row["record"] == "RESULT" and row["status"] == "PASS" and number(row["gbps"]) and \
                    row["n"].isdigit() and int(row["n"]) in sizes and row.get("l2") != "cold":
                cases.setdefault((row["example"], row["type"], size_label(row)), []).append(row)
        for (example, type_name, size), rows in cases.items():
            library = [r for r in rows if r["kernel"] in LIBRARY]
            ours = [r for r in rows if r["kernel"] not in LIBRARY and r["kernel"] != "copy"]  # copy: a reference row
            book = [r for r in ours if r.get("scope") == "partials" or r["kernel"] in ("book", "static", "shared")]
            best = max(ours, key=lambda r: number(r["gbps"])) if ours else None
            cell = lambda r: "%s%s %s %%" % (r["kernel"], marks(r), r.get("pct_ceiling") or "–") if r else "–"
            ratio = "%.2f" % (number(best["gbps"]) / number(library[0]["gbps"])) if best and library else "–"
            lines.append("| %s |" % " | ".join([device["name"], example, type_name, size,
                                                cell(book[0] if book else None), cell(best),
                                                cell(library[0] if library else None), ratio]))
    return "\n".join(lines)


def mutants_body(devices, chapter=None):
    """Every device's mutant table; with CHAPTER, that chapter's rows only."""
    keep = lambda line: not chapter or line.startswith(("| chapter", "| ---", "| %s |" % chapter))
    return "\n".join("**%s**\n\n%s\n" % (d["name"], "\n".join(filter(keep, d["mutants"].split("\n"))))
                     for d in devices if d["mutants"])


def marker_body(name, devices, path, results_page):
    """What goes between NAME's markers in the page at PATH."""
    kind, _, which = name.partition(":")
    if kind == "results" and which == "summary":
        return summary_body(devices)
    if kind == "results" and which:
        only = [dict(d, rows=[r for r in d["rows"] if r["example"] == which]) for d in devices]
        return body(only, path, False)
    if kind == "results":  # the results page, in either language, gets the full sections
        return body(devices, path, path == results_page or os.path.basename(path).startswith("RESULTS"))
    if kind == "banks" and which == "agreement":
        return banks_agreement_body(devices)
    if kind == "banks":
        return banks_body(devices, which or None)
    if kind == "run":  # the first device's run of that command
        for device in devices:
            for command, lines in device["examples"].items():
                if run_slug(command) == which:
                    shown = re.sub(r"(?<![\w/])(ch\d\d_\w+/)", r"build/\1", command)  # as typed from the top
                    return "```\n$ %s\n%s\n```" % (shown, "\n".join(lines))
        return ""
    return mutants_body(devices, which or None)


def run_slug(command):
    """'compute-sanitizer --tool racecheck ch08_reduce/reduce --check' -> 'compute-sanitizer-tool-racecheck-reduce-check'."""
    return "-".join(word.split("/")[-1].lstrip("-") for word in command.split())


def between(text, name, body):
    """TEXT with the lines between NAME's markers replaced by BODY; None unless each marker is alone
    on a line, once, begin before end (a marker quoted inside prose does not count)."""
    lines = text.split("\n")
    begin = [i for i, line in enumerate(lines) if line.strip() == "<!-- %s:begin -->" % name]
    end = [i for i, line in enumerate(lines) if line.strip() == "<!-- %s:end -->" % name]
    if len(begin) != 1 or len(end) != 1 or begin[0] > end[0]:
        return None
    return "\n".join(lines[:begin[0] + 1] + [body.rstrip("\n")] + lines[end[0]:])


def read_bank_model(stream, source):
    """The lines of a program's --bank-model output that name a picture: (picture, kernel, access,
    bytes, passes, lanes), lanes a list of 32 (address, pass) or None. Exit 2 on a malformed line."""
    pictures = []
    for number, line in enumerate(stream, 1):
        fields = line.rstrip("\n").split("\t")
        if line.startswith("#") or fields[0] == "library" or not line.strip():
            continue
        try:
            kernel, access, op, width, passes, weight, picture, lanes = fields
            lanes = [None if lane == "-" else tuple(map(int, lane.split(":"))) for lane in lanes.split(",")]
            if len(lanes) != 32 or op not in ("ld", "st") or int(width) not in (1, 2, 4, 8, 16):
                raise ValueError
        except ValueError:
            reject(source, number, "not a bank model line (kernel, access, op, bytes, passes, weight, picture, "
                   "32 lanes)")
        if picture != "-":
            if not re.match(r"^[a-z0-9_]+$", picture):
                reject(source, number, "picture name '%s': use [a-z0-9_]" % picture)
            pictures.append((picture, kernel, access, int(width), int(passes), lanes))
    return pictures


def draw_bank_map(plt, picture, kernel, access, width, passes, lanes, key):
    """One warp's shared-memory access: the 32 banks across, one row per pass, each lane drawn in
    the banks its bytes touch, on the row of the pass that serves it, coloured by that pass. Returns
    the PNG's bytes, KEY in its text."""
    cells = {}  # (pass, first word) -> (words it spans, lanes)
    for lane, touch in enumerate(lanes):
        if touch is None:
            continue
        address, served = touch
        first, last = address // 4, (address + width - 1) // 4
        cells.setdefault((served, first), [last - first + 1, []])[1].append(lane)
    rows = max(passes, 1)
    figure, axes = plt.subplots(figsize=(11, 1.25 + (0.26 if rows <= 8 else 0.14) * rows))
    colours = plt.get_cmap("tab20")
    for (served, word), (span, lanes_here) in sorted(cells.items()):
        label = str(lanes_here[0]) if len(lanes_here) == 1 else "%d–%d" % (lanes_here[0], lanes_here[-1]) \
            if lanes_here == list(range(lanes_here[0], lanes_here[-1] + 1)) else ",".join(map(str, lanes_here))
        for piece in range(span):  # a wide lane's words, each in its own bank (wrapping past bank 31)
            bank = (word + piece) % 32
            axes.add_patch(plt.Rectangle((bank, served), 1, 1, facecolor=colours(served % 20), edgecolor="white"))
            if piece == 0:
                axes.text(bank + 0.5 * min(span, 32 - bank), served + 0.5, label, ha="center", va="center",
                          fontsize=7 if len(label) <= 3 else 5)
    axes.set_xlim(0, 32)
    axes.set_ylim(rows, 0)
    axes.set_xticks([b + 0.5 for b in range(0, 32, 4)], [str(b) for b in range(0, 32, 4)])
    axes.set_yticks([p + 0.5 for p in range(rows)] if rows <= 8 else [p + 0.5 for p in range(0, rows, 4)],
                    [str(p + 1) for p in (range(rows) if rows <= 8 else range(0, rows, 4))])
    axes.set_xlabel("bank (numbers in the cells: the lanes served there)")
    axes.set_ylabel("pass")
    axes.set_title("%s: %s, %d byte%s a lane: %d pass%s" % (kernel, access, width, "s" if width > 1 else "",
                                                           passes, "es" if passes != 1 else ""), fontsize=9)
    figure.tight_layout()
    png = io.BytesIO()
    figure.savefig(png, format="png", dpi=100, metadata={"Software": None, "Source": key})
    plt.close(figure)
    return png.getvalue()


def same_pixels(path, png):
    """The PNG file at PATH shows exactly the picture whose PNG bytes are PNG (text entries aside)."""
    import matplotlib.image
    import numpy
    try:
        return bool(numpy.array_equal(matplotlib.image.imread(path), matplotlib.image.imread(io.BytesIO(png))))
    except (OSError, ValueError, SyntaxError):
        return False


def bank_maps(folder, sources, force=False):
    """--bank-maps: draws every picture named in the --bank-model outputs (files, or - for stdin). A picture
    already in FOLDER is kept when it shows the same; one that differs is replaced only with force."""
    pictures = []
    for source in sources or ["-"]:
        if source == "-":
            pictures += read_bank_model(sys.stdin, "<stdin>")
        else:
            with open(source, encoding="utf-8") as stream:
                pictures += read_bank_model(stream, source)
    names = [p[0] for p in pictures]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        print("plot.py: picture names given twice: %s: nothing drawn" % ", ".join(twice), file=sys.stderr)
        return 2
    plt = pyplot()
    if plt is None:
        print("plot.py: --bank-maps draws pictures, and no Python here has matplotlib (Debian: apt-get install "
              "python3-matplotlib): nothing drawn", file=sys.stderr)
        return 77
    kept, written, differing = [], [], []
    for picture in pictures:
        path = os.path.join(folder, picture[0] + ".png")
        key = drawing_key(list(picture), "draw_bank_map")
        if png_text(path).get("Source") == key:
            kept.append(path)
            continue
        png = draw_bank_map(plt, *picture, key)
        if os.path.exists(path) and same_pixels(path, png):
            kept.append(path)
        elif os.path.exists(path) and not force:
            differing.append(os.path.basename(path))
        else:
            written.append((path, png))
    if differing:
        print("plot.py: %s in %s show%s another picture than this bank model's: --force replaces %s; nothing "
              "written" % (", ".join(differing), folder, "s" if len(differing) == 1 else "",
                           "it" if len(differing) == 1 else "them"), file=sys.stderr)
        return 2
    os.makedirs(folder, exist_ok=True)
    for path, png in written:
        with open(path, "wb") as stream:
            stream.write(png)
    print("plot.py: %d bank map(s) drawn into %s, %d kept (the same picture)" % (len(written), folder, len(kept)))
    return 0


DRAWING_CODE = {function.__name__: inspect.getsource(function) for function in (plot, draw_bank_map)}


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad command line gets one line on stderr, 'PROG: problem (--help lists the options)',
    and exit 2, as the programs' do (sweep.py uses it too)."""

    def error(self, message):
        print("%s: %s (--help lists the options)" % (self.prog, message), file=sys.stderr)
        sys.exit(2)


def refuse(message):
    """A command line or an input that cannot be used: one line, exit 2, nothing written."""
    print("plot.py: " + message, file=sys.stderr)
    sys.exit(2)


def committed_csvs():
    """Every device's committed results: docs/results/DEVICE/sweep.csv."""
    return sorted(glob.glob(os.path.join(TOP, "docs", "results", "*", "sweep.csv")))


def repository_pages(results):
    """Every lesson and page of the checkout with a marker, but the results page."""
    found = glob.glob(os.path.join(TOP, "README*.md")) + glob.glob(os.path.join(TOP, "ch*", "README*.md")) + \
        glob.glob(os.path.join(TOP, "docs", "*.md"))
    return sorted(os.path.relpath(path) for path in found if "begin -->" in open(path, encoding="utf-8").read()
                  and os.path.abspath(path) != os.path.abspath(results))


def other_python_with_matplotlib():
    """The system's Python ($SYSTEM_PYTHON, else /usr/bin/python3) when it is not this one and has
    matplotlib (Debian's python3-matplotlib, from scripts/install_deps.sh); else None."""
    other = os.environ.get("SYSTEM_PYTHON") or "/usr/bin/python3"
    if os.environ.get("PLOT_PY_RERUN") or not os.access(other, os.X_OK) or \
            os.path.realpath(other) == os.path.realpath(sys.executable):
        return None
    found = subprocess.run([other, "-c", "import matplotlib"], capture_output=True)
    return other if found.returncode == 0 else None


def slug(name, taken):
    """A folder name for a device's plots: 'NVIDIA H100 80GB HBM3' -> nvidia-h100-80gb-hbm3 (-2, -3 when taken)."""
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "device"
    chosen, count = base, 1
    while chosen in taken:
        count += 1
        chosen = "%s-%d" % (base, count)
    taken.add(chosen)
    return chosen


def main(argv=None, rerun=False):
    """RERUN: may run the script again under another Python that has matplotlib (as a script, not when
    a test calls main in its own process)."""
    argv = sys.argv[1:] if argv is None else argv
    parser = OneLineParser(prog="plot.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", nargs="*", help="sweep CSVs, one per device (build/sweep.csv); with --regenerate, by "
                        "default every docs/results/*/sweep.csv; with --bank-maps: --bank-model outputs (default: stdin)")
    parser.add_argument("--out", metavar="DIR", help="where your run's plots and RESULTS.md go (default: build/plots "
                        "of this checkout)")
    parser.add_argument("--force", action="store_true", help="replace what is already in --out (or, with "
                        "--bank-maps, pictures that differ)")
    parser.add_argument("--regenerate", action="store_true", help="rewrite the repository's pages between their "
                        "markers and its committed plots, from docs/results/*/sweep.csv")
    parser.add_argument("--check", action="store_true", help="with --regenerate: write nothing, and exit 1 naming "
                        "each file regenerating would change")
    parser.add_argument("--readme", action="append", default=[], metavar="PAGE", help="with --regenerate: a page "
                        "to rewrite between its markers (default: every README*.md and docs/*.md with one)")
    parser.add_argument("--results", metavar="PAGE", help="with --regenerate: the results page (default "
                        "docs/RESULTS.md)")
    parser.add_argument("--bank-maps", metavar="FOLDER",
                        help="draw the bank pictures a program's --bank-model output names, into FOLDER")
    args = parser.parse_args(argv)

    # Every option checked before anything is read or drawn.
    chosen = [name for name, given in (("--regenerate", args.regenerate), ("--bank-maps", args.bank_maps),
                                       ("--out", args.out)) if given]
    if len(chosen) > 1:
        parser.error("%s and %s do different jobs: give one" % tuple(chosen[:2]))
    if not args.regenerate and (args.check or args.readme or args.results):
        parser.error("--check, --readme and --results go with --regenerate (they are about the repository's pages)")
    if args.force and args.regenerate:
        parser.error("--regenerate rewrites generated files by design: it needs no --force")
    inputs = [path for path in args.csv if path != "-" or not args.bank_maps]
    for path in inputs:
        if not os.path.isfile(path):
            refuse("%s: %s" % (path, "a folder, not a CSV" if os.path.isdir(path) else "no such file"))
    if args.bank_maps:
        if os.path.exists(args.bank_maps) and not os.path.isdir(args.bank_maps):
            refuse("--bank-maps %s: not a folder" % args.bank_maps)
    elif args.regenerate:
        args.csv = args.csv or committed_csvs()
        if not args.csv:
            parser.error("--regenerate: no CSV given and none in docs/results/*/sweep.csv")
        args.results = args.results or os.path.relpath(os.path.join(TOP, "docs", "RESULTS.md"))
        if not args.readme:  # the repository's pages, rewritten from every device's results
            left_out = sorted(set(committed_csvs()) - {os.path.abspath(path) for path in args.csv})
            if left_out:
                parser.error("--regenerate rewrites every page from every device's results, and %s is left out: "
                             "give it too, or no CSV (every docs/results/*/sweep.csv)" % os.path.relpath(left_out[0]))
            args.readme = repository_pages(args.results)
        for page in args.readme + [args.results]:
            if not os.path.isfile(page):
                refuse("%s: no such page" % page)
    elif not args.csv:
        parser.error("give your sweep's CSV (scripts/sweep.py writes build/sweep.csv), or --regenerate, or "
                     "--bank-maps FOLDER")
    else:
        args.out = args.out or os.path.join(TOP, "build", "plots")
        if os.path.exists(args.out) and not os.path.isdir(args.out):
            refuse("--out %s: not a folder" % args.out)

    if rerun and not args.check and pyplot() is None:  # the README's command, under a pyenv python3
        other = other_python_with_matplotlib()
        if other:
            print("plot.py: %s has no matplotlib: running under %s, which has" % (sys.executable, other), flush=True)
            os.execve(other, [other, os.path.abspath(__file__)] + argv, dict(os.environ, PLOT_PY_RERUN="1"))

    if args.bank_maps:
        return bank_maps(args.bank_maps, args.csv, args.force)
    devices = sorted((load(path) for path in args.csv), key=lambda d: d["name"])  # the same pages in any order
    if not args.regenerate:
        return own_run(devices, args.out, args.force)

    pages = {path: open(path, encoding="utf-8").read() for path in args.readme + [args.results]}
    markers = {path: re.findall(r"^<!-- ((?:results|banks|run|mutants)(?::[\w,.-]+)?):begin -->$", text, re.M)
               for path, text in pages.items()}
    missing = [path for path, names in markers.items()
               if not names or any(between(pages[path], name, "") is None for name in names)]
    if missing:
        print("plot.py: no pair of <!-- NAME:begin --> / <!-- NAME:end --> lines (NAME: results, results:..., "
              "banks..., mutants) in %s: nothing written" % ", ".join(missing), file=sys.stderr)
        return 3
    stale, drawn = draw(devices, check=args.check)
    rewritten = {}
    for path, text in pages.items():
        new = text
        for name in markers[path]:
            new = between(new, name, marker_body(name, devices, path, args.results))
        if new != text:
            rewritten[path] = new
    if args.check:
        changed = sorted(rewritten) + [os.path.relpath(path) for path in stale]
        if changed:
            print("plot.py: regenerating would change %s" % ", ".join(changed))
            return 1
        print("plot.py: %d pages and %d plots are what %d device(s)' results give" % (
            len(pages), sum(1 for d in devices for _ in plot_jobs(d)), len(devices)))
        return 0
    for path, text in rewritten.items():
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(text)
    kept = sum(1 for d in devices for _ in plot_jobs(d)) - len(stale)
    print("plot.py: %d device(s): %s rewritten, %d of %d pages unchanged; %d plot(s) drawn, %d kept (drawn from "
          "the same data)" % (len(devices), ", ".join(sorted(rewritten)) or "no page", len(pages) - len(rewritten),
                              len(pages), len(drawn), kept))
    return 0


def own_run(devices, out, force):
    """Your own sweep's plots, a folder per device, and RESULTS.md with every table, into OUT; files already
    there are replaced only with force."""
    taken = set()
    for device in devices:
        device["plots"] = os.path.join(out, slug(device["name"], taken))
    page = os.path.join(out, "RESULTS.md")
    there = [path for path in [page] + [job[0] for d in devices for job in plot_jobs(d)] if os.path.exists(path)]
    if there and not force:
        refuse("%s already there%s: --force replaces %s; nothing written" % (
            os.path.relpath(there[0]), " (and %d more)" % (len(there) - 1) if len(there) > 1 else "",
            "them" if len(there) > 1 else "it"))
    for path in there:
        os.remove(path)
    os.makedirs(out, exist_ok=True)
    _, drawn = draw(devices)
    text = "# Results\n\nFrom %s, by scripts/plot.py.\n\n%s\n\n%s\n" % (
        ", ".join(link(d["csv"], page) for d in devices), summary_body(devices), body(devices, page, True).rstrip("\n"))
    with open(page, "w", encoding="utf-8") as stream:
        stream.write(text)
    print("plot.py: %d device(s): %s and %d plot(s)" % (len(devices), os.path.relpath(page), len(drawn)))
    return 0


if __name__ == "__main__":
    sys.exit(main(rerun=True))
