/* Each warp instruction's accesses, rebuilt from its lanes: the bank model of shared memory and the
 * 32-byte sectors of global memory, from the real addresses of the real kernel. runtime.c calls in here
 * from its load and store hooks, where a thread waits (a barrier, __syncwarp, a shuffle or a vote) and
 * after each block and launch, with CUDA_CPU_ACCESSES=FILE set (-: standard output); never otherwise.
 *
 * The runner runs one CUDA thread at a time; a GPU runs a warp's instruction for its 32 lanes at
 * once. So the accesses are put back together: the k-th time lane t of warp w executes the access
 * at one code address, after its n-th barrier (or warp operation), is one warp-wide
 * instruction with the k-th of every other lane of w after their n-th. Per code address (one source
 * line, one load or store) and memory, FILE gets after each launch a line:
 *   code OFFSET space shared|global op ld|st bytes B warps N passes P ideal I conflicted C max M misaligned K
 *        accesses L kernel NAME
 * OFFSET: the return address minus one, from the program's load address (addr2line's input);
 * warps: the warp instructions (Nsight Compute's requests); accesses: their lanes' accesses, B bytes each
 * (L x B: the bytes the threads asked for); passes: what they took in all, and ideal
 * what the same bytes would take at best; conflicted: the instructions that took more than their
 * ideal; max: the most one took; misaligned: lane accesses whose address is not a multiple of their
 * size (a GPU stops the kernel there: misaligned address).
 *   shared: passes are common/bank_model.h's, from the lanes' byte addresses (Nsight's wavefronts);
 *           ideal is one per 32 distinct words.
 *   global: passes are the distinct 32-byte sectors the lanes' bytes touch (Nsight's
 *           l1tex__t_sectors_pipe_lsu_mem_global_op_ld/st); ideal is the sectors the same bytes would
 *           need if contiguous and aligned, one per 32 distinct bytes.
 * and per shape of a shared instruction (its working lanes and its passes: a swizzle permutes addresses)
 * a line for --bank-model (common/bank_model.h), the first such warp's lanes and the pass serving each:
 *   warp OFFSET op ld|st bytes B passes P warps N lanes ADDRESS:PASS,...|- stack OFFSET,... kernel NAME
 * (ADDRESS: from the 128 bytes holding the warp's lowest, so the banks are the real ones; stack: the calls
 * that led to the code's first access in the launch, innermost first, so that the kernel can be named). */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../common/bank_model.h" /* the bank rule the chapters and the lessons use */
#include "bank_lanes.h"
#include "runtime.h"

#define MAX_THREADS 1024
#define MAX_RECORDS (1 << 22) /* accesses kept per block; more are counted as dropped */
#define SECTOR 32
#define SEEN 128 /* the load and store addresses a thread passes between two barriers, told apart; more: dropped */

typedef struct {
    const void *code;
    uintptr_t address;
    unsigned thread, next; /* next: the record before it of its warp instruction, + 1 (0: none) */
    unsigned char bytes, is_write, is_global;
} access_record;

typedef struct { /* one warp instruction of the block: a warp's accesses at one code address and memory, after
                    the same number of barriers (sync), each lane's k-th there */
    const void *code;
    unsigned warp, sync, k, last, slot; /* last: its latest record, + 1; slot: where instruction_at points to it */
    unsigned char is_global;
} warp_instruction;

typedef struct { /* a thread's accesses at one code address since its last barrier */
    const void *code;
    unsigned count;
    unsigned char is_global;
} seen_code;

typedef struct { /* one code address's totals over the launch */
    const void *code;
    unsigned char bytes, is_write, is_global;
    long long warps, passes, ideal, conflicted, max, misaligned, accesses;
} code_totals;

int cuda_cpu_accesses_on;
static FILE *out;
static access_record *records;
static unsigned record_count, syncs[MAX_THREADS];
static warp_instruction *instructions;
static unsigned instruction_count, *instruction_at; /* a hash table of INSTRUCTION_SLOTS: an instruction's index + 1 */
#define INSTRUCTION_SLOTS (2u * MAX_RECORDS)
static seen_code (*seen)[SEEN];
static unsigned char seen_count[MAX_THREADS];
static long long dropped;
static code_totals *totals;
static int total_count, total_capacity;

typedef struct { /* one shape of one shared instruction over the launch: its first warp's lanes */
    const void *code;
    unsigned char bytes, is_write;
    unsigned active, address[32];
    long long passes, warps;
} warp_shape;
static warp_shape *shapes;
static int shape_count, shape_capacity;

