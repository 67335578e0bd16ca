// warp_scan_syncwarp: the one-warp Hillis-Steele scan in shared memory with __syncwarp() between
// every read and the writes that follow it. Two warps, each scanning its own 32 values. Correct.
// expect: clean
#include <stdio.h>

#define WARP 32
#define THREADS 64

__global__ void scan(const int *in, int *out) {
    __shared__ int s[THREADS];
    int t = threadIdx.x, lane = t % WARP;
    s[t] = in[t];
    __syncwarp();
    for (int d = 1; d < WARP; d *= 2) {
        int left = lane >= d ? s[t - d] : 0;
        __syncwarp();
        s[t] += left;
        __syncwarp();
    }
    out[t] = s[t];
}

int main() {
    int h_in[THREADS], h_out[THREADS];
    for (int i = 0; i < THREADS; ++i) h_in[i] = (i * 7) % 5;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    scan<<<1, THREADS>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0, running = 0;
    for (int i = 0; i < THREADS; ++i) {
        running = (i % WARP == 0 ? 0 : running) + h_in[i];
        wrong += h_out[i] != running;
    }
    printf("out[31] %d out[63] %d, wrong %d\n", h_out[31], h_out[63], wrong);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
