/* The book's header, modern: what CUDA by Example's book.h and Fan Zheyong's
 * error.cuh give every program, and the one header a learner reads.
 *   - exit codes; HANDLE_ERROR after every CUDA call, CHECK_LAUNCH after
 *     every <<<...>>>, HANDLE_NULL after every malloc;
 *   - gpu_select_device: says plainly when there is no GPU (exit 77) and when
 *     the GPU or its driver is there but broken (exit 3);
 *   - gpu_poison: fills an output with NaN before a kernel writes it;
 *   - time_median_ms: CUDA events around a launch, the median of repeats.
 * Header-only and plain C (usable from C and CUDA): every function is static
 * inline, so any number of files may include it. Link with the CUDA runtime.
 * The other headers in common/ are the harness: a learner need not open them. */
#ifndef COMMON_BOOK_H
#define COMMON_BOOK_H

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Exit codes of every example (the README's table says the same). */
enum exit_code {
    EXIT_ALL_PASSED = 0,
    EXIT_WRONG_RESULT = 1,
    EXIT_BAD_COMMAND_LINE = 2,
    EXIT_CUDA_ERROR = 3,      /* a CUDA call failed: the GPU or its driver is there but broken */
    EXIT_DEADLOCK = 4,        /* a deliberately wrong kernel hung its block (ch05_dot --kernel barrier_deadlock) */
    EXIT_IMAGE_NOT_SAVED = 5, /* the result was right, but the image could not be saved (a wrong result wins: 1) */
    EXIT_NO_DEVICE = 77       /* no CUDA device, or no driver at all, or on the CPU runner only kernels it cannot
                                 run (a library's: report.h): CTest reads it as "skipped" */
};

// ---------------------------------------------------------------------------
// Errors.

/* Prints file:line, the call, the error's name and text, and exits 3. */
static inline void cuda_fail(cudaError_t error, const char *call, const char *file, int line) {
    fprintf(stderr, "%s:%d: CUDA error %s (%s) in %s\n", file, line, cudaGetErrorName(error), cudaGetErrorString(error),
            call);
    if (error == cudaErrorNoKernelImageForDevice || error == cudaErrorUnsupportedPtxVersion)
        fprintf(stderr, "This build has no code for this GPU: rebuild for it, with CMake "
                        "-DCMAKE_CUDA_ARCHITECTURES=native, or with nvcc -arch=native.\n");
    exit(EXIT_CUDA_ERROR);
}

/* HANDLE_ERROR(cudaMalloc(&p, bytes)); every CUDA runtime call goes through it. */
#define HANDLE_ERROR(call)                                                                                             \
    do {                                                                                                               \
        cudaError_t handle_error_status_ = (call);                                                                     \
        if (handle_error_status_ != cudaSuccess) cuda_fail(handle_error_status_, #call, __FILE__, __LINE__);           \
    } while (0)

/* After every <<<...>>> launch: a bad configuration is reported here. */
#define CHECK_LAUNCH() HANDLE_ERROR(cudaGetLastError())

/* A host allocation that returned NULL: the size asked for does not fit on
 * this machine, which is a matter of the command line (exit 2). */
#define HANDLE_NULL(pointer)                                                                                           \
    do {                                                                                                               \
        if ((pointer) == NULL) {                                                                                       \
            fprintf(stderr, "%s:%d: out of host memory (%s is NULL): the size asked for does not fit\n", __FILE__,     \
                    __LINE__, #pointer);                                                                               \
            exit(EXIT_BAD_COMMAND_LINE);                                                                               \
        }                                                                                                              \
    } while (0)

/* malloc that never returns NULL: on failure it says how much `what` needed
 * and exits 2. */
static inline void *host_alloc(const char *program, size_t bytes, const char *what) {
    void *pointer = malloc(bytes ? bytes : 1);
    if (pointer == NULL) {
        fprintf(stderr, "%s: %s needs %.2f GiB of host memory, which could not be allocated\n", program, what,
                (double)bytes / (1 << 30));
        exit(EXIT_BAD_COMMAND_LINE);
    }
    return pointer;
}

// ---------------------------------------------------------------------------
// The device.

/* What the first CUDA call's error means for the exit code: 77 only when
 * there is no GPU to run on (no device, or no driver installed at all);
 * anything else (a driver too old, a driver/module mismatch, devices busy or
 * unavailable, "system not ready", an unknown error) is a broken machine, 3,
 * so that a test suite never reports a broken GPU as "skipped". */
static inline int exit_code_for_init_error(cudaError_t error, int driver_library_present) {
    if (error == cudaErrorNoDevice) return EXIT_NO_DEVICE;
    if (error == cudaErrorInsufficientDriver && !driver_library_present) return EXIT_NO_DEVICE;
    return EXIT_CUDA_ERROR;
}

/* 1 when the driver library (libcuda.so.1) can be loaded: it tells "no
 * driver at all" from "a driver older than this runtime", which the runtime
 * reports with the same error. */
static inline int cuda_driver_library_present(void) {
    void *library = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (library == NULL) return 0;
    dlclose(library);
    return 1;
}

/* Without a GPU a program can still be read: what it printed on the GPUs it ran
 * on (an H100, an H200) is in the repository, in its chapter's lesson and the GPU
 * runs' logs.
 * Its chapter's folder: the build's (CMake: -DPROGRAM_FOLDER="ch05_dot"), or,
 * built alone, the folder the program lies in when that is a chapter's. */
static inline void gpu_say_where_outputs_are(const char *program) {
#ifdef PROGRAM_FOLDER
    const char *folder = PROGRAM_FOLDER;
#else
    char path[4096];
    ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    path[length > 0 ? length : 0] = '\0';
    char *slash = strrchr(path, '/');
    if (slash == NULL) return;
    *slash = '\0';
    const char *folder = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (strncmp(folder, "ch", 2) != 0) return;
#endif
    fprintf(stderr,
            "%s: what it printed on the GPUs it ran on is committed: %s/README.md (the lesson and its runs), "
            "docs/results/{h100,h200}/examples.log ('=== %s/%s'); tables and plots: docs/RESULTS.md\n",
            program, folder, folder, program);
}

/* Selects device `device`, prints "Device 0: NAME, compute capability X.Y,
 * ..." and fills *properties. No GPU: a plain sentence, where the outputs of
 * a GPU run are, and exit 77; a broken one: the error and exit 3; --device
 * out of range: exit 2. */
static inline void gpu_select_device(const char *program, int device, struct cudaDeviceProp *properties) {
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status == cudaSuccess && count == 0) status = cudaErrorNoDevice;
    if (status != cudaSuccess) {
        int driver_present = cuda_driver_library_present();
        int code = exit_code_for_init_error(status, driver_present);
        if (code == EXIT_NO_DEVICE) {
            fprintf(stderr, "%s: no CUDA device was found: %s. Nothing was run.\n", program,
                    status == cudaErrorNoDevice ? "the driver is present but sees no GPU"
                                                : "no NVIDIA driver is installed (libcuda.so.1 is missing)");
            fprintf(stderr, "%s: without a GPU its kernels run on the CPU runner, every race and barrier error "
                            "reported with its line: %s --cpu (docs/CPU_RUNNER.md)\n", program, program);
            gpu_say_where_outputs_are(program);
        } else
            fprintf(stderr, "%s: the CUDA device or driver is broken: %s (%s). Nothing was run.\n", program,
                    cudaGetErrorName(status), cudaGetErrorString(status));
        exit(code);
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

/* Exits 2 with a clear line when `bytes` of device memory (what the run needs
 * in all) are more than the device has free. `what` names the request. */
static inline void gpu_require_memory(const char *program, double bytes, const char *what) {
    size_t free_bytes = 0, total_bytes = 0;
    HANDLE_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes > (double)free_bytes) {
        fprintf(stderr, "%s: %s needs %.2f GiB of device memory, but only %.2f GiB of %.2f GiB are free\n", program,
                what, bytes / (1 << 30), (double)free_bytes / (1 << 30), (double)total_bytes / (1 << 30));
        exit(EXIT_BAD_COMMAND_LINE);
    }
}

/* Waits for `done` (an event recorded after some work) for at most `seconds`
 * on the host's clock: 1 when the work before it finished, 0 when it is still
 * running (a hung kernel cannot be stopped from the host, but ending the
 * process ends it). */
static inline int finished_within(cudaEvent_t done, double seconds) {
    struct timespec start, now, pause = {0, 1000000}; /* polls every 1 ms */
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        cudaError_t status = cudaEventQuery(done);
        if (status == cudaSuccess) return 1;
        if (status != cudaErrorNotReady)
            cuda_fail(status, "cudaEventQuery (waiting for the kernel)", __FILE__, __LINE__);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - start.tv_sec) + 1e-9 * (double)(now.tv_nsec - start.tv_nsec) > seconds) return 0;
        nanosleep(&pause, NULL);
    }
}

