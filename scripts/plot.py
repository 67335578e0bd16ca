#!/usr/bin/env python3
"""Draws the plots and the tables of the docs from the sweep CSVs (scripts/sweep.py), one per device.

    python3 scripts/plot.py --regenerate [--check]
        the repository's pages (between <!-- NAME:begin --> and <!-- NAME:end --> lines) and committed
        plots, from docs/results/DEVICE/ (sweep.csv, ctest.log, banks.txt, mutants.txt, examples.log);
        --check writes nothing and exits 1 naming what would change
    PROGRAM --bank-model | python3 scripts/plot.py --bank-maps docs/images/banks
        the bank pictures the model names (a row per pass, each lane in its bank)

NAME: results[:summary|:EXAMPLE], banks[:PROGRAM|:agreement], mutants[:CHAPTER], run:SLUG (a run of examples.log:
its command's words, paths cut to their last part, dashes dropped, joined by '-'). A picture's PNG holds a hash
of its data and drawing code: one whose hash matches is kept, so regenerating leaves git clean. Every page and
plot is also drawn in Chinese (PAGE.zh-CN.md, EXAMPLE_TYPE.zh-CN.png: Fan's terms) in WenQuanYi Micro Hei
($PLOT_CJK_FONT: another file of it), or skipped without it. Without matplotlib, tables are written and plots
skipped, saying so in one line (and how to install it).
Exit 0: done; 1: --check found changes; 2: a bad command line or input (one line, nothing written);
3: a page whose markers are not paired; 77: --bank-maps without matplotlib or the Chinese font.
"""
import argparse
import contextlib
import csv
import functools
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
import sys
import warnings

from results import BANK_MODEL, bank_model_row, number

TOP = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))  # the checkout

HEADLINE = {"dot": [2**26], "reduce": [10**8], "transpose": [4097**2, 8192**2, 10000**2]}  # n; others: every n
LIBRARY = {"cub", "cublas", "geam"}
REQUIRED = ["device", "record", "example", "kernel", "type", "n", "gbps", "status"]
NUMBERS = ["n", "bytes", "ms", "gbps", "pct_ceiling", "l2_mb"]
CEILING_FIELDS = {"device", "l2_mb", "record", "example", "name", "type", "n", "size", "gbps"}  # more: in its label
SUMMARY = re.compile(r"^\d+% tests passed(?:, \d+ tests? failed)? out of \d+")
LABEL = re.compile(r"^(\S+)\s+=\s+[\d.]+ sec\*proc \((\d+) tests?\)")
LISTED = re.compile(r"^\s*\d+ - (\S+) \(")
# The markers plot.py fills; other scripts fill others (readme_figures.py: tests, timings).
PLOT_MARKER = re.compile(r"^<!-- ((?:results|banks|run|mutants)(?::[\w,.-]+)?):begin -->$", re.M)
# The machine's path to the repository, which __FILE__ and the sanitizer print
# ("/work/main/.snap/common/book.h:162"): a lesson shows paths from the repository's root.
REPOSITORY_PATH = re.compile(r"(?<![\w.:/])/(?:[\w.+-]+/)+?(?=(?:common|build-gpu|ch\d\d_\w+)/)")

