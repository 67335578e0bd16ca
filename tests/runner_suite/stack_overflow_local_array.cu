// stack_overflow_local_array: each thread fills a 320 KB local array (float big[81920]); legal on a
// GPU (up to 512 KB of local memory per thread), more than a CPU runner thread's stack: the runner
// must end it with one line and exit 3, never a silent crash.
// expect: exit=3 finding="stack overflow"
#include <stdio.h>

#define LOCAL 81920
#define THREADS 32

__global__ void big_local(const int *in, float *out) {
    float big[LOCAL];
    int t = threadIdx.x;
    for (int i = 0; i < LOCAL; ++i) big[i] = (float)(i % 7) * in[t];
    float sum = 0.0f;
    for (int k = 0; k < 8; ++k) sum += big[(in[t] * 977 + k * 10007) % LOCAL];
    out[t] = sum;
}

int main() {
    int h_in[THREADS];
    float h_out[THREADS];
    for (int i = 0; i < THREADS; ++i) h_in[i] = i + 1;
    int *d_in;
    float *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    big_local<<<1, THREADS>>>(d_in, d_out);
    cudaError_t error = cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int t = 0; t < THREADS; ++t) {
        float sum = 0.0f;
        for (int k = 0; k < 8; ++k) sum += (float)(((h_in[t] * 977 + k * 10007) % LOCAL) % 7) * h_in[t];
        wrong += h_out[t] != sum;
    }
    printf("%s: out[0] %g, wrong %d\n", cudaGetErrorString(error), h_out[0], wrong);
    cudaFree(d_in);
    cudaFree(d_out);
    return error == cudaSuccess && !wrong ? 0 : 1;
}
