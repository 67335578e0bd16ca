# Which GPU architectures to compile for, and why; printed at configure time.
#  1. A value the user gave (-DCMAKE_CUDA_ARCHITECTURES=..., or the CUDAARCHS
#     environment variable) always wins. "native" needs a visible GPU: without
#     one, configuring stops with one line saying what to give instead.
#  2. Otherwise "native" when a GPU is visible now: quickest build, exact fit.
#  3. Otherwise (a machine with no GPU, like CI) every major architecture as
#     machine code plus PTX of the newest ("all-major"), which later GPUs
#     compile at load time.
# CMake before 3.24 knows neither native nor all-major: there the GPU's own
# compute capability, or Turing to Hopper, is spelled out instead.

# The compute capabilities nvidia-smi sees ("9.0;8.6"), or "" when none.
function(visible_gpu_capabilities out)
  set(caps "")
  find_program(NVIDIA_SMI nvidia-smi)
  if(NVIDIA_SMI)
    execute_process(COMMAND ${NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps RESULT_VARIABLE status ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE
                    TIMEOUT 20)
    if(NOT status EQUAL 0 OR NOT caps MATCHES "^[0-9]")
      set(caps "")
    endif()
  endif()
  string(REPLACE "\n" ";" caps "${caps}")
  set(${out} "${caps}" PARENT_SCOPE)
endfunction()

function(choose_cuda_architectures)
  set(given "")
  if(DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT CMAKE_CUDA_ARCHITECTURES STREQUAL "")
    set(given "${CMAKE_CUDA_ARCHITECTURES}")
    set(source "given by the user")
  elseif(DEFINED ENV{CUDAARCHS} AND NOT "$ENV{CUDAARCHS}" STREQUAL "")
    set(given "$ENV{CUDAARCHS}")
    set(source "from the CUDAARCHS environment variable")
  endif()
  visible_gpu_capabilities(caps)
  string(REPLACE "." "" arch_numbers "${caps}")
  list(REMOVE_DUPLICATES arch_numbers)

  if(given STREQUAL "native")
    if(NOT caps)
      message(FATAL_ERROR "CUDA architectures: 'native' builds for the GPUs visible now, and nvidia-smi sees none "
                          "on this machine. Give the target GPU's compute capability instead, e.g. "
                          "-DCMAKE_CUDA_ARCHITECTURES=90 for an H100 or H200, or leave the option out to build "
                          "for every major architecture.")
    endif()
    if(CMAKE_VERSION VERSION_LESS 3.24)
      set(CMAKE_CUDA_ARCHITECTURES "${arch_numbers}" CACHE STRING "GPU architectures to build for" FORCE)
      message(STATUS "CUDA architectures: ${arch_numbers} (native, ${source}; spelled out for CMake ${CMAKE_VERSION})")
      return()
    endif()
  endif()
  if(given MATCHES "^all(-major)?$" AND CMAKE_VERSION VERSION_LESS 3.23)
    set(CMAKE_CUDA_ARCHITECTURES "75-real;80-real;86-real;89-real;90-real;90-virtual" CACHE STRING
        "GPU architectures to build for" FORCE)
    message(STATUS "CUDA architectures: Turing to Hopper plus PTX (${given}, ${source}; spelled out for CMake "
                   "${CMAKE_VERSION}, which does not know '${given}')")
    return()
  endif()
  if(given)
    message(STATUS "CUDA architectures: ${given} (${source})")
    return()
  endif()

  if(caps)
    set(reason "a GPU is visible, compute capability ${caps}")
    if(CMAKE_VERSION VERSION_LESS 3.24)
      set(arch "${arch_numbers}")
    else()
      set(arch native)
    endif()
  else()
    set(reason "no GPU visible: every major architecture, plus PTX for newer GPUs")
    if(CMAKE_VERSION VERSION_LESS 3.24)
      set(arch "75-real;80-real;86-real;89-real;90-real;90-virtual")
      set(reason "no GPU visible: Turing to Hopper, plus PTX for newer GPUs")
    else()
      set(arch all-major)
    endif()
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${arch}" CACHE STRING "GPU architectures to build for" FORCE)
  message(STATUS "CUDA architectures: ${arch} (${reason})")
endfunction()
