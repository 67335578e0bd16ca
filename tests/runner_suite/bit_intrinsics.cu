// bit_intrinsics: __popc, __popcll, __ffs, __ffsll, __clz, __clzll and __brev on 64 values, checked
// against plain loops on the host. Correct.
// expect: clean
#include <stdio.h>

#define N 64

__global__ void bits(const unsigned long long *in, int *counts, unsigned *reversed) {
    int t = threadIdx.x;
    unsigned long long x = in[t];
    unsigned low = (unsigned)x;
    counts[t * 6 + 0] = __popc(low);
    counts[t * 6 + 1] = __popcll(x);
    counts[t * 6 + 2] = __ffs((int)low);
    counts[t * 6 + 3] = __ffsll((long long)x);
    counts[t * 6 + 4] = __clz((int)low);
    counts[t * 6 + 5] = __clzll((long long)x);
    reversed[t] = __brev(low);
}

int main() {
    unsigned long long h_in[N];
    int h_counts[N * 6];
    unsigned h_rev[N];
    unsigned long long x = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < N; ++i) {
        h_in[i] = i < 2 ? (unsigned long long)i << 40 : x;
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    }
    unsigned long long *d_in;
    int *d_counts;
    unsigned *d_rev;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_counts, sizeof h_counts);
    cudaMalloc(&d_rev, sizeof h_rev);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    bits<<<1, N>>>(d_in, d_counts, d_rev);
    cudaMemcpy(h_counts, d_counts, sizeof h_counts, cudaMemcpyDeviceToHost);
    cudaMemcpy(h_rev, d_rev, sizeof h_rev, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < N; ++i) {
        unsigned long long v = h_in[i];
        int e[6] = {0, 0, 0, 0, 0, 0};
        unsigned rev = 0;
        for (int b = 0; b < 64; ++b) {
            int bit = (int)(v >> b & 1);
            if (b < 32) { e[0] += bit; rev |= (unsigned)bit << (31 - b); }
            e[1] += bit;
            if (bit && b < 32 && !e[2]) e[2] = b + 1;
            if (bit && !e[3]) e[3] = b + 1;
            if (bit && b < 32) e[4] = 31 - b;
            if (bit) e[5] = 63 - b;
        }
        if (!(unsigned)v) e[4] = 32;
        if (!v) e[5] = 64;
        for (int k = 0; k < 6; ++k) wrong += h_counts[i * 6 + k] != e[k];
        wrong += h_rev[i] != rev;
    }
    printf("value 2: popc %d ffs %d clz %d brev %08x; wrong %d\n", h_counts[12], h_counts[14], h_counts[16], h_rev[2],
           wrong);
    cudaFree(d_in);
    cudaFree(d_counts);
    cudaFree(d_rev);
    return wrong ? 1 : 0;
}