# The Chinese pages (PAGE.zh-CN.md) show Chinese pictures (PICTURE.zh-CN.png) and Chinese words in their
# generated blocks, in the terms of Fan's book (docs/GLOSSARY.zh-CN.md); the figures are the same.
CHINESE = "zh-CN"
LANGUAGES = ("en", CHINESE)
# What the pictures say. Part of each picture's key: a word changed here redraws that language's pictures.
PICTURE_WORDS = {
    "en": {"title": "{example}, {type} on {device}", "x": "n (elements)", "y": "GB/s (1e9 bytes/s)",
           "l2": "fits in L2 ({mb:g} MB)", "library": " (library)", "partials": " (kernel only)",
           "cold": "--cold-l2 (L2 flushed first)", "ceiling": "ceiling: {name}",
           "floor": "launch floor: every n in {us:.1f} µs",
           "bank_title": "{kernel}: {access}, {width} byte{s} a lane: {passes} pass{es}",
           "bank_x": "bank (numbers in the cells: the lanes served there)", "bank_y": "pass"},
    CHINESE: {"title": "{device} 上的 {example}（{type}）", "x": "n（元素个数）", "y": "GB/s（1 GB = 10^9 字节）",
              "l2": "数据能放进 L2（{mb:g} MB）", "library": "（库函数）", "partials": "（只含核函数）",
              "cold": "--cold-l2（先清空 L2）", "ceiling": "上限：{name}",
              "floor": "启动下限：每个 n 都用 {us:.1f} µs",
              "bank_title": "{kernel}：{access}，每个线程 {width} 字节，{passes} 次内存事务",
              "bank_x": "bank（格子里的数是线程号）", "bank_y": "内存事务"},
}
# What the generated blocks of a page say, besides the figures (which are the same in both languages).
PAGE_WORDS = {
    "en": {"table": "| example | type | size | kernel | ms | GB/s | % of ceiling | status |",
           "summary": "| device | example | type | size | book's kernel | our best | library | best ÷ library |",
           "agreement": "| run | rows predicted | SASS count = prediction | hardware count = prediction | "
                        "largest hardware deviation |",
           "deviation": "%+.0f %% (%s)", "partials": " (kernel only)", "cold": " (cold L2)",
           "data": "Data: [sweep.csv](%s)", "tests": "; tests ([log](%s)): %s", "skipped": ", %d skipped",
           "list": " (%s)", "failed": "; failed: ", "labels": "; tests per label: ", "and": ", ",
           "banks_section": "### Shared-memory bank conflicts (Nsight Compute)", "banks_on": "**Bank conflicts on %s**"},
    CHINESE: {"table": "| 程序 | 类型 | 规模 | 核函数 | ms | GB/s | 占上限的百分比 | 状态 |",
              "summary": "| 设备 | 程序 | 类型 | 规模 | 书中的核函数 | 本仓库最快的 | 库函数 | 最快 ÷ 库函数 |",
              "agreement": "| 运行 | 有预测的行 | SASS 级计数 = 预测 | 硬件计数 = 预测 | 硬件计数的最大偏差 |",
              "deviation": "%+.0f %%（%s）", "partials": "（只含核函数）", "cold": "（先清空 L2）",
              "data": "数据：[sweep.csv](%s)", "tests": "；测试（[日志](%s)）：%s", "skipped": "，跳过 %d 个",
              "list": "（%s）", "failed": "；未通过：", "labels": "；各标签的测试数：", "and": "、",
              "banks_section": "### 共享内存的 bank 冲突（Nsight Compute）", "banks_on": "**%s 上的 bank 冲突**"},
}
# The fixed words of the tools' files that generated blocks quote (banks.txt from scripts/bank_conflicts.sh,
# mutants.txt from scripts/mutants.sh), on the Chinese pages: whole lines, a library kernel's label, and the
# cells of the tables' header rows. Commands, kernel names and figures stay as the tools wrote them.
TOOL_LINES_CHINESE = [
    (r"`(?P<command>.*)` under Nsight Compute:", "在 Nsight Compute 下运行 `{command}`："),
    (r"Every prediction equals the SASS count \(within 2 %\)\.", "每个预测都等于 SASS 级计数（相差不超过 2 %）。"),
    (r"Prediction and SASS count differ \(✗\) in (?P<rows>\d+) row\(s\):", "有 {rows} 行的预测与 SASS 级计数不同（✗）："),
    (r"- (?P<kernel>.*), (?P<op>loads|stores): predicted (?P<model>\S+), SASS-counted (?P<value>\S+)",
     "- {kernel}，{op}：预测 {model}，SASS 级计数 {value}"),
    (r"mutants: (?P<planted>\d+) planted, (?P<missed>\d+) not caught", "植入的错误：共 {planted} 个，{missed} 个未被发现"),
]
TOOL_WORDS_CHINESE = {"loads": "读", "stores": "写"}
HEADER_CHINESE = {"kernel": "核函数", "shared loads": "读指令数", "shared stores": "写指令数", "wavefronts": "硬件计数",
                  "per load": "每条读指令", "per store": "每条写指令", "SASS per load": "SASS 级每条读指令",
                  "SASS per store": "SASS 级每条写指令", "predicted": "预测", "conflicts (ld)": "冲突（读）",
                  "conflicts (st)": "冲突（写）", "chapter": "章", "mutant": "植入的错误", "caught by": "发现它的测试",
                  "check exit": "检验的退出码"}
LIBRARY_KERNEL = re.compile(r" \((\w+)’s own kernel\)")  # bank_conflicts.sh's label of a library's kernel
# The accesses a bank model names a picture for, in Chinese: (English, as --bank-model prints it; Chinese).
# An access none of them matches stops --bank-maps, naming it: add its rule here.
VERB, NOUN = {"read": "读", "write": "写"}, {"read": "读取", "write": "写入"}
ACCESS_CHINESE = [
    (r"(?P<name>offset|s) (?P<value>\d+): (?P<access>.+) (?P<verb>read|write)", "{name} 为 {value}：{verb} {access}"),
    (r"(?P<access>\S+) (?P<verb>read|write) \(the block's elements\)", "{verb} {access}（线程块的各元素）"),
    (r"(?P<bytes>\d+)-byte piece (?P<verb>read|write)", "{verb} {bytes} 字节的一块"),
    (r"(?P<bytes>\d+)-byte (?P<verb>read|write)", "{bytes} 字节的{noun}"),
    (r"tile column (?P<verb>read|write)", "按列{verb}分块"),
    (r"mirrored column (?P<verb>read|write)", "按列{verb}中心对称的位置"),
    (r"column (?P<verb>read|write)", "按列{verb}"),
    (r"(?P<access>\w+\[[^\]]*\])(?:, (?P<name>\w+) = (?P<value>\d+))?", "{access}{assignment}"),
    (r"(?P<access>\w+\[[^\]]*\] \+= \w+\[[^\]]*\])", "{access}"),  # a tree's step, as the kernel writes it
]
# The Chinese pictures' font: WenQuanYi Micro Hei, from Debian's and Ubuntu's fonts-wqy-microhei (5 MB,
# which scripts/install_deps.sh installs). Its first face is the one matplotlib reads from the .ttc;
# Noto Sans CJK's first is the Japanese, whose forms of some characters are not the Chinese ones.
CJK_FONT, CJK_FONT_FILE = "WenQuanYi Micro Hei", "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
NO_CJK_FONT = "no %s for the Chinese pictures (Debian and Ubuntu: apt-get install fonts-wqy-microhei, which " \
    "scripts/install_deps.sh does)" % CJK_FONT


