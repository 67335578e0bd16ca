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
 *   chase_global  the same walk in global memory: from L1 (__ldca), the L2 or DRAM (__ldcg).
 *   fma_chain     dependent FMAs in registers: the yardstick.
 *   read_shared   every block reads its own conflict-free __shared__ tile, 16 bytes a load.
 *   read_l2       every block reads one buffer small enough to stay in the L2.
 *   read_dram     the grid reads a buffer far larger than the L2, once.
 *   spread_chain, fill_pattern  set-up: the global chains' nodes, the read buffers' words.
 * Checks: every walk must end on the line where the CPU's walk of the same chain
 * ends, the FMAs on the CPU's value bit for bit, each reading thread's sum on the
 * CPU's. Read from here to main; below main a line marks the harness. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book.h"             /* the book's header: error checks, the device, timing */
#include "ceiling.cuh"        /* harness (below the line): the L2 flush before the DRAM walk */
#include "cli.h"              /* harness: the command line */
#include "bank_model.h"       /* harness: --bank-model, the CPU runner's count of each shared access */
#include "report.h"           /* harness: the table and the RESULT lines */

// ---------------------------------------------------------------------------
// Constants.

#define LINE_BYTES 128                 /* a cache line: every node of a chain has one to itself */
#define LINE_WORDS (LINE_BYTES / 8)    /* 64-bit words in a line (the global chains)            */
#define SHARED_CHAIN_BYTES (16 * 1024) /* 128 nodes in shared memory                            */
#define SHARED_STEPS (1 << 20)         /* main's walk: long enough that the launch hardly counts */
#define CHECK_STEPS 1000               /* --check: every walk this long                         */
#define CHAIN_SEED 20261124ull         /* the same chains on every run                          */

#define READ_THREADS 256 /* the block of every bandwidth kernel                         */
#define SHARED_LOADS 8   /* read_shared: independent 16-byte loads per thread and round */
#define SHARED_WINDOW 4  /* read_shared: a round starts on one of the tile's first rows */
#define GLOBAL_LOADS 4   /* read_l2, read_dram: loads a thread issues before it uses any */
#define SHARED_TILE_ROWS (SHARED_WINDOW + SHARED_LOADS - 1) /* 11 rows of 256 vectors: 44 KiB */

// ---------------------------------------------------------------------------
// Latency: one thread walks a chain in which each load's value says where the
// next load goes, so K steps take K load latencies. clock64() counts the SM's
// cycles around the walk, CUDA events time the launch: together, the SM clock.
// A chain visits 128-byte lines in a random order that is one cycle through all
// of them (build_chain), so no line fetched for one step helps the next. A walk
// starts on line *line and writes back where it stopped: the next launch goes
// on from there, and the CPU, walking the same chain as far, must end there too.

/* (a) Shared memory. The chain holds byte offsets: where the next node is in
 * s_chain. Adding an offset to the array's base is part of the load
 * instruction itself (LDS R, [R+UR]), so each step is one load and nothing
 * else; with word indices, j = s_chain[j], every step would also multiply. */
__global__ void chase_shared(const unsigned *chain, long long steps, unsigned *line, long long *cycles) {
    __shared__ unsigned s_chain[SHARED_CHAIN_BYTES / 4];
    for (int i = threadIdx.x; i < SHARED_CHAIN_BYTES / 4; i += blockDim.x)
        s_chain[i] = chain[i]; // bank: chain fill
    __syncthreads(); /* the whole chain is in place before thread 0 walks it */
    if (threadIdx.x != 0) return;

    unsigned offset = *line * LINE_BYTES;
    const long long start = clock64();
    for (long long k = 0; k < steps; ++k)
        offset = *(const unsigned *)((const char *)s_chain + offset); // bank: walk, lane 0 alone
    const long long stop = clock64();
    *line = offset / LINE_BYTES;
    *cycles = stop - start;
}

/* (b), (c), (d) Global memory: the same walk, each node holding the next one's
 * address (64 bits), so again each step is one load. __ldca, the default "cache
 * at all levels" load, reads a chain small enough from L1; __ldcg caches in the
 * L2 only: a chain that fits there is read from the L2, one far larger from
 * DRAM. warm_steps are walked before the clock starts: one lap of the chain
 * brings every node into L1 in this launch, whatever L1 kept from the last. */
