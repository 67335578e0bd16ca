/* Per-architecture limits of an SM, and how many blocks of a kernel fit on one
 * (the occupancy calculation), without a GPU: so a test can prove that a kernel
 * and its launch shape fit a learner's Turing or RTX card, not only the Hopper
 * it was measured on. Plain C, header-only.
 *
 * The figures: the CUDA Programming Guide's table of technical specifications
 * per compute capability (CUDA 13.0), and for what it leaves to the device the
 * toolkit's own occupancy calculator, cuda_occupancy.h of CUDA 13.0 (blocks per
 * SM, shared-memory allocation unit, the largest shared-memory carveout). Where
 * the two disagree, cuda_occupancy.h's figure is used, since it is the code the
 * runtime's occupancy API mirrors: blocks per SM on compute capability 12.x is
 * 24 there (the Blackwell tuning guide says 32). Every architecture has 64 K
 * 32-bit registers per SM and per block, at most 255 registers per thread, at
 * most 1024 threads per block, 48 KiB of static shared memory per block; from
 * compute capability 8.0 on the driver reserves 1 KiB of shared memory for each
 * block (cudaDevAttrReservedSharedMemoryPerBlock), Turing reserves none.
 *
 * The rounding rules (cuda_occupancy.h's, which this follows step for step):
 *   - threads: a block takes ceil(threads / 32) warp slots;
 *   - registers: a warp takes registers_per_thread x 32 registers, rounded up
 *     to a multiple of 256; the register file is split into 4 equal parts (one
 *     per warp scheduler) and a warp's registers come from one part, so an SM
 *     holds 4 x floor((64 K / 4) / registers_per_warp) warps, and
 *     floor(that / warps_per_block) blocks. A block whose warps, rounded up to a
 *     multiple of 4, need more than 64 K registers cannot launch at all;
 *   - shared memory: a block takes its static + dynamic shared memory plus the
 *     reserved 1 KiB, rounded up to 128 bytes (256 on Turing); an SM holds
 *     floor(shared_per_sm / that) blocks, shared_per_sm being the largest
 *     carveout (the driver picks a carveout that fits the blocks); more than
 *     the opt-in maximum per block (+ the reserved 1 KiB) cannot launch;
 *   - and never more blocks than the architecture's maximum per SM.
 * The smallest of the four is the answer; 0 means the block cannot launch. */
#ifndef COMMON_ARCH_LIMITS_H
#define COMMON_ARCH_LIMITS_H

#include <stddef.h>

typedef struct {
    int sm;                        /* 90 for sm_90 (compute capability 9.0) */
    const char *family;            /* a name a learner knows the card by */
    int max_threads_per_sm;        /* resident threads (= warps x 32) */
    int max_blocks_per_sm;         /* resident blocks */
    int registers_per_sm;          /* 32-bit registers */
    int max_registers_per_thread;  /* what ptxas may give one thread */
    int shared_per_sm;             /* bytes, the largest shared-memory carveout */
    int max_shared_per_block;      /* bytes, with cudaFuncAttributeMaxDynamicSharedMemorySize */
    int static_shared_per_block;   /* bytes a kernel may declare __shared__ (48 KiB) */
    int reserved_shared_per_block; /* bytes the driver adds to each block */
    int shared_allocation_unit;    /* bytes a block's shared memory is rounded up to */
} arch_limits;

enum {
    ARCH_WARP = 32,
    ARCH_MAX_THREADS_PER_BLOCK = 1024,
    ARCH_REGISTERS_PER_BLOCK = 64 * 1024,
    ARCH_REGISTER_ALLOCATION_UNIT = 256, /* registers, per warp */
    ARCH_REGISTER_FILE_PARTS = 4         /* warp schedulers, each with its quarter of the registers */
};

#define ARCH_KIB 1024
static const arch_limits arch_limits_table[] = {
    /* in the order of the fields above */
    {75, "Turing (RTX 20, T4)", 1024, 16, 64 * 1024, 255, 64 * ARCH_KIB, 64 * ARCH_KIB, 48 * ARCH_KIB, 0, 256},
    {80, "Ampere (A100)", 2048, 32, 64 * 1024, 255, 164 * ARCH_KIB, 163 * ARCH_KIB, 48 * ARCH_KIB, ARCH_KIB, 128},
    {86, "Ampere (RTX 30, A40)", 1536, 16, 64 * 1024, 255, 100 * ARCH_KIB, 99 * ARCH_KIB, 48 * ARCH_KIB, ARCH_KIB, 128},
    {87, "Ampere (Jetson Orin)", 1536, 16, 64 * 1024, 255, 164 * ARCH_KIB, 163 * ARCH_KIB, 48 * ARCH_KIB, ARCH_KIB, 128},
    {89, "Ada (RTX 40, L4)", 1536, 24, 64 * 1024, 255, 100 * ARCH_KIB, 99 * ARCH_KIB, 48 * ARCH_KIB, ARCH_KIB, 128},
    {90, "Hopper (H100, H200)", 2048, 32, 64 * 1024, 255, 228 * ARCH_KIB, 227 * ARCH_KIB, 48 * ARCH_KIB, ARCH_KIB, 128},
    {100, "Blackwell (B200)", 2048, 32, 64 * 1024, 255, 228 * ARCH_KIB, 227 * ARCH_KIB, 48 * ARCH_KIB, ARCH_KIB, 128},
    {103, "Blackwell (B300)", 2048, 32, 64 * 1024, 255, 228 * ARCH_KIB, 227 * ARCH_KIB, 48 * ARCH_KIB, ARCH_KIB, 128},
    {110, "Blackwell (Jetson Thor)", 1536, 24, 64 * 1024, 255, 228 * ARCH_KIB, 227 * ARCH_KIB, 48 * ARCH_KIB, ARCH_KIB,
     128},
    {120, "Blackwell (RTX 50)", 1536, 24, 64 * 1024, 255, 100 * ARCH_KIB, 99 * ARCH_KIB, 48 * ARCH_KIB, ARCH_KIB, 128},
    {121, "Blackwell (DGX Spark)", 1536, 24, 64 * 1024, 255, 100 * ARCH_KIB, 99 * ARCH_KIB, 48 * ARCH_KIB, ARCH_KIB,
     128},
};
#undef ARCH_KIB
enum { ARCH_LIMITS_COUNT = (int)(sizeof arch_limits_table / sizeof arch_limits_table[0]) };

