/* ch08_shared_vs_global: how much faster is shared memory than global memory?
 * Measured on the GPU in front of you. Every source says it is much faster:
 * Fan Zheyong, CUDA 编程：基础与实践, ch. 8; CUDA by Example, ch. 5 ("much lower
 * latency"); a Chinese tutorial ("上百倍快", "堪比寄存器").
 *
 * What it teaches: "faster" is two questions. Latency: how long one load takes
 * when the next one needs its value. One thread walks a chain in which each
 * load's value is where the next load goes, so no two loads overlap: K steps
 * take K load latencies, in shared memory, in L1, in the L2 and in DRAM, with a
 * register FMA beside them. Bandwidth: how many bytes per second, and per SM
 * clock, all SMs together get from shared memory, from the L2 and from DRAM.
 * The program prints this GPU's figures, the ratios, and which of the sources'
 * claims hold, and by how much.
 *
 * Build this file alone, from its folder:
 *   nvcc -O3 -I../common shared_vs_global.cu -o shared_vs_global
 *
 * Run it: ./shared_vs_global (the walk in shared memory, then every measurement
 *         and the verdict), ./shared_vs_global --kernel latency_shared,latency_dram,
 *         ./shared_vs_global --help
 *
 * Kernels, in teaching order:
 *   chase_shared  one thread walks a chain of 128 nodes in __shared__ memory.
 *   chase_global  the same walk in global memory: through L1 (__ldca) a 16 KiB chain
 *                 hits in L1; past L1 (__ldcg) a 4 MiB chain hits in the L2, and a
 *                 chain far larger than the L2 goes to DRAM at every step.
 *   fma_chain     dependent FMAs in registers: the yardstick.
 *   read_shared   every block reads its own conflict-free __shared__ tile, 16 bytes a load.
 *   read_l2       every block reads one buffer small enough to stay in the L2.
 *   read_dram     the grid reads a buffer far larger than the L2, once.
 * Checks: every walk must end on the line where the CPU's walk of the same chain
 * ends, the FMAs on the CPU's value bit for bit, each reading thread's sum on the
 * CPU's. Read from here to main; below main a line marks the harness. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bank_model.h" /* harness: --bank-model's passes per warp access */
#include "book.h"       /* the book's header: error checks, the device, timing */
#include "ceiling.cuh"  /* harness (below the line): the L2 flush before the DRAM walk */
#include "cli.h"        /* harness: the command line */
#include "report.h"     /* harness: the table and the RESULT lines */

// ---------------------------------------------------------------------------
// Constants.

#define LINE_BYTES 128                 /* a cache line: every node of a chain has one to itself */
#define LINE_WORDS (LINE_BYTES / 8)    /* 64-bit words in a line (the global chains)            */
#define SHARED_CHAIN_BYTES (16 * 1024) /* 128 nodes in shared memory                            */
#define SHARED_STEPS (1 << 20)         /* main's walk: ~3e7 cycles, the launch is < 0.1 %        */
#define CHECK_STEPS 1000               /* --check: every walk this long                         */
#define CHAIN_SEED 20261124ull         /* the same chains on every run                          */

#define READ_THREADS 256 /* the block of every bandwidth kernel                         */
#define SHARED_LOADS 8   /* read_shared: independent 16-byte loads per thread and round */
#define SHARED_WINDOW 4  /* read_shared: a round starts on one of the tile's first rows */
#define GLOBAL_LOADS 4   /* read_l2, read_dram: loads a thread issues before it uses any */
#define SHARED_TILE_ROWS (SHARED_WINDOW + SHARED_LOADS - 1) /* 11 rows of 256 vectors: 44 KiB */

// ---------------------------------------------------------------------------
// Latency: one thread, one chain. Each load's value says where the next load
// goes, so a load cannot start before the last one has returned: K steps take
// K times the latency of one load. clock64() counts the SM's cycles around the
// walk; the host times the whole launch with CUDA events, so the same walk also
// gives nanoseconds, and the two together the SM's clock.
//
// A chain visits 128-byte lines in a random order that is one cycle through
// all of them (build_chain, on the CPU), so neither a line fetched for one step
// nor a prefetcher helps the next. A walk starts on line *line and writes back
// the line where it stopped: the next launch goes on from there, and the CPU,
// walking the same chain as far, must end on the same line.

/* (a) Shared memory. The chain holds byte offsets: where the next node is in
 * s_chain. Adding an offset to the array's base is part of the load
 * instruction itself (LDS R, [R+UR]), so each step is one load and nothing
 * else; with word indices, j = s_chain[j], every step would also multiply. */
__global__ void chase_shared(const unsigned *chain, long long steps, unsigned *line, long long *cycles) {
    __shared__ unsigned s_chain[SHARED_CHAIN_BYTES / 4];
    for (int i = threadIdx.x; i < SHARED_CHAIN_BYTES / 4; i += blockDim.x)
        s_chain[i] = chain[i];
    __syncthreads(); /* the whole chain is in place before thread 0 walks it */
    if (threadIdx.x != 0) return;

    unsigned offset = *line * LINE_BYTES;
    const long long start = clock64();
    for (long long k = 0; k < steps; ++k)
        offset = *(const unsigned *)((const char *)s_chain + offset);
    const long long stop = clock64();
    *line = offset / LINE_BYTES;
    *cycles = stop - start;
}

/* (b), (c), (d) Global memory: the same walk, each node holding the address of
 * the next (64 bits), so again each step is one load. __ldca is the default
 * "cache at all levels" load: a chain small enough is read from L1. __ldcg
 * caches in the L2 only: a chain that fits there is read from the L2, one far
 * larger than the L2 from DRAM. */
template <bool through_l1>
__device__ __forceinline__ const unsigned long long *next_node(const unsigned long long *node) {
    return (const unsigned long long *)(through_l1 ? __ldca(node) : __ldcg(node));
}

/* warm_steps are walked before the clock starts: one lap of the chain brings
 * every node into L1 in this launch, whatever L1 kept from the last one. */
template <bool through_l1>
__global__ void chase_global(const unsigned long long *chain, long long warm_steps, long long steps, unsigned *line,
                             long long *cycles) {
    const unsigned long long *node = chain + (size_t)*line * LINE_WORDS;
    for (long long k = 0; k < warm_steps; ++k)
        node = next_node<through_l1>(node);
    const long long start = clock64();
    for (long long k = 0; k < steps; ++k)
        node = next_node<through_l1>(node);
    const long long stop = clock64();
    *line = (unsigned)((node - chain) / LINE_WORDS);
    *cycles = stop - start;
}

/* The yardstick: dependent FMAs in registers, x = x * a + b. Each needs the
 * last one's result, so K of them take K times an FMA's latency. With a just
 * over 1 and b > 0 every step makes x larger, so the end value says how many
 * steps ran; the CPU's fmaf rounds exactly as the GPU's FMA does. */
__global__ void fma_chain(float x, float a, float b, long long steps, float *result, long long *cycles) {
    const long long start = clock64();
    for (long long k = 0; k < steps; ++k)
        x = fmaf(x, a, b);
    const long long stop = clock64();
    *result = x;
    *cycles = stop - start;
}

// ---------------------------------------------------------------------------
// Bandwidth: every SM busy (as many blocks as fit at once), every thread with
// many independent 16-byte loads in flight. Each thread adds up what it read
// (32-bit, wrapping) and writes its sum out, so no load can be left out, and
// the CPU computes every thread's sum from the same pattern. Thread 0 of block
// 0 counts its SM's cycles around the reads: bytes per SM clock.

/* What the reads read: word w of every tile and buffer. */
__host__ __device__ inline unsigned pattern_word(unsigned long long word) {
    return (unsigned)((word + 1) * 0x9E3779B97F4A7C15ull >> 32);
}

/* The SM cycles the longest block took, kept in *cycles (0 before the launch):
 * blocks of one wave run side by side, so the longest is the kernel's time on
 * its SM. Block 0 alone would not do: the scheduler favours the oldest warps,
 * and block 0 can finish in half the kernel's time. */
__device__ inline void longest_block(long long *cycles, long long start) {
    __syncthreads(); /* every warp of the block is done */
    if (threadIdx.x == 0) atomicMax((unsigned long long *)cycles, (unsigned long long)(clock64() - start));
}

