"""The lines the programs print for scripts, read in one place: RESULT and CEILING (common/report.h) and the
CPU runner's FINDING lines (cpu_runner/runtime.c, CUDA_CPU_FINDINGS=machine), each `RECORD key=value ...`;
the note of a failing row of a program's table, which its RESULT line does not carry; the rows of a
program's --bank-model output and of scripts/bank_conflicts.sh's table."""
import math

RECORDS = ("RESULT", "CEILING", "FINDING")
BANK_MODEL = ("kernel", "access", "op", "bytes", "passes", "weight", "picture", "lanes")  # --bank-model's columns


def fields(line):
    """A RESULT, CEILING or FINDING line as a dict, its record under "record"; None for any other line."""
    words = line.split()
    if not words or words[0] not in RECORDS:
        return None
    row = {"record": words[0]}
    for word in words[1:]:
        key, equals, value = word.partition("=")
        if equals:
            row[key] = value
    return row


def records(text, record=None):
    """Every such line of text as a dict, in order; only RECORD's when given."""
    rows = (fields(line) for line in text.split("\n"))
    return [row for row in rows if row and record in (None, row["record"])]


def number(text):
    """The value of a numeric field; None when it is missing, empty, '-' (not measured) or not a finite number."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def failing_note(text, kernel):
    """The words after FAIL in the table row of KERNEL (report.h's row: the kernel's name first), or ""."""
    row = next((line for line in text.split("\n") if line.startswith(kernel + " ") and "FAIL" in line), "")
    return row.split("FAIL", 1)[1].strip() if row else ""


def bank_model_row(line):
    """A line of --bank-model output (tab-separated BANK_MODEL) as a dict; None for its comments, blank lines
    and the libraries' rows (no model); ValueError for a line with fewer columns."""
    fields = line.rstrip("\n").split("\t")
    if line.startswith("#") or fields[0] == "library" or not line.strip():
        return None
    if len(fields) < len(BANK_MODEL):
        raise ValueError("not a bank model line (%s): %s" % (", ".join(BANK_MODEL), line.strip()))
    return dict(zip(BANK_MODEL, fields))


def bank_conflicts_table(text):
    """scripts/bank_conflicts.sh's table in TEXT: (its header's names, {kernel: {name: cell}})."""
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in text.split("\n")
            if line.startswith("| ")]
    return (rows[0], {cells[0]: dict(zip(rows[0], cells)) for cells in rows[2:]}) if rows else ([], {})
