// smem_stencil_sync: a 5-point stencil (radius 2) with its halo in shared memory, loaded by the
// first and last two threads of the block, a __syncthreads() before the neighbours' reads. Correct.
// expect: clean
#include <stdio.h>

#define B 32
#define R 2
#define N 128

__global__ void stencil(const int *in, int *out) {
    __shared__ int s[B + 2 * R];
    int g = blockIdx.x * B + threadIdx.x;
    int l = threadIdx.x + R;
    s[l] = in[g];
    if (threadIdx.x < R) {
        s[l - R] = g - R >= 0 ? in[g - R] : 0;
        s[l + B] = g + B < N ? in[g + B] : 0;
    }
    __syncthreads();
    int sum = 0;
    for (int k = -R; k <= R; ++k) sum += s[l + k];
    out[g] = sum;
}

int main() {
    int h_in[N], h_out[N];
    for (int i = 0; i < N; ++i) h_in[i] = i * i % 13;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    stencil<<<N / B, B>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < N; ++i) {
        int expected = 0;
        for (int k = -R; k <= R; ++k) expected += i + k >= 0 && i + k < N ? h_in[i + k] : 0;
        wrong += h_out[i] != expected;
    }
    printf("wrong elements %d of %d, out[5] = %d\n", wrong, N, h_out[5]);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
