/* ch05_shared_bitmap: what a missing __syncthreads() does
 * (CUDA by Example, ch. 5, "Shared Memory and Synchronization": Shared Memory Bitmap).
 *
 * What it teaches: every thread of a 16 x 16 block writes one value into a
 * __shared__ array, then reads a value that ANOTHER thread wrote (the one at
 * the mirrored position, always in another warp). The barrier between the
 * write and the read is what makes that safe. Without it the read races the
 * write: a thread may read the shared memory before its partner has written
 * it, and draws whatever was there. The picture shows the race as noise.
 *
 * Build this file alone, from its folder (the second line: without freeglut, PNG only):
 *   nvcc -O3 -I../common shared_bitmap.cu -o shared_bitmap -lpng -lglut -lGL
 *   nvcc -O3 -I../common -DBITMAP_NO_WINDOW shared_bitmap.cu -o shared_bitmap -lpng
 *
 * Run: ./shared_bitmap (the book's image, in a window, else a PNG), --no-sync (the race),
 * --bank-model (each shared-memory access's bank passes; no GPU needed), --help;
 *   compute-sanitizer --tool racecheck ./shared_bitmap --no-sync --check
 *
 * Kernels:
 *   shared_bitmap_synced   the book's: write s_shared, __syncthreads(), read the partner's value.
 *   shared_bitmap_no_sync  the same with the barrier left out: a data race, on purpose (--no-sync).
 *
 * main runs the book's program and checks every pixel against the CPU's image. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"           /* the book's CPUBitmap: an RGBA image, shown in a window or saved as PNG */
#include "book.h"             /* the book's header: error checks, the device */
#include "cli.h"              /* harness: the command line */
#include "bank_model.h"       /* harness: --bank-model, the CPU runner's count of each shared access */
#include "report.h"           /* harness: the table and the RESULT line */

#define DIM 1024      /* the image is DIM x DIM pixels                */
#define TILE 16       /* blocks of TILE x TILE threads, one per pixel */
#define PERIOD 128.0f /* the sine pattern repeats every 128 pixels     */
#define PI 3.1415926535897932f

// ---------------------------------------------------------------------------
// Kernel 1, shared_bitmap_synced: the book's (CbE ch. 5). Each thread computes
// the value of its own pixel into s_shared, waits at the barrier until the
// whole block has written, then draws the value of its mirrored partner.

__global__ void shared_bitmap_synced(unsigned char *pixels) {
    const int x = threadIdx.x + blockIdx.x * blockDim.x;
    const int y = threadIdx.y + blockIdx.y * blockDim.y;
    const int offset = x + y * blockDim.x * gridDim.x; /* row y, counted from the bottom */

    __shared__ float s_shared[TILE][TILE];
    s_shared[threadIdx.x][threadIdx.y] = // bank: column write
        255 * (sinf(x * 2.0f * PI / PERIOD) + 1.0f) * (sinf(y * 2.0f * PI / PERIOD) + 1.0f) / 4.0f;

    __syncthreads(); /* every element of s_shared is written before anyone reads */

    pixels[offset * 4 + 0] = 0;
    pixels[offset * 4 + 1] = (unsigned char)s_shared[TILE - 1 - threadIdx.x][TILE - 1 - threadIdx.y]; // bank: mirrored column read
    pixels[offset * 4 + 2] = 0;
    pixels[offset * 4 + 3] = 255;
}

// ---------------------------------------------------------------------------
// Kernel 2, shared_bitmap_no_sync: DELIBERATELY WRONG, the barrier left out. The
// block's 8 warps are scheduled independently, so a thread may read its partner's
// element before the partner's warp has written it (a read-after-write race) and
// draw whatever that shared memory held. Which pixels lose changes from run to run.

__global__ void shared_bitmap_no_sync(unsigned char *pixels) {
    const int x = threadIdx.x + blockIdx.x * blockDim.x;
    const int y = threadIdx.y + blockIdx.y * blockDim.y;
    const int offset = x + y * blockDim.x * gridDim.x;

    __shared__ float s_shared[TILE][TILE];
    s_shared[threadIdx.x][threadIdx.y] = // bank: column write
        255 * (sinf(x * 2.0f * PI / PERIOD) + 1.0f) * (sinf(y * 2.0f * PI / PERIOD) + 1.0f) / 4.0f;

    /* no __syncthreads(): the read below races the other warps' writes */

    pixels[offset * 4 + 0] = 0;
    pixels[offset * 4 + 1] = (unsigned char)s_shared[TILE - 1 - threadIdx.x][TILE - 1 - threadIdx.y]; // bank: mirrored column read
    pixels[offset * 4 + 2] = 0;
    pixels[offset * 4 + 3] = 255;
}

