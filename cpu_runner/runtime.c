/* The CPU runner: CUDA's execution model on one CPU thread, for any .cu (the chapters', a book's, a
 * learner's), so that a learner without an NVIDIA GPU runs it and a missing barrier fails every time,
 * with its line.
 *
 *   - Each CUDA thread is a fiber (a stack of its own, with a guard page below it, entered through
 *     glibc's ucontext, switched with _setjmp/_longjmp); the scheduler runs the blocks of a grid one
 *     after another, and in a block runs each runnable thread, in the chosen order (forward, reverse,
 *     random:SEED), until it waits (__syncthreads, a warp operation) or ends. lockstep: forward, but
 *     each thread gives way before each shared-memory access, so a warp's lanes make each access in
 *     step, as warps ran before Volta.
 *   - __syncthreads() releases when every thread of the block that has not exited waits at one
 *     (exited threads count as arrived). Threads of one warp waiting at two different barriers never
 *     release: a deadlock (exit 4). Threads of different warps at different barriers, or a barrier
 *     some threads exited before, release as on a GPU since Volta, and are reported. A warp operation
 *     goes on when the lanes its mask names wait at the same kind of operation with the same mask.
 *   - Every load and store of the program calls __tsan_readN/__tsan_writeN (gcc's -fsanitize=thread
 *     instrumentation; this file is their runtime, not ThreadSanitizer's). Shared memory is an arena:
 *     the launch's dynamic bytes, then each __shared__ variable with bytes no variable holds after it;
 *     each byte has a shadow (who wrote and read it, in which barrier interval, atomically or not): a
 *     race, a read of a byte no thread of the block wrote (it reads 0xff), an index past its array.
 *     Device memory is another arena, every allocation tracked with a gap around it; each word has a
 *     shadow: an access outside every allocation, a read nothing wrote, two blocks of one launch
 *     touching a word without atomics or a fence then an atomic between them. A kernel touching host
 *     memory, or host code touching cudaMalloc's, ends the program as on a GPU machine.
 *   - An asynchronous copy (<cuda_pipeline.h>) is the issuing thread's: its destination bytes are pending
 *     until that thread's __pipeline_wait_prior lands it (any access to them meanwhile: a finding), then
 *     they are its write.
 * docs/CPU_RUNNER.md says why it is built this way and what it cannot show. */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE /* its longjmp refuses to jump to another stack, which is what a fiber switch is */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <setjmp.h>
#include <stdarg.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef CUDA_CPU_RUNTIME_SOURCE
#define CUDA_CPU_RUNTIME_SOURCE /* its own copies are not the program's (runtime.h) */
#endif
#include "runtime.h"

#define MAX_THREADS CUDA_CPU_MAX_THREADS
#define WARP CUDA_CPU_WARP
#define STACK_BYTES (256 * 1024) /* a CUDA thread's stack, unless CUDA_CPU_STACK_KB says */
#define GUARD_BYTES (64 * 1024)  /* below each stack, mapped to nothing: an overflow faults there */
#define DYNAMIC_SHARED_BYTES CUDA_CPU_SHARED_PER_BLOCK_OPTIN
#define SHARED_PER_BLOCK CUDA_CPU_SHARED_PER_BLOCK
#define SHARED_RESERVED CUDA_CPU_SHARED_RESERVED
#define MAX_FINDINGS 64                   /* distinct findings kept per launch */
#define POISON 0xff                       /* what an unwritten shared byte reads as: NaN, -1 */
#define SPIN_LIMIT_SECONDS 120 /* a block that never waits and never ends, unless CUDA_CPU_SPIN_LIMIT_S says */
#define SPIN_LIMIT_MAX 86400
#define PROGRESS_SECONDS 5 /* a launch longer than this says how far it is, every as often */

uint3 cuda_cpu_threadIdx, cuda_cpu_blockIdx;
dim3 cuda_cpu_blockDim, cuda_cpu_gridDim;

enum state { RUNNABLE, AT_BARRIER, AT_WARP, EXITED };
enum warp_op { SYNCWARP, SHUFFLE, GATHER };

typedef struct {
    jmp_buf resume; /* where the fiber goes on */
    int started;    /* its stack has been entered once (through ucontext) */
    enum state state;
    const char *file; /* where it waits */
    int line;
    enum warp_op op;
    unsigned mask, asked_mask; /* asked_mask: as the program wrote it; mask: with the calling lane */
    int shuffle, lane_argument, width; /* a shuffle's: which (enum cuda_cpu_shuffle), its delta or lane, width */
    unsigned long long value, result; /* a shuffle's */
    unsigned long long *gathered;     /* a gather's: where each lane's value goes */
    unsigned participants;            /* a gather's: the lanes that took part */
    int predicate, count;             /* __syncthreads_count's */
    uint3 index;
} cuda_thread;

/* ----- the scheduler ----- */
static cuda_thread threads[MAX_THREADS];
static char *stacks;
static size_t stack_bytes = STACK_BYTES;
static jmp_buf scheduler;
static ucontext_t scheduler_context, slot_context; /* only to enter each fiber's stack the first time */
static int thread_count, current = -1;
static void (*launch_body)(void *);
static void *launch_argument;
static const char *launch_file, *launch_kernel;
static int launch_line;
enum cuda_cpu_order { CUDA_CPU_FORWARD, CUDA_CPU_REVERSE, CUDA_CPU_RANDOM, CUDA_CPU_LOCKSTEP };
static enum cuda_cpu_order order = CUDA_CPU_FORWARD;
static unsigned long seed;
static unsigned long long block_serial; /* counts every block of every launch: the shadow's generation */
static unsigned barrier_epoch;          /* barriers released in this block */
static unsigned warp_epoch[MAX_THREADS / WARP];
static struct { /* what CUDA_CPU_STATS=1 prints at the end: the runner's own cost */
    unsigned long long launches, blocks, threads, switches;
    double seconds;
} stats;

/* ----- findings ----- */
enum kind { RACE_READ_AFTER_WRITE, RACE_WRITE_AFTER_READ, RACE_WRITE_AFTER_WRITE, UNWRITTEN_READ, MISALIGNED,
            INVALID_ACCESS, GLOBAL_RACE_READ_AFTER_WRITE, GLOBAL_RACE_WRITE_AFTER_READ, GLOBAL_RACE_WRITE_AFTER_WRITE,
            GLOBAL_UNWRITTEN_READ, SHARED_OUT_OF_BOUNDS, GLOBAL_OUT_OF_BOUNDS, HOST_TOUCHES_DEVICE, STACK_OVERFLOW,
            HOST_MEMORY_IN_KERNEL,
            BARRIER_DIVERGENT, BARRIER_EXITED, WARP_LANE_EXITED, WARP_MASK_LEAVES_OUT_CALLER, LOCAL_OUT_OF_BOUNDS,
            INTEGER_DIVISION, TRAP, ASYNC_PENDING, ASYNC_MISUSE, ASYNC_SOURCE_OVERWRITTEN,
            DEADLOCK_SPLIT_WARP, DEADLOCK_WAITING, DEADLOCK_SPINNING };
/* The kinds note() keeps; a deadlock's block never finishes (exit 4): its English is printed where it is found,
 * and its FINDING line (print_machine_deadlock) names a kind past these. */
#define NOTED_KINDS DEADLOCK_SPLIT_WARP
static const char *const kind_names[] = {
    "race on shared memory: a thread reads what another thread wrote since the last barrier",
    "race on shared memory: a thread overwrites what another thread read since the last barrier",
    "race on shared memory: two threads write one byte with different values, with no barrier between",
    "read of shared memory that no thread of this block wrote (it reads as 0xff bytes here)",
    "misaligned address: a load or store at an address not a multiple of its size (a GPU stops the kernel: "
    "cudaErrorMisalignedAddress)",
    "invalid memory access: a load or store at an address no memory holds (a GPU stops the kernel: "
    "cudaErrorIllegalAddress; exit 3)",
    "race on global memory between blocks: a block reads what another block of this launch wrote, with no atomic "
    "and no __threadfence() between",
    "race on global memory between blocks: a block overwrites what another block of this launch read",
    "race on global memory between blocks: two blocks of this launch write one byte with different values, "
    "without atomics",
    "read of global memory that nothing wrote: no cudaMemcpy, cudaMemset or kernel filled it (it reads as 0xff "
    "bytes here)",
    "shared memory access out of bounds: past the array it indexes",
    "global memory access out of bounds: outside every allocation",
    "host code touched device memory (cudaMalloc's): on a GPU machine this is a segmentation fault (exit 3)",
    "stack overflow: a CUDA thread's local variables outgrew its stack on the runner (exit 3)",
    "invalid memory access: a kernel touched host memory (malloc's), which a GPU cannot reach (a GPU stops the "
    "kernel: cudaErrorIllegalAddress; exit 3)",
    "divergent barrier: the threads of one block wait at different __syncthreads()",
    "barrier not reached by every thread of the block: some exited before it",
    "warp operation whose mask names a lane that has exited",
    "warp operation whose mask leaves out the lane that calls it",
    "local memory access out of bounds: past the top of a CUDA thread's stack, an index past a local array? (a GPU "
    "uses another thread's local memory or stops the kernel: cudaErrorIllegalAddress; exit 3)",
    "integer division by zero (or of the most negative value by -1) in a kernel: a GPU gives an undefined value and "
    "goes on; the runner stops here (exit 3)",
    "illegal instruction: the kernel reached a trap the compiler put where the code is undefined (a division by a "
    "zero it could see?); a GPU stops the kernel (exit 3)",
    "race on shared memory: a thread reads or writes bytes an asynchronous copy (__pipeline_memcpy_async) has not "
    "landed in yet: no __pipeline_wait_prior of the thread that issued it has covered it",
    "asynchronous copy misused: __pipeline_memcpy_async(dst, src, size_and_align, zfill) copies into shared memory "
    "from global memory, 4, 8 or 16 bytes aligned to that size, zfill of them zeros (a GPU stops the kernel or "
    "copies wrong bytes); the runner does not make this copy",
    "race on global memory: a thread overwrites bytes an asynchronous copy still in flight reads (a copy may read "
    "its source until its wait; the runner reads it when the copy lands)"};
typedef struct {
    enum kind kind;
    const void *code, *other_code; /* the access and the earlier one (races), or the address (invalid access) */
    const char *file, *other_file; /* barrier findings */
    int line, other_line;
    unsigned thread, other_thread;
    uint3 block, other_block; /* other_block: a race between blocks */
    long count;
    char detail[2048]; /* what an out-of-bounds access missed, or a stack's size */
} finding;
static finding findings[MAX_FINDINGS];
static cudaError_t sticky_error = cudaSuccess; /* a kernel's fault: every later call returns it, as on a GPU */
cudaError_t cuda_cpu_sticky_error(void) { return sticky_error; }
static int finding_count;
static long findings_dropped, total_findings;
long cuda_cpu_findings_total(void) { return total_findings; }

/* Returns the finding when it is new (its other_block and detail are the caller's to fill), else NULL. */
static finding *note(enum kind kind, const void *code, const void *other_code, const char *file, int line,
                 const char *other_file, int other_line, unsigned thread, unsigned other_thread) {
    ++total_findings;
    for (int i = 0; i < finding_count; ++i) {
        finding *f = &findings[i];
        if (f->kind == kind && f->code == code && f->other_code == other_code && f->line == line &&
            f->other_line == other_line && f->file == file) {
            ++f->count;
            return NULL;
        }
    }
    if (finding_count == MAX_FINDINGS) {
        ++findings_dropped;
        return NULL;
    }
    finding *f = &findings[finding_count++];
    *f = (finding){kind, code, other_code, file, other_file, line, other_line, thread, other_thread,
                   cuda_cpu_blockIdx, cuda_cpu_blockIdx, 1, ""};
    return f;
}

static void print_waiting_lines(void); /* a kernel's printf lines not printed yet */

/* "file:line" of an instruction of this program, by addr2line (binutils). In a helper of cuda_on_cpu.h
 * inlined into the kernel (__ldg, atomicAdd), the kernel's line that called it: -i lists the inlined
 * calls, innermost first. */
static void where(const void *code, char *out, size_t size) {
    snprintf(out, size, "%p", code);
    char exe[4096];
    ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (length <= 0) return;
    exe[length] = 0;
    Dl_info info;
    if (!dladdr(code, &info) || !info.dli_fbase) return;
    char command[4400];
    snprintf(command, sizeof command, "addr2line -i -e '%s' %#lx 2>/dev/null", exe,
             (unsigned long)((const char *)code - (const char *)info.dli_fbase - 1));
    FILE *pipe = popen(command, "r");
    if (!pipe) return;
    char line[1024];
    for (int first = 1; fgets(line, sizeof line, pipe) && line[0] != '?'; first = 0) {
        line[strcspn(line, " \n")] = 0;
        const int in_runner = strstr(line, "cuda_on_cpu.h:") || strstr(line, "cuda_runtime.h:") ||
                              strstr(line, "cpu_runner/stubs/");
        const char *name = line;
        while (strncmp(name, "./", 2) == 0) name += 2;
        if (first || !in_runner) snprintf(out, size, "%s", name);
        if (!in_runner) break;
    }
    pclose(pipe);
}

