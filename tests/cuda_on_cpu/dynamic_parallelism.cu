/* A kernel that launches a kernel (dynamic parallelism; nvcc -rdc=true): the runner does not run it, and
 * says so in one line with the inner launch's line, exit 3. */
#include <stdio.h>

__global__ void child(int *x) { x[threadIdx.x] = 1; }

__global__ void parent(int *x) {
    if (threadIdx.x == 0) child<<<1, 4>>>(x);
}

int main() {
    int *x;
    cudaMalloc(&x, 4 * sizeof(int));
    parent<<<1, 32>>>(x);
    printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    cudaFree(x);
    return 0;
}
