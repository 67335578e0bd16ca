/* The bank model: how many passes (Nsight Compute's "wavefronts") one warp-wide
 * shared-memory instruction takes, from each lane's byte address. Plain C, header-only,
 * host and device: a kernel and its prediction can share one index expression.
 * 32 banks of 4 bytes (every GPU since Maxwell); word a / 4 lives in bank (a / 4) % 32, and a
 * pass serves one word per bank, 128 bytes. As the Programming Guide says: lanes touching one
 * word share a pass (also 1- and 2-byte accesses to its different bytes); n words in one bank
 * take n passes. Wide accesses (checked against Nsight Compute, docs/results/h200/banks.txt): the
 * warp is served in groups of 128 / width lanes (half-warps for 8 bytes, quarter-warps for 16), each
 * taking its most loaded bank's count of words, the groups' passes added; groups touching
 * exactly the same words are served once (one double for all lanes: 1 pass). Unmeasured
 * assumptions: groups with different words never share a pass; that exception for 16 bytes.
 * Inactive lanes (zero bits in `active`) take no part; none active: 0 passes. A misaligned
 * address or a width other than 1, 2, 4, 8, 16 returns -1. */
#ifndef COMMON_BANK_MODEL_H
#define COMMON_BANK_MODEL_H

#ifdef __CUDACC__
#define BANK_MODEL_HD __host__ __device__
#else
#define BANK_MODEL_HD
#endif

enum { BANK_MODEL_BANKS = 32, BANK_MODEL_BANK_BYTES = 4, BANK_MODEL_WARP = 32 };

/* Passes taken by one group of lanes (first .. first + lanes - 1): the most
 * distinct words any one bank holds. Writes the group's distinct words, in
 * ascending order, to words[] (at most 32: 128 bytes) and their count to
 * *count. */
static inline BANK_MODEL_HD int bank_group_passes(const unsigned int address[32], unsigned int active, int first,
                                                  int lanes, int width, unsigned int words[32], int *count) {
    int n = 0;
    for (int lane = first; lane < first + lanes; ++lane) {
        if (!((active >> lane) & 1u)) continue;
        unsigned int lo = address[lane] / BANK_MODEL_BANK_BYTES;
        unsigned int hi = (address[lane] + (unsigned int)width - 1u) / BANK_MODEL_BANK_BYTES;
        for (unsigned int w = lo; w <= hi; ++w) { /* insert w, keeping words[] sorted and distinct */
            int i = 0;
            while (i < n && words[i] < w)
                ++i;
            if (i < n && words[i] == w) continue;
            for (int j = n; j > i; --j)
                words[j] = words[j - 1];
            words[i] = w;
            ++n;
        }
    }
    *count = n;
    int passes = 0;
    for (int bank = 0; bank < BANK_MODEL_BANKS; ++bank) {
        int in_bank = 0;
        for (int i = 0; i < n; ++i)
            in_bank += (int)(words[i] % BANK_MODEL_BANKS) == bank;
        if (in_bank > passes) passes = in_bank;
    }
    return passes;
}

/* Passes for one warp-wide access: lane t touches `width` bytes at byte
 * address address[t] if bit t of `active` is set. */
static inline BANK_MODEL_HD int bank_passes(const unsigned int address[32], unsigned int active, int width) {
    if (width != 1 && width != 2 && width != 4 && width != 8 && width != 16) return -1;
    for (int lane = 0; lane < BANK_MODEL_WARP; ++lane)
        if (((active >> lane) & 1u) && address[lane] % (unsigned int)width != 0) return -1;
    int lanes = width <= BANK_MODEL_BANK_BYTES ? BANK_MODEL_WARP : BANK_MODEL_BANKS * BANK_MODEL_BANK_BYTES / width;
    unsigned int words[4][32]; /* each group's distinct words, for the broadcast exception */
    int counts[4];
    int groups = 0, passes = 0;
    for (int first = 0; first < BANK_MODEL_WARP; first += lanes) {
        int n = 0;
        int group = bank_group_passes(address, active, first, lanes, width, words[groups], &n);
        if (n == 0) continue; /* no active lane in this group */
        int same = 0;         /* an earlier group touched exactly these words: served with it */
        for (int g = 0; g < groups && !same; ++g) {
            same = counts[g] == n;
            for (int i = 0; same && i < n; ++i)
                same = words[g][i] == words[groups][i];
        }
        if (same) continue;
        counts[groups++] = n;
        passes += group;
    }
    return passes;
}

