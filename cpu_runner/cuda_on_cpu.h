/* The CPU runner's view of CUDA, included before a .cu built for the CPU (g++, never nvcc). It keeps
 * the CUDA runtime's own header for the types and the API (cudaMalloc, dim3, float4, ...; runtime.c and
 * host_api.c implement those calls on the host) and gives the device side plain C++ meanings: a kernel
 * is a function each CUDA thread runs as a fiber, __syncthreads() and the warp operations wait in
 * runtime.c's scheduler, and every atomic and intrinsic a kernel calls is a function here. The kernels
 * stay as written: source.py turns each kernel<<<grid, block, bytes>>>(args) into a call of
 * cuda_cpu_launcher, each __shared__ declaration into a reference to its place in the block's shared
 * memory, and each extern __shared__ array into a pointer to the launch's dynamic bytes. Every load and
 * store is seen by runtime.c (gcc's -fsanitize=thread instrumentation, with runtime.c's hooks instead of
 * ThreadSanitizer's runtime). docs/CPU_RUNNER.md says why. */
#ifndef CUDA_ON_CPU_H
#define CUDA_ON_CPU_H

/* The built-in variables are the scheduler's (runtime.c); gridDim and blockDim are renamed before the
 * runtime's header too, so that its structs' members of those names (cudaLaunchConfig_t's) are found
 * under the same names. */
#define threadIdx cuda_cpu_threadIdx
#define blockIdx cuda_cpu_blockIdx
#define blockDim cuda_cpu_blockDim
#define gridDim cuda_cpu_gridDim
#include <cuda_runtime.h>
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <limits>
#include <utility>

#include "runtime.h"


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
#define __shared__ static /* source.py rewrites each declaration into a place in the block's shared memory */

/* A kernel's printf prints as a warp's does: lane after lane (runtime.c). */
#define printf(...) cuda_cpu_printf_at(__LINE__, __VA_ARGS__)
namespace std {
using ::cuda_cpu_printf_at;
}
static const int warpSize = 32; /* a constant, not a macro: cudaDeviceProp's warpSize is a field too */

#define __syncthreads() cuda_cpu_syncthreads(__FILE__, __LINE__)
#define __syncwarp(...) cuda_cpu_syncwarp_at(__FILE__, __LINE__, ##__VA_ARGS__)
#define __shfl_down_sync(...) cuda_cpu_shfl_at(__FILE__, __LINE__, CUDA_CPU_SHFL_DOWN, __VA_ARGS__)
#define __shfl_up_sync(...) cuda_cpu_shfl_at(__FILE__, __LINE__, CUDA_CPU_SHFL_UP, __VA_ARGS__)
#define __shfl_xor_sync(...) cuda_cpu_shfl_at(__FILE__, __LINE__, CUDA_CPU_SHFL_XOR, __VA_ARGS__)
#define __shfl_sync(...) cuda_cpu_shfl_at(__FILE__, __LINE__, CUDA_CPU_SHFL_IDX, __VA_ARGS__)
#define CUDA_CPU_INLINE_PTX(...) cuda_cpu_no_ptx(__FILE__, __LINE__) /* source.py's stand-in for asm(...) */

/* What the runner does not model and a program cannot run without: sm_90's Tensor Memory Accelerator and
 * thread block clusters. The build stops with one line where they are used (a kernel guarded by
 * #ifndef CUDA_CPU_RUNNER is not built here: docs/CPU_RUNNER.md); <cuda/barrier> and <cuda/ptx> stop it
 * at their #include (cpu_runner/stubs/cuda/). */
#define CUDA_CPU_NEEDS_SM90 "needs sm_90 and a GPU: the CPU runner does not model TMA/clusters"
void cuda_cpu_tma_or_cluster_ptx(void) __attribute__((error(CUDA_CPU_NEEDS_SM90 " (inline PTX of TMA, mbarrier or clusters)")));
#define CUDA_CPU_SM90_PTX(...) cuda_cpu_tma_or_cluster_ptx() /* source.py's stand-in for such an asm(...) */
#undef __cluster_dims__
#define __cluster_dims__(...) __attribute__((noinline, error(CUDA_CPU_NEEDS_SM90 " (a kernel with __cluster_dims__)")))

#define CUDA_CPU_QUIET __attribute__((no_sanitize_thread)) inline /* the runner's own accesses: not the kernel's */

static inline void cuda_cpu_syncwarp_at(const char *file, int line, unsigned mask = 0xffffffffu) {
    cuda_cpu_syncwarp(mask, file, line);
}

template <typename T>
CUDA_CPU_QUIET T cuda_cpu_shfl_at(const char *file, int line, int shuffle, unsigned mask, T value, int lane_argument,
                                  int width = 32) {
    static_assert(sizeof(T) <= 8, "a shuffle moves at most 8 bytes");
    unsigned long long bits = 0;
    __builtin_memcpy(&bits, &value, sizeof(T));
    bits = cuda_cpu_shfl(mask, bits, shuffle, lane_argument, width, file, line);
    __builtin_memcpy(&value, &bits, sizeof(T));
    return value;
}

/* Loads and stores with a cache hint are plain loads and stores here. */
template <typename T> static inline T __ldg(const T *p) { return *p; }
template <typename T> static inline T __ldcg(const T *p) { return *p; }
template <typename T> static inline T __ldca(const T *p) { return *p; }
template <typename T> static inline T __ldcs(const T *p) { return *p; }
template <typename T> static inline void __stcs(T *p, T value) { *p = value; }

/* ===== The device API a kernel calls (the CUDA Programming Guide's and the Math API's names) =====
 * Every function here runs in the calling CUDA thread's fiber. Those marked CUDA_CPU_QUIET are the
 * runner's own work (not a kernel's load or store: the race detector does not see them). */

/* The caller's rank in its block (x fastest) and its lane in its warp, as on a GPU. */
CUDA_CPU_QUIET unsigned cuda_cpu_thread_rank(void) {
    return cuda_cpu_threadIdx.x + cuda_cpu_blockDim.x * (cuda_cpu_threadIdx.y + cuda_cpu_blockDim.y * cuda_cpu_threadIdx.z);
}
CUDA_CPU_QUIET unsigned cuda_cpu_lane(void) { return cuda_cpu_thread_rank() % 32u; }

