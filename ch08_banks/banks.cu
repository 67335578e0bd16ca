/* ch08_banks: the Programming Guide's shared-memory bank rules, measured
 * (CUDA C Programming Guide, "Shared Memory" in the compute-capability
 * sections; Fan Zheyong, CUDA 编程：基础与实践, ch. 8, bank conflicts).
 *
 * What it teaches, each part checked:
 *   first     the Guide's example: one warp reads shared[s * threadIdx.x].
 *             Word w is in bank w % 32, so the load takes gcd(s, 32) passes.
 *   stride    that rule measured: a warp reads 4-byte words at stride s = 0
 *             (a broadcast, one pass) to 33; the time per load follows it.
 *   size      1-, 2- and 8-byte elements: consecutive bytes and shorts are
 *             conflict-free; a warp of doubles takes two passes (256 bytes);
 *             banks are 4 bytes wide, not 8 (a claim about Ampere some notes make).
 *   history   compute capability 1.x's rules (16 banks, a warp served one
 *             half-warp at a time, 32 bits per bank per two clocks): the
 *             stride cases' steps then beside today's passes, computed, no kernel.
 *   carve     one extern __shared__ buffer carved into short[128], float[64],
 *             int[256], every offset rounded up to the next array's alignment.
 *   alias     why: two extern __shared__ arrays in one kernel (float and int)
 *             start at the same address; floats written through one are
 *             read back, bit for bit, through the other.
 *   same_address  32 lanes of a warp store to one word: one lane's value is
 *             kept (which one is undefined); lanes storing bytes to one word:
 *             each byte is one lane's. racecheck reports these stores as
 *             hazards, as it should: correct by the Guide, racy by design.
 *   capacity  48 KB per block without asking, up to the device's opt-in limit
 *             with cudaFuncSetAttribute; shared memory per block against
 *             resident blocks per SM and the bandwidth of a plain copy.
 *   carve_misaligned (asked for by name only) the Guide's pointer chaining
 *             with short[127]: the float array starts at byte 254, and the
 *             store there is a misaligned address (memcheck says so).
 *
 * Build this file alone, from its folder:
 *   nvcc -O3 -I../common banks.cu -o banks
 *
 * Run (from the repository root, after cmake --build build):
 *   build/ch08_banks/banks                              # every part, timed
 *   build/ch08_banks/banks --part stride --stride 6     # one case
 *   build/ch08_banks/banks --part history               # 1.x's banks against today's
 *   build/ch08_banks/banks --part alias,same_address    # the Guide's other two rules
 *   build/ch08_banks/banks --part capacity --shared-kb 100
 *   build/ch08_banks/banks --bank-model --check --part stride,size  # predicted passes, no GPU
 *   scripts/bank_conflicts.sh build/ch08_banks/banks --check --part stride,size
 *
 * Kernels, in teaching order:
 *   guide_stride_read      the Guide's example: one warp, one load at stride s.
 *   bank_read<T, s>        every warp reads elements of type T at stride s, 16
 *                          loads in flight per thread: one kernel per case.
 *   carve_chained          the Guide's carve: each array starts where the last
 *                          ends (right for its counts, wrong for short[127]).
 *   carve_aligned          every offset rounded up with align_up(): right for any counts.
 *   two_extern_arrays      two extern __shared__ declarations: one address, one buffer.
 *   same_word_store        every lane of a warp stores its own value to one word.
 *   same_byte_store        lane t stores t to byte t % 8: four lanes per byte.
 *   copy_reserving_shared  a plain copy launched with N bytes of dynamic
 *                          shared memory it never touches: only the size matters.
 *
 * main runs the Guide's example, then the parts; below the "Harness" line is
 * what runs and checks them, not needed to follow the lesson. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "book.h" /* the book's header: error checks, the device, timing */

#include "bank_model.h" /* harness (below the line): passes from each lane's address */
#include "ceiling.cuh"  /* harness: the copy's bandwidth ceiling */
#include "cli.h"        /* harness: the command line */
#include "report.h"     /* harness: the table and the RESULT lines */

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
    out[threadIdx.x] = s_words[s * threadIdx.x];
}

// ---------------------------------------------------------------------------
// Parts stride and size, bank_read: the same rule, timed. What changed: one
// load per thread measures instruction issue, not the banks, so each thread
// keeps 16 independent loads in flight, one 128-byte row apart (the same banks:
// each load has the case's exact pattern), in every warp slot of every SM. The
// rows move on by row_step, a kernel argument, so the compiler cannot reuse an
// earlier round's loads (with a constant step it did, and ints looked cheaper
// than bytes). One kernel per (type, stride): Nsight Compute counts each alone.

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

__device__ static inline void fill_pattern(unsigned char *s_buffer, int bytes) {
    unsigned *s_words = (unsigned *)s_buffer;
    for (int w = threadIdx.x; w < bytes / 4; w += blockDim.x)
        s_words[w] = pattern_word(w);
}

template <typename element> __device__ static inline unsigned fold(element value) { return value; }
template <> __device__ inline unsigned fold<double>(double value) {
    return (unsigned)__double2loint(value) + (unsigned)__double2hiint(value); /* all 8 bytes count */
}

/* Where lane `lane` reads in a row: element lane * stride, in bytes. The
 * kernel and the bank model (below the line) both call it. */
__host__ __device__ static inline int lane_byte_offset(int lane, int stride, int element_bytes) {
    return lane * stride * element_bytes;
}

/* The row a round reads from, in bytes: it moves on by row_step rows a round,
 * within the window. */
__host__ __device__ static inline unsigned window_row_offset(int round, int row_step) {
    return (unsigned)(round * row_step) % WINDOW_ROWS * ROW_BYTES;
}

