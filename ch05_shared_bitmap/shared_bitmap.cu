/* ch05_shared_bitmap: what a missing __syncthreads() does
 * (CUDA by Example, ch. 5, "Shared Memory and Synchronization": Shared Memory Bitmap).
 *
 * What it teaches: every thread of a 16 x 16 block writes one value into a
 * __shared__ array, then reads a value that ANOTHER thread wrote (the one at
 * the mirrored position, usually in another warp). The barrier between the
 * write and the read is what makes that safe. Without it the read races the
 * write: the thread may read the shared memory before its partner has written
 * it, and draws whatever was there. The picture shows the race as noise.
 *
 * Build this file alone, from its folder (the second line: without freeglut, PNG only):
 *   nvcc -O3 -I../common shared_bitmap.cu -o shared_bitmap -lpng -lglut -lGL
 *   nvcc -O3 -I../common -DBITMAP_NO_WINDOW shared_bitmap.cu -o shared_bitmap -lpng
 *
 * Build and run (from the repository root):
 *   cmake -S . -B build && cmake --build build -j
 *   build/ch05_shared_bitmap/shared_bitmap               # correct image, in a window
 *   build/ch05_shared_bitmap/shared_bitmap --no-sync     # the racy one
 *   build/ch05_shared_bitmap/shared_bitmap --no-sync --save racy.png --save-diff racy_diff.png
 *   compute-sanitizer --tool racecheck build/ch05_shared_bitmap/shared_bitmap --no-sync --check
 * Without a display (or GLUT) the image is saved as a PNG and the program
 * says where. --check verifies only: no window, no file unless --save asks.
 *
 * Kernels:
 *   shared_bitmap_synced   the book's kernel: write s_shared, __syncthreads(), read.
 *   shared_bitmap_no_sync  the same with the barrier left out: a data race, on purpose.
 *
 * Check: a CPU reference image computed in double; a pixel is wrong when any
 * channel differs from it by more than 1 (the GPU's sinf in float and the
 * CPU's sin in double may round a value to neighbouring integers). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "cli.h"
#include "gpu.h"
#include "report.h"

// ---------------------------------------------------------------------------
// Constants: the book's.

#define DIM 1024      /* the image is DIM x DIM pixels                     */
#define TILE 16       /* blocks of TILE x TILE threads, one pixel each      */
#define PERIOD 128.0f /* the sine pattern repeats every 128 pixels          */
#define PI 3.1415926535897932f
#define TOLERANCE 1 /* a channel may differ from the reference by this    */

// ---------------------------------------------------------------------------
// The CPU reference: what the synced kernel draws, computed in double.
// Pixel (x, y) shows the value of the thread at the mirrored position of the
// same 16 x 16 tile: (15 - x % 16, 15 - y % 16) within the tile.

static void shared_bitmap_cpu(cpu_bitmap *image) {
    const double pi = 3.14159265358979323846;
    for (int y = 0; y < DIM; ++y)
        for (int x = 0; x < DIM; ++x) {
            int source_x = x - x % TILE + (TILE - 1 - x % TILE);
            int source_y = y - y % TILE + (TILE - 1 - y % TILE);
            double value =
                255.0 * (sin(source_x * 2.0 * pi / 128.0) + 1.0) * (sin(source_y * 2.0 * pi / 128.0) + 1.0) / 4.0;
            unsigned char *pixel = bitmap_pixel(image, x, y);
            pixel[0] = 0;
            pixel[1] = (unsigned char)value; /* truncates, like the GPU's float to byte */
            pixel[2] = 0;
            pixel[3] = 255;
        }
}

// ---------------------------------------------------------------------------
// Kernel 1, shared_bitmap_synced: the book's. Each thread computes the value
// of its own pixel into s_shared, waits at the barrier until the whole block
// has written, then draws the value of its mirrored partner.

