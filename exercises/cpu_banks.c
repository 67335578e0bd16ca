/* The bank model on the CPU runner, for the exercises: linked into a learner's build by
 * scripts/grade.py with -Wl,--wrap for every hook below, so each shared-memory access the
 * kernels make passes here first, then on to the runner (cpu_runner/runtime.c) unchanged.
 *
 * The runner runs one CUDA thread at a time; a GPU runs a warp's instruction for its 32 lanes at
 * once. So the accesses are put back together: the k-th time lane t of warp w executes the access
 * at one code address, after its n-th barrier (or __syncwarp, or shuffle), is one warp-wide
 * instruction with the k-th of every other lane of w after their n-th. Its passes are
 * common/bank_model.h's, from the lanes' byte addresses. Per code address (one source line, one
 * load or store) the file EXERCISE_BANKS_FILE gets, after each launch, a line:
 *   code OFFSET op ld|st bytes B warps N passes P ideal I conflicted C max M misaligned K
 * OFFSET: the return address minus one, from the program's load address (addr2line's input);
 * ideal: the passes the same words would need with no conflict (one per 32 distinct words);
 * conflicted: the warp instructions that took more; misaligned: lane accesses whose address is not
 * a multiple of their size (a GPU stops the kernel there: misaligned address).
 * Without EXERCISE_BANKS_FILE nothing is counted. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bank_model.h"
#include "runtime.h"

#define MAX_THREADS 1024
#define MAX_RECORDS (1 << 22) /* accesses kept per block; more are counted as dropped */

typedef struct {
    const void *code;
    uintptr_t address;
    unsigned thread, sync, order, k;
    unsigned char bytes, is_write;
} access_record;

typedef struct { /* one code address's totals over the launch */
    const void *code;
    unsigned char bytes, is_write;
    long long warps, passes, ideal, conflicted, max, misaligned;
} code_totals;

static FILE *out;
static int counting, in_launch, started;
static access_record *records;
static unsigned record_count, syncs[MAX_THREADS];
static long long dropped;
static uint3 block_now;
static code_totals *totals;
static int total_count, total_capacity;

static unsigned me(void) {
    const dim3 b = cuda_cpu_blockDim;
    const uint3 t = cuda_cpu_threadIdx;
    return t.x + b.x * (t.y + b.y * t.z);
}

