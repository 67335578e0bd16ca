# The CPU runner for a CMake project of your own (docs/CPU_RUNNER.md):
#   include(/path/to/this/collection/cmake/CudaOnCpu.cmake)
#   add_cuda_on_cpu(my_kernel_cpu my_kernel.cu [INCLUDE_DIRECTORIES dir...] [DEFINITIONS NAME[=VALUE]...])
# builds my_kernel.cu for the CPU runner as ${CMAKE_CURRENT_BINARY_DIR}/my_kernel_cpu, through
# scripts/cuda_on_cpu (the one way the runner builds a .cu outside this collection's own targets; it
# rebuilds only when a file the program was built from changes). Run it, or add_test() it, by that path.
set(CUDA_ON_CPU_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/../scripts/cuda_on_cpu)
find_package(Python3 COMPONENTS Interpreter REQUIRED)
function(add_cuda_on_cpu target source)
  cmake_parse_arguments(arg "" "" "INCLUDE_DIRECTORIES;DEFINITIONS" ${ARGN})
  get_filename_component(source ${source} ABSOLUTE)
  set(options)
  foreach(directory ${arg_INCLUDE_DIRECTORIES})
    get_filename_component(directory ${directory} ABSOLUTE)
    list(APPEND options -I ${directory})
  endforeach()
  foreach(definition ${arg_DEFINITIONS})
    list(APPEND options -D ${definition})
  endforeach()
  add_custom_target(${target} ALL
    COMMAND ${Python3_EXECUTABLE} ${CUDA_ON_CPU_SCRIPT} ${source} --build-only -o ${CMAKE_CURRENT_BINARY_DIR}/${target}
            ${options}
    BYPRODUCTS ${CMAKE_CURRENT_BINARY_DIR}/${target}
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    COMMENT "Building ${target} for the CPU runner" VERBATIM)
endfunction()
