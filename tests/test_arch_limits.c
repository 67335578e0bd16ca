/* tests/arch_limits.h: the limits table and the occupancy calculation, on
 * cases worked by hand (each comment shows the arithmetic).
 *   test_arch_limits               the unit tests
 * It is also the one door to the table for tests/res_usage.py (one table, not
 * a copy in Python):
 *   test_arch_limits --limits      the table, one architecture a line, tab-separated
 *   test_arch_limits --occupancy   reads "SM THREADS REGISTERS SHARED" lines, prints each
 *                                  followed by its blocks per SM and what limits them */
#include "arch_limits.h"
#include "unit.h"

#include <stdio.h>
#include <string.h>

static int blocks(int sm, int threads, int registers, int shared) {
    return arch_blocks_per_sm(arch_limits_of(sm), threads, registers, shared);
}

static const char *limited_by(int sm, int threads, int registers, int shared) {
    return arch_occupancy_of(arch_limits_of(sm), threads, registers, shared).limited_by;
}

static void test_table(void) {
    CHECK(arch_limits_of(75) != NULL && arch_limits_of(121) != NULL);
    CHECK(arch_limits_of(91) == NULL && arch_limits_of(0) == NULL);
    int previous = 0;
    for (int i = 0; i < ARCH_LIMITS_COUNT; ++i) {
        const arch_limits *l = &arch_limits_table[i];
        CHECK(l->sm > previous); /* ascending, each once */
        previous = l->sm;
        CHECK(l->max_threads_per_sm % ARCH_WARP == 0 && l->max_threads_per_sm >= ARCH_MAX_THREADS_PER_BLOCK);
        CHECK(l->registers_per_sm == 64 * 1024 && l->max_registers_per_thread == 255);
        CHECK(l->static_shared_per_block == 48 * 1024);
        /* one block may take all of an SM's shared memory but the reserved part */
        CHECK(l->max_shared_per_block + l->reserved_shared_per_block == l->shared_per_sm);
        CHECK(l->reserved_shared_per_block == (l->sm >= 80 ? 1024 : 0));
    }
    /* The Hopper figures the lessons were measured with: 2048 threads, 228 KiB. */
    CHECK(arch_limits_of(90)->max_threads_per_sm == 2048 && arch_limits_of(90)->shared_per_sm == 228 * 1024);
    /* A learner's RTX cards: 1024 (Turing) or 1536 threads, 64 or 100 KiB. */
    CHECK(arch_limits_of(75)->max_threads_per_sm == 1024 && arch_limits_of(75)->shared_per_sm == 64 * 1024);
    CHECK(arch_limits_of(86)->max_threads_per_sm == 1536 && arch_limits_of(86)->shared_per_sm == 100 * 1024);
    CHECK(arch_limits_of(89)->max_threads_per_sm == 1536 && arch_limits_of(120)->shared_per_sm == 100 * 1024);
}

/* The vendor's figures, written here from the CUDA Programming Guide's table of
 * technical specifications per compute capability (CUDA 13.0), independently of
 * arch_limits.h: resident threads per SM, shared memory per SM and the most one
 * block may opt in to, in KiB. Blocks per SM are not written here: they come from
 * the toolkit's own code (cudaOccMaxBlocksPerMultiprocessor, below). */
static const struct {
    int sm, threads_per_sm, shared_kib_per_sm, shared_kib_per_block;
} vendor[] = {
    {75, 1024, 64, 64},  {80, 2048, 164, 163}, {86, 1536, 100, 99},  {87, 1536, 164, 163},
    {89, 1536, 100, 99}, {90, 2048, 228, 227}, {100, 2048, 228, 227}, {103, 2048, 228, 227},
    {110, 1536, 228, 227}, {120, 1536, 100, 99}, {121, 1536, 100, 99},
};
enum { VENDOR_COUNT = (int)(sizeof vendor / sizeof vendor[0]) };

