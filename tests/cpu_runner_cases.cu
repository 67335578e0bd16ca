/* The CPU runner's own mechanics, one small kernel per case, built only for the runner
 * (cpu_runner_cases_cpu). Each case prints what its kernel computed; tests/CMakeLists.txt says
 * what each must print and find, and cpu_runner/mutants.tsv plants bugs in the runner that these
 * cases must catch.
 *   cpu_runner_cases_cpu CASE [--cpu-order ORDER] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 64

/* The block's values meet in shared memory, a barrier, then each reads its neighbour's. */
__global__ void neighbour(const int *in, int *out, bool with_barrier) {
    __shared__ int s_values[THREADS];
    const int t = threadIdx.x;
    s_values[t] = in[blockIdx.x * THREADS + t];
    if (with_barrier) __syncthreads();
    out[blockIdx.x * THREADS + t] = s_values[(t + 1) % THREADS]; /* the neighbour's value */
}

/* Block 0 alone writes the shared word; every block reads it: in the other blocks no thread wrote it. */
__global__ void first_block_writes(int *out) {
    __shared__ int s_word;
    if (blockIdx.x == 0 && threadIdx.x == 0) s_word = 7;
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = s_word;
}

/* A halving tree over the block: barriers in the right place, the sum in out[block]. */
__global__ void tree_sum(const int *in, int *out) {
    __shared__ int s_sum[THREADS];
    const int t = threadIdx.x;
    s_sum[t] = in[blockIdx.x * THREADS + t];
    __syncthreads();
    for (int offset = THREADS / 2; offset > 0; offset /= 2) {
        if (t < offset) s_sum[t] += s_sum[t + offset];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s_sum[0];
}

/* The barrier inside the if, in one block where whole warps skip it (no warp split): a finding. */
__global__ void barrier_in_if(int *out) {
    __shared__ int s_word;
    if (threadIdx.x < 32) {
        if (threadIdx.x == 0) s_word = 5;
        __syncthreads();
        out[threadIdx.x] = s_word;
    }
}

/* One warp split between two barriers: the deadlock. */
__global__ void warp_split(int *out) {
    if (threadIdx.x % 2 == 0)
        __syncthreads();
    else
        __syncthreads();
    out[threadIdx.x] = 1;
}

/* Shuffles: each warp's sum in lane 0, and widths of 16 (two sums per warp). */
__global__ void shuffles(const int *in, int *out, int width) {
    int value = in[threadIdx.x];
    for (int offset = width / 2; offset > 0; offset /= 2)
        value += __shfl_down_sync(0xffffffffu, value, offset, width);
    out[threadIdx.x] = value;
}

/* Lanes exchange through shared memory, ordered by __syncwarp (or not). */
__global__ void warp_exchange(int *out, bool with_syncwarp) {
    __shared__ int s_lane[32];
    s_lane[threadIdx.x] = (int)threadIdx.x * 10;
    if (with_syncwarp) __syncwarp();
    out[threadIdx.x] = s_lane[threadIdx.x ^ 1];
}

/* Every thread adds 1 to one shared counter with atomicAdd, after thread 0 zeroed it. */
__global__ void atomic_count(int *out) {
    __shared__ int s_count;
    if (threadIdx.x == 0) s_count = 0;
    __syncthreads();
    atomicAdd(&s_count, 1);
    __syncthreads();
    if (threadIdx.x == 0) out[0] = s_count;
}

/* Every thread writes one shared word: the same value (no race reported), or its own (a race). */
__global__ void one_word(int *out, bool same_value) {
    __shared__ int s_word;
    s_word = same_value ? 1 : (int)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s_word;
}

/* Two extern __shared__ arrays start at one address (the Guide), sized at launch. */
__global__ void two_extern(int *out) {
    extern __shared__ int s_ints[];
    extern __shared__ float s_floats[];
    s_ints[threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = (s_floats == (float *)s_ints) * 1000 + s_ints[THREADS - 1 - threadIdx.x];
}

/* threadIdx and blockIdx in three dimensions: each thread stores its linear number. */
__global__ void three_d(int *out) {
    const int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const int thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    out[block * blockDim.x * blockDim.y * blockDim.z + thread] = block * 1000 + thread;
}

/* The three fences compile and order nothing here (one thread runs at a time): each thread's value
 * arrives as written. */
__global__ void fences(int *out) {
    out[threadIdx.x] = (int)threadIdx.x;
    __threadfence_block();
    __threadfence();
    __threadfence_system();
    out[threadIdx.x] += 1;
}

/* Warp operations whose masks name lanes 0-15. Called by those lanes alone: valid (each shuffle reads
 * within its 8 lanes). Called by every lane: lanes 16-31 are left out of the masks they pass, undefined
 * on a GPU. */
__global__ void half_mask(const int *in, int *out, bool every_lane) {
    int value = in[threadIdx.x];
    if (every_lane || threadIdx.x < 16) {
        value += __shfl_down_sync(0xffffu, value, 4, 8);
        __syncwarp(0xffffu);
    }
    out[threadIdx.x] = value;
}

/* One thread stores far past the array (an index grown too large): no memory holds that address. Or
 * loads from there through __ldg, a helper of the runner's: the finding names this file's line. */
__global__ void far_store(int *out, bool through_ldg) {
    const int i = (int)threadIdx.x - 32;
    if (i == 1 && !through_ldg) out[i * 100000000] = 1;
    if (i == 1 && through_ldg) out[0] = __ldg(&out[i * 100000000]);
}

/* Thread 0 waits for a flag no thread sets: it spins, never ending or waiting. */
__global__ void spin(const int *flag) {
    if (threadIdx.x == 0)
        while (*(const volatile int *)flag == 0) {
        }
}

/* Lanes 16-31 return; lanes 0-15 shuffle with a mask that names every lane: it names lanes that exited. */
__global__ void lane_exited(int *out) {
    if (threadIdx.x >= 16) return;
    out[threadIdx.x] = __shfl_down_sync(0xffffffffu, (int)threadIdx.x, 1);
}

/* __shfl_xor_sync, __shfl_up_sync and __shfl_sync: lane i holds i. */
__global__ void other_shuffles(int *out) {
    const int lane = (int)threadIdx.x;
    int sum = lane;
    for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2) /* the butterfly: every lane ends with the sum */
        sum += __shfl_xor_sync(0xffffffffu, sum, lane_mask);
    out[lane] = sum;
    out[32 + lane] = __shfl_up_sync(0xffffffffu, lane, 1); /* lane 0 has no lane below: its own value */
    out[64 + lane] = __shfl_sync(0xffffffffu, lane, 5, 8); /* lane 5 of its segment of 8 */
    out[96 + lane] = __shfl_up_sync(0xffffffffu, lane, 1, 8); /* lane 8 starts a segment: its own value */
}

/* Thread 0 of each block busy for about 0.4 s: each block well inside a 1 s spin limit, the launch not. */
__global__ void slow_blocks(int *out) {
    if (threadIdx.x != 0) return;
    const long long start = clock64();
    while (clock64() - start < 400000000LL) {
    }
    atomicAdd(out, 1);
}

/* A counter nobody zeroed: cudaMalloc's memory holds anything, so the count is wrong (and the runner's
 * poison makes it wrong every time). */
__global__ void count_unzeroed(int *counter) { atomicAdd(counter, 1); }

/* An index a whole array past a __shared__ array: the bytes after it are no variable's. */
__global__ void past_shared(int *out) {
    __shared__ int s_past[THREADS];
    s_past[threadIdx.x] = (int)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s_past[threadIdx.x + THREADS];
}

/* No if (i < n): the last threads store past the allocation. */
__global__ void past_allocation(int *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = i;
}

/* Thread 0 of every block adds into one word: without an atomic, the blocks race. */
__global__ void blocks_add(int *total, bool atomic) {
    if (threadIdx.x != 0) return;
    if (atomic) atomicAdd(total, 1);
    else *total += 1;
}

/* The last block to take a ticket adds the blocks' partials: ordered by a fence before the ticket. */
__device__ unsigned cases_blocks_done;
__global__ void last_block(int *partials, int *total, bool fence) {
    if (threadIdx.x != 0) return;
    partials[blockIdx.x] = (int)blockIdx.x + 1;
    if (fence) __threadfence();
    if (atomicInc(&cases_blocks_done, gridDim.x - 1) == gridDim.x - 1) {
        int sum = 0;
        for (unsigned b = 0; b < gridDim.x; ++b)
            sum += partials[b];
        *total = sum;
    }
}

/* A struct stored field by field and copied whole (its padding never written), and memset into shared
 * memory: no finding. */
struct padded {
    char c;
    int i;
};
__global__ void struct_copy(int *out, padded *copies) {
    __shared__ padded s_structs[THREADS];
    __shared__ int s_zeroed[THREADS];
    s_structs[threadIdx.x].c = 1;
    s_structs[threadIdx.x].i = (int)threadIdx.x;
    if (threadIdx.x == 0) memset(s_zeroed, 0, sizeof s_zeroed);
    __syncthreads();
    copies[threadIdx.x] = s_structs[(threadIdx.x + 1) % THREADS];
    out[threadIdx.x] = copies[threadIdx.x].i + copies[threadIdx.x].c + s_zeroed[threadIdx.x];
}

/* 320 KB of locals: legal on a GPU, more than a thread's stack on the runner. */
__global__ void big_local(int *out) {
    volatile int big[81920];
    for (int i = 0; i < 81920; ++i)
        big[i] = i;
    out[threadIdx.x] = big[threadIdx.x * 3];
}

/* Lane 0 waits at __syncwarp() for lanes waiting at __syncthreads() for it: no thread can go on. */
__global__ void waits_apart(int *out) {
    if (threadIdx.x == 0) __syncwarp();
    else __syncthreads();
    out[threadIdx.x] = 1;
}

/* What each warp instruction's accesses cost (CUDA_CPU_ACCESSES, cpu_runner/warp_accesses.c), launched
 * with 48 threads: a full warp and a half one. Coalesced: 4 + 2 sectors of 32 bytes; strided by 32 ints:
 * a sector per lane, 32 + 16; one int on: the warps' bytes start 4 bytes into a sector, 5 + 3. */
__global__ void coalesced_reads(const int *in, int *out) { out[threadIdx.x] = in[threadIdx.x]; }
__global__ void strided_reads(const int *in, int *out) { out[threadIdx.x] = in[threadIdx.x * 32]; }
__global__ void offset_reads(const int *in, int *out) { out[threadIdx.x] = in[threadIdx.x + 1]; }
/* Shared memory, the same mechanism: every other word, 2 passes for the full warp, 1 for the half. */
__global__ void spread_shared(int *out) {
    __shared__ int s_spread[96];
    s_spread[2 * threadIdx.x] = threadIdx.x;
    out[threadIdx.x] = s_spread[2 * threadIdx.x];
}

static int *device_ints(int count, int fill) {
    int *host = (int *)malloc(count * sizeof(int)), *device;
    for (int i = 0; i < count; ++i)
        host[i] = fill < 0 ? i : fill;
    cudaMalloc((void **)&device, count * sizeof(int));
    cudaMemcpy(device, host, count * sizeof(int), cudaMemcpyHostToDevice);
    free(host);
    return device;
}

static void print_ints(const char *name, const int *device, int count) {
    int *host = (int *)malloc(count * sizeof(int));
    cudaMemcpy(host, device, count * sizeof(int), cudaMemcpyDeviceToHost);
    printf("%s", name);
    for (int i = 0; i < count; ++i)
        printf(" %d", host[i]);
    printf("\n");
    free(host);
}

int main(int argc, char **argv) {
    const char *which = argc > 1 ? argv[1] : "";
    int *in = device_ints(4 * THREADS, -1), *out = device_ints(4 * THREADS, 0);
    if (strcmp(which, "neighbour") == 0 || strcmp(which, "neighbour_no_barrier") == 0) {
        neighbour<<<2, THREADS>>>(in, out, strcmp(which, "neighbour") == 0);
        print_ints("out", out, 2 * THREADS);
    } else if (strcmp(which, "first_block_writes") == 0) {
        first_block_writes<<<3, THREADS>>>(out);
        print_ints("out", out, 3);
    } else if (strcmp(which, "tree_sum") == 0) {
        tree_sum<<<4, THREADS>>>(in, out);
        print_ints("sums", out, 4);
    } else if (strcmp(which, "barrier_in_if") == 0) {
        barrier_in_if<<<1, 4 * 32>>>(out);
        print_ints("out", out, 4);
    } else if (strcmp(which, "warp_split") == 0) {
        warp_split<<<1, THREADS>>>(out);
        print_ints("out", out, 1);
    } else if (strcmp(which, "shuffles") == 0) {
        shuffles<<<1, THREADS>>>(in, out, 32);
        print_ints("width32", out, 1);
        print_ints("lane32", out + 32, 1);
        shuffles<<<1, THREADS>>>(in, out, 16);
        print_ints("width16", out, 1);
        print_ints("lane16", out + 16, 1);
    } else if (strcmp(which, "half_mask") == 0 || strcmp(which, "half_mask_every_lane") == 0) {
        half_mask<<<1, 32>>>(in, out, strcmp(which, "half_mask_every_lane") == 0);
        print_ints("out", out, 4);
    } else if (strcmp(which, "warp_exchange") == 0 || strcmp(which, "warp_exchange_no_syncwarp") == 0) {
        warp_exchange<<<1, 32>>>(out, strcmp(which, "warp_exchange") == 0);
        print_ints("out", out, 4);
    } else if (strcmp(which, "atomic_count") == 0) {
        atomic_count<<<1, 4 * 32>>>(out);
        print_ints("count", out, 1);
    } else if (strcmp(which, "one_word_same") == 0 || strcmp(which, "one_word_different") == 0) {
        one_word<<<1, THREADS>>>(out, strcmp(which, "one_word_same") == 0);
        print_ints("out", out, 1);
    } else if (strcmp(which, "two_extern") == 0) {
        two_extern<<<1, THREADS, THREADS * sizeof(int)>>>(out);
        print_ints("out", out, 2);
    } else if (strcmp(which, "three_d") == 0) {
        three_d<<<dim3(2, 2, 2), dim3(4, 2, 2)>>>(out);
        print_ints("out", out + 16 * 7 + 15, 1);
    } else if (strcmp(which, "fences") == 0) {
        fences<<<1, THREADS>>>(out);
        print_ints("out", out, 3);
    } else if (strcmp(which, "far_store") == 0 || strcmp(which, "far_load_ldg") == 0) {
        far_store<<<1, THREADS>>>(out, strcmp(which, "far_load_ldg") == 0);
        printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    } else if (strcmp(which, "waits_apart") == 0) {
        waits_apart<<<1, THREADS>>>(out);
        print_ints("out", out, 1);
    } else if (strcmp(which, "spin") == 0) {
        spin<<<1, THREADS>>>(out);
        printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    } else if (strcmp(which, "lane_exited") == 0) {
        lane_exited<<<1, 32>>>(out);
        print_ints("out", out, 1);
    } else if (strcmp(which, "other_shuffles") == 0) {
        other_shuffles<<<1, 32>>>(out);
        print_ints("xor", out, 1);
        print_ints("xor31", out + 31, 1);
        print_ints("up", out + 32, 3);
        print_ints("idx", out + 64, 1);
        print_ints("idx8", out + 72, 1);
        print_ints("up8", out + 96 + 7, 3);
    } else if (strcmp(which, "slow_blocks") == 0) {
        slow_blocks<<<5, 32>>>(out);
        print_ints("slow", out, 1);
    } else if (strcmp(which, "count_unzeroed") == 0) {
        int *counter;
        cudaMalloc((void **)&counter, sizeof(int));
        count_unzeroed<<<1, 64>>>(counter);
        print_ints("count", counter, 1);
        cudaFree(counter);
    } else if (strcmp(which, "past_shared") == 0) {
        past_shared<<<1, THREADS>>>(out);
        print_ints("out", out, 1);
    } else if (strcmp(which, "past_allocation") == 0) {
        int *small;
        cudaMalloc((void **)&small, 100 * sizeof(int));
        past_allocation<<<2, THREADS>>>(small);
        printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
        cudaFree(small);
    } else if (strcmp(which, "blocks_add") == 0 || strcmp(which, "blocks_atomic_add") == 0) {
        blocks_add<<<4, 32>>>(out, strcmp(which, "blocks_atomic_add") == 0);
        print_ints("total", out, 1);
    } else if (strcmp(which, "last_block") == 0 || strcmp(which, "last_block_no_fence") == 0) {
        last_block<<<4, 32>>>(out + 8, out, strcmp(which, "last_block") == 0);
        print_ints("total", out, 1);
    } else if (strcmp(which, "struct_copy") == 0) {
        padded *copies;
        cudaMalloc((void **)&copies, THREADS * sizeof(padded));
        struct_copy<<<1, THREADS>>>(out, copies);
        print_ints("out", out, 2);
        cudaFree(copies);
    } else if (strcmp(which, "big_local") == 0) {
        big_local<<<1, 2>>>(out);
        printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    } else if (strcmp(which, "host_pointer") == 0) {
        int *host = (int *)malloc(THREADS * sizeof(int));
        last_block<<<1, THREADS>>>(host, host, true);
        printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
        free(host);
    } else if (strcmp(which, "bad_launch_api") == 0) { /* the same launch through cudaLaunchKernel */
        void *arguments[] = {&in, &out};
        printf("launch: %s\n", cudaGetErrorName(cudaLaunchKernel(tree_sum, dim3(1), dim3(1025), arguments, 0, 0)));
        printf("last: %s\n", cudaGetErrorName(cudaGetLastError()));
    } else if (strcmp(which, "bad_launch") == 0) {
        tree_sum<<<1, 1025>>>(in, out);
        printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    } else if (strcmp(which, "sectors") == 0) {
        int *wide = device_ints(2048, -1);
        coalesced_reads<<<1, 48>>>(wide, out);
        print_ints("coalesced", out, 3);
        strided_reads<<<1, 48>>>(wide, out);
        print_ints("strided", out, 3);
        offset_reads<<<1, 48>>>(wide, out);
        print_ints("offset", out, 3);
        spread_shared<<<1, 48>>>(out);
        print_ints("spread", out, 3);
        cudaFree(wide);
    } else {
        fprintf(stderr, "cpu_runner_cases: unknown case '%s'\n", which);
        return 2;
    }
    cudaFree(in);
    cudaFree(out);
    return 0;
}
