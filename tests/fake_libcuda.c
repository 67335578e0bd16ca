/* A stand-in for the NVIDIA driver library (libcuda.so.1) whose cuInit fails
 * with the CUresult given in FAKE_CUINIT_RESULT: with LD_LIBRARY_PATH pointing
 * at it, a program meets a driver that is installed but broken (system not
 * ready, devices unavailable, a driver/module mismatch, an unknown error),
 * which it must report as exit 3, never as "no device" (77, skipped).
 * The CUDA runtime finds the driver's entry points through cuGetProcAddress. */
#include <stdlib.h>
#include <string.h>

static int fake_init(unsigned int flags) {
    (void)flags;
    const char *result = getenv("FAKE_CUINIT_RESULT");
    return result ? atoi(result) : 999; /* CUDA_ERROR_UNKNOWN */
}

static int fake_driver_version(int *version) {
    *version = 13000;
    return 0;
}

int cuGetProcAddress_v2(const char *symbol, void **function, int version, unsigned long long flags, int *status) {
    (void)version;
    (void)flags;
    *function = NULL;
    if (strcmp(symbol, "cuInit") == 0) *function = (void *)fake_init;
    if (strcmp(symbol, "cuDriverGetVersion") == 0) *function = (void *)fake_driver_version;
    if (strcmp(symbol, "cuGetProcAddress") == 0) *function = (void *)cuGetProcAddress_v2;
    if (status) *status = *function != NULL;
    return *function ? 0 : 500; /* CUDA_ERROR_NOT_FOUND */
}

int cuInit(unsigned int flags) { return fake_init(flags); }
int cuDriverGetVersion(int *version) { return fake_driver_version(version); }
