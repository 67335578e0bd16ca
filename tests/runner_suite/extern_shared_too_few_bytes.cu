// extern_shared_too_few_bytes: a block of 64 threads uses 64 floats of `extern __shared__` memory,
// but the launch passes 32 * sizeof(float) bytes: threads 32..63 store past the dynamic bytes.
// expect: exit=1 finding="shared memory access out of bounds" line=11
#include <stdio.h>

#define THREADS 64

__global__ void scale(const float *in, float *out, float factor) {
    extern __shared__ float s_buffer[];
    int t = threadIdx.x;
    s_buffer[t] = in[t] * factor; // <- finding
    __syncthreads();
    out[t] = s_buffer[(t + 1) % THREADS];
}

int main() {
    float h_in[THREADS], h_out[THREADS];
    for (int i = 0; i < THREADS; ++i) h_in[i] = (float)i;
    float *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    scale<<<1, THREADS, 32 * sizeof(float)>>>(d_in, d_out, 2.0f);
    cudaError_t error = cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < THREADS; ++i) wrong += h_out[i] != 2.0f * ((i + 1) % THREADS);
    printf("%s: out[40] %g, wrong %d\n", cudaGetErrorString(error), h_out[40], wrong);
    cudaFree(d_in);
    cudaFree(d_out);
    return error == cudaSuccess && !wrong ? 0 : 1;
}
