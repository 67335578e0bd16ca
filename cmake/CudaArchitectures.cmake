# Which GPU architectures to compile for, and why; printed at configure time.
#  1. A value the user gave (-DCMAKE_CUDA_ARCHITECTURES=..., or the CUDAARCHS
#     environment variable) always wins.
#  2. Otherwise "native" when a GPU is visible now: quickest build, exact fit.
#  3. Otherwise (a machine with no GPU, like CI) Turing through Hopper as machine
#     code, plus PTX of the newest so that later GPUs can compile it at load time.
#     CUDA 13 dropped every architecture before sm_75.
function(choose_cuda_architectures)
  if(DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT CMAKE_CUDA_ARCHITECTURES STREQUAL "")
    message(STATUS "CUDA architectures: ${CMAKE_CUDA_ARCHITECTURES} (given by the user)")
    return()
  endif()
  if(DEFINED ENV{CUDAARCHS} AND NOT "$ENV{CUDAARCHS}" STREQUAL "")
    message(STATUS "CUDA architectures: $ENV{CUDAARCHS} (from the CUDAARCHS environment variable)")
    return()
  endif()
  set(gpu_caps "")
  find_program(NVIDIA_SMI nvidia-smi)
  if(NVIDIA_SMI)
    execute_process(COMMAND ${NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE gpu_caps RESULT_VARIABLE smi_status
                    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 20)
    if(NOT smi_status EQUAL 0)
      set(gpu_caps "")
    endif()
  endif()
  if(gpu_caps MATCHES "^[0-9]")
    string(REPLACE "\n" ", " gpu_caps "${gpu_caps}")
    set(arch native)
    set(reason "a GPU is visible, compute capability ${gpu_caps}")
  else()
    set(arch "75-real;80-real;86-real;89-real;90-real;90-virtual")
    set(reason "no GPU visible: Turing to Hopper, plus PTX for newer GPUs")
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${arch}" CACHE STRING "GPU architectures to build for" FORCE)
  message(STATUS "CUDA architectures: ${arch} (${reason})")
endfunction()
