# Helpers every chapter uses to build its program and register its tests.
# Labels: host (no GPU needed), gpu (needs a CUDA device: exit 77 = skipped),
# sanitizer (compute-sanitizer on a small size), large (past 2^31 elements).

set(EXAMPLES_TEST_DIR ${CMAKE_SOURCE_DIR}/tests)

option(EXAMPLES_DEVICE_DEBUG "Build device code for cuda-gdb (-G: slow, no optimisation)" OFF)

# Warnings on for everything we compile; errors with -DCMAKE_COMPILE_WARNING_AS_ERROR=ON
# (CI turns it on). CMake 3.24+ adds its own flag for that too; ours also
# covers the host compiler that nvcc drives.
function(examples_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:C,CXX>:-Wall -Wextra>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
  if(EXAMPLES_DEVICE_DEBUG)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-G>)
  else()
    # Source lines in compute-sanitizer and Nsight reports (-G implies them).
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
  endif()
  if(CMAKE_COMPILE_WARNING_AS_ERROR)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:C,CXX>:-Werror>
      $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Werror>)
  endif()
endfunction()

# add_chapter_program(<target> <source.cu> [libraries...]): the chapter's one
# program, header-only common/ on its include path, installed by cmake --install.
# Without a CUDA compiler, <target> is cpu_runner/only_cpu.c, which runs <target>_cpu: with --cpu as the
# GPU program does, otherwise as the GPU program on a machine with no GPU (exit 77 for a GPU run).
function(add_chapter_program target source)
  if(EXAMPLES_GPU_PROGRAMS)
    add_executable(${target} ${source})
    target_link_libraries(${target} PRIVATE examples_common ${ARGN})
  else()
    add_executable(${target} ${CMAKE_SOURCE_DIR}/cpu_runner/only_cpu.c)
  endif()
  set_target_properties(${target} PROPERTIES EXAMPLES_CHAPTER_SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/${source})
  examples_warnings(${target})
  install(TARGETS ${target} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  add_cpu_twin(${target} ${source} ${ARGN})
  # The chapter's folder, where book.h says a GPU run's output is committed (a build alone says nothing).
  get_filename_component(folder ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  foreach(built ${target} ${target}_cpu)
    if(TARGET ${built})
      target_compile_definitions(${built} PRIVATE "PROGRAM_FOLDER=\"${folder}\"")
    endif()
  endforeach()
endfunction()

# add_nvcc_test(<name> <label> COMMAND...): a test that needs nvcc (it compiles, or reads compiled code);
# without a CUDA compiler it is registered all the same, skipped with that reason (add_no_nvcc_test, also for
# a test whose command holds a ';', which a list of arguments would split).
function(add_nvcc_test name label)
  if(EXAMPLES_GPU_PROGRAMS)
    add_test(NAME ${name} COMMAND ${ARGN})
    set_tests_properties(${name} PROPERTIES LABELS ${label} SKIP_RETURN_CODE 77 TIMEOUT 900)
  else()
    add_no_nvcc_test(${name} ${label})
  endif()
endfunction()
function(add_no_nvcc_test name label)
  add_skipped_test(${name} ${label} "this build has no CUDA compiler (nvcc)")
endfunction()
# add_skipped_test(<name> <label> <reason>): a test this build cannot run, registered and skipped saying why.
function(add_skipped_test name label reason)
  add_test(NAME ${name} COMMAND sh -c "echo \"skipped: $1\"; exit 77" sh "${reason}")
  set_tests_properties(${name} PROPERTIES LABELS ${label} SKIP_RETURN_CODE 77)
endfunction()

# The CPU runner (docs/CPU_RUNNER.md): <target>_cpu, the same .cu built by g++
# after cpu_runner/source.py rewrote its launches and __shared__ declarations, with
# cpu_runner/flags.txt's flags (every load and store instrumented; the same fused
# multiply-adds as nvcc), no CUDA runtime or GPU library linked (cpu_runner/
# implements the calls). scripts/cuda_on_cpu builds any other .cu the same way.
option(EXAMPLES_CPU_RUNNER "Build each program's CPU runner twin, <program>_cpu (needs Python 3)" ON)
if(EXAMPLES_CPU_RUNNER AND NOT Python3_Interpreter_FOUND)
  message(WARNING "Python 3 not found: the CPU runner (<program>_cpu) is not built")
  set(EXAMPLES_CPU_RUNNER OFF)
endif()
# flags.txt: "WHEN: FLAG" lines; compile (and this processor's), wrap, link.
file(STRINGS ${CMAKE_SOURCE_DIR}/cpu_runner/flags.txt cpu_runner_flag_lines REGEX "^[a-z_0-9]+: ")
set(CUDA_CPU_COMPILE_FLAGS)
set(CUDA_CPU_LINK_WRAPS)
set(CUDA_CPU_LINK_FLAGS)
foreach(flag_line ${cpu_runner_flag_lines})
  string(REGEX REPLACE "^([a-z_0-9]+): (.*)$" "\\1;\\2" pair "${flag_line}")
  list(GET pair 0 when)
  list(GET pair 1 flag)
  if(when STREQUAL "compile" OR when STREQUAL CMAKE_SYSTEM_PROCESSOR)
    list(APPEND CUDA_CPU_COMPILE_FLAGS ${flag})
  elseif(when STREQUAL "wrap")
    list(APPEND CUDA_CPU_LINK_WRAPS ${flag})
  elseif(when STREQUAL "link")
    list(APPEND CUDA_CPU_LINK_FLAGS ${flag})
  endif()
endforeach()
function(add_cpu_twin target source)
  if(NOT EXAMPLES_CPU_RUNNER)
    return()
  endif()
  file(RELATIVE_PATH shown ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/${source})
  set(rewritten ${CMAKE_CURRENT_BINARY_DIR}/${target}_cpu.cpp)
  add_custom_command(OUTPUT ${rewritten}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/cpu_runner/source.py
            ${CMAKE_CURRENT_SOURCE_DIR}/${source} ${rewritten} ${shown}
    DEPENDS ${source} ${CMAKE_SOURCE_DIR}/cpu_runner/source.py VERBATIM)
  add_executable(${target}_cpu ${rewritten})
  set(libraries ${ARGN})
  list(FILTER libraries EXCLUDE REGEX "^CUDA::")
  target_include_directories(${target}_cpu PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${CUDA_CPU_INCLUDE_DIR}
                             ${CMAKE_SOURCE_DIR}/common ${CMAKE_SOURCE_DIR}/cpu_runner/stubs)
  add_dependencies(${target}_cpu cuda_cpu_headers)
  target_link_libraries(${target}_cpu PRIVATE cuda_cpu_runtime ${libraries} ${CUDA_CPU_LINK_FLAGS})
  list(TRANSFORM CUDA_CPU_LINK_WRAPS PREPEND "-Wl,--wrap=" OUTPUT_VARIABLE wraps)
  target_link_options(${target}_cpu PRIVATE ${wraps})
  # BANK_MODEL_ROOT: where --bank-model reads the lines it names (common/bank_model.h).
  target_compile_definitions(${target}_cpu PRIVATE CUDA_CPU_RUNNER "BANK_MODEL_ROOT=\"${CMAKE_SOURCE_DIR}\"")
  target_compile_features(${target}_cpu PRIVATE cxx_std_17)
  # -fdebug-prefix-map: the findings name the .cu as the repository does (ch05_dot/dot.cu:62).
  target_compile_options(${target}_cpu PRIVATE -include ${CMAKE_SOURCE_DIR}/cpu_runner/cuda_on_cpu.h
                         -fdebug-prefix-map=${CMAKE_CURRENT_BINARY_DIR}=. ${CUDA_CPU_COMPILE_FLAGS})
  examples_warnings(${target}_cpu)
  install(TARGETS ${target}_cpu RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()

# add_gpu_test(<name> <target> args...): passes when the program exits 0,
# is skipped when it exits 77 (no CUDA device).
function(add_gpu_test name target)
  add_test(NAME ${name} COMMAND ${target} ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 600)
endfunction()

# add_large_test(<name> <target> args...): a size past 2^31 elements. Skipped
# (77) without a GPU, and with a clear line where the GPU has too little memory.
# They are the suite's longest tests, so ctest starts them first (COST); each
# holds one of three locks in turn, so that at most three run at once: their
# copies (up to 34 GB each) fit an 80 GB GPU and a 128 GB host beside the rest.
function(add_large_test name target)
  add_test(NAME ${name}
           COMMAND sh ${EXAMPLES_TEST_DIR}/expect_exit.sh 0 --skip-on-exit 2 "GiB of (device|host) memory|out of host memory"
                   $<TARGET_FILE:${target}> ${ARGN})
  get_property(count GLOBAL PROPERTY EXAMPLES_LARGE_TESTS)
  if(NOT count)
    set(count 0)
  endif()
  math(EXPR lock "${count} % 3")
  math(EXPR count "${count} + 1")
  set_property(GLOBAL PROPERTY EXAMPLES_LARGE_TESTS ${count})
  set_tests_properties(${name} PROPERTIES LABELS large SKIP_RETURN_CODE 77 TIMEOUT 900 COST 1000
                                          RESOURCE_LOCK large_memory_${lock})
endfunction()

# add_bad_input_tests(<target> "<args of case 1>" "<args of case 2>" ...): one
# test, a table of command lines the program must reject with exit 2 and one
# line on stderr, before touching the GPU. Each case is split at spaces.
function(add_bad_input_tests target)
  add_test(NAME ${target}_bad_input
           COMMAND sh ${EXAMPLES_TEST_DIR}/expect_bad_input.sh $<TARGET_FILE:${target}> ${ARGN})
  set_tests_properties(${target}_bad_input PROPERTIES LABELS host TIMEOUT 120)
endfunction()

# add_help_test(<target>): --help exits 0 and prints the usage.
function(add_help_test target)
  add_test(NAME ${target}_help
           COMMAND sh ${EXAMPLES_TEST_DIR}/expect_exit.sh 0 --stdout-matches "^Usage: ${target} "
                   $<TARGET_FILE:${target}> --help)
  set_tests_properties(${target}_help PROPERTIES LABELS host TIMEOUT 60)
endfunction()

# add_builds_alone_test(<target> <source.cu>): the chapter folder and common/,
# copied alone, build with exactly the nvcc line the source's header gives. A
# build that succeeded is not redone while the line, nvcc and every file of the
# folder and common/ stay the same (a stamp in builds_alone_cache/).
function(add_builds_alone_test target source)
  execute_process(COMMAND sh ${CMAKE_SOURCE_DIR}/scripts/builds_alone.sh --line ${CMAKE_CURRENT_SOURCE_DIR} ${source}
                  OUTPUT_VARIABLE line) # the line it builds with
  if(line MATCHES "-lcublas" AND TARGET examples_no_cublas)
    add_skipped_test(${target}_builds_alone host "its nvcc line links cuBLAS, which this toolkit lacks (NVIDIA's wheels)")
    return()
  endif()
  add_nvcc_test(${target}_builds_alone host sh ${CMAKE_SOURCE_DIR}/scripts/builds_alone.sh ${CMAKE_CURRENT_SOURCE_DIR}
                ${source} ${CMAKE_SOURCE_DIR}/common ${CMAKE_CUDA_COMPILER} ${CMAKE_CURRENT_BINARY_DIR}/builds_alone_cache)
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
# under compute-sanitizer --tool <tool>. <expect> is "clean" (no error and no
# warning may be reported, and the program must pass) or "hazards" (the tool
# must report at least one: a deliberately wrong kernel), or "reports:REGEX"
# (the tool's output must match REGEX). Skipped (77) when compute-sanitizer or
# a CUDA device is missing.
function(add_sanitizer_test name tool expect target)
  add_test(NAME ${name}
           COMMAND sh ${EXAMPLES_TEST_DIR}/run_sanitizer.sh ${tool} ${expect}
                   $<TARGET_FILE:has_cuda_device> $<TARGET_FILE:${target}> ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS sanitizer SKIP_RETURN_CODE 77 TIMEOUT 900)
endfunction()

# add_output_test(<name> <label> <exit code> [--stdout-matches REGEX]... [--stdout-lacks REGEX]...
#                 $<TARGET_FILE:program> args...): the program must exit with that code and print
# (or not print) those lines (tests/expect_exit.sh). Skipped (77) without a GPU.
function(add_output_test name label code)
  add_test(NAME ${name} COMMAND sh ${EXAMPLES_TEST_DIR}/expect_exit.sh ${code} ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS ${label} SKIP_RETURN_CODE 77 TIMEOUT 600)
endfunction()

# add_cpu_test(<name> <code> [expect_exit.sh checks...] <program> --cpu args...):
# an add_output_test labelled cpu, registered only where the CPU runner is built.
# No GPU needed: CI runs these (ctest -L cpu).
function(add_cpu_test name code)
  if(EXAMPLES_CPU_RUNNER)
    add_output_test(${name} cpu ${code} ${ARGN})
    set_tests_properties(${name} PROPERTIES TIMEOUT 300)
  endif()
endfunction()

# The compiled code as evidence, without a GPU: cuobjdump (and nvdisasm beside
# it), beside the build's nvcc first (scripts/cuda_tool.sh).
execute_process(COMMAND sh ${CMAKE_SOURCE_DIR}/scripts/cuda_tool.sh cuobjdump ${CMAKE_CUDA_COMPILER}
                OUTPUT_VARIABLE EXAMPLES_CUOBJDUMP OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT EXAMPLES_CUOBJDUMP)
  set(EXAMPLES_CUOBJDUMP cuobjdump-not-found)
endif()

# add_sass_test(<name> <target> <function regex> [--arch ARCHS] [--has REGEX]... [--lacks REGEX]...
#               [--count REGEX N]...): every function of the program whose mangled name matches, in the
# SASS of every architecture it was built for (all-major: sm_75 to sm_120), has (lacks, has exactly N
# of) those instructions (tests/expect_sass.sh). --arch sm_80+ (or sm_75, or sm_75,sm_90, or all)
# restricts the claims after it to those architectures: a claim true on some only says so. A failure
# names the architecture. Label host; skipped (77) without cuobjdump, or when no claim is about an
# architecture of the build (--arch sm_75 claims in an sm_90 build).
function(add_sass_test name target function)
  add_nvcc_test(${name} host bash ${EXAMPLES_TEST_DIR}/expect_sass.sh ${EXAMPLES_CUOBJDUMP} $<TARGET_FILE:${target}>
                ${function} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 120)
endfunction()

# add_bank_model_test(<name> <target> [PROGRAM ARGS...] -- CHECK...): runs the
# program's --bank-model (no GPU needed) and checks what it predicts
# (tests/expect_bank_model.py: KERNEL:ld=V, KERNEL:st=V, KERNEL/ACCESS=P).
# Label host; skipped (77) without a Python 3 interpreter or the CPU runner (the model is its count).
# add_ncu_test(<name> <target> [PROGRAM ARGS...] -- CHECK...): the KERNEL:ld/st checks
# alone, on the GPU (Nsight Compute), for a claim the model test makes on a run too
# long to profile.
function(add_bank_model_test name target)
  if(NOT Python3_Interpreter_FOUND OR NOT EXAMPLES_CPU_RUNNER)
    add_skipped_test(${name} host "--bank-model runs the kernels on the CPU runner, which this build lacks")
    return()
  endif()
  add_test(NAME ${name} COMMAND ${Python3_EXECUTABLE} ${EXAMPLES_TEST_DIR}/expect_bank_model.py
                                $<TARGET_FILE:${target}> ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS host TIMEOUT 120)
  # A model test of a --check run has a twin on the GPU: its KERNEL:ld/st claims held
  # against Nsight Compute's SASS-level count (label ncu; skipped without ncu or leave
  # to read the counters).
  if("--check" IN_LIST ARGN)
    add_test(NAME ${name}_ncu COMMAND ${Python3_EXECUTABLE} ${EXAMPLES_TEST_DIR}/expect_bank_model.py --measured
                                      $<TARGET_FILE:${target}> ${ARGN})
    set_tests_properties(${name}_ncu PROPERTIES LABELS ncu SKIP_RETURN_CODE 77 TIMEOUT 900 RUN_SERIAL TRUE)
  endif()
endfunction()

# add_bank_model_committed_test(<target> [KNOWN...]): every command of the committed Nsight tables
# (docs/results/*/banks.txt) that runs <target>, its --bank-model on the CPU twin held to the tables'
# predicted figures; KNOWN: KERNEL:ld or KERNEL:st rows stated to differ (tests/expect_bank_model.py).
function(add_bank_model_committed_test target)
  if(TARGET ${target}_cpu)
    add_test(NAME ${target}_bank_model_committed COMMAND ${Python3_EXECUTABLE} ${EXAMPLES_TEST_DIR}/expect_bank_model.py
                                                         --committed $<TARGET_FILE:${target}_cpu> ${ARGN})
    # COST: the longest host tests (the transpose at 4096 x 4096 on the runner): ctest starts them first
    set_tests_properties(${target}_bank_model_committed PROPERTIES LABELS host TIMEOUT 900 COST 500)
  endif()
endfunction()

function(add_ncu_test name target)
  if(Python3_Interpreter_FOUND)
    add_test(NAME ${name} COMMAND ${Python3_EXECUTABLE} ${EXAMPLES_TEST_DIR}/expect_bank_model.py --measured
                                  $<TARGET_FILE:${target}> ${ARGN})
    set_tests_properties(${name} PROPERTIES LABELS ncu SKIP_RETURN_CODE 77 TIMEOUT 900 RUN_SERIAL TRUE)
  endif()
endfunction()
