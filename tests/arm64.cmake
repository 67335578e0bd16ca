# The CPU runner on arm64 (issue 41), label arm64: the chapters' programs (dot, reduce, transpose and its
# twin without the tile's barrier, banks, shared_vs_global) and seven of tests/runner_suite/ built by
# scripts/cuda_on_cpu twice, for x86-64 with g++ and for aarch64 with Debian's aarch64-linux-gnu-g++,
# the aarch64 build run under qemu-aarch64. tests/arm64/check.py runs each case (the cpu tests' sizes and
# arguments, the wrong kernels in two orders) on both and requires the same exit code, the same standard
# output line for line (every RESULT line's bits, every PASS and FAIL, every finding with its file:line and
# counts) and the same standard error; an x86-64 build with -ffp-contract=off shows the dot cases can tell
# fused from unfused multiply-adds. Skipped (77, one line) without the aarch64 compiler or qemu-user
# (scripts/install_deps.sh installs g++-aarch64-linux-gnu and qemu-user). About 90 s on 2 cores from
# nothing, 50 s once built (label arm64 only, not cpu).
get_filename_component(arm64_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
add_test(NAME arm64_same_as_x86_64
         COMMAND ${Python3_EXECUTABLE} ${arm64_root}/tests/arm64/check.py --build-dir ${CMAKE_CURRENT_BINARY_DIR}/arm64)
set_tests_properties(arm64_same_as_x86_64 PROPERTIES LABELS arm64 SKIP_RETURN_CODE 77 TIMEOUT 900)
