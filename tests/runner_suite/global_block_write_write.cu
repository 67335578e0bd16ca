// global_block_write_write: every block's thread 0 stores its block number into one global word
// with a plain store, and the host takes whichever value is left: blocks write one word with
// different values and no atomic. No GPU tool reports it.
// expect: exit=1 finding="race on global memory between blocks" line=12
#include <stdio.h>

#define BLOCKS 5

__global__ void claim(const int *in, int *owner, int *values) {
    int t = threadIdx.x;
    values[blockIdx.x * blockDim.x + t] = in[blockIdx.x * blockDim.x + t] + 1;
    if (t == 0) *owner = blockIdx.x; // <- finding
}

int main() {
    int h_in[BLOCKS * 32], h_values[BLOCKS * 32], owner = -1;
    for (int i = 0; i < BLOCKS * 32; ++i) h_in[i] = i;
    int *d_in, *d_owner, *d_values;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_owner, sizeof(int));
    cudaMalloc(&d_values, sizeof h_values);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    claim<<<BLOCKS, 32>>>(d_in, d_owner, d_values);
    cudaMemcpy(&owner, d_owner, sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(h_values, d_values, sizeof h_values, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < BLOCKS * 32; ++i) wrong += h_values[i] != i + 1;
    printf("owner block %d, wrong values %d\n", owner, wrong);
    cudaFree(d_in);
    cudaFree(d_owner);
    cudaFree(d_values);
    return owner >= 0 && owner < BLOCKS && !wrong ? 0 : 1;
}