static void thread_text(unsigned thread, char *out, size_t size) {
    const dim3 b = cuda_cpu_blockDim;
    if (b.x == 0 || (b.y == 1 && b.z == 1))
        snprintf(out, size, "thread %u", thread);
    else
        snprintf(out, size, "thread (%u,%u,%u)", thread % b.x, thread / b.x % b.y, thread / (b.x * b.y));
}

/* CUDA_CPU_FINDINGS=machine: each finding also as one line of key=value fields for a script (the grader),
 * under the human lines: kind, file and line, block, the thread (and the other's), the other access's place,
 * the address, the count. Unset: the learner's screen has the human lines alone. */
static const char *const kind_keys[] = {
    "race_read_after_write", "race_write_after_read", "race_write_after_write", "unwritten_read", "misaligned",
    "invalid_access", "global_race_read_after_write", "global_race_write_after_read", "global_race_write_after_write",
    "global_unwritten_read", "shared_out_of_bounds", "global_out_of_bounds", "host_touches_device", "stack_overflow",
    "host_memory_in_kernel", "barrier_divergent", "barrier_exited", "warp_lane_exited", "warp_mask_leaves_out_caller",
    "local_out_of_bounds", "integer_division", "trap", "async_copy_pending", "async_copy_misuse",
    "async_copy_source_overwritten", "deadlock_split_warp", "deadlock_waiting", "deadlock_spinning"};
_Static_assert(sizeof kind_names / sizeof *kind_names == NOTED_KINDS, "a name for every kind noted");
_Static_assert(sizeof kind_keys / sizeof *kind_keys == DEADLOCK_SPINNING + 1, "a key for every kind of finding");
static int machine_findings; /* CUDA_CPU_FINDINGS=machine, read once at start */

/* The line, into out; EXTRA (" key=value", or "") ends it. Also called in never_ended's handler: snprintf of
 * strings and integers takes no lock and allocates nothing (glibc). */
static void machine_finding(const finding *f, char *here, const char *there, const char *extra, char *out,
                            size_t size) {
    if (f->file) snprintf(here, 1200, "%s:%d", f->file, f->line);
    char other[1300];
    if (f->other_file) snprintf(other, sizeof other, "%s:%d", f->other_file, f->other_line);
    else snprintf(other, sizeof other, "%s", there[0] ? there : "-");
    char *colon = strrchr(here, ':');
    if (colon) *colon = 0;
    char kernel[160] = "-"; /* the launch's kernel, its spaces left out: one field (transpose<T,32>) */
    for (size_t i = 0, n = 0; launch_kernel && launch_kernel[i] && n + 1 < sizeof kernel; ++i)
        if (launch_kernel[i] != ' ') kernel[n++] = launch_kernel[i], kernel[n] = 0;
    snprintf(out, size, "FINDING kind=%s file=%s line=%s block=%u,%u,%u thread=%u other=%s other_thread=%u "
             "other_block=%u,%u,%u address=%#lx count=%ld kernel=%s%s\n", kind_keys[f->kind], here,
             colon ? colon + 1 : "0", f->block.x, f->block.y, f->block.z, f->thread, other, f->other_thread,
             f->other_block.x, f->other_block.y, f->other_block.z,
             (unsigned long)(f->kind == INVALID_ACCESS ? f->other_code : NULL), f->count, kernel, extra);
}

static void print_machine_finding(const finding *f, char *here, const char *there, const char *extra) {
    char line[4096];
    machine_finding(f, here, there, extra, line, sizeof line);
    if (machine_findings) fputs(line, stdout);
}

/* A deadlock's FINDING line: where THREAD waits (and OTHER, the other barrier's file:line, and its thread). */
static void print_machine_deadlock(enum kind kind, const char *file, int line, unsigned thread, const char *other,
                                   unsigned other_thread, const char *extra) {
    const finding f = {kind, NULL, NULL, file, NULL, line, 0, thread, other_thread, cuda_cpu_blockIdx,
                       cuda_cpu_blockIdx, 1, ""};
    char here[1200] = "";
    print_machine_finding(&f, here, other, extra);
}

/* Prints the launch's findings, each once with how often it happened. */
static void report_findings(void) {
    if (finding_count == 0) return;
    printf("CPU runner: %s, launched at %s:%d: what it found\n", launch_kernel, launch_file, launch_line);
    for (int i = 0; i < finding_count; ++i) {
        const finding *f = &findings[i];
        char here[1200] = "", there[1200] = "", who[64], whom[64];
        thread_text(f->thread, who, sizeof who);
        thread_text(f->other_thread, whom, sizeof whom);
        printf("CPU runner: %s\n", kind_names[f->kind]);
        const uint3 b = f->block, o = f->other_block;
        switch (f->kind) {
        case RACE_READ_AFTER_WRITE:
        case RACE_WRITE_AFTER_READ:
        case RACE_WRITE_AFTER_WRITE:
            where(f->code, here, sizeof here);
            where(f->other_code, there, sizeof there);
            printf("  at %s: %s of block (%u,%u,%u); the other access at %s, %s", here, who, b.x, b.y, b.z, there,
                   whom);
            break;
        case ASYNC_PENDING:
        case ASYNC_SOURCE_OVERWRITTEN:
            where(f->code, here, sizeof here);
            where(f->other_code, there, sizeof there);
            printf("  at %s: %s of block (%u,%u,%u); the copy at %s, %s%s", here, who, b.x, b.y, b.z, there, whom,
                   f->detail);
            break;
        case GLOBAL_RACE_READ_AFTER_WRITE:
        case GLOBAL_RACE_WRITE_AFTER_READ:
        case GLOBAL_RACE_WRITE_AFTER_WRITE:
            where(f->code, here, sizeof here);
            where(f->other_code, there, sizeof there);
            printf("  at %s: %s of block (%u,%u,%u); the other access at %s, %s of block (%u,%u,%u)", here, who, b.x,
                   b.y, b.z, there, whom, o.x, o.y, o.z);
            break;
        case UNWRITTEN_READ:
        case MISALIGNED:
        case GLOBAL_UNWRITTEN_READ:
        case LOCAL_OUT_OF_BOUNDS:
        case INTEGER_DIVISION:
        case TRAP:
            where(f->code, here, sizeof here);
            printf("  at %s: %s of block (%u,%u,%u)", here, who, b.x, b.y, b.z);
            break;
        case INVALID_ACCESS:
            where(f->code, here, sizeof here);
            printf("  at %s: %s of block (%u,%u,%u), address %p", here, who, b.x, b.y, b.z, f->other_code);
            break;
        case SHARED_OUT_OF_BOUNDS:
        case GLOBAL_OUT_OF_BOUNDS:
        case STACK_OVERFLOW:
        case HOST_MEMORY_IN_KERNEL:
        case ASYNC_MISUSE:
            where(f->code, here, sizeof here);
            printf("  at %s: %s of block (%u,%u,%u): %s", here, who, b.x, b.y, b.z, f->detail);
            break;
        case HOST_TOUCHES_DEVICE:
            where(f->code, here, sizeof here);
            printf("  at %s: %s", here, f->detail);
            break;
        case WARP_MASK_LEAVES_OUT_CALLER:
            printf("  at %s:%d: %s of block (%u,%u,%u)", f->file, f->line, who, b.x, b.y, b.z);
            break;
        case WARP_LANE_EXITED:
            printf("  at %s:%d: %s of block (%u,%u,%u); its mask names lane %u, which has exited", f->file, f->line,
                   who, b.x, b.y, b.z, f->other_thread % WARP);
            break;
        case BARRIER_DIVERGENT:
            printf("  at %s:%d (%s, block (%u,%u,%u)) and at %s:%d (%s)", f->file, f->line, who, b.x, b.y, b.z,
                   f->other_file, f->other_line, whom);
            break;
        case BARRIER_EXITED:
            printf("  at %s:%d, block (%u,%u,%u): %u thread(s) waited there, the others had exited", f->file, f->line,
                   b.x, b.y, b.z, f->thread);
            break;
        case DEADLOCK_SPLIT_WARP:
        case DEADLOCK_WAITING:
        case DEADLOCK_SPINNING: /* never noted */
            break;
        }
        printf(f->count > 1 ? " (%ld times in this launch)\n" : "\n", f->count);
        print_machine_finding(f, here, there, "");
    }
    if (findings_dropped) printf("CPU runner: and %ld more of other kinds or lines\n", findings_dropped);
    fflush(stdout);
    finding_count = 0;
    findings_dropped = 0;
}

/* ----- shared memory: the arena, its variables, the shadow ----- */
/* A block's shared memory is one arena: the launch's dynamic bytes at its start, then every __shared__
 * variable of the program (source.py turns each declaration into a call of cuda_cpu_static_shared),
 * each followed by bytes no variable holds, so that an index past an array lands where the runner sees
 * it. The blocks use the arena one after another; the shadow says what each byte saw in this block. */
#define SHARED_ARENA_BYTES ((size_t)32 << 20)
#define SHARED_GAP 4096 /* at least, after each variable: its size if larger */
#define MAX_SHARED_VARIABLES 1024
typedef struct {
    unsigned char *start;
    size_t size; /* the dynamic bytes' (variable 0): the launch's */
    const char *name, *file;
    int line;
} shared_variable;
static shared_variable shared_variables[MAX_SHARED_VARIABLES]; /* by address; [0] the dynamic bytes */
static int shared_variable_count;
static unsigned char *shared_arena, *shared_arena_next;

#define ANY_READER 0xffffffffu
typedef struct {
    unsigned long long generation; /* block_serial when last touched: older is "not written in this block" */
    unsigned writer, write_epoch, write_warp_epoch; /* writer: thread + 1, 0 none */
    unsigned reader, read_epoch, read_warp_epoch;
    const void *write_code, *read_code;
    /* read_code's thread + 1, and the reader before it that was another thread: of two readers one is not a
     * later writer, so a race with ANY_READER names a read by another thread */
    unsigned last_reader, prior_reader;
    const void *prior_read_code;
    int write_atomic; /* the last write was an atomic: another thread's atomic is no race with it */
    /* The atomics of this interval: a plain read races with any of another thread's (barrier_epoch + 1 when
     * there were some; their thread + 1, or ANY_READER for several threads). */
    unsigned atomic_epoch, atomic_thread;
    const void *atomic_code;
    /* An asynchronous copy into this byte that has not landed (or whose thread exited without waiting for it):
     * its thread + 1, 0 none; the copy's number (of the block's copies) and its code. */
    unsigned async_thread, async_serial;
    int async_exited;
    const void *async_code;
} shadow;
static shadow *shadows;
static int in_kernel, in_hook;
/* A write over another thread's write in the same interval (or another block's, in global memory): a race
 * only if the value differs, which is known after the store, at the next access or switch. */
static struct {
    enum kind kind;
    unsigned char *address, before[16];
    size_t size;
    const void *code, *other_code;
    unsigned thread, other_thread;
    uint3 other_block;
} pending;
static int pending_write;

static void *map_or_die(size_t bytes, const char *what) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "CPU runner: %s: %s\n", what, strerror(errno));
        exit(3);
    }
    return p;
}

static void shared_arena_init(void) {
    if (shared_arena) return;
    shared_arena = map_or_die(SHARED_ARENA_BYTES, "shared memory");
    shadows = map_or_die(SHARED_ARENA_BYTES * sizeof(shadow), "the shadow of shared memory");
    shared_variables[0] = (shared_variable){shared_arena, 0, "extern __shared__", NULL, 0};
    shared_variable_count = 1;
    shared_arena_next = shared_arena + DYNAMIC_SHARED_BYTES + 64 * 1024;
}

static int is_shared(const void *address) {
    return shared_arena && (const unsigned char *)address >= shared_arena &&
           (const unsigned char *)address < shared_arena + SHARED_ARENA_BYTES;
}
int cuda_cpu_is_shared(const void *address) { return is_shared(address); }

void *cuda_cpu_dynamic_shared(void) {
    shared_arena_init();
    return shared_arena;
}

void *cuda_cpu_static_shared(cuda_cpu_shared_slot *slot, size_t size, size_t align, const char *name,
                             const char *file, int line) {
    if (slot->index) return shared_variables[slot->index].start;
    shared_arena_init();
    if (align < 128) align = 128; /* each variable starts at bank 0, as the first one does on a GPU */
    unsigned char *start = (unsigned char *)(((uintptr_t)shared_arena_next + align - 1) & ~(uintptr_t)(align - 1));
    const size_t gap = size > SHARED_GAP ? size : SHARED_GAP;
    if (shared_variable_count == MAX_SHARED_VARIABLES || start + size + gap > shared_arena + SHARED_ARENA_BYTES) {
        fprintf(stderr, "CPU runner: %s:%d: __shared__ %s: more shared variables than the runner holds\n", file, line,
                name);
        exit(3);
    }
    shared_variables[shared_variable_count] = (shared_variable){start, size, name, file, line};
    slot->index = shared_variable_count++;
    shared_arena_next = start + size + gap;
    return start;
}