#define STACK 40
typedef struct { /* the calls that led to a shared access's code, the first time in the launch */
    const void *code;
    void *frames[STACK];
    int depth;
} code_stack;
static code_stack *stacks;
static int stack_count, stack_capacity;
static const void *stacked[512]; /* direct-mapped: codes whose stack is kept, so most accesses look no further */

static void keep_stack(const void *code) {
    const void **slot = &stacked[((uintptr_t)code >> 1) % 512];
    if (*slot == code) return;
    *slot = code;
    for (int i = 0; i < stack_count; ++i)
        if (stacks[i].code == code) return;
    if (stack_count == stack_capacity) {
        stack_capacity = stack_capacity ? 2 * stack_capacity : 64;
        stacks = realloc(stacks, sizeof *stacks * (size_t)stack_capacity);
        if (!stacks) abort();
    }
    code_stack *c = &stacks[stack_count++];
    c->code = code;
    c->depth = backtrace(c->frames, STACK);
}

static unsigned me(void) {
    const dim3 b = cuda_cpu_blockDim;
    const uint3 t = cuda_cpu_threadIdx;
    return t.x + b.x * (t.y + b.y * t.z);
}

static int by_instruction(const void *x, const void *y) { /* code, memory, warp, sync, k */
    const warp_instruction *a = x, *b = y;
    if (a->code != b->code) return a->code < b->code ? -1 : 1;
    if (a->is_global != b->is_global) return a->is_global < b->is_global ? -1 : 1;
    if (a->warp != b->warp) return a->warp < b->warp ? -1 : 1;
    if (a->sync != b->sync) return a->sync < b->sync ? -1 : 1;
    return a->k < b->k ? -1 : a->k > b->k;
}

/* The warp instruction this access is a lane of: found in instruction_at, or begun. */
static unsigned instruction_of(const void *code, int is_global, unsigned warp, unsigned sync, unsigned k) {
    uint64_t h = ((uint64_t)(uintptr_t)code ^ (uint64_t)sync << 40 ^ (uint64_t)k << 20 ^ warp << 1 ^ (unsigned)is_global) *
                 0x9e3779b97f4a7c15ull;
    for (unsigned slot = (unsigned)(h >> 40) % INSTRUCTION_SLOTS;; slot = (slot + 1) % INSTRUCTION_SLOTS) {
        if (!instruction_at[slot]) {
            instructions[instruction_count] = (warp_instruction){code, warp, sync, k, 0, slot, (unsigned char)is_global};
            instruction_at[slot] = ++instruction_count;
            return instruction_count - 1;
        }
        const warp_instruction *i = &instructions[instruction_at[slot] - 1];
        if (i->code == code && i->is_global == is_global && i->warp == warp && i->sync == sync && i->k == k)
            return instruction_at[slot] - 1;
    }
}

static code_totals *totals_of(const access_record *r) {
    for (int i = 0; i < total_count; ++i)
        if (totals[i].code == r->code && totals[i].is_global == r->is_global && totals[i].is_write == r->is_write &&
            totals[i].bytes == r->bytes)
            return &totals[i];
    if (total_count == total_capacity) {
        total_capacity = total_capacity ? 2 * total_capacity : 64;
        totals = realloc(totals, sizeof *totals * (size_t)total_capacity);
        if (!totals) abort();
    }
    code_totals *t = &totals[total_count++];
    memset(t, 0, sizeof *t);
    t->code = r->code, t->bytes = r->bytes, t->is_write = r->is_write, t->is_global = r->is_global;
    return t;
}

/* Global memory: the distinct sectors the lanes' bytes touch; *ideal, the sectors their distinct bytes
 * would fill from a sector's start. One width per code address: lane i's bytes are [start, start + width). */
