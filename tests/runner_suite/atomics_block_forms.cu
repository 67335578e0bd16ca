// atomics_block_forms: the _block atomics (atomicAdd_block on int and float, atomicMax_block,
// atomicMin_block, atomicInc_block, atomicOr_block, atomicExch_block, atomicCAS_block) on shared
// memory, then each block's results merged with atomicAdd_system into global memory. Correct.
// expect: clean
#include <stdio.h>

#define BLOCKS 3
#define THREADS 96

__global__ void per_block(int *out) {
    __shared__ int s[6];
    __shared__ unsigned s_inc;
    __shared__ float s_f;
    int t = threadIdx.x;
    if (t == 0) {
        s[0] = 0; s[1] = -1000; s[2] = 1000; s[3] = 0; s[4] = 0; s[5] = 0;
        s_inc = 0;
        s_f = 0.0f;
    }
    __syncthreads();
    atomicAdd_block(&s[0], t);
    atomicMax_block(&s[1], t % 50);
    atomicMin_block(&s[2], t % 50 - 7);
    atomicOr_block(&s[3], 1 << (t % 8));
    atomicExch_block(&s[4], 1);
    if (t == 5) atomicCAS_block(&s[5], 0, 42);
    atomicInc_block(&s_inc, 31u); /* 96 increments wrapping at 31: ends at 0 */
    atomicAdd_block(&s_f, 0.5f);
    __syncthreads();
    if (t == 0) {
        for (int k = 0; k < 6; ++k) atomicAdd_system(&out[k], s[k]);
        atomicAdd_system(&out[6], (int)s_inc);
        atomicAdd_system(&out[7], (int)s_f);
    }
}

int main() {
    int h[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int *d;
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    per_block<<<BLOCKS, THREADS>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int expected[8] = {BLOCKS * THREADS * (THREADS - 1) / 2, BLOCKS * 49, BLOCKS * -7, BLOCKS * 255, BLOCKS,
                       BLOCKS * 42, 0, BLOCKS * THREADS / 2};
    int wrong = 0;
    for (int k = 0; k < 8; ++k) {
        printf("%s%d", k ? " " : "results ", h[k]);
        wrong += h[k] != expected[k];
    }
    printf(", wrong %d\n", wrong);
    cudaFree(d);
    return wrong ? 1 : 0;
}
