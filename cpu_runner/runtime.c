/* The CPU runner: CUDA's execution model on one CPU thread, for the chapters'
 * kernels, so that a learner without an NVIDIA GPU runs them and a missing
 * barrier fails every time, with its line.
 *
 *   - Each CUDA thread is a fiber (a stack of its own, entered through glibc's
 *     ucontext, switched with _setjmp/_longjmp); the scheduler runs the
 *     blocks of a grid one after another, and in a block runs each runnable
 *     thread, in the chosen order (forward, reverse, random:SEED), until it
 *     waits (__syncthreads, __syncwarp, a shuffle) or ends. lockstep: forward,
 *     but each thread gives way before each shared-memory access, so a warp's
 *     lanes make each access in step, as warps ran before Volta.
 *   - __syncthreads() releases when every thread of the block that has not
 *     exited waits at one (exited threads count as arrived). Threads of one
 *     warp waiting at two different barriers never release: a deadlock (exit
 *     4). Threads of different warps at different barriers, or a barrier some
 *     threads exited before, release as on a GPU since Volta, and are reported.
 *   - Every load and store of the kernels calls __tsan_readN/__tsan_writeN
 *     (gcc's -fsanitize=thread instrumentation; this file is their runtime,
 *     not ThreadSanitizer's). An access to shared memory (the program's static
 *     zero-initialised data, where __shared__ arrays live, and the dynamic
 *     buffer) is checked against a shadow of that memory: who wrote and read
 *     each byte, in which barrier interval. A read or write another thread
 *     made in the same interval is a race; a read of a byte no thread of the
 *     block wrote is an unwritten read, and the byte reads as 0xff (poison).
 * docs/CPU_RUNNER.md says why it is built this way and what it cannot show. */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE /* its longjmp refuses to jump to another stack, which is what a fiber switch is */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "runtime.h"

#define MAX_THREADS 1024
#define WARP 32
#define STACK_BYTES (256 * 1024)
#define DYNAMIC_SHARED_BYTES (227 * 1024) /* what an H100 lets one block opt in to */
#define SHARED_PER_BLOCK (48 * 1024)      /* what a block gets without the opt-in */
#define SHARED_PER_SM (228 * 1024)
#define SHARED_RESERVED (1024) /* per block, by the system */
#define MAX_FINDINGS 64                   /* distinct findings kept per launch */
#define POISON 0xff                       /* what an unwritten shared byte reads as: NaN, -1 */
#define SPIN_LIMIT_SECONDS 120 /* a block that never waits and never ends, unless CUDA_CPU_SPIN_LIMIT_S says */
#define SPIN_LIMIT_MAX 86400

/* In .data, not .bss: every static zero-initialised byte is shared memory to the race detector. */
#define NOT_SHARED __attribute__((section(".data")))
NOT_SHARED uint3 cuda_cpu_threadIdx, cuda_cpu_blockIdx;
NOT_SHARED dim3 cuda_cpu_blockDim, cuda_cpu_gridDim;

enum state { RUNNABLE, AT_BARRIER, AT_WARP, EXITED };
enum warp_op { SYNCWARP, SHUFFLE };

typedef struct {
    jmp_buf resume; /* where the fiber goes on */
    int started;    /* its stack has been entered once (through ucontext) */
    enum state state;
    const char *file; /* where it waits */
    int line;
    enum warp_op op;
    unsigned mask;
    int shuffle, lane_argument, width; /* a shuffle's: which (enum cuda_cpu_shuffle), its delta or lane, width */
    unsigned long long value, result; /* a shuffle's */
    uint3 index;
} cuda_thread;

/* ----- the scheduler ----- */
static cuda_thread threads[MAX_THREADS];
static char *stacks;
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
static unsigned char dynamic_shared[DYNAMIC_SHARED_BYTES] __attribute__((aligned(256)));
static size_t dynamic_shared_bytes;

