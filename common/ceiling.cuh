/* The ceilings a chapter's kernels are measured against, in the same run, each over at least 256 MiB (far over any
 * L2 today, so they measure DRAM), the median of `reps`, in GB/s:
 *   gpu_memcpy_gbps: a device-to-device cudaMemcpy, for kernels that read and write (copy, transpose);
 *   gpu_read_gbps:   a kernel that only reads, for kernels that only read (reduce): higher than a copy's;
 *   gpu_read2_gbps:  the same reading two arrays side by side, a[i] and b[i] (dot).
 * And the cold-L2 mode (--cold-l2): l2_flusher. */
#ifndef COMMON_CEILING_CUH
#define COMMON_CEILING_CUH

#include "book.h"
#include "report.h" /* bytes_moved, gigabytes_per_second */

/* Reads every 16-byte vector of `arrays` arrays (1: a; 2: a and b side by side, as the dot does) once, grid-stride,
 * a grid that fills the GPU, and keeps a sum, written only when it equals a value no input gives, so the compiler
 * cannot drop the loads and nothing is written in practice. */
template <int arrays>
static __global__ void read_only_kernel(const float4 *__restrict__ a, const float4 *__restrict__ b, long long vectors,
                                        float *sink) {
    auto lanes = [](float4 v) { return (v.x + v.y) + (v.z + v.w); };
    float sum = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < vectors;
         i += (long long)gridDim.x * blockDim.x) {
        const float4 x = a[i], y = arrays == 2 ? b[i] : x;
        sum += arrays == 2 ? lanes(x) + lanes(y) : lanes(x);
    }
    if (sum == -1.0f) *sink = sum; /* the input is all zeros: never true */
}

/* `arrays` arrays of `bytes_each` (together at least 256 MiB), read once per run, in GB/s of all the bytes read. */
static inline double gpu_read_arrays_gbps_(int arrays, double bytes_each, int reps) {
    const double minimum = 256.0 * (1 << 20) / arrays;
    size_t each = (size_t)(bytes_each > minimum ? bytes_each : minimum);
    size_t free_bytes = 0, total_bytes = 0;
    HANDLE_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (arrays * each > free_bytes / 4) each = free_bytes / 4 / arrays; /* leave room for the example */
    each -= each % 16;
    float4 *a, *b = NULL;
    float *sink;
    HANDLE_ERROR(cudaMalloc((void **)&a, each));
    HANDLE_ERROR(cudaMemset(a, 0, each));
    if (arrays == 2) {
        HANDLE_ERROR(cudaMalloc((void **)&b, each));
        HANDLE_ERROR(cudaMemset(b, 0, each));
    }
    HANDLE_ERROR(cudaMalloc((void **)&sink, sizeof(float)));
    int device = 0, sms = 0, blocks_per_sm = 0;
    const int threads = 256;
    HANDLE_ERROR(cudaGetDevice(&device));
    HANDLE_ERROR(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    void (*kernel)(const float4 *, const float4 *, long long, float *) =
        arrays == 2 ? read_only_kernel<2> : read_only_kernel<1>;
    HANDLE_ERROR(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, threads, 0));
    const long long vectors = (long long)(each / 16);
    const double ms = time_median_ms(reps, [&] { kernel<<<sms * blocks_per_sm, threads>>>(a, b, vectors, sink); });
    HANDLE_ERROR(cudaFree(a));
    if (b) HANDLE_ERROR(cudaFree(b));
    HANDLE_ERROR(cudaFree(sink));
    return gigabytes_per_second((double)arrays * (double)each, ms);
}

static inline double gpu_read_gbps(double bytes, int reps) { return gpu_read_arrays_gbps_(1, bytes, reps); }
static inline double gpu_read2_gbps(double bytes_each, int reps) { return gpu_read_arrays_gbps_(2, bytes_each, reps); }

/* Cold L2 (--cold-l2): a buffer twice the L2's size, written over before each timed run, evicts whatever the last
 * run left in the L2, so a size that fits in it is measured from DRAM. Use as the setup of time_median_ms:
 *   l2_flusher flusher = l2_flusher_create(o.cold_l2);
 *   ms = time_median_ms(reps, [&] { l2_flush(&flusher); }, [&] { kernel<<<...>>>(...); });
 *   l2_flusher_free(&flusher);
 * With enabled = 0 every call does nothing (the warm measurement). */
typedef struct {
    void *buffer;
    size_t bytes;
} l2_flusher;

static inline l2_flusher l2_flusher_create(int enabled) {
    l2_flusher flusher = {NULL, 0};
    int device = 0, l2_bytes = 0;
    if (!enabled) return flusher;
    HANDLE_ERROR(cudaGetDevice(&device));
    HANDLE_ERROR(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    flusher.bytes = 2 * (size_t)l2_bytes;
    HANDLE_ERROR(cudaMalloc(&flusher.buffer, flusher.bytes));
    return flusher;
}

static inline void l2_flush(const l2_flusher *flusher) {
    if (flusher->buffer) HANDLE_ERROR(cudaMemsetAsync(flusher->buffer, 0, flusher->bytes, 0));
}

static inline void l2_flusher_free(l2_flusher *flusher) {
    if (flusher->buffer) HANDLE_ERROR(cudaFree(flusher->buffer));
    flusher->buffer = NULL;
}

/* A device-to-device cudaMemcpy of `bytes` (at least 256 MiB), in GB/s of bytes read plus written. */
static inline double gpu_memcpy_gbps(double bytes, int reps) {
    const double minimum = 256.0 * (1 << 20);
    size_t copy_bytes = (size_t)(bytes > minimum ? bytes : minimum);
    size_t free_bytes = 0, total_bytes = 0;
    void *source, *destination;
    HANDLE_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (2 * copy_bytes > free_bytes / 2) copy_bytes = free_bytes / 8; /* leave room for the example */
    HANDLE_ERROR(cudaMalloc(&destination, copy_bytes));
    HANDLE_ERROR(cudaMalloc(&source, copy_bytes));
    HANDLE_ERROR(cudaMemset(source, 1, copy_bytes));
    const double ms = time_median_ms(
        reps, [&] { HANDLE_ERROR(cudaMemcpyAsync(destination, source, copy_bytes, cudaMemcpyDeviceToDevice, 0)); });
    HANDLE_ERROR(cudaFree(destination));
    HANDLE_ERROR(cudaFree(source));
    return gigabytes_per_second(bytes_moved(1, 1, copy_bytes), ms);
}

#endif