static void test_table_against_vendor(void) {
    CHECK((int)VENDOR_COUNT == (int)ARCH_LIMITS_COUNT); /* every row of the table has the vendor's figures */
    for (int i = 0; i < VENDOR_COUNT; ++i) {
        const arch_limits *l = arch_limits_of(vendor[i].sm);
        CHECK(l != NULL);
        if (!l) continue;
        CHECK(l->max_threads_per_sm == vendor[i].threads_per_sm);
        CHECK(l->shared_per_sm == vendor[i].shared_kib_per_sm * 1024);
        CHECK(l->max_shared_per_block == vendor[i].shared_kib_per_block * 1024);
    }
}

static void test_threads(void) {
    /* 1024 threads, 32 registers: 32 warps a block; Hopper holds 64 warps: 2;
     * Turing 32: 1; sm_86 48: 1 (the other 16 warp slots stay empty). */
    CHECK(blocks(90, 1024, 32, 0) == 2);
    CHECK(blocks(75, 1024, 32, 0) == 1);
    CHECK(blocks(86, 1024, 32, 0) == 1 && blocks(120, 1024, 32, 0) == 1);
    CHECK(strcmp(limited_by(86, 1024, 32, 0), "threads") == 0);
    /* 256 threads = 8 warps: 64 / 8 = 8 on Hopper, 48 / 8 = 6 on sm_86, 32 / 8 = 4 on Turing. */
    CHECK(blocks(90, 256, 32, 0) == 8 && blocks(86, 256, 32, 0) == 6 && blocks(75, 256, 32, 0) == 4);
    /* A partial warp takes a whole warp slot: 33 threads are 2 warps: 64 / 2 = 32 on Hopper. */
    CHECK(blocks(90, 33, 16, 0) == 32);
    /* 32-thread blocks meet the architecture's block limit first: 16, 16, 24, 32, 24. */
    CHECK(blocks(75, 32, 16, 0) == 16 && blocks(86, 32, 16, 0) == 16 && blocks(89, 32, 16, 0) == 24);
    CHECK(blocks(90, 32, 16, 0) == 32 && blocks(120, 32, 16, 0) == 24);
    CHECK(strcmp(limited_by(90, 32, 16, 0), "blocks") == 0);
    /* No block of 0 or 1025 threads. */
    CHECK(blocks(90, 0, 16, 0) == 0 && blocks(90, 1025, 16, 0) == 0);
}

static void test_registers(void) {
    /* 33 registers: 33 x 32 = 1056 a warp, rounded up to 1280 (a multiple of
     * 256); a quarter of the file, 16384, holds 12 such warps: 48 warps an SM,
     * 1 block of 1024 threads on Hopper (32 registers: 1024 a warp, 16 a
     * quarter, 64 warps, 2 blocks). */
    CHECK(blocks(90, 1024, 33, 0) == 1 && strcmp(limited_by(90, 1024, 33, 0), "registers") == 0);
    /* The quarters matter: 176 registers = 5632 a warp; 16384 / 5632 = 2 warps
     * a quarter, 8 an SM: 8 one-warp blocks, not 65536 / 5632 = 11. */
    CHECK(blocks(90, 32, 176, 0) == 8);
    /* 64 registers x 1024 threads = exactly the 64 K a block may have: 1 block;
     * 65 registers: 2080 a warp, 2304 rounded, x 32 warps > 64 K: no launch. */
    CHECK(blocks(90, 1024, 64, 0) == 1);
    CHECK(blocks(90, 1024, 65, 0) == 0 && blocks(75, 1024, 65, 0) == 0);
    /* The hardware counts warps in fours: 800 threads (25 warps) x 80
     * registers = 64000 < 64 K, but 28 warps x 2560 = 71680 > 64 K: no launch. */
    CHECK(blocks(90, 800, 80, 0) == 0);
    CHECK(strcmp(limited_by(90, 800, 80, 0), "more registers than a block may have") == 0);
    /* 255 registers a thread at most; a kernel with no registers is not limited by them. */
    CHECK(blocks(90, 32, 255, 0) == 8 && blocks(90, 32, 256, 0) == 0);
    CHECK(blocks(90, 128, 0, 0) == 16);
}

