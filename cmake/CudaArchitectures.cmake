# Which GPU architectures to compile for, and why; printed at configure time.
#  1. A value the user gave (-DCMAKE_CUDA_ARCHITECTURES=..., or the CUDAARCHS
#     environment variable) always wins. "native" needs a visible GPU: without
#     one, configuring stops with one sentence saying what to give instead, and
#     forgets "native", so that the advice works in the same build folder.
#  2. Otherwise "native" when a GPU is visible now: quickest build, exact fit
#     (90a on an H100 or H200: sm_90's arch-specific instructions too).
#  3. Otherwise (a machine with no GPU, like CI) every major architecture as
#     machine code plus PTX of the newest ("all-major"), which later GPUs
#     compile at load time.
# Only a value the user gave lives in the cache. Our own choice is a normal
# variable, made again at every configure: a reconfigure never mistakes it for
# the user's, and follows the GPUs visible now.
# CMake before 3.24 knows neither native nor all-major: there the GPU's own
# compute capability, or Turing to Hopper, is spelled out instead.

set(EXAMPLES_TURING_TO_HOPPER "75-real;80-real;86-real;89-real;90-real;90-virtual")

# The compute capabilities nvidia-smi sees ("9.0;8.6"), or "" when none.
function(visible_gpu_capabilities out)
  set(caps "")
  find_program(nvidia_smi nvidia-smi NO_CACHE) # looked up again each time: PATH may change
  if(nvidia_smi)
    execute_process(COMMAND ${nvidia_smi} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE caps RESULT_VARIABLE status ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE
                    TIMEOUT 20)
    if(NOT status EQUAL 0 OR NOT caps MATCHES "^[0-9]")
      set(caps "")
    endif()
  endif()
  string(REPLACE "\n" ";" caps "${caps}")
  set(${out} "${caps}" PARENT_SCOPE)
endfunction()

# Sets CMAKE_CUDA_ARCHITECTURES in the caller's scope (call it before project()).
function(choose_cuda_architectures)
  # A build folder configured before our choice stopped living in the cache
  # holds it with our help string: that value was ours, not the user's.
  get_property(help CACHE CMAKE_CUDA_ARCHITECTURES PROPERTY HELPSTRING)
  if(help STREQUAL "GPU architectures to build for")
    unset(CMAKE_CUDA_ARCHITECTURES CACHE)
  endif()

  set(given "")
  if(NOT "$CACHE{CMAKE_CUDA_ARCHITECTURES}" STREQUAL "")
    set(given "$CACHE{CMAKE_CUDA_ARCHITECTURES}")
    set(source "given by the user")
    if(given STREQUAL "$ENV{CUDAARCHS}") # CMake caches CUDAARCHS the first time
      set(source "from the CUDAARCHS environment variable")
    endif()
  elseif(NOT "$ENV{CUDAARCHS}" STREQUAL "")
    set(given "$ENV{CUDAARCHS}")
    set(source "from the CUDAARCHS environment variable")
  endif()
  visible_gpu_capabilities(caps)
  string(REPLACE "." "" arch_numbers "${caps}")
  list(REMOVE_DUPLICATES arch_numbers)

  if(given STREQUAL "native" AND NOT caps)
    # One sentence, not wrapped (the leading space keeps CMake from wrapping it).
    # The cache forgets "native", so configuring again as advised works.
    if(source STREQUAL "given by the user")
      unset(CMAKE_CUDA_ARCHITECTURES CACHE)
      string(CONCAT instead "configure again with -DCMAKE_CUDA_ARCHITECTURES=90 (the target GPU's compute "
                            "capability, 90 for an H100 or H200) or without the option (every major architecture)")
    else()
      string(CONCAT instead "set CUDAARCHS to the target GPU's compute capability (90 for an H100 or H200) "
                            "or unset it (every major architecture), and configure again")
    endif()
    string(CONCAT sentence " CUDA architectures: 'native' (${source}) builds for the GPUs visible now, and "
                           "nvidia-smi sees none here: ${instead}.")
    message(FATAL_ERROR "${sentence}")
  endif()

  if(given STREQUAL "native" AND CMAKE_VERSION VERSION_LESS 3.24)
    set(arch "${arch_numbers}")
    set(reason "native, ${source}; spelled out for CMake ${CMAKE_VERSION}")
  elseif(given MATCHES "^all(-major)?$" AND CMAKE_VERSION VERSION_LESS 3.23)
    set(arch "${EXAMPLES_TURING_TO_HOPPER}")
    set(reason "Turing to Hopper plus PTX: ${given}, ${source}; spelled out for CMake ${CMAKE_VERSION}, which does "
               "not know '${given}'")
  elseif(given)
    set(arch "${given}")
    set(reason "${source}")
  elseif(caps)
    set(reason "a GPU is visible, compute capability ${caps}")
    if(arch_numbers STREQUAL "90" AND CMAKE_VERSION VERSION_GREATER_EQUAL 3.25)
      # An H100 or H200: its arch-specific code (sm_90a), which runs on 9.0 alone and has
      # the TMA's multicast (ch08_matmul's cluster step); native would be sm_90.
      set(arch 90a)
      string(APPEND reason ": 90a, Hopper's own instructions")
    elseif(CMAKE_VERSION VERSION_LESS 3.24)
      set(arch "${arch_numbers}")
    else()
      set(arch native)
    endif()
  elseif(CMAKE_VERSION VERSION_LESS 3.24)
    set(arch "${EXAMPLES_TURING_TO_HOPPER}")
    set(reason "no GPU visible: Turing to Hopper, plus PTX for newer GPUs")
  else()
    set(arch all-major)
    set(reason "no GPU visible: every major architecture, plus PTX for newer GPUs")
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${arch}" PARENT_SCOPE)
  message(STATUS "CUDA architectures: ${arch} (${reason})")
endfunction()
