/* scripts/cuda_on_cpu's own cases: a main with no parameters and no return (C++ returns 0 for it), a
 * kernel in a header beside the file, a -D from the command line. */
#include "scale.cuh"
#include <stdio.h>

int main(void) {
    float host[4] = {1, 2, 3, 4}, *device;
    cudaMalloc(&device, sizeof host);
    cudaMemcpy(device, host, sizeof host, cudaMemcpyHostToDevice);
    scale<<<1, 4>>>(device, FACTOR);
    cudaMemcpy(host, device, sizeof host, cudaMemcpyDeviceToHost);
    printf("scaled %g %g %g %g\n", host[0], host[1], host[2], host[3]);
    cudaFree(device);
}
