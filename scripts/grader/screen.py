"""What the grader says, in English, Chinese or both."""
from .spec import KINDS, all_exercises


WORDS = {  # each verdict's words: English | Chinese
    "compile": "it does not compile | 编译不通过",
    "crash": "the program crashed | 程序崩溃",
    "deadlock": "the block never finishes: a deadlock, or a loop that never ends | 线程块永远结束不了：死锁，或者循环永不终止",
    "barrier": "a barrier not every thread of the block reaches, or not the same one | 块内有线程到不了的 "
               "__syncthreads()，或线程停在不同的 __syncthreads() 上",
    "race": "a race on shared memory | 共享内存上的竞争",
    "unwritten": "a read of shared memory no thread wrote | 读了没有线程写过的共享内存",
    "misaligned": "a misaligned shared-memory access (a GPU stops the kernel) | 共享内存访问未对齐（在 GPU 上核函数会出错终止）",
    "value": "a wrong value | 结果错误",
    "banks": "bank conflicts | bank 冲突",
    "coalescing": "an uncoalesced global-memory access | 全局内存的非合并访问",
    "pass": "PASS: every check holds | 通过：所有检查均通过",
}


def say(lang, text):
    """text in the language asked: "English | 中文" or ("English", "中文"); a plain string as it is."""
    if isinstance(text, tuple):
        en, zh = text
    else:
        en, _, zh = text.partition(" | ")
    return {"en": en, "zh": zh or en, "both": en + (" / " + zh if zh else "")}[lang]


def say_lines(lang, text):
    """Like say(), a line each for both languages: for the longer lines."""
    if lang == "both" and isinstance(text, tuple):
        return list(text) if text[0] != text[1] else [text[0]]
    return [say(lang, text)]


def report(runs, table, notes, lang, where):
    """One section of the screen: where it ran, each run, the bank table, the notes; returns the kinds."""
    print("  %s" % say(lang, where))
    for run in runs:
        command = " ".join(["--check"] + run.args) if run.args else say(lang, "(the build) | （构建）")
        print("  %s %s" % ("FAIL" if run.kinds else "ok  ", command))
        for kind in sorted(run.kinds, key=KINDS.index):  # the cause first: a barrier before the race it lets in
            print("    %s" % say(lang, WORDS[kind]))
        for detail in run.details:
            for line in say_lines(lang, detail):
                print("      " + line)
    if table:
        print("  %s" % say(lang, "your memory accesses, counted warp instruction by warp instruction | "
                                 "你的内存访问，按线程束指令统计"))
    for row in table + notes:
        for line in say_lines(lang, row):
            print("    " + line)
    return [k for run in runs for k in run.kinds]


def verdict_line(kinds, lang):
    if not kinds:
        return say(lang, WORDS["pass"])
    found = sorted(set(kinds), key=KINDS.index)
    en = "FAIL: " + "; ".join(WORDS[k].split(" | ")[0] for k in found)
    zh = "未通过：" + "；".join(WORDS[k].split(" | ")[1] for k in found)
    return {"en": en, "zh": zh, "both": en + "\n" + zh}[lang]


def readme_table(lang):
    """The exercises as a table for exercises/README*.md (between its exercises:begin/end markers)."""
    zh = lang == "zh"
    head = ("| 练习 | 写什么 | 已知的错误答案 → 评分结果 |" if zh else "| exercise | you write | known wrong answers → verdict |")
    rows = [head, "| --- | --- | --- |"]
    for ex in all_exercises():
        title = ex.title["zh" if zh else "en"]
        what = ("预测 %d 个数" % len(ex.predicts) if zh else "%d predictions" % len(ex.predicts)) if ex.predicts else (
            "`%s`%s" % (ex.function, "（从 `%s` 改起）" % ex.stub_from if zh else " (from `%s`)" % ex.stub_from)
            if ex.stub_from else "`%s`" % ex.function)
        stub = "%s → %s" % ("初始文件" if zh else "the stub", ", ".join(ex.stub_kinds))
        wrongs = "; ".join("%s → %s" % (w.name, ", ".join(w.kinds)) for w in ex.wrongs)
        rows.append("| `%s %d` %s | %s | %s; %s |" % (ex.program, ex.number, title, what, stub, wrongs))
    return "\n".join(rows)