static int by_thread(const void *x, const void *y) { /* code, thread, sync, then the order they came */
    const access_record *a = x, *b = y;
    if (a->code != b->code) return a->code < b->code ? -1 : 1;
    if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
    if (a->sync != b->sync) return a->sync < b->sync ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int by_instruction(const void *x, const void *y) { /* code, warp, sync, k, lane */
    const access_record *a = x, *b = y;
    if (a->code != b->code) return a->code < b->code ? -1 : 1;
    if (a->thread / 32 != b->thread / 32) return a->thread / 32 < b->thread / 32 ? -1 : 1;
    if (a->sync != b->sync) return a->sync < b->sync ? -1 : 1;
    if (a->k != b->k) return a->k < b->k ? -1 : 1;
    return a->thread < b->thread ? -1 : a->thread > b->thread;
}

static code_totals *totals_of(const access_record *r) {
    for (int i = 0; i < total_count; ++i)
        if (totals[i].code == r->code && totals[i].is_write == r->is_write && totals[i].bytes == r->bytes)
            return &totals[i];
    if (total_count == total_capacity) {
        total_capacity = total_capacity ? 2 * total_capacity : 64;
        totals = realloc(totals, sizeof *totals * (size_t)total_capacity);
        if (!totals) abort();
    }
    code_totals *t = &totals[total_count++];
    memset(t, 0, sizeof *t);
    t->code = r->code, t->bytes = r->bytes, t->is_write = r->is_write;
    return t;
}

/* One warp instruction: records[first .. last), one per active lane. */
static void count_instruction(const access_record *group, unsigned lanes) {
    unsigned address[32] = {0}, active = 0, words[32 * 5], distinct = 0;
    code_totals *t = totals_of(&group[0]);
    for (unsigned i = 0; i < lanes; ++i) {
        const unsigned lane = group[i].thread % 32;
        address[lane] = (unsigned)group[i].address;
        active |= 1u << lane;
        if (group[i].bytes > 1 && group[i].address % group[i].bytes) ++t->misaligned;
        for (unsigned w = address[lane] / 4; w <= (address[lane] + group[i].bytes - 1) / 4; ++w) {
            unsigned j = 0;
            while (j < distinct && words[j] != w)
                ++j;
            if (j == distinct && distinct < sizeof words / sizeof *words) words[distinct++] = w;
        }
    }
    const int passes = bank_passes(address, active, group[0].bytes);
    if (passes < 0) return; /* misaligned (counted above) or a width the model does not know */
    const long long ideal = (distinct + 31) / 32;
    ++t->warps;
    t->passes += passes;
    t->ideal += ideal;
    t->conflicted += passes > ideal;
    if (passes > t->max) t->max = passes;
}

/* The block is over: its accesses, regrouped into warp instructions. */
static void flush_block(void) {
    memset(syncs, 0, sizeof syncs);
    if (!record_count) return;
    qsort(records, record_count, sizeof *records, by_thread);
    for (unsigned i = 0; i < record_count; ++i) {
        const access_record *p = i ? &records[i - 1] : NULL, *r = &records[i];
        records[i].k = p && p->code == r->code && p->thread == r->thread && p->sync == r->sync ? p->k + 1 : 0;
    }
    qsort(records, record_count, sizeof *records, by_instruction);
    for (unsigned first = 0, last; first < record_count; first = last) {
        const access_record *f = &records[first];
        for (last = first + 1; last < record_count; ++last) {
            const access_record *r = &records[last];
            if (r->code != f->code || r->thread / 32 != f->thread / 32 || r->sync != f->sync || r->k != f->k) break;
        }
        count_instruction(f, last - first);
    }
    record_count = 0;
}

/* The runner runs the blocks one after another: a new blockIdx means the last block is over. */
static void notice_block(void) {
    const uint3 b = cuda_cpu_blockIdx;
    if (started && b.x == block_now.x && b.y == block_now.y && b.z == block_now.z) return;
    flush_block();
    block_now = b, started = 1;
}

static void record(const void *address, unsigned bytes, int is_write, const void *code) {
    if (!counting || !in_launch) return;
    if (!cuda_cpu_is_shared(address)) return;
    notice_block();
    if (record_count == MAX_RECORDS) {
        ++dropped;
        return;
    }
    const unsigned thread = me();
    records[record_count] = (access_record){code, (uintptr_t)address, thread, syncs[thread % MAX_THREADS],
                                            record_count, 0, (unsigned char)bytes, (unsigned char)is_write};
    ++record_count;
}

/* The launch: count its blocks, then write its totals. */
void __real_cuda_cpu_launch(dim3 grid, dim3 block, size_t dynamic_shared_bytes, void (*body)(void *),
                            void *argument, const char *file, int line, const char *kernel);
void __wrap_cuda_cpu_launch(dim3 grid, dim3 block, size_t dynamic_shared_bytes, void (*body)(void *),
                            void *argument, const char *file, int line, const char *kernel) {
    if (!out && getenv("EXERCISE_BANKS_FILE")) {
        out = fopen(getenv("EXERCISE_BANKS_FILE"), "a");
        records = malloc(sizeof *records * MAX_RECORDS);
        counting = out && records;
    }
    in_launch = 1, started = 0;
    __real_cuda_cpu_launch(grid, block, dynamic_shared_bytes, body, argument, file, line, kernel);
    in_launch = 0;
    if (!counting) return;
    flush_block();
    for (int i = 0; i < total_count; ++i) {
        const code_totals *t = &totals[i];
        Dl_info info;
        const char *base = dladdr(t->code, &info) && info.dli_fbase ? (const char *)info.dli_fbase : NULL;
        fprintf(out, "code %#lx op %s bytes %d warps %lld passes %lld ideal %lld conflicted %lld max %lld "
                     "misaligned %lld kernel %s\n",
                base ? (unsigned long)((const char *)t->code - base - 1) : 0UL, t->is_write ? "st" : "ld", t->bytes,
                t->warps, t->passes, t->ideal, t->conflicted, t->max, t->misaligned, kernel);
    }
    if (dropped) fprintf(out, "dropped %lld kernel %s\n", dropped, kernel);
    fflush(out);
    total_count = 0, dropped = 0;
}

/* A barrier, a __syncwarp or a shuffle: what this thread does next is a later instruction. */
static void counted_sync(void) {
    if (!counting || !in_launch) return;
    notice_block();
    ++syncs[me() % MAX_THREADS];
}
void __real_cuda_cpu_syncthreads(const char *file, int line);
void __wrap_cuda_cpu_syncthreads(const char *file, int line) {
    counted_sync();
    __real_cuda_cpu_syncthreads(file, line);
}
void __real_cuda_cpu_syncwarp(unsigned mask, const char *file, int line);
void __wrap_cuda_cpu_syncwarp(unsigned mask, const char *file, int line) {
    counted_sync();
    __real_cuda_cpu_syncwarp(mask, file, line);
}
unsigned long long __real_cuda_cpu_shfl(unsigned mask, unsigned long long value, int shuffle, int lane_argument,
                                        int width, const char *file, int line);
unsigned long long __wrap_cuda_cpu_shfl(unsigned mask, unsigned long long value, int shuffle, int lane_argument,
                                        int width, const char *file, int line) {
    counted_sync();
    return __real_cuda_cpu_shfl(mask, value, shuffle, lane_argument, width, file, line);
}

/* The loads and stores: counted, then the runner's own hook, as a tail call, so that the hook's
 * __builtin_return_address(0) is still the kernel's (the runner names the line of a race by it). */
#define WRAP(n)                                                                                                        \
    void __real___tsan_read##n(void *a);                                                                               \
    void __real___tsan_write##n(void *a);                                                                              \
    void __real___tsan_unaligned_read##n(void *a);                                                                     \
    void __real___tsan_unaligned_write##n(void *a);                                                                    \
    void __wrap___tsan_read##n(void *a) {                                                                              \
        record(a, n, 0, __builtin_return_address(0));                                                                  \
        __real___tsan_read##n(a);                                                                                      \
    }                                                                                                                  \
    void __wrap___tsan_write##n(void *a) {                                                                             \
        record(a, n, 1, __builtin_return_address(0));                                                                  \
        __real___tsan_write##n(a);                                                                                     \
    }                                                                                                                  \
    void __wrap___tsan_unaligned_read##n(void *a) {                                                                    \
        record(a, n, 0, __builtin_return_address(0));                                                                  \
        __real___tsan_unaligned_read##n(a);                                                                            \
    }                                                                                                                  \
    void __wrap___tsan_unaligned_write##n(void *a) {                                                                   \
        record(a, n, 1, __builtin_return_address(0));                                                                  \
        __real___tsan_unaligned_write##n(a);                                                                           \
    }
WRAP(1)
WRAP(2)
WRAP(4)
WRAP(8)
WRAP(16)