/* ----- Warp votes, __match_*, __reduce_*_sync: one cuda_cpu_warp_gather each ----- */
/* A vote counts the lanes its mask names that took part (every one of them, as an exited lane named
 * is a finding). file:line are the caller's (__builtin_FILE/LINE: a default argument is evaluated
 * where the call is written). */
CUDA_CPU_QUIET unsigned cuda_cpu_gather(unsigned mask, unsigned long long value, unsigned long long values[32],
                                        const char *file, int line) {
    return cuda_cpu_warp_gather(mask, value, values, file, line) & (mask | 1u << cuda_cpu_lane());
}
CUDA_CPU_QUIET unsigned __ballot_sync(unsigned mask, int predicate, const char *file = __builtin_FILE(),
                                      int line = __builtin_LINE()) {
    unsigned long long values[32];
    unsigned lanes = cuda_cpu_gather(mask, predicate != 0, values, file, line), ballot = 0;
    for (int lane = 0; lane < 32; ++lane)
        if ((lanes >> lane & 1) && values[lane]) ballot |= 1u << lane;
    return ballot;
}
CUDA_CPU_QUIET int __any_sync(unsigned mask, int predicate, const char *file = __builtin_FILE(),
                              int line = __builtin_LINE()) {
    return __ballot_sync(mask, predicate, file, line) != 0;
}
CUDA_CPU_QUIET int __all_sync(unsigned mask, int predicate, const char *file = __builtin_FILE(),
                              int line = __builtin_LINE()) {
    return __ballot_sync(mask, !predicate, file, line) == 0;
}
/* __activemask(): the lanes that are at this same call together. The lanes a GPU runs together are
 * those of one path through the code; here they are the lanes that reached this line in the same
 * round of the scheduler (each round runs every thread until it waits): the lanes of a branch that
 * took the other way are not in it, those that exited are not. */
CUDA_CPU_QUIET unsigned __activemask(const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    unsigned long long values[32];
    const unsigned long long site = (unsigned long long)(size_t)file * 0x9e3779b97f4a7c15ull ^ (unsigned)line ^ 1ull << 63;
    const unsigned lanes = cuda_cpu_warp_gather(1u << cuda_cpu_lane(), site, values, file, line);
    unsigned here = 0;
    for (int lane = 0; lane < 32; ++lane)
        if ((lanes >> lane & 1) && values[lane] == site) here |= 1u << lane;
    return here; /* (not & cuda_cpu_active_mask(): a lane of the group may have exited since, as on a GPU) */
}
/* The value's bits, as the GPU compares them (a float by its bits: -0.0f is not 0.0f, a NaN may match). */
template <typename T> CUDA_CPU_QUIET unsigned long long cuda_cpu_bits(T value) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "__match_*_sync takes a 32- or 64-bit value");
    unsigned long long bits = 0;
    __builtin_memcpy(&bits, &value, sizeof value);
    return bits;
}
template <typename T>
CUDA_CPU_QUIET unsigned __match_any_sync(unsigned mask, T value, const char *file = __builtin_FILE(),
                                         int line = __builtin_LINE()) {
    unsigned long long values[32];
    const unsigned long long mine = cuda_cpu_bits(value);
    const unsigned lanes = cuda_cpu_gather(mask, mine, values, file, line);
    unsigned same = 0;
    for (int lane = 0; lane < 32; ++lane)
        if ((lanes >> lane & 1) && values[lane] == mine) same |= 1u << lane;
    return same;
}
template <typename T>
CUDA_CPU_QUIET unsigned __match_all_sync(unsigned mask, T value, int *predicate, const char *file = __builtin_FILE(),
                                         int line = __builtin_LINE()) {
    unsigned long long values[32];
    const unsigned long long mine = cuda_cpu_bits(value);
    const unsigned lanes = cuda_cpu_gather(mask, mine, values, file, line);
    for (int lane = 0; lane < 32; ++lane)
        if ((lanes >> lane & 1) && values[lane] != mine) return *predicate = 0, 0u;
    return *predicate = 1, lanes;
}
/* sm_80's __reduce_*_sync: the lanes' values combined (add wraps modulo 2^32, as on a GPU). */
enum cuda_cpu_reduction { CUDA_CPU_ADD, CUDA_CPU_MIN, CUDA_CPU_MAX, CUDA_CPU_AND, CUDA_CPU_OR, CUDA_CPU_XOR };
template <typename T>
CUDA_CPU_QUIET T cuda_cpu_reduce_sync(int op, unsigned mask, T value, const char *file, int line) {
    unsigned long long values[32];
    const unsigned lanes = cuda_cpu_gather(mask, (unsigned)value, values, file, line);
    T result = value;
    for (int lane = 0; lane < 32; ++lane) {
        if (!(lanes >> lane & 1) || lane == (int)cuda_cpu_lane()) continue;
        const T v = (T)(unsigned)values[lane];
        result = op == CUDA_CPU_ADD   ? (T)((unsigned)result + (unsigned)v)
                 : op == CUDA_CPU_MIN ? (v < result ? v : result)
                 : op == CUDA_CPU_MAX ? (v > result ? v : result)
                 : op == CUDA_CPU_AND ? (T)(result & v)
                 : op == CUDA_CPU_OR  ? (T)(result | v)
                                      : (T)(result ^ v);
    }
    return result;
}
#define CUDA_CPU_REDUCE_SYNC(name, op, T)                                                                              \
    CUDA_CPU_QUIET T name(unsigned mask, T value, const char *file = __builtin_FILE(), int line = __builtin_LINE()) { \
        return cuda_cpu_reduce_sync<T>(op, mask, value, file, line);                                                   \
    }
CUDA_CPU_REDUCE_SYNC(__reduce_add_sync, CUDA_CPU_ADD, unsigned)
CUDA_CPU_REDUCE_SYNC(__reduce_add_sync, CUDA_CPU_ADD, int)
CUDA_CPU_REDUCE_SYNC(__reduce_min_sync, CUDA_CPU_MIN, unsigned)
CUDA_CPU_REDUCE_SYNC(__reduce_min_sync, CUDA_CPU_MIN, int)
CUDA_CPU_REDUCE_SYNC(__reduce_max_sync, CUDA_CPU_MAX, unsigned)
CUDA_CPU_REDUCE_SYNC(__reduce_max_sync, CUDA_CPU_MAX, int)
CUDA_CPU_REDUCE_SYNC(__reduce_and_sync, CUDA_CPU_AND, unsigned)
CUDA_CPU_REDUCE_SYNC(__reduce_or_sync, CUDA_CPU_OR, unsigned)
CUDA_CPU_REDUCE_SYNC(__reduce_xor_sync, CUDA_CPU_XOR, unsigned)