static void test_shared(void) {
    /* 44 KiB of static shared memory (256 threads, few registers): with the
     * reserved 1 KiB a block takes 45 KiB (44 KiB on Turing, which reserves
     * none): Turing 64 / 44 = 1; sm_86 100 / 45 = 2; Hopper 228 / 45 = 5. */
    CHECK(blocks(75, 256, 16, 44 * 1024) == 1);
    CHECK(blocks(86, 256, 16, 44 * 1024) == 2);
    CHECK(blocks(90, 256, 16, 44 * 1024) == 5);
    CHECK(strcmp(limited_by(90, 256, 16, 44 * 1024), "shared") == 0);
    /* Rounded up to 128 bytes with the reserved KiB: 1 byte takes 1152 on
     * Hopper (233472 / 1152 = 202, so threads limit first), 256 on Turing. */
    CHECK(arch_occupancy_of(arch_limits_of(90), 32, 16, 1).by_shared == 233472 / 1152);
    CHECK(arch_occupancy_of(arch_limits_of(75), 32, 16, 1).by_shared == 65536 / 256);
    /* 8 KiB (a 32 x 32 tile of doubles): Turing 64 / 8 = 8, Hopper 228 / 9 = 25. */
    CHECK(arch_occupancy_of(arch_limits_of(75), 32, 16, 8 * 1024).by_shared == 8);
    CHECK(arch_occupancy_of(arch_limits_of(90), 32, 16, 8 * 1024).by_shared == 25);
    /* The opt-in maximum per block: 99 KiB fits sm_86 once, 100 KiB never; 64 KiB fits Turing, one byte more not. */
    CHECK(blocks(86, 256, 16, 99 * 1024) == 1 && blocks(86, 256, 16, 100 * 1024) == 0);
    CHECK(blocks(75, 256, 16, 64 * 1024) == 1 && blocks(75, 256, 16, 64 * 1024 + 1) == 0);
    CHECK(blocks(90, 256, 16, 227 * 1024) == 1 && blocks(90, 256, 16, 227 * 1024 + 1) == 0);
}

/* Against the toolkit's own occupancy calculator (cuda_occupancy.h, what the
 * runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor mirrors), fed the
 * vendor's figures above, not the table's own: the table's blocks per SM equal
 * the calculator's, and the same blocks per SM for every architecture, block size,
 * register count and shared size on a grid (opt-in shared memory, default
 * carveout). An independent implementation: a rounding rule that drifts fails. */
#if defined(__has_include)
#if __has_include(<cuda_occupancy.h>)
#include <cuda_occupancy.h>
#define HAVE_CUDA_OCCUPANCY 1
#endif
#endif

