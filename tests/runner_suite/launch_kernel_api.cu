// launch_kernel_api: a kernel launched through cudaLaunchKernel (an argument array, as cuda-samples and
// libraries launch). Correct: nothing to report.
// expect: clean
#include <stdio.h>

__global__ void axpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}

int main() {
    const int n = 1000;
    float h_x[n], h_y[n], *x, *y;
    for (int i = 0; i < n; ++i) h_x[i] = (float)i, h_y[i] = 1.0f;
    cudaMalloc(&x, sizeof h_x);
    cudaMalloc(&y, sizeof h_y);
    cudaMemcpy(x, h_x, sizeof h_x, cudaMemcpyHostToDevice);
    cudaMemcpy(y, h_y, sizeof h_y, cudaMemcpyHostToDevice);
    float a = 2.0f;
    int count = n;
    void *arguments[] = {&a, &x, &y, &count};
    cudaError_t launched = cudaLaunchKernel(axpy, dim3((n + 255) / 256), dim3(256), arguments, 0, 0);
    cudaMemcpy(h_y, y, sizeof h_y, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += h_y[i] != 1.0f + 2.0f * i;
    printf("%s: y[999] %g, wrong %d\n", cudaGetErrorName(launched), h_y[n - 1], wrong);
    cudaFree(x);
    cudaFree(y);
    return launched == cudaSuccess && !wrong ? 0 : 1;
}
