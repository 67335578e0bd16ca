/* The CPU runner's model of <cuda_pipeline.h>'s asynchronous copies (cpu_runner/runtime.c), one small
 * kernel per rule, built only for the runner (cpu_runner_pipeline_cpu). Each case prints what its kernel
 * computed; tests/cpu_runner_pipeline.cmake says what each must print and find.
 *   cpu_runner_pipeline_cpu CASE [ARGUMENT] [--cpu-order ORDER] */
#include <cuda_pipeline.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 32
#define BATCHES 10

/* Ten batches of one 4-byte copy each (batch b: in[32 b + t]), an eleventh copy never committed; then
 * __pipeline_wait_prior(prior) and every value read back: the batches that landed hold in's values, the
 * others what the bytes held (never written: -1). */
__global__ void batches(const int *in, int *out, int prior) {
    __shared__ int s[(BATCHES + 1) * THREADS];
    const int t = threadIdx.x;
    for (int b = 0; b <= BATCHES; ++b) {
        __pipeline_memcpy_async(&s[b * THREADS + t], &in[b * THREADS + t], 4);
        if (b < BATCHES) __pipeline_commit();
    }
    __pipeline_wait_prior(prior);
    for (int b = 0; b <= BATCHES; ++b) out[b * THREADS + t] = s[b * THREADS + t];
}

/* A thread reads its own copy's bytes: after its wait (fine), or before it (a finding: its own copy too). */
__global__ void own_read(const int *in, int *out, int wait_first) {
    __shared__ __align__(16) int s[4 * THREADS];
    const int t = threadIdx.x;
    __pipeline_memcpy_async(&s[4 * t], &in[4 * t], 16);
    __pipeline_commit();
    if (wait_first) __pipeline_wait_prior(0);
    out[t] = s[4 * t];
    __pipeline_wait_prior(0);
}

/* 16 bytes with zfill 12: one int from in, three zeros (over the 5s the thread wrote first); zfill 16 from
 * a source one past the end of in: nothing read, four zeros. */
__global__ void zfill(const int *in, int *out, int n) {
    __shared__ __align__(16) int s[8 * THREADS];
    const int t = threadIdx.x;
    for (int i = 0; i < 8; ++i) s[8 * t + i] = 5;
    __pipeline_memcpy_async(&s[8 * t], &in[4 * t], 16, 12);
    __pipeline_memcpy_async(&s[8 * t + 4], in + n, 16, 16);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    for (int i = 0; i < 8; ++i) out[8 * t + i] = s[8 * t + i];
}

/* The first warp's threads issue their copies and exit without waiting; the second warp's read them after
 * a barrier: the copies landed (the values are in's) but no wait made that legal. */
__global__ void exit_unwaited(const int *in, int *out) {
    __shared__ __align__(16) int s[4 * THREADS];
    const int t = threadIdx.x;
    if (t < THREADS) {
        __pipeline_memcpy_async(&s[4 * t], &in[4 * t], 16);
        __pipeline_commit();
        return;
    }
    __syncthreads();
    out[t - THREADS] = s[4 * (t - THREADS)];
}

/* After a barrier every copy is in flight and none waited for: each thread overwrites the next one's source.
 * Thread 0 alone (one thread): it overwrites its own source before its wait, and the copy lands what the
 * source holds then (the runner reads a source when the copy lands). */
__global__ void source_overwritten(int *in, int *out) {
    __shared__ int s[THREADS];
    const int t = threadIdx.x;
    __pipeline_memcpy_async(&s[t], &in[t], 4);
    __pipeline_commit();
    __syncthreads();
    in[(t + 1) % blockDim.x] = 7;
    __pipeline_wait_prior(0);
    out[t] = s[t];
}

/* One misused copy a case, each on its own line (a GPU stops the kernel, or copies wrong bytes). */
__global__ void misuse(const int *in, int *out, int which) {
    __shared__ __align__(16) int s[8];
    int local[4] = {1, 2, 3, 4};
    size_t size = 12, zfill = 20;
    if (which == 0) __pipeline_memcpy_async(s, in, size);
    if (which == 1) __pipeline_memcpy_async(s, in, 16, zfill);
    if (which == 2) __pipeline_memcpy_async(out, in, 16);
    if (which == 3) __pipeline_memcpy_async(s, s + 4, 16);
    if (which == 4) __pipeline_memcpy_async(s, local, 16);
    if (which == 5) __pipeline_memcpy_async(s + 1, in, 8);
    if (which == 6) __pipeline_memcpy_async(s, in + 1, 8);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[0] = local[0];
}

