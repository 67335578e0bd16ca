// shfl_lane_exited: lanes 24..31 return early; the 24 others sum with __shfl_down_sync and the
// full mask, which names the exited lanes (undefined on a GPU).
// expect: exit=1 finding="warp operation whose mask names a lane that has exited" line=13
#include <stdio.h>

#define WARP 32
#define ACTIVE 24

__global__ void partial_sum(const int *in, int *out) {
    int lane = threadIdx.x;
    if (lane >= ACTIVE) return;
    int v = in[lane];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset); // <- finding
    if (lane == 0) *out = v;
}

int main() {
    int h_in[WARP], result = 0;
    for (int i = 0; i < WARP; ++i) h_in[i] = 1;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof(int));
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    partial_sum<<<1, WARP>>>(d_in, d_out);
    cudaError_t error = cudaMemcpy(&result, d_out, sizeof(int), cudaMemcpyDeviceToHost);
    printf("%s: sum %d (expected %d)\n", cudaGetErrorString(error), result, ACTIVE);
    cudaFree(d_in);
    cudaFree(d_out);
    return result == ACTIVE ? 0 : 1;
}