/* The variable whose bytes these are, or NULL (bytes past every variable: out of bounds). *before: the
 * variable just below the address, if any. */
static const shared_variable *shared_variable_at(const unsigned char *address, size_t size,
                                                 const shared_variable **before) {
    int low = 0, high = shared_variable_count - 1;
    while (low < high) { /* the last variable that starts at or below the address */
        const int middle = (low + high + 1) / 2;
        if (shared_variables[middle].start <= address) low = middle;
        else high = middle - 1;
    }
    const shared_variable *v = &shared_variables[low];
    *before = v;
    return address + size <= v->start + v->size ? v : NULL;
}

/* The offset of a shared variable in the block's shared memory (cuda_cpu_shared_offset: how near a GPU's):
 * the dynamic bytes where a GPU puts them for a kernel with no static shared memory, after the 1 KB it
 * reserves per block; a static variable's offset is the runner's layout (each at a multiple of 128). */
size_t cuda_cpu_shared_offset(const void *address) {
    if (!is_shared(address)) return 0;
    const unsigned char *p = (const unsigned char *)address;
    if (p < shared_arena + DYNAMIC_SHARED_BYTES) return SHARED_RESERVED + (size_t)(p - shared_arena);
    return (size_t)(p - shared_arena);
}

static int ordered(unsigned other, unsigned epoch, unsigned other_warp_epoch, unsigned me) {
    if (other == me + 1 || epoch != barrier_epoch) return 1;
    return (other - 1) / WARP == me / WARP && other_warp_epoch != warp_epoch[me / WARP];
}

static void settle_pending_write(void) {
    if (!pending_write) return;
    pending_write = 0;
    if (memcmp(pending.address, pending.before, pending.size) != 0) {
        finding *f = note(pending.kind, pending.code, pending.other_code, NULL, 0, NULL, 0, pending.thread,
                          pending.other_thread);
        if (f) f->other_block = pending.other_block;
    }
}

static void hold_pending(enum kind kind, void *address, size_t size, const void *code, const void *other_code,
                         unsigned other_thread, uint3 other_block) {
    pending_write = 1;
    pending.kind = kind;
    pending.address = (unsigned char *)address;
    pending.size = size > sizeof pending.before ? sizeof pending.before : size;
    memcpy(pending.before, address, pending.size);
    pending.code = code;
    pending.other_code = other_code;
    pending.thread = (unsigned)current;
    pending.other_thread = other_thread;
    pending.other_block = other_block;
}

static shadow *shadow_of(const void *address) {
    shadow *s = &shadows[(const unsigned char *)address - shared_arena];
    if (s->generation != block_serial) memset(s, 0, sizeof *s), s->generation = block_serial;
    return s;
}

/* lockstep: the thread gives way before a shared-memory access; it goes on in the next pass. */
static int gave_way;
static void give_way(void) {
    gave_way = 1;
    if (!_setjmp(threads[current].resume)) _longjmp(scheduler, 1);
}

/* An access past every shared variable: which array it missed, and by how much. */
static void shared_out_of_bounds(const unsigned char *address, size_t size, const void *code) {
    const shared_variable *v;
    shared_variable_at(address, size, &v);
    finding *f = note(SHARED_OUT_OF_BOUNDS, code, NULL, NULL, 0, NULL, 0, (unsigned)current, (unsigned)current);
    if (!f) return;
    const long long past = (long long)(address - (v->start + v->size));
    if (v == &shared_variables[0])
        snprintf(f->detail, sizeof f->detail, "byte %lld of the dynamic shared memory (extern __shared__), of "
                 "which the launch gave %zu byte%s", (long long)(address - v->start), v->size,
                 v->size == 1 ? "" : "s");
    else
        snprintf(f->detail, sizeof f->detail, "byte %lld past the end of %s (%zu bytes, declared at %s:%d)",
                 past, v->name, v->size, v->file, v->line);
}

/* A kernel's access to shared memory, or an atomic (both a read and a write; atomics race only with plain
 * accesses). */
static void access_shared(void *address, size_t size, int is_write, const void *code, int atomic) {
    const shared_variable *before;
    if (!shared_variable_at((unsigned char *)address, size, &before)) {
        shared_out_of_bounds((unsigned char *)address, size, code);
        return;
    }
    const unsigned me = (unsigned)current, warp = me / WARP;
    int reported = 0;
    size_t unwritten = 0;
    const shadow *in_flight = NULL; /* a byte an asynchronous copy has not landed in */
    for (size_t i = 0; i < size; ++i) {
        const shadow *s = shadow_of((char *)address + i);
        unwritten += s->writer == 0;
        if (s->async_thread && !in_flight) in_flight = s;
    }
    if (in_flight) { /* the cause: no other finding for this access */
        finding *f = note(ASYNC_PENDING, code, in_flight->async_code, NULL, 0, NULL, 0, me,
                          in_flight->async_thread - 1);
        if (f && in_flight->async_exited)
            snprintf(f->detail, sizeof f->detail, " (that thread exited without waiting for it: no thread may read "
                     "it)");
        reported = 1;
    }
    /* A read of bytes no thread wrote: reported when none of the access's bytes was written (a struct copied
     * whole reads its padding too, which nobody writes); every such byte reads as poison. */
    if ((!is_write || atomic) && unwritten) {
        for (size_t i = 0; i < size; ++i)
            if (shadow_of((char *)address + i)->writer == 0) ((unsigned char *)address)[i] = POISON;
        if (unwritten == size && !reported) note(UNWRITTEN_READ, code, NULL, NULL, 0, NULL, 0, me, me), reported = 1;
    }
    for (size_t i = 0; i < size; ++i) {
        shadow *s = shadow_of((char *)address + i);
        const int other_writer = s->writer && !ordered(s->writer, s->write_epoch, s->write_warp_epoch, me) &&
                                 !(atomic && s->write_atomic);
        if (atomic) {
            s->atomic_thread = s->atomic_epoch == barrier_epoch + 1 && s->atomic_thread != me + 1 ? ANY_READER : me + 1;
            s->atomic_epoch = barrier_epoch + 1;
            s->atomic_code = code;
        }
        if (!is_write) {
            if (other_writer && !reported++)
                note(RACE_READ_AFTER_WRITE, code, s->write_code, NULL, 0, NULL, 0, me, s->writer - 1);
            else if (s->atomic_epoch == barrier_epoch + 1 && s->atomic_thread != me + 1 && !reported++)
                note(RACE_READ_AFTER_WRITE, code, s->atomic_code, NULL, 0, NULL, 0, me,
                     s->atomic_thread == ANY_READER ? me : s->atomic_thread - 1); /* another thread's atomic */
            const int alone = s->reader == 0 || s->reader == me + 1 ||
                              (s->reader == ANY_READER ? s->read_epoch != barrier_epoch
                                                       : ordered(s->reader, s->read_epoch, s->read_warp_epoch, me));
            s->reader = alone ? me + 1 : ANY_READER;
            s->read_epoch = barrier_epoch;
            s->read_warp_epoch = warp_epoch[warp];
            if (s->last_reader != me + 1) s->prior_reader = s->last_reader, s->prior_read_code = s->read_code;
            s->last_reader = me + 1;
            s->read_code = code;
        } else {
            if (other_writer && !reported) {
                reported = 1;
                if (atomic || s->write_atomic) /* an atomic and a plain store: a race whatever the values */
                    note(atomic ? RACE_READ_AFTER_WRITE : RACE_WRITE_AFTER_WRITE, code, s->write_code, NULL, 0, NULL,
                         0, me, s->writer - 1);
                else if (!pending_write)
                    hold_pending(RACE_WRITE_AFTER_WRITE, address, size, code, s->write_code, s->writer - 1,
                                 cuda_cpu_blockIdx);
            }
            const int other_reader = s->reader == ANY_READER
                                         ? s->read_epoch == barrier_epoch
                                         : s->reader && !ordered(s->reader, s->read_epoch, s->read_warp_epoch, me);
            const int prior = s->reader == ANY_READER && s->last_reader == me + 1; /* the other reader */
            if (other_reader && !reported++)
                note(RACE_WRITE_AFTER_READ, code, prior ? s->prior_read_code : s->read_code, NULL, 0, NULL, 0, me,
                     (prior ? s->prior_reader : s->last_reader) - 1);
            s->writer = me + 1;
            s->write_epoch = barrier_epoch;
            s->write_warp_epoch = warp_epoch[warp];
            s->write_code = code;
            s->write_atomic = atomic;
            s->reader = 0;
        }
    }
}

/* ----- global memory: every allocation, and the shadow of its words ----- */
/* Device memory is one arena of address space (pages are taken only when touched): each allocation
 * starts on a page, after GLOBAL_GAP bytes that no allocation holds, so an index a few elements past an
 * array is seen. Each 4-byte word has a shadow: which bytes anything wrote (a read of none of them is
 * initcheck's uninitialised read), and the block and thread that last wrote and read it in this launch
 * (two blocks of one launch that touch a word, one writing, without atomics: a race between blocks). */
#define GLOBAL_ARENA_BYTES ((size_t)16 << 30)
#define GLOBAL_GAP 4096
typedef struct {
    unsigned char *start;
    size_t size, capacity; /* capacity: the bytes up to the next allocation's gap */
    enum cuda_cpu_memory kind;
    int live;
    const void *caller;
} allocation;
static allocation *allocations; /* by address */
static int allocation_count, allocation_room;
static unsigned char *global_arena, *global_next;
typedef struct {
    uint32_t write_block, read_block;   /* block_serial's low 32 bits, 0: none */
    uint16_t write_thread, read_thread; /* in the block */
    uint16_t write_code, read_code;     /* code_id() of the access */
    uint8_t written;                    /* the bytes anything wrote, a bit each */
    uint8_t write_atomic;
    uint8_t write_bytes, read_bytes;    /* which of the word's bytes the last writer and reader touched */
} word_shadow;
static word_shadow *global_shadows;
static unsigned long long launch_first_block; /* the block_serial of this launch's first block */
static int block_did_atomic;                  /* this block made a global atomic: it has acquired */
/* __threadfence(): a thread that fenced after its last global store has released it (a later block that
 * made an atomic first reads it in order: the "last block" reduction). One bit per thread of the launch,
 * set at its block's end; made at the launch's first fence. */
static unsigned long long thread_clock, last_store[MAX_THREADS], last_fence[MAX_THREADS];
static unsigned char *released;
static unsigned long long released_threads;

/* Code addresses as 16-bit numbers, for the word shadow: the distinct accesses of a program are few. */
#define CODE_SLOTS 65536
static const void *codes[CODE_SLOTS];
static uint16_t code_id(const void *code) {
    unsigned slot = (unsigned)(((uintptr_t)code * 0x9e3779b97f4a7c15ULL) >> 48);
    for (unsigned probe = 0; probe < CODE_SLOTS; ++probe, slot = (slot + 1) % CODE_SLOTS) {
        if (codes[slot] == code) return (uint16_t)slot;
        if (!codes[slot]) return codes[slot] = code, (uint16_t)slot;
    }
    return 0;
}

static void global_arena_init(void) {
    if (global_arena) return;
    global_arena = map_or_die(GLOBAL_ARENA_BYTES, "device memory");
    global_shadows = map_or_die(GLOBAL_ARENA_BYTES / 4 * sizeof(word_shadow), "the shadow of device memory");
    global_next = global_arena + GLOBAL_GAP;
}

static int is_global(const void *address) {
    return global_arena && (const unsigned char *)address >= global_arena &&
           (const unsigned char *)address < global_arena + GLOBAL_ARENA_BYTES;
}

/* The allocation at or just below an address (live or freed), or NULL. */
static allocation *allocation_below(const unsigned char *address) {
    int low = 0, high = allocation_count - 1, found = -1;
    while (low <= high) {
        const int middle = (low + high) / 2;
        if (allocations[middle].start <= address) found = middle, low = middle + 1;
        else high = middle - 1;
    }
    return found < 0 ? NULL : &allocations[found];
}

static void memory_where(const void *caller, char *out, size_t size);

cudaError_t cuda_cpu_allocate_at(void **pointer, size_t size, enum cuda_cpu_memory kind, const void *caller) {
    global_arena_init();
    const size_t need = (size ? size : 1) + GLOBAL_GAP, capacity = (need + 4095) & ~(size_t)4095;
    allocation *a = NULL;
    for (int i = 0; i < allocation_count && !a; ++i) /* a freed one of about this size */
        if (!allocations[i].live && allocations[i].capacity >= capacity && allocations[i].capacity <= 2 * capacity)
            a = &allocations[i];
    if (!a) {
        if (global_next + capacity > global_arena + GLOBAL_ARENA_BYTES) return *pointer = NULL, cudaErrorMemoryAllocation;
        if (allocation_count == allocation_room) {
            allocation_room = allocation_room ? 2 * allocation_room : 64;
            allocations = realloc(allocations, (size_t)allocation_room * sizeof *allocations);
            if (!allocations) return *pointer = NULL, cudaErrorMemoryAllocation;
        }
        a = &allocations[allocation_count++];
        a->start = global_next;
        a->capacity = capacity;
        global_next += capacity;
    }
    a->size = size;
    a->kind = kind;
    a->live = 1;
    a->caller = caller;
    memset(a->start, POISON, size); /* a GPU's fresh memory holds anything */
    memset(&global_shadows[(a->start - global_arena) / 4], 0, (size + 3) / 4 * sizeof(word_shadow));
    if (kind != CUDA_CPU_DEVICE) /* the host fills managed and pinned memory by any means, libc's too: never "unwritten" */
        for (size_t word = (size_t)(a->start - global_arena) / 4, words = (size + 3) / 4; words--; ++word)
            global_shadows[word].written = 0xf;
    *pointer = a->start;
    return cudaSuccess;
}
cudaError_t cuda_cpu_allocate(void **pointer, size_t size, enum cuda_cpu_memory kind) {
    return cuda_cpu_allocate_at(pointer, size, kind, __builtin_return_address(0));
}

