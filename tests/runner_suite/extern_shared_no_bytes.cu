// extern_shared_no_bytes: a kernel whose buffer is `extern __shared__ int s[]`, launched with no
// dynamic shared bytes (the third launch argument forgotten): every access is past the 0 bytes the
// launch gave (memcheck: invalid __shared__ writes and reads).
// expect: exit=1 finding="shared memory access out of bounds" line=12
#include <stdio.h>

#define N 128

__global__ void reverse(const int *in, int *out) {
    extern __shared__ int s[];
    int t = threadIdx.x;
    s[t] = in[t]; // <- finding
    __syncthreads();
    out[t] = s[blockDim.x - 1 - t];
}

int main() {
    int h_in[N], h_out[N];
    for (int i = 0; i < N; ++i) h_in[i] = 3 * i;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    reverse<<<1, N>>>(d_in, d_out); /* should be <<<1, N, N * sizeof(int)>>> */
    cudaError_t error = cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < N; ++i) wrong += h_out[i] != h_in[N - 1 - i];
    printf("%s: out[0] %d, wrong %d\n", cudaGetErrorString(error), h_out[0], wrong);
    cudaFree(d_in);
    cudaFree(d_out);
    return error == cudaSuccess && !wrong ? 0 : 1;
}