static long long sectors(const access_record *group, unsigned lanes, long long *ideal) {
    uintptr_t start[32];
    for (unsigned i = 0; i < lanes; ++i) { /* by address: insertion, since a coalesced warp comes sorted */
        unsigned j = i;
        for (; j > 0 && start[j - 1] > group[i].address; --j)
            start[j] = start[j - 1];
        start[j] = group[i].address;
    }
    const uintptr_t width = group[0].bytes;
    uintptr_t bytes = 0, end = 0, uncounted = 0; /* the bytes before end, and the sectors before uncounted, counted */
    long long touched = 0;
    for (unsigned i = 0; i < lanes; ++i) { /* sorted and of one width: the ends are sorted too */
        const uintptr_t first = start[i] / SECTOR, last = (start[i] + width - 1) / SECTOR;
        bytes += start[i] + width - (i && end > start[i] ? end : start[i]);
        end = start[i] + width;
        const uintptr_t from = i && uncounted > first ? uncounted : first;
        if (from <= last) touched += (long long)(last - from + 1), uncounted = last + 1;
    }
    *ideal = (long long)((bytes + SECTOR - 1) / SECTOR);
    return touched;
}

/* A shared instruction's shape: counted with the first warp of its code, lanes and passes. */
static void count_shape(const access_record *r, unsigned active, const unsigned address[32], long long passes) {
    for (int i = 0; i < shape_count; ++i)
        if (shapes[i].code == r->code && shapes[i].is_write == r->is_write && shapes[i].bytes == r->bytes &&
            shapes[i].active == active && shapes[i].passes == passes) {
            ++shapes[i].warps;
            return;
        }
    if (shape_count == shape_capacity) {
        shape_capacity = shape_capacity ? 2 * shape_capacity : 64;
        shapes = realloc(shapes, sizeof *shapes * (size_t)shape_capacity);
        if (!shapes) abort();
    }
    warp_shape *s = &shapes[shape_count++];
    *s = (warp_shape){r->code, r->bytes, r->is_write, active, {0}, passes, 1};
    memcpy(s->address, address, sizeof s->address);
}

/* A warp's shared addresses and what they take: each block of a launch repeats its warps' addresses (its
 * shared memory is where the last block's was), so most instructions are answered from here. */
typedef struct {
    unsigned active, address[32], bytes;
    int took, ideal;
} shared_answer;
static shared_answer answers[1024]; /* direct-mapped by the addresses' hash; bytes 0: empty */

/* Shared memory: the bank model's passes; *ideal, one per 32 distinct words. -1: not counted. */
static long long passes(const access_record *group, unsigned lanes, long long *ideal) {
    unsigned address[32] = {0}, active = 0, words[32 * 5], distinct = 0, hash = group[0].bytes;
    for (unsigned i = 0; i < lanes; ++i) {
        const unsigned lane = group[i].thread % 32;
        address[lane] = (unsigned)group[i].address;
        active |= 1u << lane;
        hash = (hash ^ address[lane] ^ lane << 27) * 16777619u;
    }
    shared_answer *a = &answers[(hash ^ hash >> 15) % 1024];
    if (a->bytes != group[0].bytes || a->active != active || memcmp(a->address, address, sizeof address) != 0) {
        for (unsigned i = 0; i < lanes; ++i) {
            const unsigned lane = group[i].thread % 32;
            for (unsigned w = address[lane] / 4; w <= (address[lane] + group[i].bytes - 1) / 4; ++w) {
                unsigned j = 0;
                while (j < distinct && words[j] != w)
                    ++j;
                if (j == distinct && distinct < sizeof words / sizeof *words) words[distinct++] = w;
            }
        }
        *a = (shared_answer){active, {0}, group[0].bytes, bank_passes(address, active, group[0].bytes),
                             (int)(distinct + 31) / 32};
        memcpy(a->address, address, sizeof address);
    }
    *ideal = a->ideal;
    if (a->took >= 0) count_shape(group, active, address, a->took);
    return a->took;
}

/* One warp instruction: group[0 .. lanes), one per active lane. */
static void count_instruction(const access_record *group, unsigned lanes) {
    code_totals *t = totals_of(&group[0]);
    for (unsigned i = 0; i < lanes; ++i)
        if (group[i].bytes > 1 && group[i].address % group[i].bytes) ++t->misaligned;
    long long ideal;
    const long long took = group[0].is_global ? sectors(group, lanes, &ideal) : passes(group, lanes, &ideal);
    if (took < 0) return; /* misaligned (counted above) or a width the bank model does not know */
    ++t->warps;
    t->accesses += lanes;
    t->passes += took;
    t->ideal += ideal;
    t->conflicted += took > ideal;
    if (took > t->max) t->max = took;
}

/* The block is over: its accesses, a warp instruction at a time, in the order of by_instruction, each
 * instruction's lanes by thread. */