/* The tile vector that thread `thread` reads in load k of a round: the round
 * starts on one of the tile's first SHARED_WINDOW rows, its loads are one row
 * (READ_THREADS vectors) apart. read_shared and the bank model (--bank-model)
 * both call it, so the addresses the model predicts are the kernel's own. */
__host__ __device__ inline unsigned shared_read_vector(int round, int row_step, int k, unsigned thread) {
    return (unsigned)(round * row_step) % SHARED_WINDOW * READ_THREADS + thread + k * READ_THREADS;
}

/* Shared memory: each block fills its own tile, then every thread reads
 * SHARED_LOADS vectors per round, one row (256 vectors) apart. A warp's 32
 * consecutive 16-byte vectors are 512 bytes: four passes of the 32 banks, with
 * no conflict. A round's first row depends on row_step, a kernel argument: were
 * the rows fixed at compile time, the compiler could see that rounds read the
 * same values and load them once. */
__global__ void __launch_bounds__(READ_THREADS)
    read_shared(int rounds, int row_step, unsigned *sums, long long *cycles) {
    __shared__ uint4 s_tile[SHARED_TILE_ROWS * READ_THREADS];
    for (int i = threadIdx.x; i < SHARED_TILE_ROWS * READ_THREADS; i += blockDim.x)
        s_tile[i] =
            make_uint4(pattern_word(4 * i), pattern_word(4 * i + 1), pattern_word(4 * i + 2), pattern_word(4 * i + 3));
    __syncthreads(); /* the tile is written before any warp reads it */

    const long long start = clock64();
    unsigned sum = 0;
    for (int round = 0; round < rounds; ++round) {
#pragma unroll
        for (int k = 0; k < SHARED_LOADS; ++k) {
            const uint4 v = s_tile[shared_read_vector(round, row_step, k, threadIdx.x)];
            sum += v.x + v.y + v.z + v.w;
        }
    }
    sums[blockIdx.x * blockDim.x + threadIdx.x] = sum;
    longest_block(cycles, start);
}

/* The L2: every block reads the whole buffer, which fits in the L2, `passes`
 * times; thread t reads vectors t, t + 256, t + 512, ..., so a warp reads 512
 * consecutive bytes. Each block starts at its own place in the buffer (a
 * multiple of 256 vectors, so thread t's vectors stay the same) and wraps
 * around: were every block at the same addresses at the same time, they would
 * queue at a few of the L2's slices. GLOBAL_LOADS loads are issued before any
 * is used: more bytes in flight per thread. __ldcg keeps the loads out of L1,
 * so every byte comes from the L2. vectors: a multiple of 256. */
__global__ void __launch_bounds__(READ_THREADS)
    read_l2(const uint4 *buffer, int vectors, int passes, unsigned *sums, long long *cycles) {
    const int first = (int)((long long)blockIdx.x * vectors / gridDim.x) / READ_THREADS * READ_THREADS;
    const long long start = clock64();
    unsigned sum = 0;
    for (int pass = 0; pass < passes; ++pass)
        for (int i = threadIdx.x; i < vectors; i += GLOBAL_LOADS * blockDim.x) {
            uint4 v[GLOBAL_LOADS];
#pragma unroll
            for (int j = 0; j < GLOBAL_LOADS; ++j) {
                const int vector = i + j * blockDim.x;
                const int shifted = vector + first < vectors ? vector + first : vector + first - vectors;
                v[j] = vector < vectors ? __ldcg(&buffer[shifted]) : make_uint4(0, 0, 0, 0);
            }
#pragma unroll
            for (int j = 0; j < GLOBAL_LOADS; ++j)
                sum += v[j].x + v[j].y + v[j].z + v[j].w;
        }
    sums[blockIdx.x * blockDim.x + threadIdx.x] = sum;
    longest_block(cycles, start);
}

/* DRAM: the grid reads a buffer far larger than the L2 once: thread g reads
 * vectors g, g + G, g + 2G, ... (G threads in all), GLOBAL_LOADS at a time.
 * Every byte comes from DRAM. */
__global__ void __launch_bounds__(READ_THREADS)
    read_dram(const uint4 *buffer, long long vectors, unsigned *sums, long long *cycles) {
    const long long start = clock64();
    const long long stride = (long long)gridDim.x * blockDim.x;
    unsigned sum = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < vectors; i += GLOBAL_LOADS * stride) {
        uint4 v[GLOBAL_LOADS];
#pragma unroll
        for (int j = 0; j < GLOBAL_LOADS; ++j) {
            const long long vector = i + j * stride;
            v[j] = vector < vectors ? __ldcg(&buffer[vector]) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int j = 0; j < GLOBAL_LOADS; ++j)
            sum += v[j].x + v[j].y + v[j].z + v[j].w;
    }
    sums[blockIdx.x * (long long)blockDim.x + threadIdx.x] = sum;
    longest_block(cycles, start);
}

// ---------------------------------------------------------------------------
// The chains, on the CPU: next_line[i] is the line that follows line i.

/* A random cyclic permutation (Sattolo's algorithm: j < i, never j = i): from
 * any line, following next_line visits every line once before it comes back.
 * A fixed seed, a 64-bit linear congruential generator: the same chain on
 * every run and every machine. */
static void build_chain(unsigned *next_line, unsigned lines, unsigned long long seed) {
    for (unsigned i = 0; i < lines; ++i)
        next_line[i] = i;
    for (unsigned i = lines - 1; i > 0; --i) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        const unsigned j = (unsigned)((seed >> 32) % i);
        const unsigned swap = next_line[i];
        next_line[i] = next_line[j];
        next_line[j] = swap;
    }
}

/* The line where a walk of `steps` steps from `line` ends. */
static unsigned walk_chain(const unsigned *next_line, unsigned line, long long steps) {
    for (long long k = 0; k < steps; ++k)
        line = next_line[line];
    return line;
}

/* chase_shared's chain: the node of line i (its first word) holds the byte
 * offset of line next_line[i]; the other words are never read. */
static void shared_chain_offsets(const unsigned *next_line, unsigned lines, unsigned *chain) {
    memset(chain, 0, (size_t)lines * LINE_BYTES);
    for (unsigned i = 0; i < lines; ++i)
        chain[i * (LINE_BYTES / 4)] = next_line[i] * LINE_BYTES;
}

// ---------------------------------------------------------------------------
// What main calls from below the line, declared here.

/* The options (cli.h's and --dram-mib): exit 0 for --help, 2 for a bad one,
 * before any CUDA call; *dram_mib is 0 unless --dram-mib was given. */
static void parse_command_line(int argc, char **argv, cli_options *o, long long *dram_mib);
/* The DRAM chain's and buffer's bytes on this GPU (0 when neither DRAM
 * measurement runs); exit 2 when they do not fit. */
static size_t dram_bytes_or_exit(const cli_options *o, const struct cudaDeviceProp *device, long long dram_mib);
/* --bank-model: each shared-memory instruction's passes per warp, predicted
 * from its lanes' addresses (common/bank_model.h); no CUDA call. Returns 0. */
static int print_bank_model(const cli_options *o);
/* Shared memory per SM and per block, L1, the clock: what the device reports. */
static void print_device_figures(const struct cudaDeviceProp *device, int device_number);
/* Every selected measurement, checked and timed, the table, the verdict;
 * returns 0 when every check passed, else 1. */
static int run(const cli_options *o, const struct cudaDeviceProp *device, size_t dram_bytes);

