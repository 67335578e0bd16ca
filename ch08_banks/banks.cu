/* ch08_banks: the Programming Guide's shared-memory bank rules, measured
 * (CUDA C Programming Guide, "Shared Memory"; Fan Zheyong, CUDA 编程：基础与实践, ch. 8).
 *
 * What it teaches, one part each (--part), every one checked:
 *   stride, size  a warp reading 4-byte words at stride s takes gcd(s, 32) passes, timed;
 *                 bytes and shorts share words, a warp of doubles takes two passes.
 *   history       compute capability 1.x's 16 banks and half-warps beside today's, computed.
 *   carve, alias  every extern __shared__ array starts at one address: carve one buffer,
 *                 each offset rounded up to the next array's alignment.
 *   same_address  lanes storing to one address: one store is done (racecheck: a hazard).
 *   capacity      48 KB per block without asking, more with the opt-in; its cost in warps.
 *   carve_misaligned  (by name only) the Guide's chaining with short[127]: a misaligned store.
 *
 * Build this file alone, from its folder:
 *   nvcc -O3 -I../common banks.cu -o banks
 *
 * Kernels, in teaching order:
 *   guide_stride_read      the Guide's example: one warp, one load at stride s.
 *   device_shared_count    the Guide's __device__ __shared__: still one variable per block.
 *   bank_read<T, s>        every warp reads type T at stride s, 16 loads in flight per thread.
 *   carve_chained          the Guide's carve: each array starts where the last ends.
 *   carve_aligned          every offset rounded up with align_up(): right for any counts.
 *   two_extern_arrays      two extern __shared__ declarations: one address, one buffer.
 *   same_word_store        every lane of a warp stores its own value to one word.
 *   same_byte_store        lane t stores t to byte t % 8: four lanes per byte.
 *   copy_reserving_shared  a plain copy launched with dynamic shared memory it never touches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book.h" /* the book's header: error checks, the device, timing */

#include "ceiling.cuh"        /* harness (below the line): the copy's bandwidth ceiling */
#include "cli.h"              /* harness: the command line */
#include "bank_model.h"       /* harness: the bank rule; --bank-model, the CPU runner's count */
#include "report.h"           /* harness: the table and the RESULT lines */

#define WARP 32
#define BANKS 32                 /* successive 4-byte words go to successive banks */
#define BANK_BYTES 4             /* since Maxwell (compute capability 5.x) */
#define ROW_BYTES 128            /* BANKS * BANK_BYTES: what one pass can deliver */
#define MAX_STRIDE 33            /* strides 0 (broadcast) to 33 */
#define READ_THREADS 256         /* bank_read's block */
#define LOADS_PER_ROUND 16       /* independent loads each thread has in flight */
#define WINDOW_ROWS 16           /* rounds slide over this many 128-byte rows */
#define COPY_THREADS 256         /* copy_reserving_shared's block */
#define SAME_ADDRESS_THREADS 256 /* same_word_store's and same_byte_store's block */
#define SAME_BYTES 8             /* bytes per warp in same_byte_store: two words */
#define COUNT_BLOCKS 8           /* device_shared_count's grid */
#define COUNT_THREADS 256        /* and block */

static const int guide_strides[] = {1, 2, 3, 32, 33}; /* the Guide's example's strides */

// ---------------------------------------------------------------------------
// The Guide's example: thread t of a warp reads shared[s * t]. The threads
// that meet in one bank are 32 / gcd(s, 32) apart, so gcd(s, 32) of them
// share each bank and the load takes gcd(s, 32) passes: one for odd s.

__global__ void guide_stride_read(int *out, int s) {
    __shared__ int s_words[WARP * MAX_STRIDE];
    for (int i = threadIdx.x; i < WARP * MAX_STRIDE; i += blockDim.x)
        s_words[i] = i;
    __syncthreads(); /* every word is written before the warp reads */
    out[threadIdx.x] = s_words[s * threadIdx.x]; // bank: s_words[s * threadIdx.x]
}

// ---------------------------------------------------------------------------
// The Guide's __shared__, "optionally used together with __device__": written
// __device__ __shared__ it is still shared memory, one variable per block,
// living as long as the block (__device__ alone is one variable in global
// memory that every block sees). Each block counts its threads in its own
// s_count; every thread also adds 1 to one count in global memory.

__global__ void device_shared_count(unsigned *block_counts, unsigned *grid_count) {
    __device__ __shared__ unsigned s_count;
    if (threadIdx.x == 0) s_count = 0; /* shared memory starts with no value */
    __syncthreads();
    atomicAdd(&s_count, 1u);
    atomicAdd(grid_count, 1u);
    __syncthreads(); /* every thread has counted before thread 0 reads the count */
    if (threadIdx.x == 0) block_counts[blockIdx.x] = s_count;
}

// ---------------------------------------------------------------------------
// Parts stride and size, bank_read: the same rule, timed. One load per thread
// measures instruction issue, not the banks, so each thread keeps 16
// independent loads in flight, one 128-byte row apart (the same banks), in
// every warp slot of every SM. row_step, a kernel argument, moves the rows on
// so that the compiler cannot reuse an earlier round's loads. One kernel per
// (type, stride): Nsight Compute counts each alone.

/* Every byte of the buffer has a value that depends on its address, so a
 * load from the wrong place changes the sum. */
__host__ __device__ static inline unsigned pattern_word(unsigned word) {
    return (word + 1u) * 2654435761u ^ 0x5bd1e995u;
}

/* Bytes the buffer needs for one case: 32 lanes at stride s, plus the rows
 * the window slides over and the rows of one round of loads. */
__host__ __device__ static inline int read_buffer_bytes(int element_bytes, int stride) {
    int bytes = WARP * stride * element_bytes + element_bytes + (WINDOW_ROWS + LOADS_PER_ROUND) * ROW_BYTES;
    return (bytes + 15) / 16 * 16;
}

template <typename element> __device__ static inline unsigned fold(element value) { return value; }
template <> __device__ inline unsigned fold<double>(double value) {
    return (unsigned)__double2loint(value) + (unsigned)__double2hiint(value); /* all 8 bytes count */
}