/* ----- findings ----- */
enum kind { RACE_READ_AFTER_WRITE, RACE_WRITE_AFTER_READ, RACE_WRITE_AFTER_WRITE, UNWRITTEN_READ, MISALIGNED,
            INVALID_ACCESS, BARRIER_DIVERGENT, BARRIER_EXITED, WARP_LANE_EXITED, WARP_MASK_LEAVES_OUT_CALLER };
static const char *const kind_names[] = {
    "race on shared memory: a thread reads what another thread wrote since the last barrier",
    "race on shared memory: a thread overwrites what another thread read since the last barrier",
    "race on shared memory: two threads write one byte with different values, with no barrier between",
    "read of shared memory that no thread of this block wrote (it reads as 0xff bytes here)",
    "misaligned address: a load or store at an address not a multiple of its size (a GPU stops the kernel: "
    "cudaErrorMisalignedAddress)",
    "invalid memory access: a load or store at an address no memory holds (a GPU stops the kernel: "
    "cudaErrorIllegalAddress; exit 3)",
    "divergent barrier: the threads of one block wait at different __syncthreads()",
    "barrier not reached by every thread of the block: some exited before it",
    "warp operation whose mask names a lane that has exited",
    "warp operation whose mask leaves out the lane that calls it"};
typedef struct {
    enum kind kind;
    const void *code, *other_code; /* the access and the earlier one (races), or the address (invalid access) */
    const char *file, *other_file; /* barrier findings */
    int line, other_line;
    unsigned thread, other_thread;
    uint3 block;
    long count;
} finding;
static finding findings[MAX_FINDINGS];
static cudaError_t sticky_error = cudaSuccess; /* a kernel's fault: every later call returns it, as on a GPU */
static int finding_count;
static long findings_dropped, total_findings;

static void note(enum kind kind, const void *code, const void *other_code, const char *file, int line,
                 const char *other_file, int other_line, unsigned thread, unsigned other_thread) {
    ++total_findings;
    for (int i = 0; i < finding_count; ++i) {
        finding *f = &findings[i];
        if (f->kind == kind && f->code == code && f->other_code == other_code && f->line == line &&
            f->other_line == other_line && f->file == file) {
            ++f->count;
            return;
        }
    }
    if (finding_count == MAX_FINDINGS) {
        ++findings_dropped;
        return;
    }
    findings[finding_count++] = (finding){kind,        code,   other_code, file,   other_file, line, other_line,
                                          thread,      other_thread, cuda_cpu_blockIdx, 1};
}

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
        const int in_runner = strstr(line, "cuda_on_cpu.h:") != NULL;
        if (first || !in_runner) snprintf(out, size, "%s", strncmp(line, "./", 2) == 0 ? line + 2 : line);
        if (!in_runner) break;
    }
    pclose(pipe);
}

static void thread_text(unsigned thread, char *out, size_t size) {
    const dim3 b = cuda_cpu_blockDim;
    if (b.y == 1 && b.z == 1)
        snprintf(out, size, "thread %u", thread);
    else
        snprintf(out, size, "thread (%u,%u,%u)", thread % b.x, thread / b.x % b.y, thread / (b.x * b.y));
}

