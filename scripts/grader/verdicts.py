"""A run read into verdicts: the CPU runner's FINDING lines, the RESULT lines, the exit code, the counted accesses."""
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
        self.args, self.kinds, self.details, self.first_wrong = args, [], [], False
        self.crash_named = False  # a runner's finding said where it crashed

    def add(self, kind, detail=None):
        if kind not in self.kinds:
            self.kinds.append(kind)
        if detail and detail not in self.details:
            self.details.append(detail)
        return self


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
                   "地址未对齐：读写的地址不是所读写字节数的整数倍（在 GPU 上核函数会出错终止）", AT),
    "invalid_access": ("crash", "invalid memory access: a load or store at an address no memory holds",
                       "非法内存访问：读写的地址上没有任何内存（在 GPU 上核函数会出错终止）", CRASH_AT,
                       (", address {address}", "，地址 {address}")),
    "host_memory_in_kernel": ("crash", "invalid memory access: a kernel touched host memory (malloc's)",
                              "非法内存访问：核函数访问了主机内存（malloc 分配的），在 GPU 上核函数会出错终止", CRASH_AT),
    "stack_overflow": ("crash", "stack overflow: a CUDA thread's local variables outgrew its stack on the runner "
                       "(CUDA_CPU_STACK_KB=512 gives it a GPU's 512 KB)", "栈溢出：一个 CUDA 线程的局部变量超出了它在 "
                       "CPU 运行器上的栈（设 CUDA_CPU_STACK_KB=512 就和 GPU 一样有 512 KB）", CRASH_AT),
    "local_out_of_bounds": ("crash", "local memory access out of bounds: past the top of the thread's stack, an index "
                            "past a local array?", "局部内存越界：越过了线程栈的顶端，是局部数组的下标越界了吗？", CRASH_AT),
    "integer_division": ("crash", "integer division by zero (or of the most negative value by -1): a GPU gives an "
                         "undefined value and goes on, the runner stops", "整数除以零（或最小的负数除以 -1）：GPU 上得到"
                         "一个不确定的值并继续运行，CPU 运行器在此停下", CRASH_AT),
    "trap": ("crash", "illegal instruction: a trap the compiler put where the code is undefined (a division by a zero "
             "it could see?)", "非法指令：编译器在未定义行为处放了一条陷阱指令（是不是编译时就看得出的除以零？）", CRASH_AT),
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
                                                              "；掩码中束内指标为 {lane} 的线程已经退出")),
    "warp_mask_leaves_out_caller": ("barrier", "warp operation whose mask leaves out the lane that calls it",
                                    "线程束操作的掩码不包含调用它的线程", AT),
    "async_copy_pending": ("race", "race on shared memory: a thread reads or writes bytes an asynchronous copy "
                           "(__pipeline_memcpy_async) has not landed in yet: no __pipeline_wait_prior of the thread "
                           "that issued it has covered it", RACE + "一个线程读写了异步复制（__pipeline_memcpy_async）"
                           "还没有送达的字节：发起复制的线程还没有用 __pipeline_wait_prior 等到它", AT, OTHER),
    "async_copy_source_overwritten": ("race", "race on global memory: a thread overwrites bytes an asynchronous copy "
                                      "still in flight reads", "全局内存竞争：一个线程改写了仍在进行中的异步复制要读的字节",
                                      AT, OTHER),
    "async_copy_misuse": ("crash", "asynchronous copy misused: __pipeline_memcpy_async copies 4, 8 or 16 bytes, aligned "
                          "to that size, from global into shared memory, zfill of them zeros",
                          "异步复制用法错误：__pipeline_memcpy_async 只能从全局内存向共享内存复制 4、8 或 16 字节，"
                          "地址按该大小对齐，其中 zfill 个字节填零", AT),
    # The block never finishes (exit 4): the runner's three deadlocks.
    "deadlock_split_warp": ("deadlock", "deadlock: a warp split between two barriers never finishes its block on a "
                            "GPU", "死锁：一个线程束分开停在两个 __syncthreads() 上，在 GPU 上这个线程块永远结束不了",
                            ("in warp {warp} of block ({block}): thread {thread} waits at {file}:{line}, thread "
                             "{other_thread} at {other}", "线程块 ({block}) 的第 {warp} 号线程束中：线程 {thread} 停在 "
                             "{file}:{line}，线程 {other_thread} 停在 {other}")),
    "deadlock_waiting": ("deadlock", "deadlock: no thread of the block can go on", "死锁：线程块中没有一个线程能继续执行",
                         ("thread {thread} of block ({block}) and those after it wait at {file}:{line}, in {waits}",
                          "线程块 ({block}) 中的线程 {thread} 及其后的线程停在 {file}:{line} 的 {waits}")),
    "deadlock_spinning": ("deadlock", "deadlock: a kernel ran on without ending or waiting at a barrier (a thread "
                          "spinning on memory no other thread of its block can change while it runs?)",
                          "死锁：核函数一直在运行，既没有结束，也没有在 __syncthreads() 处等待（是不是有线程在循环中等待一块"
                          "内存，而本线程块中能改写它的线程要等它结束才能运行？）",
                          ("in kernel {kernel}: thread {thread} of block ({block}), stopped after {seconds} s",
                           "核函数 {kernel} 中：线程块 ({block}) 中的线程 {thread}，运行 {seconds} 秒后被停下")),
}


