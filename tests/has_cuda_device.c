/* Exits 0 when a usable CUDA device exists, 77 otherwise (the test wrappers' probe). */
#include <cuda_runtime_api.h>
#include <stdio.h>

int main(void) {
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess || count == 0) {
        printf("no usable CUDA device (%s)\n", status != cudaSuccess ? cudaGetErrorString(status) : "count is 0");
        return 77;
    }
    printf("%d CUDA device(s)\n", count);
    return 0;
}