/* Prints the launch's findings, each once with how often it happened. */
static void report_findings(void) {
    if (finding_count == 0) return;
    printf("CPU runner: %s, launched at %s:%d: what it found\n", launch_kernel, launch_file, launch_line);
    for (int i = 0; i < finding_count; ++i) {
        const finding *f = &findings[i];
        char here[1200], there[1200], who[64], whom[64];
        thread_text(f->thread, who, sizeof who);
        thread_text(f->other_thread, whom, sizeof whom);
        printf("CPU runner: %s\n", kind_names[f->kind]);
        if (f->kind <= INVALID_ACCESS) {
            where(f->code, here, sizeof here);
            if (f->kind == UNWRITTEN_READ || f->kind == MISALIGNED) {
                printf("  at %s: %s of block (%u,%u,%u)", here, who, f->block.x, f->block.y, f->block.z);
            } else if (f->kind == INVALID_ACCESS) {
                printf("  at %s: %s of block (%u,%u,%u), address %p", here, who, f->block.x, f->block.y, f->block.z,
                       f->other_code);
            } else {
                where(f->other_code, there, sizeof there);
                printf("  at %s: %s of block (%u,%u,%u); the other access at %s, %s", here, who, f->block.x,
                       f->block.y, f->block.z, there, whom);
            }
        } else if (f->kind == WARP_MASK_LEAVES_OUT_CALLER) {
            printf("  at %s:%d: %s of block (%u,%u,%u)", f->file, f->line, who, f->block.x, f->block.y, f->block.z);
        } else if (f->kind == WARP_LANE_EXITED) {
            printf("  at %s:%d: %s of block (%u,%u,%u); its mask names lane %u, which has exited", f->file, f->line,
                   who, f->block.x, f->block.y, f->block.z, f->other_thread % WARP);
        } else if (f->kind == BARRIER_DIVERGENT) {
            printf("  at %s:%d (%s, block (%u,%u,%u)) and at %s:%d (%s)", f->file, f->line, who, f->block.x,
                   f->block.y, f->block.z, f->other_file, f->other_line, whom);
        } else {
            printf("  at %s:%d, block (%u,%u,%u): %u thread(s) waited there, the others had exited", f->file, f->line,
                   f->block.x, f->block.y, f->block.z, f->thread);
        }
        printf(f->count > 1 ? " (%ld times in this launch)\n" : "\n", f->count);
    }
    if (findings_dropped) printf("CPU runner: and %ld more of other kinds or lines\n", findings_dropped);
    fflush(stdout);
    finding_count = 0;
    findings_dropped = 0;
}

/* ----- the shadow of shared memory ----- */
extern char __bss_start[], _end[];
#define ANY_READER 0xffffffffu
#define ATOMIC_WRITER 0xfffffffeu
typedef struct {
    unsigned long long generation; /* block_serial when last touched: older is "not written in this block" */
    unsigned writer, write_epoch, write_warp_epoch; /* writer: thread + 1, 0 none */
    unsigned reader, read_epoch, read_warp_epoch;
    const void *write_code, *read_code;
    /* read_code's thread + 1, and the reader before it that was another thread: of two readers one is not a
     * later writer, so a race with ANY_READER names a read by another thread */
    unsigned last_reader, prior_reader;
    const void *prior_read_code;
} shadow;
static shadow *shadows;
static int in_kernel;
/* A write over another thread's write in the same interval: a race only if the value differs, which is
 * known after the store, at the next access or switch. */
static struct {
    unsigned char *address, before[16];
    size_t size;
    const void *code, *other_code;
    unsigned thread, other_thread;
} pending;
static int pending_write;

static int is_shared(const void *address) {
    return (const char *)address >= __bss_start && (const char *)address < _end;
}
void *cuda_cpu_dynamic_shared(void) { return dynamic_shared; }
/* The dynamic buffer where a GPU puts it for a kernel with no static shared memory, after the 1 KB it
 * reserves per block; a static array's offset is the runner's layout, not a GPU's. */
size_t cuda_cpu_shared_offset(const void *address) {
    const unsigned char *p = (const unsigned char *)address;
    if (p >= dynamic_shared && p < dynamic_shared + DYNAMIC_SHARED_BYTES)
        return SHARED_RESERVED + (size_t)(p - dynamic_shared);
    return is_shared(address) ? (size_t)((const char *)address - __bss_start) : 0;
}

static int ordered(unsigned other, unsigned epoch, unsigned other_warp_epoch, unsigned me) {
    if (other == me + 1 || other == ATOMIC_WRITER || epoch != barrier_epoch) return 1;
    return (other - 1) / WARP == me / WARP && other_warp_epoch != warp_epoch[me / WARP];
}

