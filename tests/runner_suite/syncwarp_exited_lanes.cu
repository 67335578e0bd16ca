// syncwarp_exited_lanes: lanes 16..31 return early, the others call __syncwarp() with the full
// mask: it names lanes that have exited (undefined; synccheck can report it).
// expect: exit=1 finding="warp operation whose mask names a lane that has exited" line=13
#include <stdio.h>

#define WARP 32

__global__ void pairs(int *out) {
    __shared__ int s[WARP];
    int lane = threadIdx.x;
    if (lane >= 16) return;
    s[lane] = lane * 3;
    __syncwarp(); // <- finding
    out[lane] = s[lane ^ 1];
}

int main() {
    int h_out[16];
    int *d_out;
    cudaMalloc(&d_out, sizeof h_out);
    pairs<<<1, WARP>>>(d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < 16; ++i) wrong += h_out[i] != (i ^ 1) * 3;
    printf("out[0] %d, wrong %d\n", h_out[0], wrong);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
