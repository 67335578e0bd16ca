// cg_block_nosync: cooperative groups' block: each thread stores its value in shared memory and
// reads its neighbour's, with no block.sync() between (racecheck reports the hazard).
// expect: exit=1 finding="race on shared memory" line=15
#include <stdio.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define THREADS 64

__global__ void rotate(const float *in, float *out) {
    __shared__ float s[THREADS];
    cg::thread_block block = cg::this_thread_block();
    unsigned t = block.thread_rank();
    s[t] = in[t];
    out[t] = s[(t + 1) % block.size()]; // <- finding
}

int main() {
    float h_in[THREADS], h_out[THREADS];
    for (int i = 0; i < THREADS; ++i) h_in[i] = 1.5f * i;
    float *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    rotate<<<1, THREADS>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < THREADS; ++i) wrong += h_out[i] != h_in[(i + 1) % THREADS];
    printf("out[0] %g, wrong %d\n", h_out[0], wrong);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
