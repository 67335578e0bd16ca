// integer_divide_by_zero: each thread splits its items among the workers its row names, and row 7
// names none (a count read from memory: the compiler cannot see the zero). A GPU gives that thread
// an undefined quotient and goes on; on the CPU the division traps (SIGFPE), and the runner names it.
// expect: exit=3 finding="integer division by zero" line=9
#include <stdio.h>

__global__ void share(const int *items, const int *workers, int *each) {
    const int t = threadIdx.x;
    each[t] = items[t] / workers[t]; // <- finding
}

int main() {
    int items[32], workers[32], *d_items, *d_workers, *d_each;
    for (int i = 0; i < 32; ++i) {
        items[i] = 100 + i;
        workers[i] = i == 7 ? 0 : 1 + i % 4;
    }
    cudaMalloc(&d_items, sizeof items);
    cudaMalloc(&d_workers, sizeof workers);
    cudaMalloc(&d_each, sizeof items);
    cudaMemcpy(d_items, items, sizeof items, cudaMemcpyHostToDevice);
    cudaMemcpy(d_workers, workers, sizeof workers, cudaMemcpyHostToDevice);
    share<<<1, 32>>>(d_items, d_workers, d_each);
    cudaError_t error = cudaDeviceSynchronize();
    printf("kernel: %s\n", cudaGetErrorString(error));
    cudaMemcpy(items, d_each, sizeof items, cudaMemcpyDeviceToHost);
    printf("each[7] %d\n", items[7]);
    return error == cudaSuccess ? 0 : 1;
}
