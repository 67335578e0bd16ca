/* The CPU runner's view of CUDA, included before a chapter's .cu when it is
 * built for the CPU (g++, never nvcc). It keeps the CUDA runtime's own header
 * for the types and the API (cudaMalloc, dim3, float4, ...; runtime.c
 * implements those calls on the host) and gives the device side plain C++
 * meanings: a kernel is a function each CUDA thread runs as a fiber, a
 * __shared__ array is one static array that the blocks use one after another,
 * __syncthreads() and the warp operations wait in runtime.c's scheduler.
 * The kernels stay as the lesson writes them: source.py turns each
 * kernel<<<grid, block, bytes>>>(args) into a call of cuda_cpu_launcher, and
 * each extern __shared__ array into a pointer to the block's dynamic buffer.
 * Every load and store of the kernels is seen by runtime.c (gcc's
 * -fsanitize=thread instrumentation, with runtime.c's hooks instead of
 * ThreadSanitizer's runtime): the shared-memory race, the read of a word no
 * thread wrote, the barrier some threads skip. docs/CPU_RUNNER.md says why. */
#ifndef CUDA_ON_CPU_H
#define CUDA_ON_CPU_H

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runtime.h"

extern "C" int cuda_cpu_program_main(int argc, char **argv); /* the program's main, renamed (runtime.c's main calls it) */

#undef __global__
#undef __device__
#undef __host__
#undef __shared__
#undef __forceinline__
#undef __launch_bounds__
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static /* one array for every block: runtime.c poisons it at each block's start */

#define threadIdx cuda_cpu_threadIdx
#define blockIdx cuda_cpu_blockIdx
#define blockDim cuda_cpu_blockDim
#define gridDim cuda_cpu_gridDim
#define warpSize 32

#define __syncthreads() cuda_cpu_syncthreads(__FILE__, __LINE__)
#define __syncwarp(...) cuda_cpu_syncwarp_at(__FILE__, __LINE__, ##__VA_ARGS__)
#define __shfl_down_sync(...) cuda_cpu_shfl_at(__FILE__, __LINE__, CUDA_CPU_SHFL_DOWN, __VA_ARGS__)
#define __shfl_up_sync(...) cuda_cpu_shfl_at(__FILE__, __LINE__, CUDA_CPU_SHFL_UP, __VA_ARGS__)
#define __shfl_xor_sync(...) cuda_cpu_shfl_at(__FILE__, __LINE__, CUDA_CPU_SHFL_XOR, __VA_ARGS__)
#define __shfl_sync(...) cuda_cpu_shfl_at(__FILE__, __LINE__, CUDA_CPU_SHFL_IDX, __VA_ARGS__)
#define CUDA_CPU_INLINE_PTX(...) cuda_cpu_no_ptx(__FILE__, __LINE__) /* source.py's stand-in for asm(...) */

#define CUDA_CPU_QUIET __attribute__((no_sanitize_thread)) inline /* the runner's own accesses: not the kernel's */

static inline void cuda_cpu_syncwarp_at(const char *file, int line, unsigned mask = 0xffffffffu) {
    cuda_cpu_syncwarp(mask, file, line);
}

template <typename T>
CUDA_CPU_QUIET T cuda_cpu_shfl_at(const char *file, int line, int shuffle, unsigned mask, T value, int lane_argument,
                                  int width = 32) {
    static_assert(sizeof(T) <= 8, "a shuffle moves at most 8 bytes");
    unsigned long long bits = 0;
    memcpy(&bits, &value, sizeof(T));
    bits = cuda_cpu_shfl(mask, bits, shuffle, lane_argument, width, file, line);
    memcpy(&value, &bits, sizeof(T));
    return value;
}

/* Loads and stores with a cache hint are plain loads and stores here. */
template <typename T> static inline T __ldg(const T *p) { return *p; }
template <typename T> static inline T __ldcg(const T *p) { return *p; }
template <typename T> static inline T __ldca(const T *p) { return *p; }
template <typename T> static inline T __ldcs(const T *p) { return *p; }
template <typename T> static inline void __stcs(T *p, T value) { *p = value; }

/* One OS thread runs every CUDA thread, one at a time: an atomic is a plain
 * read-modify-write that the race detector sees as one atomic access. */
#define CUDA_CPU_ATOMIC(name, T, expression)                                                                           \
    CUDA_CPU_QUIET T name(T *address, T value) {                                                                     \
        cuda_cpu_atomic_access(address, sizeof(T), __builtin_return_address(0));                                     \
        T old = *address;                                                                                              \
        *address = (expression);                                                                                       \
        return old;                                                                                                    \
    }
