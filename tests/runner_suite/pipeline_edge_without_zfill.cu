// pipeline_edge_without_zfill: pipeline_double_buffer copying 16 bytes a thread on the partial last tile
// too, with no zfill: the last block's copies read past the end of the array.
// expect: exit=1 finding="global memory access out of bounds" line=8
#include "pipeline_tiles.cuh"

__device__ void load_tile(float *tile, const float *part, int k) {
    const int first = k * TILE + 4 * threadIdx.x;
    __pipeline_memcpy_async(tile + 4 * threadIdx.x, part + first, 16);
}

__global__ void tiled_sum(const float *in, float *out) {
    __shared__ __align__(16) float tile[2][TILE];
    const float *part = in + blockIdx.x * STRIDE;
    const int tiles = (N + TILE - 1) / TILE, t = threadIdx.x;
    float sum = 0.0f;
    load_tile(tile[0], part, 0);
    __pipeline_commit();
    for (int k = 0; k < tiles; ++k) {
        if (k + 1 < tiles) load_tile(tile[(k + 1) % 2], part, k + 1);
        __pipeline_commit();     // a batch every iteration (empty at the end): wait_prior(1) is always right
        __pipeline_wait_prior(1); // tile k has landed; only tile k + 1 may still be in flight
        __syncthreads();          // and every thread's part of it
        for (int j = 0; j < 4; ++j) sum += tile[k % 2][TILE - 1 - 4 * t - j]; // another thread's floats
        __syncthreads();          // every thread has read tile k before the next copy into it
    }
    out[blockIdx.x * THREADS + t] = sum;
}

int main() {
    float *d_in, *d_out;
    tiled_arrays(&d_in, &d_out);
    tiled_sum<<<BLOCKS, THREADS>>>(d_in, d_out);
    return tiled_check(d_in, d_out);
}