/* ----- Block-wide votes: a __syncthreads() that counts ----- */
CUDA_CPU_QUIET int __syncthreads_count(int predicate, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    return cuda_cpu_syncthreads_count(predicate, file, line);
}
CUDA_CPU_QUIET int __syncthreads_and(int predicate, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    return cuda_cpu_syncthreads_count(!predicate, file, line) == 0; /* no thread brought a zero */
}
CUDA_CPU_QUIET int __syncthreads_or(int predicate, const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    return cuda_cpu_syncthreads_count(predicate, file, line) != 0;
}

/* ----- Atomics: every one of the Programming Guide's, in every type it lists ----- */
/* One OS thread runs every CUDA thread, one at a time: an atomic is a plain read-modify-write that
 * the race detector sees as one atomic access (of the caller's line: __builtin_return_address). The
 * _block and _system scopes differ on a GPU only in which threads must see the result first: here
 * they are the same. */
#define CUDA_CPU_ATOMIC_SCOPES(name, T, expression)                                                                    \
    CUDA_CPU_ATOMIC_ONE(name, T, expression)                                                                           \
    CUDA_CPU_ATOMIC_ONE(name##_block, T, expression)                                                                   \
    CUDA_CPU_ATOMIC_ONE(name##_system, T, expression)
#define CUDA_CPU_ATOMIC_ONE(name, T, expression)                                                                       \
    CUDA_CPU_QUIET T name(T *address, T value) {                                                                     \
        cuda_cpu_atomic_access(address, sizeof(T), __builtin_return_address(0));                                     \
        T old = *address;                                                                                              \
        *address = (expression);                                                                                       \
        return old;                                                                                                    \
    }
#define CUDA_CPU_ATOMIC(name, T, expression) CUDA_CPU_ATOMIC_SCOPES(name, T, expression)
CUDA_CPU_ATOMIC(atomicAdd, int, old + value)
CUDA_CPU_ATOMIC(atomicAdd, unsigned, old + value)
CUDA_CPU_ATOMIC(atomicAdd, unsigned long long, old + value)
CUDA_CPU_ATOMIC(atomicAdd, float, old + value) /* one rounding, as the GPU's (no denormal flush: sm_60+ keeps them) */
CUDA_CPU_ATOMIC(atomicAdd, double, old + value)
CUDA_CPU_ATOMIC(atomicAdd, float2, make_float2(old.x + value.x, old.y + value.y)) /* sm_90, global memory */
CUDA_CPU_ATOMIC(atomicAdd, float4, make_float4(old.x + value.x, old.y + value.y, old.z + value.z, old.w + value.w))
CUDA_CPU_ATOMIC(atomicSub, int, old - value)
CUDA_CPU_ATOMIC(atomicSub, unsigned, old - value)
CUDA_CPU_ATOMIC(atomicExch, int, value)
CUDA_CPU_ATOMIC(atomicExch, unsigned, value)
CUDA_CPU_ATOMIC(atomicExch, unsigned long long, value)
CUDA_CPU_ATOMIC(atomicExch, float, value)
CUDA_CPU_ATOMIC(atomicMin, int, old < value ? old : value)
CUDA_CPU_ATOMIC(atomicMin, unsigned, old < value ? old : value)
CUDA_CPU_ATOMIC(atomicMin, long long, old < value ? old : value)
CUDA_CPU_ATOMIC(atomicMin, unsigned long long, old < value ? old : value)
CUDA_CPU_ATOMIC(atomicMax, int, old > value ? old : value)
CUDA_CPU_ATOMIC(atomicMax, unsigned, old > value ? old : value)
CUDA_CPU_ATOMIC(atomicMax, long long, old > value ? old : value)
CUDA_CPU_ATOMIC(atomicMax, unsigned long long, old > value ? old : value)
/* The wrap-around counters of the Programming Guide. */
CUDA_CPU_ATOMIC(atomicInc, unsigned, old >= value ? 0u : old + 1u)
CUDA_CPU_ATOMIC(atomicDec, unsigned, (old == 0u || old > value) ? value : old - 1u)
CUDA_CPU_ATOMIC(atomicAnd, int, old & value)
CUDA_CPU_ATOMIC(atomicAnd, unsigned, old & value)
CUDA_CPU_ATOMIC(atomicAnd, unsigned long long, old & value)
CUDA_CPU_ATOMIC(atomicOr, int, old | value)
CUDA_CPU_ATOMIC(atomicOr, unsigned, old | value)
CUDA_CPU_ATOMIC(atomicOr, unsigned long long, old | value)
CUDA_CPU_ATOMIC(atomicXor, int, old ^ value)
CUDA_CPU_ATOMIC(atomicXor, unsigned, old ^ value)
CUDA_CPU_ATOMIC(atomicXor, unsigned long long, old ^ value)
#define CUDA_CPU_ATOMIC_CAS(name, T)                                                                                   \
    CUDA_CPU_QUIET T name(T *address, T compare, T value) {                                                          \
        cuda_cpu_atomic_access(address, sizeof(T), __builtin_return_address(0));                                     \
        T old = *address;                                                                                              \
        if (old == compare) *address = value;                                                                          \
        return old;                                                                                                    \
    }
#define CUDA_CPU_ATOMIC_CAS_SCOPES(T) CUDA_CPU_ATOMIC_CAS(atomicCAS, T) CUDA_CPU_ATOMIC_CAS(atomicCAS_block, T) \
    CUDA_CPU_ATOMIC_CAS(atomicCAS_system, T)
CUDA_CPU_ATOMIC_CAS_SCOPES(int)
CUDA_CPU_ATOMIC_CAS_SCOPES(unsigned)
CUDA_CPU_ATOMIC_CAS_SCOPES(unsigned long long)
CUDA_CPU_ATOMIC_CAS_SCOPES(unsigned short) /* sm_70 */

/* ----- Fences ----- */
/* __threadfence(): the race detector's "released" mark for this thread's earlier global stores.
 * Within a block one thread runs at a time: __threadfence_block() has nothing to order. */
static inline void __threadfence_block(void) {}
static inline void __threadfence(void) { cuda_cpu_threadfence(); }
static inline void __threadfence_system(void) { cuda_cpu_threadfence(); }

/* ----- Time, sleep, trap ----- */
static inline long long clock64(void) { return cuda_cpu_clock64(); }
/* clock() in a kernel (and on the host): libc's processor time, made strictly increasing (a GPU's
 * clock() is a cycle counter: two reads never give the same value). On the host it still counts
 * CLOCKS_PER_SEC per second. A macro, as clock() is libc's own function here. */
extern "C" CUDA_CPU_QUIET clock_t cuda_cpu_clock(void) noexcept {
    static clock_t last;
    clock_t now = clock();
    return last = now > last ? now : last + 1;
}
namespace std { using ::cuda_cpu_clock; }
#define clock cuda_cpu_clock
static inline void __nanosleep(unsigned nanoseconds) { (void)nanoseconds; } /* one thread at a time: no one to wait for */
/* __trap(): the kernel stops, as on a GPU (cudaErrorLaunchFailure): one line, exit 3. */
CUDA_CPU_QUIET void cuda_cpu_trap_at(const char *file, int line) {
    fflush(stdout);
    fprintf(stdout, "CPU runner: __trap() at %s:%d in thread (%u,%u,%u) of block (%u,%u,%u): the kernel stops "
           "(a GPU: unspecified launch failure). Exit 3.\n", file, line, cuda_cpu_threadIdx.x, cuda_cpu_threadIdx.y,
           cuda_cpu_threadIdx.z, cuda_cpu_blockIdx.x, cuda_cpu_blockIdx.y, cuda_cpu_blockIdx.z);
    fflush(stdout);
    _exit(3);
}
#define __trap() cuda_cpu_trap_at(__FILE__, __LINE__)
#define __brkpt() ((void)0)

/* ----- Integer intrinsics ----- */
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned __brev(unsigned x) {
    x = (x >> 1 & 0x55555555u) | (x & 0x55555555u) << 1;
    x = (x >> 2 & 0x33333333u) | (x & 0x33333333u) << 2;
    x = (x >> 4 & 0x0f0f0f0fu) | (x & 0x0f0f0f0fu) << 4;
    return __builtin_bswap32(x);
}
static inline unsigned long long __brevll(unsigned long long x) {
    return (unsigned long long)__brev((unsigned)x) << 32 | __brev((unsigned)(x >> 32));
}
/* Byte n of the result: byte (s >> 4n) & 7 of the eight bytes y:x (x's are 0 to 3). */
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    const unsigned long long bytes = (unsigned long long)y << 32 | x;
    unsigned result = 0;
    for (int n = 0; n < 4; ++n)
        result |= (unsigned)(bytes >> ((s >> (4 * n) & 7) * 8) & 0xff) << (8 * n);
    return result;
}
/* hi:lo shifted by shift % 32 (_l, _r) or min(shift, 32) (_lc, _rc): the high word (left), the low (right). */
static inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
    return (unsigned)((((unsigned long long)hi << 32 | lo) << (shift & 31)) >> 32);
}
static inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift) {
    return (unsigned)((((unsigned long long)hi << 32 | lo) << (shift < 32 ? shift : 32)) >> 32);
}
static inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
    return (unsigned)(((unsigned long long)hi << 32 | lo) >> (shift & 31));
}
static inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift) {
    return (unsigned)(((unsigned long long)hi << 32 | lo) >> (shift < 32 ? shift : 32));
}
/* The low 24 bits of each (sign-extended for __mul24), the low 32 bits of the product. */
static inline int __mul24(int x, int y) {
    const long long a = (long long)((unsigned)x << 8) << 32 >> 40, b = (long long)((unsigned)y << 8) << 32 >> 40;
    return (int)(unsigned)(a * b);
}
static inline unsigned __umul24(unsigned x, unsigned y) { return (x & 0xffffffu) * (y & 0xffffffu); }
static inline int __mulhi(int x, int y) { return (int)((long long)x * y >> 32); }
static inline unsigned __umulhi(unsigned x, unsigned y) { return (unsigned)((unsigned long long)x * y >> 32); }
static inline long long __mul64hi(long long x, long long y) { return (long long)((__int128)x * y >> 64); }
static inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
    return (unsigned long long)((unsigned __int128)x * y >> 64);
}
static inline unsigned __sad(int x, int y, unsigned z) { return (x > y ? (unsigned)x - (unsigned)y : (unsigned)y - (unsigned)x) + z; }
static inline unsigned __usad(unsigned x, unsigned y, unsigned z) { return (x > y ? x - y : y - x) + z; }
/* Halving adds, without the intermediate sum's overflow. */
static inline int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
static inline int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
static inline unsigned __uhadd(unsigned x, unsigned y) { return (unsigned)(((unsigned long long)x + y) >> 1); }
static inline unsigned __urhadd(unsigned x, unsigned y) { return (unsigned)(((unsigned long long)x + y + 1) >> 1); }
/* sm_61's dot products of bytes (dp4a) and of halves with bytes (dp2a). */
static inline int __dp4a(int a, int b, int c) {
    for (int i = 0; i < 4; ++i)
        c += (int)(signed char)(a >> 8 * i) * (int)(signed char)(b >> 8 * i);
    return c;
}
static inline unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
    for (int i = 0; i < 4; ++i)
        c += (a >> 8 * i & 0xff) * (b >> 8 * i & 0xff);
    return c;
}

