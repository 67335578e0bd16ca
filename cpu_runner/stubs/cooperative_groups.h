/* Cooperative groups on the CPU runner (cpu_runner/cuda_on_cpu.h is included before this): the
 * thread block, its tiles of 32 threads or fewer, coalesced groups, with the toolkit's semantics
 * (cuda/include/cooperative_groups.h: a tile's operations are the warp operations on the tile's
 * lanes, with the tile's width). Every operation is a warp operation or a barrier of the runner, so
 * its findings (a lane that exited, a divergent barrier) name the line that called it.
 *
 * Not modelled, and a build error naming it where used: grid_group::sync() (the blocks run one
 * after another here, so a grid-wide barrier would wait forever), clusters (this_cluster()), tiles of more
 * than 32 threads. */
#ifndef CUDA_CPU_COOPERATIVE_GROUPS_H
#define CUDA_CPU_COOPERATIVE_GROUPS_H

#include <type_traits>

#define CUDA_CPU_WHERE const char *file = __builtin_FILE(), int line = __builtin_LINE()

namespace cooperative_groups {

namespace details {
/* Any value (a struct too) through the runner's shuffle, 8 bytes at a time. */
template <typename T>
CUDA_CPU_QUIET T shuffle(int kind, unsigned mask, T value, int lane_argument, int width, const char *file, int line) {
    static_assert(std::is_trivially_copyable<T>::value, "a shuffled value is copied bit for bit");
    unsigned long long pieces[(sizeof(T) + 7) / 8] = {};
    __builtin_memcpy(pieces, &value, sizeof(T));
    for (unsigned i = 0; i < sizeof pieces / 8; ++i)
        pieces[i] = cuda_cpu_shfl(mask, pieces[i], kind, lane_argument, width, file, line);
    __builtin_memcpy(&value, pieces, sizeof(T));
    return value;
}
/* The n-th (from 0) set bit of mask, 32 if none. */
CUDA_CPU_QUIET unsigned nth_lane(unsigned mask, unsigned n) {
    for (unsigned lane = 0; lane < 32; ++lane)
        if ((mask >> lane & 1) && n-- == 0) return lane;
    return 32;
}
/* The bits of mask's lanes, renumbered by rank (lane k of the mask becomes bit k). */
CUDA_CPU_QUIET unsigned pack(unsigned bits, unsigned mask) {
    unsigned packed = 0, rank = 0;
    for (unsigned lane = 0; lane < 32; ++lane)
        if (mask >> lane & 1) packed |= (bits >> lane & 1) << rank++;
    return packed;
}
CUDA_CPU_QUIET void refuse(const char *what, const char *file, int line) {
    fflush(stdout);
    printf("CPU runner: %s at %s:%d: a GPU stops the kernel (an invalid argument). Exit 3.\n", what, file, line);
    fflush(stdout);
    _exit(3);
}
enum group_type { coalesced_group_id = 1, thread_block_id = 4, grid_group_id = 2 };
} // namespace details

/* What every group can do: its size, the caller's rank, a barrier over its threads. A tile or a
 * coalesced group is a set of lanes of the caller's warp (mask). */
class thread_group {
  protected:
    unsigned type_, mask_, size_, rank_, meta_rank_, meta_size_;
    thread_group(unsigned type, unsigned mask, unsigned size, unsigned rank, unsigned meta_rank = 0,
                 unsigned meta_size = 1)
        : type_(type), mask_(mask), size_(size), rank_(rank), meta_rank_(meta_rank), meta_size_(meta_size) {}

  public:
    unsigned long long size() const { return size_; }
    unsigned long long num_threads() const { return size_; }
    unsigned long long thread_rank() const { return rank_; }
    unsigned get_type() const { return type_; }
    bool is_valid() const { return true; }
    void sync(CUDA_CPU_WHERE) const {
        if (type_ == details::grid_group_id)
            details::refuse("grid.sync() (a grid_group as a thread_group) is not modelled by the CPU runner", file, line);
        if (type_ == details::thread_block_id)
            cuda_cpu_syncthreads(file, line);
        else
            cuda_cpu_syncwarp(mask_, file, line);
    }
    unsigned _mask() const { return mask_; }
};

/* The block: its barrier is __syncthreads(). */
class thread_block : public thread_group {
    friend thread_block this_thread_block();
    thread_block()
        : thread_group(details::thread_block_id, 0xffffffffu,
                       cuda_cpu_blockDim.x * cuda_cpu_blockDim.y * cuda_cpu_blockDim.z, cuda_cpu_thread_rank()) {}