/* Fills device memory with 0xFF bytes: NaN for float and double, -1 for
 * integers, so an output element that a kernel forgot to write fails its check. */
static inline void gpu_poison(void *device_pointer, size_t bytes) {
    HANDLE_ERROR(cudaMemset(device_pointer, 0xFF, bytes));
}

// ---------------------------------------------------------------------------
// Timing: CUDA events around the launch only, after two warm-up runs, the
// median of `reps` runs (setup and launch run TIME_WARMUP_RUNS + reps times).
// From CUDA code, with lambdas:
//
//   double ms = time_median_ms(reps, [&] { my_kernel<<<blocks, threads>>>(a, b, n); });
//   double ms = time_median_ms(reps, [&] { restore_input(); }, [&] { my_kernel<<<blocks, threads>>>(x, n); });
//
// The second form runs its first lambda before each launch, outside the timed
// region (the book's global-memory reduction destroys its input). Each launch
// is checked (CHECK_LAUNCH) and waited for.

/* Records `stop`, waits for it, and returns the milliseconds since `start`. */
static inline double gpu_elapsed_ms(cudaEvent_t start, cudaEvent_t stop) {
    float ms = 0;
    HANDLE_ERROR(cudaEventRecord(stop, 0));
    HANDLE_ERROR(cudaEventSynchronize(stop));
    HANDLE_ERROR(cudaEventElapsedTime(&ms, start, stop));
    return ms;
}

