/* cg::reduce on the CPU runner, in the order of operations of the toolkit's
 * (cuda/include/cooperative_groups/details/coalesced_reduce.h), so a float sum has the GPU's bits:
 * - a thread_block_tile<N>: the butterfly, out = op(out, shfl_xor(out, m)) for m = N/2 down to 1
 *   (every lane ends with the same value; on sm_80+ the GPU adds 32-bit integers with redux.sync,
 *   whose result is the same);
 * - a coalesced_group of 32 lanes: the same butterfly; of fewer: an inclusive scan over its ranks
 *   (at step i, rank r >= i takes op(out, value of rank r - i)), the last rank's value to all. */
#ifndef CUDA_CPU_COOPERATIVE_GROUPS_REDUCE_H
#define CUDA_CPU_COOPERATIVE_GROUPS_REDUCE_H

#include "../cooperative_groups.h"

namespace cooperative_groups {

template <typename T> struct plus { T operator()(const T &a, const T &b) const { return a + b; } };
template <typename T> struct less { T operator()(const T &a, const T &b) const { return b < a ? b : a; } };
template <typename T> struct greater { T operator()(const T &a, const T &b) const { return a < b ? b : a; } };
template <typename T> struct bit_and { T operator()(const T &a, const T &b) const { return a & b; } };
template <typename T> struct bit_or { T operator()(const T &a, const T &b) const { return a | b; } };
template <typename T> struct bit_xor { T operator()(const T &a, const T &b) const { return a ^ b; } };

template <typename T, typename Op, unsigned Size, typename ParentT>
auto reduce(const thread_block_tile<Size, ParentT> &group, T value, Op &&op, CUDA_CPU_WHERE) -> decltype(op(value, value)) {
    auto out = value;
    for (unsigned mask = Size >> 1; mask > 0; mask >>= 1)
        out = op(out, group.shfl_xor(out, mask, file, line));
    return out;
}

template <typename T, typename Op>
auto reduce(const coalesced_group &group, T value, Op &&op, CUDA_CPU_WHERE) -> decltype(op(value, value)) {
    const unsigned mask = group._mask(), rank = group.thread_rank(), size = group.size();
    auto out = value;
    if (size == 32) {
        for (unsigned m = 16; m > 0; m >>= 1)
            out = op(out, details::shuffle(CUDA_CPU_SHFL_XOR, mask, out, (int)m, 32, file, line));
        return out;
    }
    for (unsigned i = 1; i < size; i <<= 1) {
        const unsigned source = i <= rank ? details::nth_lane(mask, rank - i) : cuda_cpu_lane();
        auto other = details::shuffle(CUDA_CPU_SHFL_IDX, mask, out, (int)source, 32, file, line);
        if (i <= rank) out = op(out, other);
    }
    return details::shuffle(CUDA_CPU_SHFL_IDX, mask, out, (int)(31 - __clz((int)mask)), 32, file, line);
}

} // namespace cooperative_groups

#endif
