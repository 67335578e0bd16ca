/* Unit tests of common/book.h that need no GPU: which CUDA initialisation
 * errors mean "no GPU here" (exit 77, a skipped test) and which mean "a GPU
 * or driver that is there but broken" (exit 3, a failed test); the median
 * time_median_ms reports. */
#include "book.h"
#include "unit.h"

static void test_init_errors(void) {
    /* No GPU to run on: skipped. */
    CHECK(exit_code_for_init_error(cudaErrorNoDevice, 1) == EXIT_NO_DEVICE);
    CHECK(exit_code_for_init_error(cudaErrorNoDevice, 0) == EXIT_NO_DEVICE);
    CHECK(exit_code_for_init_error(cudaErrorInsufficientDriver, 0) == EXIT_NO_DEVICE);
    /* A driver that is installed but too old, or any broken state: failed. */
    CHECK(exit_code_for_init_error(cudaErrorInsufficientDriver, 1) == EXIT_CUDA_ERROR);
    CHECK(exit_code_for_init_error(cudaErrorSystemNotReady, 1) == EXIT_CUDA_ERROR);
    CHECK(exit_code_for_init_error(cudaErrorDevicesUnavailable, 1) == EXIT_CUDA_ERROR);
    CHECK(exit_code_for_init_error(cudaErrorSystemDriverMismatch, 1) == EXIT_CUDA_ERROR);
    CHECK(exit_code_for_init_error(cudaErrorCompatNotSupportedOnDevice, 1) == EXIT_CUDA_ERROR);
    CHECK(exit_code_for_init_error(cudaErrorUnknown, 1) == EXIT_CUDA_ERROR);
    CHECK(exit_code_for_init_error(cudaErrorInitializationError, 0) == EXIT_CUDA_ERROR);
}

static void test_host_alloc(void) {
    void *p = host_alloc("test_book", 16, "sixteen bytes");
    CHECK(p != NULL);
    free(p);
}

static void test_median(void) {
    double odd[] = {5, 1, 3};
    double even[] = {4, 1, 3, 2};
    CHECK(median_of(odd, 3) == 3);
    CHECK(median_of(even, 4) == 2.5);
    CHECK(isnan(median_of(odd, 0)));
}

int main(void) {
    test_init_errors();
    test_host_alloc();
    test_median();
    return unit_finish("test_book");
}