// ---------------------------------------------------------------------------
// main: the book's program in its straight line, then our verdict and the picture.

/* Defined below the divider: */
/* the options; exit 2 on a bad one (a --save name not ending in .png included), --bank-model prints and exits 0 */
static void parse_options(int argc, char **argv, cli_options *o);
static void shared_bitmap_cpu(cpu_bitmap *image); /* what the synced kernel draws, in double */
/* every pixel against the CPU's: the table and the RESULT line; 0 when the image passed */
static int check_image(const cpu_bitmap *image, const cpu_bitmap *reference, int synced, const char *program);
/* --save-diff, --save, then the window or the PNG: 0 when every image asked for was written */
static int save_and_show(const cpu_bitmap *image, const cpu_bitmap *reference, const cli_options *o, int synced);

int main(int argc, char **argv) {
    cli_options o;
    parse_options(argc, argv, &o);
    struct cudaDeviceProp device;
    gpu_select_device("shared_bitmap", o.device, &device);
    const int synced = !o.no_sync;
    printf("shared_bitmap: %d x %d pixels, grid %d x %d blocks of %d x %d threads, kernel %s (%s)\n\n", DIM, DIM,
           DIM / TILE, DIM / TILE, TILE, TILE, synced ? "shared_bitmap_synced" : "shared_bitmap_no_sync",
           synced ? "with __syncthreads()" : "WITHOUT __syncthreads(): racy on purpose");

    // The book's program, in its straight line: one thread per pixel.
    cpu_bitmap bitmap;
    if (bitmap_create(&bitmap, DIM, DIM) != 0) return EXIT_BAD_COMMAND_LINE;
    unsigned char *dev_bitmap;
    HANDLE_ERROR(cudaMalloc((void **)&dev_bitmap, bitmap_size_bytes(&bitmap)));
    gpu_poison(dev_bitmap, bitmap_size_bytes(&bitmap)); /* a pixel nobody writes is white: wrong */
    const dim3 grids(DIM / TILE, DIM / TILE);
    const dim3 threads(TILE, TILE);
    if (synced)
        shared_bitmap_synced<<<grids, threads>>>(dev_bitmap);
    else
        shared_bitmap_no_sync<<<grids, threads>>>(dev_bitmap); /* --no-sync: the race, on purpose */
    CHECK_LAUNCH();
    HANDLE_ERROR(cudaMemcpy(bitmap.pixels, dev_bitmap, bitmap_size_bytes(&bitmap), cudaMemcpyDeviceToHost));
    HANDLE_ERROR(cudaFree(dev_bitmap));

    // Our verdict: the whole image against the CPU's; then the picture, in a
    // window or, where none opens, as a PNG (the book's display_and_exit).
    cpu_bitmap reference;
    if (bitmap_create(&reference, DIM, DIM) != 0) return EXIT_BAD_COMMAND_LINE;
    shared_bitmap_cpu(&reference);
    const int status = check_image(&bitmap, &reference, synced, argv[0]);
    const int saved = save_and_show(&bitmap, &reference, &o, synced) == 0;
    bitmap_free(&bitmap);
    bitmap_free(&reference);
    /* A wrong image is the news, whatever happened to the file (exit 1). */
    if (status != EXIT_ALL_PASSED) return status;
    if (!saved) return EXIT_IMAGE_NOT_SAVED;
    return EXIT_ALL_PASSED;
}

// ===== Harness: below this line, not needed to follow the lesson =====

