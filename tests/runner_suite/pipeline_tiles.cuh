// The host side of tests/runner_suite/pipeline_*.cu: three blocks of 64 threads, each summing its
// part of an array (N floats, parts STRIDE floats apart, the last one ending the allocation) tile by
// tile with asynchronous copies; each thread adds 4 floats of every tile that another thread copied.
// The sums are checked against the CPU's (exact: small integers in float). Exit 1 when one differs.
#include <cuda_pipeline.h>
#include <stdio.h>

#define THREADS 64
#define TILE (4 * THREADS) // floats: 16 bytes per thread
#define N 1001             // per block: 3 full tiles and 233 floats
#define STRIDE 1024        // between the blocks' parts (16-byte aligned)

#define BLOCKS 3

static float h_in[(BLOCKS - 1) * STRIDE + N]; // the last part ends the array

// The input on the device, and room for the sums (each .cu launches its kernel itself: the CPU runner
// rewrites the launches of the .cu, not of the headers beside it).
static void tiled_arrays(float **d_in, float **d_out) {
    for (int i = 0; i < (BLOCKS - 1) * STRIDE + N; ++i) h_in[i] = (float)(i % 17);
    cudaMalloc(d_in, sizeof h_in);
    cudaMalloc(d_out, BLOCKS * THREADS * sizeof(float));
    cudaMemcpy(*d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
}

static int tiled_check(float *d_in, float *d_out) {
    static float h_out[BLOCKS * THREADS];
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int b = 0; b < BLOCKS; ++b)
        for (int t = 0; t < THREADS; ++t) {
            float expected = 0.0f;
            for (int k = 0; k * TILE < N; ++k)
                for (int j = 0; j < 4; ++j) {
                    const int i = k * TILE + TILE - 1 - 4 * t - j;
                    expected += i < N ? h_in[b * STRIDE + i] : 0.0f;
                }
            wrong += h_out[b * THREADS + t] != expected;
        }
    printf("block 0 thread 0 %g, block 2 thread 63 %g, wrong %d of %d\n", h_out[0], h_out[BLOCKS * THREADS - 1],
           wrong, BLOCKS * THREADS);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
