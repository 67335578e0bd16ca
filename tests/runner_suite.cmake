# The runner suite (issue 40, tests/runner_suite/): small CUDA programs nobody in the chapters
# wrote, correct and wrong, each stating its expected result in its first comment block
# (`// expect: clean`, `// expect: exit=1 finding="race on shared memory" line=23`). One test per
# program, label cpu: tests/runner_suite/check.py builds it once with scripts/cuda_on_cpu
# --build-only and runs it in the four thread orders (forward, reverse, random:1, lockstep),
# checking its exit code and that each expected finding names its line (none for a correct one).
# On a GPU, tests/runner_suite/sanitizer_table.py runs the same programs under compute-sanitizer.
get_filename_component(runner_suite_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
file(GLOB runner_suite_programs CONFIGURE_DEPENDS ${runner_suite_root}/tests/runner_suite/*.cu)
foreach(program ${runner_suite_programs})
  get_filename_component(name ${program} NAME_WE)
  add_test(NAME runner_suite_${name}
           COMMAND ${Python3_EXECUTABLE} ${runner_suite_root}/tests/runner_suite/check.py
                   --build-dir ${CMAKE_CURRENT_BINARY_DIR}/runner_suite --jobs 1 ${name})
  set_tests_properties(runner_suite_${name} PROPERTIES LABELS cpu TIMEOUT 240)
endforeach()
