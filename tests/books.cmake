# The books' own programs on the CPU runner (issue 40), label cpu, no GPU.
#
# CUDA by Example (chapter05: dot.cu, shared_bitmap.cu) and Fan Zheyong's CUDA-Programming
# (src/08-shared-memory, src/09-atomic, src/10-warp) are not ours to commit: the tests
# take them from a folder given at configure time, laid out as the public repositories are:
#   git clone https://github.com/CodedK/CUDA-by-Example-source-code-for-the-book-s-examples- DIR/cuda-by-example
#   git clone https://github.com/brucefan1983/CUDA-Programming DIR/cuda-programming
#   cmake -DEXAMPLES_BOOK_SOURCES=DIR ...
# Without it (or without a file) each test is skipped (exit 77) and says this.
# Each program: the file as written built by scripts/cuda_on_cpu --build-only, and a copy
# with only its size changed (tests/books/run_book.sh --sed) run, its printed answer
# checked against the book's for that size (tests/books/replay.c derives them; bit for bit
# where the program is deterministic). Programs small enough as written run unmodified.
# Every expected line below is also what the book's program printed at that size on an H200
# (nvcc 13.0 -O3 -arch=sm_90, 2026-11-28), warp.cu's lines in this order, and neighbor.txt too.
set(EXAMPLES_BOOK_SOURCES "" CACHE PATH
    "Folder holding cuda-by-example/ and cuda-programming/ (the books' repositories) for the books_* tests")
set(books_sources "${EXAMPLES_BOOK_SOURCES}")
if(books_sources)
  get_filename_component(books_sources "${books_sources}" ABSOLUTE BASE_DIR "${CMAKE_BINARY_DIR}")
endif()
get_filename_component(books_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE) # the collection's root
set(books_dir ${books_root}/tests/books)
set(books_fan cuda-programming/src)
# A finding of the runner (docs/CPU_RUNNER.md): none may appear on the books' correct programs.
set(books_findings "^CPU runner: (race|read of|.*out of bounds|divergent|barrier|warp operation|misaligned|invalid|stack overflow|deadlock)")

# books_test(NAME run_book.sh-arguments...): test books_NAME in its own work folder.
function(books_test name)
  add_test(NAME books_${name}
           COMMAND env -u DISPLAY sh ${books_dir}/run_book.sh --runner ${books_root}/scripts/cuda_on_cpu
                   "--sources=${books_sources}" --work ${CMAKE_CURRENT_BINARY_DIR}/books/${name}
                   --lacks "${books_findings}" ${ARGN})
  # label books too: without the sources (CI) they are skipped, and the README's figures say so
  set_tests_properties(books_${name} PROPERTIES LABELS "cpu;books" SKIP_RETURN_CODE 77 TIMEOUT 300)
endfunction()

# Some run again in another thread order (--order): a correct program's answer does not depend on it.
# Fan's float and double (-DUSE_DP): real is one or the other.
set(books_sp "")
set(books_dp -D USE_DP)

# --- CUDA by Example, chapter 5: small enough as written (8192 and 1048576 threads).
set(books_dot --program cuda-by-example/chapter05/dot.cu --line 1 "Does GPU value 2.57236e+13 = 2.57236e+13?")
books_test(cbe_dot ${books_dot})
books_test(cbe_dot_random ${books_dot} --order random:1)
# The window where there is a display, else its image as a PNG (cpu_runner/glut_fallback.c);
# the test has none (env -u DISPLAY): the PNG must be the book's bitmap.
find_package(PNG QUIET)
if(PNG_FOUND)
  add_executable(books_check_bitmap ${books_dir}/check_bitmap.c)
  target_link_libraries(books_check_bitmap PRIVATE PNG::PNG m)
  if(COMMAND examples_warnings)
    examples_warnings(books_check_bitmap)
  endif()
  books_test(cbe_shared_bitmap --program cuda-by-example/chapter05/shared_bitmap.cu
             --expect-n 1 "^CPU runner: no display: DISPLAY is not set: the window's image \\(1024x1024\\) was written to shared_bitmap\\.png$"
             --check "$<TARGET_FILE:books_check_bitmap> shared_bitmap.png")
endif()

# --- Fan, chapter 8: reduce2gpu (10^8 x 1.23, 100 repeats of 3 kernels: about 47 s a launch, four hours, on the
# runner) at N = 128000 (a multiple of 128, as the book's N is: reduce_global reads whole
# blocks) and 2 repeats. Every block sums to 128 x 1.23 exactly; the host adds 1000 of them.
set(books_reduce_size --sed "s/^const int NUM_REPEATS = 100/const int NUM_REPEATS = 2/"
                      --sed "s/^const int N = 100000000/const int N = 128000/")
foreach(precision sp dp)
  books_test(fan_reduce2gpu_${precision}_build --program ${books_fan}/08-shared-memory/reduce2gpu.cu
             ${books_${precision}} --build-only)
endforeach()
set(books_reduce2gpu_sp --program ${books_fan}/08-shared-memory/reduce2gpu.cu ${books_reduce_size}
    --line 3 "sum = 157438.796875." --expect-n 3 "^sum = " --expect-n 6 "^Time = ")
