"""A run read into verdicts: the CPU runner's FINDING lines, the RESULT lines, the exit code, the bank counts."""
import os
import re
import subprocess

from layout import ROOT
from results import failing_note, records

from .source import read


def run_program(command, env=None, timeout=300):
    """(stdout and stderr, exit code), run in the program's folder (a chapter may save a picture there)."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=timeout, env=env,
                              cwd=os.path.dirname(command[0]) or None)
        return done.stdout + done.stderr, done.returncode
    except subprocess.TimeoutExpired as e:
        return (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), 4


class Run:
    """One run's verdict: kinds found, and the lines that show them."""

    def __init__(self, args):
        self.args, self.kinds, self.details, self.code, self.first_wrong = args, [], [], 0, False
        self.crash_named = False  # a runner's finding said where it crashed

    def add(self, kind, detail=None):
        if kind not in self.kinds:
            self.kinds.append(kind)
        if detail and detail not in self.details:
            self.details.append(detail)


# report.h's row_note_first_wrong: "first wrong partial[17]: got 3.5, expected 3.25"
FIRST_WRONG = re.compile(r",? ?first wrong (.+?): got ([^,\s]+), expected ([^,\s]+)")


AT = ("at {file}:{line}: thread {thread} of block ({block})", "位置 {file}:{line}：线程块 ({block}) 中的线程 {thread}")
OTHER = ("; the other access at {other}, thread {other_thread}", "；另一次访问在 {other}，线程 {other_thread}")
RACE = "共享内存竞争："
CRASH_AT = ("in kernel {kernel}, at {file}:{line}: thread {thread} of block ({block})",  # the kernel that stopped
            "核函数 {kernel} 中，位置 {file}:{line}：线程块 ({block}) 中的线程 {thread}")
# The CPU runner's findings the grader judges, by the kind its FINDING lines name (cpu_runner/runtime.c's
# kind_keys): the verdict, what happened in English and Chinese, and where, from the line's fields.
FINDINGS = {
    "race_read_after_write": ("race", "race on shared memory: a thread reads what another thread wrote since the last "
                              "barrier", RACE + "一个线程读了另一个线程在上一次 __syncthreads() 之后写的数据", AT, OTHER),
    "race_write_after_read": ("race", "race on shared memory: a thread overwrites what another thread read since the "
                              "last barrier", RACE + "一个线程改写了另一个线程在上一次 __syncthreads() 之后读过的数据", AT, OTHER),
    "race_write_after_write": ("race", "race on shared memory: two threads write one byte with different values, with "
                               "no barrier between", RACE + "两个线程之间没有 __syncthreads()，却往同一个字节写了不同的值", AT, OTHER),
    "unwritten_read": ("unwritten", "read of shared memory that no thread of this block wrote (it reads as 0xff bytes "
                       "here)", "读了本线程块中没有任何线程写过的共享内存（在这里读到的是 0xff 字节）", AT),
    "misaligned": ("misaligned", "misaligned address: a load or store at an address not a multiple of its size",
                   "地址未对齐：访问的地址不是其字节数的整数倍（GPU 上内核会出错终止）", AT),
    "invalid_access": ("crash", "invalid memory access: a load or store at an address no memory holds",
                       "非法内存访问：GPU 上内核会出错终止", CRASH_AT, (", address {address}", "，地址 {address}")),
    "host_memory_in_kernel": ("crash", "invalid memory access: a kernel touched host memory (malloc's)",
                              "非法内存访问：核函数访问了主机内存（malloc 分配的），GPU 上内核会出错终止", CRASH_AT),
    "stack_overflow": ("crash", "stack overflow: a CUDA thread's local variables outgrew its stack on the runner "
                       "(CUDA_CPU_STACK_KB=512 gives it a GPU's 512 KB)", "栈溢出：一个 CUDA 线程的局部变量超出了它在 "
                       "CPU 运行器上的栈（设 CUDA_CPU_STACK_KB=512 就和 GPU 一样有 512 KB）", CRASH_AT),
    "local_out_of_bounds": ("crash", "local memory access out of bounds: past the top of the thread's stack, an index "
                            "past a local array?", "局部内存越界：越过了线程栈的顶端，是局部数组的下标越界了吗？", CRASH_AT),
    "integer_division": ("crash", "integer division by zero (or of the most negative value by -1): a GPU gives an "
                         "undefined value and goes on, the runner stops", "整数除以零（或最小的负数除以 -1）：GPU 上得到"
                         "一个不确定的值并继续运行，CPU 运行器在此停下", CRASH_AT),
    "trap": ("crash", "illegal instruction: a trap the compiler put where the code is undefined (a division by a zero "
             "it could see?)", "非法指令：编译器在未定义行为处放了一条陷阱指令（编译器看得出的除以零？）", CRASH_AT),
    "barrier_divergent": ("barrier", "divergent barrier: the threads of one block wait at different __syncthreads()",
                          "同步分歧：同一线程块的线程停在不同的 __syncthreads() 上",
                          ("at {file}:{line} (thread {thread}, block ({block})) and at {other} (thread {other_thread})",
                           "位置 {file}:{line}（线程块 ({block}) 中的线程 {thread}）和 {other}（线程 {other_thread}）")),
    "barrier_exited": ("barrier", "barrier not reached by every thread of the block: some exited before it",
                       "有线程到不了的 __syncthreads()：一些线程在它之前已经退出",
                       ("at {file}:{line}, block ({block}): {thread} thread(s) waited there, the others had exited",
                        "位置 {file}:{line}，线程块 ({block})：{thread} 个线程在此等待，其余线程已经退出")),
    "warp_lane_exited": ("barrier", "warp operation whose mask names a lane that has exited",
                         "线程束操作的掩码中有已经退出的线程", AT, ("; its mask names lane {lane}, which has exited",
                                                              "；它的掩码含有已经退出的第 {lane} 号线程")),
    "warp_mask_leaves_out_caller": ("barrier", "warp operation whose mask leaves out the lane that calls it",
                                    "线程束操作的掩码不包含调用它的线程", AT),
}