static void settle_pending_write(void) {
    if (!pending_write) return;
    pending_write = 0;
    if (memcmp(pending.address, pending.before, pending.size) != 0)
        note(RACE_WRITE_AFTER_WRITE, pending.code, pending.other_code, NULL, 0, NULL, 0, pending.thread,
             pending.other_thread);
}

static shadow *shadow_of(const void *address) {
    if (!shadows) {
        shadows = mmap(NULL, (size_t)(_end - __bss_start) * sizeof(shadow), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (shadows == MAP_FAILED) {
            perror("CPU runner: the shadow of shared memory");
            exit(3);
        }
    }
    shadow *s = &shadows[(const char *)address - __bss_start];
    if (s->generation != block_serial) memset(s, 0, sizeof *s), s->generation = block_serial;
    return s;
}

/* lockstep: the thread gives way before a shared-memory access; it goes on in the next pass. */
static int gave_way;
static void give_way(void) {
    gave_way = 1;
    if (!_setjmp(threads[current].resume)) _longjmp(scheduler, 1);
}

static void access_shared(void *address, size_t size, int is_write, const void *code) {
    settle_pending_write();
    if (!in_kernel || !is_shared(address)) return;
    if (order == CUDA_CPU_LOCKSTEP) give_way();
    const unsigned me = (unsigned)current, warp = me / WARP;
    int reported = 0;
    for (size_t i = 0; i < size; ++i) {
        shadow *s = shadow_of((char *)address + i);
        if (!is_write) {
            if (s->writer == 0) {
                ((unsigned char *)address)[i] = POISON;
                if (!reported++) note(UNWRITTEN_READ, code, NULL, NULL, 0, NULL, 0, me, me);
            } else if (!ordered(s->writer, s->write_epoch, s->write_warp_epoch, me) && !reported++) {
                note(RACE_READ_AFTER_WRITE, code, s->write_code, NULL, 0, NULL, 0, me, s->writer - 1);
            }
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
            if (s->writer && !ordered(s->writer, s->write_epoch, s->write_warp_epoch, me) && !pending_write &&
                !reported) {
                pending_write = reported = 1;
                pending.address = (unsigned char *)address;
                pending.size = size;
                memcpy(pending.before, address, size);
                pending.code = code;
                pending.other_code = s->write_code;
                pending.thread = me;
                pending.other_thread = s->writer - 1;
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
            s->reader = 0;
        }
    }
}

void cuda_cpu_atomic_access(void *address, size_t size, const void *code) {
    settle_pending_write();
    if (!in_kernel || !is_shared(address)) return;
    if (order == CUDA_CPU_LOCKSTEP) give_way();
    for (size_t i = 0; i < size; ++i) {
        shadow *s = shadow_of((char *)address + i);
        if (s->writer == 0 && i == 0) {
            ((unsigned char *)address)[i] = POISON;
            note(UNWRITTEN_READ, code, NULL, NULL, 0, NULL, 0, (unsigned)current, (unsigned)current);
        }
        s->writer = ATOMIC_WRITER;
        s->write_code = code;
    }
}

/* gcc calls __tsan_readN/__tsan_writeN for an access whose type is N-byte aligned (an under-aligned one,
 * packed or a struct copy, goes through the _range hooks): a kernel's such access at an address that is
 * not a multiple of N is misaligned, which stops the kernel on a GPU. */
static void aligned_access(void *address, size_t size, int is_write, const void *code) {
    if (in_kernel && (uintptr_t)address % size != 0) {
        note(MISALIGNED, code, NULL, NULL, 0, NULL, 0, (unsigned)current, (unsigned)current);
        sticky_error = cudaErrorMisalignedAddress;
    }
    access_shared(address, size, is_write, code);
}

/* The hooks gcc's -fsanitize=thread calls (--param tsan-instrument-func-entry-exit=0 leaves out the
 * function entries). */
#define HOOKS(n)                                                                                                       \
    void __tsan_read##n(void *a) { aligned_access(a, n, 0, __builtin_return_address(0)); }                          \
    void __tsan_write##n(void *a) { aligned_access(a, n, 1, __builtin_return_address(0)); }                         \
    void __tsan_unaligned_read##n(void *a) { access_shared(a, n, 0, __builtin_return_address(0)); }                 \
    void __tsan_unaligned_write##n(void *a) { access_shared(a, n, 1, __builtin_return_address(0)); }
HOOKS(1)
HOOKS(2)
HOOKS(4)
HOOKS(8)
HOOKS(16)
void __tsan_read_range(void *a, unsigned long n) { access_shared(a, n, 0, __builtin_return_address(0)); }
void __tsan_write_range(void *a, unsigned long n) { access_shared(a, n, 1, __builtin_return_address(0)); }
void __tsan_init(void) {}
void __tsan_func_entry(void *caller) { (void)caller; }
void __tsan_func_exit(void) {}

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
        threads[current].state = EXITED;
        if (!_setjmp(t->resume)) _longjmp(scheduler, 1);
    }
}