/* Each thread copies one int, then reads its neighbour's, after a barrier that follows the waits
 * (with_barrier) or not: a wait lands the thread's own copies, for itself. The barrier before the waits, every
 * copy in flight, is no finding (double buffering relies on it). */
__global__ void neighbour(const int *in, int *out, int with_barrier) {
    __shared__ int s[THREADS];
    const int t = threadIdx.x;
    __pipeline_memcpy_async(&s[t], &in[t], 4);
    __pipeline_commit();
    __syncthreads();
    __pipeline_wait_prior(0);
    if (with_barrier) __syncthreads();
    out[t] = s[(t + 1) % THREADS];
}

/* Each thread reads its neighbour's int, then copies a new one into its own place: with no barrier between,
 * the copy overwrites what another thread read (or will read) in the same interval. */
__global__ void write_after_read(const int *in, int *out, int with_barrier) {
    __shared__ int s[THREADS];
    const int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    out[t] = s[(t + 1) % THREADS];
    if (with_barrier) __syncthreads();
    __pipeline_memcpy_async(&s[t], &in[t + THREADS], 4);
    __pipeline_commit();
    __pipeline_wait_prior(0);
}

static int *device_ints(int count) {
    int *host = (int *)malloc(count * sizeof(int)), *device;
    for (int i = 0; i < count; ++i) host[i] = i;
    cudaMalloc((void **)&device, count * sizeof(int));
    cudaMemcpy(device, host, count * sizeof(int), cudaMemcpyHostToDevice);
    free(host);
    return device;
}

/* Every count-th value of out, from the first. */
static void print_ints(const char *name, const int *device, int count, int step) {
    int *host = (int *)malloc(count * step * sizeof(int));
    cudaMemcpy(host, device, count * step * sizeof(int), cudaMemcpyDeviceToHost);
    printf("%s", name);
    for (int i = 0; i < count; ++i) printf(" %d", host[i * step]);
    printf("\n");
    free(host);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s CASE [ARGUMENT] [--cpu-order ORDER]\n", argv[0]);
        return 2;
    }
    const char *which = argv[1];
    const int argument = argc > 2 ? atoi(argv[2]) : 0, n = (BATCHES + 1) * THREADS;
    int *in = device_ints(n), *out;
    cudaMalloc((void **)&out, n * sizeof(int));
    if (strcmp(which, "batches") == 0) { /* thread 0's value of each batch, the uncommitted one last */
        batches<<<2, THREADS>>>(in, out, argument);
        print_ints("batches", out, BATCHES + 1, THREADS);
    } else if (strcmp(which, "own_read") == 0) {
        own_read<<<1, THREADS>>>(in, out, argument);
        print_ints("own", out, 3, 1);
    } else if (strcmp(which, "zfill") == 0) {
        zfill<<<1, THREADS>>>(in, out, 4 * THREADS);
        print_ints("zfill", out + 8, 8, 1);
    } else if (strcmp(which, "exit_unwaited") == 0) {
        exit_unwaited<<<1, 2 * THREADS>>>(in, out);
        print_ints("landed", out, 3, 1);
    } else if (strcmp(which, "source_overwritten") == 0) {
        source_overwritten<<<1, argument ? argument : THREADS>>>(in, out);
        print_ints("landed", out, 1, 1);
    } else if (strcmp(which, "neighbour") == 0 || strcmp(which, "write_after_read") == 0) {
        if (which[0] == 'n') neighbour<<<1, THREADS>>>(in, out, argument);
        else write_after_read<<<1, THREADS>>>(in, out, argument);
        print_ints(which, out, 3, 1);
    } else if (strcmp(which, "misuse") == 0) {
        misuse<<<1, 1>>>(in, out, argument);
        printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    } else {
        fprintf(stderr, "cpu_runner_pipeline: unknown case '%s'\n", which);
        return 2;
    }
    cudaFree(in);
    cudaFree(out);
    return 0;
}