int main(int argc, char **argv) {
    cli_options o;
    long long dram_mib;
    parse_command_line(argc, argv, &o, &dram_mib);
    if (o.bank_model) return print_bank_model(&o);
    struct cudaDeviceProp device;
    gpu_select_device("shared_vs_global", o.device, &device);
    const size_t dram_bytes = dram_bytes_or_exit(&o, &device, dram_mib);
    print_device_figures(&device, o.device);

    // The simplest measurement, in a straight line: one thread walks a chain of
    // 128 lines in shared memory, SHARED_STEPS dependent loads (CHECK_STEPS with --check).
    const unsigned lines = SHARED_CHAIN_BYTES / LINE_BYTES;
    const long long steps = o.check_only ? CHECK_STEPS : SHARED_STEPS;
    unsigned next_line[SHARED_CHAIN_BYTES / LINE_BYTES], chain[SHARED_CHAIN_BYTES / 4];
    build_chain(next_line, lines, CHAIN_SEED);
    shared_chain_offsets(next_line, lines, chain);
    unsigned *dev_chain, *dev_line, end_line = 0; /* the walk starts on line 0 */
    long long *dev_cycles, cycles = 0;
    HANDLE_ERROR(cudaMalloc((void **)&dev_chain, sizeof chain));
    HANDLE_ERROR(cudaMalloc((void **)&dev_line, sizeof end_line));
    HANDLE_ERROR(cudaMalloc((void **)&dev_cycles, sizeof cycles));
    HANDLE_ERROR(cudaMemcpy(dev_chain, chain, sizeof chain, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMemcpy(dev_line, &end_line, sizeof end_line, cudaMemcpyHostToDevice));
    chase_shared<<<1, READ_THREADS>>>(dev_chain, steps, dev_line, dev_cycles);
    CHECK_LAUNCH();
    HANDLE_ERROR(cudaMemcpy(&end_line, dev_line, sizeof end_line, cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaMemcpy(&cycles, dev_cycles, sizeof cycles, cudaMemcpyDeviceToHost));
    const unsigned cpu_line = walk_chain(next_line, 0, steps);
    printf("\nOne thread walked %lld steps of a %u-line chain in shared memory: %lld cycles, %.1f per load\n", steps,
           lines, cycles, (double)cycles / steps);
    printf("It ended on line %u; the CPU's walk of the same chain on line %u: %s\n", end_line, cpu_line,
           end_line == cpu_line ? "PASS" : "FAIL");
    HANDLE_ERROR(cudaFree(dev_chain));
    HANDLE_ERROR(cudaFree(dev_line));
    HANDLE_ERROR(cudaFree(dev_cycles));

    const int status = run(&o, &device, dram_bytes);
    return end_line == cpu_line ? status : EXIT_WRONG_RESULT;
}

// ===== Harness: below this line, each measurement's set-up, the CPU's sums,
// the table, the verdict and the command line. Not needed to follow the lesson.

#define L1_CHAIN_BYTES (16 * 1024)    /* 128 nodes: in L1 on every GPU since Volta     */
#define L2_CHAIN_MAX_BYTES (4 << 20)  /* 32768 nodes, or a quarter of a smaller L2      */
#define DRAM_MIN_BYTES (512ull << 20) /* the DRAM chain and buffer: at least 512 MiB,   */
#define DRAM_L2_TIMES 8               /* and at least 8 x the L2                        */
#define DRAM_CHECK_MIB 4              /* --check: small, quick                          */
#define DRAM_MAX_MIB ((1 << 19) - 1)  /* under 512 GiB: a line's number stays 32-bit    */
#define L1_STEPS (1 << 20)            /* each walk about 3e7 cycles or more             */
#define L2_STEPS (1 << 17)
#define DRAM_STEPS (1 << 16) /* at most: fewer when the launches would come back to a line */
#define REGISTER_STEPS (1 << 22)
#define FMA_START 1.0f
#define FMA_FACTOR (1.0f + 0x1p-23f) /* the float just above 1 */
#define FMA_ADD 0.5f
#define SHARED_ROUNDS 4095 /* read_shared: ~512 KiB per thread and launch; odd, as CHECK_ROUNDS */
#define ROW_STEP 1         /* read_shared's row_step                     */
#define L2_PASSES 2
#define CHECK_BLOCKS 4
#define CHECK_ROUNDS 15 /* not a multiple of SHARED_WINDOW: a shifted row changes the sum */
#define L2_READ_CHECK_BYTES (64 * 1024)
#define LATENCY_RATIO_MUCH_LOWER 2.0 /* "much lower latency": at least 2 x below an L2 hit   */
#define REGISTER_LIKE_RATIO 1.5      /* "as fast as registers": at most 1.5 x an FMA's latency */

enum measurement {
    LATENCY_SHARED,
    LATENCY_L1,
    LATENCY_L2,
    LATENCY_DRAM,
    LATENCY_REGISTER,
    BANDWIDTH_SHARED,
    BANDWIDTH_L2,
    BANDWIDTH_DRAM,
    MEASUREMENT_COUNT
};
static const char *const measurement_names[] = {"latency_shared", "latency_l1",       "latency_l2",
                                                "latency_dram",   "latency_register", "bandwidth_shared",
                                                "bandwidth_l2",   "bandwidth_dram",   NULL};
#define DRAM_MEASUREMENTS ((1u << LATENCY_DRAM) | (1u << BANDWIDTH_DRAM))

typedef struct {
    int check, reps, sms;
    int setup_grid;        /* blocks of 256 that fill every SM once: the set-up kernels' grid */
    size_t l2_bytes;       /* the device's L2                                   */
    size_t l2_chain_bytes; /* latency_l2's chain                                 */
    size_t l2_read_bytes;  /* bandwidth_l2's buffer                              */
    size_t dram_bytes;     /* latency_dram's chain, then bandwidth_dram's buffer */
    void *dram;            /* that memory on the device, when either runs         */
} plan;

typedef struct {
    int measured[MEASUREMENT_COUNT];           /* timed in this run: the figures below are set */
    double cycles[MEASUREMENT_COUNT];          /* latency: SM cycles per step       */
    double ns[MEASUREMENT_COUNT];              /* latency: nanoseconds per step     */
    double gbps[MEASUREMENT_COUNT];            /* bandwidth: the whole GPU          */
    double gbps_per_sm[MEASUREMENT_COUNT];     /* bandwidth: per SM                 */
    double bytes_per_clock[MEASUREMENT_COUNT]; /* bandwidth: per SM and SM cycle    */
} figures;

/* "16 KiB", "4 MiB", "12.5 MiB", "1 GiB". */
static const char *size_text(char *buffer, size_t size, double bytes) {
    if (bytes >= (double)(1 << 30))
        snprintf(buffer, size, "%.3g GiB", bytes / (1 << 30));
    else if (bytes >= (double)(1 << 20))
        snprintf(buffer, size, "%.3g MiB", bytes / (1 << 20));
    else
        snprintf(buffer, size, "%.3g KiB", bytes / (1 << 10));
    return buffer;
}

// ---------------------------------------------------------------------------
// The chains and buffers on the device.

/* NULL when the walk from line 0 comes back to it after exactly `lines`
 * steps: one cycle through every line, as build_chain promises. */
static const char *not_one_cycle(const unsigned *next_line, unsigned lines) {
    unsigned line = 0, k = 1;
    for (; k <= lines; ++k) {
        line = next_line[line];
        if (line == 0) break;
    }
    return k == lines ? NULL : "the chain is NOT one cycle through every line";
}

static unsigned *new_chain(unsigned lines) {
    unsigned *next_line = (unsigned *)host_alloc("shared_vs_global", (size_t)lines * sizeof(unsigned), "a chain");
    build_chain(next_line, lines, CHAIN_SEED);
    return next_line;
}

/* A grid for a set-up kernel over `count` items, at most one that fills every
 * SM once (full_grid, from the device: 8 blocks of 256 per SM on Hopper, 4 on
 * Turing, 6 on an RTX 30/40/50): a grid-stride loop does the rest. */
static int setup_blocks(long long count, int full_grid) {
    const long long blocks = (count + 255) / 256;
    return (int)(blocks < full_grid ? blocks : full_grid);
}

/* A global chain: the node of line i (its first 8 bytes) holds the address of
 * line next_line[i]'s node; the rest of every line is never read. */
__global__ void spread_chain(unsigned long long *chain, const unsigned *next_line, long long lines) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < lines;
         i += (long long)gridDim.x * blockDim.x)
        chain[i * LINE_WORDS] = (unsigned long long)(chain + (size_t)next_line[i] * LINE_WORDS);
}

static void upload_chain(unsigned long long *chain, const unsigned *next_line, unsigned lines, int setup_grid) {
    unsigned *dev_next_line;
    HANDLE_ERROR(cudaMalloc((void **)&dev_next_line, (size_t)lines * sizeof(unsigned)));
    HANDLE_ERROR(cudaMemcpy(dev_next_line, next_line, (size_t)lines * sizeof(unsigned), cudaMemcpyHostToDevice));
    spread_chain<<<setup_blocks(lines, setup_grid), 256>>>(chain, dev_next_line, lines);
    CHECK_LAUNCH();
    HANDLE_ERROR(cudaFree(dev_next_line));
}