def read_output(run, output, code):
    """The run's verdicts: the runner's FINDING lines, the failing RESULT lines, then the exit code."""
    lines = output.split("\n")
    waiting = None  # a deadlock's threads, a line each: under one heading
    for finding in records(output, "FINDING"):
        if finding["kind"] in FINDINGS:  # its fields as (English, Chinese): what happened, then where
            _, en, zh, *where = FINDINGS[finding["kind"]]
            values = dict(finding, lane=int(finding["other_thread"]) % 32, warp=int(finding["thread"]) // 32,
                          kernel=finding.get("kernel", "?"))
            count = int(finding["count"])
            at_en, at_zh = ("".join(part[i] for part in where).format(**values) for i in (0, 1))
            times = (" (%d times in this launch)" % count, "（本次启动中共 %d 次）" % count) if count > 1 else ("", "")
            text = (en + "\n      " + at_en + times[0], zh + "\n      " + at_zh + times[1])
            if finding["kind"] == "deadlock_waiting" and waiting in run.details:
                run.details.remove(waiting)
                text = tuple(above + more[more.index("\n"):] for above, more in zip(waiting, text))
            waiting = text if finding["kind"] == "deadlock_waiting" else None
            run.add(FINDINGS[finding["kind"]][0], text)
            run.crash_named |= FINDINGS[finding["kind"]][0] == "crash"
    for result in records(output, "RESULT"):
        if result.get("status") == "FAIL":
            read_failing_result(run, result, failing_note(output, result.get("kernel", "?")))
    found_misaligned = "misaligned" in run.kinds  # the runner's finding, with its place
    for line in lines:  # the GPU's own error: cudaErrorMisalignedAddress
        if "misaligned" in line.lower() and not line.startswith(("CPU runner", "FINDING")) and code not in (0, 1) \
                and not found_misaligned:
            run.add("misaligned", (line.strip(), "GPU 报告地址未对齐：" + line.strip()))
    if code == 4:  # the runner's exit for a deadlock (its FINDING line above), and the grader's for a run it stopped
        run.add("deadlock")
    elif code == 1 and not run.kinds:
        fails = [l.strip() for l in lines if re.search(r"\bFAIL\b|DIFFERS", l)][:3]
        run.add("value", "\n      ".join(fails) or "the program's own check failed (exit 1)")
    elif code not in (0, 1, 4) and "crash" not in run.kinds:  # the program's last lines, unless a finding said why
        tail = [l for l in lines if l.strip() and not l.startswith("FINDING")][-3:] if "misaligned" not in run.kinds \
            else []  # the runner's misaligned finding said it already
        signal = (" (signal %d%s)" % (-code, ": an access outside memory, an index past an array's end?" if -code in (
            7, 11) else ""), "（信号 %d%s）" % (-code, "：访问了内存之外的地址，是不是下标越过了数组末尾？" if -code in (
            7, 11) else "")) if code < 0 else (" (a CUDA call failed)", "（CUDA 调用出错）") if code == 3 else ("", "")
        run.add("crash", ("exit %d%s%s" % (code, signal[0], "".join("\n      " + l for l in tail)),
                          "退出码 %d%s%s" % (code, signal[1], "".join("\n      程序的输出：" + l for l in tail))))
    return run