/* Makes fiber i, the first time a block has that many threads. */
static void start_fiber(int i) {
    ucontext_t *c = &slot_context;
    getcontext(c);
    c->uc_stack.ss_sp = stacks + (size_t)i * STACK_BYTES;
    c->uc_stack.ss_size = STACK_BYTES;
    c->uc_link = NULL;
    makecontext(c, fiber_main, 0);
    current = i;
    swapcontext(&scheduler_context, c);
    current = -1;
    threads[i].started = 1;
}

void cuda_cpu_syncthreads(const char *file, int line) { wait_here(AT_BARRIER, file, line); }

/* A warp operation's mask must name the lane that calls it (the PTX ISA, shfl.sync and bar.warp.sync:
 * undefined otherwise). Reported; the lane then takes part as if its mask named it. */
static unsigned with_caller(unsigned mask, const char *file, int line) {
    const unsigned lane = 1u << (unsigned)current % WARP;
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

void cuda_cpu_no_ptx(const char *file, int line) {
    fprintf(stderr, "CPU runner: %s:%d: inline PTX cannot run on the CPU runner (the program should have skipped this "
                    "kernel)\n", file, line);
    exit(3);
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
        unsigned waiting = 0, mask = 0;
        for (int lane = 0; lane < lanes; ++lane)
            if (threads[first + lane].state == AT_WARP) waiting |= 1u << lane, mask |= threads[first + lane].mask;
        if (!waiting) continue;
        int ready = 1;
        for (int lane = 0; lane < lanes && ready; ++lane) {
            if (!(mask >> lane & 1) || (waiting >> lane & 1)) continue;
            if (threads[first + lane].state == EXITED) {
                const int waiter = first + __builtin_ctz(waiting);
                note(WARP_LANE_EXITED, NULL, NULL, threads[waiter].file, threads[waiter].line, threads[waiter].file,
                     threads[waiter].line, (unsigned)waiter, (unsigned)(first + lane));
            } else {
                ready = 0;
            }
        }
        if (!ready) continue;
        for (int lane = 0; lane < lanes; ++lane) {
            cuda_thread *t = &threads[first + lane];
            if (!(waiting >> lane & 1)) continue;
            if (t->op == SHUFFLE) { /* a source outside the lane's segment of width lanes: its own value (PTX shfl) */
                const int segment = lane / t->width * t->width, n = t->lane_argument;
                const int source = t->shuffle == CUDA_CPU_SHFL_DOWN ? lane + n
                                   : t->shuffle == CUDA_CPU_SHFL_UP ? lane - n
                                   : t->shuffle == CUDA_CPU_SHFL_XOR ? lane ^ n
                                   : segment + n % t->width;
                const int inside = source >= segment && source < segment + t->width && source < lanes;
                t->result = inside && (waiting >> source & 1) && threads[first + source].op == SHUFFLE
                                ? threads[first + source].value
                                : t->value;
            }
            t->state = RUNNABLE;
        }
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
    for (int i = 0; i < thread_count; ++i)
        if (threads[i].state == AT_BARRIER) threads[i].state = RUNNABLE;
    ++barrier_epoch;
    return 1;
}

static void deadlock(void) {
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
    barrier_epoch = 0;
    memset(warp_epoch, 0, sizeof warp_epoch);
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
        if (release_warps() || lockstep_pass) continue;
        int live = 0;
        for (int i = 0; i < thread_count; ++i)
            live += threads[i].state != EXITED;
        if (!live) return;
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
 * output unflushed. */
static void invalid_access(int signal_number, siginfo_t *info, void *context) {
    if (!in_kernel) { /* the runner's or the host code's own fault: the default death */
        signal(signal_number, SIG_DFL);
        raise(signal_number);
        return;
    }
    in_kernel = 0;
    const void *pc = NULL;
#if defined(__x86_64__)
    pc = (const void *)((ucontext_t *)context)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    pc = (const void *)((ucontext_t *)context)->uc_mcontext.pc;
#endif
    if (finding_count == MAX_FINDINGS) --finding_count, ++findings_dropped; /* this one is shown */
    /* where() looks one byte back, as for a return address: pc + 1 names the faulting instruction */
    note(INVALID_ACCESS, pc ? (const char *)pc + 1 : NULL, info->si_addr, NULL, 0, NULL, 0, (unsigned)current,
         (unsigned)current);
    report_findings();
    _exit(3);
}

static cudaError_t last_error = cudaSuccess;

/* The kernels that opted in to more dynamic shared memory than SHARED_PER_BLOCK, by the name the
 * program wrote in cudaFuncSetAttribute (cuda_on_cpu.h), which its launches write the same way. */
static struct {
    char kernel[160];
    size_t bytes;
} opt_ins[16];
static int opt_in_count;

cudaError_t cuda_cpu_func_set_attribute(const char *arguments, const void *function, enum cudaFuncAttribute attribute,
                                        int value) {
    (void)function;
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
    return cudaSuccess;
}

static size_t max_dynamic_shared(const char *kernel) {
    for (int i = 0; i < opt_in_count; ++i)
        if (strcmp(opt_ins[i].kernel, kernel) == 0 && opt_ins[i].bytes > SHARED_PER_BLOCK) return opt_ins[i].bytes;
    return SHARED_PER_BLOCK;
}

void cuda_cpu_launch(dim3 grid, dim3 block, size_t dynamic_bytes, void (*body)(void *), void *argument,
                     const char *file, int line, const char *kernel) {
    const unsigned long long count = (unsigned long long)block.x * block.y * block.z;
    if (count == 0 || count > MAX_THREADS || block.z > 64 || grid.x == 0 || grid.y == 0 || grid.z == 0 ||
        grid.y > 65535 || grid.z > 65535) {
        last_error = cudaErrorInvalidConfiguration;
        return;
    }
    if (dynamic_bytes > max_dynamic_shared(kernel)) {
        last_error = cudaErrorInvalidValue;
        return;
    }
    if (!stacks) {
        stacks = mmap(NULL, (size_t)MAX_THREADS * STACK_BYTES, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (stacks == MAP_FAILED) {
            perror("CPU runner: the threads' stacks");
            exit(3);
        }
        signal(SIGALRM, never_ended);
        struct sigaction fault = {0};
        fault.sa_sigaction = invalid_access;
        fault.sa_flags = SA_SIGINFO | SA_RESETHAND;
        sigaction(SIGSEGV, &fault, NULL);
        sigaction(SIGBUS, &fault, NULL);
    }
    launch_body = body;
    launch_argument = argument;
    launch_file = file;
    launch_line = line;
    launch_kernel = kernel;
    dynamic_shared_bytes = dynamic_bytes;
    thread_count = (int)count;
    cuda_cpu_blockDim = block;
    cuda_cpu_gridDim = grid;
    alarm(spin_limit);
    const long long start = cuda_cpu_clock64();
    ++stats.launches;
    stats.blocks += (unsigned long long)grid.x * grid.y * grid.z;
    stats.threads += (unsigned long long)grid.x * grid.y * grid.z * count;
    for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
            for (unsigned x = 0; x < grid.x; ++x) {
                cuda_cpu_blockIdx = (uint3){x, y, z};
                run_block();
                alarm(spin_limit);
            }
    alarm(0);
    stats.seconds += (double)(cuda_cpu_clock64() - start) / 1e9;
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

/* ----- the CUDA runtime calls the programs make, on the host ----- */
cudaError_t cudaGetDeviceCount(int *count) {
    *count = 1;
    return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : cudaErrorInvalidDevice; }
cudaError_t cudaGetDevice(int *device) {
    *device = 0;
    return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device) {
    if (device != 0) return cudaErrorInvalidDevice;
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "CPU runner (CUDA's rules on the CPU, no timing; shaped like an H100)");
    p->major = 9, p->minor = 0;
    p->multiProcessorCount = 132;
    p->totalGlobalMem = (size_t)8 << 30;
    p->l2CacheSize = 50 * 1024 * 1024;
    p->sharedMemPerBlock = SHARED_PER_BLOCK;
    p->sharedMemPerBlockOptin = DYNAMIC_SHARED_BYTES;
    p->sharedMemPerMultiprocessor = SHARED_PER_SM;
    p->regsPerBlock = 65536;
    p->regsPerMultiprocessor = 65536;
    p->warpSize = WARP;
    p->maxThreadsPerBlock = MAX_THREADS;
    p->maxThreadsPerMultiProcessor = 2048;
    p->maxBlocksPerMultiProcessor = 32;
    p->maxThreadsDim[0] = 1024, p->maxThreadsDim[1] = 1024, p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 0x7fffffff, p->maxGridSize[1] = 65535, p->maxGridSize[2] = 65535;
    p->memoryBusWidth = 5120;
    p->reservedSharedMemPerBlock = SHARED_RESERVED;
    return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attribute, int device) {
    struct cudaDeviceProp p;
    cudaGetDeviceProperties(&p, device);
    switch (attribute) {
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int)p.sharedMemPerMultiprocessor; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrWarpSize: *value = WARP; break;
    case cudaDevAttrMaxThreadsPerBlock: *value = MAX_THREADS; break;
    case cudaDevAttrClockRate: *value = 1980000; break;
    default: *value = 0; return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int *version) {
    *version = CUDART_VERSION;
    return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int *version) {
    *version = CUDART_VERSION;
    return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes) {
    *free_bytes = *total_bytes = (size_t)8 << 30; /* what the runner lets a program ask for */
    return cudaSuccess;
}
cudaError_t cudaMalloc(void **pointer, size_t size) {
    *pointer = malloc(size ? size : 1);
    if (*pointer) memset(*pointer, POISON, size); /* a GPU's fresh memory holds anything */
    return *pointer ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFree(void *pointer) {
    free(pointer);
    return cudaSuccess;
}
cudaError_t cudaMallocHost(void **pointer, size_t size) { return cudaMalloc(pointer, size); }
cudaError_t cudaFreeHost(void *pointer) { return cudaFree(pointer); }
cudaError_t cudaMemcpy(void *to, const void *from, size_t size, enum cudaMemcpyKind kind) {
    (void)kind;
    if (sticky_error) return sticky_error;
    memmove(to, from, size);
    return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *to, const void *from, size_t size, enum cudaMemcpyKind kind, cudaStream_t s) {
    (void)s;
    return cudaMemcpy(to, from, size, kind);
}
cudaError_t cudaMemset(void *to, int value, size_t size) {
    memset(to, value, size);
    return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void *to, int value, size_t size, cudaStream_t s) {
    (void)s;
    return cudaMemset(to, value, size);
}
cudaError_t cudaDeviceSynchronize(void) { return sticky_error; }
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
    (void)s;
    return cudaSuccess;
}
cudaError_t cudaGetLastError(void) {
    if (sticky_error) return sticky_error;
    const cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}
cudaError_t cudaPeekAtLastError(void) { return sticky_error ? sticky_error : last_error; }
const char *cudaGetErrorName(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    case cudaErrorMisalignedAddress: return "cudaErrorMisalignedAddress";
    default: return "cudaError (CPU runner)";
    }
}
const char *cudaGetErrorString(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorNotSupported: return "not on the CPU runner";
    case cudaErrorMisalignedAddress: return "misaligned address";
    default: return "error on the CPU runner";
    }
}
/* Events: the runner does not time (a CPU's time says nothing of a GPU's); they exist so that
 * code that records and waits works, and every elapsed time is 0. */
cudaError_t cudaEventCreate(cudaEvent_t *event) {
    *event = (cudaEvent_t)malloc(1);
    return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
    free(event);
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    (void)event, (void)stream;
    return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    (void)event;
    return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t event) {
    (void)event;
    return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
    (void)start, (void)end;
    *ms = 0;
    return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, const void *function, int block_size,
                                                                   size_t dynamic_bytes, unsigned flags) {
    (void)function, (void)flags;
    /* threads and the dynamic shared memory asked: the runner knows no registers, no static shared memory */
    *blocks = block_size > 0 ? 2048 / block_size : 0;
    if (*blocks > 32) *blocks = 32;
    if (*blocks > (int)(SHARED_PER_SM / (dynamic_bytes + SHARED_RESERVED)))
        *blocks = (int)(SHARED_PER_SM / (dynamic_bytes + SHARED_RESERVED));
    return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *function, int block_size,
                                                          size_t dynamic_bytes) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, function, block_size, dynamic_bytes, 0);
}

