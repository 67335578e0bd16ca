// atomic_cas_float_max: a float atomic maximum and minimum built from atomicCAS on the word's bits
// (__float_as_int), written as the Programming Guide's atomicAdd(double) loop: a plain read for
// the first guess, then atomicCAS until it holds. Four blocks on two global words. Correct.
// expect: clean
#include <stdio.h>

#define BLOCKS 4
#define THREADS 64

__device__ float atomic_max_float(float *address, float value) {
    int *word = (int *)address;
    int old = *word, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= value) break;
        old = atomicCAS(word, assumed, __float_as_int(value));
    } while (assumed != old);
    return __int_as_float(old);
}

__device__ float atomic_min_float(float *address, float value) {
    int *word = (int *)address;
    int old = *word, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) <= value) break;
        old = atomicCAS(word, assumed, __float_as_int(value));
    } while (assumed != old);
    return __int_as_float(old);
}

__global__ void extremes(const float *in, float *out) {
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    atomic_max_float(&out[0], v);
    atomic_min_float(&out[1], v);
}

int main() {
    float h_in[BLOCKS * THREADS], h_out[2] = {-1e30f, 1e30f};
    for (int i = 0; i < BLOCKS * THREADS; ++i) h_in[i] = (float)((i * 73) % 256) * 0.5f - 40.0f;
    float *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    cudaMemcpy(d_out, h_out, sizeof h_out, cudaMemcpyHostToDevice);
    extremes<<<BLOCKS, THREADS>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    printf("max %g (expected 87.5) min %g (expected -40)\n", h_out[0], h_out[1]);
    cudaFree(d_in);
    cudaFree(d_out);
    return h_out[0] == 87.5f && h_out[1] == -40.0f ? 0 : 1;
}