# common/report.h's words for the CPU runner's findings during a row's launches (REPORT_FINDINGS_*NOTE): the
# findings are the verdict; with the second the row's own check passed, so its value is not wrong.
FINDINGS_NOTE, FINDINGS_ONLY = "the CPU runner's findings above", "its check passed, but the CPU runner's findings above fail it"
# What the chapters' row notes say (and a count's name, "value: elements right"), in Chinese: --lang zh shows
# no English sentence (exercises/test_zh.py finds one a chapter adds).
NOTE_ZH = [
    (r"(\d+) partials differ from the CPU's", r"\1 个部分和与 CPU 重算的不同"),
    (r"= its order on the CPU, every partial too; exact ([^,]+), off (\S+) (<=|>) bound (\S+)",
     r"与 CPU 按同一顺序重算的结果相同，每个部分和也相同；精确值 \1，相差 \2 \3 误差界 \4"),
    (r"exact ([^:,;]+): rel_err (\S+) (<=|> !) bound (\S+)", r"精确值 \1：相对误差 \2 \3 误差界 \4"),
    (r"\bexact ([-+0-9.e]+)", r"精确值 \1"),
    (r"\((\d+) within 1 in green: sinf vs sin\)", r"（其中 \1 个像素的绿色分量只差 1：sinf 与 sin 之差）"),
    (r"(\d+) wrong\b", r"\1 个元素出错"),
    (r"the last timed launch: (\d+) threads' sums differ", r"最后一次计时的启动：\1 个线程的和不同"),
    (r"pixel \(x (\d+), y (\d+)\) (red|green|blue|alpha)", lambda m: "像素 (x %s, y %s) 的%s" % (
        m.group(1), m.group(2), {"red": "红色分量", "green": "绿色分量", "blue": "蓝色分量", "alpha": "alpha 分量"}[
            m.group(3)])),
    (r"^elements right$", "正确的元素数"), (r"^elements read back right$", "读回正确的元素数"),
    (r"^pixels that differ from the CPU reference$", "与 CPU 参考图不同的像素数"),
    (r"^threads whose sum is the CPU's$", "和与 CPU 相同的线程数"),
]


def note_zh(text):
    for pattern, replacement in NOTE_ZH:
        text = re.sub(pattern, replacement, text)
    return text.replace(", ", "，").replace("; ", "；")


UNIT_ROUNDOFF = {"float": 2.0 ** -24, "double": 2.0 ** -53}


def how_compared(fields, note, counted):
    """How the row's check compares, in (English, Chinese): bit for bit against the CPU's replay of the kernel's
    order of additions (a sum whose note gives the exact value), bit for bit, or within its tolerance; for a
    sum that near the replay, that another order of the same additions is the likely cause."""
    try:
        got, expected, tolerance = float(fields["value"]), float(fields["expected"]), float(fields["tolerance"])
    except (KeyError, ValueError):
        return None
    exact = re.search(r"\bexact ([-+0-9.e]+)", note)
    if tolerance > 0:
        return ("the check: within a relative tolerance of %s of the expected value; this is %s off" % (
            fields["tolerance"], fields.get("rel_err")), "检验方式：与应得值的相对误差不超过 %s；这里相差 %s" % (
            fields["tolerance"], fields.get("rel_err")))
    if counted or not exact or got != got:
        return ("the check: bit for bit (tolerance 0)", "检验方式：逐位相同（容差为 0）")
    en = ("the check: bit for bit against the CPU's replay of this kernel's order of additions (tolerance 0), "
          "not against the exact sum")
    zh = "检验方式：与 CPU 按本核函数的加法顺序重算的结果逐位相同（容差为 0），而不是与精确和比较"
    # Another order of the same additions moves a sum of n terms by up to about n·u (u the unit roundoff).
    near = UNIT_ROUNDOFF.get(fields.get("type"), 0) * float(fields.get("n") or 0)
    if abs(got - expected) <= near * abs(expected):
        exact = float(exact.group(1))
        nearer = abs(got - exact) < abs(expected - exact)
        en += (".\n      So near the replay (a relative difference within n·u = %.1e), this is most likely the right "
               "numbers added in another order (a serial loop, another pairing): each order rounds differently, and "
               "only this kernel's order passes%s. If not, an element is lost or added twice: see the first wrong "
               "element." % (
                   near, ", though yours is nearer the exact sum" if nearer else ""))
        zh += ("。\n      与重算的结果相差这么少（相对差在 n·u = %.1e 之内），多半是同样的数换了一种加法顺序（例如串行"
               "循环，或者别的配对方式）：顺序不同，舍入误差就不同，只有本核函数的那个加法顺序才能通过%s。如果不是"
               "这样，就是漏加或重复加了某个元素：看下面第一个出错的元素。" % (near, "，哪怕你的结果离精确和更近" if nearer else ""))
    return en, zh