void cuda_cpu_accesses_block_done(void) {
    memset(syncs, 0, sizeof syncs);
    memset(seen_count, 0, sizeof seen_count);
    if (!record_count) return;
    qsort(instructions, instruction_count, sizeof *instructions, by_instruction);
    for (unsigned i = 0; i < instruction_count; ++i) {
        access_record group[32]; /* by lane: a lane is here at most once (its k-th access after its sync-th barrier) */
        unsigned present = 0, lanes = 0;
        for (unsigned r = instructions[i].last; r; r = records[r - 1].next) {
            group[records[r - 1].thread % 32] = records[r - 1];
            present |= 1u << records[r - 1].thread % 32;
        }
        for (unsigned lane = 0; lane < 32; ++lane)
            if (present >> lane & 1u) group[lanes++] = group[lane];
        count_instruction(group, lanes);
        instruction_at[instructions[i].slot] = 0;
    }
    record_count = 0, instruction_count = 0;
}

void cuda_cpu_access(const void *address, unsigned bytes, int is_write, const void *code, int is_global) {
    if (record_count == MAX_RECORDS) {
        ++dropped;
        return;
    }
    const unsigned thread = me() % MAX_THREADS;
    seen_code *mine = seen[thread], *s = mine; /* k: how many times before this thread was here since its barrier */
    while (s < mine + seen_count[thread] && (s->code != code || s->is_global != is_global))
        ++s;
    if (s == mine + seen_count[thread]) {
        if (seen_count[thread] == SEEN) {
            ++dropped;
            return;
        }
        *s = (seen_code){code, 0, (unsigned char)is_global};
        ++seen_count[thread];
    }
    if (!is_global) keep_stack(code);
    warp_instruction *instruction = &instructions[instruction_of(code, is_global, thread / 32, syncs[thread], s->count++)];
    records[record_count] = (access_record){code, (uintptr_t)address, thread, instruction->last, (unsigned char)bytes,
                                            (unsigned char)is_write, (unsigned char)is_global};
    instruction->last = ++record_count;
}

/* A barrier or a warp operation: what this thread does next is a later instruction. */
void cuda_cpu_accesses_sync(void) {
    const unsigned thread = me() % MAX_THREADS;
    ++syncs[thread];
    seen_count[thread] = 0;
}

/* A launch begins: the first opens FILE. */
void cuda_cpu_accesses_launch(void) {
    static int opened;
    if (opened) return;
    opened = 1;
    const char *path = getenv("CUDA_CPU_ACCESSES");
    if (!path || !*path) return;
    out = strcmp(path, "-") == 0 ? stdout : fopen(path, "a");
    records = malloc(sizeof *records * MAX_RECORDS);
    instructions = malloc(sizeof *instructions * MAX_RECORDS);
    instruction_at = calloc(INSTRUCTION_SLOTS, sizeof *instruction_at);
    seen = malloc(sizeof *seen * MAX_THREADS);
    if (!out || !records || !instructions || !instruction_at || !seen) {
        fprintf(stderr, "CPU runner: CUDA_CPU_ACCESSES=%s: cannot write it; the accesses are not counted\n", path);
        return;
    }
    cuda_cpu_accesses_on = 1;
}

