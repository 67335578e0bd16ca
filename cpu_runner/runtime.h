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

/* The GPU the runner models: an H100's limits (host_api.c answers cudaGetDeviceProperties with them). */
#define CUDA_CPU_MAX_THREADS 1024
#define CUDA_CPU_WARP 32
#define CUDA_CPU_SHARED_PER_BLOCK (48 * 1024)        /* what a block gets without the opt-in */
#define CUDA_CPU_SHARED_PER_BLOCK_OPTIN (227 * 1024) /* what an H100 lets one block opt in to */
#define CUDA_CPU_SHARED_PER_SM (228 * 1024)
#define CUDA_CPU_SHARED_RESERVED 1024 /* per block, by the system */

/* A kernel's fault (misaligned, illegal address): every later call returns it, as on a GPU. */
cudaError_t cuda_cpu_sticky_error(void);
long cuda_cpu_findings_total(void); /* every finding so far, each time it happened (common/report.h reads it) */
/* What the next cudaGetLastError returns (a launch refused). */
void cuda_cpu_set_last_error(cudaError_t error);

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
/* A warp operation that hands every lane taking part the values of all of them (the votes, __match_*,
 * __reduce_*_sync and cooperative groups' tile operations are built on it): it waits, like a shuffle,
 * until every lane its mask names has arrived (a lane that exited: a finding), then returns the lanes
 * that took part (bit i: lane i of the caller's warp) with values[i] their values. */
unsigned cuda_cpu_warp_gather(unsigned mask, unsigned long long value, unsigned long long values[32], const char *file,
                              int line);
/* __syncthreads_count: a barrier that returns how many threads of the block brought a non-zero predicate. */
int cuda_cpu_syncthreads_count(int predicate, const char *file, int line);
/* __activemask(): the lanes of the caller's warp that have not exited. */
unsigned cuda_cpu_active_mask(void);
/* __threadfence(): the calling thread's earlier global stores are seen before its later ones (and its
 * atomics) by every block: the race detector's "released" mark. */
void cuda_cpu_threadfence(void);
/* <cuda_pipeline.h>'s primitives (cpu_runner/stubs/cuda_pipeline_primitives.h calls these): the calling
 * thread's asynchronous copy of size_and_align - zfill bytes from global memory, then zfill zero bytes,
 * into shared memory (pending until it lands); its commit, which closes a batch of its copies; its wait,
 * which lands every batch of its own but the newest prior ones. runtime.c says how they are checked. */
void cuda_cpu_pipeline_memcpy_async(void *dst_shared, const void *src_global, size_t size_and_align, size_t zfill);
void cuda_cpu_pipeline_commit(void);
void cuda_cpu_pipeline_wait_prior(size_t prior);
/* Device memory: every allocation tracked, with room around it that no allocation holds (an access
 * there is out of bounds). DEVICE: cudaMalloc; MANAGED: cudaMallocManaged (the host may touch it);
 * HOST: cudaMallocHost/cudaHostAlloc (pinned host memory a kernel may read). */
enum cuda_cpu_memory { CUDA_CPU_DEVICE, CUDA_CPU_MANAGED, CUDA_CPU_HOST };
cudaError_t cuda_cpu_allocate(void **pointer, size_t size, enum cuda_cpu_memory kind);
cudaError_t cuda_cpu_free(void *pointer, enum cuda_cpu_memory kind);
/* 1, with the allocation holding the address (its start, size and kind), or 0: cudaPointerGetAttributes. */
int cuda_cpu_allocation_of(const void *address, void **base, size_t *size, enum cuda_cpu_memory *kind);
void cuda_cpu_free_all(void); /* cudaDeviceReset */
/* The dynamic shared memory a launch of this kernel may ask: 48 KB, or what cudaFuncSetAttribute opted in to. */
size_t cuda_cpu_func_max_dynamic_shared(const void *function);
/* The host wrote these bytes (cudaMemcpy, cudaMemset, cudaMemcpyToSymbol): not "never written". */
void cuda_cpu_host_wrote(const void *address, size_t size);
void *cuda_cpu_dynamic_shared(void);
/* A __shared__ variable (source.py's rewrite of its declaration): its place in the block's shared memory,
 * made at the first call, with bytes after it that no variable holds (an index past it is reported). */
typedef struct {
    int index;
} cuda_cpu_shared_slot;
void *cuda_cpu_static_shared(cuda_cpu_shared_slot *slot, size_t size, size_t align, const char *name,
                             const char *file, int line);
int cuda_cpu_is_shared(const void *address);
size_t cuda_cpu_shared_offset(const void *address);
void cuda_cpu_atomic_access(void *address, size_t size, const void *code_address);
void cuda_cpu_no_ptx(const char *file, int line);
/* What only a GPU runs (a cluster launch): one line naming file:line, exit 3. */
void cuda_cpu_needs_a_gpu(const char *file, int line, const char *what) __attribute__((noreturn));
/* cudaFuncSetAttribute(kernel, attribute, value), its arguments also as written ("kernel, attribute, value"). */
cudaError_t cuda_cpu_func_set_attribute(const char *arguments, const void *function, enum cudaFuncAttribute attribute,
                                        int value);
long long cuda_cpu_clock64(void);
/* printf, in a kernel printed warp by warp in lane order at the end of each of the scheduler's passes */
int cuda_cpu_printf_at(int line, const char *format, ...) __attribute__((format(printf, 2, 3)));

const char *cuda_cpu_order_name(void); /* "forward", "reverse", "random:SEED" or "lockstep" */

#ifdef CUDA_CPU_RUNTIME_SOURCE
/* warp_accesses.c: each warp instruction's shared and global accesses, rebuilt from its lanes, counted
 * (CUDA_CPU_ACCESSES=FILE); runtime.c calls these while cuda_cpu_accesses_on. */
extern int cuda_cpu_accesses_on;
void cuda_cpu_accesses_launch(void); /* a launch begins (the first opens FILE) */
void cuda_cpu_access(const void *address, unsigned bytes, int is_write, const void *code, int is_global);
void cuda_cpu_accesses_sync(void); /* the running thread waits at a barrier or a warp operation */
void cuda_cpu_accesses_block_done(void);
void cuda_cpu_accesses_launch_done(const char *kernel);
#endif

#ifdef CUDA_CPU_RUNTIME_SOURCE /* the runner's own copies are not the program's accesses (flags.txt: wrap) */
#include <string.h>
void *__real_memcpy(void *to, const void *from, size_t size);
void *__real_memmove(void *to, const void *from, size_t size);
void *__real_memset(void *to, int value, size_t size);
#include <stdlib.h>
void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *pointer, size_t size);
void __real_free(void *pointer);
#define memcpy __real_memcpy
#define memmove __real_memmove
#define memset __real_memset
#define malloc __real_malloc
#define calloc __real_calloc
#define realloc __real_realloc
#define free __real_free
#endif

#ifdef __cplusplus
}
#endif
#endif
