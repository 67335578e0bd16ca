#!/usr/bin/env python3
"""The matmul harness's bytes per FLOP (bytes_loaded() below matmul.cu's divider: a RESULT line's bytes less C's
4·M·N) against what the CPU runner saw each step's threads load from global memory (scripts/grade.py's
global_loads, which exercise matmul 2 grades by). Where every size is a multiple of every tile they are equal;
past an edge the closed form counts whole tiles, while the threads load only what lies inside the matrices (a
guard, cp.async's zero fill), so there it is an upper bound.

    expect_bytes_loaded.py BUILD --rows M --cols N --k K    (exit 0: each step agrees so; 1: each that does not)"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import grade  # noqa: E402
from grader.spec import exercise  # noqa: E402

# Each step the CPU runner runs, and its kernel as the runner names it.
KERNELS = {"naive": "MatMulKernelNoShared", "shared": "MatMulKernel", "register_tile": "matmul_register_tile",
           "transposed": "matmul_transposed<TILE_M>", "padded": "matmul_transposed<TILE_M + A_PADDING>",
           "async": "matmul_async<THREAD_TILE>", "async_256x128": "matmul_async<2 * THREAD_TILE>"}
TILES = {"naive": (1, 1, 1), "shared": (16, 16, 16), "async_256x128": (256, 128, 8)}  # M, N, K; the others 128, 128, 8


def main(argv):
    build, args = os.path.abspath(argv[0]), argv[1:] + ["--kernel", ",".join(KERNELS)]
    loads, results = grade.global_loads(exercise("matmul", 2), build, "en", args)
    wrong = 0
    for result in results:
        m, n, k = map(int, result["size"].split("x"))
        step, (closed, flops) = result["kernel"], (float(result["bytes"]) - 4.0 * m * n, float(result["flops"]))
        seen = loads.get(KERNELS[step], (0,))[0]  # none seen: 0
        edge = any(size % tile for size, tile in zip((m, n, k), TILES.get(step, (128, 128, 8))))
        ok = seen < closed if edge else seen == closed
        wrong += not ok
        print("%s %-14s bytes_loaded %.4g B/FLOP, the runner saw %.4g: %s" % (
            "ok  " if ok else "FAIL", step, closed / flops, seen / flops,
            ("an upper bound past the edges" if edge else "equal") if ok else "want %s" % ("less" if edge else "equal")))
    if len(results) != len(KERNELS):
        print("FAIL %d steps ran, not the %d of %s" % (len(results), len(KERNELS), ", ".join(KERNELS)))
    return 1 if wrong or len(results) != len(KERNELS) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
