/* replay.c: the answers books.cmake expects from the books' programs, derived
 * by replaying on the CPU, in the programs' own order, every rounding their
 * kernels and host loops make (written for this collection from the programs'
 * published behaviour; no code of the books is copied here).
 *
 *   cc -O1 -ffp-contract=off -o replay tests/books/replay.c -lm && ./replay
 *
 * -ffp-contract=off: a multiply-add is fused only where the GPU fuses it (fmaf).
 * What each line means:
 *   fan_sum T N G   Fan's reductions of N copies of 1.23 (ch. 8 reduce2gpu, ch. 9
 *                   and ch. 10 reduce): every block of 128 sums to 128 x 1.23 exactly
 *                   (each step of the tree adds two equal values: a doubling), so
 *                   the answer is G = N / 128 such sums added one after another (on
 *                   the host, or by atomicAdd: equal values, so any order gives it).
 *   fan_grid T N G  ch. 10 reduce1parallelism / reduce2static: G blocks of 128
 *                   threads, each thread summing its elements of a grid-stride
 *                   loop, a tree in shared memory down to 32, a shuffle tree in
 *                   warp 0; then one block of 1024 threads over the G sums.
 *   cbe_dot         CUDA by Example's dot (chapter 5): 32 blocks of 256, each
 *                   thread's products fused into its sum as nvcc does (FFMA).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The block reduction of ch. 10's reduce_cp: s[] holds one value per thread. */
#define REDUCE_CP(T, s, block, out)                                              \
    do {                                                                         \
        for (int offset_ = (block) >> 1; offset_ >= 32; offset_ >>= 1)           \
            for (int t_ = 0; t_ < offset_; ++t_) s[t_] += s[t_ + offset_];       \
        T lane_[32], next_[32];                                                  \
        for (int l_ = 0; l_ < 32; ++l_) lane_[l_] = s[l_];                       \
        for (int i_ = 16; i_ > 0; i_ >>= 1) {                                    \
            for (int l_ = 0; l_ < 32; ++l_) /* out of range: a lane's own value */ \
                next_[l_] = lane_[l_] + (l_ + i_ < 32 ? lane_[l_ + i_] : lane_[l_]); \
            memcpy(lane_, next_, sizeof lane_);                                  \
        }                                                                        \
        out = lane_[0];                                                          \
    } while (0)

#define FAN_SUM(T, fmt, N)                                                       \
    do {                                                                         \
        const T v = (T)1.23, block = v * 128; /* exact: 128 is a power of two */ \
        T sum = 0;                                                               \
        for (long b_ = 0; b_ < (N) / 128; ++b_) sum += block;                    \
        printf("fan_sum %s N=%ld: sum = %f.\n", fmt, (long)(N), (double)sum);   \
    } while (0)

#define FAN_GRID(T, fmt, N, G)                                                   \
    do {                                                                         \
        const T v = (T)1.23;                                                     \
        T *partial = malloc(sizeof(T) * (G)), s[1024], result;                   \
        for (long bid = 0; bid < (G); ++bid) {                                   \
            for (long tid = 0; tid < 128; ++tid) {                               \
                T y = 0;                                                         \
                for (long n = bid * 128 + tid; n < (N); n += 128L * (G)) y += v; \
                s[tid] = y;                                                      \
            }                                                                    \
            REDUCE_CP(T, s, 128, partial[bid]);                                  \
        }                                                                        \
        for (long tid = 0; tid < 1024; ++tid) {                                  \
            T y = 0;                                                             \
            for (long n = tid; n < (G); n += 1024) y += partial[n];              \
            s[tid] = y;                                                          \
        }                                                                        \
        REDUCE_CP(T, s, 1024, result);                                           \
        printf("fan_grid %s N=%ld G=%ld: sum = %f.\n", fmt, (long)(N), (long)(G), \
               (double)result);                                                  \
        free(partial);                                                           \
    } while (0)

static void cbe_dot(void) {
    enum { N = 33 * 1024, THREADS = 256, BLOCKS = 32 };
    float partial[BLOCKS], cache[THREADS], c = 0;
    for (int bid = 0; bid < BLOCKS; ++bid) {
        for (int t = 0; t < THREADS; ++t) {
            float temp = 0;
            for (int i = t + bid * THREADS; i < N; i += THREADS * BLOCKS)
                temp = fmaf((float)i, (float)(i * 2), temp);
            cache[t] = temp;
        }
        for (int i = THREADS / 2; i != 0; i /= 2)
            for (int t = 0; t < i; ++t) cache[t] += cache[t + i];
        partial[bid] = cache[0];
    }
    for (int i = 0; i < BLOCKS; ++i) c += partial[i];
    const float x = (float)(N - 1);
    const float closed = 2 * (x * (x + 1) * (2 * x + 1) / 6);
    printf("cbe_dot: Does GPU value %.6g = %.6g?   (c = %.9g, closed form %.9g)\n", c, closed, c,
           closed);
}

int main(int argc, char **argv) {
    long n_sum = argc > 1 ? atol(argv[1]) : 128000;
    long n_grid = argc > 2 ? atol(argv[2]) : 1280000, g_grid = argc > 3 ? atol(argv[3]) : 1024;
    FAN_SUM(float, "float", n_sum);
    FAN_SUM(double, "double", n_sum);
    FAN_SUM(float, "float", 100000000L);
    FAN_SUM(double, "double", 100000000L);
    FAN_GRID(float, "float", n_grid, g_grid);
    FAN_GRID(double, "double", n_grid, g_grid);
    FAN_GRID(float, "float", 100000000L, 10240L);
    FAN_GRID(double, "double", 100000000L, 10240L);
    cbe_dot();
    return 0;
}
