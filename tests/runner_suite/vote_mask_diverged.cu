// vote_mask_diverged: __ballot_sync with the full mask inside `if (lane < 16)`: lanes 16..31 never
// call it and exit. The mask names lanes that do not take part: undefined on a GPU.
// expect: exit=1 finding="warp operation whose mask names a lane that has exited" line=11
#include <stdio.h>

#define WARP 32

__global__ void low_half_votes(const int *in, unsigned *out) {
    int lane = threadIdx.x;
    if (lane < 16) {
        unsigned positive = __ballot_sync(0xffffffffu, in[lane] > 0); // <- finding
        if (lane == 0) *out = positive;
    }
}

int main() {
    int h_in[WARP];
    unsigned result = 0;
    for (int i = 0; i < WARP; ++i) h_in[i] = i % 2 ? 1 : -1;
    int *d_in;
    unsigned *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof(unsigned));
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    low_half_votes<<<1, WARP>>>(d_in, d_out);
    cudaMemcpy(&result, d_out, sizeof(unsigned), cudaMemcpyDeviceToHost);
    printf("ballot %08x (expected 0000aaaa)\n", result);
    cudaFree(d_in);
    cudaFree(d_out);
    return result == 0xaaaau ? 0 : 1;
}
