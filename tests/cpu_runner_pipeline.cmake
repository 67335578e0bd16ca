# <cuda_pipeline.h>'s asynchronous copies on the CPU runner (cpu_runner/runtime.c, docs/CPU_RUNNER.md):
# one kernel per rule (tests/cpu_runner_pipeline.cu), each checked for what it computes and what the runner
# reports, with the kernel's lines; the deterministic ones in four thread orders. The double-buffered tile
# loop and its planted bugs are in tests/runner_suite/pipeline_*.cu.
# (A ";" in a pattern would split it in two: CMake lists; "." stands for it.)
if(EXAMPLES_CPU_RUNNER)
  add_cpu_twin(cpu_runner_pipeline cpu_runner_pipeline.cu)
  set(pipeline $<TARGET_FILE:cpu_runner_pipeline_cpu>)
  set(pending "^CPU runner: race on shared memory: a thread reads or writes bytes an asynchronous copy \\(__pipeline_memcpy_async\\) has not landed in yet")
  set(any_finding "^CPU runner: [a-z]")
  set(read_line "^  at tests/cpu_runner_pipeline.cu:24: thread [0-9]+ of block \\([01],0,0\\). the copy at tests/cpu_runner_pipeline.cu:20, thread [0-9]+")
  foreach(order forward reverse random:1 lockstep)
    string(REPLACE ":" "_" tag ${order})
    # Ten batches, thread 0's value of each (in[32 b] = 32 b), then the copy never committed. wait_prior(1): all
    # but the newest batch landed; wait_prior(9): all but the newest 8 (the toolkit waits as for 8); wait_prior(0):
    # all ten. The copy never committed lands at no wait: its bytes still read -1 (never written), a finding.
    add_cpu_test(cpu_pipeline_wait_prior_1_${tag} 1 --stdout-matches "^batches 0 32 64 96 128 160 192 224 256 -1 -1$"
      --stdout-matches "${pending}" --stdout-matches "${read_line}" ${pipeline} batches 1 --cpu-order ${order})
    add_cpu_test(cpu_pipeline_wait_prior_9_${tag} 1 --stdout-matches "^batches 0 32 -1 -1 -1 -1 -1 -1 -1 -1 -1$"
      --stdout-matches "${read_line}" ${pipeline} batches 9 --cpu-order ${order})
    add_cpu_test(cpu_pipeline_uncommitted_${tag} 1 --stdout-matches "^batches 0 32 64 96 128 160 192 224 256 288 -1$"
      --stdout-matches "${read_line}" ${pipeline} batches 0 --cpu-order ${order})
    # A thread's own copy: read after its wait, in[4 t] (0, 4, 8) and no finding; before it, the bytes it held
    # (never written: -1) and a finding naming the read, the copy and the same thread.
    add_cpu_test(cpu_pipeline_own_read_after_wait_${tag} 0 --stdout-matches "^own 0 4 8$" --stdout-lacks "${any_finding}"
      ${pipeline} own_read 1 --cpu-order ${order})
    add_cpu_test(cpu_pipeline_own_read_before_wait_${tag} 1 --stdout-matches "^own -1 -1 -1$"
      --stdout-matches "^  at tests/cpu_runner_pipeline.cu:34: thread ([0-9]+) of block \\(0,0,0\\). the copy at tests/cpu_runner_pipeline.cu:31, thread \\1 "
      ${pipeline} own_read 0 --cpu-order ${order})
    # zfill 12 of 16: in[4] = 4 then three zeros over the 5s; zfill 16 from one past the end of in: four zeros,
    # nothing read (no out-of-bounds finding)
    add_cpu_test(cpu_pipeline_zfill_${tag} 0 --stdout-matches "^zfill 4 0 0 0 0 0 0 0$" --stdout-lacks "${any_finding}"
      ${pipeline} zfill --cpu-order ${order})
    # Copies of threads that exited unwaited: landed (in[0], in[4], in[8]), but read by the other warp: a finding
    add_cpu_test(cpu_pipeline_exit_unwaited_${tag} 1 --stdout-matches "^landed 0 4 8$"
      --stdout-matches "^  at tests/cpu_runner_pipeline.cu:62: thread [0-9]+ of block \\(0,0,0\\). the copy at tests/cpu_runner_pipeline.cu:57, thread [0-9]+ \\(that thread exited without waiting for it"
      ${pipeline} exit_unwaited --cpu-order ${order})
    # Counted (CUDA_CPU_ACCESSES, cpu_runner/warp_accesses.c): a copy's source bytes as a global load, 16 bytes a
    # lane in 16 sectors; zfill 12 of 16 its 4 bytes, zfill 16 nothing (no load of 16 bytes).
    set(loaded "^code 0x[0-9a-f]+ space global op ld bytes")
    add_cpu_test(cpu_pipeline_copies_counted_${tag} 0
      --stdout-matches "${loaded} 16 warps 1 passes 16 ideal 16 conflicted 0 max 16 misaligned 0 accesses 32 kernel own_read$"
      env CUDA_CPU_ACCESSES=- ${pipeline} own_read 1 --cpu-order ${order})
    add_cpu_test(cpu_pipeline_zfill_counted_${tag} 0
      --stdout-matches "${loaded} 4 warps 1 passes 16 ideal 4 conflicted 1 max 16 misaligned 0 accesses 32 kernel zfill$"
      --stdout-lacks "${loaded} 16 " env CUDA_CPU_ACCESSES=- ${pipeline} zfill --cpu-order ${order})
    # A source overwritten while its copy is in flight (after the barrier, before the wait)
    add_cpu_test(cpu_pipeline_source_overwritten_${tag} 1
      --stdout-matches "^CPU runner: race on global memory: a thread overwrites bytes an asynchronous copy still in flight reads"
      --stdout-matches "^  at tests/cpu_runner_pipeline.cu:74: thread [0-9]+ of block \\(0,0,0\\). the copy at tests/cpu_runner_pipeline.cu:71, thread [0-9]+"
      ${pipeline} source_overwritten --cpu-order ${order})
    # A barrier while every copy is in flight, then the waits, then a barrier: the neighbours' values (in[t + 1]),
    # no finding. Without the barrier after the waits: a thread reads its neighbour's landed int, the ordinary race
    # (named with the copy's line).
    add_cpu_test(cpu_pipeline_neighbour_${tag} 0 --stdout-matches "^neighbour 1 2 3$" --stdout-lacks "${any_finding}"
      ${pipeline} neighbour 1 --cpu-order ${order})
    add_cpu_test(cpu_pipeline_neighbour_no_barrier_${tag} 1
      --stdout-matches "^  at tests/cpu_runner_pipeline.cu:107: thread [0-9]+ of block \\(0,0,0\\). the other access at tests/cpu_runner_pipeline.cu:102, thread [0-9]+"
      ${pipeline} neighbour 0 --cpu-order ${order})
    # A copy into bytes another thread read since the last barrier: its issue is the write (the missing trailing
    # barrier of a double-buffered loop, in miniature).
    add_cpu_test(cpu_pipeline_write_after_read_${tag} 0 --stdout-matches "^write_after_read 1 2 3$"
      --stdout-lacks "${any_finding}" ${pipeline} write_after_read 1 --cpu-order ${order})
    add_cpu_test(cpu_pipeline_write_after_read_no_barrier_${tag} 1
      --stdout-matches "^CPU runner: race on shared memory: a thread overwrites what another thread read"
      --stdout-matches "^  at tests/cpu_runner_pipeline.cu:119: thread [0-9]+ of block \\(0,0,0\\). the other access at tests/cpu_runner_pipeline.cu:117, thread [0-9]+"
      ${pipeline} write_after_read 0 --cpu-order ${order})
  endforeach()
  # One thread overwrites its own source before its wait: the copy lands 7, what the source holds at the wait
  # (the runner reads a source when the copy lands).
  add_cpu_test(cpu_pipeline_source_read_at_landing 1 --stdout-matches "^landed 7$"
    --stdout-matches "^  at tests/cpu_runner_pipeline.cu:74: thread 0 of block \\(0,0,0\\). the copy at tests/cpu_runner_pipeline.cu:71, thread 0$"
    ${pipeline} source_overwritten 1)
  # Misused copies, one a line (84-90), each a finding with its line and why; a wrong size or zfill stops the
  # kernel on a GPU (the toolkit's __trap(): cudaErrorLaunchFailure), a misaligned copy too (MisalignedAddress).
  set(misused "^CPU runner: asynchronous copy misused")
  set(at "^  at tests/cpu_runner_pipeline.cu")
  add_cpu_test(cpu_pipeline_misuse_size 1 --stdout-matches "${misused}" --stdout-matches "^sync: cudaErrorLaunchFailure$"
    --stdout-matches "${at}:84: thread 0 of block \\(0,0,0\\): size_and_align 12: a copy is 4, 8 or 16 bytes$" ${pipeline} misuse 0)
  add_cpu_test(cpu_pipeline_misuse_zfill 1 --stdout-matches "${misused}" --stdout-matches "^sync: cudaErrorLaunchFailure$"
    --stdout-matches "${at}:85: thread 0 of block \\(0,0,0\\): zfill 20 is more than size_and_align 16$" ${pipeline} misuse 1)
  add_cpu_test(cpu_pipeline_misuse_global_destination 1 --stdout-matches "${misused}"
    --stdout-matches "${at}:86: .*: its destination 0x[0-9a-f]+ is not shared memory \\(it is device memory\\)$" ${pipeline} misuse 2)
  add_cpu_test(cpu_pipeline_misuse_shared_source 1 --stdout-matches "${misused}"
    --stdout-matches "${at}:87: .*: its source 0x[0-9a-f]+ is shared memory, not global memory$" ${pipeline} misuse 3)
  add_cpu_test(cpu_pipeline_misuse_local_source 1 --stdout-matches "${misused}"
    --stdout-matches "${at}:88: .*: its source 0x[0-9a-f]+ is a thread's local variable, not global memory$" ${pipeline} misuse 4)
  foreach(case 5 6) # the destination, then the source, not a multiple of 8
    math(EXPR line "84 + ${case}")
    add_cpu_test(cpu_pipeline_misaligned_${case} 1 --stdout-matches "^CPU runner: misaligned address"
      --stdout-matches "${at}:${line}: thread 0 of block \\(0,0,0\\)$" --stdout-matches "^sync: cudaErrorMisalignedAddress$"
      ${pipeline} misuse ${case})
  endforeach()

  # sm_90's TMA and clusters, not modelled (tests/cpu_runner_sm90.cu): each unguarded use stops the build, every
  # error line the one sentence naming it (an inlined kernel can repeat it), built afresh each time (a build
  # cached by scripts/cuda_on_cpu is not redone when cpu_runner/source.py changes); with none, the program builds (its
  # cluster kernel guarded by #ifndef CUDA_CPU_RUNNER) and cudaLaunchKernelEx launches as <<<>>> does (x[i] 2 i),
  # or with a cluster of 2 blocks says it needs a GPU, one line, exit 3.
  foreach(use BARRIER_HEADER PTX_HEADER PIPELINE_HEADER NVCUDA_PIPELINE CLUSTER_DIMS THIS_CLUSTER BULK_COPY)
    if(use STREQUAL "PIPELINE_HEADER")
      set(why "needs a GPU: the CPU runner does not model cuda::pipeline")
    elseif(use STREQUAL "NVCUDA_PIPELINE")
      set(why "needs a GPU: the CPU runner does not model nvcuda::experimental::pipeline")
    else()
      set(why "needs sm_90 and a GPU: the CPU runner does not model TMA/clusters")
    endif()
    add_test(NAME cpu_sm90_${use}_does_not_build
      COMMAND sh -c "rm -f \"$2\"
out=$(\"$0\" \"$1/scripts/cuda_on_cpu\" --build-only -D USE_$3 -o \"$2\" \"$1/tests/cpu_runner_sm90.cu\" 2>&1)
status=$?
echo \"$out\"
[ $status -eq 2 ] && echo \"$out\" | grep -q \"error: .*$4\" && ! echo \"$out\" | grep 'error:' | grep -v \"$4\""
              ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cpu_sm90_${use} ${use} ${why})
    set_tests_properties(cpu_sm90_${use}_does_not_build PROPERTIES LABELS cpu TIMEOUT 300)
  endforeach()
  add_cpu_twin(cpu_runner_sm90 cpu_runner_sm90.cu)
  add_cpu_test(cpu_sm90_launch_kernel_ex 0 --stdout-matches "^launch: cudaSuccess$" --stdout-matches "^x 1 2 63 126$"
    --stdout-lacks "${any_finding}" $<TARGET_FILE:cpu_runner_sm90_cpu>)
  add_cpu_test(cpu_sm90_cluster_launch 3
    --stdout-matches "^CPU runner: tests/cpu_runner_sm90.cu:71: needs sm_90 and a GPU: the CPU runner does not model TMA/clusters \\(cudaLaunchKernelEx with a cluster of more than one block\\). Exit 3.$"
    --stdout-lacks "^x " $<TARGET_FILE:cpu_runner_sm90_cpu> cluster)
endif()