static void print_stats(void) {
    fprintf(stderr, "CPU runner stats: %llu launches, %llu blocks, %llu CUDA threads, %llu switches, %.3f s in "
                    "kernels: %.2e switches/s\n", stats.launches, stats.blocks, stats.threads, stats.switches,
            stats.seconds, stats.seconds > 0 ? (double)stats.switches / stats.seconds : 0.0);
}

/* The program's main, renamed when it is built for the runner: this main takes the runner's own
 * options (--cpu, --cpu-order ORDER) out of argv, reads CUDA_CPU_SPIN_LIMIT_S, runs it, and turns its
 * exit 0 into 1 when the runner reported a finding (a race is a wrong kernel, even when its result came
 * out right). */
int cuda_cpu_program_main(int argc, char **argv);
int main(int argc, char **argv) {
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
    if (set_spin_limit(getenv("CUDA_CPU_SPIN_LIMIT_S")) != 0) {
        fprintf(stderr,
                "%s: CUDA_CPU_SPIN_LIMIT_S=%s: the spin limit is a whole number of seconds from 1 to %d (%d when "
                "unset)\n", argv[0], getenv("CUDA_CPU_SPIN_LIMIT_S"), SPIN_LIMIT_MAX, SPIN_LIMIT_SECONDS);
        return 2;
    }
    if (getenv("CUDA_CPU_STATS")) atexit(print_stats);
    const int status = cuda_cpu_program_main(kept, argv);
    fflush(stdout);
    if (status == 0 && total_findings > 0) {
        printf("CPU runner: %ld finding%s above: exit 1 (a race or a barrier error is a wrong kernel, even when its "
               "result came out right).\n", total_findings, total_findings == 1 ? "" : "s");
        return 1;
    }
    return status;
}
