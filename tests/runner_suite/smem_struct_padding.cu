// smem_struct_padding: a struct with padding bytes (after `kind` and after `id`) in shared memory;
// four threads store its fields one by one, and after a barrier every thread copies a whole struct
// out (padding included) and uses its fields. Correct: the padding is never used.
// expect: clean
#include <stdio.h>

struct Particle {
    char kind;   /* 7 bytes of padding follow */
    double mass;
    short id;    /* 6 bytes of padding follow */
};

__global__ void weigh(double *out) {
    __shared__ Particle s_particles[4];
    int t = threadIdx.x;
    if (t < 4) {
        s_particles[t].kind = (char)('a' + t);
        s_particles[t].mass = 1.5 * t;
        s_particles[t].id = (short)(10 * t);
    }
    __syncthreads();
    Particle p = s_particles[t % 4];
    out[t] = (p.kind - 'a') + p.mass + p.id;
}

int main() {
    const int n = 32;
    double h_out[n];
    double *d_out;
    cudaMalloc(&d_out, sizeof h_out);
    weigh<<<1, n>>>(d_out);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int t = 0; t < n; ++t) wrong += h_out[t] != (t % 4) * 12.5;
    printf("out[3] %g (expected 37.5), wrong %d of %d\n", h_out[3], wrong, n);
    cudaFree(d_out);
    return wrong ? 1 : 0;
}
