// shfl_mask_leaves_caller: all 32 lanes call __shfl_xor_sync with the mask 0xfffffffe, which leaves
// out lane 0, a caller: undefined on a GPU.
// expect: exit=1 finding="warp operation whose mask leaves out the lane that calls it" line=11
#include <stdio.h>

#define WARP 32

__global__ void swap_neighbours(const int *in, int *out) {
    int lane = threadIdx.x;
    int v = in[lane];
    out[lane] = __shfl_xor_sync(0xfffffffeu, v, 1); // <- finding
}

int main() {
    int h_in[WARP], h_out[WARP];
    for (int i = 0; i < WARP; ++i) h_in[i] = 10 * i;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    swap_neighbours<<<1, WARP>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < WARP; ++i) wrong += h_out[i] != h_in[i ^ 1];
    printf("out[0] %d out[1] %d, wrong %d\n", h_out[0], h_out[1], wrong);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
