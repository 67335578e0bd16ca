/* The bank model of a whole block (host C++, for --bank-model): each shared-memory instruction
 * of a kernel over a block's warps (or a launch's, where edge blocks differ), from the kernel's
 * own subscripts on host arrays of its types, as bank_model_line()s (one per warp shape,
 * weight = how many such warps); and what ch05_dot and ch08_reduce share: the halving tree,
 * block_sum and the last block's flag. */
#ifndef COMMON_BANK_MODEL_BLOCK_H
#define COMMON_BANK_MODEL_BLOCK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bank_model.h"

/* (dot and reduce, until the CPU runner observes them too) One line of --bank-model output (tab-separated, after bank_model_header()'s "#" line): one
 * shared-memory instruction of one kernel, as warps of one shape execute it. Columns: kernel
 * (as Nsight Compute names it), access ("tile column read"), op (ld/st), bytes per lane,
 * passes (bank_passes()), weight (how often a block executes it so: per grid where the last
 * block or edge tiles differ), picture (a bank map's file name for plot.py, or "-"), lanes
 * (32 "address:pass", "-" when inactive). bank_conflicts.sh weighs passes by weight beside
 * Nsight Compute's measurement. Host functions, callable from any host code of a .cu. */
#include <stdio.h>
static inline void bank_model_header(void) {
    printf("# kernel\taccess\top\tbytes\tpasses\tweight\tpicture\tlanes (byte address:pass)\n");
}
static inline void bank_model_line(const char *kernel, const char *access, const char *op, int width,
                                   const unsigned int address[32], unsigned int active, long long weight,
                                   const char *picture) {
    int pass_of_lane[32];
    const int passes = bank_lane_passes(address, active, width, pass_of_lane);
    printf("%s\t%s\t%s\t%d\t%d\t%lld\t%s\t", kernel, access, op, width, passes, weight, picture ? picture : "-");
    for (int lane = 0; lane < BANK_MODEL_WARP; ++lane) {
        if (pass_of_lane[lane] < 0)
            printf("-");
        else
            printf("%u:%d", address[lane], pass_of_lane[lane]);
        printf(lane + 1 < BANK_MODEL_WARP ? "," : "\n");
    }
}


#define BANK_MODEL_MAX_BLOCK 1024 /* the largest block, and the trees' shared arrays */

/* The pictures a chapter's lesson shows (plot.py --bank-maps draws each by name): an instruction of
 * this kernel and access, in a block of `threads` threads (0: any), gets it the first time it is
 * modelled. The chapter points bank_model_pictures at its table, ended by {NULL, NULL, 0, NULL}, before it models. */
typedef struct {
    const char *kernel, *access;
    int threads;
    const char *picture;
} bank_picture;
static const bank_picture *bank_model_pictures = NULL;

static inline const char *bank_model_picture(const char *kernel, const char *access, int threads) {
    static unsigned char drawn[64];
    for (int i = 0; bank_model_pictures && bank_model_pictures[i].kernel && i < 64; ++i) {
        const bank_picture *p = &bank_model_pictures[i];
        if (!drawn[i] && (!p->threads || p->threads == threads) && !strcmp(p->kernel, kernel) &&
            !strcmp(p->access, access)) {
            drawn[i] = 1;
            return p->picture;
        }
    }
    return NULL;
}

/* Blocks executing what is modelled next (a line's weight: warps times this); a kernel whose
 * last block does more (one_launch) counts per grid. */
static int bank_model_blocks = 1;

/* One warp's part of one instruction: its working lanes, their byte
 * addresses, the passes, and how many warps of the launch do the same. */
struct warp_access {
    unsigned int active, address[32];
    int passes;
    long long warps;
};

#define BANK_MODEL_MAX_CLASSES 4 /* kinds of block in one launch: a matrix's inner, right, bottom, corner tiles */

/* One instruction over a launch of `classes` kinds of block (a matrix's edge tiles): blocks[c]
 * of kind c, thread tid touching `bytes` at address(tid) if works(c, tid). A warp with no
 * working thread does not execute it (nor does Nsight Compute count it). Each warp shape makes
 * one line (the first such warp's addresses; partial warps name their lane count). */
