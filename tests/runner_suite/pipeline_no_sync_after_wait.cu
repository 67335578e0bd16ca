// pipeline_no_sync_after_wait: pipeline_double_buffer without the __syncthreads() between the wait and
// the reads: __pipeline_wait_prior lands only the calling thread's own copies, so a thread reads another's
// bytes of the tile with no barrier after that thread's wait.
// expect: exit=1 finding="race on shared memory: a thread reads what another thread wrote" line=25
// expect: exit=1 finding="race on shared memory: a thread reads what another thread wrote" line=11
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