books_test(fan_reduce2gpu_sp ${books_reduce2gpu_sp})
books_test(fan_reduce2gpu_sp_reverse ${books_reduce2gpu_sp} --order reverse)
books_test(fan_reduce2gpu_dp --program ${books_fan}/08-shared-memory/reduce2gpu.cu ${books_dp} ${books_reduce_size}
           --line 3 "sum = 157440.000000." --expect-n 3 "^sum = " --expect-n 6 "^Time = ")

# bank.cu takes its size on the command line: N = 10 prints both matrices, B = A transposed
# (A[n] = n), once after both kernels; 11 launches per kernel of 32 x 32 threads (the first
# untimed) are quick as written.
set(books_bank_lines --line 1 "A =" --line 1 "B =" --expect-n 24 "^Time = " --expect-n 2 "^Time = .* \\+- ")
foreach(row RANGE 9)
  set(a_row "")
  set(b_row "")
  foreach(column RANGE 9)
    math(EXPR a "${row} * 10 + ${column}")
    math(EXPR b "${column} * 10 + ${row}")
    string(APPEND a_row "${a}\t")
    string(APPEND b_row "${b}\t")
  endforeach()
  list(APPEND books_bank_lines --line 1 "${a_row}" --line 1 "${b_row}")
endforeach()
books_test(fan_bank_sp --program ${books_fan}/08-shared-memory/bank.cu --arg 10 ${books_bank_lines})
books_test(fan_bank_sp_reverse --program ${books_fan}/08-shared-memory/bank.cu --arg 10 ${books_bank_lines}
           --order reverse)
books_test(fan_bank_dp --program ${books_fan}/08-shared-memory/bank.cu ${books_dp} --arg 10 ${books_bank_lines})

# --- Fan, chapter 9: reduce.cu (one atomicAdd per block: equal block sums, so the order of
# the atomics cannot change the answer) at the sizes of chapter 8.
foreach(precision sp dp)
  books_test(fan_atomic_reduce_${precision}_build --program ${books_fan}/09-atomic/reduce.cu
             ${books_${precision}} --build-only)
endforeach()
books_test(fan_atomic_reduce_sp --program ${books_fan}/09-atomic/reduce.cu ${books_reduce_size}
           --line 1 "sum = 157438.796875." --expect-n 1 "^sum = " --expect-n 2 "^Time = ")
books_test(fan_atomic_reduce_dp --program ${books_fan}/09-atomic/reduce.cu ${books_dp} ${books_reduce_size}
           --line 1 "sum = 157440.000000." --expect-n 1 "^sum = " --expect-n 2 "^Time = ")

# The neighbour lists (22464 atoms, 20 repeats, O(N^2) each) on the first 1000 atoms of
# xy.txt and 2 repeats; neighbor.txt must be the book's, restricted to those atoms.
# neighbor1cpu.cu has no kernel: a .cu of host code only must build and run too.
set(books_neighbor_size --sed "s/^const int NUM_REPEATS = 20/const int NUM_REPEATS = 2/" --head xy.txt 1000)
set(books_neighbor_check "sh ${books_dir}/neighbor_check.sh ${books_sources}/${books_fan}/09-atomic/neighbor.txt 1000")
foreach(precision sp dp)
  books_test(fan_neighbor2gpu_${precision}_build --program ${books_fan}/09-atomic/neighbor2gpu.cu
             ${books_${precision}} --build-only)
  books_test(fan_neighbor2gpu_${precision} --program ${books_fan}/09-atomic/neighbor2gpu.cu ${books_${precision}}
             ${books_neighbor_size} --expect-n 4 "^Time = " --check "${books_neighbor_check}")
endforeach()
books_test(fan_neighbor1cpu_build --program ${books_fan}/09-atomic/neighbor1cpu.cu --build-only)
books_test(fan_neighbor1cpu --program ${books_fan}/09-atomic/neighbor1cpu.cu ${books_neighbor_size}
           --expect-n 2 "^Time = " --check "${books_neighbor_check}")

# --- Fan, chapter 10.
# warp.cu: one block of 16 threads (half a warp: the masks name 16 lanes that do not exist,
# as the book's FULL_MASK does) printing from the kernel; the book's output, line for line,
# in the order a warp that runs in step prints it.
set(books_warp --program ${books_fan}/10-warp/warp.cu --in-order
           --line 1 "threadIdx.x:  0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 "
           --line 1 "lane_id:      0  1  2  3  4  5  6  7  0  1  2  3  4  5  6  7 "
           --line 1 "FULL_MASK = ffffffff" --line 1 "mask1     = fffe" --line 1 "mask2     = 1"
           --line 1 "all_sync (FULL_MASK): 0" --line 1 "all_sync     (mask1): 1"
           --line 1 "any_sync (FULL_MASK): 1" --line 1 "any_sync     (mask2): 0"
           --line 1 "shfl:       2  2  2  2  2  2  2  2 10 10 10 10 10 10 10 10 "
           --line 1 "shfl_up:    0  0  1  2  3  4  5  6  8  8  9 10 11 12 13 14 "
           --line 1 "shfl_down:  1  2  3  4  5  6  7  7  9 10 11 12 13 14 15 15 "
           --line 1 "shfl_xor:   1  0  3  2  5  4  7  6  9  8 11 10 13 12 15 14 ")
