/* CUDA mechanics every example shares, in the spirit of the book's book.h:
 * error checks, device selection, timing and the copy-bandwidth ceiling.
 * Declarations here, definitions in gpu.c: safe to include from any number of
 * translation units (the book's header defines functions in the header and
 * breaks at link time when two files include it). Usable from C and CUDA. */
#ifndef COMMON_GPU_H
#define COMMON_GPU_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes shared by every example (see README). */
enum exit_code {
    EXIT_ALL_PASSED = 0,
    EXIT_WRONG_RESULT = 1,
    EXIT_BAD_COMMAND_LINE = 2,
    EXIT_CUDA_ERROR = 3,
    EXIT_NO_DEVICE = 77
};

/* Prints file:line, the call, the error's name and text, and exits 3. */
void cuda_fail(cudaError_t error, const char *call, const char *file, int line);

/* HANDLE_ERROR(cudaMalloc(&p, bytes)); every CUDA runtime call goes through it. */
#define HANDLE_ERROR(call)                                                                                             \
    do {                                                                                                               \
        cudaError_t handle_error_status_ = (call);                                                                     \
        if (handle_error_status_ != cudaSuccess) cuda_fail(handle_error_status_, #call, __FILE__, __LINE__);           \
    } while (0)

/* After every <<<...>>> launch: a bad configuration is reported here. */
#define CHECK_LAUNCH() HANDLE_ERROR(cudaGetLastError())

/* A host allocation that returned NULL: out of host memory, exit 2 (the size
 * asked for does not fit, like host_alloc below). */
void host_alloc_failed(const char *what, const char *file, int line);
#define HANDLE_NULL(pointer)                                                                                           \
    do {                                                                                                               \
        if ((pointer) == NULL) host_alloc_failed(#pointer, __FILE__, __LINE__);                                        \
    } while (0)

/* malloc that never returns NULL: on failure it says how much `what` needed
 * and exits 2 (the size asked for is too large for this machine). */
void *host_alloc(const char *program, size_t bytes, const char *what);

/* Selects device `device`, prints "Device 0: NAME, compute capability X.Y, ..."
 * and fills *properties. With no usable device, prints a plain sentence that
 * says why (no driver, no device) and exits 77; with --device out of range,
 * exits 2. */
void gpu_select_device(const char *program, int device, struct cudaDeviceProp *properties);

/* Exits 2 with a clear line when `bytes` of device memory (what the run needs
 * in all) are more than the device has free. `what` names the request. */
void gpu_require_memory(const char *program, double bytes, const char *what);

/* Fills device memory with 0xFF bytes: NaN for float and double, so an
 * output element that a kernel forgot to write fails its check. */
void gpu_poison(void *device_pointer, size_t bytes);

/* Runs launch(context) twice as warm-up, then `reps` times, each between two
 * CUDA events, and returns the median in milliseconds. launch() must only
 * enqueue work on the default stream. */
typedef void (*gpu_launch_fn)(void *context);
double gpu_time_median_ms(gpu_launch_fn launch, void *context, int reps);

/* The same, with setup(context) run before each launch but outside the timed
 * region (e.g. restoring an input that the kernel overwrites). */
double gpu_time_median_ms_after_setup(gpu_launch_fn setup, gpu_launch_fn launch, void *context, int reps);

/* The copy ceiling of this run: a device-to-device cudaMemcpy of at least
 * 256 MiB (well over the H100's 50 MB L2, so it measures DRAM) or `bytes` if
 * larger, counting bytes read plus bytes written. Median of `reps`, in GB/s. */
double gpu_copy_bandwidth_gbps(double bytes, int reps);

#ifdef __cplusplus
}
#endif
#endif