#define TIME_WARMUP_RUNS 2 /* untimed launches before the timed ones: module load, caches, clocks */

static inline int compare_doubles_(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of count values (sorts them in place). NAN when count is 0. */
static inline double median_of(double *values, int count) {
    if (count <= 0) return NAN;
    qsort(values, (size_t)count, sizeof *values, compare_doubles_);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

#ifdef __cplusplus
template <typename Setup, typename Launch> static double time_median_ms(int reps, Setup setup, Launch launch) {
    cudaEvent_t start, stop;
    double *times = (double *)malloc(sizeof(double) * (size_t)(reps > 0 ? reps : 1));
    HANDLE_NULL(times);
    HANDLE_ERROR(cudaEventCreate(&start));
    HANDLE_ERROR(cudaEventCreate(&stop));
    for (int rep = -TIME_WARMUP_RUNS; rep < reps; ++rep) { /* rep < 0: a warm-up, not kept */
        setup();
        HANDLE_ERROR(cudaEventRecord(start, 0));
        launch();
        CHECK_LAUNCH();
        const double ms = gpu_elapsed_ms(start, stop);
        if (rep >= 0) times[rep] = ms;
    }
    const double median = median_of(times, reps);
    HANDLE_ERROR(cudaEventDestroy(start));
    HANDLE_ERROR(cudaEventDestroy(stop));
    free(times);
    return median;
}

template <typename Launch> static double time_median_ms(int reps, Launch launch) {
    return time_median_ms(
        reps, [] {}, launch);
}
#endif

#endif
