/* The bank model: how many passes (Nsight Compute's "wavefronts") one warp-wide shared-memory instruction takes, from
 * each lane's byte address. Plain C, header-only: the CPU runner counts by it (cpu_runner/warp_accesses.c), banks'
 * lesson table predicts by it. 32 banks of 4 bytes (every GPU since Maxwell); word a / 4 lives in bank (a / 4) % 32,
 * and a pass serves one word per bank, 128 bytes. As the Programming Guide says: lanes touching one word share a pass
 * (also 1- and 2-byte accesses to its different bytes); n words in one bank take n passes. Wide accesses (checked
 * against Nsight Compute, docs/results/h200/banks.txt): the warp is served in groups of 128 / width lanes (half-warps
 * for 8 bytes, quarter-warps for 16), each taking its most loaded bank's count of words, the groups' passes added;
 * groups touching exactly the same words are served once (one double for all lanes: 1 pass). Unmeasured assumptions:
 * groups with different words never share a pass; that exception for 16 bytes. Inactive lanes (zero bits in `active`)
 * take no part; none active: 0 passes. A misaligned address or a width other than 1, 2, 4, 8, 16 returns -1. */
#ifndef COMMON_BANK_MODEL_H
#define COMMON_BANK_MODEL_H

enum { BANK_MODEL_BANKS = 32, BANK_MODEL_BANK_BYTES = 4, BANK_MODEL_WARP = 32 };

/* Passes taken by one group of lanes (first .. first + lanes - 1): the most distinct words any one bank holds. Writes
 * the group's distinct words, in ascending order, to words[] (at most 32: 128 bytes) and their count to *count. */
static inline int bank_group_passes(const unsigned int address[32], unsigned int active, int first, int lanes,
                                    int width, unsigned int words[32], int *count) {
    int n = 0;
    for (int lane = first; lane < first + lanes; ++lane) {
        if (!((active >> lane) & 1u)) continue;
        unsigned int lo = address[lane] / BANK_MODEL_BANK_BYTES;
        unsigned int hi = (address[lane] + (unsigned int)width - 1u) / BANK_MODEL_BANK_BYTES;
        for (unsigned int w = lo; w <= hi; ++w) { /* insert w, keeping words[] sorted and distinct */
            int i = 0;
            while (i < n && words[i] < w)
                ++i;
            if (i < n && words[i] == w) continue;
            for (int j = n++; j > i; --j)
                words[j] = words[j - 1];
            words[i] = w;
        }
    }
    *count = n;
    int in_bank[BANK_MODEL_BANKS] = {0}, passes = 0; /* distinct words in each bank */
    for (int i = 0; i < n; ++i) {
        const int in_this_bank = ++in_bank[words[i] % BANK_MODEL_BANKS];
        if (in_this_bank > passes) passes = in_this_bank;
    }
    return passes;
}

/* Passes for one warp-wide access: lane t touches `width` bytes at address[t] if bit t of `active` is set. */
static inline int bank_passes(const unsigned int address[32], unsigned int active, int width) {
    if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16) return -1;
    for (int lane = 0; lane < BANK_MODEL_WARP; ++lane)
        if (((active >> lane) & 1u) && address[lane] % (unsigned int)width != 0) return -1;
    int lanes = width <= BANK_MODEL_BANK_BYTES ? BANK_MODEL_WARP : BANK_MODEL_BANKS * BANK_MODEL_BANK_BYTES / width;
    unsigned int words[4][32]; /* each group's distinct words, for the broadcast exception */
    int counts[4];
    int groups = 0, passes = 0;
    for (int first = 0; first < BANK_MODEL_WARP; first += lanes) {
        int n = 0;
        int group = bank_group_passes(address, active, first, lanes, width, words[groups], &n);
        if (n == 0) continue; /* no active lane in this group */
        int same = 0;         /* an earlier group touched exactly these words: served with it */
        for (int g = 0; g < groups && !same; ++g) {
            same = counts[g] == n;
            for (int i = 0; same && i < n; ++i)
                same = words[g][i] == words[groups][i];
        }
        if (same) continue;
        counts[groups++] = n;
        passes += group;
    }
    return passes;
}

/* The lesson's pictures (plot.py --bank-maps draws each by name): the first line of this kernel and access, as printed
 * (and these passes, unless 0), gets it. A chapter's table ends with {NULL, NULL, NULL, 0}. */
typedef struct {
    const char *kernel, *access, *picture;
    int passes;
} bank_picture;

#ifdef __cplusplus /* a chapter: the C files (the runner, the unit test) take the rule alone */
#include "cli.h"
#ifdef CUDA_CPU_RUNNER
extern "C" void cuda_cpu_bank_model(const char *program, int argc, char **argv, const char *const *variants,
                                    const bank_picture *pictures, const char *tail, const char *root);
#ifndef BANK_MODEL_ROOT
#define BANK_MODEL_ROOT "."
#endif
#endif

/* The variants of a chapter that has both element types: --bank-model counts each. */
static const char *const bank_model_both_types[] = {" --type float", " --type double", NULL};

/* --bank-model: prints the table of what the chapter's real kernels did, as the CPU runner saw them, and exits. The GPU
 * program runs its CPU twin (PROGRAM_cpu, beside it); the twin runs itself once per variant (" OPTION VALUE": a
 * chapter's " --type double"; once as it is where the command gives that option), counting every shared-memory
 * instruction (cpu_runner/warp_accesses.c: the table; tail ends it). */
static inline void bank_model_observe(const char *program, int argc, char **argv, const char *const *variants,
                                      const bank_picture *pictures, const char *tail) {
#ifndef CUDA_CPU_RUNNER
    (void)argc, (void)variants, (void)pictures, (void)tail;
    cli_run_on_cpu_runner_(program, argv); /* the GPU program: its CPU twin answers */
#else
    cuda_cpu_bank_model(program, argc, argv, variants, pictures, tail, BANK_MODEL_ROOT);
#endif
}
#endif

#endif