cudaError_t cuda_cpu_free(void *pointer, enum cuda_cpu_memory kind) {
    (void)kind;
    if (!pointer) return cudaSuccess;
    allocation *a = is_global(pointer) ? allocation_below(pointer) : NULL;
    if (!a || a->start != pointer || !a->live) return cudaErrorInvalidValue;
    a->live = 0;
    if (a->size >= ((size_t)1 << 20)) madvise(a->start, a->size, MADV_DONTNEED); /* give the pages back */
    return cudaSuccess;
}

/* The live allocation that holds [address, address + size), or NULL. */
static const allocation *allocation_holding(const void *address, size_t size) {
    const allocation *a = is_global(address) ? allocation_below(address) : NULL;
    return a && a->live && (const unsigned char *)address + size <= a->start + a->size ? a : NULL;
}

int cuda_cpu_allocation_of(const void *address, void **base, size_t *size, enum cuda_cpu_memory *kind) {
    const allocation *a = allocation_holding(address, 1);
    if (!a) return 0;
    *base = a->start, *size = a->size, *kind = a->kind;
    return 1;
}

void cuda_cpu_free_all(void) {
    for (int i = 0; i < allocation_count; ++i)
        if (allocations[i].live) cuda_cpu_free(allocations[i].start, allocations[i].kind);
}

void cuda_cpu_host_wrote(const void *address, size_t size) {
    const unsigned char *p = address;
    if (!size || !is_global(p)) return;
    for (size_t word = (size_t)(p - global_arena) / 4, last = (size_t)(p + size - 1 - global_arena) / 4;
         word <= last; ++word) {
        const size_t first_byte = word * 4, begin = (size_t)(p - global_arena), end = begin + size;
        for (size_t b = 0; b < 4; ++b)
            if (first_byte + b >= begin && first_byte + b < end) global_shadows[word].written |= (uint8_t)(1u << b);
    }
}

static void end_kernel(enum kind kind, const void *code, const void *address, const char *detail);

/* An access outside every live allocation: the nearest one, and by how much it missed. Far from every
 * allocation (past the gap around each), a GPU faults: cudaErrorIllegalAddress, exit 3. */
static void global_out_of_bounds(const unsigned char *address, size_t size, int is_write, const void *code) {
    const allocation *a = allocation_below(address);
    const allocation *next = a ? (a + 1 < allocations + allocation_count ? a + 1 : NULL)
                               : (allocation_count ? allocations : NULL);
    if (!(a && address < a->start + a->capacity) && !(next && next->start - address <= GLOBAL_GAP))
        end_kernel(INVALID_ACCESS, code, address, "");
    finding *f = note(GLOBAL_OUT_OF_BOUNDS, code, NULL, NULL, 0, NULL, 0, (unsigned)current, (unsigned)current);
    if (!f) return;
    char made[1200] = "";
    if (a && a->live && address < a->start + a->size) { /* it starts inside and runs past the end */
        memory_where(a->caller, made, sizeof made);
        snprintf(f->detail, sizeof f->detail, "a %zu-byte %s at byte %lld of a %zu-byte allocation%s", size,
                 is_write ? "write" : "read", (long long)(address - a->start), a->size, made);
    } else if (a && !a->live && address < a->start + a->capacity - GLOBAL_GAP) {
        memory_where(a->caller, made, sizeof made);
        snprintf(f->detail, sizeof f->detail, "byte %lld of memory that cudaFree freed (%zu bytes%s)",
                 (long long)(address - a->start), a->size, made);
    } else if (a && (!next || address - (a->start + a->size) <= next->start - address)) {
        memory_where(a->caller, made, sizeof made);
        const long long past = (long long)(address - (a->start + a->size));
        snprintf(f->detail, sizeof f->detail, "a %zu-byte %s %s the end of a %zu-byte allocation%s", size,
                 is_write ? "write" : "read", past ? "past" : "just past", a->size, made);
        if (past) snprintf(f->detail + strlen(f->detail), sizeof f->detail - strlen(f->detail), ", %lld bytes on",
                           past);
    } else if (next) {
        memory_where(next->caller, made, sizeof made);
        snprintf(f->detail, sizeof f->detail, "a %zu-byte %s %lld bytes before the start of a %zu-byte allocation%s",
                 size, is_write ? "write" : "read", (long long)(next->start - address), next->size, made);
    } else {
        snprintf(f->detail, sizeof f->detail, "address %p, in no allocation", (const void *)address);
    }
}

static int in_this_launch(uint32_t block) { return block && block >= (uint32_t)launch_first_block; }

static uint3 block_of_serial(uint32_t serial) {
    const unsigned long long i = serial - (uint32_t)launch_first_block, gx = cuda_cpu_gridDim.x,
                             gy = cuda_cpu_gridDim.y;
    return (uint3){(unsigned)(i % gx), (unsigned)(i / gx % gy), (unsigned)(i / (gx * gy))};
}

static int is_released(const word_shadow *w) {
    if (!released || !block_did_atomic) return 0;
    const unsigned long long bit =
        (unsigned long long)(w->write_block - (uint32_t)launch_first_block) * (unsigned long long)thread_count +
        w->write_thread;
    return bit < released_threads && (released[bit / 8] >> bit % 8 & 1);
}

/* A kernel's access to global memory (or an atomic): out of bounds, never written, or a race between blocks. */
static void access_global(void *address, size_t size, int is_write, const void *code, int atomic) {
    if (!allocation_holding(address, size)) {
        global_out_of_bounds(address, size, is_write, code);
        return;
    }
    const uint32_t me_block = (uint32_t)block_serial;
    const unsigned me = (unsigned)current;
    const size_t begin = (size_t)((unsigned char *)address - global_arena), end = begin + size;
    int reported = 0, written = 0;
    for (size_t word = begin / 4; word <= (end - 1) / 4; ++word) {
        uint8_t bytes = 0;
        for (size_t b = 0; b < 4; ++b)
            if (word * 4 + b >= begin && word * 4 + b < end) bytes |= (uint8_t)(1u << b);
        word_shadow *w = &global_shadows[word];
        written |= (w->written & bytes) != 0;
        /* another block's access to other bytes of the word (a char each) is no race */
        const int other_writer = in_this_launch(w->write_block) && w->write_block != me_block &&
                                 (w->write_bytes & bytes) && !(atomic && w->write_atomic);
        /* A plain read of another block's atomic result is the Programming Guide's atomicCAS loop: no race. */
        if ((!is_write || atomic) && other_writer && !w->write_atomic && !is_released(w) && !reported++) {
            finding *f = note(GLOBAL_RACE_READ_AFTER_WRITE, code, codes[w->write_code], NULL, 0, NULL, 0, me,
                              w->write_thread);
            if (f) f->other_block = block_of_serial(w->write_block);
        }
        if (!is_write) {
            w->read_bytes = (uint8_t)(w->read_block == me_block ? w->read_bytes | bytes : bytes);
            w->read_block = me_block, w->read_thread = (uint16_t)me, w->read_code = code_id(code);
            continue;
        }
        if (other_writer && !atomic && !reported) {
            reported = 1;
            if (w->write_atomic) {
                finding *f = note(GLOBAL_RACE_WRITE_AFTER_WRITE, code, codes[w->write_code], NULL, 0, NULL, 0, me,
                                  w->write_thread);
                if (f) f->other_block = block_of_serial(w->write_block);
            } else if (!pending_write) {
                hold_pending(GLOBAL_RACE_WRITE_AFTER_WRITE, address, size, code, codes[w->write_code],
                             w->write_thread, block_of_serial(w->write_block));
            }
        }
        if (in_this_launch(w->read_block) && w->read_block != me_block && (w->read_bytes & bytes) && !reported++) {
            finding *f = note(GLOBAL_RACE_WRITE_AFTER_READ, code, codes[w->read_code], NULL, 0, NULL, 0, me,
                              w->read_thread);
            if (f) f->other_block = block_of_serial(w->read_block);
        }
        w->write_bytes = (uint8_t)(w->write_block == me_block ? w->write_bytes | bytes : bytes);
        w->write_block = me_block, w->write_thread = (uint16_t)me, w->write_code = code_id(code);
        w->write_atomic = (uint8_t)atomic;
        w->written |= bytes;
    }
    if ((!is_write || atomic) && !written)
        note(GLOBAL_UNWRITTEN_READ, code, NULL, NULL, 0, NULL, 0, me, me);
    if (is_write && !atomic) last_store[me] = ++thread_clock; /* an atomic is the ticket itself */
}

void cuda_cpu_threadfence(void) {
    if (current < 0) return;
    last_fence[current] = ++thread_clock;
    if (released || !in_kernel) return;
    const unsigned long long blocks =
        (unsigned long long)cuda_cpu_gridDim.x * cuda_cpu_gridDim.y * cuda_cpu_gridDim.z;
    released_threads = blocks * (unsigned long long)thread_count;
    if (released_threads <= ((unsigned long long)1 << 33)) released = calloc(released_threads / 8 + 1, 1);
}

/* At a block's end: which of its threads fenced after their last global store. */
static void note_released_threads(void) {
    if (!released) return;
    const unsigned long long first = (block_serial - launch_first_block) * (unsigned long long)thread_count;
    for (int t = 0; t < thread_count; ++t)
        if (last_store[t] && last_fence[t] > last_store[t] && first + (unsigned)t < released_threads)
            released[(first + (unsigned)t) / 8] |= (unsigned char)(1u << (first + (unsigned)t) % 8);
}

/* Host code (the program's, not the runner's) reading or writing cudaMalloc's memory: a GPU machine's
 * process dies there. Managed and pinned host memory are the host's to touch. */
static void host_access(void *address, size_t size, const void *code) {
    const allocation *a = allocation_below(address);
    if (!a || !a->live || a->kind != CUDA_CPU_DEVICE || (unsigned char *)address >= a->start + a->capacity) return;
    (void)size;
    char here[1200], made[1200] = "";
    where(code, here, sizeof here);
    memory_where(a->caller, made, sizeof made);
    fflush(stdout);
    printf("CPU runner: %s\n  at %s: byte %lld of a %zu-byte cudaMalloc allocation%s; copy it to the host with "
           "cudaMemcpy first\n", kind_names[HOST_TOUCHES_DEVICE], here,
           (long long)((unsigned char *)address - a->start), a->size, made);
    fflush(stdout);
    _exit(3);
}

/* Every access the instrumentation reports: a kernel's to shared or global memory, the host's to device
 * memory. The rest (a thread's locals, the program's static data) is not checked. */
/* ----- the host's malloc, and a kernel that touches it ----- */
/* The program's malloc, calloc, realloc and free (flags.txt: wrapped) are noted, so that a kernel given a
 * host pointer (h_a for d_a) ends as on a GPU: an illegal address, exit 3, with the line that made it.
 * A kernel's own malloc is device memory. At most HOST_ALLOCATIONS are noted (the rest: not checked). */
#define HOST_ALLOCATIONS 4096
typedef struct {
    const unsigned char *start;
    size_t size;
    const void *caller;
} host_allocation;
static host_allocation host_allocations[HOST_ALLOCATIONS]; /* by address */
static int host_allocation_count;

static int host_allocation_index(const void *address) { /* the last that starts at or below address, or -1 */
    int low = 0, high = host_allocation_count - 1, found = -1;
    while (low <= high) {
        const int middle = (low + high) / 2;
        if (host_allocations[middle].start <= (const unsigned char *)address) found = middle, low = middle + 1;
        else high = middle - 1;
    }
    return found;
}
static void host_allocated(void *pointer, size_t size, const void *caller) {
    if (!pointer || host_allocation_count == HOST_ALLOCATIONS) return;
    const int at = host_allocation_index(pointer) + 1;
    memmove(&host_allocations[at + 1], &host_allocations[at],
            (size_t)(host_allocation_count - at) * sizeof *host_allocations);
    host_allocations[at] = (host_allocation){pointer, size, caller};
    ++host_allocation_count;
}
static void host_freed(void *pointer) {
    const int at = host_allocation_index(pointer);
    if (at < 0 || host_allocations[at].start != pointer) return;
    memmove(&host_allocations[at], &host_allocations[at + 1],
            (size_t)(host_allocation_count - at - 1) * sizeof *host_allocations);
    --host_allocation_count;
}
void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *pointer, size_t size);
void __real_free(void *pointer);
void *__wrap_malloc(size_t size) {
    if (in_kernel) { /* device memory, as a kernel's malloc gives */
        void *p;
        return cuda_cpu_allocate_at(&p, size, CUDA_CPU_DEVICE, __builtin_return_address(0)) ? NULL : p;
    }
    void *p = __real_malloc(size);
    host_allocated(p, size, __builtin_return_address(0));
    return p;
}
void *__wrap_calloc(size_t count, size_t size) {
    void *p = __real_calloc(count, size);
    host_allocated(p, count * size, __builtin_return_address(0));
    return p;
}
void *__wrap_realloc(void *pointer, size_t size) {
    host_freed(pointer);
    void *p = __real_realloc(pointer, size);
    host_allocated(p, size, __builtin_return_address(0));
    return p;
}
void __wrap_free(void *pointer) {
    if (is_global(pointer)) {
        cuda_cpu_free(pointer, CUDA_CPU_DEVICE);
        return;
    }
    host_freed(pointer);
    __real_free(pointer);
}