def refuse(message, program="plot.py"):
    """A command line or an input that cannot be used: one line, exit 2, nothing written."""
    print("%s: %s" % (program, message), file=sys.stderr)
    sys.exit(2)


def reject(path, line, problem):
    """A bad line of an input: refuse's line, naming the file and the line."""
    refuse(problem, "%s:%d" % (path, line))


def problem(row, first):
    """What is wrong with one CSV row (None if nothing): a figure in the docs never comes from a bad row."""
    if first and row["device"] != first["device"]:
        return "a second device '%s': one CSV per device" % row["device"]
    bad = [key for key in NUMBERS if row.get(key, "") not in ("", "-") and number(row[key]) is None]
    if bad:
        return "%s '%s' is not a number" % (bad[0], row[bad[0]])
    if row["record"] == "CEILING":
        return None if number(row["gbps"]) is not None else "a CEILING row without gbps"
    if row["record"] != "RESULT":
        return "record '%s' is neither RESULT nor CEILING" % row["record"]
    if row["status"] not in ("PASS", "FAIL", "ERROR"):
        return "status '%s' is not PASS, FAIL or ERROR" % row["status"]
    return None if row["status"] == "ERROR" or row["n"].isdigit() else "n '%s' is not a whole number" % row["n"]


def read_csv(path):
    """The rows of one device's sweep CSV, every line checked."""
    with open(path, "rb") as stream:
        data = stream.read()
    try:
        reader = csv.reader(io.StringIO(data.decode("utf-8"), newline=""))
    except UnicodeDecodeError as e:
        reject(path, data[:e.start].count(b"\n") + 1, "not UTF-8 text at byte %d: not a CSV" % e.start)
    header, rows = next(reader, []), []
    missing = [column for column in REQUIRED if column not in header]
    if missing:
        reject(path, 1, "no column %s: not a scripts/sweep.py CSV" % ", ".join(missing))
    for fields in filter(None, reader):
        if len(fields) != len(header):
            reject(path, reader.line_num, "%d fields where the header has %d" % (len(fields), len(header)))
        rows.append(dict(zip(header, fields)))
        why = problem(rows[-1], rows[0] if len(rows) > 1 else None)
        if why:
            reject(path, reader.line_num, why)
    if not rows:
        reject(path, 1, "no data rows")
    return rows


def read_ctest(path):
    """A test run: ctest's summary line, the skipped and failed tests (`name`), the tests per label ('gpu 30')."""
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
    return dict(lists, summary=summary, labels=labels)


def ctest_text(ctest, language="en"):
    """read_ctest's findings as one line in LANGUAGE."""
    words, skipped, failed, labels = PAGE_WORDS[language], ctest["skipped"], ctest["failed"], ctest["labels"]
    text = "`%s`" % ctest["summary"] + words["skipped"] % len(skipped)
    text += words["list"] % words["and"].join(skipped) if 0 < len(skipped) < 10 else ""  # a GPU-less run skips most
    text += words["failed"] + words["and"].join(failed) if failed else ""
    return text + (words["labels"] + words["and"].join(labels) if labels else "")


def read_text(path):
    """A text file, "" where there is none."""
    with open(path, encoding="utf-8") if os.path.exists(path) else io.StringIO() as stream:
        return stream.read()


def read_examples(path):
    """examples.log's runs: '=== PROGRAM ARGS' -> its output (up to '=== exit N'), paths from the repository."""
    runs, current = {}, None
    for line in read_text(path).splitlines():
        if line.startswith("=== exit"):
            current = None
        elif line.startswith("=== "):
            current = runs.setdefault(line[4:].strip(), [])
        elif current is not None:
            current.append(REPOSITORY_PATH.sub("", line).replace("build-gpu/./", "build-gpu/"))
    return runs


def load(path):
    """A device: its rows, name, L2 size and, from the CSV's folder, its tests, bank tables, mutants and runs."""
    rows, folder = read_csv(path), os.path.dirname(path) or "."
    ctest = os.path.join(folder, "ctest.log")
    mutants = [line.rstrip() for line in read_text(os.path.join(folder, "mutants.txt")).splitlines()]
    return {"csv": path, "plots": folder, "rows": rows, "name": rows[0]["device"],
            "l2_mb": number(rows[0].get("l2_mb", "")), "ctest_path": ctest,
            "ctest": read_ctest(ctest) if os.path.exists(ctest) else None,
            "banks": read_text(os.path.join(folder, "banks.txt")).strip() or None,
            "mutants": "\n".join(line for line in mutants if line.startswith(("|", "mutants:"))) or None,
            "examples": read_examples(os.path.join(folder, "examples.log"))}


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