template <bool through_l1>
__global__ void chase_global(const unsigned long long *chain, long long warm_steps, long long steps, unsigned *line,
                             long long *cycles) {
    const unsigned long long *node = chain + (size_t)*line * LINE_WORDS;
    for (long long k = 0; k < warm_steps; ++k)
        node = (const unsigned long long *)(through_l1 ? __ldca(node) : __ldcg(node));
    const long long start = clock64();
    for (long long k = 0; k < steps; ++k)
        node = (const unsigned long long *)(through_l1 ? __ldca(node) : __ldcg(node));
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
// (32-bit, wrapping) and writes its sum, so no load can be left out, and the
// CPU computes every thread's sum. Then each block's thread 0 keeps the most SM
// cycles a block took (atomicMax on *cycles, 0 before the launch): the blocks
// of one wave run side by side, so the longest is the kernel's time on its SM
// (block 0 alone would not do: the scheduler favours the oldest warps).

/* What the reads read: word w of every tile and buffer. */
__host__ __device__ inline unsigned pattern_word(unsigned long long word) {
    return (unsigned)((word + 1) * 0x9E3779B97F4A7C15ull >> 32);
}

/* The buffers read_l2 and read_dram read: word w is pattern_word(w), as in read_shared's tile. */
__global__ void fill_pattern(uint4 *buffer, long long vectors) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < vectors;
         i += (long long)gridDim.x * blockDim.x)
        buffer[i] =
            make_uint4(pattern_word(4 * i), pattern_word(4 * i + 1), pattern_word(4 * i + 2), pattern_word(4 * i + 3));
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
        s_tile[i] = // bank: tile fill
            make_uint4(pattern_word(4 * i), pattern_word(4 * i + 1), pattern_word(4 * i + 2), pattern_word(4 * i + 3));
    __syncthreads(); /* the tile is written before any warp reads it */

    const long long start = clock64();
    unsigned sum = 0;
    for (int round = 0; round < rounds; ++round) {
        const uint4 *s_row = s_tile + (unsigned)(round * row_step) % SHARED_WINDOW * READ_THREADS + threadIdx.x;
#pragma unroll
        for (int k = 0; k < SHARED_LOADS; ++k) {
            const uint4 v = s_row[k * READ_THREADS]; // bank: 16-byte read
            sum += v.x + v.y + v.z + v.w;
        }
    }
    sums[blockIdx.x * blockDim.x + threadIdx.x] = sum;
    __syncthreads(); /* every warp of the block is done */
    if (threadIdx.x == 0) atomicMax((unsigned long long *)cycles, (unsigned long long)(clock64() - start));
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
    __syncthreads(); /* every warp of the block is done */
    if (threadIdx.x == 0) atomicMax((unsigned long long *)cycles, (unsigned long long)(clock64() - start));
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
    __syncthreads(); /* every warp of the block is done */
    if (threadIdx.x == 0) atomicMax((unsigned long long *)cycles, (unsigned long long)(clock64() - start));
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

/* chase_shared's chain: the node of line i (its first word) holds the byte
 * offset of line next_line[i]; the other words are never read. */
static void shared_chain_offsets(const unsigned *next_line, unsigned lines, unsigned *chain) {
    memset(chain, 0, (size_t)lines * LINE_BYTES);
    for (unsigned i = 0; i < lines; ++i)
        chain[i * (LINE_BYTES / 4)] = next_line[i] * LINE_BYTES;
}

/* chase_global's chain, written on the device, where its addresses are: the node
 * of line i (its first 8 bytes) holds the address of line next_line[i]'s node. */
__global__ void spread_chain(unsigned long long *chain, const unsigned *next_line, long long lines) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < lines;
         i += (long long)gridDim.x * blockDim.x)
        chain[i * LINE_WORDS] = (unsigned long long)(chain + (size_t)next_line[i] * LINE_WORDS);
}

// ---------------------------------------------------------------------------
// How much shared memory there is, asked of the device as Fan's query.cu (ch. 6)
// asks it (sharedMemPerBlock, sharedMemPerMultiprocessor), and the SM's clock.

static void print_device_figures(const struct cudaDeviceProp *device, int device_number) {
    const int per_sm = (int)device->sharedMemPerMultiprocessor, optin = (int)device->sharedMemPerBlockOptin;
    const int reserved = (int)device->reservedSharedMemPerBlock, cc = 10 * device->major + device->minor;
    int clock_khz = 0; /* not in cudaDeviceProp since CUDA 13 */
    HANDLE_ERROR(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device_number));
    printf("Shared memory: %d KB per SM (cudaDevAttrMaxSharedMemoryPerMultiprocessor); per block %zu KB without\n"
           "  asking (sharedMemPerBlock, and all a static __shared__ array may have), up to %d KB with\n"
           "  cudaFuncSetAttribute (cudaDevAttrMaxSharedMemoryPerBlockOptin); %d KB of the SM reserved per block\n",
           per_sm / 1024, device->sharedMemPerBlock / 1024, optin / 1024, reserved / 1024);
    /* One SM's L1/shared array (KB), from NVIDIA's tuning guides: Volta, GA10x, Ada; Turing; A100; Hopper. */
    const int unified = cc == 70 || cc == 86 || cc == 89 ? 128 : cc == 75 ? 96 : cc == 80 ? 192 : cc == 90 ? 256 : 0;
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

