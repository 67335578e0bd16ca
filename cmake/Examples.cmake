# Helpers every chapter uses to build its program and register its tests.
# Labels: host (no GPU needed), gpu (needs a CUDA device: exit 77 = skipped),
# sanitizer (compute-sanitizer on a small size).

set(EXAMPLES_TEST_DIR ${CMAKE_SOURCE_DIR}/tests)

# Warnings on for everything we compile.
function(examples_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra -lineinfo>)
  if(EXAMPLES_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:C>:-Werror>
      $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Werror>)
  endif()
endfunction()

# add_cuda_example(<target> <source.cu> [libraries...])
function(add_cuda_example target source)
  add_executable(${target} ${source})
  target_link_libraries(${target} PRIVATE examples_gpu examples_host ${ARGN})
  examples_warnings(${target})
endfunction()

# add_gpu_test(<name> <target> args...): passes when the program exits 0,
# is skipped when it exits 77 (no CUDA device).
function(add_gpu_test name target)
  add_test(NAME ${name} COMMAND ${target} ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600)
endfunction()

# add_bad_input_test(<name> <target> args...): the program must reject the
# command line with exit 2 and one message on stderr, before touching the GPU.
function(add_bad_input_test name target)
  add_test(NAME ${name}
           COMMAND sh ${EXAMPLES_TEST_DIR}/expect_exit.sh 2 $<TARGET_FILE:${target}> ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS host TIMEOUT 60)
endfunction()

# add_help_test(<name> <target>): --help exits 0 and prints the usage.
function(add_help_test name target)
  add_test(NAME ${name}
           COMMAND sh ${EXAMPLES_TEST_DIR}/expect_exit.sh 0 --stdout-matches "^Usage: ${target} "
                   $<TARGET_FILE:${target}> --help)
  set_tests_properties(${name} PROPERTIES LABELS host TIMEOUT 60)
endfunction()

# add_gpu_bad_input_test(<name> <target> args...): input that only the GPU can
# judge (a size larger than device memory): exit 2 with one line; skipped
# without a device.
function(add_gpu_bad_input_test name target)
  add_test(NAME ${name}
           COMMAND sh ${EXAMPLES_TEST_DIR}/expect_exit.sh 2 $<TARGET_FILE:${target}> ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 120)
endfunction()

# add_sanitizer_test(<name> <tool> <expect> <target> args...): runs the program
# under compute-sanitizer --tool <tool>. <expect> is "clean" (no error may be
# reported) or "hazards" (racecheck must report at least one hazard).
# Skipped (77) when compute-sanitizer or a CUDA device is missing.
function(add_sanitizer_test name tool expect target)
  add_test(NAME ${name}
           COMMAND sh ${EXAMPLES_TEST_DIR}/run_sanitizer.sh ${tool} ${expect}
                   $<TARGET_FILE:has_cuda_device> $<TARGET_FILE:${target}> ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS sanitizer SKIP_RETURN_CODE 77 TIMEOUT 900)
endfunction()
