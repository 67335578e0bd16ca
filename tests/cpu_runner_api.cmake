# The device API a learner's kernel calls, on the CPU runner (tests/cpu_runner_api.cu, one kernel per
# case; cpu_runner/cuda_on_cpu.h and cpu_runner/stubs/cooperative_groups*). Each expected value below
# is worked out by hand from the CUDA documentation's definition (the comment says how), not taken
# from a run; every deterministic case is checked in four thread orders.
if(EXAMPLES_CPU_RUNNER)
  add_cpu_twin(cpu_runner_api cpu_runner_api.cu)
  set(api $<TARGET_FILE:cpu_runner_api_cpu>)
  set(no_finding "^CPU runner: (race|read of|warp|divergent|barrier|deadlock|.*out of bounds)")
  foreach(order forward reverse random:1 lockstep)
    string(REPLACE ":" "_" tag ${order})
    # ballot of lane % 3 == 0: lanes 0, 3, ..., 30 = 0x49249249; any(lane == 5) 1, any(0) 0, all(lane < 32) 1,
    # all(lane != 7) 0; lanes 0-15 with mask 0xffff, ballot(lane & 1) = 0xaaaa. Both warps alike.
    add_cpu_test(cpu_api_votes_${tag} 0 --stdout-matches "^warp0 49249249 1 0 1 0 aaaa$"
      --stdout-matches "^warp1 49249249 1 0 1 0 aaaa$" --stdout-lacks "${no_finding}" ${api} votes --cpu-order ${order})
    # the even lanes in one branch (0x55555555), the odd in the other (0xaaaaaaaa); after lanes 20-31 exit: 0xfffff
    add_cpu_test(cpu_api_activemask_${tag} 0 --stdout-matches "^branches 55555555 aaaaaaaa 55555555 aaaaaaaa$"
      --stdout-matches "^after_exit fffff fffff$" --stdout-lacks "${no_finding}" ${api} activemask --cpu-order ${order})
    # lane 5: match_any(lane / 4) = lanes 4-7 = 0xf0; match_any((float)(lane % 2)) = odd lanes; match_all(7) = all,
    # pred 1; match_all(lane) = 0, pred 0
    add_cpu_test(cpu_api_match_${tag} 0 --stdout-matches "^match f0 aaaaaaaa ffffffff 1 0 0$"
      --stdout-lacks "${no_finding}" ${api} match --cpu-order ${order})
    # add 0..31 = 496; min(lane - 10) = -10; max 31; and of lane|0x100 = 256; or = 0x11f = 287; xor 0..31 = 0;
    # 32 * 0x7fffffff mod 2^32 = 0xffffffe0 = -32
    add_cpu_test(cpu_api_reduce_sync_${tag} 0 --stdout-matches "^reduce 496 -10 31 256 287 0 -32$"
      --stdout-lacks "${no_finding}" ${api} reduce_sync --cpu-order ${order})
    # 100 threads: t % 3 == 0 for 34 of them; and(t < 100) 1, and(t != 50) 0, or(t == 99) 1, or(0) 0
    add_cpu_test(cpu_api_block_votes_${tag} 0 --stdout-matches "^block 34 1 0 1 0$"
      --stdout-lacks "${no_finding}" ${api} block_votes --cpu-order ${order})
    # 64 threads, t = 0..63. add: 64 x 1, 64 x 2^33 = 549755813888, 64 x 0.5, 64 x 0.25, float2/float4 64 x (1,2,3,4).
    # sub: 0 - 64, 100 - 64. exch: the old values returned plus the last one = -1 + (0 + ... + 63) = 2015.
    # min/max of t - 20: -20, 43; min t + 5: 5; max 3t: 189; (t - 20) x 10^10: -2 x 10^11, 4.3 x 10^11;
    # (t + 1) << 40 min: 2^40; t << 40 max: 63 x 2^40. inc wraps at 9 (period 10): 64 incs from 0 = 4; dec from 0:
    # 9, 8, 7, 6 after 4 (64 mod 10); inc from 20 > 9: 0; dec from 20 > 9: 9. CAS loops add 0..63 = 2016 (ull: << 32),
    # unsigned short 65500 + 64 mod 65536 = 28. and clears bits 0-30 of -1: INT_MIN; or of bits 0-7: 255; xor 0..63 = 0;
    # each of 32 bits cleared / set / toggled twice; xor of 3 << t leaves bit 0. Scopes: 64 x 2 - 64, 64 x 3.
    # Shared: sum 2016, max of t % 50 = 49, or of bits 0-3 = 15.
    add_cpu_test(cpu_api_atomics_${tag} 0
      --stdout-matches "^add 64 64 549755813888 32 16 64 128 64 128 192 256$" --stdout-matches "^sub -64 36$"
      --stdout-matches "^exch 2015 1$"
      --stdout-matches "^min_max -20 43 5 189 -200000000000 430000000000 1099511627776 69269232549888$"
      --stdout-matches "^inc_dec 4 6 0 9$" --stdout-matches "^cas 2016 2016 8658654068736 28$"
      --stdout-matches "^bitwise -2147483648 255 0 0 ffffffff 0 0 ffffffffffffffff 1$"
      --stdout-matches "^scopes 64 192$" --stdout-matches "^shared 2016 49 15$"
      --stdout-lacks "${no_finding}" ${api} atomics --cpu-order ${order})
    # tiles of 8 and 4, a warp of 32 (block of 64; thread 41 = lane 9 of warp 1, rank 1 of its tile of 8 (40-47)):
    # butterfly sum 40..47 = 348; shfl_up 1: 40; shfl rank 3: 43; ballot of even t: ranks 0,2,4,6 = 0x55 = 85;
    # tile4 any(t == 6) 0, all(t < 60) 1; match_any(t / 8): lanes 8-15 = 0xff00 = 65280; shfl(t / 2.0, 31) = 31.5;
    # a 12-byte struct from rank 3 (t 43): 43 + 86 + 129 = 258; ranks 9, 1 of 2; 1, 5 of 8; 1, 0 of 2; size 8.
    # warp 1's sum by shfl_down at lane 0: 32 + ... + 63 = 1520.
    add_cpu_test(cpu_api_cg_tiles_${tag} 0 --stdout-matches "^tiles 348 40 43 85 0 1 65280 31 258 9 1 2 1 5 8 1 0 2 8$"
      --stdout-matches "^warp1 1520$" --stdout-lacks "${no_finding}" ${api} cg_tiles --cpu-order ${order})
    # cg::reduce, in the toolkit's order (cpu_runner/stubs/cooperative_groups/reduce.h). Lane 0 holds 1, the others
    # e = 2^-24 (half an ulp of 1). The butterfly (m = 16, 8, 4, 2, 1): lane 0 gets 1 + e = 1 (a tie, to even), then
    # 1 + 2e, 1 + 6e, 1 + 14e, 1 + 30e = 1 + 15 x 2^-23 = 0x3f80000f (a sum in lane order gives 1, the exact sum
    # rounds to 0x3f800010). Tile of 8 (t 32-39): 284 = 0x11c; min of 100 - t over warp 1: 37 = 0x25; max 63;
    # and of 0xff ^ (1 << lane % 8): 0; or over a tile of 8 of 1 << lane: 0xff; xor 0..31: 0; a lambda's double sum
    # of 32..63 = 1520 = 0x5f0.
    # A coalesced group of the 11 lanes 0, 3, ..., 30 (thread 35 = lane 3, rank 1): sum 165 = 0xa5; the float one is
    # the toolkit's scan over ranks (rank 0 holds 1, ranks 1-10 e): steps 1, 2, 4, 8 leave rank 10 with 1 + 10e =
    # 0x3f800005; size 11, rank 1, ballot of even ranks 0x555, shfl(rank 2) = lane 6 + 100 x shfl_down(1) = lane 6:
    # 606 = 0x25e.
    add_cpu_test(cpu_api_cg_reduce_${tag} 0 --stdout-matches "^reduce 3f80000f 11c 25 3f 0 ff 0 5f0$"
      --stdout-matches "^coalesced a5 3f800005 b 1 555 25e$" --stdout-lacks "${no_finding}" ${api} cg_reduce --cpu-order ${order})
    # warp-aggregated atomics: the 22 threads with t % 3 == 0 (11 per warp) each get a distinct slot 0-21
    add_cpu_test(cpu_api_cg_coalesced_${tag} 0 --stdout-matches "^aggregated 22 3fffff$"
      --stdout-lacks "${no_finding}" ${api} cg_coalesced --cpu-order ${order})
    # thread 45 (lane 13 of warp 1): tiled_partition(block, 4): size 4, rank 1; labeled by t % 4: 8 lanes, rank 3
    # (33, 37, 41, 45), their sum 33 + 37 + ... + 61 = 376; binary partition of odd t: 16 lanes, rank 6
    add_cpu_test(cpu_api_cg_partitions_${tag} 0 --stdout-matches "^partitions 4 1 8 3 16 6 376$"
      --stdout-lacks "${no_finding}" ${api} cg_partitions --cpu-order ${order})
    # a block of (32, 3) in a grid of 3, thread rank 37 of block 2: size 96, the neighbour's rank 38, block 2,
    # thread (5, 1), 32 x 3; grid: block rank 2, thread rank 2 x 96 + 37 = 229, 3 blocks; this_thread() 1;
    # as a thread_group: 96 + 37
    add_cpu_test(cpu_api_cg_block_${tag} 0 --stdout-matches "^block 96 96 38 2 5 1 32 3 2 229 3 1 133$"
      --stdout-lacks "${no_finding}" ${api} cg_block --cpu-order ${order})
    # the last block to finish, after __threadfence() and atomicInc, adds the blocks' partial sums: 0 + ... + 255
    add_cpu_test(cpu_api_threadfence_last_block_${tag} 0 --stdout-matches "^total 32640$"
      --stdout-lacks "${no_finding}" ${api} last_block --cpu-order ${order})
  endforeach()
  # One thread each, no order to vary. Integer intrinsics (hex): popc 0xf0f0f0f0 = 16, popcll 40 ones = 40,
  # clz(1) 31, clz(0) 32, clz(-1) 0, clzll(1) 63, ffs(0) 0, ffs(0x80) 8, ffsll(2^40) 41, brev(1) 0x80000000,
  # brev(0x12345678) 0x1e6a2c48, brevll(1) 2^63; byte_perm(0x33221100, 0x77665544): selector 0x7531 takes bytes
  # 1,3,5,7 = 0x77553311, 0x0123 = 0x00112233; funnelshift of 0x0123456789abcdef: left 8 (and 40 & 31) 0x23456789,
  # left clamped to 32: the low word 0x89abcdef, right 8: 0x6789abcd, right clamped: 0x01234567; mul24(-2^23, 2)
  # = -2^24, mul24(2^23 - 1, same) = 2^46 - 2^24 + 1 -> low word 0xff000001, umul24 drops bit 24: 3 x 5;
  # mulhi(2^30, 8) 2, mulhi(-1, 1) -1, umulhi(2^32 - 1 squared) 0xfffffffe; mul64hi(-1, 1) -1, umul64hi 2^64 - 2;
  # sad |3 - 10| + 100 = 107, usad 8; hadd(INT_MAX, INT_MAX) INT_MAX, rhadd(1, 2) 2, hadd(-3, 0) floor(-1.5) = -2,
  # uhadd 0x80000000, urhadd 0xffffffff; dp4a 1+2+3+4+10 = 20, signed (-1)2 + (-1)2 = -4.
  add_cpu_test(cpu_api_bits 0 --stdout-matches "^bits 10 28 1f 20 0 3f 0 8 29 80000000 1e6a2c48 8000000000000000 77553311 112233 23456789 23456789 89abcdef 6789abcd 1234567 ff000000 ff000001 f 2 ffffffff fffffffe ffffffffffffffff fffffffffffffffe 6b 8 7fffffff 2 fffffffe 80000000 ffffffff 14 fffffffc$"
    ${api} bits)
  # CUDA's overloads: min(int, unsigned) is unsigned (-1 -> 2^32 - 1 loses to 1); min(2.5f, NaN) = 2.5 (fminf);
  # max(-7ll, 8ull) is unsigned long long: 2^64 - 7. The host gets the same; std::min/max still work beside them.
  add_cpu_test(cpu_api_min_max 0 --stdout-matches "^min_max -4 4 1 4294967295 2.5 2 -5 2 5 7 1.8446744073709552e\\+19$"
    --stdout-matches "^host_same 1 std 2.5$" ${api} min_max)
  # Rounded arithmetic (IEEE in the named mode, bits in hex): 1 + 1e-8 is 1 (rn, rd, rz) or 1 + 2^-23 (ru);
  # 1/3 = 0x3eaaaaab (rn, ru), 0x3eaaaaaa (rz); (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46: 0x3f800002 (rn), 0x3f800003 (ru);
  # sqrt(2) 0x3fb504f3 (rn, below), 0x3fb504f4 (ru); fma(0x3eaaaaab, 3, 0) = 1 + 2^-25: 1 (rn, rz), 1 + 2^-23 (ru);
  # 2^24 + 1 to float: 2^24 (rz), 2^24 + 2 (ru); 2^24 + 3 (rn) ties to even 2^24 + 4; saturate 1.5 1, -0.5 0, NaN 0,
  # 0.25; fdividef(1, 3e38) 0 (|y| > 2^126), 6/3 2; the reinterpretations; rsqrtf(4) rcbrtf(8) 0.5; powf(2, 10) 1024;
  # log2f(8) 3; sinpi 1 +0, -2 -0, 0.5 1, 1.5 -1; cospi 0.5 +0, 1 -1; norm3d(3, 4, 12) 13; rhypot(3, 4) 0.2f;
  # normcdf(0) 0.5; normcdfinv(0.5) 0; erfcinv(1) 0.
  # Double: 1 + 1e-20 ru 1 + 2^-52; 1/3 rz ...555, ru ...556; fma(1/3, 3, 0) = 1 - 2^-54: rn 1 (a tie, to even),
  # rd 1 - 2^-53, ru 1; sqrt(2) ru ...bcd, rd ...bcc; drcp_ru(3) ...556; the bit casts; rsqrt(0.25) 2; rcbrt(27) 1/3;
  # sinpi(1) +0; cospi(2) 1.
  # To integer: rn 2.5 -> 2, 3.5 -> 4, -2.5 -> -2; rz -2.7 -> -2; ru 2.1 -> 3; rd -2.1 -> -3; 1e10 clamps to INT_MAX,
  # NaN 0, -5 to unsigned 0 (clamped, as the GPU's cvt); ...; ll2double(2^53 + 1) rd 2^53, ru 2^53 + 2.
  # Approximate (5 digits): __expf(1) e, __logf(e) 1, __exp10f(2) 100, __log10f(1000) 3, sin, cos, tan of 0.5,
  # sin^2 + cos^2 1, sincospi(0.25) sqrt(2), exp10f 100, fdividef(1, 3e38) 3.3333e-39, erfinv(0.5) 0.47694,
  # erfinv(erf(0.3)) 0.3, normcdfinv(0.975) 1.96, 1/13, normf(1, 2, 2) 3, erfcx(1) 0.42758.
  add_cpu_test(cpu_api_floats 0
    --stdout-matches "^f 3f800000 3f800001 3f800000 bf800000 bf800001 3f800001 3eaaaaaa 3eaaaaab 3eaaaaab 3f800002 3f800003 3fb504f3 3fb504f4 3eaaaaaa 3f800000 3f800001 3f800000 4b800000 4b800001 4b800002 3eaaaaaa 3eaaaaab 3f800000 00000000 00000000 3e800000 00000000 40000000 40490fdb 3f800000 80000000 7f800000 3f000000 3f000000 44800000 40400000 00000000 80000000 3f800000 bf800000 00000000 bf800000 41500000 3e4ccccd 3f000000 00000000 00000000$"
    --stdout-matches "^d 3ff0000000000001 3ff0000000000000 3fd5555555555555 3fd5555555555556 3ff0000000000000 3fefffffffffffff 3ff0000000000000 3ff6a09e667f3bcd 3ff6a09e667f3bcc 3fefffffffffffff 3fd5555555555556 4000000000000000 3ff0000000000000 0000000040000000 4000000000000000 3fd5555555555555 0000000000000000 3ff0000000000000$"
    --stdout-matches "^n 2 4 -2 -2 3 -3 2147483647 0 0 5 -2 1 0 -1 7 1000000000000001 2 9007199254740992 9007199254740994 16777216 16777218$"
    --stdout-matches "^v 2.7183 1 100 3 0.47943 0.87758 0.5463 1 0.47943 1.4142 100 3.3333e-39 0.47694 0.3 1.96 0.076923 3 0.42758$"
    ${api} floats)
  # clock() and clock64() in a kernel increase between two reads; clock() on the host too, std::clock() builds
  add_cpu_test(cpu_api_clock 0 --stdout-matches "^increasing 1 host 1 1$" ${api} times)
  # __trap() in thread 5: the kernel stops, one line with its place, exit 3, the host does not go on
  add_cpu_test(cpu_api_trap 3
    --stdout-matches "^CPU runner: __trap\\(\\) at tests/cpu_runner_api.cu:[0-9]+ in thread \\(5,0,0\\) of block \\(0,0,0\\)"
    --stdout-lacks "^sync" ${api} trap)
  # assert() in a kernel: holds (exit 0); fails: glibc's message on stderr, then one line naming the kernel,
  # the thread and the block, exit 3 (a GPU: cudaErrorAssert)
  add_cpu_test(cpu_api_assert_holds 0 --stdout-matches "^sync cudaSuccess$" ${api} assert_holds)
  add_cpu_test(cpu_api_assert_fails 3 --stdout-lacks "^sync"
    --stdout-matches "^CPU runner: .*launched at tests/cpu_runner_api.cu:[0-9]+: an assert\\(\\) failed in thread [0-9]+ of block"
    ${api} assert_fails)
  # printf in a kernel, each thread's line
  add_cpu_test(cpu_api_printf 0 --stdout-matches "^thread 1 of block 0 says 0.25$"
    --stdout-matches "^thread 0 of block 1 says 0.00$" ${api} printf)
  # grid.sync() cannot be modelled (the blocks run one after another): the build fails, one error line naming it
  # (newlines, not semicolons, between the shell's commands: CMake would split the argument at a semicolon)
  add_test(NAME cpu_api_grid_sync_does_not_build
    COMMAND sh -c "out=$(\"$0\" \"$1/scripts/cuda_on_cpu\" --build-only -D CPU_RUNNER_API_GRID_SYNC -o \"$2\" \"$1/tests/cpu_runner_api.cu\" 2>&1)
status=$?
echo \"$out\"
[ $status -eq 2 ] && [ $(echo \"$out\" | grep -c 'error:') -eq 1 ] && echo \"$out\" | grep -q 'error: .*grid_group::sync() (grid.sync()) is not modelled by the CPU runner'"
            ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/cpu_api_grid_sync)
  set_tests_properties(cpu_api_grid_sync_does_not_build PROPERTIES LABELS cpu TIMEOUT 300)
endif()
