/* The ceilings a chapter's kernels are measured against, in the same run:
 *   gpu_memcpy_gbps (book.h): a device-to-device cudaMemcpy, for kernels that
 *                             read and write (copy, transpose);
 *   gpu_read_gbps (here):     a kernel that only reads, for kernels that only
 *                             read (dot, reduce): nothing is written back, so
 *                             a read-only kernel's ceiling is higher than a copy's.
 * Both use at least 256 MiB, far over any L2 today, so they measure DRAM.
 * Header-only CUDA. */
#ifndef COMMON_CEILING_CUH
#define COMMON_CEILING_CUH

#include "book.h"

/* Reads every 16-byte vector once (grid-stride, a grid that fills the GPU)
 * and keeps a sum, written only when it equals a value no input gives, so the
 * compiler cannot drop the loads and nothing is written in practice. */
static __global__ void read_only_kernel(const float4 *__restrict__ data, long long vectors, float *sink) {
    float sum = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < vectors;
         i += (long long)gridDim.x * blockDim.x) {
        float4 v = data[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    if (sum == -1.0f) *sink = sum; /* the input is all zeros: never true */
}

/* The read ceiling of this run: at least 256 MiB (or `bytes` if larger, when
 * it fits), read once per run, median of `reps`, in GB/s of bytes read. */
static inline double gpu_read_gbps(double bytes, int reps) {
    const double minimum = 256.0 * (1 << 20);
    size_t read_bytes = (size_t)(bytes > minimum ? bytes : minimum);
    size_t free_bytes = 0, total_bytes = 0;
    HANDLE_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (read_bytes > free_bytes / 4) read_bytes = free_bytes / 4; /* leave room for the example */
    read_bytes -= read_bytes % 16;
    float4 *data;
    float *sink;
    HANDLE_ERROR(cudaMalloc((void **)&data, read_bytes));
    HANDLE_ERROR(cudaMalloc((void **)&sink, sizeof(float)));
    HANDLE_ERROR(cudaMemset(data, 0, read_bytes));
    int device = 0, sms = 0, blocks_per_sm = 0;
    const int threads = 256;
    HANDLE_ERROR(cudaGetDevice(&device));
    HANDLE_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, read_only_kernel, threads, 0));
    const long long vectors = (long long)(read_bytes / 16);
    double ms;
    TIME_MEDIAN_MS(ms, reps, read_only_kernel<<<sms * blocks_per_sm, threads>>>(data, vectors, sink));
    HANDLE_ERROR(cudaFree(data));
    HANDLE_ERROR(cudaFree(sink));
    return gigabytes_per_second((double)read_bytes, ms);
}

#endif
