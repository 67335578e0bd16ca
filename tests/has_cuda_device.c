/* The test wrappers' probe: exits 0 when a usable CUDA device exists, 77 when
 * there is none (or no driver at all), 3 when the GPU or its driver is broken,
 * with the same classification as every example (common/book.h). */
#include "book.h"

int main(void) {
    struct cudaDeviceProp properties;
    gpu_select_device("has_cuda_device", 0, &properties); /* exits 77 or 3 when it cannot */
    return 0;
}
