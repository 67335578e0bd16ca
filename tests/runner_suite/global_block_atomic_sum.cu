// global_block_atomic_sum: each block sums its floats with warp shuffles and shared memory, then
// thread 0 adds the block's sum to the total with atomicAdd. Values are whole numbers, so the total
// is exact in any order. Correct.
// expect: clean
#include <stdio.h>

#define BLOCKS 6
#define THREADS 128

__global__ void total_sum(const float *in, float *total) {
    __shared__ float s_warp[THREADS / 32];
    int t = threadIdx.x;
    float v = in[blockIdx.x * THREADS + t];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (t % 32 == 0) s_warp[t / 32] = v;
    __syncthreads();
    if (t == 0) {
        float block = 0.0f;
        for (int w = 0; w < THREADS / 32; ++w) block += s_warp[w];
        atomicAdd(total, block);
    }
}

int main() {
    static float h_in[BLOCKS * THREADS];
    float expected = 0.0f, result = 0.0f;
    for (int i = 0; i < BLOCKS * THREADS; ++i) {
        h_in[i] = (float)(i % 11);
        expected += h_in[i];
    }
    float *d_in, *d_total;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_total, sizeof(float));
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    cudaMemset(d_total, 0, sizeof(float));
    total_sum<<<BLOCKS, THREADS>>>(d_in, d_total);
    cudaMemcpy(&result, d_total, sizeof(float), cudaMemcpyDeviceToHost);
    printf("total %g (expected %g)\n", result, expected);
    cudaFree(d_in);
    cudaFree(d_total);
    return result == expected ? 0 : 1;
}