/* The launch is over: its totals, a line per code address. */
void cuda_cpu_accesses_launch_done(const char *kernel) {
    cuda_cpu_accesses_block_done();
    for (int i = 0; i < total_count; ++i) {
        const code_totals *t = &totals[i];
        Dl_info info;
        const char *base = dladdr(t->code, &info) && info.dli_fbase ? (const char *)info.dli_fbase : NULL;
        fprintf(out, "code %#lx space %s op %s bytes %d warps %lld passes %lld ideal %lld conflicted %lld max %lld "
                     "misaligned %lld accesses %lld kernel %s\n",
                base ? (unsigned long)((const char *)t->code - base - 1) : 0UL, t->is_global ? "global" : "shared",
                t->is_write ? "st" : "ld", t->bytes, t->warps, t->passes, t->ideal, t->conflicted, t->max,
                t->misaligned, t->accesses, kernel);
    }
    for (int i = 0; i < shape_count; ++i) {
        const warp_shape *s = &shapes[i];
        Dl_info info;
        const char *base = dladdr(s->code, &info) && info.dli_fbase ? (const char *)info.dli_fbase : NULL;
        int pass[32];
        bank_lane_passes(s->address, s->active, s->bytes, pass);
        unsigned line = ~0u; /* addresses from the 128 bytes of the warp's lowest: the same banks, shorter */
        for (int lane = 0; lane < 32; ++lane)
            if (pass[lane] >= 0 && s->address[lane] < line) line = s->address[lane];
        line &= ~127u;
        fprintf(out, "warp %#lx op %s bytes %d passes %lld warps %lld lanes ",
                base ? (unsigned long)((const char *)s->code - base - 1) : 0UL, s->is_write ? "st" : "ld", s->bytes,
                s->passes, s->warps);
        for (int lane = 0; lane < 32; ++lane) {
            if (pass[lane] < 0)
                fputc('-', out);
            else
                fprintf(out, "%u:%d", s->address[lane] - line, pass[lane]);
            if (lane < 31) fputc(',', out);
        }
        fprintf(out, " stack ");
        int shown = 0;
        for (int k = 0; k < stack_count; ++k)
            for (int f = 0; stacks[k].code == s->code && f < stacks[k].depth; ++f) {
                Dl_info at;
                if (!base || !dladdr(stacks[k].frames[f], &at) || (const char *)at.dli_fbase != base) continue;
                fprintf(out, "%s%#lx", shown++ ? "," : "", (unsigned long)((const char *)stacks[k].frames[f] - base - 1));
            }
        fprintf(out, "%s kernel %s\n", shown ? "" : "-", kernel);
    }
    if (dropped) fprintf(out, "dropped %lld kernel %s\n", dropped, kernel);
    fflush(out);
    total_count = 0, shape_count = 0, stack_count = 0, dropped = 0;
    memset(stacked, 0, sizeof stacked);
}

typedef struct { /* one printed line */
    char kernel[256], access[160], op[3], lanes[640];
    int bytes, line;
    long long passes, weight;
    unsigned active;
} bank_row_;

/* The kernel's name from addr2line -f -C's outermost function, "void NAME(ARGS)": NAME. */
static void bank_kernel_name_(char *function) {
    char *open = strrchr(function, '(');
    if (open) *open = 0;
    if (strncmp(function, "void ", 5) == 0) memmove(function, function + 5, strlen(function + 5) + 1);
}

/* The label of a "bank: LABEL" comment in text, or NULL. */
static const char *bank_label_(const char *text) {
    const char *label = strstr(text, "bank: ");
    return label && label > text && (label[-1] == ' ' || label[-1] == '*') ? label + 6 : NULL;
}

/* Whether a source line's statement goes on to the next line (its code does not end in ; { or }). */
static int goes_on(const char *text) {
    const char *comment = strstr(text, "//"), *block = strstr(text, "/*");
    size_t end = comment ? (size_t)(comment - text) : strcspn(text, "\r\n");
    if (block && (size_t)(block - text) < end) end = (size_t)(block - text);
    while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t'))
        --end;
    return end > 0 && !strchr(";{}", text[end - 1]);
}

/* Line `line` of `path` as the access's name: the label of a "bank: LABEL" comment of its statement
 * (this line, or the one before or after where the statement spans them), else "LINE: TEXT". */
static void bank_access_name_(const char *path, int line, char *out, size_t size) {
    snprintf(out, size, "%d", line);
    FILE *f = fopen(path, "r");
    char text[512] = "", before[512] = "", after[512] = "";
    for (int n = 1; f && n <= line && fgets(text, sizeof text, f); ++n)
        if (n < line) snprintf(before, sizeof before, "%s", text);
    if (f && !fgets(after, sizeof after, f)) after[0] = 0;
    if (f) fclose(f);
    text[strcspn(text, "\r\n")] = 0;
    const char *label = bank_label_(text);
    if (!label && goes_on(before)) label = bank_label_(before);
    if (!label && goes_on(text)) label = bank_label_(after);
    if (label) {
        snprintf(out, size, "%s", label);
        if (strstr(out, "*/")) *strstr(out, "*/") = 0;
        out[strcspn(out, "\r\n")] = 0;
        for (size_t n = strlen(out); n > 0 && out[n - 1] == ' '; --n)
            out[n - 1] = 0;
        return;
    }
    const char *start = text + strspn(text, " \t");
    if (*start) snprintf(out, size, "%d: %.100s", line, start);
    for (char *c = out; *c; ++c)
        if (*c == '\t') *c = ' ';
}

