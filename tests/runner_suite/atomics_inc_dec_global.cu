// atomics_inc_dec_global: 100 threads of 4 blocks (400) on unsigned global counters: atomicInc
// wrapping at 9, atomicDec wrapping at 9, atomicAdd, atomicMin and atomicMax. Correct.
// expect: clean
#include <stdio.h>

#define BLOCKS 4
#define THREADS 100

__global__ void count(unsigned *c) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicInc(&c[0], 9u);        /* 0,1,...,9,0,...: 400 increments end at 0 */
    atomicDec(&c[1], 9u);        /* from 5: 4,...,0,9,8,...: 400 decrements end at 5 */
    atomicAdd(&c[2], i);
    atomicMin(&c[3], i * 7919u % 1000u + 3u);
    atomicMax(&c[4], i * 7919u % 1000u + 3u);
}

int main() {
    unsigned h_c[5] = {0, 5, 0, 0xffffffffu, 0};
    unsigned *d_c;
    cudaMalloc(&d_c, sizeof h_c);
    cudaMemcpy(d_c, h_c, sizeof h_c, cudaMemcpyHostToDevice);
    count<<<BLOCKS, THREADS>>>(d_c);
    cudaMemcpy(h_c, d_c, sizeof h_c, cudaMemcpyDeviceToHost);
    unsigned n = BLOCKS * THREADS, mn = 0xffffffffu, mx = 0;
    for (unsigned i = 0; i < n; ++i) {
        unsigned v = i * 7919u % 1000u + 3u;
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
    }
    printf("inc %u dec %u add %u min %u max %u\n", h_c[0], h_c[1], h_c[2], h_c[3], h_c[4]);
    cudaFree(d_c);
    return h_c[0] == 0 && h_c[1] == 5 && h_c[2] == n * (n - 1) / 2 && h_c[3] == mn && h_c[4] == mx ? 0 : 1;
}