def plot(plt, device, example, type_name, results, ceilings, path, key, language="en"):
    """GB/s against n: a line per kernel (the library bold), each ceiling dashed, the sizes that fit in L2
    shaded, and the launch floor dotted, its words in LANGUAGE. Written to PATH with KEY (what it was drawn
    from) in its PNG text, no matplotlib version there, 1000 x 500 pixels, its ticks chosen here: the same
    data, the same picture in any matplotlib but for the rendering of lines and letters."""
    words = PICTURE_WORDS[language]
    figure, axes = plt.subplots(figsize=(10, 5))
    # Bytes moved per element, from GB/s x time: where n elements outgrow the L2, whatever the example.
    moved = [float(r["gbps"]) * float(r["ms"]) * 1e6 / int(r["n"]) for r in results if number(r.get("ms", ""))]
    if device["l2_mb"] and moved:
        axes.axvspan(min(int(r["n"]) for r in results), device["l2_mb"] * 1e6 / statistics.median(moved),
                     color="tab:blue", alpha=0.12, label=words["l2"].format(mb=device["l2_mb"]))
    cold = [r for r in results if r.get("l2") == "cold"]  # --cold-l2 runs: a cross beside the warm line
    for index, kernel in enumerate(dict.fromkeys(r["kernel"] for r in results)):
        points = sorted((int(r["n"]), float(r["gbps"])) for r in results if r["kernel"] == kernel and r not in cold)
        library, partials = kernel in LIBRARY, any(r.get("scope") == "partials" for r in results if r["kernel"] == kernel)
        # Ten colours: from the eleventh kernel on, a colour comes back, dashed and with square markers.
        again = index >= 10 and not library
        line, = axes.plot(*zip(*points), marker="s" if again else "o", linestyle="--" if again else "-",
                          markersize=4 if again else 3, linewidth=3 if library else 1.3,
                          color="black" if library else "C%d" % (index % 10),
                          label=kernel + (words["library"] if library else words["partials"] if partials else ""))
        crosses = [(int(r["n"]), float(r["gbps"])) for r in cold if r["kernel"] == kernel]
        if crosses:
            axes.plot(*zip(*crosses), linestyle="none", marker="x", markersize=6, color=line.get_color())
    if cold:
        axes.plot([], [], linestyle="none", marker="x", color="gray", label=words["cold"])
    def ceiling(row):  # its name and any further field (l2=cold, ...)
        return " ".join([row["name"]] + ["%s=%s" % kv for kv in row.items() if kv[0] not in CEILING_FIELDS and kv[1]])
    for index, name in enumerate(dict.fromkeys(map(ceiling, ceilings))):
        points = sorted((int(r["n"]), float(r["gbps"])) for r in ceilings if ceiling(r) == name)
        axes.plot(*zip(*points), linestyle=("--", ":", "-.")[index % 3], color="gray",
                  label=words["ceiling"].format(name=name))
    floor_ms, per_element = launch_floor([r for r in results if r not in cold])
    if floor_ms:
        sizes = sorted({int(r["n"]) for r in results})
        axes.plot(sizes, [per_element * n / (floor_ms * 1e-3) / 1e9 for n in sizes], linestyle=":", linewidth=1,
                  color="tab:red", label=words["floor"].format(us=floor_ms * 1e3))
        axes.set_ylim(bottom=0, top=1.15 * max(float(r["gbps"]) for r in results + ceilings))
    axes.set(xlabel=words["x"], ylabel=words["y"],
             title=words["title"].format(example=example, type=type_name, device=device["name"]))
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


@functools.lru_cache(maxsize=None)
def cjk_font():
    """The file of the Chinese pictures' font ($PLOT_CJK_FONT, else Debian's), read to be CJK_FONT and added to
    matplotlib's fonts (once a process); or None."""
    from matplotlib import font_manager, ft2font
    path = os.environ.get("PLOT_CJK_FONT") or CJK_FONT_FILE
    try:
        if ft2font.FT2Font(path).family_name != CJK_FONT:
            return None
    except (OSError, RuntimeError, ValueError):  # no such file, or not a font
        return None
    font_manager.fontManager.addfont(path)
    return path


@contextlib.contextmanager
def lettering(plt, language):
    """Drawing in LANGUAGE: Chinese in CJK_FONT (cjk_font adds it), which must hold every letter drawn (a missing
    one is an error)."""
    if language == "en":
        yield
        return
    with plt.rc_context({"font.family": [CJK_FONT]}), warnings.catch_warnings():
        warnings.filterwarnings("error", message=r"Glyph .* missing from")
        yield


def drawing_key(parts, function):
    """A picture's key for its PNG text: a hash of PARTS (its data) and of FUNCTION's source (the drawing)."""
    text = json.dumps(parts, sort_keys=True) + DRAWING_CODE[function]
    return "scripts/plot.py sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def png_source(path):
    """The Source text (tEXt) of a PNG file, its drawing_key; None for a missing file or one without it."""
    try:
        with open(path, "rb") as stream:
            data = stream.read()
    except OSError:
        return None
    at = data.find(b"tEXtSource\0")  # the chunk's length, its type, then "Source\0" and the text
    return data[at + 11:at + 4 + struct.unpack(">I", data[at - 4:at])[0]].decode("latin-1") if at >= 4 else None


def image(device, example, type_name, language="en"):
    """A plot's file: EXAMPLE_TYPE.png, the Chinese one EXAMPLE_TYPE.zh-CN.png."""
    return os.path.join(device["plots"], "%s_%s%s.png" % (example, type_name, "" if language == "en" else "." + language))


