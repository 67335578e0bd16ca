/* A chapter's program where CMake found no CUDA compiler (a machine without the CUDA toolkit, or
 * -DEXAMPLES_CUDA=OFF): only its CPU runner build, <program>_cpu beside it, exists. This stands in for
 * the GPU program: with --cpu it runs the CPU runner's build, as the GPU program does; otherwise it runs
 * it as the GPU program would run on a machine with no GPU (what needs none, --help, --bank-model, a
 * wrong option, works; a GPU run says there is none and exits 77, which CTest counts as skipped). */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    char path[PATH_MAX];
    const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 5);
    if (length <= 0) {
        perror("readlink /proc/self/exe");
        return 2;
    }
    memcpy(path + length, "_cpu", 5);
    int cpu = 0;
    for (int i = 1; i < argc; ++i)
        cpu |= strcmp(argv[i], "--cpu") == 0 || strncmp(argv[i], "--cpu-order", 11) == 0;
    if (!cpu) setenv("CUDA_CPU_NO_DEVICE", "1", 1); /* the CPU runner's build acts as a GPU program with no GPU */
    execv(path, argv);
    fprintf(stderr, "%s: its CPU runner build (%s) is missing: configure with Python 3 and -DEXAMPLES_CPU_RUNNER=ON\n",
            argv[0], path);
    return 2;
}