/* A buffer read by read_l2 or read_dram: word w is pattern_word(w). */
__global__ void fill_pattern(uint4 *buffer, long long vectors) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < vectors;
         i += (long long)gridDim.x * blockDim.x)
        buffer[i] =
            make_uint4(pattern_word(4 * i), pattern_word(4 * i + 1), pattern_word(4 * i + 2), pattern_word(4 * i + 3));
}

/* What one 16-byte vector adds to a thread's sum. */
static unsigned vector_sum(unsigned long long vector) {
    return pattern_word(4 * vector) + pattern_word(4 * vector + 1) + pattern_word(4 * vector + 2) +
           pattern_word(4 * vector + 3);
}

// ---------------------------------------------------------------------------
// Latency: the walks, the CPU's walk, the row.

/* Launches a walk twice (the second goes on from where the first ended),
 * then, unless --check, the timed ones: TIME_WARMUP_RUNS and --reps more, each
 * going on as well. Returns how many walks ran, for the CPU to repeat them
 * all: a timed launch that walked too far, too little or not at all ends the
 * last one elsewhere. *ms: the median time of a launch. */
template <typename Launch> static long long walks(const plan *p, Launch launch, double *ms) {
    launch();
    launch();
    HANDLE_ERROR(cudaDeviceSynchronize());
    *ms = 0;
    if (p->check) return 2;
    *ms = time_median_ms(p->reps, launch);
    return 2 + TIME_WARMUP_RUNS + p->reps;
}

/* value: the line (or x) the GPU ended on; expected: the CPU's. `problem`:
 * NULL, or what else is wrong (the row fails and says it). */
static void add_latency_row(report *rep, figures *f, int m, const char *type, long long steps, double value,
                            double expected, const char *problem, long long cycles, double ms) {
    result_row row = result_row_for(measurement_names[m], type, steps);
    row_check(&row, value, expected, 0);
    row.pass = row.pass && problem == NULL;
    f->cycles[m] = (double)cycles / steps;
    if (ms > 0) {
        row.timed = 1;
        row.ms = ms;
        row.gbps = row.pct_ceiling = NAN; /* one thread: no bandwidth to speak of */
        f->ns[m] = ms * 1e6 / steps;
        f->measured[m] = 1;
        row_note(&row, "%.1f cycles, %.2f ns a step: SM at %.2f GHz", f->cycles[m], f->ns[m], f->cycles[m] / f->ns[m]);
    } else {
        row_note(&row, "%.1f cycles a step (a short walk, untimed)", f->cycles[m]);
    }
    if (problem) row_note(&row, "%s", problem);
    report_add(rep, &row);
}