// ---------------------------------------------------------------------------
// What main calls from below the line, declared here.

/* The options: --help and --bank-model print and exit 0, a bad one exits 2. */
static void parse_options(int argc, char **argv, cli_options *o);
/* The line where a walk of `steps` steps from `line` ends, walked on the CPU. */
static unsigned chase_cpu(const unsigned *next_line, unsigned line, long long steps);
/* Every selected measurement checked and timed, the table, the verdict: 0 when all passed. */
static int run_progression(const cli_options *o, const struct cudaDeviceProp *device);

int main(int argc, char **argv) {
    cli_options o;
    parse_options(argc, argv, &o);
    struct cudaDeviceProp device;
    gpu_select_device("shared_vs_global", o.device, &device);
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
    const unsigned cpu_line = chase_cpu(next_line, 0, steps);
    printf("\nOne thread walked %lld steps of a %u-line chain in shared memory: ", steps, lines);
    if (ON_CPU_RUNNER) /* harness: its clock64() is the host's clock, which says nothing of a GPU's cycles */
        printf("cycles not measured on the CPU runner\n");
    else
        printf("%lld cycles, %.1f per load\n", cycles, (double)cycles / steps);
    printf("It ended on line %u; the CPU's walk of the same chain on line %u: %s\n", end_line, cpu_line,
           end_line == cpu_line ? "PASS" : "FAIL");
    HANDLE_ERROR(cudaFree(dev_chain));
    HANDLE_ERROR(cudaFree(dev_line));
    HANDLE_ERROR(cudaFree(dev_cycles));

    const int status = run_progression(&o, &device);
    return end_line == cpu_line ? status : EXIT_WRONG_RESULT;
}

// ===== Harness: below this line, not needed to follow the lesson =====

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

/* The measurements, in --kernel's order. */
enum { LATENCY_SHARED, LATENCY_L1, LATENCY_L2, LATENCY_DRAM, LATENCY_REGISTER };
enum { BANDWIDTH_SHARED = LATENCY_REGISTER + 1, BANDWIDTH_L2, BANDWIDTH_DRAM, MEASUREMENT_COUNT };
static const char *const measurement_names[] = {"latency_shared", "latency_l1",       "latency_l2",
                                                "latency_dram",   "latency_register", "bandwidth_shared",
                                                "bandwidth_l2",   "bandwidth_dram",   NULL};
#define DRAM_MEASUREMENTS ((1u << LATENCY_DRAM) | (1u << BANDWIDTH_DRAM))

typedef struct {
    int check, reps, sms, setup_grid;               /* setup_grid: blocks of 256 that fill every SM once */
    size_t l2_bytes, l2_chain_bytes, l2_read_bytes; /* the device's L2, latency_l2's chain, bandwidth_l2's buffer */
    size_t dram_bytes;                              /* latency_dram's chain, then bandwidth_dram's buffer */
    void *dram;                                     /* that memory on the device, when either runs         */
} plan;

/* measured[m]: timed, its figures set: a walk's cycles and ns a step, a read's GB/s, per SM, per SM clock. */
typedef struct {
    int measured[MEASUREMENT_COUNT];
    double cycles[MEASUREMENT_COUNT], ns[MEASUREMENT_COUNT];
    double gbps[MEASUREMENT_COUNT], gbps_per_sm[MEASUREMENT_COUNT], bytes_per_clock[MEASUREMENT_COUNT];
} figures;

/* What launch() gives measurement m's kernel. launches: fma_chain's, the next writes x[launches]. */
typedef struct {
    void *chain; /* the walks: chase_shared's offsets or chase_global's nodes */
    long long steps, warm_steps, launches, vectors, *cycles;
    unsigned *line, *sums;
    float *x;
    int blocks, rounds, passes; /* the reads */
    const uint4 *buffer;
} launch_args;

static void launch(int m, launch_args *a);
static float fma_chain_cpu(long long steps);
static void read_shared_cpu(int rounds, unsigned *expected);
static void read_global_cpu(long long vectors, long long period, int passes, unsigned *expected);
static const char *check_one_cycle(const unsigned *next_line, unsigned lines);
static long long check_sums(result_row *row, const unsigned *dev_sums, long long threads, const unsigned *expected,
                            long long period);
static void check_claims(const figures *f, const struct cudaDeviceProp *device);

// ----- options -----
static const cli_own_option own_options[] = {
    {"--dram-mib", "M",
     "MiB of latency_dram's chain and bandwidth_dram's buffer\n"
     "                       (default: 8 x the L2 and at least 512; 4 with --check)"},
    {NULL, NULL, NULL}};

