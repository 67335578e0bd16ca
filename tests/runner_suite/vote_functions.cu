// vote_functions: each warp of 64 threads votes with __ballot_sync, __any_sync and __all_sync,
// reads __activemask() with every lane active, and lanes 0..19 of each warp ballot inside an if
// with the mask of exactly those lanes (itself from a ballot). Correct.
// expect: clean
#include <stdio.h>

#define THREADS 64

__global__ void votes(const int *in, unsigned *out) {
    int t = threadIdx.x, lane = t % 32, warp = t / 32;
    int v = in[t];
    unsigned ballot = __ballot_sync(0xffffffffu, v % 3 == 0);
    int any_big = __any_sync(0xffffffffu, v > 60);
    int all_positive = __all_sync(0xffffffffu, v > 0);
    if (lane == 0) {
        out[warp * 4 + 0] = ballot;
        out[warp * 4 + 1] = (unsigned)any_big != 0;
        out[warp * 4 + 2] = (unsigned)all_positive != 0;
    }
    unsigned active = __activemask();
    unsigned low = __ballot_sync(0xffffffffu, lane < 20);
    if (lane < 20) {
        unsigned even = __ballot_sync(low, v % 2 == 0);
        if (lane == 0) out[warp * 4 + 3] = active ^ (even << 1);
    }
}

int main() {
    int h_in[THREADS];
    unsigned h_out[8], expected[8];
    for (int i = 0; i < THREADS; ++i) h_in[i] = i + 1;
    for (int w = 0; w < 2; ++w) {
        unsigned ballot = 0, even = 0, active = 0xffffffffu;
        for (int l = 0; l < 32; ++l) {
            ballot |= (unsigned)(h_in[w * 32 + l] % 3 == 0) << l;
            if (l < 20) even |= (unsigned)(h_in[w * 32 + l] % 2 == 0) << l;
        }
        expected[w * 4 + 0] = ballot;
        expected[w * 4 + 1] = w == 1; /* values 33..64: some > 60 */
        expected[w * 4 + 2] = 1;
        expected[w * 4 + 3] = active ^ (even << 1);
    }
    unsigned *d_out;
    int *d_in;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    votes<<<1, THREADS>>>(d_in, d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < 8; ++i) wrong += h_out[i] != expected[i];
    printf("ballot %08x any %u all %u active^even %08x | warp 1: %08x %u %u %08x, wrong %d\n", h_out[0], h_out[1],
           h_out[2], h_out[3], h_out[4], h_out[5], h_out[6], h_out[7], wrong);
    cudaFree(d_in);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