def finding_text(finding):
    """A FINDING line's fields as (English, Chinese): what happened, then where."""
    _, en, zh, *where = FINDINGS[finding["kind"]]
    values = dict(finding, lane=int(finding["other_thread"]) % 32, kernel=finding.get("kernel", "?"))
    count = int(finding["count"])
    en += "\n      " + "".join(part[0] for part in where).format(**values) + " (%d times in this launch)" % count * (count > 1)
    zh += "\n      " + "".join(part[1] for part in where).format(**values) + "（本次启动中共 %d 次）" % count * (count > 1)
    return en, zh


def read_output(run, output, code):
    """The run's verdicts: the runner's FINDING lines, the failing RESULT lines, then the exit code."""
    run.code = code
    lines = output.split("\n")
    for finding in records(output, "FINDING"):
        if finding["kind"] in FINDINGS:
            run.add(FINDINGS[finding["kind"]][0], finding_text(finding))
            run.crash_named |= FINDINGS[finding["kind"]][0] == "crash"
    for result in records(output, "RESULT"):
        if result.get("status") == "FAIL":
            read_failing_result(run, result, failing_note(output, result.get("kernel", "?")))
    for line in lines:  # the GPU's own error: cudaErrorMisalignedAddress
        if "misaligned" in line.lower() and not line.startswith(("CPU runner", "FINDING")) and code not in (0, 1):
            run.add("misaligned", line.strip())
    if code == 4:  # the runner's exit for a deadlock (and the grader's for a run it stopped): the runner's lines
        start = next((i for i, l in enumerate(lines) if l.startswith("CPU runner:") and "deadlock" in l), len(lines))
        run.add("deadlock", "\n      ".join(l.strip() for l in lines[start:start + 4] if l.strip()) or None)
    elif code == 1 and not run.kinds:
        fails = [l.strip() for l in lines if re.search(r"\bFAIL\b|DIFFERS", l)][:3]
        run.add("value", "\n      ".join(fails) or "the program's own check failed (exit 1)")
    elif code not in (0, 1, 4) and "crash" not in run.kinds:  # the program's last lines, unless a finding said why
        tail = [l for l in lines if l.strip() and not l.startswith("FINDING")][-3:]
        signal = " (signal %d%s)" % (-code, ": an access outside memory, an index past an array's end?" if -code in (
            7, 11) else "") if code < 0 else ""
        run.add("crash", "exit %d%s%s" % (code, signal, "".join("\n      " + l for l in tail)))
    return run


def read_failing_result(run, fields, note):
    """A failing RESULT line, with its table row's note: what it got and expected, and the first wrong element."""
    note = note.replace("(kernel only: the CPU adds the partials)", "").strip()
    first = FIRST_WRONG.search(note)
    note = FIRST_WRONG.sub("", note).strip(" ,")
    counted = re.search(r"\bvalue: ([^,;(]+?)\s*(?:[,;(]|$)", note)  # a count: "value: elements right"
    note = note.replace("value: " + counted.group(1), "").strip(" ,;") if counted else note
    got = "NaN" if fields.get("value") in ("-", "nan", "-nan") else fields.get("value")
    size = " (" + fields["size"] + ")" if fields.get("size", "-") != "-" else ""
    head = (fields.get("kernel"), fields.get("type"), fields.get("n"), size)
    run.add("value", ("kernel %s, %s, n = %s%s: %s %s, expected %s%s" % (head + (
        counted.group(1) + ":" if counted else "got", got, fields.get("expected"), "; " + note if note else "")),
        "核函数 %s，%s，n = %s%s：%s%s，应为 %s%s" % (head + (
            counted.group(1) + "：" if counted else "得到 ", got, fields.get("expected"), "；" + note if note else ""))))
    if first:
        run.first_wrong, poison = True, first.group(2).lstrip("-") == "nan"
        run.add("value", ("the first wrong element: %s is %s, should be %s%s" % (first.groups() + (
            " (NaN: often the poison the output starts as, never written, or copied from shared memory "
            "no thread wrote)" * poison,)), "第一个出错的元素：%s 是 %s，应为 %s%s" % (first.groups() + (
                "（NaN：常见于预先填入的毒值，即这个元素没有写过，或者抄来的共享内存没人写过）" * poison,))))