/* Bits first .. first + count - 1 set: a group's lanes. */
static inline BANK_MODEL_HD unsigned int bank_lanes_(int first, int count) {
    return (unsigned int)(((1ull << count) - 1) << first);
}

/* Which pass serves each lane of one warp-wide access (0, 1, ...; -1 for an inactive lane), by
 * bank_passes()'s rule: in its group, a lane is served in pass k when its word is the k-th distinct
 * word of its bank (a 16-byte lane spans 4 banks; it counts its first word's), after the passes of
 * the groups before it, or, when an earlier group touched the same words, with that group. Returns
 * bank_passes() (-1: bad width or misaligned). This is what the bank pictures colour. */
static inline BANK_MODEL_HD int bank_lane_passes(const unsigned int address[32], unsigned int active, int width,
                                                 int pass_of_lane[32]) {
    const int passes = bank_passes(address, active, width);
    for (int lane = 0; lane < BANK_MODEL_WARP; ++lane)
        pass_of_lane[lane] = -1;
    int lanes = width <= BANK_MODEL_BANK_BYTES ? BANK_MODEL_WARP : BANK_MODEL_BANKS * BANK_MODEL_BANK_BYTES / width;
    for (int first = 0; passes >= 0 && first < BANK_MODEL_WARP; first += lanes) {
        const unsigned int group = active & bank_lanes_(first, lanes);
        int served = 0; /* the first group that touched these words: adding this one to it adds no pass */
        while (bank_passes(address, (active & bank_lanes_(served, lanes)) | group, width) !=
               bank_passes(address, active & bank_lanes_(served, lanes), width))
            served += lanes;
        const int base = bank_passes(address, active & bank_lanes_(0, served), width);
        unsigned int words[32];
        int n = 0;
        bank_group_passes(address, active, first, lanes, width, words, &n);
        for (int lane = first; lane < first + lanes; ++lane) {
            if (!((group >> lane) & 1u)) continue;
            const unsigned int word = address[lane] / BANK_MODEL_BANK_BYTES;
            int rank = 0; /* distinct words of the group in this word's bank, below it */
            for (int i = 0; i < n; ++i)
                rank += words[i] < word && words[i] % BANK_MODEL_BANKS == word % BANK_MODEL_BANKS;
            pass_of_lane[lane] = base + rank;
        }
    }
    return passes;
}

/* --bank-model: the table of what the chapter's real kernels did, as the CPU runner observed it
 * (cpu_runner/warp_accesses.c puts each warp instruction back together from its lanes and counts its
 * passes by the rule above). The GPU program runs its CPU twin (PROGRAM_cpu, beside it); the twin runs
 * itself once per variant (a chapter's " --type double", say: " OPTION VALUE"; once as it is where the
 * command gives that option), with
 * the command's own arguments less --bank-model and CUDA_CPU_ACCESSES set, and prints after the "#" line
 * one line per shared-memory instruction of a kernel (a source line and op) and shape of warp (its working
 * lanes and passes), tab-separated: kernel (as Nsight Compute names it), access (the label of the line's
 * "bank: LABEL" comment, else "LINE: its text"; a partial warp's lane count after it), op (ld/st),
 * bytes per lane, passes, weight (how many warp instructions of the launches took that shape), picture (a
 * bank map's file name for plot.py, or "-"), lanes (32 "address:pass", "-" when inactive: the first such
 * warp's), every launch added, as Nsight Compute adds them. bank_conflicts.sh weighs passes by weight
 * beside Nsight Compute's measurement. Host code of the chapters (POSIX: fork, exec, addr2line), after cli.h. */