def plot_jobs(device):
    """(path, key, arguments of plot) of every plot of a device, in each language."""
    for (example, type_name), (results, ceilings) in groups(device).items():
        if len({r["n"] for r in results}) > 1:  # the ceilings of the cold runs repeat the warm ones
            ceilings = [c for c in ceilings if c.get("l2") != "cold"]
            for language in LANGUAGES:
                key = drawing_key([device["name"], device["l2_mb"], example, type_name, results, ceilings,
                                   PICTURE_WORDS[language]], "plot")
                path = image(device, example, type_name, language)
                yield path, key, (device, example, type_name, results, ceilings, path, key, language)


def draw(devices, check=False):
    """Every plot whose PNG does not hold its key, drawn. Returns (stale, drawn): those plots, and those drawn
    (none with check, without matplotlib, or, for the Chinese plots, without the font: a line says so)."""
    stale = [job for device in devices for job in plot_jobs(device) if png_source(job[0]) != job[1]]
    plt = pyplot() if stale and not check else None
    if stale and not check and plt is None:
        print("plot.py: no module named matplotlib for %s: plots skipped, tables written (bash scripts/install_deps.sh"
              " or apt install python3-matplotlib, then /usr/bin/python3 scripts/plot.py)" % sys.executable, file=sys.stderr)
    font = cjk_font() if plt and any(job[2][-1] != "en" for job in stale) else None
    drawn = []
    for path, _, arguments in stale if plt else []:
        if arguments[-1] == "en" or font:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            with lettering(plt, arguments[-1]):
                plot(plt, *arguments)
            drawn.append(path)
    if plt and len(drawn) < len(stale):
        print("plot.py: %s: %d Chinese plot(s) not drawn" % (NO_CJK_FONT, len(stale) - len(drawn)), file=sys.stderr)
    return [job[0] for job in stale], drawn


def size_label(row):
    """8192² for a square matrix, 2^26 for a power of two, 1e8 for a power of ten, else n itself."""
    sides = row.get("size", "").split("x")
    if len(sides) == 2:
        return sides[0] + "²" if sides[0] == sides[1] else "%s×%s" % tuple(sides)
    n = int(row["n"]) if row["n"].isdigit() else 0
    if n >= 1024 and n & (n - 1) == 0:
        return "2^%d" % (n.bit_length() - 1)
    return "1e%d" % (len(row["n"]) - 1) if n >= 10**6 and row["n"].rstrip("0") == "1" else row["n"]


def marks(row, language="en"):
    """Beside a kernel's figure: the books' kernels time the kernel alone (the CPU adds their partials), and a
    --cold-l2 run flushed the L2 first."""
    words = PAGE_WORDS[language]
    return (words["partials"] if row.get("scope") == "partials" else "") + \
        (words["cold"] if row.get("l2") == "cold" else "")


def table(device, language="en"):
    """The headline sizes' rows, plus every row that did not pass, whatever its size."""
    lines = [PAGE_WORDS[language]["table"], "| --- | --- | --- | --- | ---: | ---: | ---: | --- |"]
    for row in device["rows"]:
        sizes = HEADLINE.get(row["example"])
        shown = row["status"] != "PASS" or not sizes or row["n"].isdigit() and int(row["n"]) in sizes
        if row["record"] == "RESULT" and shown:
            kernel = "**%s**" % row["kernel"] if row["kernel"] in LIBRARY else row["kernel"] + marks(row, language)
            named = row.get("ceiling", "-") not in ("", "-")
            percent = (row.get("pct_ceiling") or "–") + (" (%s)" % row["ceiling"] if named else "")
            lines.append("| %s |" % " | ".join([row["example"], row["type"], size_label(row), kernel,
                                                row.get("ms") or "–", row["gbps"] or "–", percent, row["status"]]))
    return lines


def body(devices, page, language, full):
    """Per device: its tests and headline table; FULL (the results page): its plots and bank tables too."""
    lines = []
    link = lambda path, page: os.path.relpath(path, os.path.dirname(os.path.abspath(page)) or ".")  # noqa: E731
    words, alt = PAGE_WORDS[language], PICTURE_WORDS[language]["title"]
    for device in devices:
        tests = words["tests"] % (link(device["ctest_path"], page), ctest_text(device["ctest"], language)) \
            if device["ctest"] else ""
        lines += ["## " + device["name"] if full else "**%s**" % device["name"], "",
                  words["data"] % link(device["csv"], page) + tests, ""]
        lines += table(device, language) + [""]
        images = [(key, image(device, *key, language)) for key in groups(device)] if full else []
        lines += ["![%s](%s)" % (alt.format(example=key[0], type=key[1], device=device["name"]), link(path, page))
                  for key, path in images if os.path.exists(path)]
        if full and device["banks"]:
            lines += ["", words["banks_section"], "", tool_text(device["banks"], language), ""]
    return "\n".join(lines)


def agrees(measured, predicted):
    """A measured count of passes equals the prediction: within 2 % and half the last printed digit (the one
    tolerance of bank_conflicts.sh's ✗ marks and of banks:agreement)."""
    return abs(measured - predicted) <= 0.02 * predicted + 0.005


