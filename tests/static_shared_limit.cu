/* The 48 KB limit of static shared memory (the Programming Guide; Fan ch. 8), as the compiler
 * enforces it: a block's static __shared__ arrays may hold 48 KB (0xc000 bytes) and not one
 * float more. Built by the host tests static_shared_48kb_builds and static_shared_past_48kb_refused
 * (nvcc alone, no GPU); the second defines PAST_THE_LIMIT and expects ptxas to refuse it with
 * "uses too much shared data (0xc004 bytes, 0xc000 max)". Past 48 KB a block needs dynamic shared
 * memory and the opt-in, cudaFuncSetAttribute (ch08_banks, part capacity). */
#ifdef PAST_THE_LIMIT
#define SHARED_FLOATS (48 * 1024 / 4 + 1)
#else
#define SHARED_FLOATS (48 * 1024 / 4)
#endif

__global__ void reverse_in_shared(const float *in, float *out) {
    __shared__ float s_values[SHARED_FLOATS];
    for (int i = threadIdx.x; i < SHARED_FLOATS; i += blockDim.x)
        s_values[i] = in[i];
    __syncthreads();
    for (int i = threadIdx.x; i < SHARED_FLOATS; i += blockDim.x)
        out[i] = s_values[SHARED_FLOATS - 1 - i];
}
