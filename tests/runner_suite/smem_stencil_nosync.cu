// smem_stencil_nosync: a 3-point stencil; each block loads its values and a halo into shared
// memory, then each thread reads its neighbours' values with no __syncthreads() between.
// expect: exit=1 finding="race on shared memory" line=16
#include <stdio.h>

#define B 64
#define N 256

__global__ void stencil(const float *in, float *out) {
    __shared__ float s[B + 2];
    int g = blockIdx.x * B + threadIdx.x;
    int l = threadIdx.x + 1;
    s[l] = in[g];
    if (threadIdx.x == 0) s[0] = g > 0 ? in[g - 1] : 0.0f;
    if (threadIdx.x == B - 1) s[B + 1] = g + 1 < N ? in[g + 1] : 0.0f;
    out[g] = s[l - 1] + s[l] + s[l + 1]; // <- finding
}

int main() {
    float h_in[N], h_out[N];
    for (int i = 0; i < N; ++i) h_in[i] = (float)(i % 10);
    float *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    stencil<<<N / B, B>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < N; ++i) {
        float expected = (i > 0 ? h_in[i - 1] : 0.0f) + h_in[i] + (i + 1 < N ? h_in[i + 1] : 0.0f);
        wrong += h_out[i] != expected;
    }
    printf("wrong elements %d of %d\n", wrong, N);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