template <typename element, int stride>
__global__ void __launch_bounds__(READ_THREADS) bank_read(unsigned *sums, int rounds, int row_step) {
    extern __shared__ __align__(16) unsigned char s_buffer[];
    unsigned *s_words = (unsigned *)s_buffer;
    const int words = read_buffer_bytes(sizeof(element), stride) / 4;
    for (int w = threadIdx.x; w < words; w += blockDim.x)
        s_words[w] = pattern_word(w);
    __syncthreads(); /* the whole buffer is written before any warp reads it */

    /* Lane t reads element t * stride of a row; the row moves on by row_step a round, within the window. */
    const int lane = threadIdx.x % WARP;
    const unsigned char *s_lane = s_buffer + lane * stride * (int)sizeof(element);
    const int row_elements = ROW_BYTES / sizeof(element);
    unsigned sum = 0;
    for (int round = 0; round < rounds; ++round) {
        const element *s_row = (const element *)(s_lane + (unsigned)(round * row_step) % WINDOW_ROWS * ROW_BYTES);
#pragma unroll
        for (int k = 0; k < LOADS_PER_ROUND; ++k)
            sum += fold(s_row[k * row_elements]); // bank: s_row[k * row_elements]
    }
    sums[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// ---------------------------------------------------------------------------
// Part carve, one dynamic buffer carved into several arrays (the Guide's
// "extern __shared__" example). Each array must start at a multiple of its
// type's alignment: the Guide's short[128] ends at byte 256, a multiple of 4,
// so its float array happens to be aligned. align_up() makes it so for any count.

__host__ __device__ static inline size_t align_up(size_t offset, size_t alignment) {
    return (offset + alignment - 1) / alignment * alignment;
}

/* The three arrays' offsets in the buffer, and its size: the host sizes the
 * launch with the same arithmetic the kernel carves with. */
typedef struct {
    size_t shorts, floats, ints, bytes;
} carve_layout;

__host__ __device__ static inline carve_layout carve(int short_count, int float_count, int int_count) {
    carve_layout layout;
    layout.shorts = 0;
    layout.floats = align_up(layout.shorts + short_count * sizeof(short), alignof(float));
    layout.ints = align_up(layout.floats + float_count * sizeof(float), alignof(int));
    layout.bytes = layout.ints + int_count * sizeof(int);
    return layout;
}

/* Distinct values in each array and between arrays: an overlap, or a read of
 * the wrong array, shows. */
__host__ __device__ static inline short short_value(int i) { return (short)(10000 + i); }
__host__ __device__ static inline float float_value(int i) { return 20000.5f + i; }
__host__ __device__ static inline int int_value(int i) { return -30000 - 7 * i; }

/* Every thread writes its share of all three arrays; after the barrier each
 * thread reads back elements that other threads wrote (the order reversed). */
__device__ static void write_and_read_back(short *s_shorts, float *s_floats, int *s_ints, int short_count,
                                           int float_count, int int_count, short *shorts, float *floats, int *ints) {
    for (int i = threadIdx.x; i < short_count; i += blockDim.x)
        s_shorts[i] = short_value(i);
    for (int i = threadIdx.x; i < float_count; i += blockDim.x)
        s_floats[i] = float_value(i);
    for (int i = threadIdx.x; i < int_count; i += blockDim.x)
        s_ints[i] = int_value(i);
    __syncthreads();
    for (int i = threadIdx.x; i < short_count; i += blockDim.x)
        shorts[short_count - 1 - i] = s_shorts[short_count - 1 - i];
    for (int i = threadIdx.x; i < float_count; i += blockDim.x)
        floats[float_count - 1 - i] = s_floats[float_count - 1 - i];
    for (int i = threadIdx.x; i < int_count; i += blockDim.x)
        ints[int_count - 1 - i] = s_ints[int_count - 1 - i];
}

/* The Guide's way: each array starts where the previous one ends. Right for
 * short[128] (256 bytes, a multiple of 4); with short[127] the floats start
 * at byte 254, and a 4-byte store there is a misaligned address: the kernel
 * stops with an error (part carve_misaligned, run by name only). */
__global__ void carve_chained(int short_count, int float_count, int int_count, short *shorts, float *floats,
                              int *ints) {
    extern __shared__ __align__(16) unsigned char s_buffer[];
    short *s_shorts = (short *)s_buffer;
    float *s_floats = (float *)&s_shorts[short_count];
    int *s_ints = (int *)&s_floats[float_count];
    write_and_read_back(s_shorts, s_floats, s_ints, short_count, float_count, int_count, shorts, floats, ints);
}

/* What changed: every offset goes through align_up(), so any counts work. */
__global__ void carve_aligned(int short_count, int float_count, int int_count, short *shorts, float *floats,
                              int *ints) {
    extern __shared__ __align__(16) unsigned char s_buffer[];
    carve_layout layout = carve(short_count, float_count, int_count);
    short *s_shorts = (short *)(s_buffer + layout.shorts);
    float *s_floats = (float *)(s_buffer + layout.floats);
    int *s_ints = (int *)(s_buffer + layout.ints);
    write_and_read_back(s_shorts, s_floats, s_ints, short_count, float_count, int_count, shorts, floats, ints);
}

// ---------------------------------------------------------------------------
// Part alias, the rule behind carving: "all variables declared in this fashion
// [extern __shared__] start at the same address in memory" (the Guide). Two
// declarations, two names and two types, are one buffer: the floats written
// through one are read back, bit for bit, through the other. The names must
// differ: one name declared with two types, even in two kernels (or in a
// template over the type), is "declaration is incompatible" to nvcc.

__host__ __device__ static inline float alias_value(int i) { return 1.5f + i; }

__global__ void two_extern_arrays(unsigned *addresses, int *bits) {
    extern __shared__ float s_alias_floats[];
    extern __shared__ int s_alias_ints[];
    s_alias_floats[threadIdx.x] = alias_value(threadIdx.x);
    __syncthreads(); /* every float is written before any thread reads */
    /* Another thread's float, read as an int: */
    bits[threadIdx.x] = s_alias_ints[blockDim.x - 1 - threadIdx.x];
    if (threadIdx.x == 0) {
        addresses[0] = (unsigned)__cvta_generic_to_shared(s_alias_floats); /* offsets in shared memory */
        addresses[1] = (unsigned)__cvta_generic_to_shared(s_alias_ints);
    }
}

// ---------------------------------------------------------------------------
// Part same_address: several threads of a warp store to one address in one
// instruction. The Guide: only one thread's write is done, which one is
// undefined, and each byte is written by one thread. Every warp has its own
// word, which all 32 lanes store to (lane t stores t in each of its 4 bytes),
// and its own 8 bytes, where lane t stores t to byte t % 8: four lanes store to
// each byte, and a word's four bytes are stored by different lanes.

__global__ void same_word_store(unsigned *words) {
    __shared__ unsigned s_words[SAME_ADDRESS_THREADS / WARP];
    const unsigned lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
    if (lane == 0) s_words[warp] = 0xFFFFFFFFu; /* no lane stores this: an unwritten word shows */
    __syncthreads();
    s_words[warp] = lane * 0x01010101u; /* 32 lanes, one address: one write is done; bank: one word, 32 lanes */
    __syncthreads();
    if (lane == 0) words[blockIdx.x * (SAME_ADDRESS_THREADS / WARP) + warp] = s_words[warp];
}

__global__ void same_byte_store(unsigned *words) {
    __shared__ unsigned s_words[SAME_ADDRESS_THREADS / WARP * SAME_BYTES / 4];
    const unsigned lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
    unsigned *s_warp_words = s_words + warp * (SAME_BYTES / 4);
    unsigned char *s_warp_bytes = (unsigned char *)s_warp_words;
    if (lane < SAME_BYTES / 4) s_warp_words[lane] = 0xFFFFFFFFu;
    __syncthreads();
    s_warp_bytes[lane % SAME_BYTES] = (unsigned char)lane; /* lanes t, t + 8, t + 16, t + 24: one byte; bank: one byte, 4 lanes */
    __syncthreads();
    if (lane < SAME_BYTES / 4)
        words[(blockIdx.x * (SAME_ADDRESS_THREADS / WARP) + warp) * (SAME_BYTES / 4) + lane] = s_warp_words[lane];
}

// ---------------------------------------------------------------------------
// Part capacity: how much shared memory a block may have, and what it costs.
// A static __shared__ array past 48 KB does not build (ptxas: "uses too much
// shared data (0xc400 bytes, 0xc000 max)"). Dynamic shared memory may go past
// 48 KB, up to the device's opt-in limit, only after cudaFuncSetAttribute(kernel,
// cudaFuncAttributeMaxDynamicSharedMemorySize, bytes). An SM's shared memory is
// split among its resident blocks: the more one block takes, the fewer warps
// fit, and a memory-bound kernel needs warps to keep loads in flight. This copy
// never touches its shared memory: its launch only reserves it.

__global__ void __launch_bounds__(COPY_THREADS) copy_reserving_shared(const float *in, float *out, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

// ---------------------------------------------------------------------------
// main: the Guide's example in a straight line, then the parts --part asks for.

/* The options (exit 2 on a bad one, before any CUDA call); --bank-model prints the model, exits 0. */
static void parse_options(int argc, char **argv, cli_options *o);
/* --shared-kb and the copy's size against this GPU (exit 2); prints its shared memory. */
static void options_against_device(const cli_options *o, const struct cudaDeviceProp *device);
/* The bank rule on the CPU (bank_model.h): the passes of a warp's load, gcd(s, 32) for ints. */
static int predicted_passes(int element_bytes, int stride, int bank_bytes);
/* Runs, checks and times the parts --part asks for; returns the worst exit code. */
static int run_progression(const cli_options *o, const struct cudaDeviceProp *device);

int main(int argc, char **argv) {
    cli_options o;
    parse_options(argc, argv, &o);
    struct cudaDeviceProp device;
    gpu_select_device("banks", o.device, &device);
    options_against_device(&o, &device);

    // The Guide's example: one warp reads shared[s * threadIdx.x] at a few
    // strides; s_words[i] holds i, so thread t must bring back s * t.
    const int stride_count = sizeof guide_strides / sizeof *guide_strides;
    int host_out[WARP], *out, wrong_strides = 0;
    HANDLE_ERROR(cudaMalloc((void **)&out, sizeof host_out));
    printf("The Guide's example: one warp reads shared[s * threadIdx.x]; word w is in bank w %% 32\n");
    for (int i = 0; i < stride_count; ++i) {
        const int s = guide_strides[i];
        gpu_poison(out, sizeof host_out);
        guide_stride_read<<<1, WARP>>>(out, s);
        CHECK_LAUNCH();
        HANDLE_ERROR(cudaMemcpy(host_out, out, sizeof host_out, cudaMemcpyDeviceToHost));
        int right = 0;
        for (int t = 0; t < WARP; ++t)
            right += host_out[t] == s * t;
        const int passes = predicted_passes(sizeof(int), s, BANK_BYTES);
        printf("  s = %2d: %2d of %d threads read shared[s * t]; the rule predicts gcd(%d, 32) = %d: ", s, right, WARP,
               s, passes);
        if (passes == 1)
            printf("one pass, conflict-free\n");
        else
            printf("%d passes, a %d-way bank conflict\n", passes, passes);
        wrong_strides += right != WARP;
    }
    HANDLE_ERROR(cudaFree(out));
    printf("%s: %s\n\n", wrong_strides ? "FAIL" : "PASS",
           wrong_strides ? "a thread read the wrong word" : "every thread read its word; part stride times the passes");

    // The Guide's __device__ __shared__: each block counts its threads in its own s_count;
    // the word after the blocks' counts is the one count in global memory.
    unsigned host_counts[COUNT_BLOCKS + 1], *counts;
    HANDLE_ERROR(cudaMalloc((void **)&counts, sizeof host_counts));
    gpu_poison(counts, sizeof host_counts);
    HANDLE_ERROR(cudaMemset(counts + COUNT_BLOCKS, 0, sizeof *counts)); /* the global count starts at 0 */
    device_shared_count<<<COUNT_BLOCKS, COUNT_THREADS>>>(counts, counts + COUNT_BLOCKS);
    CHECK_LAUNCH();
    HANDLE_ERROR(cudaMemcpy(host_counts, counts, sizeof host_counts, cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaFree(counts));
    printf("__device__ __shared__ unsigned s_count, each block's count of its %d threads:", COUNT_THREADS);
    int wrong_counts = host_counts[COUNT_BLOCKS] != COUNT_BLOCKS * COUNT_THREADS;
    for (int b = 0; b < COUNT_BLOCKS; ++b) {
        printf(" %u", host_counts[b]);
        wrong_counts += host_counts[b] != COUNT_THREADS;
    }
    printf("; the count in global memory: %u\n%s: %s\n\n", host_counts[COUNT_BLOCKS], wrong_counts ? "FAIL" : "PASS",
           wrong_counts ? "a count is not one block's, or not the grid's"
                        : "one s_count per block, as __shared__ alone gives; one global count for the grid");

    const int parts = run_progression(&o, &device);
    return wrong_strides || wrong_counts ? EXIT_WRONG_RESULT : parts;
}

// ===== Harness: below this line, not needed to follow the lesson =====

#define ROW_STEP 1        /* rows a round moves on: a kernel argument */
#define TIMED_ROUNDS 1024 /* per thread and launch */
#define CHECK_ROUNDS WINDOW_ROWS
#define CHECK_BLOCKS 4
#define COST_TOLERANCE 0.25        /* measured passes within 25 % of the prediction */
#define DEFAULT_COPY_N (1LL << 28) /* floats: 1 GiB read and 1 GiB written */
#define MAX_SHARED_KB 1024         /* no GPU so far has more than 228 KB per SM */
#define CC1_BANKS 16               /* compute capability 1.x: 16 banks of 4 bytes, */
#define HALF_WARP 16               /* a warp's request served one half-warp at a time */
#define CARVE_THREADS 128          /* carve_chained's and carve_aligned's block */
#define ALIAS_THREADS 128          /* two_extern_arrays' block */
#define SAME_ADDRESS_BLOCKS 16

enum { PART_STRIDE, PART_SIZE, PART_HISTORY, PART_CARVE, PART_ALIAS, PART_ONE_ADDRESS, PART_CAPACITY, PART_MISALIGNED };
static const char *const part_names[] = {"stride",       "size",     "history",          "carve", "alias",
                                         "same_address", "capacity", "carve_misaligned", NULL};
#define CORRECT_PARTS ((1u << PART_MISALIGNED) - 1) /* every part but the deliberately wrong one */

/* The element types a warp reads in parts stride and size, by size in bytes. */
enum { CHAR_BYTES = 1, SHORT_BYTES = 2, INT_BYTES = 4, DOUBLE_BYTES = 8 };
static const char *const element_names[] = {"", "char", "short", "", "int", "", "", "", "double"};
static const int stride_elements[] = {INT_BYTES, 0}, size_elements[] = {CHAR_BYTES, SHORT_BYTES, DOUBLE_BYTES, 0};

typedef struct { /* a case of part carve: one block of CARVE_THREADS threads */
    int short_count, float_count, int_count, aligned;
} carve_case;
static const carve_case carve_cases[] = {
    {128, 64, 256, 0}, /* the Guide's code and counts */
    {128, 64, 256, 1}, /* the same arrays through align_up */
    {127, 63, 255, 1}, /* odd counts: align_up puts the floats at 256 */
};
static const carve_case carve_misaligned_case = {127, 64, 256, 0}; /* stops with a CUDA error: exit 3 */

// ----- options -----
typedef struct {
    unsigned parts;        /* bit i: part_names[i] selected */
    int stride, shared_kb; /* -1: every stride of the part, the capacity part's list of sizes */
} bank_options;

static unsigned parse_parts(const char *list) {
    if (strcmp(list, "all") == 0) return CORRECT_PARTS;
    unsigned parts = 0;
    for (const char *start = list;; start += strcspn(start, ",") + 1) {
        const size_t length = strcspn(start, ",");
        int index = -1;
        for (int i = 0; part_names[i]; ++i)
            if (strlen(part_names[i]) == length && strncmp(part_names[i], start, length) == 0) index = i;
        if (length == 3 && strncmp(start, "all", 3) == 0)
            cli_exit_bad("banks", "--part %s: 'all' stands alone (all, or a list of names without it)", list);
        if (index < 0)
            cli_exit_bad("banks",
                         "unknown part in '%s' (choose from stride, size, history, carve, alias, same_address, "
                         "capacity, all; or carve_misaligned)",
                         list);
        parts |= 1u << index;
        if (!start[length]) return parts;
    }
}

/* This program's own options; cli.h leaves their text in o->own_values. */
enum { OPTION_PART, OPTION_STRIDE, OPTION_SHARED_KB };
static const cli_own_option bank_options_spec[] = {
    {"--part", "P",
     "stride, size, history, carve, alias, same_address, capacity (comma-separated)\n"
     "                       or all (default);\n"
     "                       carve_misaligned (deliberately wrong) runs only when named"},
    {"--stride", "S", "only stride S (0 to 33) in the stride, size and history parts"},
    {"--shared-kb", "K", "only K KB of shared memory per block in the capacity part"},
    {NULL, NULL, NULL}};

static bank_options chosen = {CORRECT_PARTS, -1, -1}; /* set by parse_options, read by the run */

/* --bank-model: the lesson's pictures, the Guide's example at strides 1, 2, 32 (its passes), three bank_read loads. */
static const bank_picture banks_pictures[] = {
    {"guide_stride_read", "s_words[s * threadIdx.x]", "banks_int_stride_1", 1},
    {"guide_stride_read", "s_words[s * threadIdx.x]", "banks_int_stride_2", 2},
    {"guide_stride_read", "s_words[s * threadIdx.x]", "banks_int_stride_32", 32},
    {"bank_read<unsigned int, 0>", "s_row[k * row_elements]", "banks_broadcast", 0},
    {"bank_read<unsigned char, 17>", "s_row[k * row_elements]", "banks_char_stride_17", 0},
    {"bank_read<double, 1>", "s_row[k * row_elements]", "banks_double_stride_1", 0},
    {NULL, NULL, NULL, 0}};

static void parse_options(int argc, char **argv, cli_options *o) {
    cli_spec spec = {};
    spec.program = "banks";
    spec.summary = "shared-memory banks, carving and capacity, measured (the Programming Guide; Fan, ch. 8)";
    spec.accepts = CLI_N | CLI_REPS | CLI_CHECK | CLI_DEVICE | CLI_BANK_MODEL;
    spec.default_n = DEFAULT_COPY_N;
    spec.cpu_default_n = 100003; /* ten copies of 2^28 threads, one at a time, would take the CPU runner hours */
    spec.extra_help = "--n is the number of floats the capacity part copies (default 2^28: 1 GiB).\n"
                      "--check verifies every part without timing: the stride and size parts then check the data\n"
                      "each warp read, not its cost.\n"
                      "The Guide's example (one warp at strides 1, 2, 3, 32, 33) always runs first; --part chooses\n"
                      "the parts after it.";
    spec.own_options = bank_options_spec;
    cli_parse_or_exit(&spec, argc, argv, o);
    if (o->own_values[OPTION_PART]) chosen.parts = parse_parts(o->own_values[OPTION_PART]); /* before any CUDA call */
    chosen.stride = (int)cli_own_number(&spec, o, OPTION_STRIDE, 0, MAX_STRIDE, -1);
    chosen.shared_kb = (int)cli_own_number(&spec, o, OPTION_SHARED_KB, 0, MAX_SHARED_KB, -1);
    if (chosen.stride >= 0 && !(chosen.parts & (1u << PART_STRIDE | 1u << PART_SIZE | 1u << PART_HISTORY)))
        cli_exit_bad("banks", "--stride applies to the stride, size and history parts only");
    if (chosen.shared_kb >= 0 && !(chosen.parts & (1u << PART_CAPACITY)))
        cli_exit_bad("banks", "--shared-kb applies to the capacity part only");
    if (o->bank_model) bank_model_observe(spec.program, argc, argv, NULL, banks_pictures, NULL);
}

static void options_against_device(const cli_options *o, const struct cudaDeviceProp *device) {
    const int optin = (int)device->sharedMemPerBlockOptin;
    if (chosen.shared_kb > optin / 1024)
        cli_exit_bad("banks",
                     "--shared-kb %d is past this device's %d KB per block (cudaDevAttrMaxSharedMemoryPerBlockOptin)",
                     chosen.shared_kb, optin / 1024);
    if (chosen.parts & (1u << PART_CAPACITY))
        gpu_require_memory("banks", 2.0 * o->n * sizeof(float), "the capacity part's copy");
    printf("shared memory: %d banks of %d bytes; per block %zu KB, or up to %d KB with the opt-in; per SM %zu KB\n\n",
           BANKS, BANK_BYTES, device->sharedMemPerBlock / 1024, optin / 1024,
           device->sharedMemPerMultiprocessor / 1024);
}

// ----- the run -----
static void launch(int element_bytes, int stride, int blocks, unsigned *sums, int rounds);
static int check_sums(const unsigned *sums, int threads, int element_bytes, int stride, int rounds);
static void check_history(report *rep);

/* A name kept while it is used: a row's kernel until report_end (a row keeps only the pointer). */
static const char *name_of(const char *format, int a, int b = 0, int c = 0) {
    static char names[REPORT_MAX_ROWS][48];
    static int next;
    char *name = names[next++ % REPORT_MAX_ROWS];
    snprintf(name, sizeof names[0], format, a, b, c);
    return name;
}

/* A row whose value is a count of things right, expected all of them. */
static void add_count_row(report *rep, const char *kernel, const char *type, long long n, double right, double expected,
                          const char *note) {
    result_row row = result_row_for(kernel, type, n);
    row_check(&row, right, expected, 0);
    row_note(&row, "%s", note);
    report_add(rep, &row);
}

/* Device memory, poisoned: an element the kernel leaves unwritten shows. */
static void *poisoned(size_t bytes) {
    void *pointer;
    HANDLE_ERROR(cudaMalloc(&pointer, bytes));
    gpu_poison(pointer, bytes);
    return pointer;
}

static void run_bank_reads(int part, const cli_options *o, const struct cudaDeviceProp *device, report *rep) {
    const int fit = device->multiProcessorCount * (device->maxThreadsPerMultiProcessor / READ_THREADS);
    const int blocks = o->check_only ? CHECK_BLOCKS : fit; /* timed: every warp slot of every SM busy */
    const int rounds = o->check_only ? CHECK_ROUNDS : TIMED_ROUNDS;
    const long long warp_loads = (long long)blocks * (READ_THREADS / WARP) * rounds * LOADS_PER_ROUND;
    const int *elements = part == PART_STRIDE ? stride_elements : size_elements;
    const size_t sums_bytes = blocks * READ_THREADS * sizeof(unsigned);
    unsigned *sums = (unsigned *)poisoned(sums_bytes), *host_sums = (unsigned *)host_alloc("banks", sums_bytes, "sums");
    int wrong; /* one case: every thread's sum checked against the CPU's, then timed (0 ms with --check) */
    auto measure = [&](int element_bytes, int stride) {
        gpu_poison(sums, sums_bytes);
        launch(element_bytes, stride, blocks, sums, rounds);
        CHECK_LAUNCH();
        HANDLE_ERROR(cudaMemcpy(host_sums, sums, sums_bytes, cudaMemcpyDeviceToHost));
        wrong = check_sums(host_sums, blocks * READ_THREADS, element_bytes, stride, rounds);
        return o->check_only ? 0
                             : time_median_ms(o->reps, [&] { launch(element_bytes, stride, blocks, sums, rounds); });
    };
    /* The unit of cost, per type: a broadcast load (every thread the same element), one pass for any bank width. */
    double unit_ms[DOUBLE_BYTES + 1] = {0};
    if (!o->check_only) {
        unit_ms[INT_BYTES] = measure(INT_BYTES, 0) / warp_loads;
        for (int e = 0; elements[e]; ++e)
            unit_ms[elements[e]] = measure(elements[e], 0) / warp_loads;
    }
    printf("%s: %d blocks x %d threads, %d rounds of %d loads per thread; %s\n", part_names[part], blocks, READ_THREADS,
           rounds, LOADS_PER_ROUND,
           o->check_only ? "--check (always on the CPU runner): every thread's sum checked, no bank's cost measured"
                         : "value = time per load / time of a broadcast load of the type, expected = passes");
    report_begin(rep, "banks", stdout);
    for (int e = 0; elements[e]; ++e)
        for (int stride = 0; stride <= MAX_STRIDE; ++stride) {
            /* Part stride reads at strides 0 to 33; size at the conflict-free ones, the powers of two, 17, 33. */
            const int s = stride, in_size = s <= 4 || s == 8 || s == 16 || s == 17 || s == 32 || s == 33;
            if (chosen.stride >= 0 ? s != chosen.stride : part == PART_SIZE && !in_size) continue;
            const int bytes = elements[e], passes = predicted_passes(bytes, stride, BANK_BYTES);
            const double ms = measure(bytes, stride);
            result_row row = result_row_for(name_of("stride_%d", stride), element_names[bytes], warp_loads);
            if (!o->check_only) row_check(&row, ms / warp_loads / unit_ms[bytes], passes, COST_TOLERANCE);
            row.timed = !o->check_only;
            row.ms = ms;
            row.gbps = row.pct_ceiling = NAN; /* no DRAM traffic to speak of */
            row.pass = (o->check_only || row.pass) && wrong == 0;
            row_note(&row, "predicted %d; 8-byte banks would give %d%s", passes, predicted_passes(bytes, stride, 8),
                     wrong ? "; WRONG DATA" : "");
            report_add(rep, &row);
        }
    if (!o->check_only) {
        printf("one pass (a broadcast load) takes %.3f ns per SM for int",
               1e6 * unit_ms[INT_BYTES] * device->multiProcessorCount);
        for (int e = 0; elements[e]; ++e)
            if (elements[e] != INT_BYTES)
                printf("; %s %.2f x int", element_names[elements[e]], unit_ms[elements[e]] / unit_ms[INT_BYTES]);
        printf("\n");
    }
    HANDLE_ERROR(cudaFree(sums));
    free(host_sums);
}

static void run_carve(const carve_case *cases, int count, report *rep) {
    report_begin(rep, "banks", stdout);
    for (const carve_case *c = cases; c < cases + count; ++c) {
        const int short_count = c->short_count, float_count = c->float_count, int_count = c->int_count;
        const carve_layout layout = carve(short_count, float_count, int_count); /* the size, enough for both ways */
        const size_t chained_floats = short_count * sizeof(short);
        struct {
            short shorts[256];
            float floats[256];
            int ints[256]; /* as many as any case's arrays hold */
        } host, *out = (decltype(out))poisoned(sizeof host);
        if (c->aligned)
            printf("carve_aligned: short[%d] at byte %zu, float[%d] at byte %zu, int[%d] at byte %zu: %zu bytes\n",
                   short_count, layout.shorts, float_count, layout.floats, int_count, layout.ints, layout.bytes);
        else
            printf("carve_chained: short[%d] at byte 0, float[%d] at byte %zu, int[%d] at byte %zu%s\n", short_count,
                   float_count, chained_floats, int_count, chained_floats + float_count * sizeof(float),
                   chained_floats % alignof(float) ? ": the floats are misaligned, so this launch is expected to fail"
                                                   : "");
        auto kernel = c->aligned ? carve_aligned : carve_chained;
        kernel<<<1, CARVE_THREADS, layout.bytes>>>(short_count, float_count, int_count, out->shorts, out->floats,
                                                   out->ints);
        CHECK_LAUNCH();
        HANDLE_ERROR(cudaMemcpy(&host, out, sizeof host, cudaMemcpyDeviceToHost));
        HANDLE_ERROR(cudaFree(out));
        const int elements = short_count + float_count + int_count;
        const char *format = c->aligned ? "carve_aligned_%d_%d_%d" : "carve_chained_%d_%d_%d";
        result_row row = result_row_for(name_of(format, short_count, float_count, int_count), "mixed", elements);
        row_note(&row, "value: elements read back right");
        int wrong = 0; /* every element read back; the first wrong one is noted */
        for (int i = 0; i < short_count; ++i)
            if (host.shorts[i] != short_value(i) && wrong++ == 0)
                row_note_first_wrong(&row, host.shorts[i], short_value(i), "shorts[%d]", i);
        for (int i = 0; i < float_count; ++i)
            if (host.floats[i] != float_value(i) && wrong++ == 0)
                row_note_first_wrong(&row, host.floats[i], float_value(i), "floats[%d]", i);
        for (int i = 0; i < int_count; ++i)
            if (host.ints[i] != int_value(i) && wrong++ == 0)
                row_note_first_wrong(&row, host.ints[i], int_value(i), "ints[%d]", i);
        row_check(&row, elements - wrong, elements, 0);
        report_add(rep, &row);
    }
}

/* One address for both declarations (written: the poison is no address); the floats' bits read back. */
static void run_alias(report *rep) {
    struct {
        unsigned addresses[2];
        int bits[ALIAS_THREADS];
    } host, *out = (decltype(out))poisoned(sizeof host);
    two_extern_arrays<<<1, ALIAS_THREADS, ALIAS_THREADS * sizeof(float)>>>(out->addresses, out->bits);
    CHECK_LAUNCH();
    HANDLE_ERROR(cudaMemcpy(&host, out, sizeof host, cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaFree(out));
    int right = 0, expected[ALIAS_THREADS];
    for (int t = 0; t < ALIAS_THREADS; ++t) {
        const float written = alias_value(ALIAS_THREADS - 1 - t); /* what thread ALIAS_THREADS - 1 - t wrote */
        memcpy(&expected[t], &written, sizeof expected[t]);
        right += host.bits[t] == expected[t];
    }
    printf("two_extern_arrays: extern __shared__ float s_alias_floats[] starts at shared address %#x, "
           "extern __shared__ int s_alias_ints[] at %#x\n",
           host.addresses[0], host.addresses[1]);
    printf("thread 0 read s_alias_ints[%d] = 0x%08x, the bits of %.1ff, which thread %d wrote to s_alias_floats[%d] "
           "(expected 0x%08x)\n",
           ALIAS_THREADS - 1, (unsigned)host.bits[0], alias_value(ALIAS_THREADS - 1), ALIAS_THREADS - 1,
           ALIAS_THREADS - 1, (unsigned)expected[0]);
    report_begin(rep, "banks", stdout);
    result_row address_row = result_row_for("alias_address", "int", 2);
    row_check(&address_row, host.addresses[1], host.addresses[0], 0);
    address_row.pass = address_row.pass && host.addresses[0] != 0xFFFFFFFFu;
    row_note(&address_row, "value: s_alias_ints' shared address, expected: s_alias_floats'%s",
             host.addresses[0] != 0xFFFFFFFFu ? "" : "; NOT WRITTEN");
    report_add(rep, &address_row);
    add_count_row(rep, "alias_bits", "float", ALIAS_THREADS, right, ALIAS_THREADS,
                  "value: ints read back with the bits of the floats written");
}

static void print_wins(const int *wins, int warps) {
    for (int lane = 0, shown = 0; lane < WARP; ++lane)
        if (wins[lane]) printf("%slane %d in %d", shown++ ? ", " : "", lane, wins[lane]);
    printf(" of %d warps\n", warps);
}

/* Each word must hold one lane's value (any lane's: t in all four bytes; two lanes' bytes mixed, or
 * the poison, are none), and byte b of a warp's eight a lane t with t % 8 == b. */
static void run_same_address(report *rep) {
    enum { WARPS = SAME_ADDRESS_BLOCKS * (SAME_ADDRESS_THREADS / WARP) };
    struct {
        unsigned words[WARPS], bytes[WARPS * SAME_BYTES / 4];
    } host, *out = (decltype(out))poisoned(sizeof host);
    same_word_store<<<SAME_ADDRESS_BLOCKS, SAME_ADDRESS_THREADS>>>(out->words);
    CHECK_LAUNCH();
    same_byte_store<<<SAME_ADDRESS_BLOCKS, SAME_ADDRESS_THREADS>>>(out->bytes);
    CHECK_LAUNCH();
    HANDLE_ERROR(cudaMemcpy(&host, out, sizeof host, cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaFree(out));
    int words_right = 0, word_wins[WARP] = {0}, bytes_right = 0, byte_wins[WARP] = {0}, same_winners = 0;
    for (int w = 0; w < WARPS; ++w) {
        const unsigned lane = host.words[w] & 0xFFu;
        const int right = lane < WARP && host.words[w] == lane * 0x01010101u;
        words_right += right;
        word_wins[lane % WARP] += right;
        const unsigned char *warp_bytes = (const unsigned char *)host.bytes + w * SAME_BYTES; /* as stored */
        for (int b = 0; b < SAME_BYTES; ++b) {
            const int right = warp_bytes[b] < WARP && warp_bytes[b] % SAME_BYTES == b;
            bytes_right += right;
            byte_wins[warp_bytes[b] % WARP] += right;
        }
        same_winners += memcmp(warp_bytes, host.bytes, SAME_BYTES) == 0; /* warp 0's eight */
    }
    printf("same_word_store: in each warp all 32 lanes store lane * 0x01010101 to one shared word; warp 0 read back "
           "0x%08x; the word held ",
           host.words[0]);
    print_wins(word_wins, WARPS);
    printf("same_byte_store: lane t stores t to byte t %% 8 of its warp's two words (4 lanes to each byte); warp 0 "
           "read back 0x%08x 0x%08x; the bytes held ",
           host.bytes[0], host.bytes[1]);
    print_wins(byte_wins, WARPS);
    printf("%d of %d warps have warp 0's eight winners. Which lane wins is undefined (the Guide), so the checks accept "
           "any lane that stored to the address\n",
           same_winners, WARPS);
    report_begin(rep, "banks", stdout);
    add_count_row(rep, "same_address_word", "int", WARPS, words_right, WARPS, "value: words holding one lane's value");
    add_count_row(rep, "same_address_byte", "char", (long long)WARPS * SAME_BYTES, bytes_right,
                  (double)WARPS * SAME_BYTES, "value: bytes holding the value of a lane that stored to them");
}

/* Part capacity: the opt-in, then shared memory per block against resident blocks and bandwidth. */
static void run_capacity(const cli_options *o, const struct cudaDeviceProp *device, report *rep) {
    const long long n = o->n;
    const size_t bytes = (size_t)n * sizeof(float);
    const int optin = (int)device->sharedMemPerBlockOptin, per_sm = (int)device->sharedMemPerMultiprocessor;
    const int reserved = (int)device->reservedSharedMemPerBlock;
    float *host_in = (float *)host_alloc("banks", bytes, "the copy's input");
    float *host_out = (float *)host_alloc("banks", bytes, "the copy's output");
    for (long long i = 0; i < n; ++i)
        host_in[i] = (float)(i % 1000003);
    float *in = (float *)poisoned(bytes), *out = (float *)poisoned(bytes);
    HANDLE_ERROR(cudaMemcpy(in, host_in, bytes, cudaMemcpyHostToDevice));
    const unsigned blocks = (unsigned)((n + COPY_THREADS - 1) / COPY_THREADS);
    auto copy = [&](int shared) { copy_reserving_shared<<<blocks, COPY_THREADS, shared>>>(in, out, n); };
    report_begin(rep, "banks", stdout);
    /* Past 48 KB without the opt-in: the launch is refused, and says why. */
    const int over = (int)device->sharedMemPerBlock + 16 * 1024;
    copy(over);
    const cudaError_t refused = cudaGetLastError();
    char refusal[160];
    snprintf(refusal, sizeof refusal, "refused as predicted: %s (%s)", cudaGetErrorName(refused),
             cudaGetErrorString(refused));
    printf("launch with %d KB of dynamic shared memory, no cudaFuncSetAttribute: %s\n", over / 1024,
           refused != cudaSuccess ? refusal : "NOT refused");
    add_count_row(rep, name_of("launch_%dKB_no_opt_in", over / 1024), "float", n, refused != cudaSuccess, 1,
                  refused != cudaSuccess ? refusal : "the launch was NOT refused");
    if (refused == cudaSuccess) HANDLE_ERROR(cudaDeviceSynchronize());
    /* The opt-in, once, to the device's limit: every size below is allowed. */
    HANDLE_ERROR(cudaFuncSetAttribute(copy_reserving_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    int unlimited_blocks = 0; /* what the other limits (threads, registers) allow */
    HANDLE_ERROR(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&unlimited_blocks, copy_reserving_shared, COPY_THREADS, 0));
    const double ceiling = o->check_only ? 0 : gpu_memcpy_gbps((double)bytes, o->reps);
    if (!o->check_only) report_ceiling(stdout, "banks", "memcpy", "cudaMemcpy device to device, >= 256 MiB", ceiling);
    printf("shared memory per SM %d KB, reserved per block %d KB; value = resident blocks per SM "
           "(cudaOccupancyMaxActiveBlocksPerMultiprocessor), expected = min(%d, floor(%d KB / (shared + %d KB)))\n",
           per_sm / 1024, reserved / 1024, unlimited_blocks, per_sm / 1024, reserved / 1024);
    int sizes_kb[] = {0, 16, 32, 48, 64, 96, 128, 160, 200, optin / 1024};
    const int size_count = chosen.shared_kb >= 0 ? 1 : sizeof sizes_kb / sizeof *sizes_kb;
    if (chosen.shared_kb >= 0) sizes_kb[0] = chosen.shared_kb;
    for (int s = 0; s < size_count; ++s) {
        const int shared = sizes_kb[s] * 1024;
        if (shared > optin || (s > 0 && sizes_kb[s] == sizes_kb[s - 1])) continue;
        int resident = 0;
        HANDLE_ERROR(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, copy_reserving_shared, COPY_THREADS, shared));
        /* Turing reserves nothing: a block asking none is limited by threads alone. */
        const int fit = shared + reserved > 0 ? per_sm / (shared + reserved) : unlimited_blocks;
        gpu_poison(out, bytes);
        copy(shared);
        CHECK_LAUNCH();
        const double ms = o->check_only ? 0 : time_median_ms(o->reps, [&] { copy(shared); });
        HANDLE_ERROR(cudaMemcpy(host_out, out, bytes, cudaMemcpyDeviceToHost));
        const int copy_right = memcmp(host_out, host_in, bytes) == 0;
        result_row row = result_row_for(name_of("copy_%dKB", sizes_kb[s]), "float", n);
        row_check(&row, resident, fit < unlimited_blocks ? fit : unlimited_blocks, 0);
        row.pass = row.pass && copy_right;
        row.bytes = bytes_moved((double)n, (double)n, sizeof(float));
        if (!o->check_only) row_time(&row, ms, "memcpy", ceiling);
        row_note(&row, "%d warps per SM%s", resident * COPY_THREADS / WARP, copy_right ? "" : "; COPY WRONG");
        report_add(rep, &row);
    }
    HANDLE_ERROR(cudaFree(in));
    HANDLE_ERROR(cudaFree(out));
    free(host_in);
    free(host_out);
}

static int run_progression(const cli_options *o, const struct cudaDeviceProp *device) {
    int exit_code = EXIT_ALL_PASSED;
    for (int part = 0; part_names[part]; ++part) {
        if (!(chosen.parts & (1u << part))) continue;
        report rep = {}; /* every part below begins it */
        rep.out = stdout;
        if (part == PART_ONE_ADDRESS && !o->own_values[OPTION_PART] &&
            report_cpu_skip(&rep, "same_address",
                            "under all (its stores race on purpose: --part same_address shows it)"))
            continue;
        printf("--- part %s\n", part_names[part]);
        switch (part) {
        case PART_STRIDE:
        case PART_SIZE: run_bank_reads(part, o, device, &rep); break;
        case PART_HISTORY: check_history(&rep); break;
        case PART_CARVE: run_carve(carve_cases, sizeof carve_cases / sizeof *carve_cases, &rep); break;
        case PART_ALIAS: run_alias(&rep); break;
        case PART_ONE_ADDRESS: run_same_address(&rep); break;
        case PART_CAPACITY: run_capacity(o, device, &rep); break;
        case PART_MISALIGNED: run_carve(&carve_misaligned_case, 1, &rep); break;
        }
        exit_code |= report_end(&rep); /* 0 or 1: the worst of them */
        printf("\n");
    }
    return exit_code;
}

// ----- the launch switch -----
// One bank_read instantiation per (type, stride), picked for a stride known only at run time.

template <typename element, int stride = 0>
static void launch_bank_read_at(int wanted_stride, int blocks, unsigned *sums, int rounds) {
    if constexpr (stride <= MAX_STRIDE) {
        if (stride != wanted_stride)
            return launch_bank_read_at<element, stride + 1>(wanted_stride, blocks, sums, rounds);
        bank_read<element, stride>
            <<<blocks, READ_THREADS, read_buffer_bytes(sizeof(element), stride)>>>(sums, rounds, ROW_STEP);
    }
}

static void launch(int element_bytes, int stride, int blocks, unsigned *sums, int rounds) {
    if (element_bytes == CHAR_BYTES) launch_bank_read_at<unsigned char>(stride, blocks, sums, rounds);
    if (element_bytes == SHORT_BYTES) launch_bank_read_at<unsigned short>(stride, blocks, sums, rounds);
    if (element_bytes == INT_BYTES) launch_bank_read_at<unsigned int>(stride, blocks, sums, rounds);
    if (element_bytes == DOUBLE_BYTES) launch_bank_read_at<double>(stride, blocks, sums, rounds);
}

// ----- CPU replays -----
/* What lane `lane` of every warp sums in bank_read, in its order: each element (fold) as an
 * unsigned integer, little endian; a double, its two 4-byte words. */
static unsigned lane_sum_cpu(int element_bytes, int stride, int lane, int rounds) {
    unsigned sum = 0;
    for (int round = 0; round < rounds; ++round)
        for (int k = 0; k < LOADS_PER_ROUND; ++k) {
            const long long byte = (long long)lane * stride * element_bytes +
                                   (long long)((unsigned)(round * ROW_STEP) % WINDOW_ROWS + k) * ROW_BYTES;
            const unsigned word = pattern_word((unsigned)(byte / 4)); /* the element is aligned: in this word */
            sum += element_bytes == DOUBLE_BYTES ? word + pattern_word((unsigned)(byte / 4 + 1))
                   : element_bytes == INT_BYTES  ? word
                                                 : word >> (8 * (byte % 4)) & ((1u << (8 * element_bytes)) - 1);
        }
    return sum;
}

// ----- checks -----
static int check_sums(const unsigned *sums, int threads, int element_bytes, int stride, int rounds) {
    unsigned lane_sums[WARP];
    int wrong = 0;
    for (int lane = 0; lane < WARP; ++lane)
        lane_sums[lane] = lane_sum_cpu(element_bytes, stride, lane, rounds);
    for (int t = 0; t < threads; ++t)
        wrong += sums[t] != lane_sums[t % WARP];
    return wrong;
}

// The checks' predictions: the bank rule (bank_model.h) on the Guide's addresses, lane t reading element t * s
// (what bank_read is meant to read; --bank-model observes what it does read). Compared only: 8-byte banks
// (word a / 8 as 4-byte word a / 8); 1.x's 16 banks (word w as (w / 16) * 32 + w % 16), a request a half-warp.

static int predicted_passes(int element_bytes, int stride, int bank_bytes) {
    unsigned address[WARP];
    for (int lane = 0; lane < WARP; ++lane) {
        const unsigned byte = lane * stride * element_bytes;
        address[lane] = bank_bytes == 8 ? byte / 8 * BANK_BYTES : byte; /* 8-byte banks: word byte / 8 */
    }
    return bank_passes(address, 0xffffffffu, bank_bytes == 8 ? BANK_BYTES : element_bytes);
}

/* The steps of a warp's load of 4-byte words at `stride` on compute capability 1.x. */
static int cc1_passes(int stride) {
    unsigned address[WARP];
    for (int lane = 0; lane < WARP; ++lane) {
        const unsigned word = lane * stride;
        address[lane] = (word / CC1_BANKS * BANKS + word % CC1_BANKS) * BANK_BYTES; /* in bank word % 16 */
    }
    return bank_passes(address, 0x0000ffffu, BANK_BYTES) + bank_passes(address, 0xffff0000u, BANK_BYTES);
}

static int greatest_common_divisor(int a, int b) { return b == 0 ? a : greatest_common_divisor(b, a % b); }

/* Part history runs no kernel: the bank model counts each stride on 1.x's banks, two half-warps
 * of gcd(s, 16) steps, and today's, gcd(s, 32) passes (s = 0, a broadcast: one step, one pass). */
static void check_history(report *rep) {
    printf("compute capability 1.x: %d banks of 4 bytes, 32 bits per bank per two clocks (%d bytes a clock), a warp's "
           "request served one half-warp at a time; today: %d banks, 32 bits per bank per clock (%d bytes a clock), "
           "the whole warp at once\n",
           CC1_BANKS, CC1_BANKS * BANK_BYTES / 2, BANKS, ROW_BYTES);
    printf("value = steps a warp's load took on 1.x (bank_passes with %d banks, %d threads a request), expected = "
           "2 x gcd(s, 16) (2 for s = 0); today's passes (bank_passes with %d banks, %d threads) must equal "
           "gcd(s, 32) (1 for s = 0)\n",
           CC1_BANKS, HALF_WARP, BANKS, WARP);
    report_begin(rep, "banks", stdout);
    for (int stride = 0; stride <= MAX_STRIDE; ++stride) {
        if (chosen.stride >= 0 && stride != chosen.stride) continue;
        const int today = predicted_passes(INT_BYTES, stride, BANK_BYTES), then = cc1_passes(stride);
        const int today_formula = stride == 0 ? 1 : greatest_common_divisor(stride, BANKS);
        const int half_warp_formula = stride == 0 ? 1 : greatest_common_divisor(stride, CC1_BANKS);
        result_row row = result_row_for(name_of("history_stride_%d", stride), "int", WARP);
        row_check(&row, then, (WARP / HALF_WARP) * half_warp_formula, 0);
        row.pass = row.pass && today == today_formula;
        row_note(&row, "1.x: %d half-warps x %d step%s = %d clocks; today: %d pass%s = %d clock%s", WARP / HALF_WARP,
                 then / (WARP / HALF_WARP), then == WARP / HALF_WARP ? "" : "s", 2 * then, today,
                 today == 1 ? "" : "es", today, today == 1 ? "" : "s");
        if (today != today_formula) row_note(&row, "TODAY'S COUNT WRONG: gcd gives %d", today_formula);
        report_add(rep, &row);
    }
}
