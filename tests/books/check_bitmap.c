/* check_bitmap.c: is a PNG what CUDA by Example's chapter05/shared_bitmap.cu shows?
 *
 *   check_bitmap FILE.png
 *
 * The book's kernel: blocks of 16 x 16 threads over a DIM x DIM image (1024); thread
 * (x, y) stores 255 (sin(2 pi x / 128) + 1)(sin(2 pi y / 128) + 1) / 4 in shared memory,
 * and after the barrier its pixel's green byte is the value of the thread mirrored in
 * the block's tile (15 - threadIdx.x, 15 - threadIdx.y); red and blue are 0, alpha 255.
 * The window shows the bitmap's first row at the bottom (OpenGL), so the PNG's top
 * row is the bitmap's last. The green byte may differ by 1 from this replay (the
 * device's sinf and the host's may round differently); any other difference is
 * reported. (A race is the runner's to report: the test also requires no finding.) */
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DIM = 1024, TILE = 16 };

static unsigned char green(int x, int y) {
    const float pi = 3.1415926535897932f, period = 128.0f;
    const float value = 255 * (sinf(x * 2.0f * pi / period) + 1.0f) * (sinf(y * 2.0f * pi / period) + 1.0f) / 4.0f;
    return (unsigned char)value;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: check_bitmap FILE.png\n");
        return 2;
    }
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, argv[1])) {
        printf("FAIL: cannot read %s: %s\n", argv[1], image.message);
        return 1;
    }
    if (image.width != DIM || image.height != DIM) {
        printf("FAIL: %s is %ux%u, the book's bitmap %dx%d\n", argv[1], image.width, image.height, DIM, DIM);
        return 1;
    }
    image.format = PNG_FORMAT_RGBA;
    unsigned char *pixels = malloc((size_t)DIM * DIM * 4);
    if (!pixels || !png_image_finish_read(&image, NULL, pixels, 0, NULL)) {
        printf("FAIL: cannot decode %s: %s\n", argv[1], image.message);
        return 1;
    }
    long off_by_one = 0, wrong = 0;
    for (int row = 0; row < DIM; ++row)
        for (int x = 0; x < DIM; ++x) {
            const int y = DIM - 1 - row; /* the bitmap's row */
            const int mirrored_x = x / TILE * TILE + (TILE - 1 - x % TILE);
            const int mirrored_y = y / TILE * TILE + (TILE - 1 - y % TILE);
            const unsigned char want = green(mirrored_x, mirrored_y);
            const unsigned char *got = pixels + ((size_t)row * DIM + x) * 4;
            const int difference = abs((int)got[1] - (int)want);
            if (got[0] != 0 || got[2] != 0 || got[3] != 255 || difference > 1) {
                if (wrong++ < 5)
                    printf("FAIL: pixel x=%d y=%d (bitmap row): %u %u %u %u, the book's 0 %u 0 255\n", x, y,
                           got[0], got[1], got[2], got[3], want);
            } else if (difference == 1) {
                ++off_by_one;
            }
        }
    free(pixels);
    if (wrong) {
        printf("FAIL: %ld of %d pixels differ from the book's bitmap\n", wrong, DIM * DIM);
        return 1;
    }
    printf("%s: the book's bitmap (%ld of %d green bytes 1 away from the host's sinf)\n", argv[1], off_by_one,
           DIM * DIM);
    return 0;
}