#ifdef COMMON_CLI_H /* a chapter, which includes cli.h first: the rule alone elsewhere */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The lesson's pictures (plot.py --bank-maps draws each by name): the first line of this kernel and
 * access (and these passes, unless 0) gets it. A chapter's table ends with {NULL, NULL, NULL}. */
typedef struct {
    const char *kernel, *access, *picture;
    int passes;
} bank_picture;

typedef struct { /* one printed line */
    char kernel[128], launched[128], access[160], op[3], lanes[640];
    int bytes, line, launch;
    long long passes, weight;
    unsigned active;
} bank_row_;

/* The kernel's name from addr2line -f -C's outermost function, "void NAME(ARGS)": NAME. */
static inline void bank_kernel_name_(char *function) {
    char *open = strrchr(function, '(');
    if (open) *open = 0;
    if (strncmp(function, "void ", 5) == 0) memmove(function, function + 5, strlen(function + 5) + 1);
}

/* The label of a "bank: LABEL" comment in text, or NULL. */
static inline const char *bank_label_(const char *text) {
    const char *label = strstr(text, "bank: ");
    return label && label > text && (label[-1] == ' ' || label[-1] == '*') ? label + 6 : NULL;
}

/* Line `line` of `path` as the access's name: its "bank: LABEL" comment's label (or the line before's,
 * where a statement goes on from there to this line), else "LINE: TEXT". */
