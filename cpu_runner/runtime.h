/* What cuda_on_cpu.h (the kernels' side) calls in runtime.c (the scheduler,
 * the race detector and the CUDA runtime calls on the host). Plain C. */
#ifndef CUDA_CPU_RUNTIME_H
#define CUDA_CPU_RUNTIME_H

#include <stddef.h>
#include <driver_types.h> /* cudaError_t */
#include <vector_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The running CUDA thread's built-in variables; the scheduler sets them at each switch. */
extern uint3 cuda_cpu_threadIdx, cuda_cpu_blockIdx;
extern dim3 cuda_cpu_blockDim, cuda_cpu_gridDim;

/* Runs body(argument) once per CUDA thread of the grid, block after block; returns when all ended.
 * file:line and kernel are the launch's, for the messages. */
void cuda_cpu_launch(dim3 grid, dim3 block, size_t dynamic_shared_bytes, void (*body)(void *), void *argument,
                     const char *file, int line, const char *kernel);
void cuda_cpu_syncthreads(const char *file, int line);
void cuda_cpu_syncwarp(unsigned mask, const char *file, int line);
/* The four shuffles: which lane a lane reads (lane_argument: delta, lane mask or source lane) */
enum cuda_cpu_shuffle { CUDA_CPU_SHFL_DOWN, CUDA_CPU_SHFL_UP, CUDA_CPU_SHFL_XOR, CUDA_CPU_SHFL_IDX };
unsigned long long cuda_cpu_shfl(unsigned mask, unsigned long long value, int shuffle, int lane_argument, int width,
                                 const char *file, int line);
void *cuda_cpu_dynamic_shared(void);
size_t cuda_cpu_shared_offset(const void *address);
void cuda_cpu_atomic_access(void *address, size_t size, const void *code_address);
void cuda_cpu_no_ptx(const char *file, int line);
/* cudaFuncSetAttribute(kernel, attribute, value), its arguments also as written ("kernel, attribute, value"). */
cudaError_t cuda_cpu_func_set_attribute(const char *arguments, const void *function, enum cudaFuncAttribute attribute,
                                        int value);
long long cuda_cpu_clock64(void);

const char *cuda_cpu_order_name(void); /* "forward", "reverse", "random:SEED" or "lockstep" */

#ifdef __cplusplus
}
#endif
#endif