def read_failing_result(run, fields, note):
    """A failing RESULT line, with its table row's note: what it got and expected, how the check compares, and the
    first wrong element. A row failed only for the runner's findings adds nothing: they are shown already."""
    if FINDINGS_ONLY in note:
        return
    note = note.replace(FINDINGS_NOTE, "").replace("(kernel only: the CPU adds the partials)", "").strip(" ,")
    first = FIRST_WRONG.search(note)
    note = FIRST_WRONG.sub("", note).strip(" ,")
    counted = re.search(r"\bvalue: ([^,;(]+?)\s*(?:[,;(]|$)", note)  # a count: "value: elements right"
    note = note.replace("value: " + counted.group(1), "").strip(" ,;") if counted else note
    got = "NaN" if fields.get("value") in ("-", "nan", "-nan") else fields.get("value")
    size = " (" + fields["size"] + ")" if fields.get("size", "-") != "-" else ""
    typed = ", " + fields["type"] if fields.get("type", "-") != "-" else ""
    head = (fields.get("kernel"), typed, fields.get("n"), size)
    run.add("value", ("kernel %s%s, n = %s%s: %s %s, expected %s%s" % (head + (
        counted.group(1) + ":" if counted else "got", got, fields.get("expected"), "; " + note if note else "")),
        "核函数 %s%s，n = %s%s：%s%s，应为 %s%s" % (head[:1] + (typed.replace(", ", "，"),) + head[2:] + (
            note_zh(counted.group(1)) + "：" if counted else "得到 ", got, fields.get("expected"),
            re.sub(r"^(?!（)", "；", note_zh(note)) if note else ""))))
    compared = how_compared(fields, note, counted)
    if compared:
        run.add("value", compared)
    if first:
        run.first_wrong, poison = True, first.group(2).lstrip("-") == "nan"
        run.add("value", ("the first wrong element: %s is %s, should be %s%s" % (first.groups() + (
            " (NaN: often the poison the output starts as, never written, or copied from shared memory "
            "no thread wrote)" * poison,)), "第一个出错的元素：%s是 %s，应为 %s%s" % (
                (re.sub(r"(?<=[\x00-\x7f])$", " ", note_zh(first.group(1))),) + first.groups()[1:] + (
                    "（NaN：输出数组预先填满了 NaN，这个元素还是 NaN，多半是它没有被写过，或者写进去的是共享内存中"
                    "没有线程写过的值）" * poison,))))


def addr2line(program, offsets):
    if not offsets:
        return {}
    out = subprocess.run(["addr2line", "-e", program] + offsets, capture_output=True, text=True).stdout.split("\n")
    # A path relative to where the program was built (scripts/cuda_on_cpu's "./FILE.cu"), made whole as the
    # grader's are; there it is built and run from one folder.
    return {offset: place if place.startswith(("/", "?")) else os.path.abspath(place)
            for offset, place in zip(offsets, out)}