/* Reads one run's lines (FILE from warp_accesses.c) into rows, naming each by addr2line: the access's line
 * is the innermost of its code's; the kernel, the function the launch called (below the runner's
 * run_one and the launch's lambdas, operator(), in the calls that led to the code). */
static int bank_read_run_(const char *path, const char *root, bank_row_ **rows, int *count) {
    FILE *f = fopen(path, "r");
    char text[4096], offsets[] = "/tmp/bank_model_offsets_XXXXXX", command[128];
    const int first = *count, offsets_fd = mkstemp(offsets);
    FILE *list = offsets_fd >= 0 ? fdopen(offsets_fd, "w") : NULL; /* addr2line's input: one offset a line */
    if (!f || !list) return 0;
    int addresses = 0, *start = NULL; /* row i's addresses: start[i - first] .. start[i - first + 1] */
    while (fgets(text, sizeof text, f)) {
        bank_row_ r;
        unsigned long offset;
        char lanes[640], stack[2048];
        memset(&r, 0, sizeof r);
        if (sscanf(text, "warp %lx op %2s bytes %d passes %lld warps %lld lanes %639s stack %2047s", &offset, r.op,
                   &r.bytes, &r.passes, &r.weight, lanes, stack) < 7)
            continue;
        snprintf(r.lanes, sizeof r.lanes, "%s", lanes);
        int lane = 0;
        for (const char *c = lanes; *c; ++lane) {
            if (*c != '-') r.active |= 1u << lane;
            c += strcspn(c, ",");
            if (*c) ++c;
        }
        *rows = realloc(*rows, sizeof **rows * (size_t)(*count + 1));
        start = realloc(start, sizeof *start * (size_t)(*count - first + 2));
        if (!*rows || !start) abort();
        start[*count - first] = addresses;
        (*rows)[(*count)++] = r;
        fprintf(list, "%#lx\n", offset), ++addresses;
        for (char *frame = strtok(stack, ","); frame && *frame != '-'; frame = strtok(NULL, ","))
            fprintf(list, "%s\n", frame), ++addresses;
    }
    fclose(f);
    fclose(list);
    if (!start) return unlink(offsets), 1;
    start[*count - first] = addresses;
    /* addr2line -a: per address "0xOFFSET", then function and file:line per inlining level, innermost first */
    char(*function)[512] = calloc((size_t)addresses * 8 + 1, sizeof *function);
    int *functions = calloc((size_t)addresses + 1, sizeof *functions),
        *line = calloc((size_t)addresses + 1, sizeof *line);
    char(*file)[512] = calloc((size_t)addresses + 1, sizeof *file);
    snprintf(command, sizeof command, "addr2line -a -f -C -i -e /proc/%d/exe < %s", (int)getpid(), offsets);
    FILE *pipe = popen(command, "r");
    for (int at = -1, level = 0; pipe && fgets(text, sizeof text, pipe);) {
        text[strcspn(text, "\n")] = 0;
        if (strncmp(text, "0x", 2) == 0 && strchr(text, ' ') == NULL) {
            ++at, level = 0;
            continue;
        }
        if (at < 0 || at >= addresses) continue;
        if (level++ % 2 == 0) {
            if (functions[at] < 8) {
                bank_kernel_name_(text);
                snprintf(function[at * 8 + functions[at]++], 512, "%.500s", text);
            }
        } else if (level == 2) {
            char *colon = strrchr(strtok(text, " "), ':');
            line[at] = colon ? atoi(colon + 1) : 0;
            if (colon) *colon = 0;
            snprintf(file[at], 512, "%.500s", strncmp(text, "./", 2) == 0 ? text + 2 : text);
        }
    }
    if (pipe) pclose(pipe);
    unlink(offsets);
    for (int i = first; i < *count; ++i) {
        bank_row_ *r = &(*rows)[i];
        const int code = start[i - first], end = start[i - first + 1];
        r->line = line[code];
        const char *kernel = functions[code] ? function[code * 8 + functions[code] - 1] : "?", *below = NULL;
        for (int a = code + 1; a < end && !below; ++a) /* the calls, innermost first: the launcher's, then */
            for (int k = 0; k < functions[a] && !below; ++k) {
                const char *name = function[a * 8 + k];
                if (strstr(name, "cuda_cpu_launch_config") || strncmp(name, "run_one", 7) == 0)
                    below = kernel;
                else if (strncmp(name, "operator", 8) != 0 && !strstr(name, "lambda"))
                    kernel = name; /* the last function before the launcher's that is not a lambda */
            }
        snprintf(r->kernel, sizeof r->kernel, "%s", below ? below : kernel);
        char source[1200];
        snprintf(source, sizeof source, "%s/%s", root, file[code]);
        bank_access_name_(source, r->line, r->access, sizeof r->access);
    }
    free(function), free(functions), free(line), free(file), free(start);
    return 1;
}