__global__ void shared_bitmap_synced(unsigned char *pixels) {
    const int x = threadIdx.x + blockIdx.x * blockDim.x;
    const int y = threadIdx.y + blockIdx.y * blockDim.y;
    const int offset = x + y * blockDim.x * gridDim.x; /* row y, counted from the bottom */

    __shared__ float s_shared[TILE][TILE];
    s_shared[threadIdx.x][threadIdx.y] =
        255 * (sinf(x * 2.0f * PI / PERIOD) + 1.0f) * (sinf(y * 2.0f * PI / PERIOD) + 1.0f) / 4.0f;

    __syncthreads(); /* every element of s_shared is written before anyone reads */

    pixels[offset * 4 + 0] = 0;
    pixels[offset * 4 + 1] = (unsigned char)s_shared[TILE - 1 - threadIdx.x][TILE - 1 - threadIdx.y];
    pixels[offset * 4 + 2] = 0;
    pixels[offset * 4 + 3] = 255;
}

// ---------------------------------------------------------------------------
// Kernel 2, shared_bitmap_no_sync: DELIBERATELY WRONG. The only change is
// the missing barrier. The 256 threads of a block run as 8 warps that the SM
// schedules independently, so a thread may read its partner's element
// before the partner's warp has written it: a read-after-write race. The
// pixel then shows whatever that shared memory held (an older block's value,
// or anything). Which pixels lose the race changes from run to run.

__global__ void shared_bitmap_no_sync(unsigned char *pixels) {
    const int x = threadIdx.x + blockIdx.x * blockDim.x;
    const int y = threadIdx.y + blockIdx.y * blockDim.y;
    const int offset = x + y * blockDim.x * gridDim.x;

    __shared__ float s_shared[TILE][TILE];
    s_shared[threadIdx.x][threadIdx.y] =
        255 * (sinf(x * 2.0f * PI / PERIOD) + 1.0f) * (sinf(y * 2.0f * PI / PERIOD) + 1.0f) / 4.0f;

    /* no __syncthreads(): the read below races the other warps' writes */

    pixels[offset * 4 + 0] = 0;
    pixels[offset * 4 + 1] = (unsigned char)s_shared[TILE - 1 - threadIdx.x][TILE - 1 - threadIdx.y];
    pixels[offset * 4 + 2] = 0;
    pixels[offset * 4 + 3] = 255;
}

// ---------------------------------------------------------------------------
// Launcher: DIM / 16 x DIM / 16 blocks of 16 x 16 threads, one per pixel.