static inline void bank_access_name_(const char *path, int line, char *out, size_t size) {
    snprintf(out, size, "%d", line);
    FILE *f = fopen(path, "r");
    char text[512] = "", before[512] = "";
    for (int n = 1; f && n <= line && fgets(text, sizeof text, f); ++n)
        if (n < line) snprintf(before, sizeof before, "%s", text);
    if (f) fclose(f);
    text[strcspn(text, "\r\n")] = 0;
    const char *label = bank_label_(text);
    if (!label && bank_label_(before)) {
        const size_t code = (size_t)(strstr(before, "//") ? strstr(before, "//") - before : strcspn(before, "\n"));
        size_t end = code;
        while (end > 0 && before[end - 1] == ' ')
            --end;
        if (end > 0 && !strchr(";{}", before[end - 1])) label = bank_label_(before);
    }
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

/* Reads one run's lines (FILE from warp_accesses.c) into rows, naming each by addr2line. */
static inline int bank_read_run_(const char *path, bank_row_ **rows, int *count) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char text[2048], command[128], offsets[] = "/tmp/bank_model_offsets_XXXXXX";
    const int first = *count, offsets_fd = mkstemp(offsets);
    FILE *list = offsets_fd >= 0 ? fdopen(offsets_fd, "w") : NULL; /* addr2line's input: one offset a line */
    if (!list) return 0;
    snprintf(command, sizeof command, "addr2line -a -f -C -i -e /proc/%d/exe < %s", (int)getpid(), offsets);
    int n_offsets = 0;
    while (fgets(text, sizeof text, f)) {
        bank_row_ r;
        unsigned long offset;
        char lanes[640];
        int kernel_at = 0;
        memset(&r, 0, sizeof r);
        if (sscanf(text, "warp %lx op %2s bytes %d passes %lld warps %lld launch %d lanes %639s kernel %n", &offset,
                   r.op, &r.bytes, &r.passes, &r.weight, &r.launch, lanes, &kernel_at) < 7 || !kernel_at)
            continue;
        snprintf(r.lanes, sizeof r.lanes, "%s", lanes);
        snprintf(r.launched, sizeof r.launched, "%.*s", (int)strcspn(text + kernel_at, "<\n"), text + kernel_at);
        int lane = 0;
        for (const char *c = lanes; *c; ++lane) {
            if (*c != '-') r.active |= 1u << lane;
            c += strcspn(c, ",");
            if (*c) ++c;
        }
        r.line = -1 - n_offsets++; /* which offset: named below */
        fprintf(list, "%#lx\n", offset);
        *rows = (bank_row_ *)realloc(*rows, sizeof **rows * (size_t)(*count + 1));
        if (!*rows) abort();
        (*rows)[(*count)++] = r;
    }
    fclose(f);
    fclose(list);
    /* addr2line -a: per address "0xOFFSET", then function and file:line per inlining level, innermost
     * first. The innermost line is the access's; the kernel, the function the runner launched (its name
     * with the template's arguments), else the outermost. */
    FILE *pipe = popen(command, "r");
    int at = -1;
    char place[1024] = "", function[1024] = "", kernel[1024] = "";
    int level = 0;
    for (int done = 0; !done;) {
        const int got = pipe && fgets(text, sizeof text, pipe) != NULL;
        text[strcspn(text, "\n")] = 0;
        if (!got || strncmp(text, "0x", 2) == 0) {
            for (int i = first; at >= 0 && i < *count; ++i)
                if ((*rows)[i].line == -1 - at) {
                    bank_row_ *r = &(*rows)[i];
                    snprintf(r->kernel, sizeof r->kernel, "%s", function);
                    if (*kernel) snprintf(r->kernel, sizeof r->kernel, "%s", kernel);
                    char *colon = strrchr(place, ':');
                    r->line = colon ? atoi(colon + 1) : 0;
                    if (colon) *colon = 0;
                    const char *file = strncmp(place, "./", 2) == 0 ? place + 2 : place;
                    char source[1200];
#ifdef BANK_MODEL_ROOT
                    snprintf(source, sizeof source, "%s/%s", BANK_MODEL_ROOT, file);
#else
                    snprintf(source, sizeof source, "%s", file);
#endif
                    bank_access_name_(source, r->line, r->access, sizeof r->access);
                    if (colon) *colon = ':';
                }
            if (!got) done = 1;
            ++at, level = 0, kernel[0] = 0;
            continue;
        }
        if (level % 2 == 0) {
            bank_kernel_name_(text);
            snprintf(function, sizeof function, "%.1000s", text);
            for (int i = first; at >= 0 && i < *count && !*kernel; ++i)
                if ((*rows)[i].line == -1 - at && strncmp(text, (*rows)[i].launched, strlen((*rows)[i].launched)) == 0 &&
                    strchr("<", text[strlen((*rows)[i].launched)]))
                    snprintf(kernel, sizeof kernel, "%.1000s", text);
        } else if (level == 1)
            snprintf(place, sizeof place, "%.1000s", strtok(text, " "));
        ++level;
    }
    if (pipe) pclose(pipe);
    unlink(offsets);
    return 1;
}