/* --bank-model's table (cuda_cpu_bank_model says what it holds) from the "warp" lines of the runs' files:
 * each instruction named by addr2line, its shapes added over the launches; root: where the named files are. */
void cuda_cpu_bank_table(const char *const *paths, int runs, const char *root, const bank_picture *pictures,
                         const char *tail) {
    bank_row_ *rows = NULL;
    int count = 0;
    for (int run = 0; run < runs; ++run)
        bank_read_run_(paths[run], root, &rows, &count);
    printf("# kernel\taccess\top\tbytes\tpasses\tweight\tpicture\tlanes (byte address:pass)\n");
    unsigned char *printed = calloc((size_t)count + 1, 1), drawn[64] = {0};
    for (int i = 0; i < count; ++i) {
        bank_row_ *r = &rows[i];
        if (printed[i]) continue;
        for (int j = i; j < count; ++j) { /* every instruction of this line, op and shape */
            bank_row_ *s = &rows[j];
            if (printed[j] || strcmp(s->kernel, r->kernel) || s->line != r->line || strcmp(s->op, r->op)) continue;
            long long weight = s->weight;
            for (int k = j + 1; k < count; ++k)
                if (!printed[k] && !strcmp(rows[k].kernel, s->kernel) && rows[k].line == s->line &&
                    !strcmp(rows[k].op, s->op) && rows[k].active == s->active && rows[k].passes == s->passes)
                    weight += rows[k].weight, printed[k] = 1;
            printed[j] = 1;
            int shapes =
                0; /* of lanes, on this line and op: a partial warp's count of lanes said where others differ */
            for (int k = 0; k < count; ++k)
                shapes += !strcmp(rows[k].kernel, s->kernel) && rows[k].line == s->line && !strcmp(rows[k].op, s->op) &&
                          rows[k].active != s->active;
            char access[192];
            if (s->active == 0xffffffffu || shapes == 0)
                snprintf(access, sizeof access, "%s", s->access);
            else
                snprintf(access, sizeof access, "%s (%d lane%s)", s->access, __builtin_popcount(s->active),
                         __builtin_popcount(s->active) == 1 ? "" : "s");
            const char *picture = "-";
            for (int p = 0; pictures && pictures[p].kernel && p < 64; ++p)
                if (!drawn[p] && !strcmp(pictures[p].kernel, s->kernel) && !strcmp(pictures[p].access, access) &&
                    (!pictures[p].passes || pictures[p].passes == s->passes))
                    picture = pictures[p].picture, drawn[p] = 1;
            printf("%s\t%s\t%s\t%d\t%lld\t%lld\t%s\t%s\n", s->kernel, access, s->op, s->bytes, s->passes, weight,
                   picture, s->lanes);
        }
    }
    if (tail) printf("%s", tail);
    free(printed), free(rows);
}

/* --bank-model (common/bank_model.h's bank_model_observe), in the chapter's CPU twin: runs itself once per
 * variant (" OPTION VALUE": a chapter's " --type double"; once as it is where the command gives that option),
 * at once, each in its own process, with the command's arguments less --bank-model, and prints after the "#"
 * line one line per shared-memory instruction of a kernel (its source line and op) and shape of warp
 * (working lanes and passes), tab-separated: kernel (as Nsight Compute names it), access (the line's "bank:
 * LABEL" comment, else "LINE: its text"; a partial warp's lanes after it where the line's warps differ), op
 * (ld/st), bytes per lane, passes, weight (the warp instructions of that shape, every launch added, as Nsight
 * adds them), picture (a bank map's name for plot.py, or "-"), lanes (32 "address:pass", "-" when inactive:
 * the first such warp's); then tail. bank_conflicts.sh weighs passes by weight beside Nsight Compute's
 * measurement. BANK_MODEL_KEEP=FOLDER: each run's accesses are kept there, named by its arguments, and a run
 * whose file is there already is not made again (expect_bank_model.py --committed: a command's " --type
 * double" is the run of another command's variant). Exits: 0, or 2 when a run failed. */