books_test(fan_warp ${books_warp})
books_test(fan_warp_reverse ${books_warp} --order reverse) # a GPU prints the same whatever the order
# reduce.cu: __syncwarp, __shfl_down_sync and a cooperative-groups tile, each with atomicAdd.
foreach(precision sp dp)
  books_test(fan_warp_reduce_${precision}_build --program ${books_fan}/10-warp/reduce.cu
             ${books_${precision}} --build-only)
endforeach()
set(books_warp_reduce_sp --program ${books_fan}/10-warp/reduce.cu ${books_reduce_size}
    --line 3 "sum = 157438.796875." --expect-n 3 "^sum = " --expect-n 6 "^Time = ")
books_test(fan_warp_reduce_sp ${books_warp_reduce_sp})
books_test(fan_warp_reduce_sp_random ${books_warp_reduce_sp} --order random:2)
books_test(fan_warp_reduce_sp_lockstep ${books_warp_reduce_sp} --order lockstep)
books_test(fan_warp_reduce_dp --program ${books_fan}/10-warp/reduce.cu ${books_dp} ${books_reduce_size}
           --line 3 "sum = 157440.000000." --expect-n 3 "^sum = " --expect-n 6 "^Time = ")
# reduce1parallelism.cu and reduce2static.cu (a __device__ array found by cudaGetSymbolAddress):
# GRID_SIZE blocks of 128 threads in a grid-stride loop, then one block of 1024 over their sums.
# At N = 1280000 and 160 blocks every thread adds 62 or 63 values: float shows its rounding.
set(books_grid_size --sed "s/^const int NUM_REPEATS = 100/const int NUM_REPEATS = 2/"
                    --sed "s/^const int N = 100000000/const int N = 1280000/"
                    --sed "s/^const int GRID_SIZE = 10240/const int GRID_SIZE = 160/")
foreach(program reduce1parallelism reduce2static)
  foreach(precision sp dp)
    books_test(fan_${program}_${precision}_build --program ${books_fan}/10-warp/${program}.cu
               ${books_${precision}} --build-only)
  endforeach()
  books_test(fan_${program}_sp --program ${books_fan}/10-warp/${program}.cu ${books_grid_size}
             --line 1 "sum = 1574400.250000." --expect-n 1 "^sum = " --expect-n 2 "^Time = ")
  books_test(fan_${program}_dp --program ${books_fan}/10-warp/${program}.cu ${books_dp} ${books_grid_size}
             --line 1 "sum = 1574400.000000." --expect-n 1 "^sum = " --expect-n 2 "^Time = ")
endforeach()

# --- cpu_runner/glut_fallback.c on a program of our own that calls GLUT as cpu_bitmap.h does:
# the PNG without a display (exactly the pixels drawn), the real window under Xvfb if installed.
find_package(GLUT QUIET)
find_package(OpenGL QUIET)
if(PNG_FOUND AND GLUT_FOUND AND TARGET GLUT::GLUT AND TARGET OpenGL::GL)
  add_executable(books_glut_window ${books_dir}/glut_window.c ${books_root}/cpu_runner/glut_fallback.c)
  target_link_libraries(books_glut_window PRIVATE GLUT::GLUT OpenGL::GL PNG::PNG ${CMAKE_DL_LIBS})
  target_link_options(books_glut_window PRIVATE
    "LINKER:--wrap=glutInit,--wrap=glutInitDisplayMode,--wrap=glutInitWindowSize,--wrap=glutCreateWindow"
    "LINKER:--wrap=glutDisplayFunc,--wrap=glutKeyboardFunc,--wrap=glutMouseFunc,--wrap=glutIdleFunc"
    "LINKER:--wrap=glutReshapeFunc,--wrap=glutPostRedisplay,--wrap=glutSwapBuffers,--wrap=glutMainLoop"
    "LINKER:--wrap=glClearColor,--wrap=glClear,--wrap=glFlush,--wrap=glDrawPixels")
  set_target_properties(books_glut_window PROPERTIES OUTPUT_NAME glut_window)
  if(COMMAND examples_warnings)
    examples_warnings(books_glut_window)
  endif()
  add_test(NAME books_glut_fallback
           COMMAND sh ${books_dir}/glut_fallback_test.sh $<TARGET_FILE:books_glut_window>
                   ${CMAKE_CURRENT_BINARY_DIR}/books_glut_fallback)
  set_tests_properties(books_glut_fallback PROPERTIES LABELS cpu TIMEOUT 120)
else()
  message(STATUS "books_glut_fallback: not built (needs libpng, freeglut and OpenGL: Debian libpng-dev, freeglut3-dev)")
  if(COMMAND add_skipped_test) # registered all the same: every build lists the same tests (readme_figures)
    add_skipped_test(books_glut_fallback cpu "needs libpng, freeglut and OpenGL (Debian libpng-dev, freeglut3-dev)")
  endif()
endif()