/* A kernel's access to memory the host's malloc gave: a GPU cannot reach it. */
static void host_memory_in_kernel(const void *address, const void *code) {
    const int at = host_allocation_index(address);
    if (at < 0 || (const unsigned char *)address >= host_allocations[at].start + host_allocations[at].size) return;
    char made[1200];
    memory_where(host_allocations[at].caller, made, sizeof made);
    in_kernel = 0;
    in_hook = 1;
    print_waiting_lines();
    if (finding_count == MAX_FINDINGS) --finding_count, ++findings_dropped; /* this one is shown */
    finding *f = note(HOST_MEMORY_IN_KERNEL, code, NULL, NULL, 0, NULL, 0, (unsigned)current, (unsigned)current);
    if (f)
        snprintf(f->detail, sizeof f->detail, "byte %lld of a %zu-byte host allocation%s: pass the cudaMalloc'd "
                 "copy", (long long)((const unsigned char *)address - host_allocations[at].start),
                 host_allocations[at].size, made[0] ? made : " (malloc)");
    report_findings();
    _exit(3);
}

static int in_range(const void *address, const void *start, size_t bytes) {
    return start && (const char *)address >= (const char *)start && (const char *)address < (const char *)start + bytes;
}

/* The runner's own big maps (the shadows): a kernel's access there is a wild pointer that happened to land
 * on mapped memory, where a GPU would fault. */
static int is_runner_memory(const void *address) {
    return in_range(address, shadows, SHARED_ARENA_BYTES * sizeof(shadow)) ||
           in_range(address, global_shadows, GLOBAL_ARENA_BYTES / 4 * sizeof(word_shadow));
}

/* ----- asynchronous copies: <cuda_pipeline.h>'s primitives ----- */
/* As the hardware runs cp.async: a thread's copy is issued (its bytes pending from then on), it joins the
 * thread's open batch, __pipeline_commit closes the batch, and __pipeline_wait_prior(N) lands every batch
 * of that thread but the newest N. A copy reads its source when it lands (the GPU may read it any time
 * from its issue to its wait: a write to the source meanwhile is a finding), and its bytes are then the
 * issuing thread's write, made at the wait. docs/CPU_RUNNER.md says why. */
typedef struct {
    unsigned char *dst;
    const unsigned char *src;
    unsigned size, source_bytes; /* source_bytes: size - zfill */
    unsigned batch, serial;      /* batch: the thread's batches committed before it */
    const void *code;
} async_copy;
static async_copy *async_copies[MAX_THREADS]; /* each thread's copies not landed, in the order it issued them */
static int async_counts[MAX_THREADS], async_rooms[MAX_THREADS];
static unsigned async_batches[MAX_THREADS]; /* the batches each thread committed */
static unsigned async_in_flight, async_serial;

/* A kernel's store to global memory that a copy still in flight reads. */
static void async_source_written(const unsigned char *address, size_t size, const void *code) {
    for (int t = 0; t < thread_count; ++t)
        for (int i = 0; i < async_counts[t]; ++i) {
            const async_copy *c = &async_copies[t][i];
            if (address < c->src + c->source_bytes && c->src < address + size) {
                note(ASYNC_SOURCE_OVERWRITTEN, code, c->code, NULL, 0, NULL, 0, (unsigned)current, (unsigned)t);
                return;
            }
        }
}

static void access_memory(void *address, size_t size, int is_write, const void *code, int atomic) {
    if (in_hook || size == 0) return;
    if (in_kernel && is_runner_memory(address)) end_kernel(INVALID_ACCESS, code, address, "");
    in_hook = 1;
    settle_pending_write();
    if (in_kernel && order == CUDA_CPU_LOCKSTEP && is_shared(address)) { /* each lane's access in step */
        in_hook = 0;
        give_way();
        in_hook = 1;
    }
    if (in_kernel && atomic && !is_shared(address)) block_did_atomic = 1; /* on cudaMalloc's or a __device__ word */
    if (in_kernel && is_write && async_in_flight && !is_shared(address)) async_source_written(address, size, code);
    if (in_kernel && is_shared(address)) access_shared(address, size, is_write, code, atomic);
    else if (is_global(address)) {
        if (in_kernel) access_global(address, size, is_write, code, atomic);
        else host_access(address, size, code);
    } else if (in_kernel && host_allocation_count) {
        host_memory_in_kernel(address, code);
    }
    in_hook = 0;
}

void cuda_cpu_atomic_access(void *address, size_t size, const void *code) { access_memory(address, size, 1, code, 1); }

