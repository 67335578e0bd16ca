// pipeline_double_buffer: each block sums its part of an array tile by tile, two tiles in flight:
// tile k + 1's asynchronous copies (__pipeline_memcpy_async, 16 bytes a thread) are issued before
// tile k is read; __pipeline_wait_prior(1) lands tile k, __syncthreads() lets every thread read the
// others' bytes of it, the barrier after the reads lets the next copy overwrite it. The last tile
// is partial: zfill writes zeros past the end. Exact: small integers in float.
// expect: clean
#include "pipeline_tiles.cuh"

__device__ void load_tile(float *tile, const float *part, int k) {
    const int first = k * TILE + 4 * threadIdx.x;
    const int valid = first >= N ? 0 : N - first < 4 ? N - first : 4;
    __pipeline_memcpy_async(tile + 4 * threadIdx.x, part + (valid ? first : 0), 16, 16 - 4 * valid);
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
