// global_unwritten_read: the host copies only the first half of the input into a cudaMalloc'd
// array, and the kernel reads all of it: the second half was never written (initcheck reports
// uninitialised __global__ reads).
// expect: exit=1 finding="read of global memory that nothing wrote" line=11
#include <stdio.h>

#define N 256

__global__ void double_all(const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 2.0f * in[i]; // <- finding
}

int main() {
    float h_in[N], h_out[N];
    for (int i = 0; i < N; ++i) h_in[i] = (float)i;
    float *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in / 2, cudaMemcpyHostToDevice); /* half of it */
    double_all<<<N / 64, 64>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < N; ++i) wrong += h_out[i] != 2.0f * i;
    printf("out[0] %g out[255] %g, wrong %d\n", h_out[0], h_out[N - 1], wrong);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
