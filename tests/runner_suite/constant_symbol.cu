// constant_symbol: polynomial coefficients in __constant__ memory and a scale in a __device__ int,
// both filled with cudaMemcpyToSymbol; the scale read back with cudaMemcpyFromSymbol. Correct.
// expect: clean
#include <stdio.h>

#define DEGREE 4
#define N 128

__constant__ float coefficients[DEGREE + 1];
__device__ int scale;

__global__ void evaluate(float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = (float)i / N;
    float y = coefficients[DEGREE];
    for (int k = DEGREE - 1; k >= 0; --k) y = y * x + coefficients[k];
    out[i] = y * scale;
}

int main() {
    float h_c[DEGREE + 1] = {1.0f, -2.0f, 0.5f, 0.25f, -1.0f}, h_out[N];
    int h_scale = 3, back = 0;
    cudaMemcpyToSymbol(coefficients, h_c, sizeof h_c);
    cudaMemcpyToSymbol(scale, &h_scale, sizeof(int));
    cudaMemcpyFromSymbol(&back, scale, sizeof(int));
    float *d_out;
    cudaMalloc(&d_out, sizeof h_out);
    evaluate<<<N / 32, 32>>>(d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = back != h_scale;
    for (int i = 0; i < N; ++i) {
        float x = (float)i / N, y = h_c[DEGREE];
        for (int k = DEGREE - 1; k >= 0; --k) y = y * x + h_c[k];
        float d = h_out[i] - y * h_scale;
        wrong += d > 1e-4f || d < -1e-4f;
    }
    printf("scale read back %d, p(0) = %g, p(0.5) = %g, wrong %d\n", back, h_out[0], h_out[N / 2], wrong);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