/* The limits of sm_<sm> (90 for sm_90), or NULL for an architecture not in the table. */
static inline const arch_limits *arch_limits_of(int sm) {
    for (int i = 0; i < ARCH_LIMITS_COUNT; ++i)
        if (arch_limits_table[i].sm == sm) return &arch_limits_table[i];
    return NULL;
}

/* Blocks per SM as each resource alone allows, and the answer (the smallest). */
typedef struct {
    int blocks;       /* what fits: the smallest below; 0: the block cannot launch */
    int by_threads;   /* warp slots */
    int by_registers; /* the register file */
    int by_shared;    /* shared memory */
    int by_blocks;    /* the architecture's maximum */
    const char *limited_by; /* "threads", "registers", "shared", "blocks", or why it cannot launch */
} arch_occupancy;

static inline int arch_round_up(int value, int unit) { return (value + unit - 1) / unit * unit; }

/* shared_per_block: the block's static plus dynamic shared memory, in bytes. */
static inline arch_occupancy arch_occupancy_of(const arch_limits *limits, int threads_per_block,
                                               int registers_per_thread, int shared_per_block) {
    arch_occupancy o = {0, 0, 0, 0, limits->max_blocks_per_sm, ""};
    if (threads_per_block < 1 || threads_per_block > ARCH_MAX_THREADS_PER_BLOCK) {
        o.limited_by = "more threads than a block may have";
        return o;
    }
    if (registers_per_thread > limits->max_registers_per_thread) {
        o.limited_by = "more registers than a thread may have";
        return o;
    }
    int warps = (threads_per_block + ARCH_WARP - 1) / ARCH_WARP;
    o.by_threads = limits->max_threads_per_sm / ARCH_WARP / warps;

    int registers_per_warp = arch_round_up(registers_per_thread * ARCH_WARP, ARCH_REGISTER_ALLOCATION_UNIT);
    if (registers_per_warp * arch_round_up(warps, ARCH_REGISTER_FILE_PARTS) > ARCH_REGISTERS_PER_BLOCK) {
        o.by_registers = 0;
        o.limited_by = "more registers than a block may have";
        return o;
    }
    o.by_registers = registers_per_warp == 0 ? limits->max_blocks_per_sm
                                             : ARCH_REGISTER_FILE_PARTS *
                                                   (limits->registers_per_sm / ARCH_REGISTER_FILE_PARTS /
                                                    registers_per_warp) /
                                                   warps;

    int shared = arch_round_up(shared_per_block + limits->reserved_shared_per_block, limits->shared_allocation_unit);
    if (shared > limits->max_shared_per_block + limits->reserved_shared_per_block) {
        o.limited_by = "more shared memory than a block may have";
        return o;
    }
    o.by_shared = shared == 0 ? limits->max_blocks_per_sm : limits->shared_per_sm / shared;

    o.blocks = o.by_threads, o.limited_by = "threads"; /* a tie names the first of threads, registers, shared */
    if (o.by_registers < o.blocks) o.blocks = o.by_registers, o.limited_by = "registers";
    if (o.by_shared < o.blocks) o.blocks = o.by_shared, o.limited_by = "shared";
    if (o.by_blocks < o.blocks) o.blocks = o.by_blocks, o.limited_by = "blocks";
    return o;
}

/* How many blocks of threads_per_block threads, each thread with
 * registers_per_thread registers and the block with shared_per_block bytes of
 * shared memory (static + dynamic), fit on one SM at once (0: none, the
 * launch fails). */
static inline int arch_blocks_per_sm(const arch_limits *limits, int threads_per_block, int registers_per_thread,
                                     int shared_per_block) {
    return arch_occupancy_of(limits, threads_per_block, registers_per_thread, shared_per_block).blocks;
}

#endif