template <typename address_of, typename works_if>
static void model_instruction_in(const char *kernel, const char *access, const char *op, int bytes, int threads,
                                 int classes, const long long *blocks, address_of address, works_if works) {
    warp_access shapes[BANK_MODEL_MAX_CLASSES * BANK_MODEL_MAX_BLOCK / 32];
    int count = 0;
    if (classes > BANK_MODEL_MAX_CLASSES) { /* a mistake in the program: raise the limit */
        fprintf(stderr, "%s: %d kinds of block, more than BANK_MODEL_MAX_CLASSES\n", kernel, classes);
        exit(2);
    }
    for (int c = 0; c < classes; ++c)
        for (int warp = 0; warp * 32 < threads; ++warp) {
            warp_access w = {};
            for (unsigned int lane = 0; lane < 32; ++lane) {
                const unsigned int tid = warp * 32 + lane;
                if (tid >= (unsigned int)threads || !works(c, tid)) continue;
                w.active |= 1u << lane;
                w.address[lane] = address(tid);
            }
            if (!w.active || blocks[c] == 0) continue;
            w.passes = bank_passes(w.address, w.active, bytes);
            w.warps = blocks[c];
            int s = 0; /* the same shape: the same lanes, in as many passes (a swizzle permutes addresses) */
            while (s < count && !(shapes[s].active == w.active && shapes[s].passes == w.passes))
                ++s;
            if (s < count)
                shapes[s].warps += w.warps;
            else
                shapes[count++] = w;
        }
    for (int s = 0; s < count; ++s) {
        char name[160];
        if (count == 1 || shapes[s].active == 0xffffffffu)
            snprintf(name, sizeof name, "%s", access);
        else
            snprintf(name, sizeof name, "%s (%d lanes)", access, __builtin_popcount(shapes[s].active));
        bank_model_line(kernel, name, op, bytes, shapes[s].address, shapes[s].active,
                        shapes[s].warps * bank_model_blocks,
                        s == 0 ? bank_model_picture(kernel, access, threads) : NULL);
    }
}

/* The common case: every block alike, thread tid working if works(tid). */
template <typename address_of, typename works_if>
static void model_instruction(const char *kernel, const char *access, const char *op, int bytes, int threads,
                              address_of address, works_if works) {
    const long long one_block = 1;
    model_instruction_in(kernel, access, op, bytes, threads, 1, &one_block, address,
                         [&](int, unsigned int tid) { return works(tid); });
}

/* Byte address of &array[i] from the array's start: the kernel's subscript on the host. */
template <typename element> static unsigned int byte_address(const element *array, unsigned int i) {
    return (unsigned int)((const char *)&array[i] - (const char *)array);
}

/* The element type as Nsight Compute prints it in a kernel's name. */
template <typename element> static const char *element_name(void) {
    return sizeof(element) == sizeof(double) ? "double" : sizeof(element) == sizeof(float) ? "float" : "int";
}

/* The trees' first and last shared accesses: every thread stores its element
 * (array[tid] = ...); thread 0 reads the block's total (array[0]). */
template <typename element>
static void model_load(const char *kernel, const element *array, const char *name, int threads) {
    char access[64];
    snprintf(access, sizeof access, "%s[tid] write (the block's elements)", name);
    model_instruction(
        kernel, access, "st", sizeof(element), threads, [&](unsigned int tid) { return byte_address(array, tid); },
        [](unsigned int) { return true; });
}
template <typename element>
static void model_total_read(const char *kernel, const element *array, const char *name, int threads) {
    char access[64];
    snprintf(access, sizeof access, "%s[0] read by thread 0", name);
    model_instruction(
        kernel, access, "ld", sizeof(element), threads, [&](unsigned int) { return byte_address(array, 0); },
        [](unsigned int tid) { return tid == 0; });
}

/* One step of a tree, array[a] += array[b] in the threads that work: two
 * loads and a store. a_name and b_name say what the kernel writes. */