static void parse_options(int argc, char **argv, cli_options *o) {
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
    cli_own_number(&spec, o, 0, 1, DRAM_MAX_MIB, 0); /* --dram-mib, read again by run_progression */
    if (o->own_values[0] && !(o->kernel_mask & DRAM_MEASUREMENTS))
        cli_exit_bad(spec.program, "--dram-mib applies to latency_dram and bandwidth_dram only");
    static const bank_picture pictures[] = {{"read_shared", "16-byte read", "svg_read_shared_16_byte_load", 0},
                                            {NULL, NULL, NULL, 0}};
    static const char *const check[] = {" --check", NULL}; /* the timed run's shapes, in short walks */
    if (o->bank_model) bank_model_observe(spec.program, argc, argv, check, pictures, NULL);
}

// ----- the run -----
/* "16 KiB", "4 MiB", "12.5 MiB", "1 GiB". */
static const char *size_text(char *buffer, size_t size, double bytes) {
    const int shift = bytes >= (double)(1 << 30) ? 30 : bytes >= (double)(1 << 20) ? 20 : 10;
    snprintf(buffer, size, "%.3g %ciB", bytes / (1 << shift), shift == 30 ? 'G' : shift == 20 ? 'M' : 'K');
    return buffer;
}

/* A set-up kernel's grid: at most one that fills every SM once; a grid-stride loop does the rest. */
static int setup_blocks(long long n, int most) { return (int)((n + 255) / 256 < most ? (n + 255) / 256 : most); }

/* Two launches, then (unless --check) the timed ones, each going on where the last stopped: how many ran; *ms. */
static long long walks(int m, const plan *p, launch_args *a, double *ms) {
    launch(m, a);
    launch(m, a);
    HANDLE_ERROR(cudaDeviceSynchronize());
    *ms = p->check ? 0 : time_median_ms(p->reps, [&] { launch(m, a); });
    return p->check ? 2 : 2 + TIME_WARMUP_RUNS + p->reps;
}

/* value: the line (or x) the GPU ended on; expected: the CPU's; problem: NULL, or why the row fails. */
static void add_latency_row(report *rep, figures *f, int m, const char *type, long long steps, double value,
                            double expected, const char *problem, long long cycles, double ms) {
    result_row row = result_row_for(measurement_names[m], type, steps);
    row_check(&row, value, expected, 0);
    row.pass = row.pass && problem == NULL;
    f->cycles[m] = (double)cycles / steps;
    if (ms > 0) {
        row_time(&row, ms, NULL, 0);
        row.gbps = NAN; /* one thread: no bandwidth to speak of */
        f->ns[m] = ms * 1e6 / steps;
        f->measured[m] = 1;
        row_note(&row, "%.1f cycles, %.2f ns a step: SM at %.2f GHz", f->cycles[m], f->ns[m], f->cycles[m] / f->ns[m]);
    } else if (!ON_CPU_RUNNER) { /* the runner's clock64() is the host's clock: no GPU's cycles */
        row_note(&row, "%.1f cycles a step (a short walk, untimed)", f->cycles[m]);
    }
    if (problem) row_note(&row, "%s", problem);
    report_add(rep, &row);
}