static void test_against_cuda_occupancy(void) {
#ifdef HAVE_CUDA_OCCUPANCY
    int cases = 0, differ = 0;
    for (int i = 0; i < VENDOR_COUNT; ++i) {
        const arch_limits *l = arch_limits_of(vendor[i].sm);
        if (!l) continue;
        /* The device as the vendor describes it, not as the table under test does. */
        cudaOccDeviceProp device = {0};
        device.computeMajor = vendor[i].sm / 10, device.computeMinor = vendor[i].sm % 10;
        device.maxThreadsPerBlock = 1024;
        device.maxThreadsPerMultiprocessor = vendor[i].threads_per_sm;
        device.regsPerBlock = 64 * 1024, device.regsPerMultiprocessor = 64 * 1024;
        device.warpSize = 32, device.numSms = 1;
        device.sharedMemPerBlock = 48 * 1024;
        device.sharedMemPerMultiprocessor = (size_t)vendor[i].shared_kib_per_sm * 1024;
        device.sharedMemPerBlockOptin = (size_t)vendor[i].shared_kib_per_block * 1024;
        device.reservedSharedMemPerBlock = vendor[i].sm >= 80 ? 1024 : 0;
        int vendor_blocks = 0;
        CHECK(cudaOccMaxBlocksPerMultiprocessor(&vendor_blocks, &device) == CUDA_OCC_SUCCESS);
        CHECK(l->max_blocks_per_sm == vendor_blocks);
        cudaOccDeviceState state = {0};
        state.carveoutConfig = SHAREDMEM_CARVEOUT_DEFAULT;
        for (int threads = 1; threads <= ARCH_MAX_THREADS_PER_BLOCK; threads += threads < 64 ? 1 : 31)
            for (int registers = 0; registers <= 255; registers += registers < 40 ? 1 : 7)
                for (int shared = 0; shared <= (int)device.sharedMemPerBlockOptin + 512; shared += 1000 + shared / 5) {
                    cudaOccFuncAttributes function = {0};
                    function.maxThreadsPerBlock = ARCH_MAX_THREADS_PER_BLOCK, function.numRegs = registers;
                    function.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
                    function.maxDynamicSharedSizeBytes = device.sharedMemPerBlockOptin;
                    function.numBlockBarriers = 1;
                    cudaOccResult result = {0};
                    if (cudaOccMaxActiveBlocksPerMultiprocessor(&result, &device, &function, &state, threads,
                                                                (size_t)shared) != CUDA_OCC_SUCCESS) {
                        result.activeBlocksPerMultiprocessor = -1;
                    }
                    int ours = arch_blocks_per_sm(l, threads, registers, shared);
                    ++cases;
                    if (ours != result.activeBlocksPerMultiprocessor && ++differ <= 5)
                        fprintf(stderr, "sm_%d, %d threads, %d registers, %d bytes shared: %d blocks, "
                                        "cuda_occupancy.h says %d\n", l->sm, threads, registers, shared, ours,
                                result.activeBlocksPerMultiprocessor);
                }
    }
    CHECK(cases > 100000);
    CHECK(differ == 0);
#else
    printf("test_arch_limits: no cuda_occupancy.h on the include path: not compared with the toolkit's calculator\n");
#endif
}

/* --limits: the table for scripts. */
static void print_limits(void) {
    printf("# sm\tfamily\tmax_threads_per_sm\tmax_blocks_per_sm\tregisters_per_sm\tmax_registers_per_thread\t"
           "shared_per_sm\tmax_shared_per_block\tstatic_shared_per_block\treserved_shared_per_block\n");
    for (int i = 0; i < ARCH_LIMITS_COUNT; ++i) {
        const arch_limits *l = &arch_limits_table[i];
        printf("%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", l->sm, l->family, l->max_threads_per_sm,
               l->max_blocks_per_sm, l->registers_per_sm, l->max_registers_per_thread, l->shared_per_sm,
               l->max_shared_per_block, l->static_shared_per_block, l->reserved_shared_per_block);
    }
}

/* --occupancy: one line in, the same line out with blocks and the limiter appended. */
static int print_occupancy(void) {
    char line[256];
    int sm, threads, registers, shared, status = 0;
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "%d %d %d %d", &sm, &threads, &registers, &shared) != 4) {
            fprintf(stderr, "test_arch_limits: not 'SM THREADS REGISTERS SHARED': %s", line);
            status = 2;
            continue;
        }
        const arch_limits *limits = arch_limits_of(sm);
        if (!limits) {
            printf("%d %d %d %d -1 unknown architecture\n", sm, threads, registers, shared);
            continue;
        }
        arch_occupancy o = arch_occupancy_of(limits, threads, registers, shared);
        printf("%d %d %d %d %d %s\n", sm, threads, registers, shared, o.blocks, o.limited_by);
    }
    return status;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--limits") == 0) {
        print_limits();
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--occupancy") == 0) return print_occupancy();
    if (argc != 1) {
        fprintf(stderr, "Usage: test_arch_limits [--limits | --occupancy]\n");
        return 2;
    }
    test_table();
    test_table_against_vendor();
    test_threads();
    test_registers();
    test_shared();
    test_against_cuda_occupancy();
    return unit_finish("test_arch_limits");
}
