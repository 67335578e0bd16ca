// For scripts/cuda_on_cpu --banks: shared stores without a conflict, a shared load two words apart
// (a 2-way bank conflict), global loads in order and a global store 32 floats apart (a sector a lane).
#include <cstdio>

__global__ void strides(const float *in, float *out) {
    __shared__ float tile[64];
    const int t = threadIdx.x;
    tile[t] = in[t];
    tile[t + 32] = in[t + 32];
    __syncthreads();
    out[32 * t] = tile[2 * t];
}

int main(void) {
    float *in, *out;
    cudaMalloc(&in, 64 * sizeof(float));
    cudaMalloc(&out, 32 * 32 * sizeof(float));
    cudaMemset(in, 0, 64 * sizeof(float));
    strides<<<1, 32>>>(in, out);
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
