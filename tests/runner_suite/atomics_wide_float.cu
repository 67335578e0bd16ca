// atomics_wide_float: atomicAdd on unsigned long long, float and double in global memory (values
// whose sums are exact in any order), atomicMin/atomicMax/atomicCAS on unsigned long long and
// atomicExch on float. Correct.
// expect: clean
#include <stdio.h>

#define BLOCKS 2
#define THREADS 128

struct Totals {
    unsigned long long sum, min, max, cas;
    float fsum, fexch;
    double dsum;
};

__global__ void accumulate(Totals *t) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long big = (1ull << 40) + i;
    atomicAdd(&t->sum, big);
    atomicMin(&t->min, big * 3);
    atomicMax(&t->max, big * 3);
    unsigned long long old = 0, seen; /* a guess: atomicCAS corrects it */
    while ((seen = atomicCAS(&t->cas, old, old + i)) != old) old = seen;
    atomicAdd(&t->fsum, 0.25f * (float)(i % 8));
    atomicExch(&t->fexch, 2.5f);
    atomicAdd(&t->dsum, 0.125 * i);
}

int main() {
    Totals h = {0, ~0ull, 0, 0, 0.0f, 0.0f, 0.0};
    Totals *d;
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice);
    accumulate<<<BLOCKS, THREADS>>>(d);
    cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    unsigned long long n = BLOCKS * THREADS;
    int right = h.sum == n * (1ull << 40) + n * (n - 1) / 2 && h.min == 3 * (1ull << 40) &&
                h.max == 3 * ((1ull << 40) + n - 1) && h.cas == n * (n - 1) / 2 && h.fsum == 0.25f * 28 * (n / 8) &&
                h.fexch == 2.5f && h.dsum == 0.125 * (double)(n * (n - 1) / 2);
    printf("sum %llu min %llu max %llu cas %llu fsum %g fexch %g dsum %g\n", h.sum, h.min, h.max, h.cas, h.fsum,
           h.fexch, h.dsum);
    cudaFree(d);
    return right ? 0 : 1;
}