void cuda_cpu_bank_model(const char *program, int argc, char **argv, const char *const *variants,
                         const bank_picture *pictures, const char *tail, const char *root) {
    int given = 0; /* the command names the variants' option itself: run it as it is */
    for (int i = 1; i < argc && variants; ++i)
        given |= strncmp(argv[i], variants[0] + 1, strcspn(variants[0] + 1, " ")) == 0 &&
                 argv[i][strcspn(variants[0] + 1, " ")] == 0;
    static const char *const one[] = {"", NULL};
    const char *keep = getenv("BANK_MODEL_KEEP");
    char paths[8][512], errors[8][32];
    const char *files[8] = {NULL}, *names[8] = {NULL};
    pid_t children[8] = {0};
    int errs[8] = {0}, runs = 0;
    for (const char *const *variant = given || !variants ? one : variants; *variant && runs < 8; ++variant, ++runs) {
        char **args = (char **)calloc((size_t)argc + 8, sizeof *args);
        int n = 0;
        for (int i = 0; i < argc; ++i)
            if (strcmp(argv[i], "--bank-model") != 0) args[n++] = argv[i];
        char copy[256];
        snprintf(copy, sizeof copy, "%s", *variant);
        for (char *word = strtok(copy, " "); word && n < argc + 7; word = strtok(NULL, " "))
            args[n++] = word;
        unsigned long long name = 14695981039346656037ull; /* FNV-1a of the arguments: the kept file's name */
        for (int i = 1; i < n; ++i)
            for (const char *c = args[i]; c == args[i] || c[-1]; ++c)
                name = (name ^ (unsigned char)*c) * 1099511628211ull;
        names[runs] = *variant, files[runs] = paths[runs];
        strcpy(errors[runs], "/tmp/bank_model_err_XXXXXX");
        int fd = -1;
        if (keep) {
            snprintf(paths[runs], sizeof paths[runs], "%s/%016llx", keep, name);
            if (access(paths[runs], R_OK) == 0) { /* made before: counted as it is */
                free(args);
                continue;
            }
            fd = open(paths[runs], O_WRONLY | O_CREAT | O_TRUNC, 0600);
        } else
            fd = mkstemp(strcpy(paths[runs], "/tmp/bank_model_XXXXXX"));
        errs[runs] = mkstemp(errors[runs]);
        if (fd < 0 || errs[runs] < 0) {
            fprintf(stderr, "%s: --bank-model: cannot make a file in %s\n", program, fd < 0 && keep ? keep : "/tmp");
            exit(2);
        }
        close(fd);
        fflush(stdout);
        children[runs] = fork();
        if (children[runs] == 0) {
            setenv("CUDA_CPU_ACCESSES", paths[runs], 1);
            unsetenv("CUDA_CPU_NO_DEVICE"); /* the twin runs the kernels, whether or not a GPU is there */
            if (!freopen("/dev/null", "w", stdout) || dup2(errs[runs], 2) < 0) _exit(2);
            execv("/proc/self/exe", args);
            _exit(2);
        }
        if (children[runs] < 0) {
            fprintf(stderr, "%s: --bank-model: cannot start the CPU runner's run%s\n", program, *variant);
            exit(2);
        }
        free(args);
    }
    int failed = 0;
    for (int run = 0; run < runs; ++run) {
        if (!children[run]) continue;
        int status = 0;
        waitpid(children[run], &status, 0);
        /* exit 1: a check failed or the runner found a race (shared_bitmap --no-sync): the counts stand */
        if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
            fprintf(stderr,
                    "%s: --bank-model: the run%s exited 1 (a check failed or the CPU runner found something); "
                    "its accesses are counted\n",
                    program, names[run]);
        if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) {
            char last[2048] = "";
            const ssize_t got = pread(errs[run], last, sizeof last - 1, 0);
            fprintf(stderr, "%s: --bank-model: the CPU runner's run%s failed (%s %d): %s\n", program, names[run],
                    WIFEXITED(status) ? "exit" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                    got > 0 ? last : "");
            failed = 1;
            if (keep) unlink(paths[run]); /* not kept: not a whole run */
        }
        close(errs[run]), unlink(errors[run]);
    }
    if (!failed) cuda_cpu_bank_table(files, runs, root, pictures, tail);
    for (int run = 0; run < runs && !keep; ++run)
        unlink(files[run]);
    exit(failed ? 2 : 0);
}