static void measure_latency_shared(const plan *p, report *rep, figures *f) {
    const unsigned lines = SHARED_CHAIN_BYTES / LINE_BYTES;
    const long long steps = p->check ? CHECK_STEPS : SHARED_STEPS;
    unsigned *next_line = new_chain(lines);
    unsigned chain[SHARED_CHAIN_BYTES / 4];
    unsigned *dev_chain, *dev_line, line = 0;
    long long *dev_cycles, cycles = 0;
    shared_chain_offsets(next_line, lines, chain);
    HANDLE_ERROR(cudaMalloc((void **)&dev_chain, sizeof chain));
    HANDLE_ERROR(cudaMalloc((void **)&dev_line, sizeof line));
    HANDLE_ERROR(cudaMalloc((void **)&dev_cycles, sizeof cycles));
    HANDLE_ERROR(cudaMemcpy(dev_chain, chain, sizeof chain, cudaMemcpyHostToDevice));
    HANDLE_ERROR(cudaMemcpy(dev_line, &line, sizeof line, cudaMemcpyHostToDevice));
    double ms;
    const long long launches = walks(
        p,
        [&] {
            chase_shared<<<1, READ_THREADS>>>(dev_chain, steps, dev_line, dev_cycles);
            CHECK_LAUNCH();
        },
        &ms);
    HANDLE_ERROR(cudaMemcpy(&line, dev_line, sizeof line, cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaMemcpy(&cycles, dev_cycles, sizeof cycles, cudaMemcpyDeviceToHost));
    add_latency_row(rep, f, LATENCY_SHARED, "u32", steps, line, walk_chain(next_line, 0, launches * steps),
                    not_one_cycle(next_line, lines), cycles, ms);
    HANDLE_ERROR(cudaFree(dev_chain));
    HANDLE_ERROR(cudaFree(dev_line));
    HANDLE_ERROR(cudaFree(dev_cycles));
    free(next_line);
}

/* latency_l1, latency_l2, latency_dram: chase_global on its chain. */
static void measure_latency_global(int m, const plan *p, report *rep, figures *f) {
    const size_t bytes = m == LATENCY_L1 ? L1_CHAIN_BYTES : m == LATENCY_L2 ? p->l2_chain_bytes : p->dram_bytes;
    const unsigned lines = (unsigned)(bytes / LINE_BYTES);
    long long steps = m == LATENCY_L1 ? L1_STEPS : m == LATENCY_L2 ? L2_STEPS : DRAM_STEPS;
    if (p->check) {
        steps = CHECK_STEPS;
    } else if (m == LATENCY_DRAM) { /* every launch on lines no earlier one touched: none is in the L2 */
        const long long fresh = lines / (2 + TIME_WARMUP_RUNS + p->reps);
        if (fresh < steps) steps = fresh > 0 ? fresh : 1;
    }
    const long long warm = m == LATENCY_L1 ? lines : 0; /* one lap inside each launch: every node in L1 */
    unsigned *next_line = new_chain(lines), *dev_line, line = 0;
    long long *dev_cycles, cycles = 0;
    unsigned long long *chain = (unsigned long long *)p->dram;
    if (m != LATENCY_DRAM) HANDLE_ERROR(cudaMalloc((void **)&chain, bytes));
    upload_chain(chain, next_line, lines, p->setup_grid);
    HANDLE_ERROR(cudaMalloc((void **)&dev_line, sizeof line));
    HANDLE_ERROR(cudaMalloc((void **)&dev_cycles, sizeof cycles));
    HANDLE_ERROR(cudaMemcpy(dev_line, &line, sizeof line, cudaMemcpyHostToDevice));
    long long walked = 0;
    if (m == LATENCY_L2) { /* one lap first: every node in the L2 before the walks */
        chase_global<false><<<1, 1>>>(chain, 0, lines, dev_line, dev_cycles);
        CHECK_LAUNCH();
        walked += lines;
    }
    if (m == LATENCY_DRAM) { /* spread_chain's writes left nodes in the L2: write over all of it */
        l2_flusher flusher = l2_flusher_create(1);
        l2_flush(&flusher);
        l2_flusher_free(&flusher);
    }
    double ms;
    const long long launches = walks(
        p,
        [&] {
            if (m == LATENCY_L1)
                chase_global<true><<<1, 1>>>(chain, warm, steps, dev_line, dev_cycles);
            else
                chase_global<false><<<1, 1>>>(chain, 0, steps, dev_line, dev_cycles);
            CHECK_LAUNCH();
        },
        &ms);
    walked += launches * (warm + steps);
    HANDLE_ERROR(cudaMemcpy(&line, dev_line, sizeof line, cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaMemcpy(&cycles, dev_cycles, sizeof cycles, cudaMemcpyDeviceToHost));
    add_latency_row(rep, f, m, "u64", steps, line, walk_chain(next_line, 0, walked), not_one_cycle(next_line, lines),
                    cycles, ms);
    if (m != LATENCY_DRAM) HANDLE_ERROR(cudaFree(chain));
    HANDLE_ERROR(cudaFree(dev_line));
    HANDLE_ERROR(cudaFree(dev_cycles));
    free(next_line);
}

static float fma_chain_on_cpu(long long steps) {
    float x = FMA_START;
    for (long long k = 0; k < steps; ++k)
        x = fmaf(x, FMA_FACTOR, FMA_ADD);
    return x;
}

/* Every launch starts again from FMA_START and writes its x to a slot of its
 * own: every launch's x, the timed ones' too, must be the CPU's. */
static void measure_latency_register(const plan *p, report *rep, figures *f) {
    const long long steps = p->check ? CHECK_STEPS : REGISTER_STEPS;
    const long long slots = 2 + TIME_WARMUP_RUNS + p->reps; /* the most walks() launches */
    float *dev_x;
    long long *dev_cycles, cycles = 0, launch = 0;
    HANDLE_ERROR(cudaMalloc((void **)&dev_x, slots * sizeof(float)));
    HANDLE_ERROR(cudaMalloc((void **)&dev_cycles, sizeof cycles));
    gpu_poison(dev_x, slots * sizeof(float));
    double ms;
    const long long launches = walks(
        p,
        [&] {
            fma_chain<<<1, 1>>>(FMA_START, FMA_FACTOR, FMA_ADD, steps, dev_x + launch++, dev_cycles);
            CHECK_LAUNCH();
        },
        &ms);
    float *x = (float *)host_alloc("shared_vs_global", launches * sizeof(float), "the FMAs' results");
    HANDLE_ERROR(cudaMemcpy(x, dev_x, launches * sizeof(float), cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaMemcpy(&cycles, dev_cycles, sizeof cycles, cudaMemcpyDeviceToHost));
    const float expected = fma_chain_on_cpu(steps);
    long long wrong = 0;
    for (long long i = 0; i < launches; ++i)
        wrong += !(x[i] == expected);
    char problem[80];
    snprintf(problem, sizeof problem, "%lld of %lld launches gave another x", wrong, launches);
    add_latency_row(rep, f, LATENCY_REGISTER, "float", steps, x[launches - 1], expected, wrong ? problem : NULL, cycles,
                    ms);
    free(x);
    HANDLE_ERROR(cudaFree(dev_x));
    HANDLE_ERROR(cudaFree(dev_cycles));
}

// ---------------------------------------------------------------------------
// Bandwidth: the grids, the CPU's sums, the row.

/* As many blocks as fit on the GPU at once (one wave: the blocks run side by
 * side, so the longest one's cycles are its SM's), or CHECK_BLOCKS with
 * --check. The device's own answer, at run time: read_shared's 44 KiB tile
 * lets 1 block per SM on Turing (64 KiB of shared memory per SM), 2 on RTX
 * 30/40/50 (100 KiB), 3 on A100, 5 on H100 and B200 (228 KiB). One block is
 * enough: the compiled loop issues 5 or 6 of a round's 8 loads before its first
 * add, so a block keeps at least 256 x 5 x 16 bytes (20 KiB) under way, several
 * times what the banks deliver in one load's latency (128 bytes a clock x ~25
 * cycles, about 3 KiB). */
template <typename Kernel> static int wave_of_blocks(const plan *p, Kernel kernel) {
    if (p->check) return CHECK_BLOCKS;
    int per_sm = 0;
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, READ_THREADS, 0));
    return per_sm * p->sms;
}

/* Threads whose sum equals the CPU's: thread i's is expected[i % period]. */
static long long sums_right(const unsigned *dev_sums, long long threads, const unsigned *expected, long long period) {
    unsigned *sums = (unsigned *)host_alloc("shared_vs_global", (size_t)threads * sizeof(unsigned), "the sums");
    HANDLE_ERROR(cudaMemcpy(sums, dev_sums, (size_t)threads * sizeof(unsigned), cudaMemcpyDeviceToHost));
    long long right = 0;
    for (long long i = 0; i < threads; ++i)
        right += sums[i] == expected[i % period];
    free(sums);
    return right;
}

/* One checked launch, then (unless --check) the timed ones, the sums poisoned
 * before the last, which is checked as the first was: a timed launch that
 * reads something else, or nothing, fails. value = threads whose sum is the
 * CPU's (in the first launch). bytes: what the loads of the measured memory
 * deliver (the 4-byte sums written at the end are not counted). */
template <typename Launch>
static void measure_bandwidth(int m, const plan *p, report *rep, figures *f, long long threads, double bytes,
                              const unsigned *expected, long long period, Launch launch) {
    unsigned *dev_sums;
    long long *dev_cycles, cycles = 0;
    HANDLE_ERROR(cudaMalloc((void **)&dev_sums, (size_t)threads * sizeof(unsigned)));
    HANDLE_ERROR(cudaMalloc((void **)&dev_cycles, sizeof cycles));
    HANDLE_ERROR(cudaMemset(dev_cycles, 0, sizeof cycles)); /* the kernels keep the longest block's cycles */
    gpu_poison(dev_sums, (size_t)threads * sizeof(unsigned));
    launch(dev_sums, dev_cycles);
    const long long right = sums_right(dev_sums, threads, expected, period);
    double ms = 0;
    long long timed_right = threads;
    if (!p->check) {
        int setups = 0;
        ms = time_median_ms(
            p->reps,
            [&] {
                if (++setups == TIME_WARMUP_RUNS + p->reps) {
                    gpu_poison(dev_sums, (size_t)threads * sizeof(unsigned));
                    HANDLE_ERROR(cudaMemset(dev_cycles, 0, sizeof(long long))); /* the last launch's cycles */
                }
            },
            [&] { launch(dev_sums, dev_cycles); });
        timed_right = sums_right(dev_sums, threads, expected, period);
    }
    HANDLE_ERROR(cudaMemcpy(&cycles, dev_cycles, sizeof cycles, cudaMemcpyDeviceToHost));

    result_row row = result_row_for(measurement_names[m], "uint4", (long long)(bytes / sizeof(uint4)));
    row_check(&row, (double)right, (double)threads, 0);
    row.pass = row.pass && timed_right == threads;
    row.bytes = bytes;
    row_note(&row, "value: threads whose sum is the CPU's");
    if (timed_right != threads)
        row_note(&row, "the last timed launch: %lld threads' sums differ", threads - timed_right);
    if (ms > 0) {
        row.timed = 1;
        row.ms = ms;
        row.gbps = gigabytes_per_second(bytes, ms);
        row.pct_ceiling = NAN; /* no ceiling: the measurement is the point */
        f->measured[m] = 1;
        f->gbps[m] = row.gbps;
        f->gbps_per_sm[m] = row.gbps / p->sms;
        f->bytes_per_clock[m] = bytes / p->sms / (double)cycles;
        row_note(&row, "%.1f GB/s, %.1f bytes a clock per SM", f->gbps_per_sm[m], f->bytes_per_clock[m]);
        row_note(&row, "%lld blocks per SM", threads / READ_THREADS / p->sms);
    }
    report_add(rep, &row);
    HANDLE_ERROR(cudaFree(dev_sums));
    HANDLE_ERROR(cudaFree(dev_cycles));
}

/* What thread t of every block sums in read_shared: the tile's rows' vectors
 * first, then each round's SHARED_LOADS rows, as the kernel walks them. */
static void shared_sums_on_cpu(int rounds, unsigned *expected) {
    static unsigned row_sums[SHARED_TILE_ROWS][READ_THREADS];
    for (int row = 0; row < SHARED_TILE_ROWS; ++row)
        for (int t = 0; t < READ_THREADS; ++t)
            row_sums[row][t] = vector_sum((unsigned long long)row * READ_THREADS + t);
    for (int t = 0; t < READ_THREADS; ++t) {
        unsigned sum = 0;
        for (int round = 0; round < rounds; ++round) {
            const unsigned first = (unsigned)(round * ROW_STEP) % SHARED_WINDOW;
            for (int k = 0; k < SHARED_LOADS; ++k)
                sum += row_sums[first + k][t];
        }
        expected[t] = sum;
    }
}

static void measure_bandwidth_shared(const plan *p, report *rep, figures *f) {
    const int blocks = wave_of_blocks(p, read_shared);
    const int rounds = p->check ? CHECK_ROUNDS : SHARED_ROUNDS;
    const long long threads = (long long)blocks * READ_THREADS;
    unsigned expected[READ_THREADS];
    shared_sums_on_cpu(rounds, expected);
    const double bytes = (double)threads * rounds * SHARED_LOADS * sizeof(uint4);
    measure_bandwidth(BANDWIDTH_SHARED, p, rep, f, threads, bytes, expected, READ_THREADS,
                      [&](unsigned *sums, long long *cycles) {
                          read_shared<<<blocks, READ_THREADS>>>(rounds, ROW_STEP, sums, cycles);
                          CHECK_LAUNCH();
                      });
}

static void measure_bandwidth_l2(const plan *p, report *rep, figures *f) {
    const int vectors = (int)(p->l2_read_bytes / sizeof(uint4));
    const int blocks = wave_of_blocks(p, read_l2);
    const int passes = p->check ? 1 : L2_PASSES;
    const long long threads = (long long)blocks * READ_THREADS;
    uint4 *buffer;
    HANDLE_ERROR(cudaMalloc((void **)&buffer, p->l2_read_bytes));
    fill_pattern<<<setup_blocks(vectors, p->setup_grid), 256>>>(buffer, vectors);
    CHECK_LAUNCH();
    unsigned expected[READ_THREADS] = {0}; /* thread t of every block: vectors t, t + 256, ..., every pass */
    for (int i = 0; i < vectors; ++i)
        expected[i % READ_THREADS] += vector_sum(i);
    for (int t = 0; t < READ_THREADS; ++t)
        expected[t] *= passes;
    const double bytes = (double)blocks * passes * p->l2_read_bytes;
    measure_bandwidth(BANDWIDTH_L2, p, rep, f, threads, bytes, expected, READ_THREADS,
                      [&](unsigned *sums, long long *cycles) {
                          read_l2<<<blocks, READ_THREADS>>>(buffer, vectors, passes, sums, cycles);
                          CHECK_LAUNCH();
                      });
    HANDLE_ERROR(cudaFree(buffer));
}

static void measure_bandwidth_dram(const plan *p, report *rep, figures *f) {
    const long long vectors = (long long)(p->dram_bytes / sizeof(uint4));
    const int blocks = wave_of_blocks(p, read_dram);
    const long long threads = (long long)blocks * READ_THREADS;
    uint4 *buffer = (uint4 *)p->dram;
    fill_pattern<<<setup_blocks(vectors, p->setup_grid), 256>>>(buffer, vectors);
    CHECK_LAUNCH();
    unsigned *expected = (unsigned *)host_alloc("shared_vs_global", (size_t)threads * sizeof(unsigned), "the sums");
    memset(expected, 0, (size_t)threads * sizeof(unsigned));
    for (long long i = 0, thread = 0; i < vectors; ++i) { /* vector i: thread i mod threads */
        expected[thread] += vector_sum(i);
        if (++thread == threads) thread = 0;
    }
    measure_bandwidth(BANDWIDTH_DRAM, p, rep, f, threads, (double)p->dram_bytes, expected, threads,
                      [&](unsigned *sums, long long *cycles) {
                          read_dram<<<blocks, READ_THREADS>>>(buffer, vectors, sums, cycles);
                          CHECK_LAUNCH();
                      });
    free(expected);
}

// ---------------------------------------------------------------------------
// The figures and the verdict: every number computed from this run.

static void print_figures(const figures *f, const plan *p) {
    char a[32], b[32];
    char labels[MEASUREMENT_COUNT][80];
    snprintf(labels[LATENCY_SHARED], sizeof labels[0], "shared memory (a %s chain)",
             size_text(a, sizeof a, SHARED_CHAIN_BYTES));
    snprintf(labels[LATENCY_L1], sizeof labels[0], "global, L1 hit (a %s chain, __ldca)",
             size_text(a, sizeof a, L1_CHAIN_BYTES));
    snprintf(labels[LATENCY_L2], sizeof labels[0], "global, L2 hit (a %s chain, __ldcg)",
             size_text(a, sizeof a, (double)p->l2_chain_bytes));
    snprintf(labels[LATENCY_DRAM], sizeof labels[0], "global, DRAM (a %s chain, __ldcg)",
             size_text(a, sizeof a, (double)p->dram_bytes));
    snprintf(labels[LATENCY_REGISTER], sizeof labels[0], "register: one FMA");
    snprintf(labels[BANDWIDTH_SHARED], sizeof labels[0], "shared memory (a %s tile per block)",
             size_text(a, sizeof a, SHARED_TILE_ROWS * READ_THREADS * sizeof(uint4)));
    snprintf(labels[BANDWIDTH_L2], sizeof labels[0], "global, L2 (%s, read by every block)",
             size_text(a, sizeof a, (double)p->l2_read_bytes));
    snprintf(labels[BANDWIDTH_DRAM], sizeof labels[0], "global, DRAM (%s, read once)",
             size_text(b, sizeof b, (double)p->dram_bytes));

    printf("\n%-52s %9s %9s %8s\n", "Latency: one thread, one step at a time", "cycles", "ns", "SM GHz");
    for (int m = LATENCY_SHARED; m <= LATENCY_REGISTER; ++m)
        if (f->measured[m])
            printf("  %-50s %9.1f %9.2f %8.2f\n", labels[m], f->cycles[m], f->ns[m], f->cycles[m] / f->ns[m]);
    printf("%-52s %9s %9s %8s\n", "Bandwidth: every SM busy, 16-byte loads", "GB/s", "per SM", "B/clock");
    for (int m = BANDWIDTH_SHARED; m <= BANDWIDTH_DRAM; ++m)
        if (f->measured[m])
            printf("  %-50s %9.1f %9.1f %8.1f\n", labels[m], f->gbps[m], f->gbps_per_sm[m], f->bytes_per_clock[m]);
    if (p->dram_bytes && p->dram_bytes < 4 * p->l2_bytes)
        printf("  (the DRAM chain and buffer, %s, are under 4 x the L2, %s: their figures are partly the L2's)\n",
               size_text(a, sizeof a, (double)p->dram_bytes), size_text(b, sizeof b, (double)p->l2_bytes));
}

/* 1 when every measurement in `mask` was timed in this run; else says which to ask for. */
static int judged(const figures *f, unsigned mask, const char *claim) {
    char missing[256] = "";
    for (int m = 0; m < MEASUREMENT_COUNT; ++m)
        if ((mask >> m & 1u) && !f->measured[m]) {
            if (missing[0]) strncat(missing, ",", sizeof missing - strlen(missing) - 1);
            strncat(missing, measurement_names[m], sizeof missing - strlen(missing) - 1);
        }
    if (missing[0]) printf("  %s: not judged: it needs --kernel %s\n", claim, missing);
    return missing[0] == '\0';
}

#define MASK(x) (1u << (x))
static void print_verdict(const figures *f, const struct cudaDeviceProp *device) {
    const double *c = f->cycles, *g = f->gbps_per_sm, *per_clock = f->bytes_per_clock;
    printf("\nVerdict, from this run's figures:\n");
    if (judged(f, MASK(LATENCY_SHARED) | MASK(LATENCY_L2) | MASK(LATENCY_DRAM), "latency"))
        printf("  latency: a shared-memory load takes %.1f cycles (%.1f ns), %.1f times less than an L2 hit\n"
               "    (%.1f cycles) and %.1f times less than DRAM (%.1f cycles)\n",
               c[LATENCY_SHARED], f->ns[LATENCY_SHARED], c[LATENCY_L2] / c[LATENCY_SHARED], c[LATENCY_L2],
               c[LATENCY_DRAM] / c[LATENCY_SHARED], c[LATENCY_DRAM]);
    if (judged(f, MASK(LATENCY_SHARED) | MASK(LATENCY_L1), "L1"))
        printf("  L1 is the same on-chip memory as shared memory: an L1 hit takes %.1f cycles, %.2f times a\n"
               "    shared-memory load\n",
               c[LATENCY_L1], c[LATENCY_L1] / c[LATENCY_SHARED]);
    if (judged(f, MASK(LATENCY_SHARED) | MASK(LATENCY_REGISTER), "registers"))
        printf("  a dependent register FMA takes %.1f cycles: one shared-memory load lasts as long as %.1f of them\n",
               c[LATENCY_REGISTER], c[LATENCY_SHARED] / c[LATENCY_REGISTER]);
    if (judged(f, MASK(BANDWIDTH_SHARED) | MASK(BANDWIDTH_L2) | MASK(BANDWIDTH_DRAM), "bandwidth"))
        printf("  bandwidth per SM: shared memory %.1f GB/s (%.1f bytes a clock), %.1f times the L2's (%.1f GB/s)\n"
               "    and %.1f times DRAM's (%.1f GB/s)\n",
               g[BANDWIDTH_SHARED], per_clock[BANDWIDTH_SHARED], g[BANDWIDTH_SHARED] / g[BANDWIDTH_L2], g[BANDWIDTH_L2],
               g[BANDWIDTH_SHARED] / g[BANDWIDTH_DRAM], g[BANDWIDTH_DRAM]);

    const char *hundred = "claim \"shared memory is a hundred times faster than global memory\" (上百倍快)";
    if (judged(f,
               MASK(LATENCY_SHARED) | MASK(LATENCY_L2) | MASK(LATENCY_DRAM) | MASK(BANDWIDTH_SHARED) |
                   MASK(BANDWIDTH_L2) | MASK(BANDWIDTH_DRAM),
               hundred)) {
        const double latency = c[LATENCY_DRAM] / c[LATENCY_SHARED];
        const double bandwidth = g[BANDWIDTH_SHARED] / g[BANDWIDTH_DRAM];
        printf("  %s: %s:\n    %.0f times in latency and %.0f times in bandwidth per SM against DRAM; %.1f and %.1f "
               "times against the L2\n",
               hundred, latency >= 100 || bandwidth >= 100 ? "YES" : "NO", latency, bandwidth,
               c[LATENCY_L2] / c[LATENCY_SHARED], g[BANDWIDTH_SHARED] / g[BANDWIDTH_L2]);
    }
    const char *registers = "claim \"shared memory is as fast as registers\" (堪比寄存器)";
    if (judged(f, MASK(LATENCY_SHARED) | MASK(LATENCY_REGISTER), registers)) {
        const double ratio = c[LATENCY_SHARED] / c[LATENCY_REGISTER];
        printf("  %s: %s:\n    a shared-memory load's latency is %.1f times a register FMA's\n", registers,
               ratio <= REGISTER_LIKE_RATIO ? "YES" : "NO", ratio);
    }
    const char *lower = "claim \"shared memory has much lower latency than global memory\"";
    if (judged(f, MASK(LATENCY_SHARED) | MASK(LATENCY_L1) | MASK(LATENCY_L2) | MASK(LATENCY_DRAM), lower)) {
        const double l2 = c[LATENCY_L2] / c[LATENCY_SHARED];
        printf("  %s: %s:\n    %.1f times lower than an L2 hit, %.1f times lower than DRAM; but a global load that "
               "hits in L1\n    takes %.2f times a shared-memory load\n",
               lower, l2 >= LATENCY_RATIO_MUCH_LOWER ? "YES" : "NO", l2, c[LATENCY_DRAM] / c[LATENCY_SHARED],
               c[LATENCY_L1] / c[LATENCY_SHARED]);
    }
    if (judged(f, MASK(BANDWIDTH_DRAM), "global memory"))
        printf("  global memory is this GPU's own DRAM (%.1f GiB), read here at %.0f GB/s; PCIe links the GPU to\n"
               "    the host, not to its global memory\n",
               (double)device->totalGlobalMem / (1 << 30), f->gbps[BANDWIDTH_DRAM]);
}
#undef MASK

// ---------------------------------------------------------------------------
// The run: the plan, every selected measurement, the table and the verdict.

static int run(const cli_options *o, const struct cudaDeviceProp *device, size_t dram_bytes) {
    plan p;
    memset(&p, 0, sizeof p);
    p.check = o->check_only;
    p.reps = o->reps;
    p.sms = device->multiProcessorCount;
    p.setup_grid = p.sms * (device->maxThreadsPerMultiProcessor / 256);
    p.l2_bytes = (size_t)device->l2CacheSize;
    p.l2_chain_bytes = p.l2_bytes / 4 < L2_CHAIN_MAX_BYTES ? p.l2_bytes / 4 : L2_CHAIN_MAX_BYTES;
    p.l2_chain_bytes -= p.l2_chain_bytes % LINE_BYTES;
    if (p.l2_chain_bytes < 2 * LINE_BYTES) p.l2_chain_bytes = 2 * LINE_BYTES;
    p.l2_read_bytes = p.check ? L2_READ_CHECK_BYTES : p.l2_bytes / 4 - p.l2_bytes / 4 % 4096;
    if (p.l2_read_bytes < 4096) p.l2_read_bytes = 4096;
    p.dram_bytes = dram_bytes;
    if (dram_bytes) HANDLE_ERROR(cudaMalloc(&p.dram, dram_bytes));

    char a[32], b[32], c[32], d[32];
    printf("\nshared_vs_global: chains of %s (shared memory, L1), %s (L2) and %s (DRAM), one node per %d-byte line;\n"
           "reads: shared tiles, %s of L2, %s of DRAM; %s\n\n",
           size_text(a, sizeof a, SHARED_CHAIN_BYTES), size_text(b, sizeof b, (double)p.l2_chain_bytes),
           dram_bytes ? size_text(c, sizeof c, (double)dram_bytes) : "none", LINE_BYTES,
           size_text(d, sizeof d, (double)p.l2_read_bytes), dram_bytes ? c : "none",
           p.check ? "--check: short walks, small buffers, every result checked, nothing timed"
                   : "each timed as the median of --reps launches (CUDA events)");

    report rep;
    report_begin(&rep, "shared_vs_global", stdout);
    figures f;
    memset(&f, 0, sizeof f);
    for (int m = 0; m < MEASUREMENT_COUNT; ++m) {
        if (!cli_kernel_selected(o, m)) continue;
        switch (m) {
        case LATENCY_SHARED: measure_latency_shared(&p, &rep, &f); break;
        case LATENCY_L1:
        case LATENCY_L2:
        case LATENCY_DRAM: measure_latency_global(m, &p, &rep, &f); break;
        case LATENCY_REGISTER: measure_latency_register(&p, &rep, &f); break;
        case BANDWIDTH_SHARED: measure_bandwidth_shared(&p, &rep, &f); break;
        case BANDWIDTH_L2: measure_bandwidth_l2(&p, &rep, &f); break;
        case BANDWIDTH_DRAM: measure_bandwidth_dram(&p, &rep, &f); break;
        }
    }
    if (p.check) {
        printf("\nVerdict: not judged in --check runs: nothing is timed.\n");
    } else {
        print_figures(&f, &p);
        print_verdict(&f, device);
    }
    if (p.dram) HANDLE_ERROR(cudaFree(p.dram));
    return report_end(&rep);
}

// ---------------------------------------------------------------------------
// The bank model (--bank-model): every shared-memory instruction of
// chase_shared and read_shared, as one block of READ_THREADS threads executes
// it, each lane's byte address and the passes common/bank_model.h predicts for
// it. No GPU: it runs before any CUDA call.

/* One instruction of a kernel: every warp-wide execution of it in a block is
 * added (model_add); those that take the same number of passes make one line,
 * showing the first of them, weighted by how many there are. */
#define MODEL_MAX_GROUPS 4
typedef struct {
    const char *kernel, *access, *op, *picture;
    int bytes, groups;
    int passes[MODEL_MAX_GROUPS];
    long long weight[MODEL_MAX_GROUPS];
    unsigned address[MODEL_MAX_GROUPS][32], active[MODEL_MAX_GROUPS];
} model_access;

static model_access model_access_for(const char *kernel, const char *access, const char *op, int bytes,
                                     const char *picture) {
    model_access m;
    memset(&m, 0, sizeof m);
    m.kernel = kernel, m.access = access, m.op = op, m.bytes = bytes, m.picture = picture;
    return m;
}

static void model_add(model_access *m, const unsigned address[32], unsigned active) {
    const int passes = bank_passes(address, active, m->bytes);
    int g = 0;
    while (g < m->groups && m->passes[g] != passes)
        ++g;
    if (g == m->groups) {
        if (g == MODEL_MAX_GROUPS) { /* a mistake in this model, not in the kernel */
            fprintf(stderr, "shared_vs_global: %s, %s: more than %d pass counts\n", m->kernel, m->access, g);
            exit(EXIT_WRONG_RESULT);
        }
        m->groups++;
        m->passes[g] = passes;
        memcpy(m->address[g], address, sizeof m->address[g]);
        m->active[g] = active;
    }
    m->weight[g]++;
}

static void model_print(const model_access *m) {
    for (int g = 0; g < m->groups; ++g)
        bank_model_line(m->kernel, m->access, m->op, m->bytes, m->address[g], m->active[g], m->weight[g],
                        g == 0 ? m->picture : NULL);
}

/* A fill loop, for (int i = threadIdx.x; i < count; i += blockDim.x) s[i] = ...;
 * on a 1-D array of m->bytes-byte elements: in its j-th iteration, lane t of
 * warp w stores element i = j * READ_THREADS + 32 w + t, at byte i x m->bytes
 * (what &s[i] is); lanes past the end take no part. */
static void model_fill_loop(model_access *m, int count) {
    for (int warp = 0; warp < READ_THREADS / 32; ++warp)
        for (int first = 32 * warp; first < count; first += READ_THREADS) {
            unsigned address[32], active = 0;
            for (int lane = 0; lane < 32; ++lane) {
                address[lane] = (unsigned)((first + lane) * m->bytes);
                if (first + lane < count) active |= 1u << lane;
            }
            model_add(m, address, active);
        }
}

static int print_bank_model(const cli_options *o) {
    const long long steps = o->check_only ? CHECK_STEPS : SHARED_STEPS;
    const int rounds = o->check_only ? CHECK_ROUNDS : SHARED_ROUNDS;
    bank_model_header();

    model_access chain_fill = model_access_for("chase_shared", "chain fill", "st", sizeof(unsigned), NULL);
    model_fill_loop(&chain_fill, SHARED_CHAIN_BYTES / 4);
    model_print(&chain_fill);
    /* The walk: thread 0 alone (the other lanes have returned), each load at
     * the byte offset the last one read, from line 0 as main's walk starts. */
    model_access walk = model_access_for("chase_shared", "walk, lane 0 alone", "ld", sizeof(unsigned), NULL);
    unsigned next_line[SHARED_CHAIN_BYTES / LINE_BYTES], chain[SHARED_CHAIN_BYTES / 4], address[32] = {0};
    build_chain(next_line, SHARED_CHAIN_BYTES / LINE_BYTES, CHAIN_SEED);
    shared_chain_offsets(next_line, SHARED_CHAIN_BYTES / LINE_BYTES, chain);
    for (long long k = 0; k < steps; ++k) {
        model_add(&walk, address, 1u);
        address[0] = chain[address[0] / 4];
    }
    model_print(&walk);

    model_access tile_fill = model_access_for("read_shared", "tile fill", "st", sizeof(uint4), NULL);
    model_fill_loop(&tile_fill, SHARED_TILE_ROWS * READ_THREADS);
    model_print(&tile_fill);
    model_access read =
        model_access_for("read_shared", "16-byte read", "ld", sizeof(uint4), "svg_read_shared_16_byte_load");
    for (int warp = 0; warp < READ_THREADS / 32; ++warp)
        for (int round = 0; round < rounds; ++round)
            for (int k = 0; k < SHARED_LOADS; ++k) {
                for (int lane = 0; lane < 32; ++lane)
                    address[lane] = shared_read_vector(round, ROW_STEP, k, 32 * warp + lane) * sizeof(uint4);
                model_add(&read, address, 0xffffffffu);
            }
    model_print(&read);
    return 0;
}

// ---------------------------------------------------------------------------
// The device's own figures, and the command line.

/* The size in KB of one SM's L1/shared array, from NVIDIA's tuning guides
 * (CUDA has no query for it); 0 where this table does not know. */
static int unified_l1_shared_kb(int major, int minor) {
    switch (10 * major + minor) {
    case 70: return 128; /* Volta                */
    case 75: return 96;  /* Turing               */
    case 80: return 192; /* A100                 */
    case 86: return 128; /* GA10x                */
    case 89: return 128; /* Ada                  */
    case 90: return 256; /* Hopper: H100, H200   */
    default: return 0;
    }
}

static void print_device_figures(const struct cudaDeviceProp *device, int device_number) {
    int per_sm = 0, optin = 0, reserved = 0, clock_khz = 0;
    HANDLE_ERROR(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device_number));
    HANDLE_ERROR(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device_number));
    HANDLE_ERROR(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device_number));
    HANDLE_ERROR(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device_number));
    printf("Shared memory: %d KB per SM (cudaDevAttrMaxSharedMemoryPerMultiprocessor); per block %zu KB without\n"
           "  asking (sharedMemPerBlock, and all a static __shared__ array may have), up to %d KB with\n"
           "  cudaFuncSetAttribute (cudaDevAttrMaxSharedMemoryPerBlockOptin); %d KB of the SM reserved per block\n",
           per_sm / 1024, device->sharedMemPerBlock / 1024, optin / 1024, reserved / 1024);
    const int unified = unified_l1_shared_kb(device->major, device->minor);
    if (unified)
        printf("L1 and shared memory: one %d KB array per SM (NVIDIA's tuning guide for compute capability %d.%d;\n"
               "  CUDA has no query for it): shared memory takes up to %d KB of it, L1 the rest\n",
               unified, device->major, device->minor, per_sm / 1024);
    else
        printf("L1 and shared memory: one array per SM; its size for compute capability %d.%d is not in this\n"
               "  program's table, and CUDA has no query for it\n",
               device->major, device->minor);
    printf("SM clock: %.2f GHz at most (cudaDevAttrClockRate); global memory: %.1f GiB of the GPU's own DRAM\n",
           clock_khz / 1e6, (double)device->totalGlobalMem / (1 << 30));
}

