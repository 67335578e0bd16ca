// shfl_xor_idx_width8: a butterfly sum of each group of 8 lanes with __shfl_xor_sync (width 8),
// then every lane takes lane 3's value of its group with __shfl_sync (width 8). Correct.
// expect: clean
#include <stdio.h>

#define THREADS 32
#define WIDTH 8

__global__ void groups(const float *in, float *sums, float *third) {
    int t = threadIdx.x;
    float v = in[t];
    float s = v;
    for (int mask = WIDTH / 2; mask > 0; mask /= 2) s += __shfl_xor_sync(0xffffffffu, s, mask, WIDTH);
    sums[t] = s;
    third[t] = __shfl_sync(0xffffffffu, v, 3, WIDTH);
}

int main() {
    float h_in[THREADS], h_sums[THREADS], h_third[THREADS];
    for (int i = 0; i < THREADS; ++i) h_in[i] = 0.5f * i;
    float *d_in, *d_sums, *d_third;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_sums, sizeof h_sums);
    cudaMalloc(&d_third, sizeof h_third);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    groups<<<1, THREADS>>>(d_in, d_sums, d_third);
    cudaMemcpy(h_sums, d_sums, sizeof h_sums, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_third, d_third, sizeof h_third, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < THREADS; ++i) {
        int g = i / WIDTH * WIDTH;
        float expected = 0;
        for (int k = 0; k < WIDTH; ++k) expected += h_in[g + k];
        wrong += h_sums[i] != expected || h_third[i] != h_in[g + 3];
    }
    printf("sum of group 1 %g, its lane 3 %g, wrong %d\n", h_sums[8], h_third[8], wrong);
    cudaFree(d_in);
    cudaFree(d_sums);
    cudaFree(d_third);
    return wrong ? 1 : 0;
}
