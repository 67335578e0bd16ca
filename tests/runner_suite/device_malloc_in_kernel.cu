// device_malloc_in_kernel: each thread takes scratch space from the device heap with malloc, fills it,
// sums it and frees it. Correct: nothing to report.
// expect: clean
#include <stdio.h>

#define THREADS 64

__global__ void sums(int *out) {
    int *scratch = (int *)malloc(8 * sizeof(int));
    if (!scratch) return;
    for (int i = 0; i < 8; ++i) scratch[i] = (int)threadIdx.x + i;
    int sum = 0;
    for (int i = 0; i < 8; ++i) sum += scratch[i];
    out[threadIdx.x] = sum;
    free(scratch);
}

int main() {
    int h[THREADS], *d;
    cudaMalloc(&d, sizeof h);
    sums<<<1, THREADS>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int t = 0; t < THREADS; ++t) wrong += h[t] != 8 * t + 28;
    printf("out[0] %d, out[63] %d, wrong %d\n", h[0], h[THREADS - 1], wrong);
    cudaFree(d);
    return wrong ? 1 : 0;
}