static const cli_own_option own_options[] = {
    {"--dram-mib", "M",
     "MiB of latency_dram's chain and bandwidth_dram's buffer\n"
     "                       (default: 8 x the L2 and at least 512; 4 with --check)"},
    {NULL, NULL, NULL}};

static void parse_command_line(int argc, char **argv, cli_options *o, long long *dram_mib) {
    cli_spec spec = {};
    spec.program = "shared_vs_global";
    spec.summary = "shared memory against global memory: latency and bandwidth, measured";
    spec.accepts = CLI_KERNEL | CLI_REPS | CLI_CHECK | CLI_DEVICE | CLI_BANK_MODEL;
    spec.kernels = measurement_names;
    spec.own_options = own_options;
    spec.extra_help =
        "latency_*: one thread, one dependent load at a time: a chain in shared memory, or in global memory\n"
        "that stays in L1, in the L2, or goes to DRAM; latency_register: dependent FMAs, the yardstick.\n"
        "bandwidth_*: every SM busy with 16-byte loads from shared memory, the L2 or DRAM.\n"
        "The walk in shared memory always runs first; the verdict needs every measurement, timed.\n"
        "--check: short walks and small buffers, every result checked, nothing timed, no verdict.";
    cli_parse_or_exit(&spec, argc, argv, o);
    *dram_mib = 0;
    const char *text = o->own_values[0];
    if (text == NULL) return;
    if (cli_parse_count(text, dram_mib) != 0 || *dram_mib > DRAM_MAX_MIB) {
        fprintf(stderr, "shared_vs_global: --dram-mib needs a whole number from 1 to %d, got '%s'\n", DRAM_MAX_MIB,
                text);
        exit(EXIT_BAD_COMMAND_LINE);
    }
    if (!(o->kernel_mask & DRAM_MEASUREMENTS)) {
        fprintf(stderr, "shared_vs_global: --dram-mib applies to latency_dram and bandwidth_dram only\n");
        exit(EXIT_BAD_COMMAND_LINE);
    }
}

static size_t dram_bytes_or_exit(const cli_options *o, const struct cudaDeviceProp *device, long long dram_mib) {
    if (!(o->kernel_mask & DRAM_MEASUREMENTS)) return 0;
    const size_t mib = 1 << 20, l2 = (size_t)device->l2CacheSize;
    size_t bytes;
    if (dram_mib) {
        bytes = (size_t)dram_mib * mib;
    } else if (o->check_only) {
        bytes = DRAM_CHECK_MIB * mib;
    } else { /* 8 x the L2 and at least 512 MiB, but no more than half of what is free */
        bytes = DRAM_L2_TIMES * l2 > DRAM_MIN_BYTES ? DRAM_L2_TIMES * l2 : DRAM_MIN_BYTES;
        bytes = (bytes + mib - 1) / mib * mib;
        size_t free_bytes = 0, total_bytes = 0;
        HANDLE_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
        if (bytes > free_bytes / 2) bytes = free_bytes / 2 / mib * mib;
    }
    gpu_require_memory("shared_vs_global", (double)bytes + 2.0 * l2 + 64.0 * mib,
                       "the DRAM chain and buffer (--dram-mib), with the L2 flush and the small buffers,");
    return bytes;
}