/* latency_shared, _l1, _l2, _dram: the GPU's walks must end where the CPU's walk of as many steps ends. */
static void measure_latency(int m, const plan *p, report *rep, figures *f) {
    const size_t chain_bytes[] = {SHARED_CHAIN_BYTES, L1_CHAIN_BYTES, p->l2_chain_bytes, p->dram_bytes};
    const long long most_steps[] = {SHARED_STEPS, L1_STEPS, L2_STEPS, DRAM_STEPS};
    const unsigned lines = (unsigned)(chain_bytes[m] / LINE_BYTES);
    const long long fresh = lines / (2 + TIME_WARMUP_RUNS + p->reps); /* DRAM: each launch on lines of its own */
    launch_args a = {};
    a.steps = p->check ? CHECK_STEPS : most_steps[m];
    if (!p->check && m == LATENCY_DRAM && fresh < a.steps) a.steps = fresh > 0 ? fresh : 1;
    a.warm_steps = m == LATENCY_L1 ? lines : 0; /* one lap inside each launch: every node in L1 */
    unsigned *next_line = (unsigned *)host_alloc("shared_vs_global", (size_t)lines * sizeof(unsigned), "a chain");
    unsigned line = 0;
    long long cycles = 0, walked = 0;
    build_chain(next_line, lines, CHAIN_SEED);
    a.chain = p->dram;
    if (m != LATENCY_DRAM) HANDLE_ERROR(cudaMalloc(&a.chain, chain_bytes[m]));
    if (m == LATENCY_SHARED) {
        unsigned offsets[SHARED_CHAIN_BYTES / 4];
        shared_chain_offsets(next_line, lines, offsets);
        HANDLE_ERROR(cudaMemcpy(a.chain, offsets, sizeof offsets, cudaMemcpyHostToDevice));
    } else {
        unsigned *dev_next_line;
        HANDLE_ERROR(cudaMalloc((void **)&dev_next_line, (size_t)lines * sizeof(unsigned)));
        HANDLE_ERROR(cudaMemcpy(dev_next_line, next_line, (size_t)lines * sizeof(unsigned), cudaMemcpyHostToDevice));
        spread_chain<<<setup_blocks(lines, p->setup_grid), 256>>>((unsigned long long *)a.chain, dev_next_line, lines);
        CHECK_LAUNCH();
        HANDLE_ERROR(cudaFree(dev_next_line));
    }
    HANDLE_ERROR(cudaMalloc((void **)&a.line, sizeof line));
    HANDLE_ERROR(cudaMalloc((void **)&a.cycles, sizeof cycles));
    HANDLE_ERROR(cudaMemcpy(a.line, &line, sizeof line, cudaMemcpyHostToDevice));
    if (m == LATENCY_L2) { /* one lap first: every node in the L2 before the walks */
        launch_args lap = a;
        lap.steps = walked = lines;
        launch(m, &lap);
    }
    l2_flusher flusher = l2_flusher_create(m == LATENCY_DRAM); /* spread_chain's writes left nodes in the L2 */
    l2_flush(&flusher);
    l2_flusher_free(&flusher);
    double ms;
    walked += walks(m, p, &a, &ms) * (a.warm_steps + a.steps);
    HANDLE_ERROR(cudaMemcpy(&line, a.line, sizeof line, cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaMemcpy(&cycles, a.cycles, sizeof cycles, cudaMemcpyDeviceToHost));
    add_latency_row(rep, f, m, m == LATENCY_SHARED ? "u32" : "u64", a.steps, line, chase_cpu(next_line, 0, walked),
                    check_one_cycle(next_line, lines), cycles, ms);
    if (m != LATENCY_DRAM) HANDLE_ERROR(cudaFree(a.chain));
    HANDLE_ERROR(cudaFree(a.line));
    HANDLE_ERROR(cudaFree(a.cycles));
    free(next_line);
}

/* latency_register: each launch from FMA_START, its x in a slot of its own; every x must be the CPU's. */
static void measure_latency_register(const plan *p, report *rep, figures *f) {
    launch_args a = {};
    a.steps = p->check ? CHECK_STEPS : REGISTER_STEPS;
    const long long slots = 2 + TIME_WARMUP_RUNS + p->reps; /* the most walks() launches */
    long long cycles = 0, wrong = 0;
    HANDLE_ERROR(cudaMalloc((void **)&a.x, slots * sizeof(float)));
    HANDLE_ERROR(cudaMalloc((void **)&a.cycles, sizeof cycles));
    gpu_poison(a.x, slots * sizeof(float));
    double ms;
    const long long launches = walks(LATENCY_REGISTER, p, &a, &ms);
    float *x = (float *)host_alloc("shared_vs_global", launches * sizeof(float), "the FMAs' results");
    HANDLE_ERROR(cudaMemcpy(x, a.x, launches * sizeof(float), cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaMemcpy(&cycles, a.cycles, sizeof cycles, cudaMemcpyDeviceToHost));
    const float expected = fma_chain_cpu(a.steps);
    for (long long i = 0; i < launches; ++i)
        wrong += !(x[i] == expected);
    char problem[80];
    snprintf(problem, sizeof problem, "%lld of %lld launches gave another x", wrong, launches);
    add_latency_row(rep, f, LATENCY_REGISTER, "float", a.steps, x[launches - 1], expected, wrong ? problem : NULL,
                    cycles, ms);
    free(x);
    HANDLE_ERROR(cudaFree(a.x));
    HANDLE_ERROR(cudaFree(a.cycles));
}

/* bandwidth_*: one wave of blocks (all that fit at once: the longest block's cycles are its SM's); one checked
 * launch, then the timed ones, the sums poisoned before the last, which is checked as the first was. */
static void measure_bandwidth(int m, const plan *p, report *rep, figures *f) {
    const void *kernels[] = {(const void *)read_shared, (const void *)read_l2, (const void *)read_dram};
    int per_sm = 0;
    if (!p->check)
        HANDLE_ERROR(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernels[m - BANDWIDTH_SHARED], READ_THREADS, 0));
    launch_args a = {};
    a.blocks = p->check ? CHECK_BLOCKS : per_sm * p->sms;
    const long long threads = (long long)a.blocks * READ_THREADS;
    long long period = READ_THREADS; /* thread i's sum is expected[i % period] */
    unsigned *expected = (unsigned *)host_alloc("shared_vs_global", (size_t)threads * sizeof(unsigned), "the sums");
    const size_t buffer_bytes = m == BANDWIDTH_L2 ? p->l2_read_bytes : p->dram_bytes;
    uint4 *buffer = (uint4 *)p->dram;
    double bytes = (double)buffer_bytes; /* read_dram: the buffer, once */
    if (m == BANDWIDTH_SHARED) {
        a.rounds = p->check ? CHECK_ROUNDS : SHARED_ROUNDS;
        read_shared_cpu(a.rounds, expected);
        bytes = (double)threads * a.rounds * SHARED_LOADS * sizeof(uint4);
    } else {
        a.vectors = (long long)(buffer_bytes / sizeof(uint4));
        a.passes = m == BANDWIDTH_L2 && !p->check ? L2_PASSES : 1;
        if (m == BANDWIDTH_L2) HANDLE_ERROR(cudaMalloc((void **)&buffer, buffer_bytes));
        fill_pattern<<<setup_blocks(a.vectors, p->setup_grid), 256>>>(buffer, a.vectors);
        CHECK_LAUNCH();
        a.buffer = buffer;
        if (m == BANDWIDTH_L2) bytes = (double)a.blocks * a.passes * buffer_bytes; /* every block, every pass */
        if (m == BANDWIDTH_DRAM) period = threads; /* read_l2: every block reads the same vectors */
        read_global_cpu(a.vectors, period, a.passes, expected);
    }
    long long cycles = 0;
    HANDLE_ERROR(cudaMalloc((void **)&a.sums, (size_t)threads * sizeof(unsigned)));
    HANDLE_ERROR(cudaMalloc((void **)&a.cycles, sizeof cycles));
    HANDLE_ERROR(cudaMemset(a.cycles, 0, sizeof cycles)); /* the kernels keep the longest block's cycles */
    result_row row = result_row_for(measurement_names[m], "uint4", (long long)(bytes / sizeof(uint4)));
    row_note(&row, "value: threads whose sum is the CPU's");
    gpu_poison(a.sums, (size_t)threads * sizeof(unsigned));
    launch(m, &a);
    const long long right = check_sums(&row, a.sums, threads, expected, period);
    int setups = 0; /* before the last timed launch: its sums poisoned, its cycles its own */
    auto before_last = [&] {
        if (++setups < TIME_WARMUP_RUNS + p->reps) return;
        gpu_poison(a.sums, (size_t)threads * sizeof(unsigned));
        HANDLE_ERROR(cudaMemset(a.cycles, 0, sizeof cycles));
    };
    const double ms = p->check ? 0 : time_median_ms(p->reps, before_last, [&] { launch(m, &a); });
    result_row timed = row; /* its note: the first launch's says which thread */
    const long long timed_right = p->check ? threads : check_sums(&timed, a.sums, threads, expected, period);
    HANDLE_ERROR(cudaMemcpy(&cycles, a.cycles, sizeof cycles, cudaMemcpyDeviceToHost));
    row_check(&row, (double)right, (double)threads, 0);
    row.pass = row.pass && timed_right == threads;
    row.bytes = bytes;
    if (timed_right != threads)
        row_note(&row, "the last timed launch: %lld threads' sums differ", threads - timed_right);
    if (ms > 0) {
        row_time(&row, ms, NULL, 0); /* no ceiling: the measurement is the point */
        f->measured[m] = 1;
        f->gbps[m] = row.gbps;
        f->gbps_per_sm[m] = row.gbps / p->sms;
        f->bytes_per_clock[m] = bytes / p->sms / (double)cycles;
        row_note(&row, "%.1f GB/s, %.1f bytes a clock per SM, %lld blocks per SM", f->gbps_per_sm[m],
                 f->bytes_per_clock[m], threads / READ_THREADS / p->sms);
    }
    report_add(rep, &row);
    free(expected);
    if (m == BANDWIDTH_L2) HANDLE_ERROR(cudaFree(buffer));
    HANDLE_ERROR(cudaFree(a.sums));
    HANDLE_ERROR(cudaFree(a.cycles));
}

static void print_figures(const figures *f, const plan *p) {
    char a[32], b[32], labels[MEASUREMENT_COUNT][80];
    auto label = [&](int m, const char *format, double bytes) {
        snprintf(labels[m], sizeof labels[m], format, size_text(a, sizeof a, bytes));
    };
    label(LATENCY_SHARED, "shared memory (a %s chain)", SHARED_CHAIN_BYTES);
    label(LATENCY_L1, "global, L1 hit (a %s chain, __ldca)", L1_CHAIN_BYTES);
    label(LATENCY_L2, "global, L2 hit (a %s chain, __ldcg)", (double)p->l2_chain_bytes);
    label(LATENCY_DRAM, "global, DRAM (a %s chain, __ldcg)", (double)p->dram_bytes);
    label(LATENCY_REGISTER, "register: one FMA", 0);
    label(BANDWIDTH_SHARED, "shared memory (a %s tile per block)", SHARED_TILE_ROWS * READ_THREADS * sizeof(uint4));
    label(BANDWIDTH_L2, "global, L2 (%s, read by every block)", (double)p->l2_read_bytes);
    label(BANDWIDTH_DRAM, "global, DRAM (%s, read once)", (double)p->dram_bytes);
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

static int run_progression(const cli_options *o, const struct cudaDeviceProp *device) {
    plan p = {};
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
    if (o->kernel_mask & DRAM_MEASUREMENTS) { /* 8 x the L2 and at least 512 MiB, at most half what is free */
        const size_t mib = 1 << 20;
        long long dram_mib = 0;
        size_t free_bytes, total;
        HANDLE_ERROR(cudaMemGetInfo(&free_bytes, &total));
        p.dram_bytes = DRAM_L2_TIMES * p.l2_bytes > DRAM_MIN_BYTES ? DRAM_L2_TIMES * p.l2_bytes : DRAM_MIN_BYTES;
        p.dram_bytes = (p.dram_bytes + mib - 1) / mib * mib;
        if (p.dram_bytes > free_bytes / 2) p.dram_bytes = free_bytes / 2 / mib * mib;
        if (p.check) p.dram_bytes = DRAM_CHECK_MIB * mib;
        if (o->own_values[0] && cli_parse_count(o->own_values[0], &dram_mib) == 0) p.dram_bytes = dram_mib * mib;
        gpu_require_memory("shared_vs_global", (double)p.dram_bytes + 2.0 * p.l2_bytes + 64.0 * mib,
                           "the DRAM chain and buffer (--dram-mib), with the L2 flush and the small buffers,");
        HANDLE_ERROR(cudaMalloc(&p.dram, p.dram_bytes));
    }
    char a[32], b[32], c[32], d[32];
    printf("\nshared_vs_global: chains of %s (shared memory, L1), %s (L2) and %s (DRAM), one node per %d-byte line;\n"
           "reads: shared tiles, %s of L2, %s of DRAM; %s\n\n",
           size_text(a, sizeof a, SHARED_CHAIN_BYTES), size_text(b, sizeof b, (double)p.l2_chain_bytes),
           p.dram_bytes ? size_text(c, sizeof c, (double)p.dram_bytes) : "none", LINE_BYTES,
           size_text(d, sizeof d, (double)p.l2_read_bytes), p.dram_bytes ? c : "none",
           p.check ? "--check: short walks, small buffers, every result checked, nothing timed"
                   : "each timed as the median of --reps launches (CUDA events)");
    report rep;
    report_begin(&rep, "shared_vs_global", stdout);
    figures f = {};
    for (int m = 0; m < MEASUREMENT_COUNT; ++m) {
        if (!cli_kernel_selected(o, m)) continue;
        if (m < LATENCY_REGISTER) measure_latency(m, &p, &rep, &f);
        if (m == LATENCY_REGISTER) measure_latency_register(&p, &rep, &f);
        if (m > LATENCY_REGISTER) measure_bandwidth(m, &p, &rep, &f);
    }
    if (p.check) {
        printf("\nVerdict: not judged: nothing is timed %s.\n",
               ON_CPU_RUNNER ? "on the CPU runner" : "in --check runs");
    } else {
        print_figures(&f, &p);
        check_claims(&f, device);
    }
    if (p.dram) HANDLE_ERROR(cudaFree(p.dram));
    return report_end(&rep);
}

// ----- the launch switch -----
static void launch(int m, launch_args *a) {
    const unsigned *offsets = (const unsigned *)a->chain;
    const unsigned long long *nodes = (const unsigned long long *)a->chain;
    switch (m) {
    case LATENCY_SHARED: chase_shared<<<1, READ_THREADS>>>(offsets, a->steps, a->line, a->cycles); break;
    case LATENCY_L1: chase_global<true><<<1, 1>>>(nodes, a->warm_steps, a->steps, a->line, a->cycles); break;
    case LATENCY_L2:
    case LATENCY_DRAM: chase_global<false><<<1, 1>>>(nodes, 0, a->steps, a->line, a->cycles); break;
    case LATENCY_REGISTER:
        fma_chain<<<1, 1>>>(FMA_START, FMA_FACTOR, FMA_ADD, a->steps, a->x + a->launches++, a->cycles);
        break;
    case BANDWIDTH_SHARED: read_shared<<<a->blocks, READ_THREADS>>>(a->rounds, ROW_STEP, a->sums, a->cycles); break;
    case BANDWIDTH_L2:
        read_l2<<<a->blocks, READ_THREADS>>>(a->buffer, (int)a->vectors, a->passes, a->sums, a->cycles);
        break;
    case BANDWIDTH_DRAM: read_dram<<<a->blocks, READ_THREADS>>>(a->buffer, a->vectors, a->sums, a->cycles); break;
    }
    CHECK_LAUNCH();
}

// ----- CPU replays -----
static unsigned chase_cpu(const unsigned *next_line, unsigned line, long long steps) {
    for (long long k = 0; k < steps; ++k)
        line = next_line[line];
    return line;
}

static float fma_chain_cpu(long long steps) {
    float x = FMA_START;
    for (long long k = 0; k < steps; ++k)
        x = fmaf(x, FMA_FACTOR, FMA_ADD);
    return x;
}

/* What one 16-byte vector adds to a thread's sum. */
static unsigned vector_sum(unsigned long long vector) {
    return pattern_word(4 * vector) + pattern_word(4 * vector + 1) + pattern_word(4 * vector + 2) +
           pattern_word(4 * vector + 3);
}

/* What thread t of every block sums in read_shared, the vectors s_row[k * READ_THREADS] of every round. */
static void read_shared_cpu(int rounds, unsigned *expected) {
    for (int t = 0; t < READ_THREADS; ++t) {
        expected[t] = 0;
        for (int round = 0; round < rounds; ++round)
            for (int k = 0; k < SHARED_LOADS; ++k)
                expected[t] +=
                    vector_sum((unsigned)(round * ROW_STEP) % SHARED_WINDOW * READ_THREADS + t + k * READ_THREADS);
    }
}

/* read_l2, read_dram: vector i to thread i mod period (256, every block alike; or the grid's), `passes` times. */
static void read_global_cpu(long long vectors, long long period, int passes, unsigned *expected) {
    memset(expected, 0, (size_t)period * sizeof(unsigned));
    for (long long i = 0, thread = 0; i < vectors; ++i) {
        expected[thread] += passes * vector_sum(i);
        if (++thread == period) thread = 0;
    }
}

// ----- checks -----
/* NULL when the walk from line 0 is back after exactly `lines` steps: one cycle, as build_chain promises. */
static const char *check_one_cycle(const unsigned *next_line, unsigned lines) {
    unsigned k = 1;
    for (unsigned line = next_line[0]; line != 0 && k <= lines; line = next_line[line])
        ++k;
    return k == lines ? NULL : "the chain is NOT one cycle through every line";
}

/* Threads whose sum equals the CPU's: thread i's is expected[i % period]; the row notes the first wrong one. */
static long long check_sums(result_row *row, const unsigned *dev_sums, long long threads, const unsigned *expected,
                            long long period) {
    unsigned *sums = (unsigned *)host_alloc("shared_vs_global", (size_t)threads * sizeof(unsigned), "the sums");
    HANDLE_ERROR(cudaMemcpy(sums, dev_sums, (size_t)threads * sizeof(unsigned), cudaMemcpyDeviceToHost));
    long long right = 0, first = -1;
    for (long long i = 0; i < threads; ++i)
        if (sums[i] == expected[i % period])
            ++right;
        else if (first < 0)
            first = i;
    if (first >= 0) row_note_first_wrong(row, sums[first], expected[first % period], "sums[%lld]", first);
    free(sums);
    return right;
}

/* 1 when every measurement in `mask` was timed in this run; else says which to ask for. */
static int judged(const figures *f, unsigned mask, const char *claim) {
    char missing[256] = "";
    for (int m = 0; m < MEASUREMENT_COUNT; ++m)
        if ((mask >> m & 1u) && !f->measured[m])
            snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%s", missing[0] ? "," : "",
                     measurement_names[m]);
    if (missing[0]) printf("  %s: not judged: it needs --kernel %s\n", claim, missing);
    return missing[0] == '\0';
}

/* The verdict: the ratios, and each source's claim judged from this run's figures. */
#define MASK(x) (1u << (x))
static void check_claims(const figures *f, const struct cudaDeviceProp *device) {
    const double *c = f->cycles, *g = f->gbps_per_sm, *per_clock = f->bytes_per_clock;
    const unsigned latencies = MASK(LATENCY_SHARED) | MASK(LATENCY_L2) | MASK(LATENCY_DRAM);
    const unsigned bandwidths = MASK(BANDWIDTH_SHARED) | MASK(BANDWIDTH_L2) | MASK(BANDWIDTH_DRAM);
    printf("\nVerdict, from this run's figures:\n");
    if (judged(f, latencies, "latency"))
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
    if (judged(f, bandwidths, "bandwidth"))
        printf("  bandwidth per SM: shared memory %.1f GB/s (%.1f bytes a clock), %.1f times the L2's (%.1f GB/s)\n"
               "    and %.1f times DRAM's (%.1f GB/s)\n",
               g[BANDWIDTH_SHARED], per_clock[BANDWIDTH_SHARED], g[BANDWIDTH_SHARED] / g[BANDWIDTH_L2], g[BANDWIDTH_L2],
               g[BANDWIDTH_SHARED] / g[BANDWIDTH_DRAM], g[BANDWIDTH_DRAM]);

    const char *hundred = "claim \"shared memory is a hundred times faster than global memory\" (上百倍快)";
    if (judged(f, latencies | bandwidths, hundred)) {
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
    if (judged(f, latencies | MASK(LATENCY_L1), lower)) {
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