// ----- options -----
static void parse_options(int argc, char **argv, cli_options *o) {
    cli_spec spec = {}; /* no --n, --kernel, --type: the book's image is fixed */
    spec.program = "shared_bitmap";
    spec.summary = "a shared-memory bitmap with and without __syncthreads() (CUDA by Example, ch. 5)";
    spec.accepts = CLI_BITMAP | CLI_CHECK | CLI_DEVICE | CLI_BANK_MODEL;
    spec.extra_help = "Draws a 1024 x 1024 image, each thread a value another thread wrote to shared memory, in a\n"
                      "window (else shared_bitmap_synced.png). --no-sync: the race, counted: exit 0 (--cpu 1).\n"
                      "--save-diff: wrong pixels in red. --check: no window, no file unless asked. Saving: .png only,\n"
                      "a target replaced only by a whole image. EXAMPLES_WINDOW_SECONDS=N closes the window after N s.";
    spec.exit_codes = "  5  the image was right, but an image asked for could not be saved\n"
                      "     (a wrong image exits 1 whatever happened to the file)";
    cli_parse_or_exit(&spec, argc, argv, o);
    static const bank_picture pictures[] = {{"shared_bitmap_synced", "column write", "bitmap_write", 0},
                                            {"shared_bitmap_synced", "mirrored column read", "bitmap_read", 0},
                                            {NULL, NULL, NULL, 0}};
    static const char *const runs[] = {" --check", " --check --no-sync", NULL}; /* both kernels */
    if (o->bank_model) /* before any CUDA call: works without a GPU or a driver */
        bank_model_observe(spec.program, argc, argv, runs, pictures, NULL);
    /* Names, before the work (exit 2); whether the file can be written, only the save says (exit 5). */
    const char *paths[2] = {o->save_path, o->save_diff_path}, *options[2] = {"--save", "--save-diff"};
    for (int i = 0; i < 2; ++i)
        if (paths[i] && (strlen(paths[i]) < 4 || strcasecmp(paths[i] + strlen(paths[i]) - 4, ".png") != 0))
            cli_exit_bad(spec.program, "%s %s: the name must end in .png (the file is written as PNG)", options[i],
                         paths[i]);
    if (paths[0] && paths[1] && strcmp(paths[0], paths[1]) == 0)
        cli_exit_bad(spec.program, "--save and --save-diff name the same file '%s'", paths[0]);
}

// ----- the run -----
// none: main runs the book's one kernel itself, in the book's straight line

// ----- the launch switch -----
// none: main launches the kernel directly

// ----- CPU replays -----
/* Pixel (x, y) shows the value its mirrored partner, (15 - x % 16, 15 - y % 16) in its tile, computes. */
static void shared_bitmap_cpu(cpu_bitmap *image) {
    const double pi = 3.14159265358979323846;
    for (int y = 0; y < DIM; ++y)
        for (int x = 0; x < DIM; ++x) {
            const int source_x = x - x % TILE + (TILE - 1 - x % TILE), source_y = y - y % TILE + (TILE - 1 - y % TILE);
            double value =
                255.0 * (sin(source_x * 2.0 * pi / 128.0) + 1.0) * (sin(source_y * 2.0 * pi / 128.0) + 1.0) / 4.0;
            unsigned char *pixel = bitmap_pixel(image, x, y);
            pixel[0] = 0;
            pixel[1] = (unsigned char)value; /* truncates, like the GPU's float to byte */
            pixel[2] = 0;
            pixel[3] = 255;
        }
}

// ----- checks -----
// Against the CPU image: red, blue and alpha exactly; green within 1, since the GPU's sinf
// in float and the CPU's sin in double may land on either side of an integer.

/* The wrong pixels (*green_off_by_one: the tolerated ones; *first: y * DIM + x of the first wrong one); a diff
 * image gets each in red, the rest dimmed. */
static long long count_wrong_pixels(const cpu_bitmap *image, const cpu_bitmap *reference, long long *green_off_by_one,
                                    long long *first, cpu_bitmap *diff) {
    long long wrong = 0;
    *green_off_by_one = 0;
    for (int y = 0; y < DIM; ++y)
        for (int x = 0; x < DIM; ++x) {
            const unsigned char *pixel = bitmap_pixel(image, x, y), *want = bitmap_pixel(reference, x, y);
            const int is_wrong = pixel[0] != want[0] || abs((int)pixel[1] - (int)want[1]) > 1 || pixel[2] != want[2] ||
                                 pixel[3] != want[3];
            if (is_wrong && wrong++ == 0) *first = (long long)y * DIM + x;
            *green_off_by_one += !is_wrong && pixel[1] != want[1];
            if (!diff) continue;
            unsigned char *out = bitmap_pixel(diff, x, y);
            out[0] = is_wrong ? 255 : want[0] / 3;
            out[1] = is_wrong ? 0 : want[1] / 3;
            out[2] = is_wrong ? 0 : want[2] / 3;
            out[3] = 255;
        }
    return wrong;
}

/* 1048576 -> "1,048,576"; returns the end of what it wrote */
static char *with_commas(char *out, long long value) {
    if (value >= 1000) out = with_commas(out, value / 1000);
    return out + snprintf(out, 8, value >= 1000 ? ",%03lld" : "%lld", value % 1000);
}