def read_accesses(run, program, path, shown, conflict_free, coalescing=None, rows=None):
    """The learner's accesses per line, memory, op and width, from cpu_runner/warp_accesses.c's file, added to rows
    (the runs before: a float and a double run's lines both show): shared ones by the bank model, global ones by
    their 32-byte sectors (COALESCING: those allowed over the ideal; None: not graded). A misaligned one: a finding."""
    rows = {} if rows is None else rows
    lines = read(path).split("\n") if os.path.exists(path) else []
    codes = sorted({line.split()[1] for line in lines if line.startswith("code ")})
    places = addr2line(program, codes)
    for line in lines:
        words = line.split()  # the kernel's name last: it may hold spaces
        if len(words) < 22 or words[0] != "code":
            continue
        f = dict(zip(words[0:22:2], words[1:22:2]))
        place = places.get(f["code"], "?").split(" ")[0]
        if int(f["misaligned"]) and f["space"] == "shared":  # the runner reports a global one itself
            run.add("misaligned", ("%s: %s %s of %s bytes at an address not a multiple of %s" % (
                short(place), f["misaligned"], "loads" if f["op"] == "ld" else "stores", f["bytes"], f["bytes"]),
                "%s：%s 次 %s 字节的%s，地址不是 %s 的整数倍" % (short(place), f["misaligned"], f["bytes"],
                                                     "读" if f["op"] == "ld" else "写", f["bytes"])))
        if not place.startswith(os.path.join(ROOT, shown) + ":") or not int(f["warps"]):
            continue
        if f["space"] == "global" and coalescing is None:
            continue
        key = (int(place.rsplit(":", 1)[1]), f["space"], f["op"], int(f["bytes"]))
        row = rows.setdefault(key, dict(warps=0, passes=0, ideal=0, conflicted=0, max=0, codes=set()))
        for name in ("warps", "passes", "ideal", "conflicted"):
            row[name] += int(f[name])
        row["max"] = max(row["max"], int(f["max"]))
        row["codes"].add(f["code"])
    table = [("%s accesses of %s not counted: more than the runner keeps per block, or per thread between barriers"
              % (words[1], " ".join(words[3:])), "%s 次 %s 的访问未计入：超过了运行器每个线程块（或每个线程在两次同步之间）"
              "能记录的数目" % (words[1], " ".join(words[3:])))
             for words in (line.split() for line in lines) if len(words) > 3 and words[0] == "dropped"]
    for (line, space, op, width), row in sorted(rows.items()):
        n, load, mean, ideal = len(row["codes"]), op == "ld", row["passes"] / row["warps"], row["ideal"] / row["warps"]
        what = "%d %s %s%s of %d B" % (n, space, "load" if load else "store", "s" if n > 1 else "", width)
        zh_what = "%d 条 %d 字节%s内存%s" % (n, width, "全局" if space == "global" else "共享", "读" if load else "写")
        if space == "global":
            table.append((
                "line %d, %s: %.2f sectors of 32 B per warp instruction (%.2f if contiguous and aligned), %d at most"
                % (line, what, mean, ideal, row["max"]),
                "第 %d 行，%s：每条线程束指令平均 %.2f 个 32 字节扇区（连续且对齐时 %.2f 个），最多 %d 个" % (
                    line, zh_what, mean, ideal, row["max"])))
            if mean > ideal + coalescing:
                run.add("coalescing", (
                    "line %d, %s: %.2f sectors of 32 B per warp instruction, where a coalesced one takes %.2f%s; "
                    "neighbouring lanes (threadIdx.x and threadIdx.x + 1) should touch neighbouring elements" % (
                        line, what, mean, ideal, " (%g more allowed: a row that starts inside a sector)" % coalescing
                        if coalescing else ""),
                    "第 %d 行，%s：每条线程束指令平均 %.2f 个 32 字节扇区，合并访问只需 %.2f 个%s；相邻的线程"
                    "（threadIdx.x 与 threadIdx.x + 1）应访问相邻的元素" % (
                        line, zh_what, mean, ideal, "（允许多 %g 个：一行的起点可能不在扇区边界上）" % coalescing
                        if coalescing else "")))
            continue
        table.append((
            "line %d, %s: %.2f passes per warp instruction (%.2f without conflicts), %d at most; %s" % (
                line, what, mean, ideal, row["max"], "%d of %d conflicted" % (row["conflicted"], row["warps"])
                if row["conflicted"] else "no conflict"),
            "第 %d 行，%s：每条线程束指令平均 %.2f 次内存事务（无冲突时 %.2f），最多 %d 次；%s" % (
                line, zh_what, mean, ideal, row["max"], "%d 条线程束指令中 %d 条有冲突" % (row["warps"], row["conflicted"])
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