/* A misused copy, not made; error: what a GPU's later calls return (cudaSuccess: it goes on). */
static void async_misuse(const void *code, cudaError_t error, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static void async_misuse(const void *code, cudaError_t error, const char *format, ...) {
    if (error != cudaSuccess) sticky_error = error;
    finding *f = note(ASYNC_MISUSE, code, NULL, NULL, 0, NULL, 0, (unsigned)current, (unsigned)current);
    if (!f) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(f->detail, sizeof f->detail, format, arguments);
    va_end(arguments);
}

/* Where a copy's source is, when it is no memory a copy reads: NULL when it may be (device memory, a
 * __device__ or __constant__ variable). */
static const char *not_a_source(const void *src) {
    const size_t slot = stack_bytes + GUARD_BYTES;
    if (is_shared(src)) return "shared memory";
    if (stacks && (const char *)src >= stacks && (const char *)src < stacks + (size_t)MAX_THREADS * slot)
        return "a thread's local variable";
    const int at = host_allocation_index(src);
    if (at >= 0 && (const unsigned char *)src < host_allocations[at].start + host_allocations[at].size)
        return "host memory (malloc's)";
    return NULL;
}

void cuda_cpu_pipeline_memcpy_async(void *dst, const void *src, size_t size, size_t zfill) {
    const void *code = __builtin_return_address(0);
    if (current < 0) return;
    const char *source_is = not_a_source(src);
    /* the toolkit's header: __trap() (cudaErrorLaunchFailure) for a wrong size or zfill */
    if (size != 4 && size != 8 && size != 16)
        return async_misuse(code, cudaErrorLaunchFailure, "size_and_align %zu: a copy is 4, 8 or 16 bytes", size);
    if (zfill > size)
        return async_misuse(code, cudaErrorLaunchFailure, "zfill %zu is more than size_and_align %zu", zfill, size);
    if (!is_shared(dst))
        return async_misuse(code, cudaSuccess, "its destination %p is not shared memory%s", dst,
                            is_global(dst) ? " (it is device memory)" : "");
    if (source_is) return async_misuse(code, cudaSuccess, "its source %p is %s, not global memory", src, source_is);
    if ((uintptr_t)dst % size || (uintptr_t)src % size) {
        note(MISALIGNED, code, NULL, NULL, 0, NULL, 0, (unsigned)current, (unsigned)current);
        sticky_error = cudaErrorMisalignedAddress;
        return;
    }
    const unsigned me = (unsigned)current, source_bytes = (unsigned)(size - zfill);
    if (source_bytes) access_memory((void *)src, source_bytes, 0, code, 0); /* out of bounds, unwritten, blocks */
    if (source_bytes && cuda_cpu_accesses_on && is_global(src)) /* counted as a global load (not its shared write) */
        cuda_cpu_access(src, source_bytes, 0, code, 1);
    for (size_t i = 0; i < size; ++i) /* until it lands they hold what they held: unwritten ones, poison */
        if (shadow_of((unsigned char *)dst + i)->writer == 0) ((unsigned char *)dst)[i] = POISON;
    access_memory(dst, size, 1, code, 0); /* the write starts now: after others' reads it is a race */
    if (pending_write && pending.code == code && pending.address == dst) { /* over another's write: its bytes */
        memcpy(pending.before, src, source_bytes);
        memset(pending.before + source_bytes, 0, size - source_bytes);
        settle_pending_write();
    }
    if (async_counts[me] == async_rooms[me]) {
        async_rooms[me] = async_rooms[me] ? 2 * async_rooms[me] : 8;
        async_copies[me] = realloc(async_copies[me], (size_t)async_rooms[me] * sizeof **async_copies);
        if (!async_copies[me]) {
            fprintf(stderr, "CPU runner: out of memory for asynchronous copies\n");
            exit(3);
        }
    }
    const async_copy c = {dst, src, (unsigned)size, source_bytes, async_batches[me], ++async_serial, code};
    async_copies[me][async_counts[me]++] = c;
    ++async_in_flight;
    for (unsigned i = 0; i < c.size; ++i) {
        shadow *s = shadow_of(c.dst + i);
        s->async_thread = me + 1, s->async_serial = c.serial, s->async_exited = 0, s->async_code = code;
    }
}

void cuda_cpu_pipeline_commit(void) {
    if (current >= 0) ++async_batches[current];
}

/* The copy lands: its source read now, its bytes written as the running thread's (which issued it). Those
 * of a thread that exited stay marked: no thread waited for them. */
static void land(const async_copy *c, int exited) {
    const unsigned me = (unsigned)current;
    settle_pending_write();
    memcpy(c->dst, c->src, c->source_bytes);
    memset(c->dst + c->source_bytes, 0, c->size - c->source_bytes);
    for (unsigned i = 0; i < c->size; ++i) {
        shadow *s = shadow_of(c->dst + i);
        if (s->async_serial == c->serial) s->async_thread = exited ? me + 1 : 0, s->async_exited = exited;
        s->writer = me + 1, s->write_epoch = barrier_epoch, s->write_warp_epoch = warp_epoch[me / WARP];
        s->write_code = c->code, s->write_atomic = 0, s->reader = 0;
    }
    --async_in_flight;
}

/* Lands the running thread's copies of every batch but the newest `prior` it committed (8 or more: 8, as
 * the toolkit's header waits); exited: all of them, committed or not. */
static void land_copies(size_t prior, int exited) {
    const int me = current;
    if (prior > 8) prior = 8;
    int kept = 0;
    for (int i = 0; i < async_counts[me]; ++i) {
        const async_copy *c = &async_copies[me][i];
        if (exited || (size_t)c->batch + prior < async_batches[me]) land(c, exited);
        else async_copies[me][kept++] = *c;
    }
    async_counts[me] = kept;
}

void cuda_cpu_pipeline_wait_prior(size_t prior) {
    if (current >= 0) land_copies(prior, 0);
}

/* gcc calls __tsan_readN/__tsan_writeN for an access whose type is N-byte aligned (an under-aligned one,
 * packed or a struct copy, goes through the _range hooks): a kernel's such access at an address that is
 * not a multiple of N is misaligned, which stops the kernel on a GPU. */
static void aligned_access(void *address, size_t size, int is_write, const void *code) {
    if (in_kernel && (uintptr_t)address % size != 0) {
        note(MISALIGNED, code, NULL, NULL, 0, NULL, 0, (unsigned)current, (unsigned)current);
        sticky_error = cudaErrorMisalignedAddress;
    }
    access_memory(address, size, is_write, code, 0);
}

/* A kernel's load or store instruction (not an atomic, not a memcpy's range): counted warp by warp
 * (warp_accesses.c), shared or global, then checked. */
static void instruction(void *address, size_t size, int is_write, const void *code, int aligned) {
    if (cuda_cpu_accesses_on && in_kernel && !in_hook && (is_shared(address) || is_global(address)))
        cuda_cpu_access(address, (unsigned)size, is_write, code, !is_shared(address));
    if (aligned) aligned_access(address, size, is_write, code);
    else access_memory(address, size, is_write, code, 0);
}

/* The hooks gcc's -fsanitize=thread calls (--param tsan-instrument-func-entry-exit=0 leaves out the
 * function entries). */
#define HOOKS(n)                                                                                                       \
    void __tsan_read##n(void *a) { instruction(a, n, 0, __builtin_return_address(0), 1); }                          \
    void __tsan_write##n(void *a) { instruction(a, n, 1, __builtin_return_address(0), 1); }                         \
    void __tsan_unaligned_read##n(void *a) { instruction(a, n, 0, __builtin_return_address(0), 0); }                \
    void __tsan_unaligned_write##n(void *a) { instruction(a, n, 1, __builtin_return_address(0), 0); }
HOOKS(1)
HOOKS(2)
HOOKS(4)
HOOKS(8)
HOOKS(16)
void __tsan_read_range(void *a, unsigned long n) { access_memory(a, n, 0, __builtin_return_address(0), 0); }
void __tsan_write_range(void *a, unsigned long n) { access_memory(a, n, 1, __builtin_return_address(0), 0); }
/* C++ classes with virtual functions (std::ifstream, std::ostringstream, a learner's own): gcc's pass
 * reports the store of an object's vtable pointer and its read, as a write and a read of the pointer. */
void __tsan_vptr_update(void *vptr_p, void *new_val) {
    (void)new_val;
    aligned_access(vptr_p, sizeof(void *), 1, __builtin_return_address(0));
}
void __tsan_vptr_read(void *vptr_p) { aligned_access(vptr_p, sizeof(void *), 0, __builtin_return_address(0)); }
void __tsan_init(void) {}
void __tsan_func_entry(void *caller) { (void)caller; }
void __tsan_func_exit(void) {}

/* memcpy, memset and memmove, called by the program (flags.txt: never inlined, linked through these): the
 * bytes they read and write are accesses like any other. The runner's own calls pass straight through. */
void *__real_memcpy(void *to, const void *from, size_t size);
void *__real_memmove(void *to, const void *from, size_t size);
void *__real_memset(void *to, int value, size_t size);
void *__wrap_memcpy(void *to, const void *from, size_t size) {
    access_memory((void *)from, size, 0, __builtin_return_address(0), 0);
    access_memory(to, size, 1, __builtin_return_address(0), 0);
    return __real_memcpy(to, from, size);
}
void *__wrap_memmove(void *to, const void *from, size_t size) {
    access_memory((void *)from, size, 0, __builtin_return_address(0), 0);
    access_memory(to, size, 1, __builtin_return_address(0), 0);
    return __real_memmove(to, from, size);
}
void *__wrap_memset(void *to, int value, size_t size) {
    access_memory(to, size, 1, __builtin_return_address(0), 0);
    return __real_memset(to, value, size);
}

/* ----- threads, barriers, warps ----- */
/* A switch is _setjmp/_longjmp: ucontext's swapcontext would make two system calls each time (the
 * signal mask), the runner's whole cost. ucontext only enters each fiber's stack the first time. */
static void switch_to(int thread) {
    ++stats.switches;
    current = thread;
    cuda_cpu_threadIdx = threads[thread].index;
    in_kernel = 1;
    if (!_setjmp(scheduler)) _longjmp(threads[thread].resume, 1);
    in_kernel = 0;
    settle_pending_write();
    current = -1;
}

static void wait_here(enum state state, const char *file, int line) {
    if (cuda_cpu_accesses_on) cuda_cpu_accesses_sync(); /* a barrier or a warp operation: what follows is a later instruction */
    cuda_thread *t = &threads[current];
    t->state = state;
    t->file = file;
    t->line = line;
    if (!_setjmp(t->resume)) _longjmp(scheduler, 1);
}

/* A fiber's whole life: it runs one CUDA thread's kernel to its end, then waits for the next block's
 * thread of the same number, on the same stack. */
static void fiber_main(void) {
    cuda_thread *t = &threads[current];
    if (!_setjmp(t->resume)) swapcontext(&slot_context, &scheduler_context); /* made: back to the launch */
    for (;;) {
        launch_body(launch_argument);
        if (async_counts[current]) land_copies(0, 1); /* its copies land, as on a GPU, unwaited for */
        threads[current].state = EXITED;
        if (!_setjmp(t->resume)) _longjmp(scheduler, 1);
    }
}

/* Makes fiber i, the first time a block has that many threads. */
static void start_fiber(int i) {
    ucontext_t *c = &slot_context;
    getcontext(c);
    c->uc_stack.ss_sp = stacks + (size_t)i * (stack_bytes + GUARD_BYTES) + GUARD_BYTES;
    c->uc_stack.ss_size = stack_bytes;
    c->uc_link = NULL;
    makecontext(c, fiber_main, 0);
    current = i;
    swapcontext(&scheduler_context, c);
    current = -1;
    threads[i].started = 1;
}

void cuda_cpu_syncthreads(const char *file, int line) { wait_here(AT_BARRIER, file, line); }

int cuda_cpu_syncthreads_count(int predicate, const char *file, int line) {
    threads[current].predicate = predicate != 0;
    wait_here(AT_BARRIER, file, line);
    threads[current].predicate = 0;
    return threads[current].count;
}

/* A warp operation's mask must name the lane that calls it (the PTX ISA, shfl.sync and bar.warp.sync:
 * undefined otherwise). Reported; the lane then takes part as if its mask named it. */
static unsigned with_caller(unsigned mask, const char *file, int line) {
    const unsigned lane = 1u << (unsigned)current % WARP;
    threads[current].asked_mask = mask;
    if (!(mask & lane))
        note(WARP_MASK_LEAVES_OUT_CALLER, NULL, NULL, file, line, file, line, (unsigned)current, (unsigned)current);
    return mask | lane;
}

void cuda_cpu_syncwarp(unsigned mask, const char *file, int line) {
    threads[current].op = SYNCWARP;
    threads[current].mask = with_caller(mask, file, line);
    wait_here(AT_WARP, file, line);
}

unsigned long long cuda_cpu_shfl(unsigned mask, unsigned long long value, int shuffle, int lane_argument, int width,
                                 const char *file, int line) {
    cuda_thread *t = &threads[current];
    t->op = SHUFFLE;
    t->mask = with_caller(mask, file, line);
    t->value = value;
    t->shuffle = shuffle;
    t->lane_argument = lane_argument;
    t->width = width;
    wait_here(AT_WARP, file, line);
    return t->result;
}

unsigned cuda_cpu_warp_gather(unsigned mask, unsigned long long value, unsigned long long values[32], const char *file,
                              int line) {
    cuda_thread *t = &threads[current];
    t->op = GATHER;
    t->mask = with_caller(mask, file, line);
    t->value = value;
    t->gathered = values;
    wait_here(AT_WARP, file, line);
    return t->participants;
}

unsigned cuda_cpu_active_mask(void) {
    const int first = current / WARP * WARP;
    unsigned mask = 0;
    for (int lane = 0; lane < WARP && first + lane < thread_count; ++lane)
        if (threads[first + lane].state != EXITED) mask |= 1u << lane;
    return mask;
}

void cuda_cpu_no_ptx(const char *file, int line) {
    fprintf(stderr, "CPU runner: %s:%d: inline PTX cannot run on the CPU runner (the program should have skipped this "
                    "kernel)\n", file, line);
    exit(3);
}

void cuda_cpu_needs_a_gpu(const char *file, int line, const char *what) {
    fflush(stdout);
    printf("CPU runner: %s:%d: %s. Exit 3.\n", file, line, what);
    fflush(stdout);
    _exit(3);
}

long long cuda_cpu_clock64(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* A warp whose waiting lanes can all go on: every lane its masks name waits at a warp operation (or
 * exited: a finding). The shuffles' results are set here, from the values the lanes brought. */
static int release_warps(void) {
    int released = 0;
    for (int first = 0; first < thread_count; first += WARP) {
        const int lanes = thread_count - first < WARP ? thread_count - first : WARP;
        cuda_thread *const warp = &threads[first];
        unsigned waiting = 0;
        for (int lane = 0; lane < lanes; ++lane)
            if (warp[lane].state == AT_WARP) waiting |= 1u << lane;
        if (!waiting) continue;
        /* A lane goes on when every lane its mask names waits at the same kind of operation with the same mask
         * (the PTX ISA's rule for shfl.sync, vote.sync, bar.warp.sync), or has exited (a finding). Lanes at
         * other operations, or with other masks, are not its partners: a fixpoint drops a lane whose partner
         * cannot go on. */
        unsigned ready = 0;
        for (int lane = 0; lane < lanes; ++lane) {
            if (!(waiting >> lane & 1)) continue;
            const cuda_thread *t = &warp[lane];
            int ok = 1;
            for (int other = 0; other < lanes && ok; ++other) {
                if (other == lane || !(t->asked_mask >> other & 1)) continue;
                const cuda_thread *u = &warp[other];
                if (u->state == EXITED)
                    note(WARP_LANE_EXITED, NULL, NULL, t->file, t->line, t->file, t->line, (unsigned)(first + lane),
                         (unsigned)(first + other));
                else
                    ok = u->state == AT_WARP && u->op == t->op && u->asked_mask == t->asked_mask;
            }
            if (ok) ready |= 1u << lane;
        }
        for (unsigned before = 0; before != ready;) {
            before = ready;
            for (int lane = 0; lane < lanes; ++lane)
                if ((ready >> lane & 1) && (warp[lane].asked_mask & waiting & ~ready & ((1u << lanes) - 1)))
                    ready &= ~(1u << lane);
        }
        if (!ready) continue;
        for (int lane = 0; lane < lanes; ++lane) {
            cuda_thread *t = &warp[lane];
            if (!(ready >> lane & 1)) continue;
            if (t->op == SHUFFLE) { /* a source outside the lane's segment of width lanes: its own value (PTX shfl) */
                const int segment = lane / t->width * t->width, n = t->lane_argument;
                const int source = t->shuffle == CUDA_CPU_SHFL_DOWN ? lane + n
                                   : t->shuffle == CUDA_CPU_SHFL_UP ? lane - n
                                   : t->shuffle == CUDA_CPU_SHFL_XOR ? lane ^ n
                                   : segment + n % t->width;
                const int inside = source >= segment && source < segment + t->width && source < lanes;
                t->result = inside && (ready >> source & 1) && warp[source].op == SHUFFLE ? warp[source].value
                                                                                         : t->value;
            } else if (t->op == GATHER) { /* the lanes going on with it at a gather of the same mask; a gather
                                           * that names its caller alone (__activemask) meets the others alike */
                t->participants = 0;
                for (int other = 0; other < lanes; ++other) {
                    const cuda_thread *u = &warp[other];
                    const int alike = u->asked_mask == t->asked_mask ||
                                      (t->asked_mask == 1u << lane && u->asked_mask == 1u << other);
                    if ((ready >> other & 1) && u->op == GATHER && alike)
                        t->participants |= 1u << other, t->gathered[other] = u->value;
                }
            }
        }
        for (int lane = 0; lane < lanes; ++lane)
            if (ready >> lane & 1) warp[lane].state = RUNNABLE;
        ++warp_epoch[first / WARP];
        released = 1;
    }
    return released;
}

/* Every thread not exited waits at a barrier: release them, unless one warp is split between two barriers
 * (a GPU does not finish that block: a deadlock, exit 4). Returns 0 when not every thread waits at one. */
static int release_barrier(void) {
    int waiting = 0, exited = 0, first = -1;
    for (int i = 0; i < thread_count; ++i) {
        if (threads[i].state == EXITED) ++exited;
        else if (threads[i].state == AT_BARRIER) ++waiting, first = first < 0 ? i : first;
        else return 0;
    }
    if (!waiting) return 0;
    for (int start = 0; start < thread_count; start += WARP) { /* a warp split between two barriers */
        const cuda_thread *u = NULL;
        for (int i = start; i < start + WARP && i < thread_count; ++i) {
            const cuda_thread *t = &threads[i];
            if (t->state != AT_BARRIER) continue;
            if (!u) u = t;
            if (t->line == u->line && t->file == u->file) continue;
            char a[64], b[64];
            thread_text((unsigned)(u - threads), a, sizeof a);
            thread_text((unsigned)i, b, sizeof b);
            note(BARRIER_DIVERGENT, NULL, NULL, u->file, u->line, t->file, t->line, (unsigned)(u - threads),
                 (unsigned)i);
            report_findings();
            printf("CPU runner: deadlock in block (%u,%u,%u): in warp %d, %s waits at %s:%d and %s at %s:%d;\n"
                   "  a warp split between two barriers never finishes its block on a GPU. Exit 4.\n",
                   cuda_cpu_blockIdx.x, cuda_cpu_blockIdx.y, cuda_cpu_blockIdx.z, start / WARP, a, u->file, u->line,
                   b, t->file, t->line);
            char other[1200];
            snprintf(other, sizeof other, "%s:%d", t->file, t->line);
            print_machine_deadlock(DEADLOCK_SPLIT_WARP, u->file, u->line, (unsigned)(u - threads), other, (unsigned)i,
                                   "");
            fflush(stdout);
            _exit(4);
        }
    }
    const cuda_thread *f = &threads[first];
    for (int i = first + 1; i < thread_count; ++i) {
        const cuda_thread *t = &threads[i];
        if (t->state == AT_BARRIER && (t->line != f->line || t->file != f->file)) {
            note(BARRIER_DIVERGENT, NULL, NULL, f->file, f->line, t->file, t->line, (unsigned)first, (unsigned)i);
            break;
        }
    }
    if (exited) note(BARRIER_EXITED, NULL, NULL, f->file, f->line, NULL, 0, (unsigned)waiting, 0);
    int count = 0; /* __syncthreads_count's answer */
    for (int i = 0; i < thread_count; ++i)
        count += threads[i].state == AT_BARRIER && threads[i].predicate;
    for (int i = 0; i < thread_count; ++i)
        if (threads[i].state == AT_BARRIER) threads[i].state = RUNNABLE, threads[i].count = count;
    ++barrier_epoch;
    return 1;
}

/* A kernel's printf. A GPU runs a printf of a converged warp once for all its lanes, lane after lane;
 * here each thread runs alone to its next wait, so its lines wait, and when the scheduler's pass ends
 * each warp's are printed in the order the warp met them: each printf (its format and how many times this
 * lane had used it) in an order every lane's own agrees with, its lanes' lines in lane order. */
typedef struct {
    char *text;
    const void *site;
    int occurrence, line;
} printed_line;
typedef struct {
    printed_line *lines;
    int count, room, next;
} printed;
static printed prints[MAX_THREADS];
static int prints_waiting;

int cuda_cpu_printf_at(int line, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int length;
    if (!in_kernel || current < 0) {
        length = vprintf(format, arguments);
    } else {
        char *text = NULL;
        length = vasprintf(&text, format, arguments);
        printed *p = &prints[current];
        if (length >= 0 && p->count == p->room) {
            p->room = p->room ? 2 * p->room : 8;
            p->lines = realloc(p->lines, (size_t)p->room * sizeof *p->lines);
        }
        if (length >= 0 && p->lines) {
            const void *site = format; /* not the call's address: the compiler may copy a call into two paths */
            int occurrence = 0;
            for (int i = 0; i < p->count; ++i)
                occurrence += p->lines[i].site == site;
            p->lines[p->count++] = (printed_line){text, site, occurrence, line};
            prints_waiting = 1;
        }
    }
    va_end(arguments);
    return length;
}

static int same_print(const printed_line *a, const printed_line *b) {
    return a->site == b->site && a->occurrence == b->occurrence;
}

/* One warp's waiting lines: repeatedly the lanes' next printf that no lane has still to come after other
 * lines, the one highest in the source of those (a warp that took two branches prints the upper first);
 * else (code that diverged) the first lane's alone. Printed for every lane at it. */
static void print_warp_lines(printed *lanes, int count) {
    for (;;) {
        const printed_line *chosen = NULL;
        for (int lane = 0; lane < count; ++lane) {
            if (lanes[lane].next == lanes[lane].count) continue;
            const printed_line *head = &lanes[lane].lines[lanes[lane].next];
            int later = 0;
            for (int other = 0; other < count && !later; ++other)
                for (int i = lanes[other].next + 1; i < lanes[other].count && !later; ++i)
                    later = same_print(&lanes[other].lines[i], head);
            if (!later && (!chosen || head->line < chosen->line)) chosen = head;
        }
        const int alone = !chosen; /* every head comes later in some lane: the first lane's, alone */
        for (int lane = 0; lane < count && !chosen; ++lane)
            if (lanes[lane].next < lanes[lane].count) chosen = &lanes[lane].lines[lanes[lane].next];
        if (!chosen) break;
        const printed_line key = *chosen;
        for (int lane = 0; lane < count; ++lane) {
            printed *p = &lanes[lane];
            if (p->next == p->count || (alone ? &p->lines[p->next] != chosen : !same_print(&p->lines[p->next], &key)))
                continue;
            fputs(p->lines[p->next].text, stdout);
            free(p->lines[p->next].text);
            ++p->next;
        }
    }
    for (int lane = 0; lane < count; ++lane)
        lanes[lane].count = lanes[lane].next = 0;
}

static void print_waiting_lines(void) {
    if (!prints_waiting) return;
    prints_waiting = 0;
    for (int first = 0; first < thread_count; first += WARP)
        print_warp_lines(&prints[first], thread_count - first < WARP ? thread_count - first : WARP);
}

static void deadlock(void) {
    print_waiting_lines();
    report_findings();
    printf("CPU runner: deadlock in block (%u,%u,%u): no thread can go on:\n", cuda_cpu_blockIdx.x,
           cuda_cpu_blockIdx.y, cuda_cpu_blockIdx.z);
    for (int i = 0, shown = 0; i < thread_count && shown < 8; ++i) {
        const cuda_thread *t = &threads[i];
        if (t->state == EXITED || (i > 0 && threads[i - 1].state == t->state && threads[i - 1].line == t->line))
            continue;
        char who[64];
        thread_text((unsigned)i, who, sizeof who);
        printf("  %s (and those after it) waits at %s:%d, %s\n", who, t->file, t->line,
               t->state == AT_BARRIER ? "__syncthreads()" : t->op == SHUFFLE ? "a shuffle" : "__syncwarp()");
        print_machine_deadlock(DEADLOCK_WAITING, t->file, t->line, (unsigned)i, "-", 0,
                               t->state == AT_BARRIER ? " waits=__syncthreads()"
                               : t->op == SHUFFLE     ? " waits=__shfl_*_sync()"
                                                      : " waits=__syncwarp()");
        ++shown;
    }
    printf("CPU runner: exit 4.\n");
    fflush(stdout);
    _exit(4);
}

/* The order of one pass over a block's threads. */
static void pass_order(int *list, int count, unsigned long long pass) {
    for (int i = 0; i < count; ++i)
        list[i] = order == CUDA_CPU_REVERSE ? count - 1 - i : i;
    if (order != CUDA_CPU_RANDOM) return;
    unsigned long long state = seed * 0x9e3779b97f4a7c15ULL ^ block_serial * 0xbf58476d1ce4e5b9ULL ^ pass;
    for (int i = count - 1; i > 0; --i) { /* Fisher-Yates, with splitmix64 */
        state += 0x9e3779b97f4a7c15ULL;
        unsigned long long z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        const int j = (int)(z % (unsigned long long)(i + 1)), swap = list[i];
        list[i] = list[j];
        list[j] = swap;
    }
}

static void run_block(void) {
    ++block_serial;
    block_did_atomic = 0;
    memset(last_store, 0, (size_t)thread_count * sizeof *last_store);
    memset(last_fence, 0, (size_t)thread_count * sizeof *last_fence);
    barrier_epoch = 0;
    memset(warp_epoch, 0, sizeof warp_epoch);
    memset(async_counts, 0, (size_t)thread_count * sizeof *async_counts);
    memset(async_batches, 0, (size_t)thread_count * sizeof *async_batches);
    async_in_flight = 0;
    for (int i = 0; i < thread_count; ++i) {
        cuda_thread *t = &threads[i];
        const dim3 b = cuda_cpu_blockDim;
        t->index = (uint3){(unsigned)i % b.x, (unsigned)i / b.x % b.y, (unsigned)i / (b.x * b.y)};
        t->state = RUNNABLE;
        if (!t->started) start_fiber(i);
    }
    int list[MAX_THREADS];
    for (unsigned long long pass = 0;; ++pass) {
        pass_order(list, thread_count, pass);
        for (int i = 0; i < thread_count; ++i)
            if (threads[list[i]].state == RUNNABLE) switch_to(list[i]);
        const int lockstep_pass = gave_way;
        gave_way = 0;
        print_waiting_lines();
        if (release_warps() || lockstep_pass) continue;
        int live = 0;
        for (int i = 0; i < thread_count; ++i)
            live += threads[i].state != EXITED;
        if (!live) return note_released_threads();
        if (!release_barrier()) deadlock();
    }
}

/* The limit in force, and what the alarm prints, written before any kernel runs (a signal handler
 * only writes). */
static unsigned spin_limit = SPIN_LIMIT_SECONDS;
static char never_ended_text[256];

static void never_ended(int signal) {
    (void)signal;
    if (write(STDOUT_FILENO, never_ended_text, strlen(never_ended_text)) < 0) _exit(4);
    if (machine_findings) { /* the thread that ran on: its line is not known here */
        const finding f = {DEADLOCK_SPINNING, NULL, NULL, NULL, NULL, 0, 0, (unsigned)current, 0, cuda_cpu_blockIdx,
                           cuda_cpu_blockIdx, 1, ""};
        char here[8] = "-", extra[32], line[1024];
        snprintf(extra, sizeof extra, " seconds=%u", spin_limit);
        machine_finding(&f, here, "", extra, line, sizeof line);
        if (write(STDOUT_FILENO, line, strlen(line)) < 0) _exit(4);
    }
    _exit(4);
}

/* CUDA_CPU_SPIN_LIMIT_S: whole seconds, 1 to SPIN_LIMIT_MAX (a grader wants a shorter limit than a
 * learner's default); -1 for anything else. */
static int set_spin_limit(const char *text) {
    if (text) {
        char *end;
        const unsigned long value = strtoul(text, &end, 10);
        if (text[0] < '0' || text[0] > '9' || *end || value < 1 || value > SPIN_LIMIT_MAX) return -1;
        spin_limit = (unsigned)value;
    }
    snprintf(never_ended_text, sizeof never_ended_text,
             "CPU runner: a kernel ran for %u s without ending or waiting: a deadlock (a thread spinning on memory "
             "no other thread of its block can change while it runs?). Exit 4.\n", spin_limit);
    return 0;
}

/* A kernel's load or store outside any memory (often an index read from poisoned shared memory): a GPU
 * stops the kernel (cudaErrorIllegalAddress, exit 3 at the next CUDA call). It is the launch's last
 * finding, after those so far, as they often say why; without this handler the program died with its
 * output unflushed. So too a kernel's integer division by zero (SIGFPE: a GPU's quotient is undefined,
 * it goes on) and a trap the compiler put in undefined code (SIGILL), each with its thread and line. */
static void invalid_access(int signal_number, siginfo_t *info, void *context) {
    if (!in_kernel) { /* the runner's or the host code's own fault: the default death */
        signal(signal_number, SIG_DFL);
        raise(signal_number);
        return;
    }
    if (signal_number == SIGABRT) { /* assert() in a kernel (its message is above): a GPU's cudaErrorAssert */
        in_kernel = 0;
        print_waiting_lines();
        char who[64];
        thread_text((unsigned)current, who, sizeof who);
        printf("CPU runner: %s, launched at %s:%d: an assert() failed in %s of block (%u,%u,%u) (a GPU stops the "
               "kernel: cudaErrorAssert). Exit 3.\n", launch_kernel, launch_file, launch_line, who,
               cuda_cpu_blockIdx.x, cuda_cpu_blockIdx.y, cuda_cpu_blockIdx.z);
        fflush(stdout);
        _exit(3);
    }
    const void *pc = NULL;
#if defined(__x86_64__)
    pc = (const void *)((ucontext_t *)context)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    pc = (const void *)((ucontext_t *)context)->uc_mcontext.pc;
#endif
    /* where() looks one byte back, as for a return address: pc + 1 names the faulting instruction */
    const char *code = pc ? (const char *)pc + 1 : NULL, *address = info->si_addr;
    Dl_info program, faulted;
    if (pc && dladdr((void *)cuda_cpu_launch, &program) && dladdr(pc, &faulted) &&
        faulted.dli_fbase != program.dli_fbase) { /* in a library the kernel called (memset): its call names the line */
        void *frames[64];
        const int count = backtrace(frames, 64);
        int i = 0;
        while (i < count && frames[i] != pc) ++i; /* the handler's own frames, then the fault's */
        while (++i < count && !(dladdr(frames[i], &faulted) && faulted.dli_fbase == program.dli_fbase)) continue;
        if (i < count) code = frames[i]; /* a return address: where() looks one byte back, into the call */
    }
    if (signal_number == SIGFPE || signal_number == SIGILL)
        end_kernel(signal_number == SIGFPE ? INTEGER_DIVISION : TRAP, code, NULL, "");
    const size_t slot = stack_bytes + GUARD_BYTES;
    if (address >= stacks && address < stacks + (size_t)MAX_THREADS * slot &&
        (size_t)(address - stacks) % slot < GUARD_BYTES) { /* a guard page: below this thread's stack, it overflowed; */
        if ((size_t)(address - stacks) / slot != (size_t)current) /* another's: it went past the top of its own */
            end_kernel(LOCAL_OUT_OF_BOUNDS, code, NULL, "");
        char detail[256];
        snprintf(detail, sizeof detail, "its stack here is %zu KB (a GPU gives a thread up to 512 KB of local memory; "
                 "CUDA_CPU_STACK_KB=N gives each thread N KB)", stack_bytes / 1024);
        end_kernel(STACK_OVERFLOW, code, NULL, detail);
    }
    end_kernel(INVALID_ACCESS, code, address, "");
}

/* A kernel's fault (a load or store no memory holds, a stack overflow, a division by zero, a trap), in the
 * thread and block running: the launch's last finding, exit 3 (a GPU: cudaErrorIllegalAddress). */
static void end_kernel(enum kind kind, const void *code, const void *address, const char *detail) {
    in_kernel = 0;
    in_hook = 1; /* the report's own copies are not the kernel's */
    print_waiting_lines();
    if (finding_count == MAX_FINDINGS) --finding_count, ++findings_dropped; /* this one is shown */
    finding *f = note(kind, code, address, NULL, 0, NULL, 0, (unsigned)current, (unsigned)current);
    if (f) snprintf(f->detail, sizeof f->detail, "%s", detail);
    report_findings();
    _exit(3);
}


/* The kernels that opted in to more dynamic shared memory than SHARED_PER_BLOCK, by the name the
 * program wrote in cudaFuncSetAttribute (cuda_on_cpu.h), which its launches write the same way. */
static struct {
    char kernel[160];
    const void *function;
    size_t bytes;
} opt_ins[16];
static int opt_in_count;

cudaError_t cuda_cpu_func_set_attribute(const char *arguments, const void *function, enum cudaFuncAttribute attribute,
                                        int value) {
    if (attribute != cudaFuncAttributeMaxDynamicSharedMemorySize) return cudaSuccess;
    if (value < 0 || value > DYNAMIC_SHARED_BYTES) return cudaErrorInvalidValue;
    size_t length = 0; /* the kernel: up to the first comma outside <> and () */
    for (int depth = 0; arguments[length] && (depth > 0 || arguments[length] != ','); ++length)
        depth += (arguments[length] == '<' || arguments[length] == '(') -
                 (arguments[length] == '>' || arguments[length] == ')');
    int i = 0;
    while (i < opt_in_count && (strlen(opt_ins[i].kernel) != length || strncmp(opt_ins[i].kernel, arguments, length)))
        ++i;
    if (i == (int)(sizeof opt_ins / sizeof *opt_ins) || length >= sizeof opt_ins[i].kernel)
        return cudaErrorInvalidValue;
    if (i == opt_in_count) ++opt_in_count;
    snprintf(opt_ins[i].kernel, sizeof opt_ins[i].kernel, "%.*s", (int)length, arguments);
    opt_ins[i].bytes = (size_t)value;
    opt_ins[i].function = function;
    return cudaSuccess;
}

size_t cuda_cpu_func_max_dynamic_shared(const void *function) {
    for (int i = 0; i < opt_in_count; ++i)
        if (opt_ins[i].function == function && opt_ins[i].bytes > SHARED_PER_BLOCK) return opt_ins[i].bytes;
    return SHARED_PER_BLOCK;
}

static size_t max_dynamic_shared(const char *kernel) {
    for (int i = 0; i < opt_in_count; ++i)
        if (strcmp(opt_ins[i].kernel, kernel) == 0 && opt_ins[i].bytes > SHARED_PER_BLOCK) return opt_ins[i].bytes;
    return SHARED_PER_BLOCK;
}

void cuda_cpu_launch(dim3 grid, dim3 block, size_t dynamic_bytes, void (*body)(void *), void *argument,
                     const char *file, int line, const char *kernel) {
    if (current >= 0) { /* a launch inside a kernel: its blocks would need this one's to wait, which it cannot */
        in_kernel = 0;
        print_waiting_lines();
        fflush(stdout);
        printf("CPU runner: %s:%d: %s launched from a kernel (dynamic parallelism), which the runner does not run. "
               "Exit 3.\n", file, line, kernel);
        fflush(stdout);
        _exit(3);
    }
    const unsigned long long count = (unsigned long long)block.x * block.y * block.z;
    if (count == 0 || count > MAX_THREADS || block.z > 64 || grid.x == 0 || grid.y == 0 || grid.z == 0 ||
        grid.y > 65535 || grid.z > 65535) {
        cuda_cpu_set_last_error(cudaErrorInvalidConfiguration);
        return;
    }
    if (dynamic_bytes > max_dynamic_shared(kernel)) {
        cuda_cpu_set_last_error(cudaErrorInvalidValue);
        return;
    }
    if (!stacks) {
        const size_t slot = stack_bytes + GUARD_BYTES;
        stacks = map_or_die((size_t)MAX_THREADS * slot, "the threads' stacks");
        for (int i = 0; i < MAX_THREADS; ++i)
            mprotect(stacks + (size_t)i * slot, GUARD_BYTES, PROT_NONE);
        static char signal_stack[256 * 1024]; /* the fault handler's: a thread's own may be what overflowed */
        stack_t alternate = {.ss_sp = signal_stack, .ss_size = sizeof signal_stack};
        sigaltstack(&alternate, NULL);
        signal(SIGALRM, never_ended);
        struct sigaction fault = {0};
        fault.sa_sigaction = invalid_access;
        fault.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
        sigaction(SIGSEGV, &fault, NULL);
        sigaction(SIGBUS, &fault, NULL);
        sigaction(SIGABRT, &fault, NULL);
        sigaction(SIGFPE, &fault, NULL);
        void *warm[1]; /* backtrace loads its unwinder on its first call: here, not in the fault handler */
        backtrace(warm, 1);
        sigaction(SIGILL, &fault, NULL);
    }
    shared_arena_init();
    cuda_cpu_accesses_launch();
    shared_variables[0].size = dynamic_bytes; /* past it: out of bounds */
    launch_first_block = block_serial + 1;
    launch_body = body;
    launch_argument = argument;
    launch_file = file;
    launch_line = line;
    launch_kernel = kernel;
    thread_count = (int)count;
    cuda_cpu_blockDim = block;
    cuda_cpu_gridDim = grid;
    alarm(spin_limit);
    const long long start = cuda_cpu_clock64();
    ++stats.launches;
    stats.blocks += (unsigned long long)grid.x * grid.y * grid.z;
    stats.threads += (unsigned long long)grid.x * grid.y * grid.z * count;
    const unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
    long long shown = start;
    for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
            for (unsigned x = 0; x < grid.x; ++x) {
                cuda_cpu_blockIdx = (uint3){x, y, z};
                run_block();
                if (cuda_cpu_accesses_on) cuda_cpu_accesses_block_done();
                alarm(spin_limit);
                const unsigned long long done = block_serial - launch_first_block + 1;
                if (done % 64 == 0 && cuda_cpu_clock64() - shown > PROGRESS_SECONDS * 1000000000LL) {
                    shown = cuda_cpu_clock64();
                    const double spent = (double)(shown - start) / 1e9;
                    fprintf(stderr, "CPU runner: %s (launch %llu of the program, at %s:%d): block %llu of %llu, "
                            "about %.0f s left in this launch\n", kernel, stats.launches, file, line, done, blocks,
                            spent * (double)(blocks - done) / (double)done);
                }
            }
    alarm(0);
    free(released);
    released = NULL;
    stats.seconds += (double)(cuda_cpu_clock64() - start) / 1e9;
    if (cuda_cpu_accesses_on) cuda_cpu_accesses_launch_done(kernel);
    report_findings();
}

/* --cpu-order's value: "forward", "reverse", "random:SEED" or "lockstep"; 0, or -1 when it is none of them. */
static int parse_order(const char *text, enum cuda_cpu_order *to, unsigned long *seed_to) {
    if (strcmp(text, "forward") == 0) return *to = CUDA_CPU_FORWARD, 0;
    if (strcmp(text, "reverse") == 0) return *to = CUDA_CPU_REVERSE, 0;
    if (strcmp(text, "lockstep") == 0) return *to = CUDA_CPU_LOCKSTEP, 0;
    if (strncmp(text, "random:", 7) == 0 && text[7] >= '0' && text[7] <= '9') {
        char *end;
        *seed_to = strtoul(text + 7, &end, 10);
        if (*end == 0) return *to = CUDA_CPU_RANDOM, 0;
    }
    return -1;
}

const char *cuda_cpu_order_name(void) {
    static char name[40];
    if (order == CUDA_CPU_RANDOM) snprintf(name, sizeof name, "random:%lu", seed);
    else snprintf(name, sizeof name, "%s", (const char *[]){"forward", "reverse", "", "lockstep"}[order]);
    return name;
}

/* ----- device memory, as the CUDA runtime calls reach it ----- */
static void memory_where(const void *caller, char *out, size_t size) {
    char place[1100];
    where(caller, place, sizeof place);
    snprintf(out, size, place[0] == '0' && place[1] == 'x' ? "" : " (made at %s)", place);
}

cudaError_t cudaMalloc(void **pointer, size_t size) {
    return cuda_cpu_allocate_at(pointer, size, CUDA_CPU_DEVICE, __builtin_return_address(0));
}
cudaError_t cudaFree(void *pointer) { return cuda_cpu_free(pointer, CUDA_CPU_DEVICE); }
cudaError_t cudaMallocHost(void **pointer, size_t size) {
    return cuda_cpu_allocate_at(pointer, size, CUDA_CPU_HOST, __builtin_return_address(0));
}
cudaError_t cudaFreeHost(void *pointer) { return cuda_cpu_free(pointer, CUDA_CPU_HOST); }

/* Device memory named by a copy must lie inside one allocation, as a GPU's runtime checks. */
static int copy_fits(const void *address, size_t size) { return !is_global(address) || allocation_holding(address, size); }

cudaError_t cudaMemcpy(void *to, const void *from, size_t size, enum cudaMemcpyKind kind) {
    (void)kind;
    if (sticky_error) return sticky_error;
    if (!size) return cudaSuccess;
    if (!copy_fits(to, size) || !copy_fits(from, size)) return cudaErrorInvalidValue;
    memmove(to, from, size);
    cuda_cpu_host_wrote(to, size);
    return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *to, const void *from, size_t size, enum cudaMemcpyKind kind, cudaStream_t s) {
    (void)s;
    return cudaMemcpy(to, from, size, kind);
}
cudaError_t cudaMemset(void *to, int value, size_t size) {
    if (sticky_error) return sticky_error;
    if (!copy_fits(to, size)) return cudaErrorInvalidValue;
    memset(to, value, size);
    cuda_cpu_host_wrote(to, size);
    return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void *to, int value, size_t size, cudaStream_t s) {
    (void)s;
    return cudaMemset(to, value, size);
}

static void print_stats(void) {
    fprintf(stderr, "CPU runner stats: %llu launches, %llu blocks, %llu CUDA threads, %llu switches, %.3f s in "
                    "kernels: %.2e switches/s\n", stats.launches, stats.blocks, stats.threads, stats.switches,
            stats.seconds, stats.seconds > 0 ? (double)stats.switches / stats.seconds : 0.0);
}

/* The program's main, of either signature and with or without a return, runs inside this one (linked
 * with --wrap=main, flags.txt), which takes the runner's own options (--cpu, --cpu-order ORDER) out of
 * argv, reads CUDA_CPU_SPIN_LIMIT_S and CUDA_CPU_STACK_KB, runs it, and turns its exit 0 into 1 when the
 * runner reported a finding (a race is a wrong kernel, even when its result came out right). */
int __real_main(int argc, char **argv);
int __wrap_main(int argc, char **argv) {
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
        const char *value = NULL;
        if (strcmp(argv[i], "--cpu") == 0) continue;
        if (strcmp(argv[i], "--cpu-order") == 0) {
            if (i + 1 == argc) {
                fprintf(stderr, "%s: --cpu-order needs a value: forward, reverse, random:SEED or lockstep\n", argv[0]);
                return 2;
            }
            value = argv[++i];
        } else if (strncmp(argv[i], "--cpu-order=", 12) == 0) {
            value = argv[i] + 12;
        }
        if (value) {
            if (parse_order(value, &order, &seed) != 0) {
                fprintf(stderr, "%s: --cpu-order %s: the orders are forward, reverse, random:SEED and lockstep\n",
                        argv[0], value);
                return 2;
            }
            continue;
        }
        argv[kept++] = argv[i];
    }
    argv[kept] = NULL;
    machine_findings = getenv("CUDA_CPU_FINDINGS") && strcmp(getenv("CUDA_CPU_FINDINGS"), "machine") == 0;
    if (set_spin_limit(getenv("CUDA_CPU_SPIN_LIMIT_S")) != 0) {
        fprintf(stderr,
                "%s: CUDA_CPU_SPIN_LIMIT_S=%s: the spin limit is a whole number of seconds from 1 to %d (%d when "
                "unset)\n", argv[0], getenv("CUDA_CPU_SPIN_LIMIT_S"), SPIN_LIMIT_MAX, SPIN_LIMIT_SECONDS);
        return 2;
    }
    const char *stack_kb = getenv("CUDA_CPU_STACK_KB");
    if (stack_kb) {
        char *end;
        const unsigned long kb = strtoul(stack_kb, &end, 10);
        if (stack_kb[0] < '0' || stack_kb[0] > '9' || *end || kb < 64 || kb > 65536) {
            fprintf(stderr, "%s: CUDA_CPU_STACK_KB=%s: a thread's stack is a whole number of KB from 64 to 65536 "
                    "(%d when unset)\n", argv[0], stack_kb, STACK_BYTES / 1024);
            return 2;
        }
        stack_bytes = (size_t)kb * 1024;
    }
    if (getenv("CUDA_CPU_STATS")) atexit(print_stats);
    const int status = __real_main(kept, argv);
    fflush(stdout);
    if ((status == 0 || status == 1) && total_findings > 0) { /* 1: common/report.h failed the run for them */
        printf("CPU runner: %ld finding%s above: exit 1 (a race or a barrier error is a wrong kernel, even when its "
               "result came out right).\n", total_findings, total_findings == 1 ? "" : "s");
        return 1;
    }
    return status;
}
