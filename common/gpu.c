/* CUDA mechanics every example shares: see gpu.h. Plain C over the runtime API. */
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>

#include "report.h"

void cuda_fail(cudaError_t error, const char *call, const char *file, int line) {
    fprintf(stderr, "%s:%d: CUDA error %s (%s) in %s\n", file, line, cudaGetErrorName(error), cudaGetErrorString(error),
            call);
    if (error == cudaErrorNoKernelImageForDevice || error == cudaErrorUnsupportedPtxVersion)
        fprintf(stderr, "This build has no code for this GPU: rebuild with "
                        "-DCMAKE_CUDA_ARCHITECTURES=native (or the GPU's compute capability).\n");
    exit(EXIT_CUDA_ERROR);
}

void host_alloc_failed(const char *what, const char *file, int line) {
    fprintf(stderr, "%s:%d: out of host memory (%s is NULL): the size asked for does not fit\n", file, line, what);
    exit(EXIT_BAD_COMMAND_LINE);
}

void *host_alloc(const char *program, size_t bytes, const char *what) {
    void *pointer = malloc(bytes ? bytes : 1);
    if (pointer == NULL) {
        fprintf(stderr, "%s: %s needs %.2f GiB of host memory, which could not be allocated\n", program, what,
                (double)bytes / (1 << 30));
        exit(EXIT_BAD_COMMAND_LINE);
    }
    return pointer;
}

void gpu_select_device(const char *program, int device, struct cudaDeviceProp *properties) {
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status == cudaErrorInsufficientDriver) {
        fprintf(stderr,
                "%s: no CUDA device was found: the NVIDIA driver is missing or older than this CUDA "
                "runtime (%s). Nothing was run.\n",
                program, cudaGetErrorString(status));
        exit(EXIT_NO_DEVICE);
    }
    if (status == cudaErrorNoDevice || (status == cudaSuccess && count == 0)) {
        fprintf(stderr, "%s: no CUDA device was found: the driver is present but sees no GPU. Nothing was run.\n",
                program);
        exit(EXIT_NO_DEVICE);
    }
    if (status != cudaSuccess) {
        fprintf(stderr, "%s: no usable CUDA device was found: %s (%s). Nothing was run.\n", program,
                cudaGetErrorName(status), cudaGetErrorString(status));
        exit(EXIT_NO_DEVICE);
    }
    if (device >= count) {
        fprintf(stderr, "%s: --device %d, but this machine has %d CUDA device%s (0 to %d)\n", program, device, count,
                count == 1 ? "" : "s", count - 1);
        exit(EXIT_BAD_COMMAND_LINE);
    }
    HANDLE_ERROR(cudaSetDevice(device));
    HANDLE_ERROR(cudaGetDeviceProperties(properties, device));
    int driver = 0, runtime = 0;
    HANDLE_ERROR(cudaDriverGetVersion(&driver));
    HANDLE_ERROR(cudaRuntimeGetVersion(&runtime));
    printf("Device %d: %s, compute capability %d.%d, %d SMs, %.1f GiB, L2 %.0f MB, driver CUDA %d.%d, runtime %d.%d\n",
           device, properties->name, properties->major, properties->minor, properties->multiProcessorCount,
           (double)properties->totalGlobalMem / (1 << 30), properties->l2CacheSize / 1e6, driver / 1000,
           (driver % 1000) / 10, runtime / 1000, (runtime % 1000) / 10);
}

void gpu_require_memory(const char *program, double bytes, const char *what) {
    size_t free_bytes = 0, total_bytes = 0;
    HANDLE_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes > (double)free_bytes) {
        fprintf(stderr, "%s: %s needs %.2f GiB of device memory, but only %.2f GiB of %.2f GiB are free\n", program,
                what, bytes / (1 << 30), (double)free_bytes / (1 << 30), (double)total_bytes / (1 << 30));
        exit(EXIT_BAD_COMMAND_LINE);
    }
}

void gpu_poison(void *device_pointer, size_t bytes) { HANDLE_ERROR(cudaMemset(device_pointer, 0xFF, bytes)); }

double gpu_time_median_ms_after_setup(gpu_launch_fn setup, gpu_launch_fn launch, void *context, int reps) {
    cudaEvent_t start, stop;
    double *times = (double *)malloc(sizeof(double) * (size_t)reps);
    HANDLE_NULL(times);
    HANDLE_ERROR(cudaEventCreate(&start));
    HANDLE_ERROR(cudaEventCreate(&stop));
    for (int i = 0; i < 2; ++i) { /* warm-up: module load, caches, clocks */
        if (setup) setup(context);
        launch(context);
    }
    HANDLE_ERROR(cudaDeviceSynchronize());
    for (int i = 0; i < reps; ++i) {
        float ms = 0;
        if (setup) setup(context);
        HANDLE_ERROR(cudaEventRecord(start, 0)); /* on the same stream: fires once setup's work is done */
        launch(context);
        HANDLE_ERROR(cudaEventRecord(stop, 0));
        HANDLE_ERROR(cudaEventSynchronize(stop));
        HANDLE_ERROR(cudaEventElapsedTime(&ms, start, stop));
        times[i] = ms;
    }
    double median = median_of(times, reps);
    HANDLE_ERROR(cudaEventDestroy(start));
    HANDLE_ERROR(cudaEventDestroy(stop));
    free(times);
    return median;
}

double gpu_time_median_ms(gpu_launch_fn launch, void *context, int reps) {
    return gpu_time_median_ms_after_setup(NULL, launch, context, reps);
}

typedef struct {
    void *destination;
    const void *source;
    size_t bytes;
} copy_context;

static void launch_copy(void *context) {
    copy_context *c = (copy_context *)context;
    HANDLE_ERROR(cudaMemcpyAsync(c->destination, c->source, c->bytes, cudaMemcpyDeviceToDevice, 0));
}

double gpu_copy_bandwidth_gbps(double bytes, int reps) {
    const double minimum = 256.0 * (1 << 20);
    copy_context c;
    c.bytes = (size_t)(bytes > minimum ? bytes : minimum);
    size_t free_bytes = 0, total_bytes = 0;
    HANDLE_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (2 * c.bytes > free_bytes / 2) c.bytes = free_bytes / 8; /* leave room for the example */
    HANDLE_ERROR(cudaMalloc(&c.destination, c.bytes));
    HANDLE_ERROR(cudaMalloc((void **)&c.source, c.bytes));
    HANDLE_ERROR(cudaMemset((void *)c.source, 1, c.bytes));
    double ms = gpu_time_median_ms(launch_copy, &c, reps);
    HANDLE_ERROR(cudaFree(c.destination));
    HANDLE_ERROR(cudaFree((void *)c.source));
    return gigabytes_per_second(bytes_moved(1, 1, c.bytes), ms);
}
