// shfl_up_scan_width16: an inclusive scan of each 16-lane segment with __shfl_up_sync and
// width 16 (two segments per warp, two warps). Correct.
// expect: clean
#include <stdio.h>

#define THREADS 64
#define WIDTH 16

__global__ void segment_scan(const int *in, int *out) {
    int t = threadIdx.x, sub = t % WIDTH;
    int v = in[t];
    for (int d = 1; d < WIDTH; d *= 2) {
        int left = __shfl_up_sync(0xffffffffu, v, d, WIDTH);
        if (sub >= d) v += left;
    }
    out[t] = v;
}

int main() {
    int h_in[THREADS], h_out[THREADS];
    for (int i = 0; i < THREADS; ++i) h_in[i] = i % 3 + 1;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    segment_scan<<<1, THREADS>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0, running = 0;
    for (int i = 0; i < THREADS; ++i) {
        running = (i % WIDTH == 0 ? 0 : running) + h_in[i];
        wrong += h_out[i] != running;
    }
    printf("out[15] %d out[16] %d out[63] %d, wrong %d\n", h_out[15], h_out[16], h_out[63], wrong);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