def banks_agreement_body(devices, language="en"):
    """Per device and Nsight run, loads and stores as separate rows: how many have a prediction, how many the
    SASS-level and the hardware count equal, the hardware count's largest deviation."""
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
                if not columns or len(cells) != len(columns) or not cells[1].isdigit():
                    continue  # not a kernel's row (the header, a rule, prose)
                bounds = [columns.index("shared loads"), columns.index("shared stores"), len(columns)]
                for access, begin, end in (("load", bounds[0], bounds[1]), ("store", bounds[1], bounds[2])):
                    value = dict(zip(columns[begin:end], cells[begin:end]))  # this op's half of the row
                    accesses = int(value["shared %ss" % access])
                    model = number(value["predicted"].split(" ")[0])  # '2.00 ✗': the SASS count disagrees
                    if accesses == 0 or not model:
                        continue
                    hardware = int(value["wavefronts"]) / accesses
                    sass = number(value["SASS per %s" % access])
                    predicted += 1
                    sass_equal += bool(sass) and agrees(sass, model)
                    hardware_equal += agrees(hardware, model)
                    deviation = hardware / model - 1
                    if not agrees(hardware, model) and (worst is None or abs(deviation) > abs(worst[0])):
                        worst = (deviation, cells[0].split(" (")[0])
            if command and predicted:
                rows.append("| %s | %d | %d | %d | %s |" % (
                    command.group(1), predicted, sass_equal, hardware_equal,
                    PAGE_WORDS[language]["deviation"] % (100 * worst[0], worst[1].replace("|", "\\|"))
                    if worst else "–"))
        if rows:
            lines += ["**%s**" % device["name"], "", PAGE_WORDS[language]["agreement"],
                      "| --- | ---: | ---: | ---: | --- |"] + rows + [""]
    return "\n".join(lines)


