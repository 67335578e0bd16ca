// device_vars_two_kernels: a zero-initialised __device__ counter and a __device__ float scratch[256]
// array: the first kernel fills the scratch array and counts with atomicAdd, the second reads both.
// Correct (the counter starts at 0, the scratch array is written before it is read).
// expect: clean
#include <stdio.h>

#define N 256

__device__ unsigned counter;
__device__ float scratch[N];

__global__ void produce(const float *in) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    scratch[t] = in[t] * 0.5f;
    if (t % 2 == 0) atomicAdd(&counter, 1u);
}

__global__ void consume(float *out, unsigned *count) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = scratch[N - 1 - t] + 1.0f;
    if (t == 0) *count = counter;
}

int main() {
    float h_in[N], h_out[N];
    unsigned count = 0;
    for (int i = 0; i < N; ++i) h_in[i] = (float)i;
    float *d_in, *d_out;
    unsigned *d_count;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMalloc(&d_count, sizeof(unsigned));
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    produce<<<N / 64, 64>>>(d_in);
    consume<<<N / 64, 64>>>(d_out, d_count);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    cudaMemcpy(&count, d_count, sizeof(unsigned), cudaMemcpyDeviceToHost);
    int wrong = count != N / 2;
    for (int i = 0; i < N; ++i) wrong += h_out[i] != (N - 1 - i) * 0.5f + 1.0f;
    printf("counter %u (expected %d), out[0] %g, wrong %d\n", count, N / 2, h_out[0], wrong);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_count);
    return wrong ? 1 : 0;
}
