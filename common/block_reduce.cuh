/* Device-side building blocks for sums, shared by ch05_dot and ch08_reduce once
 * they go past the books' kernels (the books' halving trees stay written out in
 * each example: they are the lesson). Templates over the element type only;
 * everything is inline, so any number of .cu files may include this. */
#ifndef COMMON_BLOCK_REDUCE_CUH
#define COMMON_BLOCK_REDUCE_CUH

/* Dynamic shared memory (extern __shared__, sized by the third <<<>>> launch
 * parameter) viewed as the element type. One untyped array: an extern
 * __shared__ array declared with two element types (the float and double
 * instantiations of one kernel) would not compile. */
template <typename real> __device__ __forceinline__ real *dynamic_shared() {
    extern __shared__ __align__(16) unsigned char s_bytes[];
    return reinterpret_cast<real *>(s_bytes);
}

/* 16-byte vector of the element type: one load instruction moves 16 bytes. */
template <typename real> struct vector16;
template <> struct vector16<float> {
    typedef float4 type;
    static const int width = 4;
};
template <> struct vector16<double> {
    typedef double2 type;
    static const int width = 2;
};
__device__ __forceinline__ float sum_of_lanes(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ __forceinline__ double sum_of_lanes(double2 v) { return v.x + v.y; }
__device__ __forceinline__ float sum_of_products(float4 x, float4 y) {
    return (x.x * y.x + x.y * y.y) + (x.z * y.z + x.w * y.w);
}
__device__ __forceinline__ double sum_of_products(double2 x, double2 y) { return x.x * y.x + x.y * y.y; }

/* Sum over the 32 lanes of a warp through register shuffles: no shared memory,
 * no barrier. Since Volta the _sync form and its full mask are required. The
 * total ends up in lane 0. */
template <typename real> __device__ __forceinline__ real warp_sum(real value) {
    for (int offset = 16; offset > 0; offset /= 2)
        value += __shfl_down_sync(0xffffffffu, value, offset);
    return value;
}

/* Sum over a whole block (blockDim.x a multiple of 32, at most 1024): each warp
 * shuffles, warp leaders meet in shared memory, warp 0 shuffles again. The
 * total is valid in thread 0. Call it from every thread of the block. */
template <typename real> __device__ __forceinline__ real block_sum(real value) {
    __shared__ real s_warp_sums[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    value = warp_sum(value);
    __syncthreads(); /* s_warp_sums may still be read by an earlier call */
    if (lane == 0) s_warp_sums[warp] = value;
    __syncthreads();
    if (warp == 0) {
        value = lane < (int)(blockDim.x / 32) ? s_warp_sums[lane] : (real)0;
        value = warp_sum(value);
    }
    return value;
}

/* "Last block finishes": thread 0 stores its block's partial sum and takes a
 * ticket; the block that takes the last ticket knows every partial is stored
 * and returns true in all its threads, so one launch can end in one number.
 * The fence makes the partial visible to the other blocks before the ticket is
 * taken. The last block must reset *blocks_done to 0 for the next launch. */
template <typename real>
__device__ __forceinline__ bool store_partial_and_check_last(real block_total, real *partials,
                                                             unsigned int *blocks_done) {
    __shared__ bool s_is_last_block;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = block_total;
        __threadfence();
        s_is_last_block = atomicAdd(blocks_done, 1u) == gridDim.x - 1;
        /* The matching fence on the reading side: the last block's reads of
         * the partials are ordered after the ticket that proved them stored. */
        if (s_is_last_block) __threadfence();
    }
    __syncthreads();
    return s_is_last_block;
}

/* In the last block: this thread's share of the partials. __ldcg reads through
 * L2, where the other blocks' stores are, never a stale L1 line. */
template <typename real> __device__ __forceinline__ real sum_my_partials(const real *partials, unsigned int count) {
    real sum = 0;
    for (unsigned int i = threadIdx.x; i < count; i += blockDim.x)
        sum += __ldcg(&partials[i]);
    return sum;
}

#endif
