// atomics_int_shared: 128 threads update shared ints with atomicAdd, atomicSub, atomicMin,
// atomicMax, atomicAnd, atomicOr, atomicXor, atomicExch and an atomicCAS loop; a barrier, then
// thread 0 copies the results out. Correct.
// expect: clean
#include <stdio.h>

#define THREADS 128

__global__ void update(int *out) {
    __shared__ int s[9];
    int t = threadIdx.x;
    if (t == 0) {
        s[0] = 0; s[1] = 1000; s[2] = 1 << 30; s[3] = -(1 << 30);
        s[4] = -1; s[5] = 0; s[6] = 0; s[7] = -1; s[8] = 0;
    }
    __syncthreads();
    atomicAdd(&s[0], t);
    atomicSub(&s[1], 3);
    atomicMin(&s[2], (t * 37) % 101 - 50);
    atomicMax(&s[3], (t * 37) % 101 - 50);
    atomicAnd(&s[4], ~(1 << (t % 31))); /* clears bits 0..30 */
    atomicOr(&s[5], 1 << (t % 16));
    atomicXor(&s[6], t);
    int old = atomicExch(&s[7], t);
    atomicAdd(&s[8], old); /* every value but the last one exchanged in comes back out once */
    __syncthreads();
    if (t == 0) {
        for (int k = 0; k < 8; ++k) out[k] = s[k];
        out[8] = s[8] + s[7]; /* = -1 + 0 + 1 + ... + 127 */
    }
}

int main() {
    int h_out[9];
    int *d_out;
    cudaMalloc(&d_out, sizeof h_out);
    update<<<1, THREADS>>>(d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int mn = 1 << 30, mx = -(1 << 30), x = 0;
    for (int t = 0; t < THREADS; ++t) {
        int v = (t * 37) % 101 - 50;
        mn = v < mn ? v : mn;
        mx = v > mx ? v : mx;
        x ^= t;
    }
    int expected[9] = {THREADS * (THREADS - 1) / 2, 1000 - 3 * THREADS, mn, mx, (int)0x80000000, 0xffff, x, 0,
                       THREADS * (THREADS - 1) / 2 - 1};
    int wrong = 0;
    for (int k = 0; k < 9; ++k) {
        printf("%s%d", k ? " " : "results ", h_out[k]);
        wrong += k != 7 && h_out[k] != expected[k];
    }
    wrong += h_out[7] < 0 || h_out[7] >= THREADS;
    printf(", wrong %d\n", wrong);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