  public:
    static constexpr unsigned _group_id = details::thread_block_id;
    void sync(CUDA_CPU_WHERE) const { cuda_cpu_syncthreads(file, line); }
    unsigned size() const { return size_; }
    unsigned num_threads() const { return size_; }
    unsigned thread_rank() const { return cuda_cpu_thread_rank(); }
    dim3 group_index() const { return dim3(cuda_cpu_blockIdx.x, cuda_cpu_blockIdx.y, cuda_cpu_blockIdx.z); }
    dim3 thread_index() const { return dim3(cuda_cpu_threadIdx.x, cuda_cpu_threadIdx.y, cuda_cpu_threadIdx.z); }
    dim3 group_dim() const { return cuda_cpu_blockDim; }
    dim3 dim_threads() const { return cuda_cpu_blockDim; }
};
inline thread_block this_thread_block() { return thread_block(); }

/* The grid: its ranks and sizes are known; its barrier is not modelled (the runner runs one block
 * after another, so grid.sync() would wait for blocks that have not started). */
class grid_group : public thread_group {
    friend grid_group this_grid();
    grid_group()
        : thread_group(details::grid_group_id, 0xffffffffu, 0, 0) {}

  public:
    bool is_valid() const { return false; } /* no cooperative launch here */
    void sync(CUDA_CPU_WHERE) const __attribute__((error(
        "grid_group::sync() (grid.sync()) is not modelled by the CPU runner: its blocks run one after another")));
    static unsigned long long num_blocks() { return (unsigned long long)cuda_cpu_gridDim.x * cuda_cpu_gridDim.y * cuda_cpu_gridDim.z; }
    static unsigned long long block_rank() {
        return cuda_cpu_blockIdx.x + (unsigned long long)cuda_cpu_gridDim.x * (cuda_cpu_blockIdx.y + (unsigned long long)cuda_cpu_gridDim.y * cuda_cpu_blockIdx.z);
    }
    static dim3 block_index() { return dim3(cuda_cpu_blockIdx.x, cuda_cpu_blockIdx.y, cuda_cpu_blockIdx.z); }
    static dim3 dim_blocks() { return cuda_cpu_gridDim; }
    static dim3 group_dim() { return dim3(cuda_cpu_gridDim.x * cuda_cpu_blockDim.x, cuda_cpu_gridDim.y * cuda_cpu_blockDim.y, cuda_cpu_gridDim.z * cuda_cpu_blockDim.z); }
    static dim3 dim_threads() { return group_dim(); }
    static unsigned long long num_threads() { return num_blocks() * cuda_cpu_blockDim.x * cuda_cpu_blockDim.y * cuda_cpu_blockDim.z; }
    static unsigned long long size() { return num_threads(); }
    static unsigned long long thread_rank() {
        return block_rank() * cuda_cpu_blockDim.x * cuda_cpu_blockDim.y * cuda_cpu_blockDim.z + cuda_cpu_thread_rank();
    }
    static dim3 thread_index() {
        return dim3(cuda_cpu_blockIdx.x * cuda_cpu_blockDim.x + cuda_cpu_threadIdx.x, cuda_cpu_blockIdx.y * cuda_cpu_blockDim.y + cuda_cpu_threadIdx.y,
                    cuda_cpu_blockIdx.z * cuda_cpu_blockDim.z + cuda_cpu_threadIdx.z);
    }
};
inline grid_group this_grid() { return grid_group(); }
/* A cluster: this_cluster() stops the build with one line; its members are declared, so that nothing else does. */
struct cluster_group {
    void sync() const;
    void barrier_wait() const;
    unsigned long long barrier_arrive() const;
    void barrier_wait(unsigned long long token) const;
    unsigned block_rank() const;
    unsigned num_blocks() const;
    unsigned long long num_threads() const;
    unsigned long long size() const;
    unsigned long long thread_rank() const;
    dim3 block_index() const;
    dim3 dim_blocks() const;
    dim3 dim_threads() const;
    dim3 thread_index() const;
    template <typename T> T *map_shared_rank(T *address, int rank) const;
    template <typename T> T &map_shared_rank(T &address, int rank) const;
    unsigned query_shared_rank(const void *address) const;
    static bool is_valid();
};
cluster_group this_cluster() __attribute__((error(CUDA_CPU_NEEDS_SM90 " (cooperative_groups::this_cluster())")));

/* A set of lanes of one warp: coalesced_threads(), a dynamic tiled_partition, a labeled partition. Its
 * ranks count its lanes in order; its shuffles take a rank. */
class coalesced_group : public thread_group {
  public:
    coalesced_group(unsigned mask, unsigned meta_rank = 0, unsigned meta_size = 1)
        : thread_group(details::coalesced_group_id, mask, __popc(mask),
                       __popc(mask & ((1u << cuda_cpu_lane()) - 1u)), meta_rank, meta_size) {}
    static constexpr unsigned _group_id = details::coalesced_group_id;
    unsigned size() const { return size_; }
    unsigned num_threads() const { return size_; }
    unsigned thread_rank() const { return rank_; }
    unsigned meta_group_rank() const { return meta_rank_; }
    unsigned meta_group_size() const { return meta_size_; }
    void sync(CUDA_CPU_WHERE) const { cuda_cpu_syncwarp(mask_, file, line); }
    template <typename T> T shfl(T value, unsigned rank, CUDA_CPU_WHERE) const {
        return details::shuffle(CUDA_CPU_SHFL_IDX, mask_, value, (int)details::nth_lane(mask_, rank), 32, file, line);
    }
    /* A rank past the group's ends reads the caller's own value (the toolkit's rule). */
    template <typename T> T shfl_down(T value, unsigned delta, CUDA_CPU_WHERE) const {
        const unsigned lane = rank_ + delta < size_ ? details::nth_lane(mask_, rank_ + delta) : cuda_cpu_lane();
        return details::shuffle(CUDA_CPU_SHFL_IDX, mask_, value, (int)lane, 32, file, line);
    }
    template <typename T> T shfl_up(T value, unsigned delta, CUDA_CPU_WHERE) const {
        const unsigned lane = delta <= rank_ ? details::nth_lane(mask_, rank_ - delta) : cuda_cpu_lane();
        return details::shuffle(CUDA_CPU_SHFL_IDX, mask_, value, (int)lane, 32, file, line);
    }
    int any(int predicate, CUDA_CPU_WHERE) const { return __ballot_sync(mask_, predicate, file, line) != 0; }
    int all(int predicate, CUDA_CPU_WHERE) const { return __ballot_sync(mask_, predicate, file, line) == mask_; }
    unsigned ballot(int predicate, CUDA_CPU_WHERE) const {
        return details::pack(__ballot_sync(mask_, predicate, file, line), mask_);
    }
    template <typename T> unsigned match_any(T value, CUDA_CPU_WHERE) const {
        return details::pack(__match_any_sync(mask_, value, file, line), mask_);
    }
    template <typename T> unsigned match_all(T value, int &predicate, CUDA_CPU_WHERE) const {
        return details::pack(__match_all_sync(mask_, value, &predicate, file, line), mask_);
    }
};
/* The lanes of the caller's warp that are here together (__activemask()). */
inline coalesced_group coalesced_threads(CUDA_CPU_WHERE) { return coalesced_group(__activemask(file, line)); }

/* A tile of Size (1 to 32, a power of 2) consecutive threads of the block, within one warp. */
template <unsigned Size, typename ParentT = void> class thread_block_tile;
template <unsigned Size> class thread_block_tile<Size, void> : public thread_group {
    static_assert(Size <= 32, "cooperative_groups: a thread_block_tile of more than 32 threads is not modelled by the CPU runner");
    static_assert(Size > 0 && (Size & (Size - 1)) == 0, "Size must be one of 1/2/4/8/16/32");
    static unsigned tile_mask() {
        return Size == 32 ? 0xffffffffu : ((1u << Size) - 1u) << (cuda_cpu_lane() & ~(Size - 1u));
    }

  protected:
    thread_block_tile(unsigned meta_rank, unsigned meta_size)
        : thread_group(details::coalesced_group_id, tile_mask(), Size, cuda_cpu_thread_rank() & (Size - 1u), meta_rank,
                       meta_size) {}
    template <unsigned, typename> friend class thread_block_tile;

  public:
    static constexpr unsigned _group_id = details::coalesced_group_id;
    static constexpr unsigned num_threads() { return Size; }
    static constexpr unsigned size() { return Size; }
    unsigned thread_rank() const { return rank_; }
    unsigned meta_group_rank() const { return meta_rank_; }
    unsigned meta_group_size() const { return meta_size_; }
    unsigned get_mask() const { return mask_; } /* (the toolkit's name, not documented) */
    void sync(CUDA_CPU_WHERE) const { cuda_cpu_syncwarp(mask_, file, line); }
    template <typename T> T shfl(T value, int rank, CUDA_CPU_WHERE) const {
        return details::shuffle(CUDA_CPU_SHFL_IDX, mask_, value, rank, Size, file, line);
    }
    template <typename T> T shfl_down(T value, unsigned delta, CUDA_CPU_WHERE) const {
        return details::shuffle(CUDA_CPU_SHFL_DOWN, mask_, value, (int)delta, Size, file, line);
    }
    template <typename T> T shfl_up(T value, unsigned delta, CUDA_CPU_WHERE) const {
        return details::shuffle(CUDA_CPU_SHFL_UP, mask_, value, (int)delta, Size, file, line);
    }
    template <typename T> T shfl_xor(T value, unsigned lane_mask, CUDA_CPU_WHERE) const {
        return details::shuffle(CUDA_CPU_SHFL_XOR, mask_, value, (int)lane_mask, Size, file, line);
    }
    int any(int predicate, CUDA_CPU_WHERE) const { return __ballot_sync(mask_, predicate, file, line) != 0; }
    int all(int predicate, CUDA_CPU_WHERE) const { return __ballot_sync(mask_, predicate, file, line) == mask_; }
    /* Bit k: the tile's thread of rank k. */
    unsigned ballot(int predicate, CUDA_CPU_WHERE) const {
        return __ballot_sync(mask_, predicate, file, line) >> (cuda_cpu_lane() & ~(Size - 1u));
    }
    template <typename T> unsigned match_any(T value, CUDA_CPU_WHERE) const {
        return __match_any_sync(mask_, value, file, line) >> (cuda_cpu_lane() & ~(Size - 1u));
    }
    template <typename T> unsigned match_all(T value, int &predicate, CUDA_CPU_WHERE) const {
        return __match_all_sync(mask_, value, &predicate, file, line) >> (cuda_cpu_lane() & ~(Size - 1u));
    }
};
/* The tile as tiled_partition returns it, knowing its parent's type; it converts to thread_block_tile<Size>. */
template <unsigned Size, typename ParentT> class thread_block_tile : public thread_block_tile<Size, void> {
  public:
    thread_block_tile(unsigned meta_rank, unsigned meta_size) : thread_block_tile<Size, void>(meta_rank, meta_size) {}
};

template <unsigned Size> thread_block_tile<Size, thread_block> tiled_partition(const thread_block &parent) {
    return thread_block_tile<Size, thread_block>(parent.thread_rank() / Size, (parent.size() + Size - 1) / Size);
}
template <unsigned Size, unsigned ParentSize, typename GrandParent>
thread_block_tile<Size, thread_block_tile<ParentSize, GrandParent>>
tiled_partition(const thread_block_tile<ParentSize, GrandParent> &parent) {
    static_assert(Size <= ParentSize, "a tile's tiles are no larger than it");
    return thread_block_tile<Size, thread_block_tile<ParentSize, GrandParent>>(parent.thread_rank() / Size,
                                                                              ParentSize / Size);
}
inline thread_block_tile<1, void> this_thread() { return tiled_partition<1>(this_thread_block()); }

/* tiled_partition(parent, n): n a power of 2 up to 32, as the toolkit requires (it traps otherwise). */
inline thread_group tiled_partition(const thread_group &parent, unsigned n, CUDA_CPU_WHERE) {
    if (n == 0 || n > 32 || (n & (n - 1)))
        details::refuse("tiled_partition(group, n) with n not a power of 2 from 1 to 32", file, line);
    const unsigned rank = (unsigned)parent.thread_rank(), size = (unsigned)parent.size();
    const unsigned first = rank & ~(n - 1), count = size - first < n ? size - first : n;
    unsigned mask;
    if (parent.get_type() == details::thread_block_id) {
        mask = (0xffffffffu >> (32 - count)) << (cuda_cpu_lane() & ~(n - 1));
    } else { /* the lanes of ranks first to first + count - 1 of the parent's */
        mask = 0;
        for (unsigned r = first; r < first + count; ++r)
            mask |= 1u << details::nth_lane(parent._mask(), r);
    }
    return coalesced_group(mask, rank / n, (size + n - 1) / n);
}
inline coalesced_group tiled_partition(const coalesced_group &parent, unsigned n, CUDA_CPU_WHERE) {
    const thread_group g = tiled_partition(static_cast<const thread_group &>(parent), n, file, line);
    return coalesced_group(g._mask(), parent.thread_rank() / n, (parent.size() + n - 1) / n);
}
inline thread_group tiled_partition(const thread_block &parent, unsigned n, CUDA_CPU_WHERE) {
    return tiled_partition(static_cast<const thread_group &>(parent), n, file, line);
}

/* The group's threads split by a label: those with the caller's label. */
template <typename Group, typename Label> coalesced_group labeled_partition(const Group &group, Label label, CUDA_CPU_WHERE) {
    return coalesced_group(__match_any_sync(group._mask(), label, file, line) & group._mask());
}
template <typename Group> coalesced_group binary_partition(const Group &group, bool predicate, CUDA_CPU_WHERE) {
    return labeled_partition(group, (int)predicate, file, line);
}

template <typename Group> void sync(const Group &group, CUDA_CPU_WHERE) { group.sync(file, line); }
template <typename Group> auto thread_rank(const Group &group) -> decltype(group.thread_rank()) { return group.thread_rank(); }
template <typename Group> auto group_size(const Group &group) -> decltype(group.num_threads()) { return group.num_threads(); }

} // namespace cooperative_groups

#endif