def summary_body(devices, language="en"):
    """Per device, example, type and headline size: the book's kernel, our fastest and the library (% of the
    ceiling), and our fastest over the library."""
    lines = [PAGE_WORDS[language]["summary"], "| --- | --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for device in devices:
        cases = {}
        for row in device["rows"]:
            if row["record"] == "RESULT" and row["status"] == "PASS" and number(row["gbps"]) and \
                    row["n"].isdigit() and int(row["n"]) in HEADLINE.get(row["example"], []) and row.get("l2") != "cold":
                cases.setdefault((row["example"], row["type"], size_label(row)), []).append(row)
        for (example, type_name, size), rows in cases.items():
            library = [r for r in rows if r["kernel"] in LIBRARY][:1]
            ours = [r for r in rows if r["kernel"] not in LIBRARY and r["kernel"] != "copy"]  # copy: a reference row
            book = [r for r in ours if r.get("scope") == "partials" or r["kernel"] in ("book", "static", "shared")][:1]
            best = [max(ours, key=lambda r: number(r["gbps"]))] if ours else []
            cell = lambda r: "%s%s %s %%" % (r[0]["kernel"], marks(r[0], language), r[0].get("pct_ceiling") or "–") \
                if r else "–"
            ratio = "%.2f" % (number(best[0]["gbps"]) / number(library[0]["gbps"])) if best and library else "–"
            lines.append("| %s |" % " | ".join([device["name"], example, type_name, size, cell(book), cell(best),
                                                cell(library), ratio]))
    return "\n".join(lines)


def tool_text(text, language):
    """A tool's file (banks.txt, mutants.txt) on a page in LANGUAGE: its fixed words in Chinese there."""
    if language == "en":
        return text
    lines = text.split("\n")
    for index, line in enumerate(lines):
        for pattern, chinese in TOOL_LINES_CHINESE:
            found = re.fullmatch(pattern, line)
            if found:
                line = chinese.format(**{key: TOOL_WORDS_CHINESE.get(value, value)
                                         for key, value in found.groupdict().items()})
                break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if line.startswith("| ") and index + 1 < len(lines) and lines[index + 1].startswith("| ---") and \
                all(cell in HEADER_CHINESE for cell in cells):  # a table's header row
            line = "| %s |" % " | ".join(HEADER_CHINESE[cell] for cell in cells)
        lines[index] = LIBRARY_KERNEL.sub(r"（\1 自己的核函数）", line)
    return "\n".join(lines)


def marker_body(name, devices, path):
    """What goes between NAME's markers in the page at PATH, in its language."""
    kind, _, which = name.partition(":")
    language = CHINESE if path.endswith(".%s.md" % CHINESE) else "en"  # PAGE.zh-CN.md is Chinese
    if kind == "results" and which == "summary":
        return summary_body(devices, language)
    if kind == "results" and which:
        return body([dict(d, rows=[r for r in d["rows"] if r["example"] == which]) for d in devices], path, language, False)
    if kind == "results":  # the results page, in either language, gets the full sections
        return body(devices, path, language, os.path.basename(path).startswith("RESULTS"))
    if kind == "banks" and which == "agreement":
        return banks_agreement_body(devices, language)
    if kind == "banks":  # every device's bank tables; banks:PROGRAM, its sections (each opens quoting its command)
        chosen = [(d, [s for s in re.split(r"\n(?=`)", d["banks"] or "") if not which or re.match(
            r"`\S*/%s[ `]" % re.escape(which), s)]) for d in devices]
        return "\n".join(PAGE_WORDS[language]["banks_on"] % d["name"] + "\n\n%s\n" % tool_text("\n".join(sections), language)
                         for d, sections in chosen if sections)
    if kind == "mutants":  # every device's mutant table; mutants:CHAPTER, that chapter's rows only
        keep = lambda line: not which or line.startswith(("| chapter", "| ---", "| %s |" % which))  # noqa: E731
        return "\n".join("**%s**\n\n%s\n" % (d["name"], tool_text("\n".join(filter(keep, d["mutants"].split("\n"))),
                                                                    language)) for d in devices if d["mutants"])
    slug = lambda command: "-".join(word.split("/")[-1].lstrip("-") for word in command.split())  # noqa: E731
    runs = [(command, lines) for d in devices for command, lines in d["examples"].items() if slug(command) == which]
    if not runs:  # run:SLUG (the module's docstring), the first device's run of that command
        return ""
    shown = re.sub(r"(?<![\w/])(ch\d\d_\w+/)", r"build/\1", runs[0][0])  # as typed from the top
    return "```\n$ %s\n%s\n```" % (shown, "\n".join(runs[0][1]))


def between(text, name, body):
    """TEXT with the lines between NAME's markers replaced by BODY; None unless each is alone on a line, once,
    begin before end (a marker quoted inside prose does not count)."""
    lines = text.split("\n")
    begin = [i for i, line in enumerate(lines) if line.strip() == "<!-- %s:begin -->" % name]
    end = [i for i, line in enumerate(lines) if line.strip() == "<!-- %s:end -->" % name]
    if len(begin) != 1 or len(end) != 1 or begin[0] > end[0]:
        return None
    return "\n".join(lines[:begin[0] + 1] + [body.rstrip("\n")] + lines[end[0]:])


def read_bank_model(stream, source):
    """--bank-model's lines that name a picture: (picture, kernel, access, bytes, passes, 32 lanes (address, pass))."""
    pictures = []
    for number, line in enumerate(stream, 1):
        try:
            row = bank_model_row(line)
            if not row:
                continue
            lanes = [None if lane == "-" else tuple(map(int, lane.split(":"))) for lane in row["lanes"].split(",")]
            if len(lanes) != 32 or row["op"] not in ("ld", "st") or int(row["bytes"]) not in (1, 2, 4, 8, 16):
                raise ValueError
        except ValueError:
            reject(source, number, "not a bank model line (%s, 32 lanes)" % ", ".join(BANK_MODEL[:-1]))
        if row["picture"] != "-":
            if not re.match(r"^[a-z0-9_]+$", row["picture"]):
                reject(source, number, "picture name '%s': use [a-z0-9_]" % row["picture"])
            pictures.append((row["picture"], row["kernel"], row["access"], int(row["bytes"]), int(row["passes"]),
                             lanes))
    return pictures


def chinese_access(access):
    """An access as --bank-model names it, in Chinese ('(16 lanes)': '（16 个线程）'); None where no rule matches."""
    lanes = re.fullmatch(r"(?P<access>.+) \((?P<lanes>\d+) lanes?\)", access)
    if lanes:
        base = chinese_access(lanes.group("access"))
        return base and "%s（%s 个线程）" % (base, lanes.group("lanes"))
    for pattern, chinese in ACCESS_CHINESE:
        found = re.fullmatch(pattern, access)
        if found:
            parts = {name: value or "" for name, value in found.groupdict().items()}
            verb = parts.get("verb", "")
            assignment = "，%s = %s" % (parts["name"], parts["value"]) if parts.get("name") else ""
            return chinese.format(**dict(parts, verb=VERB.get(verb, ""), noun=NOUN.get(verb, ""),
                                         assignment=assignment))
    return None


def draw_bank_map(plt, picture, kernel, access, width, passes, lanes, key, language="en"):
    """One warp's shared-memory access: the 32 banks across, one row per pass, each lane drawn in
    the banks its bytes touch, on the row of the pass that serves it, coloured by that pass; its words
    in LANGUAGE (ACCESS already in it). Returns the PNG's bytes, KEY in its text."""
    words = PICTURE_WORDS[language]
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
    axes.set_xlabel(words["bank_x"])
    axes.set_ylabel(words["bank_y"])
    axes.set_title(words["bank_title"].format(kernel=kernel, access=access, width=width, s="s" if width > 1 else "",
                                              passes=passes, es="es" if passes != 1 else ""), fontsize=9)
    figure.tight_layout()
    png = io.BytesIO()
    figure.savefig(png, format="png", dpi=100, metadata={"Software": None, "Source": key})
    plt.close(figure)
    return png.getvalue()


def bank_maps(folder, sources):
    """The pictures the --bank-model outputs (files, - for stdin) name, PICTURE.png and .zh-CN.png; kept by key."""
    pictures = []
    for source in sources or ["-"]:
        with open(source, encoding="utf-8") if source != "-" else contextlib.nullcontext(sys.stdin) as stream:
            pictures += read_bank_model(stream, source if source != "-" else "<stdin>")
    names = [p[0] for p in pictures]
    twice = sorted({name for name in names if names.count(name) > 1})
    untranslated = sorted({p[2] for p in pictures if chinese_access(p[2]) is None})
    if twice or untranslated:
        refuse(("picture names given twice: %s" % ", ".join(twice) if twice else "no Chinese for the access%s '%s': add "
                "a rule to ACCESS_CHINESE in scripts/plot.py" % ("es" if len(untranslated) > 1 else "",
                                                                 "', '".join(untranslated))) + "; nothing drawn")
    plt = pyplot()
    font = plt and pictures and cjk_font()
    if not plt or pictures and not font:
        print("plot.py: %s: nothing drawn" % (NO_CJK_FONT if plt else "--bank-maps draws pictures, and %s has no "
              "module named matplotlib (bash scripts/install_deps.sh or apt install python3-matplotlib)" % sys.executable), file=sys.stderr)
        return 77
    drawn = 0
    for (name, kernel, access, width, passes, lanes), language in ((p, l) for p in pictures for l in LANGUAGES):
        path = os.path.join(folder, name + (".png" if language == "en" else ".%s.png" % language))
        picture = (name, kernel, access if language == "en" else chinese_access(access), width, passes, lanes)
        key = drawing_key(list(picture) + [PICTURE_WORDS[language]], "draw_bank_map")
        if png_source(path) != key:
            with lettering(plt, language):
                png = draw_bank_map(plt, *picture, key, language)
            os.makedirs(folder, exist_ok=True)
            with open(path, "wb") as stream:
                stream.write(png)
            drawn += 1
    print("plot.py: %d bank map(s) drawn into %s, %d kept (drawn from the same model)" % (
        drawn, folder, 2 * len(pictures) - drawn))
    return 0


DRAWING_CODE = {function.__name__: inspect.getsource(function) for function in (plot, draw_bank_map)}


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad command line gets one line on stderr, 'PROG: problem (--help lists the options)',
    and exit 2, as the programs' do (sweep.py uses it too)."""

    def error(self, message):
        print("%s: %s (--help lists the options)" % (self.prog, message), file=sys.stderr)
        sys.exit(2)


def main(argv=None):
    parser = OneLineParser(prog="plot.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", help="with --bank-maps: --bank-model outputs (default: stdin)")
    jobs = parser.add_mutually_exclusive_group(required=True)
    jobs.add_argument("--regenerate", action="store_true", help="rewrite the repository's pages between their "
                      "markers and its committed plots, from every docs/results/*/sweep.csv")
    jobs.add_argument("--bank-maps", metavar="FOLDER", help="draw the bank pictures a program's --bank-model "
                      "output names, into FOLDER")
    parser.add_argument("--check", action="store_true", help="with --regenerate: write nothing, and exit 1 naming "
                        "each file regenerating would change")
    args = parser.parse_args(argv)
    # Every option checked before anything is read or drawn.
    if args.check and not args.regenerate:
        parser.error("--check goes with --regenerate (it is about the repository's pages)")
    if args.regenerate and args.models:
        parser.error("--regenerate rewrites every page from every device's docs/results/*/sweep.csv: give no file")
    csvs = sorted(glob.glob(os.path.join(TOP, "docs", "results", "*", "sweep.csv"))) if args.regenerate else args.models
    for path in (path for path in csvs if path != "-"):
        if not os.path.isfile(path):
            refuse("%s: %s" % (path, "a folder, not a file" if os.path.isdir(path) else "no such file"))
    if args.bank_maps and os.path.exists(args.bank_maps) and not os.path.isdir(args.bank_maps):
        refuse("--bank-maps %s: not a folder" % args.bank_maps)
    if args.bank_maps:
        return bank_maps(args.bank_maps, args.models)
    return regenerate(sorted((load(path) for path in csvs), key=lambda d: d["name"]), args.check)  # any order


def regenerate(devices, check):
    """The repository's pages and plots from every device's results; with CHECK, only what would change."""
    found = [p for pattern in ("README*.md", "ch*/README*.md", "docs/*.md") for p in glob.glob(os.path.join(TOP, pattern))]
    pages = {os.path.relpath(p): read_text(p) for p in sorted(found) if PLOT_MARKER.search(read_text(p))}  # lessons
    markers = {path: PLOT_MARKER.findall(text) for path, text in pages.items()}
    unpaired = [path for path, names in markers.items() if any(between(pages[path], n, "") is None for n in names)]
    if unpaired:
        print("plot.py: a <!-- NAME:begin --> line without its one <!-- NAME:end --> line after it in %s: nothing "
              "written" % ", ".join(unpaired), file=sys.stderr)
        return 3
    stale, drawn = draw(devices, check)
    rewritten = {}
    for path, text in pages.items():
        new = text
        for name in markers[path]:
            new = between(new, name, marker_body(name, devices, path))
        if new != text:
            rewritten[path] = new
    plots = sum(1 for d in devices for _ in plot_jobs(d))
    if check:
        changed = sorted(rewritten) + [os.path.relpath(path) for path in stale]
        print("plot.py: regenerating would change %s" % ", ".join(changed) if changed else
              "plot.py: %d pages and %d plots are what %d device(s)' results give" % (len(pages), plots, len(devices)))
        return 1 if changed else 0
    for path, text in rewritten.items():
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(text)
    print("plot.py: %d device(s): %s rewritten, %d of %d pages unchanged; %d plot(s) drawn, %d kept (drawn from "
          "the same data)" % (len(devices), ", ".join(sorted(rewritten)) or "no page", len(pages) - len(rewritten),
                              len(pages), len(drawn), plots - len(stale)))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except OSError as e:  # a folder it cannot make, a file it cannot write: one line
        refuse("%s: %s" % (e.filename, e.strerror) if e.filename else str(e))
    except UnicodeDecodeError as e:  # --bank-maps reading a binary stdin, a binary banks.txt
        refuse("an input is not UTF-8 text (%s)" % e.reason)
