/* Which pass serves each lane: what the CPU runner's bank pictures colour (cpu_runner/warp_accesses.c),
 * by common/bank_model.h's rule. Plain C, header-only. */
#ifndef CPU_RUNNER_BANK_LANES_H
#define CPU_RUNNER_BANK_LANES_H

#include "../common/bank_model.h"

/* Bits first .. first + count - 1 set: a group's lanes. */
static inline unsigned int bank_lanes_(int first, int count) { return (unsigned int)(((1ull << count) - 1) << first); }

/* Which pass serves each lane of one warp-wide access (0, 1, ...; -1 for an inactive lane), by
 * bank_passes()'s rule: in its group, a lane is served in pass k when its word is the k-th distinct
 * word of its bank (a 16-byte lane spans 4 banks; it counts its first word's), after the passes of
 * the groups before it, or, when an earlier group touched the same words, with that group. Returns
 * bank_passes() (-1: bad width or misaligned). This is what the bank pictures colour. */
static inline int bank_lane_passes(const unsigned int address[32], unsigned int active, int width,
                                   int pass_of_lane[32]) {
    const int passes = bank_passes(address, active, width);
    for (int lane = 0; lane < BANK_MODEL_WARP; ++lane)
        pass_of_lane[lane] = -1;
    int lanes = width <= BANK_MODEL_BANK_BYTES ? BANK_MODEL_WARP : BANK_MODEL_BANKS * BANK_MODEL_BANK_BYTES / width;
    for (int first = 0; passes >= 0 && first < BANK_MODEL_WARP; first += lanes) {
        const unsigned int group = active & bank_lanes_(first, lanes);
        int served = 0; /* the first group that touched these words: adding this one to it adds no pass */
        while (bank_passes(address, (active & bank_lanes_(served, lanes)) | group, width) !=
               bank_passes(address, active & bank_lanes_(served, lanes), width))
            served += lanes;
        const int base = bank_passes(address, active & bank_lanes_(0, served), width);
        unsigned int words[32];
        int n = 0;
        bank_group_passes(address, active, first, lanes, width, words, &n);
        for (int lane = first; lane < first + lanes; ++lane) {
            if (!((group >> lane) & 1u)) continue;
            const unsigned int word = address[lane] / BANK_MODEL_BANK_BYTES;
            int rank = 0; /* distinct words of the group in this word's bank, below it */
            for (int i = 0; i < n; ++i)
                rank += words[i] < word && words[i] % BANK_MODEL_BANKS == word % BANK_MODEL_BANKS;
            pass_of_lane[lane] = base + rank;
        }
    }
    return passes;
}

#endif