static int check_image(const cpu_bitmap *image, const cpu_bitmap *reference, int synced, const char *program) {
    long long green_off_by_one, first = 0;
    const long long pixels = (long long)DIM * DIM,
                    wrong = count_wrong_pixels(image, reference, &green_off_by_one, &first, NULL);
    char wrong_text[32], pixels_text[32];
    with_commas(wrong_text, wrong);
    with_commas(pixels_text, pixels);
    report rep;
    report_begin(&rep, "shared_bitmap", stdout);
    result_row row = result_row_for(synced ? "synced" : "no_sync", NULL, pixels);
    row.size = "1024x1024";
    row_check(&row, (double)wrong, 0, 0); /* value: the wrong pixels; none allowed */
    if (synced) {
        row_note(&row, "%s (%lld within 1 in green: sinf vs sin)",
                 wrong ? "value: pixels that differ from the CPU reference" : "every pixel equals the CPU reference",
                 green_off_by_one);
        static const char *const channels[] = {"red", "green", "blue", "alpha"};
        const int x = (int)(first % DIM), y = (int)(first / DIM);
        const unsigned char *pixel = bitmap_pixel(image, x, y), *want = bitmap_pixel(reference, x, y);
        const int c = abs(pixel[1] - want[1]) > 1 ? 1 : pixel[0] != want[0] ? 0 : pixel[2] != want[2] ? 2 : 3;
        if (wrong) row_note_first_wrong(&row, pixel[c], want[c], "pixel (x %d, y %d) %s", x, y, channels[c]);
    } else {
        /* The racy kernel passes by reporting: the pixels the race spoils are chance, no verdict. */
        row.pass = 1;
        const char *found_by = ON_CPU_RUNNER ? "" : " (expected: racecheck finds it)"; /* report.h: the findings */
        row_note(&row, "race: %s pixels wrong%s", wrong_text, wrong ? found_by : " on this run, which proves nothing");
    }
    report_add(&rep, &row);
    printf("\n");
    if (synced)
        printf("With __syncthreads() every thread waits until its whole block has written s_shared, so each\n"
               "pixel shows its partner's value: %s of %s pixels differ from the CPU reference.\n",
               wrong_text, pixels_text);
    else
        printf("Without __syncthreads() a thread may read s_shared[15 - threadIdx.x][15 - threadIdx.y] before the\n"
               "thread that writes it (always in another warp) has done so: a data race on shared memory.\n"
               "On this run %s of %s pixels (%.1f %%) came out wrong. %s\n"
               "  compute-sanitizer --tool racecheck %s --no-sync --check\n",
               wrong_text, pixels_text, 100.0 * (double)wrong / (double)pixels,
               ON_CPU_RUNNER ? "The count changes with --cpu-order,\n"
                               "never from run to run: the runner reports the race above in every order; on a GPU:"
                             : "The count changes from run to run, and\n"
                               "on another GPU it may even be 0, which proves nothing: the code is wrong either way.\n"
                               "The real test is the race detector, which reports the hazard on every run:",
               program);
    printf("\n");
    return report_end(&rep);
}

static int save(const cpu_bitmap *image, const char *path, const char *what) {
    if (bitmap_save_png(image, path) != 0) return -1;
    printf("saved %s (%s)\n", path, what);
    return 0;
}

/* The window waits for a person; where none opens, the default PNG. A PNG goes to a temporary
 * file renamed over the target when complete (bitmap.h). -1: an image asked for was not written. */
static int save_and_show(const cpu_bitmap *image, const cpu_bitmap *reference, const cli_options *o, int synced) {
    int failed = 0;
    if (o->save_diff_path) {
        cpu_bitmap diff;
        long long green_off_by_one, first;
        if (bitmap_create(&diff, DIM, DIM) != 0) return -1;
        count_wrong_pixels(image, reference, &green_off_by_one, &first, &diff);
        failed |= save(&diff, o->save_diff_path, "wrong pixels in red on the dimmed reference");
        bitmap_free(&diff);
    }
    if (o->save_path) failed |= save(image, o->save_path, ON_CPU_RUNNER ? "the CPU runner's image" : "the GPU's image");
    if (o->check_only) return failed;
    const char *title =
        synced ? "shared_bitmap: with __syncthreads()" : "shared_bitmap --no-sync: without __syncthreads() (racy)";
    if (o->save_path) { /* already saved: only a window is left to try */
        const char *why_not = "--no-window";
        if (!o->no_window && bitmap_show(image, title, &why_not) != BITMAP_SHOWN) printf("no window (%s)\n", why_not);
    } else {
        const char *fallback = synced ? "shared_bitmap_synced.png" : "shared_bitmap_no_sync.png";
        failed |= bitmap_show_or_save(image, title, fallback, o->no_window) == BITMAP_ERROR;
    }
    return failed ? -1 : 0;
}
