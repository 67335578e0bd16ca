/* Transitional: the function-pointer timing the chapters used before
 * common/ became header-only. Removed once every chapter times with
 * TIME_MEDIAN_MS (book.h). */
#ifndef COMMON_GPU_H
#define COMMON_GPU_H

#include "book.h"

typedef void (*gpu_launch_fn)(void *context);

static inline double gpu_time_median_ms_after_setup(gpu_launch_fn setup, gpu_launch_fn launch, void *context,
                                                    int reps) {
    double ms;
    TIME_MEDIAN_MS_AFTER(ms, reps, if (setup) setup(context), launch(context));
    return ms;
}

static inline double gpu_time_median_ms(gpu_launch_fn launch, void *context, int reps) {
    return gpu_time_median_ms_after_setup(NULL, launch, context, reps);
}

static inline double gpu_copy_bandwidth_gbps(double bytes, int reps) { return gpu_memcpy_gbps(bytes, reps); }

#endif