CUDA_CPU_ATOMIC(atomicAdd, int, old + value)
CUDA_CPU_ATOMIC(atomicAdd, unsigned, old + value)
CUDA_CPU_ATOMIC(atomicAdd, unsigned long long, old + value)
CUDA_CPU_ATOMIC(atomicAdd, float, old + value)
CUDA_CPU_ATOMIC(atomicAdd, double, old + value)
CUDA_CPU_ATOMIC(atomicMax, int, old > value ? old : value)
CUDA_CPU_ATOMIC(atomicMax, unsigned, old > value ? old : value)
CUDA_CPU_ATOMIC(atomicMax, unsigned long long, old > value ? old : value)
CUDA_CPU_ATOMIC(atomicExch, unsigned, value)
CUDA_CPU_QUIET unsigned long long atomicCAS(unsigned long long *address, unsigned long long compare,
                                            unsigned long long value) {
    cuda_cpu_atomic_access(address, sizeof *address, __builtin_return_address(0));
    unsigned long long old = *address;
    if (old == compare) *address = value;
    return old;
}
/* One thread at a time: every store is already seen, by the block, the grid and the host alike. */
static inline void __threadfence_block(void) {}
static inline void __threadfence(void) {}
static inline void __threadfence_system(void) {}

static inline long long __double_as_longlong(double x) {
    long long bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}
static inline double __longlong_as_double(long long bits) {
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}
static inline int __double2hiint(double x) { return (int)(__double_as_longlong(x) >> 32); }
static inline int __double2loint(double x) { return (int)__double_as_longlong(x); }
static inline long long clock64(void) { return cuda_cpu_clock64(); }
/* The offset of a shared variable in the block's shared memory (cuda_cpu_shared_offset: how near a GPU's). */
static inline size_t __cvta_generic_to_shared(const void *p) { return cuda_cpu_shared_offset(p); }

/* What common/cli.h asks of the runner's build. */
#define ON_CPU_RUNNER 1
static inline int cpu_runner_skips(const char *kernel, const char *why) {
    printf("%-18s not on the CPU runner: %s\n", kernel, why);
    return 1;
}
/* After the options are parsed: every run is --check (a CPU's time says nothing of a GPU's), at the
 * program's cpu_default_n unless --n, --rows or --cols is given. */
template <typename Spec, typename Options>
static void cpu_runner_take_options(const Spec *spec, Options *o) {
    if (o->bank_model) return;
    o->check_only = 1;
    printf("CPU runner: CUDA's rules on this CPU, one block at a time, thread order %s; every kernel checked, "
           "none timed.\n", cuda_cpu_order_name());
    if (!spec->cpu_default_n || o->size_given) return;
    o->n = spec->cpu_default_n;
    if (spec->default_rows) /* --n N means N x N */
        o->rows = o->cols = spec->cpu_default_n, o->n *= spec->cpu_default_n;
    printf("CPU runner: --n %lld by default here (the book's %lld runs too, slowly: --n %lld).\n", spec->cpu_default_n,
           spec->default_rows ? spec->default_rows : spec->default_n,
           spec->default_rows ? spec->default_rows : spec->default_n);
}

/* nvcc's cuda_runtime.h takes a kernel itself here; the runner also takes its name as written, which
 * the kernel's launches write the same way: a launch past 48 KB of dynamic shared memory without the
 * kernel's opt-in is refused, as on a GPU. */
#define cudaFuncSetAttribute(...) cuda_cpu_func_set_attribute(#__VA_ARGS__, (const void *)__VA_ARGS__)

/* kernel<<<grid, block, bytes, stream>>>(args) becomes
 * cuda_cpu_launcher(file, line, "kernel", [&](auto... a) { kernel(a...); }, grid, block, bytes)(args):
 * the arguments are evaluated once, and each CUDA thread calls the kernel with its own copy. */
template <typename Call> struct cuda_cpu_launch_config {
    const char *file;
    int line;
    const char *kernel;
    Call call;
    dim3 grid, block;
    size_t dynamic_shared_bytes;
    template <typename... Args> void operator()(Args... args) {
        auto each_thread = [&]() { call(args...); };
        cuda_cpu_launch(grid, block, dynamic_shared_bytes, &run_one<decltype(each_thread)>, &each_thread, file, line,
                        kernel);
    }
    template <typename F> static void run_one(void *f) { (*static_cast<F *>(f))(); }
};
template <typename Call>
static cuda_cpu_launch_config<Call> cuda_cpu_launcher(const char *file, int line, const char *kernel, Call call,
                                                      dim3 grid, dim3 block, size_t dynamic_shared_bytes = 0,
                                                      cudaStream_t = 0) {
    return cuda_cpu_launch_config<Call>{file, line, kernel, call, grid, block, dynamic_shared_bytes};
}

#endif