static void launch_shared_bitmap(unsigned char *d_pixels, int synced) {
    const dim3 grid(DIM / TILE, DIM / TILE);
    const dim3 threads(TILE, TILE);
    if (synced)
        shared_bitmap_synced<<<grid, threads>>>(d_pixels);
    else
        shared_bitmap_no_sync<<<grid, threads>>>(d_pixels);
    CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------
// Comparing with the reference, and the image that shows where they differ.

static int pixel_differs(const unsigned char *a, const unsigned char *b) {
    for (int c = 0; c < 4; ++c)
        if (abs((int)a[c] - (int)b[c]) > TOLERANCE) return 1;
    return 0;
}

static long long count_wrong_pixels(const cpu_bitmap *image, const cpu_bitmap *reference) {
    long long wrong = 0;
    for (int y = 0; y < image->height; ++y)
        for (int x = 0; x < image->width; ++x)
            wrong += pixel_differs(bitmap_pixel(image, x, y), bitmap_pixel(reference, x, y));
    return wrong;
}

/* The reference at a third of its brightness, each wrong pixel in red. */
static void fill_diff_image(cpu_bitmap *diff, const cpu_bitmap *image, const cpu_bitmap *reference) {
    for (int y = 0; y < image->height; ++y)
        for (int x = 0; x < image->width; ++x) {
            const unsigned char *want = bitmap_pixel(reference, x, y);
            unsigned char *out = bitmap_pixel(diff, x, y);
            int wrong = pixel_differs(bitmap_pixel(image, x, y), want);
            out[0] = wrong ? 255 : want[0] / 3;
            out[1] = wrong ? 0 : want[1] / 3;
            out[2] = wrong ? 0 : want[2] / 3;
            out[3] = 255;
        }
}

/* 1048576 -> "1,048,576" */
static const char *with_commas(char *buffer, size_t size, long long value) {
    char digits[32];
    int length = snprintf(digits, sizeof digits, "%lld", value), out = 0;
    for (int i = 0; i < length && out + 2 < (int)size; ++i) {
        if (i > 0 && (length - i) % 3 == 0) buffer[out++] = ',';
        buffer[out++] = digits[i];
    }
    buffer[out] = '\0';
    return buffer;
}

static int save_or_complain(const cpu_bitmap *image, const char *path, const char *what) {
    if (bitmap_save_png(image, path) != 0) return -1;
    printf("saved %s (%s)\n", path, what);
    return 0;
}

// ---------------------------------------------------------------------------

int main(int argc, char **argv) {
    cli_spec spec;
    memset(&spec, 0, sizeof spec); /* no --n, --kernel, --type: the book's image is fixed */
    spec.program = "shared_bitmap";
    spec.summary = "a shared-memory bitmap with and without __syncthreads() (CUDA by Example, ch. 5)";
    spec.accepts = CLI_BITMAP | CLI_CHECK | CLI_DEVICE;
    spec.extra_help = "Draws a 1024 x 1024 image; each thread shows a value another thread wrote to shared memory.\n"
                      "Default: the correct kernel (with __syncthreads()), shown in a window, or saved as\n"
                      "shared_bitmap_synced.png where there is no display. --no-sync: the racy kernel\n"
                      "(shared_bitmap_no_sync.png); it reports how many pixels the race spoiled and exits 0.\n"
                      "--save-diff marks in red the pixels that differ from the CPU reference.\n"
                      "--check: verify only; no window, and no file unless --save or --save-diff asks.\n"
                      "EXAMPLES_WINDOW_SECONDS=N closes the window after N seconds.";
    cli_options o;
    cli_parse_or_exit(&spec, argc, argv, &o);
    /* A file we could not write is a bad command line: say so before any GPU work. */
    const char *paths[2] = {o.save_path, o.save_diff_path};
    const char *options[2] = {"--save", "--save-diff"};
    for (int i = 0; i < 2; ++i)
        if (paths[i] && !bitmap_path_writable(paths[i])) {
            fprintf(stderr, "shared_bitmap: %s: cannot write '%s': %s\n", options[i], paths[i], strerror(errno));
            return EXIT_BAD_COMMAND_LINE;
        }

    struct cudaDeviceProp device;
    gpu_select_device("shared_bitmap", o.device, &device);
    const int synced = !o.no_sync;
    const char *kernel = synced ? "synced" : "no_sync";
    printf("shared_bitmap: %d x %d pixels, grid %d x %d blocks of %d x %d threads, kernel %s (%s)\n\n", DIM, DIM,
           DIM / TILE, DIM / TILE, TILE, TILE, synced ? "shared_bitmap_synced" : "shared_bitmap_no_sync",
           synced ? "with __syncthreads()" : "WITHOUT __syncthreads(): racy on purpose");

    cpu_bitmap image, reference;
    if (bitmap_create(&image, DIM, DIM) != 0 || bitmap_create(&reference, DIM, DIM) != 0) return EXIT_CUDA_ERROR;
    shared_bitmap_cpu(&reference);

    unsigned char *d_pixels;
    HANDLE_ERROR(cudaMalloc((void **)&d_pixels, bitmap_size_bytes(&image)));
    gpu_poison(d_pixels, bitmap_size_bytes(&image)); /* a pixel nobody writes is white: wrong */
    launch_shared_bitmap(d_pixels, synced);
    HANDLE_ERROR(cudaDeviceSynchronize());
    HANDLE_ERROR(cudaMemcpy(image.pixels, d_pixels, bitmap_size_bytes(&image), cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaFree(d_pixels));

    const long long pixels = (long long)DIM * DIM;
    const long long wrong = count_wrong_pixels(&image, &reference);
    char wrong_text[32], pixels_text[32], note[160];
    with_commas(wrong_text, sizeof wrong_text, wrong);
    with_commas(pixels_text, sizeof pixels_text, pixels);

    report rep;
    report_begin(&rep, "shared_bitmap", stdout);
    result_row row = result_row_for(kernel, NULL, pixels);
    row.size = "1024x1024";
    row.has_value = 1;
    row.value = (double)wrong; /* pixels off by more than 1 from the CPU reference */
    row.expected = 0;
    row.rel_err = relative_error(row.value, row.expected);
    row.tolerance = 0;
    if (synced) {
        row.pass = wrong == 0;
        row.note = wrong == 0 ? "every pixel within 1 of the CPU reference" : "pixels differ from the CPU reference";
    } else {
        /* The racy kernel "passes" by running and reporting: how many pixels
         * the race spoiled is chance, not a verdict on this program. */
        row.pass = 1;
        if (wrong)
            snprintf(note, sizeof note, "race: %s pixels wrong (expected: racecheck finds it)", wrong_text);
        else
            snprintf(note, sizeof note, "race: 0 pixels wrong on this run, which proves nothing");
        row.note = note;
    }
    report_add(&rep, &row);

    printf("\n");
    if (synced) {
        printf("With __syncthreads() every thread waits until its whole block has written s_shared, so each\n"
               "pixel shows its partner's value: %s of %s pixels differ from the CPU reference by more than %d.\n",
               wrong_text, pixels_text, TOLERANCE);
    } else {
        printf("Without __syncthreads() a thread may read s_shared[15 - threadIdx.x][15 - threadIdx.y] before the\n"
               "thread that writes it (usually in another warp) has done so: a data race on shared memory.\n"
               "On this run %s of %s pixels (%.1f %%) came out wrong. The count changes from run to run, and\n"
               "on another GPU it may even be 0, which proves nothing: the code is wrong either way.\n"
               "The real test is the race detector, which reports the hazard on every run:\n"
               "  compute-sanitizer --tool racecheck %s --no-sync --check\n",
               wrong_text, pixels_text, 100.0 * (double)wrong / (double)pixels, argv[0]);
    }
    printf("\n");
    int status = report_end(&rep);

    /* The pictures: diff and --save first, then the window (it waits for a person). */
    if (o.save_diff_path) {
        cpu_bitmap diff;
        if (bitmap_create(&diff, DIM, DIM) != 0) return EXIT_CUDA_ERROR;
        fill_diff_image(&diff, &image, &reference);
        int failed = save_or_complain(&diff, o.save_diff_path, "wrong pixels in red on the dimmed reference");
        bitmap_free(&diff);
        if (failed) return EXIT_BAD_COMMAND_LINE;
    }
    if (o.save_path && save_or_complain(&image, o.save_path, "the GPU's image") != 0) return EXIT_BAD_COMMAND_LINE;
    if (!o.check_only) {
        const char *title =
            synced ? "shared_bitmap: with __syncthreads()" : "shared_bitmap --no-sync: without __syncthreads() (racy)";
        if (o.save_path) { /* already saved: only a window is left to try */
            const char *why_not = "--no-window";
            if (!o.no_window && bitmap_show(&image, title, &why_not) != BITMAP_SHOWN)
                printf("no window (%s)\n", why_not);
        } else {
            const char *fallback = synced ? "shared_bitmap_synced.png" : "shared_bitmap_no_sync.png";
            if (bitmap_show_or_save(&image, title, fallback, o.no_window) == BITMAP_ERROR) return EXIT_BAD_COMMAND_LINE;
        }
    }
    bitmap_free(&image);
    bitmap_free(&reference);
    return status;
}
