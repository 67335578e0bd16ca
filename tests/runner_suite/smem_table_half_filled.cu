// smem_table_half_filled: a 64-entry lookup table in shared memory that only the first warp
// fills (one entry per lane), then every thread of the 64 looks up entry 63 - t: the second half
// of the table was never written. No GPU tool reports it (initcheck checks global memory only).
// expect: exit=1 finding="read of shared memory that no thread of this block wrote" line=14
#include <stdio.h>

#define ENTRIES 64

__global__ void lookup(int *out) {
    __shared__ int table[ENTRIES];
    int t = threadIdx.x;
    if (t < 32) table[t] = t * t;
    __syncthreads();
    out[t] = table[ENTRIES - 1 - t]; // <- finding
}

int main() {
    int h_out[ENTRIES];
    int *d_out;
    cudaMalloc(&d_out, sizeof h_out);
    lookup<<<1, ENTRIES>>>(d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int t = 0; t < ENTRIES; ++t) wrong += h_out[t] != (ENTRIES - 1 - t) * (ENTRIES - 1 - t);
    printf("out[0] %d out[63] %d, wrong %d of %d\n", h_out[0], h_out[ENTRIES - 1], wrong, ENTRIES);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