/* ----- min, max: the overloads CUDA's math_functions.hpp declares, host and device ----- */
/* Not templates: beside std::min<T> (with `using namespace std`) these win, as they do under nvcc. */
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
static inline long long llmin(long long a, long long b) { return a < b ? a : b; }
static inline long long llmax(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
#define CUDA_CPU_MIN_MAX(R, A, B)                                                                                      \
    static inline R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }                                              \
    static inline R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
CUDA_CPU_MIN_MAX(unsigned, unsigned, unsigned)
CUDA_CPU_MIN_MAX(unsigned, int, unsigned)
CUDA_CPU_MIN_MAX(unsigned, unsigned, int)
CUDA_CPU_MIN_MAX(long, long, long)
CUDA_CPU_MIN_MAX(unsigned long, unsigned long, unsigned long)
CUDA_CPU_MIN_MAX(unsigned long, long, unsigned long)
CUDA_CPU_MIN_MAX(unsigned long, unsigned long, long)
CUDA_CPU_MIN_MAX(long long, long long, long long)
CUDA_CPU_MIN_MAX(unsigned long long, unsigned long long, unsigned long long)
CUDA_CPU_MIN_MAX(unsigned long long, long long, unsigned long long)
CUDA_CPU_MIN_MAX(unsigned long long, unsigned long long, long long)
/* The floating-point ones are fminf/fmax: a NaN loses to a number. */
static inline float min(float a, float b) { return fminf(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }
static inline double min(double a, double b) { return fmin(a, b); }
static inline double max(double a, double b) { return fmax(a, b); }
static inline double min(float a, double b) { return fmin((double)a, b); }
static inline double max(float a, double b) { return fmax((double)a, b); }
static inline double min(double a, float b) { return fmin(a, (double)b); }
static inline double max(double a, float b) { return fmax(a, (double)b); }

/* ----- Reinterpretations and conversions ----- */
template <typename To, typename From> CUDA_CPU_QUIET To cuda_cpu_as(From x) {
    static_assert(sizeof(To) == sizeof(From), "same size");
    To y;
    __builtin_memcpy(&y, &x, sizeof y);
    return y;
}
static inline int __float_as_int(float x) { return cuda_cpu_as<int>(x); }
static inline unsigned __float_as_uint(float x) { return cuda_cpu_as<unsigned>(x); }
static inline float __int_as_float(int x) { return cuda_cpu_as<float>(x); }
static inline float __uint_as_float(unsigned x) { return cuda_cpu_as<float>(x); }
static inline long long __double_as_longlong(double x) { return cuda_cpu_as<long long>(x); }
static inline double __longlong_as_double(long long x) { return cuda_cpu_as<double>(x); }
static inline int __double2hiint(double x) { return (int)(__double_as_longlong(x) >> 32); }
static inline int __double2loint(double x) { return (int)__double_as_longlong(x); }
static inline double __hiloint2double(int hi, int lo) {
    return __longlong_as_double((long long)((unsigned long long)(unsigned)hi << 32 | (unsigned)lo));
}
/* Floating point to integer, rounded as named, clamped to the type's range and NaN to 0: what the
 * GPU's cvt does (the Math API calls out-of-range results undefined). */
template <typename I, typename F> CUDA_CPU_QUIET I cuda_cpu_to_integer(F rounded) {
    if (rounded != rounded) return 0;
    if (rounded <= (F)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
    if (rounded >= (F)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
    return (I)rounded;
}
#define CUDA_CPU_TO_INTEGER(name, I, F, round)                                                                         \
    static inline I name##_rn(F x) { return cuda_cpu_to_integer<I, F>(round##even(x)); }                             \
    static inline I name##_rz(F x) { return cuda_cpu_to_integer<I, F>(round##trunc(x)); }                            \
    static inline I name##_ru(F x) { return cuda_cpu_to_integer<I, F>(round##ceil(x)); }                             \
    static inline I name##_rd(F x) { return cuda_cpu_to_integer<I, F>(round##floor(x)); }
static inline float cuda_cpu_f_even(float x) { return nearbyintf(x); } /* the default rounding: to nearest even */
static inline float cuda_cpu_f_trunc(float x) { return truncf(x); }
static inline float cuda_cpu_f_ceil(float x) { return ceilf(x); }
static inline float cuda_cpu_f_floor(float x) { return floorf(x); }
static inline double cuda_cpu_d_even(double x) { return nearbyint(x); }
static inline double cuda_cpu_d_trunc(double x) { return trunc(x); }
static inline double cuda_cpu_d_ceil(double x) { return ceil(x); }
static inline double cuda_cpu_d_floor(double x) { return floor(x); }
CUDA_CPU_TO_INTEGER(__float2int, int, float, cuda_cpu_f_)
CUDA_CPU_TO_INTEGER(__float2uint, unsigned, float, cuda_cpu_f_)
CUDA_CPU_TO_INTEGER(__float2ll, long long, float, cuda_cpu_f_)
CUDA_CPU_TO_INTEGER(__float2ull, unsigned long long, float, cuda_cpu_f_)
CUDA_CPU_TO_INTEGER(__double2int, int, double, cuda_cpu_d_)
CUDA_CPU_TO_INTEGER(__double2uint, unsigned, double, cuda_cpu_d_)
CUDA_CPU_TO_INTEGER(__double2ll, long long, double, cuda_cpu_d_)
CUDA_CPU_TO_INTEGER(__double2ull, unsigned long long, double, cuda_cpu_d_)

/* ----- Arithmetic rounded as named: the IEEE operation in that rounding mode ----- */
/* The operands pass through volatile variables so that the compiler cannot move the operation out
 * from between the two fesetround calls. */
#define CUDA_CPU_ROUNDED2(name, T, expression)                                                                         \
    CUDA_CPU_QUIET T name##_rn(T a, T b) { return cuda_cpu_rounded2<T>(FE_TONEAREST, a, b, [](T x, T y) { return expression; }); } \
    CUDA_CPU_QUIET T name##_rz(T a, T b) { return cuda_cpu_rounded2<T>(FE_TOWARDZERO, a, b, [](T x, T y) { return expression; }); } \
    CUDA_CPU_QUIET T name##_ru(T a, T b) { return cuda_cpu_rounded2<T>(FE_UPWARD, a, b, [](T x, T y) { return expression; }); } \
    CUDA_CPU_QUIET T name##_rd(T a, T b) { return cuda_cpu_rounded2<T>(FE_DOWNWARD, a, b, [](T x, T y) { return expression; }); }
template <typename T, typename F> CUDA_CPU_QUIET T cuda_cpu_rounded2(int mode, T a, T b, F f) {
    volatile T x = a, y = b;
    const int old = fegetround();
    fesetround(mode);
    volatile T result = f(x, y);
    fesetround(old);
    return result;
}
template <typename T, typename F> CUDA_CPU_QUIET T cuda_cpu_rounded3(int mode, T a, T b, T c, F f) {
    volatile T x = a, y = b, z = c;
    const int old = fegetround();
    fesetround(mode);
    volatile T result = f(x, y, z);
    fesetround(old);
    return result;
}
CUDA_CPU_ROUNDED2(__fadd, float, x + y)
CUDA_CPU_ROUNDED2(__fsub, float, x - y)
CUDA_CPU_ROUNDED2(__fmul, float, x * y)
CUDA_CPU_ROUNDED2(__fdiv, float, x / y)
CUDA_CPU_ROUNDED2(__dadd, double, x + y)
CUDA_CPU_ROUNDED2(__dsub, double, x - y)
CUDA_CPU_ROUNDED2(__dmul, double, x * y)
CUDA_CPU_ROUNDED2(__ddiv, double, x / y)
/* One-operand ones: the second operand is unused. */
CUDA_CPU_ROUNDED2(cuda_cpu_frcp, float, 1.0f / x + 0 * y)
CUDA_CPU_ROUNDED2(cuda_cpu_fsqrt, float, sqrtf(x) + 0 * y)
CUDA_CPU_ROUNDED2(cuda_cpu_drcp, double, 1.0 / x + 0 * y)
CUDA_CPU_ROUNDED2(cuda_cpu_dsqrt, double, sqrt(x) + 0 * y)
#define CUDA_CPU_ROUNDED1(name, T, inner)                                                                              \
    static inline T name##_rn(T x) { return inner##_rn(x, 0); }                                                       \
    static inline T name##_rz(T x) { return inner##_rz(x, 0); }                                                       \
    static inline T name##_ru(T x) { return inner##_ru(x, 0); }                                                       \
    static inline T name##_rd(T x) { return inner##_rd(x, 0); }
CUDA_CPU_ROUNDED1(__frcp, float, cuda_cpu_frcp)
CUDA_CPU_ROUNDED1(__fsqrt, float, cuda_cpu_fsqrt)
CUDA_CPU_ROUNDED1(__drcp, double, cuda_cpu_drcp)
CUDA_CPU_ROUNDED1(__dsqrt, double, cuda_cpu_dsqrt)
#define CUDA_CPU_ROUNDED_FMA(name, T, fma)                                                                             \
    CUDA_CPU_QUIET T name##_rn(T a, T b, T c) { return cuda_cpu_rounded3<T>(FE_TONEAREST, a, b, c, [](T x, T y, T z) { return fma(x, y, z); }); } \
    CUDA_CPU_QUIET T name##_rz(T a, T b, T c) { return cuda_cpu_rounded3<T>(FE_TOWARDZERO, a, b, c, [](T x, T y, T z) { return fma(x, y, z); }); } \
    CUDA_CPU_QUIET T name##_ru(T a, T b, T c) { return cuda_cpu_rounded3<T>(FE_UPWARD, a, b, c, [](T x, T y, T z) { return fma(x, y, z); }); } \
    CUDA_CPU_QUIET T name##_rd(T a, T b, T c) { return cuda_cpu_rounded3<T>(FE_DOWNWARD, a, b, c, [](T x, T y, T z) { return fma(x, y, z); }); }
CUDA_CPU_ROUNDED_FMA(__fmaf, float, fmaf)
CUDA_CPU_ROUNDED_FMA(__fma, double, fma)
/* 1/sqrt(x) rounded once: computed in double (float) or long double (double), then rounded; a
 * double rounding can differ from the correctly rounded one in the last bit, rarely. */
static inline float __frsqrt_rn(float x) { return (float)(1.0 / sqrt((double)x)); }
/* Conversions between integer and floating point in a named rounding. */
#define CUDA_CPU_ROUNDED_CONVERT(name, To, From)                                                                       \
    CUDA_CPU_QUIET To name##_rn(From a) { return cuda_cpu_rounded2<To>(FE_TONEAREST, 0, 0, [a](To, To) { volatile From v = a; return (To)v; }); } \
    CUDA_CPU_QUIET To name##_rz(From a) { return cuda_cpu_rounded2<To>(FE_TOWARDZERO, 0, 0, [a](To, To) { volatile From v = a; return (To)v; }); } \
    CUDA_CPU_QUIET To name##_ru(From a) { return cuda_cpu_rounded2<To>(FE_UPWARD, 0, 0, [a](To, To) { volatile From v = a; return (To)v; }); } \
    CUDA_CPU_QUIET To name##_rd(From a) { return cuda_cpu_rounded2<To>(FE_DOWNWARD, 0, 0, [a](To, To) { volatile From v = a; return (To)v; }); }
CUDA_CPU_ROUNDED_CONVERT(__int2float, float, int)
CUDA_CPU_ROUNDED_CONVERT(__uint2float, float, unsigned)
CUDA_CPU_ROUNDED_CONVERT(__ll2float, float, long long)
CUDA_CPU_ROUNDED_CONVERT(__ull2float, float, unsigned long long)
CUDA_CPU_ROUNDED_CONVERT(__ll2double, double, long long)
CUDA_CPU_ROUNDED_CONVERT(__ull2double, double, unsigned long long)
CUDA_CPU_ROUNDED_CONVERT(__double2float, float, double)
static inline double __int2double_rn(int x) { return x; } /* exact */
static inline double __uint2double_rn(unsigned x) { return x; }

/* ----- Fast-math intrinsics and the Math API's functions that libm lacks ----- */
/* The GPU computes __expf and its kin with its special-function unit (ex2.approx, lg2.approx,
 * sin.approx, rcp.approx), whose bits are its own: here the same formula with libm's exp2f, log2f,
 * sinf, cosf, so a result can differ from the GPU's in its last bits (the Math API gives these a
 * bound of 2 ulp or so, not exact values). The float multiplications are the GPU's. */
static inline float cuda_cpu_fast_expf(float x) { return exp2f(x * 1.44269502e+00f); }     /* ex2.approx(x * log2(e)) */
static inline float cuda_cpu_fast_exp10f(float x) { return exp2f(x * 3.32192802e+00f); }   /* ex2.approx(x * log2(10)) */
static inline float cuda_cpu_fast_log2f(float x) { return log2f(x); }                      /* lg2.approx(x) */
static inline float cuda_cpu_fast_logf(float x) { return log2f(x) * 6.93147182e-01f; }     /* lg2.approx(x) * ln(2) */
static inline float cuda_cpu_fast_log10f(float x) { return log2f(x) * 3.01029980e-01f; }   /* lg2.approx(x) * log10(2) */
static inline float cuda_cpu_fast_powf(float x, float y) { return exp2f(y * log2f(x)); }   /* ex2.approx(y * lg2.approx(x)) */
static inline float cuda_cpu_fast_sinf(float x) { return sinf(x); }
static inline float cuda_cpu_fast_cosf(float x) { return cosf(x); }
static inline void cuda_cpu_fast_sincosf(float x, float *s, float *c) { *s = sinf(x), *c = cosf(x); }
static inline float cuda_cpu_fast_tanf(float x) { return sinf(x) / cosf(x); }
/* glibc declares these names as its own exp, log, ... (extern): macros here. */
#define __expf(x) cuda_cpu_fast_expf(x)
#define __exp10f(x) cuda_cpu_fast_exp10f(x)
#define __log2f(x) cuda_cpu_fast_log2f(x)
#define __logf(x) cuda_cpu_fast_logf(x)
#define __log10f(x) cuda_cpu_fast_log10f(x)
#define __powf(x, y) cuda_cpu_fast_powf(x, y)
#define __sinf(x) cuda_cpu_fast_sinf(x)
#define __cosf(x) cuda_cpu_fast_cosf(x)
#define __sincosf(x, s, c) cuda_cpu_fast_sincosf(x, s, c)
#define __tanf(x) cuda_cpu_fast_tanf(x)
/* x / y, but 0 for 2^126 < |y| < 2^128 (NaN if x is infinite), as the Math API documents. */
static inline float __fdividef(float x, float y) {
    const float a = fabsf(y);
    if (a > 8.50705917e+37f && a < INFINITY) return isinf(x) ? NAN : 0.0f * x * y;
    return x / y;
}
static inline float fdividef(float x, float y) { return x / y; } /* without -use_fast_math: IEEE division */
static inline float __saturatef(float x) { return x >= 1.0f ? 1.0f : x > 0.0f ? x : 0.0f; } /* NaN: 0 */
/* These are correctly rounded from a wider computation; the GPU's are within 1 or 2 ulp of the
 * exact value, so the last bit can differ. */
static inline float rsqrtf(float x) { return (float)(1.0 / sqrt((double)x)); }
static inline double rsqrt(double x) { return (double)(1.0L / sqrtl((long double)x)); }
static inline float rcbrtf(float x) { return (float)(1.0 / cbrt((double)x)); }
static inline double rcbrt(double x) { return (double)(1.0L / cbrtl((long double)x)); }
static inline float rhypotf(float x, float y) { return (float)(1.0 / hypot((double)x, (double)y)); }
static inline double rhypot(double x, double y) { return (double)(1.0L / hypotl(x, y)); }
static inline float norm3df(float a, float b, float c) { return (float)sqrt((double)a * a + (double)b * b + (double)c * c); }
static inline float norm4df(float a, float b, float c, float d) {
    return (float)sqrt((double)a * a + (double)b * b + (double)c * c + (double)d * d);
}
static inline float rnorm3df(float a, float b, float c) { return (float)(1.0 / sqrt((double)a * a + (double)b * b + (double)c * c)); }
static inline float rnorm4df(float a, float b, float c, float d) {
    return (float)(1.0 / sqrt((double)a * a + (double)b * b + (double)c * c + (double)d * d));
}
static inline double norm3d(double a, double b, double c) {
    return (double)sqrtl((long double)a * a + (long double)b * b + (long double)c * c);
}
static inline double norm4d(double a, double b, double c, double d) {
    return (double)sqrtl((long double)a * a + (long double)b * b + (long double)c * c + (long double)d * d);
}
static inline double rnorm3d(double a, double b, double c) { return (double)(1.0L / sqrtl((long double)a * a + (long double)b * b + (long double)c * c)); }
static inline double rnorm4d(double a, double b, double c, double d) {
    return (double)(1.0L / sqrtl((long double)a * a + (long double)b * b + (long double)c * c + (long double)d * d));
}
static inline float normf(int dim, const float *a) {
    double sum = 0;
    for (int i = 0; i < dim; ++i) sum += (double)a[i] * a[i];
    return (float)sqrt(sum);
}
static inline float rnormf(int dim, const float *a) { return 1.0f / normf(dim, a); }
static inline double norm(int dim, const double *a) {
    long double sum = 0;
    for (int i = 0; i < dim; ++i) sum += (long double)a[i] * a[i];
    return (double)sqrtl(sum);
}
static inline double rnorm(int dim, const double *a) { return 1.0 / norm(dim, a); }
/* sin(pi x), cos(pi x): exact at the integers and half-integers, as the GPU's. */
static inline long double cuda_cpu_sinpi(long double x) {
    const long double r = remainderl(x, 2.0L); /* exact, in [-1, 1] */
    if (r == 0 || fabsl(r) == 1) return copysignl(0.0L, x);
    if (fabsl(r) == 0.5L) return r > 0 ? 1.0L : -1.0L;
    return sinl(3.141592653589793238462643383279502884L * r);
}
static inline long double cuda_cpu_cospi(long double x) {
    const long double r = remainderl(fabsl(x), 2.0L);
    if (fabsl(r) == 0.5L) return 0.0L;
    if (r == 0) return 1.0L;
    if (fabsl(r) == 1) return -1.0L;
    return cosl(3.141592653589793238462643383279502884L * r);
}
static inline float sinpif(float x) { return isinf(x) ? NAN : (float)cuda_cpu_sinpi(x); }
static inline float cospif(float x) { return isinf(x) ? NAN : (float)cuda_cpu_cospi(x); }
static inline double sinpi(double x) { return isinf(x) ? NAN : (double)cuda_cpu_sinpi(x); }
static inline double cospi(double x) { return isinf(x) ? NAN : (double)cuda_cpu_cospi(x); }
static inline void sincospif(float x, float *s, float *c) { *s = sinpif(x), *c = cospif(x); }
static inline void sincospi(double x, double *s, double *c) { *s = sinpi(x), *c = cospi(x); }
/* The normal distribution's function and its inverse; erfinv by Newton's method on erf. */
static inline double normcdf(double x) { return (double)(0.5L * erfcl(-(long double)x / sqrtl(2.0L))); }
static inline float normcdff(float x) { return (float)normcdf(x); }
static inline long double cuda_cpu_erfinv(long double y) {
    if (y <= -1 || y >= 1) return y == -1 ? -INFINITY : y == 1 ? INFINITY : NAN;
    if (y == 0) return y;
    const long double w = -logl((1 - y) * (1 + y)); /* a start good to about 1e-2 (Giles' first terms) */
    long double x = copysignl(sqrtl(w) * (w < 5 ? 0.886L : 0.95L), y);
    for (int i = 0; i < 100; ++i) {
        const long double step = (erfl(x) - y) / (1.1283791670955125738961589L * expl(-x * x));
        x -= step;
        if (fabsl(step) <= 1e-19L * fabsl(x)) break;
    }
    return x;
}
static inline double erfinv(double y) { return (double)cuda_cpu_erfinv(y); }
static inline float erfinvf(float y) { return (float)cuda_cpu_erfinv(y); }
static inline double erfcinv(double y) { return (double)cuda_cpu_erfinv(1.0L - y); }
static inline float erfcinvf(float y) { return (float)cuda_cpu_erfinv(1.0L - y); }
static inline double normcdfinv(double p) { return (double)(sqrtl(2.0L) * cuda_cpu_erfinv(2.0L * p - 1.0L)); }
static inline float normcdfinvf(float p) { return (float)normcdfinv(p); }
static inline double erfcx(double x) { return (double)(expl((long double)x * x) * erfcl(x)); }
static inline float erfcxf(float x) { return (float)erfcx(x); }

/* The offset of a shared variable in the block's shared memory (cuda_cpu_shared_offset: how near a GPU's). */
static inline size_t __cvta_generic_to_shared(const void *p) { return cuda_cpu_shared_offset(p); }

/* What common/cli.h and common/report.h ask of the runner's build. */
#define ON_CPU_RUNNER 1 /* common/report.h: a kernel it cannot run (a library's) is report_skip'ed */
/* After the options are parsed: every run is --check (a CPU's time says nothing of a GPU's), at the
 * program's cpu_default_n unless --n, --rows or --cols is given. */
template <typename Spec, typename Options>
static void cpu_runner_take_options(const Spec *spec, Options *o) {
    if (o->bank_model || getenv("CUDA_CPU_NO_DEVICE")) return; /* the stand-in for a GPU program: cpu_runner/only_cpu.c */
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

/* cuda_runtime.h's C++ overloads that take a symbol or a kernel itself, which it gives to nvcc alone. */
template <class T>
static inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *from, size_t count, size_t offset = 0,
                                             enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    return ::cudaMemcpyToSymbol((const void *)&symbol, from, count, offset, kind);
}
template <class T>
static inline cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *from, size_t count, size_t offset = 0,
                                                  enum cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                                  cudaStream_t stream = 0) {
    return ::cudaMemcpyToSymbolAsync((const void *)&symbol, from, count, offset, kind, stream);
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbol(void *to, const T &symbol, size_t count, size_t offset = 0,
                                               enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
    return ::cudaMemcpyFromSymbol(to, (const void *)&symbol, count, offset, kind);
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbolAsync(void *to, const T &symbol, size_t count, size_t offset = 0,
                                                    enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                                    cudaStream_t stream = 0) {
    return ::cudaMemcpyFromSymbolAsync(to, (const void *)&symbol, count, offset, kind, stream);
}
template <class T> static inline cudaError_t cudaGetSymbolAddress(void **address, const T &symbol) {
    return ::cudaGetSymbolAddress(address, (const void *)&symbol);
}
template <class T> static inline cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol) {
    return ::cudaGetSymbolSize(size, (const void *)&symbol);
}
template <class T> static inline cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attributes, T *kernel) {
    return ::cudaFuncGetAttributes(attributes, (const void *)kernel);
}
template <class T> static inline cudaError_t cudaFuncSetCacheConfig(T *kernel, enum cudaFuncCache config) {
    return ::cudaFuncSetCacheConfig((const void *)kernel, config);
}

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

/* cudaLaunchKernel(kernel, grid, block, arguments, bytes, stream): the kernel's own parameter types say
 * what each argument pointer points to, so it launches as kernel<<<grid, block, bytes>>>(...) does. */
template <typename... P, size_t... I>
static void cuda_cpu_call_with(void (*kernel)(P...), void **arguments, std::index_sequence<I...>) {
    kernel(*static_cast<typename std::remove_reference<P>::type *>(arguments[I])...);
}
template <typename... P>
static inline cudaError_t cudaLaunchKernel(void (*kernel)(P...), dim3 grid, dim3 block, void **arguments,
                                           size_t dynamic_shared_bytes = 0, cudaStream_t stream = 0,
                                           const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
    cuda_cpu_launcher(file, line, "cudaLaunchKernel", [&](auto...) {
        cuda_cpu_call_with(kernel, arguments, std::index_sequence_for<P...>{});
    }, grid, block, dynamic_shared_bytes, stream)();
    if (cudaPeekAtLastError() != cudaErrorInvalidConfiguration) return cudaPeekAtLastError();
    cudaGetLastError(); /* a launch refused: cudaLaunchKernel says cudaErrorInvalidValue where <<<>>> says */
    cuda_cpu_set_last_error(cudaErrorInvalidValue); /* cudaErrorInvalidConfiguration (seen on an H200) */
    return cudaErrorInvalidValue;
}

/* cudaLaunchKernelEx(&config, kernel, args...): launched as kernel<<<config.gridDim, config.blockDim,
 * config.dynamicSmemBytes>>>(args...) is; with a cluster dimension of more than one block, one line and exit 3
 * (clusters are not modelled). A macro, as cuda_runtime.h's template of the same name is there too. */
template <typename... P, typename... A>
static inline cudaError_t cuda_cpu_launch_kernel_ex(const char *file, int line, const cudaLaunchConfig_t *config,
                                                    void (*kernel)(P...), A &&...arguments) {
    for (unsigned i = 0; i < config->numAttrs; ++i) {
        const cudaLaunchAttribute &a = config->attrs[i];
        if (a.id == cudaLaunchAttributeClusterDimension && a.val.clusterDim.x * a.val.clusterDim.y * a.val.clusterDim.z > 1)
            cuda_cpu_needs_a_gpu(file, line, CUDA_CPU_NEEDS_SM90 " (cudaLaunchKernelEx with a cluster of more than one "
                                             "block)");
    }
    cuda_cpu_launcher(file, line, "cudaLaunchKernelEx", [&](auto... a) { kernel(a...); }, config->gridDim,
                      config->blockDim, config->dynamicSmemBytes, config->stream)(P(std::forward<A>(arguments))...);
    return cudaPeekAtLastError();
}
#define cudaLaunchKernelEx(...) cuda_cpu_launch_kernel_ex(__FILE__, __LINE__, __VA_ARGS__)

#endif
