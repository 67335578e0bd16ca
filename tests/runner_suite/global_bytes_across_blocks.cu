// global_bytes_across_blocks: a grey image of 980 one-byte pixels, blocks of 98 threads, each thread
// writing its own byte: the blocks meet inside 4-byte words (bytes 97 and 98 of one word belong to
// blocks 0 and 1), which is no race. Correct: nothing to report.
// expect: clean
#include <stdio.h>

#define N 980
#define THREADS 98

__global__ void threshold(const float *in, unsigned char *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) out[i] = in[i] > 0.5f ? 255 : 0;
}

int main() {
    float h_in[N];
    unsigned char h_out[N];
    for (int i = 0; i < N; ++i) h_in[i] = (float)(i % 7) / 6.0f;
    float *in;
    unsigned char *out;
    cudaMalloc(&in, sizeof h_in);
    cudaMalloc(&out, sizeof h_out);
    cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    threshold<<<N / THREADS, THREADS>>>(in, out);
    cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < N; ++i) wrong += h_out[i] != (h_in[i] > 0.5f ? 255 : 0);
    printf("out[3] %d out[6] %d, wrong %d\n", h_out[3], h_out[6], wrong);
    cudaFree(in);
    cudaFree(out);
    return wrong ? 1 : 0;
}