template <typename element, typename index_of, typename other_of, typename works_if>
static void model_tree_step(const char *kernel, const element *array, int threads, const char *step, const char *a_name,
                            index_of a, const char *b_name, other_of b, works_if works) {
    for (int k = 0; k < 3; ++k) { /* read a, read b, write a */
        char access[96];
        snprintf(access, sizeof access, "%s: %s %s", step, k == 1 ? b_name : a_name, k == 2 ? "write" : "read");
        model_instruction(
            kernel, access, k == 2 ? "st" : "ld", sizeof(element), threads,
            [&](unsigned int tid) { return byte_address(array, k == 1 ? b(tid) : a(tid)); }, works);
    }
}

/* The halving tree of static, dynamic, shared_atomic, warp_synced (whose last
 * five steps are the same accesses, with __syncwarp() between them) and
 * squares_shared: at each offset the threads below it add the value offset
 * places up. warp_unrolled's last six steps run in all 32 lanes of warp 0. */
template <typename element>
static void model_halving_tree(const char *kernel, const char *name, int threads, int unrolled_last_warp) {
    static element s_y[BANK_MODEL_MAX_BLOCK]; /* the kernels' __shared__ real s_y[1024] (or extern, as element) */
    model_load(kernel, s_y, name, threads);
    for (unsigned int offset = threads / 2; offset > 0; offset /= 2) {
        const int unrolled = unrolled_last_warp && offset <= 32;
        char step[32], a_name[32], b_name[48];
        snprintf(step, sizeof step, "offset %u", offset);
        snprintf(a_name, sizeof a_name, "%s[tid]", unrolled ? "v" : name);
        if (unrolled)
            snprintf(b_name, sizeof b_name, "v[tid + %u]", offset);
        else
            snprintf(b_name, sizeof b_name, "%s[tid + offset]", name);
        model_tree_step(
            kernel, s_y, threads, step, a_name, [](unsigned int tid) { return tid; }, b_name,
            [=](unsigned int tid) { return tid + offset; },
            [=](unsigned int tid) { return unrolled ? tid < 32 : tid < offset; });
    }
    model_total_read(kernel, s_y, name, threads);
}

/* block_sum (ch05_dot, ch08_reduce): lane 0 of each warp writes its warp's sum to
 * s_warp_sums[warp]; then warp 0 reads s_warp_sums[lane] in the lanes below
 * the warp count. */
template <typename real> static void model_block_sum(const char *kernel, int threads, const char *which) {
    static real s_warp_sums[32];
    char access[96];
    snprintf(access, sizeof access, "%sblock_sum: s_warp_sums[warp] write by lane 0", which);
    model_instruction(
        kernel, access, "st", sizeof(real), threads,
        [&](unsigned int tid) { return byte_address(s_warp_sums, tid / 32); },
        [](unsigned int tid) { return tid % 32 == 0; });
    snprintf(access, sizeof access, "%sblock_sum: s_warp_sums[lane] read by warp 0", which);
    model_instruction(
        kernel, access, "ld", sizeof(real), threads,
        [&](unsigned int tid) { return byte_address(s_warp_sums, tid % 32); },
        [=](unsigned int tid) { return tid / 32 == 0 && tid % 32 < (unsigned int)threads / 32; });
}

/* The last-block test (the chapters' store_partial_and_check_last): a
 * bool, one byte; thread 0 writes it, every thread reads it. */
static inline void model_last_block_flag(const char *kernel, int threads) {
    static bool s_is_last_block;
    model_instruction(
        kernel, "s_is_last_block write by thread 0", "st", sizeof(bool), threads,
        [&](unsigned int) { return byte_address(&s_is_last_block, 0); }, [](unsigned int tid) { return tid == 0; });
    model_instruction(
        kernel, "s_is_last_block read by every thread", "ld", sizeof(bool), threads,
        [&](unsigned int) { return byte_address(&s_is_last_block, 0); }, [](unsigned int) { return true; });
}

#endif
