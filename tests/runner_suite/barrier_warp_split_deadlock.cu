// barrier_warp_split_deadlock: lanes 0..15 of every warp wait at one __syncthreads(), lanes 16..31
// at another. The lanes of one warp at two different barriers: the block never finishes on an
// H100/H200 (a hang). The runner ends it as a deadlock.
// expect: exit=4 finding="deadlock" line=14
#include <stdio.h>

#define THREADS 64

__global__ void split(const int *in, int *out) {
    __shared__ int s[THREADS];
    int t = threadIdx.x;
    if (t % 32 < 16) {
        s[t] = in[t] + 1;
        __syncthreads(); // <- finding
        out[t] = s[THREADS - 1 - t];
    } else {
        s[t] = in[t] - 1;
        __syncthreads();
        out[t] = s[THREADS - 1 - t] * 2;
    }
}

int main() {
    int h_in[THREADS], h_out[THREADS];
    for (int i = 0; i < THREADS; ++i) h_in[i] = i;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    split<<<1, THREADS>>>(d_in, d_out);
    cudaError_t error = cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    printf("%s: out[0] %d\n", cudaGetErrorString(error), h_out[0]);
    cudaFree(d_in);
    cudaFree(d_out);
    return error == cudaSuccess ? 0 : 1;
}