template <typename element, int stride>
__global__ void __launch_bounds__(READ_THREADS) bank_read(unsigned *sums, int rounds, int row_step) {
    extern __shared__ __align__(16) unsigned char s_buffer[];
    fill_pattern(s_buffer, read_buffer_bytes(sizeof(element), stride));
    __syncthreads(); /* the whole buffer is written before any warp reads it */

    const int lane = threadIdx.x % WARP;
    const unsigned char *s_lane = s_buffer + lane_byte_offset(lane, stride, (int)sizeof(element));
    const int row_elements = ROW_BYTES / sizeof(element);
    unsigned sum = 0;
    for (int round = 0; round < rounds; ++round) {
        const element *s_row = (const element *)(s_lane + window_row_offset(round, row_step));
#pragma unroll
        for (int k = 0; k < LOADS_PER_ROUND; ++k)
            sum += fold(s_row[k * row_elements]);
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
    s_words[warp] = lane * 0x01010101u; /* 32 lanes, one address: one write is done */
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
    s_warp_bytes[lane % SAME_BYTES] = (unsigned char)lane; /* lanes t, t + 8, t + 16, t + 24: one byte */
    __syncthreads();
    if (lane < SAME_BYTES / 4)
        words[(blockIdx.x * (SAME_ADDRESS_THREADS / WARP) + warp) * (SAME_BYTES / 4) + lane] = s_warp_words[lane];
}

// ---------------------------------------------------------------------------
// Part capacity: how much shared memory a block may have, and what it costs.
//
// Static arrays stop at 48 KB per block, at compile time. Declaring
//   __shared__ int s_big[49 * 1024 / 4];
// makes ptxas (nvcc 13.0, sm_90) refuse the build:
//   ptxas error   : Entry function '_Z7too_bigPi' uses too much shared data (0xc400 bytes, 0xc000 max)
// Dynamic shared memory may go past 48 KB, up to the device's opt-in limit
// (227 KB on Hopper), but only after the program asks for it with
// cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes).
//
// The SM's shared memory is split among its resident blocks: the more one
// block takes, the fewer blocks (and warps) fit on an SM, and a memory-bound
// kernel needs many warps to keep enough loads in flight. This copy does not
// use its shared memory at all: its launch only reserves it.

__global__ void __launch_bounds__(COPY_THREADS) copy_reserving_shared(const float *in, float *out, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

// ---------------------------------------------------------------------------
// main: the Guide's example in a straight line, then the parts --part asks
// for. What main calls from below the line:

/* The options (cli.h's and --part, --stride, --shared-kb): exit 2 on a bad
 * one, before any CUDA call. --bank-model prints the bank model's prediction
 * of every shared-memory instruction and exits 0, also before any CUDA call. */
static void parse_command_line(int argc, char **argv, cli_options *o);
/* --shared-kb and the copy's size against this GPU (exit 2); prints its shared memory. */
static void check_against_device(const cli_options *o, const struct cudaDeviceProp *p);
/* The bank rule on the CPU (common/bank_model.h): the most distinct words any
 * one bank must deliver to the warp; gcd(s, 32) for 4-byte elements. */
static int predicted_passes(int element_bytes, int stride, int bank_bytes);
/* Runs, checks and times the parts; returns the worse of exit_code and theirs. */
static int run_parts(const cli_options *o, const struct cudaDeviceProp *p, int exit_code);

int main(int argc, char **argv) {
    cli_options o;
    parse_command_line(argc, argv, &o);
    struct cudaDeviceProp p;
    gpu_select_device("banks", o.device, &p);
    check_against_device(&o, &p);

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

    return run_parts(&o, &p, wrong_strides ? EXIT_WRONG_RESULT : EXIT_ALL_PASSED);
}

// ===== Harness: below this line, the option set-up, the launch switch, the
// CPU references, the checks and the timing. Not needed to follow the lesson.

#define ROW_STEP 1        /* rows a round moves on: a kernel argument     */
#define TIMED_ROUNDS 1024 /* per thread and launch: about 1 ms at 1 pass */
#define CHECK_ROUNDS WINDOW_ROWS
#define CHECK_BLOCKS 4
#define COST_TOLERANCE 0.25        /* measured passes within 25 % of the prediction */
#define DEFAULT_COPY_N (1LL << 28) /* floats: 1 GiB read and 1 GiB written */
#define MAX_SHARED_KB 1024         /* no GPU so far has more than 228 KB per SM */
#define CC1_BANKS 16               /* compute capability 1.x: 16 banks of 4 bytes, */
#define HALF_WARP 16               /* a warp's request served one half-warp at a time */
#define CARVE_THREADS 128          /* carve_chained's and carve_aligned's block */
#define ALIAS_THREADS 128          /* two_extern_arrays' block */

enum part {
    PART_STRIDE,
    PART_SIZE,
    PART_HISTORY,
    PART_CARVE,
    PART_ALIAS,
    PART_SAME_ADDRESS,
    PART_CAPACITY,
    PART_CARVE_MISALIGNED,
    PART_COUNT
};
static const char *const part_names[] = {"stride",       "size",     "history",          "carve", "alias",
                                         "same_address", "capacity", "carve_misaligned", NULL};
#define CORRECT_PARTS                                                                                                  \
    ((1u << PART_STRIDE) | (1u << PART_SIZE) | (1u << PART_HISTORY) | (1u << PART_CARVE) | (1u << PART_ALIAS) |        \
     (1u << PART_SAME_ADDRESS) | (1u << PART_CAPACITY))
#define STRIDE_PARTS                                                                                                   \
    ((1u << PART_STRIDE) | (1u << PART_SIZE) | (1u << PART_HISTORY)) /* the parts --stride applies to */

/* The element types a warp reads in parts stride and size, by size in bytes. */
enum { CHAR_BYTES = 1, SHORT_BYTES = 2, INT_BYTES = 4, DOUBLE_BYTES = 8 };
static const char *element_name(int bytes) {
    return bytes == 1 ? "char" : bytes == 2 ? "short" : bytes == 4 ? "int" : "double";
}

/* The size part's strides: the conflict-free ones, the powers of two, and
 * 17 and 33 (odd again after a power of two). */
static const int size_strides[] = {0, 1, 2, 3, 4, 8, 16, 17, 32, 33};
static const int size_elements[] = {CHAR_BYTES, SHORT_BYTES, DOUBLE_BYTES};
static const int stride_elements[] = {INT_BYTES};

/* The carve part's cases, each one block of CARVE_THREADS threads. */
typedef struct {
    int short_count, float_count, int_count, aligned;
} carve_case;
static const carve_case carve_cases[] = {
    {128, 64, 256, 0}, /* the Guide's code and counts */
    {128, 64, 256, 1}, /* the same arrays through align_up */
    {127, 63, 255, 1}, /* odd counts: align_up puts the floats at 256 */
};
static const carve_case carve_misaligned_case = {127, 64, 256, 0}; /* stops with a CUDA error: exit 3 */

// ---------------------------------------------------------------------------
// The command line: cli.h's options, and this chapter's own three.

typedef struct {
    unsigned parts; /* bit i: part_names[i] selected */
    int stride;     /* -1: every stride of the part */
    int shared_kb;  /* -1: the capacity part's list */
} bank_options;

static void bad_option(const char *message, const char *value) {
    fprintf(stderr, "banks: ");
    fprintf(stderr, message, value);
    fprintf(stderr, "\n");
    exit(EXIT_BAD_COMMAND_LINE);
}

/* A whole number from 0 to max, or exit 2 naming the option. */
static int parse_whole(const char *option, const char *value, int max) {
    char *end;
    long number = strtol(value, &end, 10);
    if (value[0] < '0' || value[0] > '9' || *end || number > max) {
        fprintf(stderr, "banks: %s needs a whole number from 0 to %d, got '%s'\n", option, max, value);
        exit(EXIT_BAD_COMMAND_LINE);
    }
    return (int)number;
}

static unsigned parse_parts(const char *list) {
    unsigned parts = 0;
    char item[64];
    if (strcmp(list, "all") == 0) return CORRECT_PARTS;
    for (const char *start = list;;) {
        const char *comma = strchr(start, ',');
        size_t length = comma ? (size_t)(comma - start) : strlen(start);
        int index = -1;
        if (length > 0 && length < sizeof item) {
            memcpy(item, start, length);
            item[length] = '\0';
            for (int i = 0; part_names[i]; ++i)
                if (strcmp(part_names[i], item) == 0) index = i;
        }
        if (index < 0)
            bad_option("unknown part in '%s' (choose from stride, size, history, carve, alias, same_address, "
                       "capacity, all; "
                       "or carve_misaligned)",
                       list);
        parts |= 1u << index;
        if (!comma) return parts;
        start = comma + 1;
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

/* The own options' values, checked (exit 2 on a bad one). */
static bank_options bank_options_from(const cli_options *o) {
    bank_options b = {CORRECT_PARTS, -1, -1};
    if (o->own_values[OPTION_PART]) b.parts = parse_parts(o->own_values[OPTION_PART]);
    if (o->own_values[OPTION_STRIDE]) b.stride = parse_whole("--stride", o->own_values[OPTION_STRIDE], MAX_STRIDE);
    if (o->own_values[OPTION_SHARED_KB])
        b.shared_kb = parse_whole("--shared-kb", o->own_values[OPTION_SHARED_KB], MAX_SHARED_KB);
    if (b.stride >= 0 && !(b.parts & STRIDE_PARTS))
        bad_option("%s applies to the stride, size and history parts only", "--stride");
    if (b.shared_kb >= 0 && !(b.parts & (1u << PART_CAPACITY)))
        bad_option("%s applies to the capacity part only", "--shared-kb");
    return b;
}

static void print_bank_model(const cli_options *o); /* --bank-model, further below */

static void parse_command_line(int argc, char **argv, cli_options *o) {
    cli_spec spec = {};
    spec.program = "banks";
    spec.summary = "shared-memory banks, carving and capacity, measured (the Programming Guide; Fan, ch. 8)";
    spec.accepts = CLI_N | CLI_REPS | CLI_CHECK | CLI_DEVICE | CLI_BANK_MODEL;
    spec.default_n = DEFAULT_COPY_N;
    spec.extra_help = "--n is the number of floats the capacity part copies (default 2^28: 1 GiB).\n"
                      "--check verifies every part without timing: the stride and size parts then check the data\n"
                      "each warp read, not its cost.\n"
                      "The Guide's example (one warp at strides 1, 2, 3, 32, 33) always runs first; --part chooses\n"
                      "the parts after it.";
    spec.own_options = bank_options_spec;
    cli_parse_or_exit(&spec, argc, argv, o);
    bank_options_from(o); /* the own options checked now, before any CUDA call */
    if (o->bank_model) {
        print_bank_model(o);
        exit(EXIT_ALL_PASSED);
    }
}

static void check_against_device(const cli_options *o, const struct cudaDeviceProp *p) {
    const bank_options b = bank_options_from(o);
    int optin = 0;
    HANDLE_ERROR(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, o->device));
    if (b.shared_kb > optin / 1024) {
        fprintf(stderr,
                "banks: --shared-kb %d is past this device's limit of %d KB per block "
                "(cudaDevAttrMaxSharedMemoryPerBlockOptin)\n",
                b.shared_kb, optin / 1024);
        exit(EXIT_BAD_COMMAND_LINE);
    }
    if (b.parts & (1u << PART_CAPACITY))
        gpu_require_memory("banks", 2.0 * o->n * sizeof(float), "the capacity part's copy");
    printf("shared memory: %d banks of %d bytes; per block %zu KB, or up to %d KB with the opt-in; per SM %zu KB\n\n",
           BANKS, BANK_BYTES, p->sharedMemPerBlock / 1024, optin / 1024, p->sharedMemPerMultiprocessor / 1024);
}

// ---------------------------------------------------------------------------
// The launch switch: one bank_read instantiation per (type, stride), picked
// for a stride known only at run time.

template <typename element, int stride = 0>
static void launch_bank_read_at(int wanted_stride, int blocks, unsigned *sums, int rounds) {
    if constexpr (stride <= MAX_STRIDE) {
        if (stride != wanted_stride)
            return launch_bank_read_at<element, stride + 1>(wanted_stride, blocks, sums, rounds);
        bank_read<element, stride>
            <<<blocks, READ_THREADS, read_buffer_bytes(sizeof(element), stride)>>>(sums, rounds, ROW_STEP);
    }
}

static void launch_bank_read(int element_bytes, int stride, int blocks, unsigned *sums, int rounds) {
    switch (element_bytes) {
    case CHAR_BYTES: launch_bank_read_at<unsigned char>(stride, blocks, sums, rounds); break;
    case SHORT_BYTES: launch_bank_read_at<unsigned short>(stride, blocks, sums, rounds); break;
    case INT_BYTES: launch_bank_read_at<unsigned int>(stride, blocks, sums, rounds); break;
    default: launch_bank_read_at<double>(stride, blocks, sums, rounds); break;
    }
}

// ---------------------------------------------------------------------------
// The bank_read cases a part launches: what runs them and what models them.

/* The strides of part stride (0 to 33) or size (size_strides); --stride: that one. */
static int read_strides(int part, const bank_options *b, int strides[MAX_STRIDE + 1]) {
    int count = 0;
    if (b->stride >= 0)
        strides[count++] = b->stride;
    else if (part == PART_STRIDE)
        for (int s = 0; s <= MAX_STRIDE; ++s)
            strides[count++] = s; /* 0, 1, ..., 33 */
    else
        for (size_t i = 0; i < sizeof size_strides / sizeof *size_strides; ++i)
            strides[count++] = size_strides[i];
    return count;
}

/* The element sizes of part stride (int) or size (char, short, double). */
static int read_elements(int part, const int **elements) {
    *elements = part == PART_STRIDE ? stride_elements : size_elements;
    return part == PART_STRIDE ? 1 : 3;
}

// ---------------------------------------------------------------------------
// The bank rule, on the CPU: how many passes a warp-wide load takes.
//
// common/bank_model.h counts them from the byte address each lane touches:
// the most distinct 4-byte words any one bank must deliver (lanes that read
// the same word share it: a broadcast), 8-byte loads served a half-warp at a
// time. bank_read's lane t reads at lane_byte_offset(t, stride, bytes), the
// kernel's own expression; for 4-byte elements that is gcd(stride, 32)
// passes, 1 for stride 0.
//
// Two other bank layouts, for comparison only, counted by the same model at
// translated addresses (the model's bank of each word is that layout's):
//   8-byte banks, as some notes claim for Ampere: the 8-byte word a / 8 is
//   given to the model as 4-byte word a / 8, the whole warp one request;
//   compute capability 1.x (part history): 16 banks, word w in bank w % 16,
//   given to the model as word (w / 16) * 32 + w % 16 (bank w % 16, distinct
//   for distinct w); each half-warp a request of its own, one after the
//   other. 1.x broadcast only one word per pass; that makes no difference for
//   4-byte words at a stride (stride 0 reads one word, any other stride
//   distinct words), the only cases history asks for.

#define ALL_LANES 0xffffffffu

/* The byte lane `lane` loads in load k of bank_read's round 0 (every round
 * reads the same banks, whole rows further on). */
static unsigned bank_read_address(int element_bytes, int stride, int lane, int k) {
    return (unsigned)lane_byte_offset(lane, stride, element_bytes) + window_row_offset(0, ROW_STEP) + k * ROW_BYTES;
}

static int predicted_passes(int element_bytes, int stride, int bank_bytes) {
    unsigned address[WARP];
    for (int lane = 0; lane < WARP; ++lane) {
        const unsigned byte = bank_read_address(element_bytes, stride, lane, 0);
        address[lane] = bank_bytes == 8 ? byte / 8 * BANK_BYTES : byte; /* 8-byte banks: word byte / 8 */
    }
    return bank_passes(address, ALL_LANES, bank_bytes == 8 ? BANK_BYTES : element_bytes);
}

/* The steps of a warp's load of 4-byte words at `stride` on compute capability 1.x. */
static int cc1_passes(int stride) {
    unsigned address[WARP];
    for (int lane = 0; lane < WARP; ++lane) {
        const unsigned word = bank_read_address(INT_BYTES, stride, lane, 0) / BANK_BYTES;
        address[lane] = (word / CC1_BANKS * BANKS + word % CC1_BANKS) * BANK_BYTES; /* in bank word % 16 */
    }
    return bank_passes(address, 0x0000ffffu, BANK_BYTES) + bank_passes(address, 0xffff0000u, BANK_BYTES);
}

// ---------------------------------------------------------------------------
// --bank-model: every shared-memory instruction of every kernel the options
// launch, one bank_model_line per kind of warp access, with its weight (how
// often one block makes it). Each address comes from the kernel's own index
// expression: a shared helper (lane_byte_offset, window_row_offset, carve), or
// the kernel's subscript evaluated on a host array of the same type.

/* A block-stride loop, for (i = threadIdx.x; i < count; i += blockDim.x), in
 * which each thread touches element i (reversed: count - 1 - i) of an array of
 * width-byte elements at byte `base`. blockDim.x is a multiple of 32, so each
 * 32 consecutive i are one warp access. Warp accesses with the same active
 * lanes and passes share a line (its addresses: the first one's). */
static void model_block_loop(const char *kernel, const char *access, const char *op, int width, size_t base, int count,
                             int reversed) {
    enum { MAX_KINDS = 4 }; /* a full warp and a last, partial one are all these loops make */
    unsigned first_address[MAX_KINDS][WARP], kind_active[MAX_KINDS];
    int kind_passes[MAX_KINDS], kinds = 0;
    long long weight[MAX_KINDS];
    for (int warp_first = 0; warp_first < count; warp_first += WARP) {
        unsigned address[WARP], active = 0;
        for (int lane = 0; lane < WARP; ++lane) {
            const int i = warp_first + lane;
            address[lane] = 0;
            if (i >= count) continue;
            active |= 1u << lane;
            address[lane] = (unsigned)(base + (size_t)(reversed ? count - 1 - i : i) * width);
        }
        const int passes = bank_passes(address, active, width);
        int kind = 0;
        while (kind < kinds && !(kind_active[kind] == active && kind_passes[kind] == passes))
            ++kind;
        if (kind == MAX_KINDS) {
            fprintf(stderr, "banks: %s, %s: more kinds of warp access than the model keeps\n", kernel, access);
            exit(EXIT_WRONG_RESULT);
        }
        if (kind == kinds) {
            memcpy(first_address[kind], address, sizeof address);
            kind_active[kind] = active;
            kind_passes[kind] = passes;
            weight[kind] = 0;
            ++kinds;
        }
        ++weight[kind];
    }
    for (int kind = 0; kind < kinds; ++kind)
        bank_model_line(kernel, access, op, width, first_address[kind], kind_active[kind], weight[kind], NULL);
}

/* guide_stride_read at each of main's strides (one warp, one block a launch):
 * the fill, then the Guide's load, its subscript evaluated on a host array. */
static void model_guide_stride_read(void) {
    static int guide_words[WARP * MAX_STRIDE]; /* the kernel's s_words */
    for (size_t i = 0; i < sizeof guide_strides / sizeof *guide_strides; ++i) {
        const int s = guide_strides[i];
        char access[48], picture[32];
        unsigned address[WARP];
        snprintf(access, sizeof access, "fill s_words[i], s = %d", s);
        model_block_loop("guide_stride_read", access, "st", sizeof(int), 0, WARP * MAX_STRIDE, 0);
        for (unsigned t = 0; t < WARP; ++t)
            address[t] = (unsigned)((char *)&guide_words[s * t] - (char *)guide_words);
        snprintf(access, sizeof access, "s_words[s * threadIdx.x], s = %d", s);
        snprintf(picture, sizeof picture, "banks_int_stride_%d", s);
        bank_model_line("guide_stride_read", access, "ld", sizeof(int), address, ALL_LANES, 1,
                        s == 1 || s == 2 || s == 32 ? picture : NULL);
    }
}

/* The element type as Nsight Compute prints bank_read's template argument. */
static const char *read_type_name(int bytes) {
    return bytes == 1 ? "unsigned char" : bytes == 2 ? "unsigned short" : bytes == 4 ? "unsigned int" : "double";
}

/* The lesson's pictures among bank_read's loads (the Guide's example draws int strides 1, 2 and 32). */
static const char *read_picture(int element_bytes, int stride) {
    if (element_bytes == INT_BYTES && stride == 0) return "banks_broadcast";
    if (element_bytes == CHAR_BYTES && stride == 17) return "banks_char_stride_17";
    if (element_bytes == DOUBLE_BYTES && stride == 1) return "banks_double_stride_1";
    return NULL;
}

/* bank_read<element, stride>: the fill, then the 16 loads of a round, each
 * made by every warp in every round. The compiler unrolls the rounds too (48
 * to 240 LDS in the SASS, by type and architecture), and every copy of load k
 * reads load k's banks. */
static void model_bank_read(int element_bytes, int stride, int rounds) {
    char kernel[48], access[48];
    snprintf(kernel, sizeof kernel, "bank_read<%s, %d>", read_type_name(element_bytes), stride);
    model_block_loop(kernel, "fill s_words[w]", "st", sizeof(unsigned), 0, read_buffer_bytes(element_bytes, stride) / 4,
                     0);
    for (int k = 0; k < LOADS_PER_ROUND; ++k) {
        unsigned address[WARP];
        for (int lane = 0; lane < WARP; ++lane)
            address[lane] = bank_read_address(element_bytes, stride, lane, k);
        snprintf(access, sizeof access, "s_row[%d * row_elements]", k);
        bank_model_line(kernel, access, "ld", element_bytes, address, ALL_LANES,
                        (long long)READ_THREADS / WARP * rounds, k == 0 ? read_picture(element_bytes, stride) : NULL);
    }
}

/* Every bank_read the stride and size parts launch, each once: the cases and,
 * when timed, the broadcasts they are measured against. */
static void model_bank_reads(const cli_options *o, const bank_options *b) {
    int launched[DOUBLE_BYTES + 1][MAX_STRIDE + 1] = {{0}};
    for (int part = PART_STRIDE; part <= PART_SIZE; ++part) {
        if (!(b->parts & (1u << part))) continue;
        int strides[MAX_STRIDE + 1];
        const int stride_count = read_strides(part, b, strides);
        const int *elements;
        const int element_count = read_elements(part, &elements);
        if (!o->check_only) launched[INT_BYTES][0] = 1;
        for (int e = 0; e < element_count; ++e) {
            if (!o->check_only) launched[elements[e]][0] = 1;
            for (int i = 0; i < stride_count; ++i)
                launched[elements[e]][strides[i]] = 1;
        }
    }
    const int order[] = {INT_BYTES, CHAR_BYTES, SHORT_BYTES, DOUBLE_BYTES}; /* as the lesson's tables */
    for (int e = 0; e < 4; ++e)
        for (int stride = 0; stride <= MAX_STRIDE; ++stride)
            if (launched[order[e]][stride])
                model_bank_read(order[e], stride, o->check_only ? CHECK_ROUNDS : TIMED_ROUNDS);
}

/* carve_chained and carve_aligned: write_and_read_back's six loops, at the
 * offsets the kernel carves (the chained pointers evaluated on a host buffer). */
static void model_carve(carve_case c) {
    const char *kernel = c.aligned ? "carve_aligned" : "carve_chained";
    size_t floats_at, ints_at;
    if (c.aligned) {
        const carve_layout layout = carve(c.short_count, c.float_count, c.int_count);
        floats_at = layout.floats;
        ints_at = layout.ints;
    } else {
        static int buffer[4096]; /* aligned, and larger than any case's arrays */
        short *shorts = (short *)buffer;
        float *floats = (float *)&shorts[c.short_count];
        int *ints = (int *)&floats[c.float_count];
        floats_at = (size_t)((char *)floats - (char *)buffer);
        ints_at = (size_t)((char *)ints - (char *)buffer);
    }
    model_block_loop(kernel, "s_shorts[i] = short_value(i)", "st", sizeof(short), 0, c.short_count, 0);
    model_block_loop(kernel, "s_floats[i] = float_value(i)", "st", sizeof(float), floats_at, c.float_count, 0);
    model_block_loop(kernel, "s_ints[i] = int_value(i)", "st", sizeof(int), ints_at, c.int_count, 0);
    model_block_loop(kernel, "s_shorts[short_count - 1 - i]", "ld", sizeof(short), 0, c.short_count, 1);
    model_block_loop(kernel, "s_floats[float_count - 1 - i]", "ld", sizeof(float), floats_at, c.float_count, 1);
    model_block_loop(kernel, "s_ints[int_count - 1 - i]", "ld", sizeof(int), ints_at, c.int_count, 1);
}

/* same_word_store and same_byte_store: every warp the same accesses, at its
 * own word(s); shown for warp 0, the subscripts evaluated on host arrays. */
static void model_same_address(void) {
    const int warps = SAME_ADDRESS_THREADS / WARP, warp = 0;
    static unsigned same_words[SAME_ADDRESS_THREADS / WARP];
    static unsigned byte_words[SAME_ADDRESS_THREADS / WARP * SAME_BYTES / 4];
    unsigned address[WARP];
    for (int lane = 0; lane < WARP; ++lane)
        address[lane] = (unsigned)((char *)&same_words[warp] - (char *)same_words);
    bank_model_line("same_word_store", "s_words[warp] = 0xFFFFFFFFu, lane 0", "st", sizeof(unsigned), address, 1u,
                    warps, NULL);
    bank_model_line("same_word_store", "s_words[warp] = lane * 0x01010101u", "st", sizeof(unsigned), address, ALL_LANES,
                    warps, NULL);
    bank_model_line("same_word_store", "s_words[warp], lane 0", "ld", sizeof(unsigned), address, 1u, warps, NULL);

    unsigned *warp_words = byte_words + warp * (SAME_BYTES / 4);
    unsigned char *warp_bytes = (unsigned char *)warp_words;
    const unsigned first_lanes = (1u << (SAME_BYTES / 4)) - 1; /* lane < SAME_BYTES / 4 */
    for (int lane = 0; lane < WARP; ++lane)
        address[lane] = (unsigned)((char *)&warp_words[lane % (SAME_BYTES / 4)] - (char *)byte_words);
    bank_model_line("same_byte_store", "s_warp_words[lane] = 0xFFFFFFFFu", "st", sizeof(unsigned), address, first_lanes,
                    warps, NULL);
    bank_model_line("same_byte_store", "s_warp_words[lane]", "ld", sizeof(unsigned), address, first_lanes, warps, NULL);
    for (int lane = 0; lane < WARP; ++lane)
        address[lane] = (unsigned)((char *)&warp_bytes[lane % SAME_BYTES] - (char *)byte_words);
    bank_model_line("same_byte_store", "s_warp_bytes[lane % SAME_BYTES] = lane", "st", 1, address, ALL_LANES, warps,
                    NULL);
}

static void print_bank_model(const cli_options *o) {
    const bank_options b = bank_options_from(o);
    bank_model_header();
    model_guide_stride_read(); /* main's example: always */
    model_bank_reads(o, &b);
    if (b.parts & (1u << PART_CARVE))
        for (size_t i = 0; i < sizeof carve_cases / sizeof *carve_cases; ++i)
            model_carve(carve_cases[i]);
    if (b.parts & (1u << PART_CARVE_MISALIGNED))
        printf("# carve_chained with short[%d]: its floats start at byte %d, misaligned, and the kernel stops at "
               "their first store: no prediction\n",
               carve_misaligned_case.short_count, (int)(carve_misaligned_case.short_count * sizeof(short)));
    if (b.parts & (1u << PART_ALIAS)) {
        /* Both arrays start at byte 0: the rule part alias shows. */
        model_block_loop("two_extern_arrays", "s_alias_floats[threadIdx.x]", "st", sizeof(float), 0, ALIAS_THREADS, 0);
        model_block_loop("two_extern_arrays", "s_alias_ints[blockDim.x - 1 - threadIdx.x]", "ld", sizeof(int), 0,
                         ALIAS_THREADS, 1);
    }
    if (b.parts & (1u << PART_SAME_ADDRESS)) model_same_address();
    if (b.parts & (1u << PART_CAPACITY))
        printf("# copy_reserving_shared: reserves dynamic shared memory at its launch and executes no shared-memory "
               "instruction\n");
}

// ---------------------------------------------------------------------------
// What bank_read's threads sum, on the CPU.

/* The value a load of element_bytes at `byte` adds to a thread's sum: the
 * element's 4-byte halves (a double's two) as unsigned integers, little endian. */
static unsigned element_sum_cpu(long long byte, int element_bytes) {
    unsigned sum = 0;
    for (int part = 0; part < element_bytes; part += 4) {
        unsigned value = 0;
        int width = element_bytes < 4 ? element_bytes : 4;
        for (int i = width - 1; i >= 0; --i) {
            long long b = byte + part + i;
            value = value << 8 | ((pattern_word((unsigned)(b / 4)) >> (8 * (b % 4))) & 0xFFu);
        }
        sum += value;
    }
    return sum;
}

/* What lane `lane` of every warp sums in bank_read, in its order. */
static unsigned lane_sum_cpu(int element_bytes, int stride, int lane, int rounds) {
    unsigned sum = 0;
    for (int round = 0; round < rounds; ++round)
        for (int k = 0; k < LOADS_PER_ROUND; ++k)
            sum += element_sum_cpu((long long)lane * stride * element_bytes +
                                       (long long)((unsigned)(round * ROW_STEP) % WINDOW_ROWS + k) * ROW_BYTES,
                                   element_bytes);
    return sum;
}

// ---------------------------------------------------------------------------
// Running parts stride and size: each case checked (every thread's sum
// against the CPU, bit for bit: a load from the wrong place fails) and timed.

typedef struct {
    int data_wrong; /* threads whose sum differs from the CPU's */
    double ms;      /* median time of one launch (0 with --check) */
    long long warp_loads;
} read_measurement;

static read_measurement measure_read(int element_bytes, int stride, int blocks, int rounds, const cli_options *o) {
    read_measurement m = {0, 0, (long long)blocks * (READ_THREADS / WARP) * rounds * LOADS_PER_ROUND};
    const int threads = blocks * READ_THREADS;
    unsigned *sums, *host_sums = (unsigned *)host_alloc("banks", threads * sizeof(unsigned), "the sums");
    HANDLE_ERROR(cudaMalloc(&sums, threads * sizeof(unsigned)));
    gpu_poison(sums, threads * sizeof(unsigned));
    launch_bank_read(element_bytes, stride, blocks, sums, rounds);
    CHECK_LAUNCH();
    HANDLE_ERROR(cudaMemcpy(host_sums, sums, threads * sizeof(unsigned), cudaMemcpyDeviceToHost));
    unsigned lane_sums[WARP];
    for (int lane = 0; lane < WARP; ++lane)
        lane_sums[lane] = lane_sum_cpu(element_bytes, stride, lane, rounds);
    for (int t = 0; t < threads; ++t)
        m.data_wrong += host_sums[t] != lane_sums[t % WARP];
    if (!o->check_only)
        m.ms = time_median_ms(o->reps, [&] { launch_bank_read(element_bytes, stride, blocks, sums, rounds); });
    HANDLE_ERROR(cudaFree(sums));
    free(host_sums);
    return m;
}

static double ms_per_load(read_measurement m) { return m.ms / m.warp_loads; }

static int run_bank_reads(int part, const cli_options *o, const bank_options *b, const struct cudaDeviceProp *p) {
    /* Every warp slot of every SM busy: as many 256-thread blocks as fit. */
    const int blocks =
        o->check_only ? CHECK_BLOCKS : p->multiProcessorCount * (p->maxThreadsPerMultiProcessor / READ_THREADS);
    const int rounds = o->check_only ? CHECK_ROUNDS : TIMED_ROUNDS;
    int strides[MAX_STRIDE + 1];
    const int stride_count = read_strides(part, b, strides);
    const int *elements;
    const int element_count = read_elements(part, &elements);

    /* The unit of cost, per element type: a broadcast load (every thread the
     * same element), one pass whatever the bank width. Each case's measured
     * passes are its time per load over that one's. */
    double unit_ms[DOUBLE_BYTES + 1] = {0};
    if (!o->check_only) {
        unit_ms[INT_BYTES] = ms_per_load(measure_read(INT_BYTES, 0, blocks, rounds, o));
        for (int e = 0; e < element_count; ++e)
            unit_ms[elements[e]] = ms_per_load(measure_read(elements[e], 0, blocks, rounds, o));
    }
    printf("%s: %d blocks x %d threads, %d rounds of %d loads per thread; %s\n", part_names[part], blocks, READ_THREADS,
           rounds, LOADS_PER_ROUND,
           o->check_only ? "--check: every thread's sum checked, the cost not timed"
                         : "value = time per load / time of a broadcast load of the type, expected = passes");

    static char names[64][24]; /* the rows' kernel names, built here, kept until report_end */
    report rep;
    report_begin(&rep, "banks", stdout);
    for (int e = 0; e < element_count; ++e) {
        for (int i = 0; i < stride_count; ++i) {
            const int stride = strides[i], bytes = elements[e];
            const int passes = predicted_passes(bytes, stride, BANK_BYTES);
            read_measurement m = measure_read(bytes, stride, blocks, rounds, o);
            snprintf(names[rep.count % 64], sizeof names[0], "stride_%d", stride);
            result_row row = result_row_for(names[rep.count % 64], element_name(bytes), m.warp_loads);
            if (o->check_only) {
                row.pass = m.data_wrong == 0;
            } else {
                row_check(&row, ms_per_load(m) / unit_ms[bytes], passes, COST_TOLERANCE);
                row.pass = row.pass && m.data_wrong == 0;
                row.timed = 1;
                row.ms = m.ms;
                row.gbps = row.pct_ceiling = NAN; /* no DRAM traffic to speak of */
            }
            row_note(&row, "predicted %d; 8-byte banks would give %d%s", passes, predicted_passes(bytes, stride, 8),
                     m.data_wrong ? "; WRONG DATA" : "");
            report_add(&rep, &row);
        }
    }
    if (!o->check_only) {
        printf("one pass (a broadcast load) takes %.3f ns per SM for int",
               1e6 * unit_ms[INT_BYTES] * p->multiProcessorCount);
        for (int e = 0; e < element_count; ++e)
            if (elements[e] != INT_BYTES)
                printf("; %s %.2f x int", element_name(elements[e]), unit_ms[elements[e]] / unit_ms[INT_BYTES]);
        printf("\n");
    }
    return report_end(&rep);
}

// ---------------------------------------------------------------------------
// Running part history: the stride cases on compute capability 1.x's banks,
// beside today's. No kernel runs: the same bank_passes() that predicts today's
// passes counts 1.x's with 16 banks and half-warp requests, and each count is
// checked against the closed form: today gcd(s, 32), on 1.x two half-warps of
// gcd(s, 16) steps each (1 each for s = 0, a broadcast).

static int greatest_common_divisor(int a, int b) {
    while (b != 0) {
        const int rest = a % b;
        a = b;
        b = rest;
    }
    return a;
}

static int run_history(const bank_options *b) {
    printf("compute capability 1.x: %d banks of 4 bytes, 32 bits per bank per two clocks (%d bytes a clock), a warp's "
           "request served one half-warp at a time; today: %d banks, 32 bits per bank per clock (%d bytes a clock), "
           "the whole warp at once\n",
           CC1_BANKS, CC1_BANKS * BANK_BYTES / 2, BANKS, ROW_BYTES);
    printf("value = steps a warp's load took on 1.x (bank_passes with %d banks, %d threads a request), expected = "
           "2 x gcd(s, 16) (2 for s = 0); today's passes (bank_passes with %d banks, %d threads) must equal "
           "gcd(s, 32) (1 for s = 0)\n",
           CC1_BANKS, HALF_WARP, BANKS, WARP);
    static char names[MAX_STRIDE + 1][24]; /* the rows' kernel names, kept until report_end */
    report rep;
    report_begin(&rep, "banks", stdout);
    for (int stride = 0; stride <= MAX_STRIDE; ++stride) {
        if (b->stride >= 0 && stride != b->stride) continue;
        const int today = predicted_passes(INT_BYTES, stride, BANK_BYTES);
        const int then = cc1_passes(stride);
        const int today_formula = stride == 0 ? 1 : greatest_common_divisor(stride, BANKS);
        const int half_warp_formula = stride == 0 ? 1 : greatest_common_divisor(stride, CC1_BANKS);
        snprintf(names[stride], sizeof names[0], "history_stride_%d", stride);
        result_row row = result_row_for(names[stride], "int", WARP);
        row_check(&row, then, (WARP / HALF_WARP) * half_warp_formula, 0);
        row.pass = row.pass && today == today_formula;
        row_note(&row, "1.x: %d half-warps x %d step%s = %d clocks; today: %d pass%s = %d clock%s", WARP / HALF_WARP,
                 then / (WARP / HALF_WARP), then == WARP / HALF_WARP ? "" : "s", 2 * then, today,
                 today == 1 ? "" : "es", today, today == 1 ? "" : "s");
        if (today != today_formula) row_note(&row, "TODAY'S COUNT WRONG: gcd gives %d", today_formula);
        report_add(&rep, &row);
    }
    return report_end(&rep);
}

// ---------------------------------------------------------------------------
// Running part carve: write, read back, compare every element.

static int carved_elements_right(int short_count, int float_count, int int_count, short *shorts, float *floats,
                                 int *ints) {
    int right = 0;
    for (int i = 0; i < short_count; ++i)
        right += shorts[i] == short_value(i);
    for (int i = 0; i < float_count; ++i)
        right += floats[i] == float_value(i);
    for (int i = 0; i < int_count; ++i)
        right += ints[i] == int_value(i);
    return right;
}

static void run_carve(carve_case c, report *rep) {
    const int short_count = c.short_count, float_count = c.float_count, int_count = c.int_count, aligned = c.aligned;
    const int threads = CARVE_THREADS;
    carve_layout layout = carve(short_count, float_count, int_count); /* the size, enough for both ways */
    const size_t chained_floats = short_count * sizeof(short);
    short *shorts, *host_shorts = (short *)host_alloc("banks", short_count * sizeof(short), "shorts");
    float *floats, *host_floats = (float *)host_alloc("banks", float_count * sizeof(float), "floats");
    int *ints, *host_ints = (int *)host_alloc("banks", int_count * sizeof(int), "ints");
    HANDLE_ERROR(cudaMalloc(&shorts, short_count * sizeof(short)));
    HANDLE_ERROR(cudaMalloc(&floats, float_count * sizeof(float)));
    HANDLE_ERROR(cudaMalloc(&ints, int_count * sizeof(int)));
    gpu_poison(shorts, short_count * sizeof(short));
    gpu_poison(floats, float_count * sizeof(float));
    gpu_poison(ints, int_count * sizeof(int));
    if (aligned) {
        printf("carve_aligned: short[%d] at byte %zu, float[%d] at byte %zu, int[%d] at byte %zu: %zu bytes\n",
               short_count, layout.shorts, float_count, layout.floats, int_count, layout.ints, layout.bytes);
        carve_aligned<<<1, threads, layout.bytes>>>(short_count, float_count, int_count, shorts, floats, ints);
    } else {
        printf("carve_chained: short[%d] at byte 0, float[%d] at byte %zu, int[%d] at byte %zu%s\n", short_count,
               float_count, chained_floats, int_count, chained_floats + float_count * sizeof(float),
               chained_floats % alignof(float) ? ": the floats are misaligned, so this launch is expected to fail"
                                               : "");
        carve_chained<<<1, threads, layout.bytes>>>(short_count, float_count, int_count, shorts, floats, ints);
    }
    CHECK_LAUNCH();
    HANDLE_ERROR(cudaMemcpy(host_shorts, shorts, short_count * sizeof(short), cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaMemcpy(host_floats, floats, float_count * sizeof(float), cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaMemcpy(host_ints, ints, int_count * sizeof(int), cudaMemcpyDeviceToHost));

    static char names[8][48]; /* the rows' kernel names, kept until report_end */
    char *name = names[rep->count % 8];
    snprintf(name, sizeof names[0], "%s_%d_%d_%d", aligned ? "carve_aligned" : "carve_chained", short_count,
             float_count, int_count);
    const int elements = short_count + float_count + int_count;
    result_row row = result_row_for(name, "mixed", elements);
    row_check(&row, carved_elements_right(short_count, float_count, int_count, host_shorts, host_floats, host_ints),
              elements, 0);
    row_note(&row, "value: elements read back right");
    report_add(rep, &row);
    HANDLE_ERROR(cudaFree(shorts));
    HANDLE_ERROR(cudaFree(floats));
    HANDLE_ERROR(cudaFree(ints));
    free(host_shorts);
    free(host_floats);
    free(host_ints);
}

// ---------------------------------------------------------------------------
// Running part alias: the two declarations' addresses must be equal (and
// written: the poison is not an address), and every thread's int must hold the
// bits of the float the mirror thread wrote.

static int run_alias(void) {
    const int threads = ALIAS_THREADS;
    unsigned host_addresses[2], *addresses;
    int *bits, *host_bits = (int *)host_alloc("banks", threads * sizeof(int), "the bits read back");
    HANDLE_ERROR(cudaMalloc(&addresses, sizeof host_addresses));
    HANDLE_ERROR(cudaMalloc(&bits, threads * sizeof(int)));
    gpu_poison(addresses, sizeof host_addresses);
    gpu_poison(bits, threads * sizeof(int));
    two_extern_arrays<<<1, threads, threads * sizeof(float)>>>(addresses, bits);
    CHECK_LAUNCH();
    HANDLE_ERROR(cudaMemcpy(host_addresses, addresses, sizeof host_addresses, cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaMemcpy(host_bits, bits, threads * sizeof(int), cudaMemcpyDeviceToHost));
    int right = 0, first_expected = 0;
    for (int t = 0; t < threads; ++t) {
        const float written = alias_value(threads - 1 - t); /* what thread threads - 1 - t wrote */
        int expected;
        memcpy(&expected, &written, sizeof expected);
        right += host_bits[t] == expected;
        if (t == 0) first_expected = expected;
    }
    printf("two_extern_arrays: extern __shared__ float s_alias_floats[] starts at shared address %#x, "
           "extern __shared__ int s_alias_ints[] at %#x\n",
           host_addresses[0], host_addresses[1]);
    printf("thread 0 read s_alias_ints[%d] = 0x%08x, the bits of %.1ff, which thread %d wrote to s_alias_floats[%d] "
           "(expected 0x%08x)\n",
           threads - 1, (unsigned)host_bits[0], alias_value(threads - 1), threads - 1, threads - 1,
           (unsigned)first_expected);

    report rep;
    report_begin(&rep, "banks", stdout);
    result_row address_row = result_row_for("alias_address", "int", 2);
    row_check(&address_row, host_addresses[1], host_addresses[0], 0);
    address_row.pass = address_row.pass && host_addresses[0] != 0xFFFFFFFFu;
    row_note(&address_row, "value: s_alias_ints' shared address, expected: s_alias_floats'%s",
             host_addresses[0] != 0xFFFFFFFFu ? "" : "; NOT WRITTEN");
    report_add(&rep, &address_row);
    result_row bits_row = result_row_for("alias_bits", "float", threads);
    row_check(&bits_row, right, threads, 0);
    row_note(&bits_row, "value: ints read back with the bits of the floats written");
    report_add(&rep, &bits_row);
    HANDLE_ERROR(cudaFree(addresses));
    HANDLE_ERROR(cudaFree(bits));
    free(host_bits);
    return report_end(&rep);
}

// ---------------------------------------------------------------------------
// Running part same_address: every warp's word must hold one lane's value (any
// lane: which one wins is not guaranteed), and each of its 8 bytes the value of
// one of the four lanes that stored to that byte. The winners are printed.

#define SAME_ADDRESS_BLOCKS 16

/* Lane `lane` won the store in `wins[lane]` of `warps` warps: "lane 31 in 128". */
static void print_wins(const int *wins, int warps) {
    for (int lane = 0, first = 1; lane < WARP; ++lane)
        if (wins[lane]) {
            printf("%slane %d in %d", first ? "" : ", ", lane, wins[lane]);
            first = 0;
        }
    printf(" of %d warps\n", warps);
}

static int run_same_address(void) {
    const int warps = SAME_ADDRESS_BLOCKS * (SAME_ADDRESS_THREADS / WARP);
    const int byte_words = warps * (SAME_BYTES / 4);
    unsigned *words, *host_words = (unsigned *)host_alloc("banks", warps * sizeof(unsigned), "the words");
    unsigned *bytes, *host_bytes = (unsigned *)host_alloc("banks", byte_words * sizeof(unsigned), "the bytes");
    HANDLE_ERROR(cudaMalloc(&words, warps * sizeof(unsigned)));
    HANDLE_ERROR(cudaMalloc(&bytes, byte_words * sizeof(unsigned)));
    gpu_poison(words, warps * sizeof(unsigned));
    gpu_poison(bytes, byte_words * sizeof(unsigned));
    same_word_store<<<SAME_ADDRESS_BLOCKS, SAME_ADDRESS_THREADS>>>(words);
    CHECK_LAUNCH();
    same_byte_store<<<SAME_ADDRESS_BLOCKS, SAME_ADDRESS_THREADS>>>(bytes);
    CHECK_LAUNCH();
    HANDLE_ERROR(cudaMemcpy(host_words, words, warps * sizeof(unsigned), cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaMemcpy(host_bytes, bytes, byte_words * sizeof(unsigned), cudaMemcpyDeviceToHost));

    /* The word: lane t's value has t in all four bytes; a word mixing two
     * lanes' bytes, or the poison, is no lane's value. */
    int words_right = 0, word_wins[WARP] = {0};
    for (int w = 0; w < warps; ++w) {
        const unsigned lane = host_words[w] & 0xFFu;
        if (lane < WARP && host_words[w] == lane * 0x01010101u) {
            ++words_right;
            ++word_wins[lane];
        }
    }
    printf("same_word_store: in each warp all 32 lanes store lane * 0x01010101 to one shared word; warp 0 read back "
           "0x%08x; the word held ",
           host_words[0]);
    print_wins(word_wins, warps);

    /* The bytes: byte b (bits 8 (b % 4) of word b / 4) must hold t with t % 8 == b. */
    int bytes_right = 0, same_winners = 0, byte_wins[WARP] = {0};
    for (int w = 0; w < warps; ++w) {
        int same = 1;
        for (int b = 0; b < SAME_BYTES; ++b) {
            const unsigned value = host_bytes[w * (SAME_BYTES / 4) + b / 4] >> (8 * (b % 4)) & 0xFFu;
            const unsigned first = host_bytes[b / 4] >> (8 * (b % 4)) & 0xFFu; /* warp 0's */
            if (value < WARP && value % SAME_BYTES == (unsigned)b) {
                ++bytes_right;
                ++byte_wins[value];
            }
            same = same && value == first;
        }
        same_winners += same;
    }
    printf("same_byte_store: lane t stores t to byte t %% 8 of its warp's two words (4 lanes to each byte); warp 0 "
           "read back 0x%08x 0x%08x; the bytes held ",
           host_bytes[0], host_bytes[1]);
    print_wins(byte_wins, warps);
    printf("%d of %d warps have warp 0's eight winners. Which lane wins is undefined (the Guide), so the checks accept "
           "any lane that stored to the address\n",
           same_winners, warps);

    report rep;
    report_begin(&rep, "banks", stdout);
    result_row word_row = result_row_for("same_address_word", "int", warps);
    row_check(&word_row, words_right, warps, 0);
    row_note(&word_row, "value: words holding one lane's value");
    report_add(&rep, &word_row);
    result_row byte_row = result_row_for("same_address_byte", "char", (long long)warps * SAME_BYTES);
    row_check(&byte_row, bytes_right, (double)warps * SAME_BYTES, 0);
    row_note(&byte_row, "value: bytes holding the value of a lane that stored to them");
    report_add(&rep, &byte_row);
    HANDLE_ERROR(cudaFree(words));
    HANDLE_ERROR(cudaFree(bytes));
    free(host_words);
    free(host_bytes);
    return report_end(&rep);
}

// ---------------------------------------------------------------------------
// Running part capacity: the opt-in, then shared memory per block against
// resident blocks and bandwidth.

static int run_capacity(const cli_options *o, const bank_options *b, const struct cudaDeviceProp *p, int optin) {
    const long long n = o->n;
    const size_t bytes = (size_t)n * sizeof(float);
    int per_sm = 0, reserved = 0;
    HANDLE_ERROR(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, o->device));
    HANDLE_ERROR(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, o->device));
    float *host_in = (float *)host_alloc("banks", bytes, "the copy's input");
    float *host_out = (float *)host_alloc("banks", bytes, "the copy's output");
    for (long long i = 0; i < n; ++i)
        host_in[i] = (float)(i % 1000003);
    float *in, *out;
    HANDLE_ERROR(cudaMalloc(&in, bytes));
    HANDLE_ERROR(cudaMalloc(&out, bytes));
    HANDLE_ERROR(cudaMemcpy(in, host_in, bytes, cudaMemcpyHostToDevice));
    const long long blocks = (n + COPY_THREADS - 1) / COPY_THREADS;
    report rep;
    report_begin(&rep, "banks", stdout);

    /* Past 48 KB without the opt-in: the launch is refused, and says why. */
    const int over = (int)p->sharedMemPerBlock + 16 * 1024;
    copy_reserving_shared<<<(unsigned)blocks, COPY_THREADS, over>>>(in, out, n);
    cudaError_t refused = cudaGetLastError();
    char refusal[160];
    snprintf(refusal, sizeof refusal, "refused as predicted: %s (%s)", cudaGetErrorName(refused),
             cudaGetErrorString(refused));
    printf("launch with %d KB of dynamic shared memory, no cudaFuncSetAttribute: %s\n", over / 1024,
           refused != cudaSuccess ? refusal : "NOT refused");
    static char refused_name[40]; /* the row's kernel name, kept until report_end */
    snprintf(refused_name, sizeof refused_name, "launch_%dKB_no_opt_in", over / 1024);
    result_row refused_row = result_row_for(refused_name, "float", n);
    row_check(&refused_row, refused != cudaSuccess, 1, 0);
    row_note(&refused_row, "%s", refused != cudaSuccess ? refusal : "the launch was NOT refused");
    report_add(&rep, &refused_row);
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
    int size_count = sizeof sizes_kb / sizeof *sizes_kb;
    if (b->shared_kb >= 0) {
        sizes_kb[0] = b->shared_kb;
        size_count = 1;
    }
    static char names[16][32]; /* the rows' kernel names, kept until report_end */
    for (int s = 0; s < size_count; ++s) {
        const int shared = sizes_kb[s] * 1024;
        if (shared > optin || (s > 0 && sizes_kb[s] == sizes_kb[s - 1])) continue;
        int resident = 0;
        HANDLE_ERROR(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, copy_reserving_shared, COPY_THREADS, shared));
        /* Turing reserves nothing: a block asking none is limited by threads alone. */
        const int fit = shared + reserved > 0 ? per_sm / (shared + reserved) : unlimited_blocks;
        const int formula = fit < unlimited_blocks ? fit : unlimited_blocks;

        gpu_poison(out, bytes);
        copy_reserving_shared<<<(unsigned)blocks, COPY_THREADS, shared>>>(in, out, n);
        CHECK_LAUNCH();
        double ms = 0;
        if (!o->check_only)
            ms = time_median_ms(o->reps,
                                [&] { copy_reserving_shared<<<(unsigned)blocks, COPY_THREADS, shared>>>(in, out, n); });
        HANDLE_ERROR(cudaMemcpy(host_out, out, bytes, cudaMemcpyDeviceToHost));
        const int copy_right = memcmp(host_out, host_in, bytes) == 0;

        snprintf(names[s], sizeof names[s], "copy_%dKB", sizes_kb[s]);
        result_row row = result_row_for(names[s], "float", n);
        row_check(&row, resident, formula, 0);
        row.pass = row.pass && copy_right;
        row.bytes = bytes_moved((double)n, (double)n, sizeof(float));
        if (!o->check_only) row_time(&row, ms, "memcpy", ceiling);
        row_note(&row, "%d warps per SM%s", resident * COPY_THREADS / WARP, copy_right ? "" : "; COPY WRONG");
        report_add(&rep, &row);
    }
    HANDLE_ERROR(cudaFree(in));
    HANDLE_ERROR(cudaFree(out));
    free(host_in);
    free(host_out);
    return report_end(&rep);
}

// ---------------------------------------------------------------------------
// run_parts: every part --part asks for, in order, each with its table and
// RESULT lines; the exit code is the worst of them and main's.

static int run_parts(const cli_options *o, const struct cudaDeviceProp *p, int exit_code) {
    const bank_options b = bank_options_from(o);
    int optin = 0;
    HANDLE_ERROR(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, o->device));
    for (int part = 0; part < PART_COUNT; ++part) {
        if (!(b.parts & (1u << part))) continue;
        printf("--- part %s\n", part_names[part]);
        int code = 0;
        report rep;
        switch (part) {
        case PART_STRIDE:
        case PART_SIZE: code = run_bank_reads(part, o, &b, p); break;
        case PART_HISTORY: code = run_history(&b); break;
        case PART_CARVE:
            report_begin(&rep, "banks", stdout);
            for (size_t i = 0; i < sizeof carve_cases / sizeof *carve_cases; ++i)
                run_carve(carve_cases[i], &rep);
            code = report_end(&rep);
            break;
        case PART_ALIAS: code = run_alias(); break;
        case PART_SAME_ADDRESS: code = run_same_address(); break;
        case PART_CAPACITY: code = run_capacity(o, &b, p, optin); break;
        case PART_CARVE_MISALIGNED:
            report_begin(&rep, "banks", stdout);
            run_carve(carve_misaligned_case, &rep);
            code = report_end(&rep);
            break;
        }
        if (code > exit_code) exit_code = code;
        printf("\n");
    }
    return exit_code;
}