def addr2line(program, offsets):
    if not offsets:
        return {}
    out = subprocess.run(["addr2line", "-e", program] + offsets, capture_output=True, text=True).stdout.split("\n")
    return dict(zip(offsets, out))


def read_banks(run, program, path, shown, conflict_free, rows=None):
    """The learner's shared-memory accesses, per line, load or store and width, from the file
    exercises/cpu_banks.c wrote, added to rows (the runs before: a float run's and a double run's lines
    both show); a misaligned access anywhere is a finding."""
    rows = {} if rows is None else rows
    lines = read(path).split("\n") if os.path.exists(path) else []
    codes = sorted({line.split()[1] for line in lines if line.startswith("code ")})
    places = addr2line(program, codes)
    for line in lines:
        words = line.split()
        if len(words) < 20 or words[0] != "code":
            continue
        f = dict(zip(words[0:20:2], words[1:20:2]))
        place = places.get(f["code"], "?").split(" ")[0]
        if int(f["misaligned"]):
            run.add("misaligned", "%s: %s %s of %s bytes at an address not a multiple of %s" % (
                short(place), f["misaligned"], "loads" if f["op"] == "ld" else "stores", f["bytes"], f["bytes"]))
        if not place.startswith(os.path.join(ROOT, shown) + ":") or not int(f["warps"]):
            continue
        key = (int(place.rsplit(":", 1)[1]), f["op"], int(f["bytes"]))
        row = rows.setdefault(key, dict.fromkeys(["warps", "passes", "ideal", "conflicted", "max", "codes"], 0))
        for name in ("warps", "passes", "ideal", "conflicted"):
            row[name] += int(f[name])
        row["max"] = max(row["max"], int(f["max"]))
        row["codes"] = len({f["code"]} | set(row.get("seen", ())))
        row["seen"] = set(row.get("seen", ())) | {f["code"]}
    table = []
    for (line, op, width), row in sorted(rows.items()):
        n, load = row["codes"], op == "ld"
        what = "%d %s%s of %d B" % (n, "load" if load else "store", "s" if n > 1 else "", width)
        zh_what = "%d 条 %d 字节%s" % (n, width, "读" if load else "写")
        mean, ideal = row["passes"] / row["warps"], row["ideal"] / row["warps"]
        table.append((
            "line %d, %s: %.2f passes per warp instruction (%.2f without conflicts), %d at most; %s" % (
                line, what, mean, ideal, row["max"], "%d of %d conflicted" % (row["conflicted"], row["warps"])
                if row["conflicted"] else "no conflict"),
            "第 %d 行，%s：每条线程束指令平均 %.2f 次内存事务（无冲突时 %.2f），最多 %d 次；%s" % (
                line, zh_what, mean, ideal, row["max"], "%d 条中 %d 条有冲突" % (row["warps"], row["conflicted"])
                if row["conflicted"] else "无冲突")))
        if conflict_free and row["conflicted"]:
            run.add("banks", ("line %d, %s: up to %d passes where %.0f would do" % (line, what, row["max"], ideal),
                              "第 %d 行，%s：最多 %d 次内存事务，无冲突时 %.0f 次" % (line, zh_what, row["max"], ideal)))
    return table


def short(place):
    """A path as the learner knows it: from the repository's root, or from the chapter's folder."""
    return re.sub(r"^.*/(ch\d\d_[^/]+/)", r"\1", place.replace(ROOT + "/", ""))


def first_error(complaint):
    """The compiler's first error whole (its context lines, the source line, the caret), up to the next
    error or note of another place: not cut after a fixed count of lines."""
    lines = complaint.strip().split("\n")
    first = next((i for i, line in enumerate(lines) if "error" in line), 0)
    start = max(0, first - 2)  # "In function ...", "At global scope" lines before it
    end = next((i for i in range(first + 1, len(lines)) if re.search(r":\d+:\d+: (error|warning)", lines[i])), len(lines))
    text = "\n      ".join(lines[start:min(end, first + 12)])
    return (text, text)  # as it is in both languages: its " | " source lines are not "English | 中文"
