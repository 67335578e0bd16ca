// library_call_fault: thread 1 clears its row with memset through a pointer 160 GB past the
// allocation (a row index times a wrong pitch). The fault is inside the C library's memset, whose
// address names no line of the program; the runner names the kernel's call instead. A GPU stops
// the kernel (cudaErrorIllegalAddress).
// expect: exit=3 finding="invalid memory access" line=11
#include <stdio.h>
#include <string.h>

__global__ void clear_rows(int *rows, size_t pitch, size_t width) {
    int *row = rows + threadIdx.x * pitch; /* meant: the pitch in ints, not in bytes times 2^30 */
    memset(row, 0, width * sizeof(int)); // <- finding
}

int main() {
    int *d_rows;
    cudaMalloc(&d_rows, 2 * 64 * sizeof(int));
    clear_rows<<<1, 2>>>(d_rows, (size_t)40 << 30, 64);
    cudaError_t error = cudaDeviceSynchronize();
    printf("kernel: %s\n", cudaGetErrorString(error));
    return error == cudaSuccess ? 0 : 1;
}
