// warp_scan_nosyncwarp: a one-warp inclusive scan (Hillis-Steele) in shared memory written
// warp-synchronously: no __syncwarp() between a lane's read of its neighbour and the neighbour's
// write. Lanes are independent since Volta: a race (racecheck reports it).
// expect: exit=1 finding="race on shared memory" line=15
#include <stdio.h>

#define WARP 32

__global__ void scan(const int *in, int *out) {
    __shared__ int s[WARP];
    int lane = threadIdx.x;
    s[lane] = in[lane];
    __syncwarp();
    for (int d = 1; d < WARP; d *= 2) {
        int left = lane >= d ? s[lane - d] : 0; // <- finding
        s[lane] += left;
    }
    __syncwarp();
    out[lane] = s[lane];
}

int main() {
    int h_in[WARP], h_out[WARP];
    for (int i = 0; i < WARP; ++i) h_in[i] = i % 4 + 1;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    scan<<<1, WARP>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0, running = 0;
    for (int i = 0; i < WARP; ++i) {
        running += h_in[i];
        wrong += h_out[i] != running;
    }
    printf("last %d (expected %d), wrong %d\n", h_out[WARP - 1], running, wrong);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