/* Runs the program's kernels on the CPU runner and prints the table (see above); exits. */
static inline void bank_model_observe(const char *program, int argc, char **argv, const char *const *variants,
                                      const bank_picture *pictures, const char *tail) {
#ifndef CUDA_CPU_RUNNER
    (void)argc, (void)variants, (void)pictures, (void)tail;
    cli_run_on_cpu_runner_(program, argv); /* the GPU program: its CPU twin answers */
#else
    int given = 0; /* the command names the variants' option itself: run it as it is */
    for (int i = 1; i < argc && variants; ++i)
        given |= strncmp(argv[i], variants[0] + 1, strcspn(variants[0] + 1, " ")) == 0 &&
                 argv[i][strcspn(variants[0] + 1, " ")] == 0;
    static const char *const one[] = {"", NULL};
    bank_row_ *rows = NULL;
    int count = 0;
    for (const char *const *variant = given || !variants ? one : variants; *variant; ++variant) {
        char path[] = "/tmp/bank_model_XXXXXX", errors[] = "/tmp/bank_model_err_XXXXXX";
        const int fd = mkstemp(path), err = mkstemp(errors);
        if (fd < 0 || err < 0) {
            fprintf(stderr, "%s: --bank-model: cannot make a file in /tmp\n", program);
            exit(2);
        }
        char **args = (char **)calloc((size_t)argc + 8, sizeof *args);
        int n = 0;
        for (int i = 0; i < argc; ++i)
            if (strcmp(argv[i], "--bank-model") != 0) args[n++] = argv[i];
        char copy[256];
        snprintf(copy, sizeof copy, "%s", *variant);
        for (char *word = strtok(copy, " "); word && n < argc + 7; word = strtok(NULL, " "))
            args[n++] = word;
        fflush(stdout);
        const pid_t child = fork();
        if (child == 0) {
            setenv("CUDA_CPU_ACCESSES", path, 1);
            unsetenv("CUDA_CPU_NO_DEVICE"); /* the twin runs the kernels, whether or not a GPU is there */
            if (!freopen("/dev/null", "w", stdout) || dup2(err, 2) < 0) _exit(2);
            execv("/proc/self/exe", args);
            _exit(2);
        }
        int status = 0;
        waitpid(child, &status, 0);
        free(args);
        /* exit 1: a check failed or the runner found a race (shared_bitmap --no-sync): the counts stand */
        if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
            fprintf(stderr, "%s: --bank-model: the run%s exited 1 (a check failed or the CPU runner found something); "
                            "its accesses are counted\n", program, *variant);
        else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            char last[2048] = "";
            const ssize_t got = pread(err, last, sizeof last - 1, 0);
            fprintf(stderr, "%s: --bank-model: the CPU runner's run%s failed (%s %d): %s\n", program, *variant,
                    WIFEXITED(status) ? "exit" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                    got > 0 ? last : "");
            unlink(path), unlink(errors);
            exit(2);
        }
        bank_read_run_(path, &rows, &count);
        close(fd), close(err), unlink(path), unlink(errors);
    }
    printf("# kernel\taccess\top\tbytes\tpasses\tweight\tpicture\tlanes (byte address:pass)\n");
    unsigned char *printed = (unsigned char *)calloc((size_t)count + 1, 1), drawn[64] = {0};
    for (int i = 0; i < count; ++i) {
        bank_row_ *r = &rows[i];
        if (printed[i]) continue;
        for (int j = i; j < count; ++j) { /* every instruction of this line, op and shape */
            bank_row_ *s = &rows[j];
            if (printed[j] || strcmp(s->kernel, r->kernel) || s->line != r->line || strcmp(s->op, r->op))
                continue;
            long long weight = s->weight;
            for (int k = j + 1; k < count; ++k)
                if (!printed[k] && !strcmp(rows[k].kernel, s->kernel) &&
                    rows[k].line == s->line && !strcmp(rows[k].op, s->op) && rows[k].active == s->active &&
                    rows[k].passes == s->passes)
                    weight += rows[k].weight, printed[k] = 1;
            printed[j] = 1;
            const char *picture = "-";
            for (int p = 0; pictures && pictures[p].kernel && p < 64; ++p)
                if (!drawn[p] && !strcmp(pictures[p].kernel, s->kernel) && !strcmp(pictures[p].access, s->access) &&
                    (!pictures[p].passes || pictures[p].passes == s->passes))
                    picture = pictures[p].picture, drawn[p] = 1;
            int shapes = 0; /* of lanes, on this line and op: a partial warp's count of lanes said where others differ */
            for (int k = 0; k < count; ++k)
                shapes += !strcmp(rows[k].kernel, s->kernel) && rows[k].line == s->line &&
                          !strcmp(rows[k].op, s->op) && rows[k].active != s->active;
            char access[192];
            if (s->active == 0xffffffffu || shapes == 0)
                snprintf(access, sizeof access, "%s", s->access);
            else
                snprintf(access, sizeof access, "%s (%d lanes)", s->access, __builtin_popcount(s->active));
            printf("%s\t%s\t%s\t%d\t%lld\t%lld\t%s\t%s\n", s->kernel, access, s->op, s->bytes, s->passes, weight,
                   picture, s->lanes);
        }
    }
    if (tail) printf("%s", tail);
    free(printed), free(rows);
    exit(0);
#endif
}
#endif

#endif
