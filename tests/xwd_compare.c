/* xwd_compare SCREENSHOT.xwd EXPECTED.png [TOLERANCE]
 *
 * Compares a window dump made by `xwd -name TITLE` (the X Window Dump format:
 * a big-endian header, a colour table, then the pixels as the X server holds
 * them, top row first) with the PNG the window was asked to show. Red, green
 * and blue must agree within TOLERANCE (default 0); the window has no alpha.
 * Exit 0 equal, 1 different (or another size), 2 unreadable input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap_load.h"

enum { XWD_HEADER_WORDS = 25, XWD_COLOR_BYTES = 12 };
enum {
    XWD_HEADER_SIZE = 0,
    XWD_VERSION = 1,
    XWD_FORMAT = 2,
    XWD_WIDTH = 4,
    XWD_HEIGHT = 5,
    XWD_BYTE_ORDER = 7,
    XWD_BITS_PER_PIXEL = 11,
    XWD_BYTES_PER_LINE = 12,
    XWD_RED_MASK = 14,
    XWD_GREEN_MASK = 15,
    XWD_BLUE_MASK = 16,
    XWD_NCOLORS = 19
};

static uint32_t big_endian_32(const unsigned char *b) {
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/* The 8-bit value of one colour channel: the bits under mask, scaled to 0..255. */
static int channel(uint32_t pixel, uint32_t mask) {
    if (mask == 0) return 0;
    int shift = 0;
    while (!((mask >> shift) & 1))
        ++shift;
    uint32_t max = mask >> shift, value = (pixel & mask) >> shift;
    return (int)((value * 255 + max / 2) / max);
}

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    size_t capacity = 1 << 20, used = 0;
    unsigned char *data = (unsigned char *)malloc(capacity);
    while (data) {
        used += fread(data + used, 1, capacity - used, file);
        if (used < capacity) break;
        unsigned char *bigger = (unsigned char *)realloc(data, capacity *= 2);
        if (bigger == NULL) free(data);
        data = bigger;
    }
    fclose(file);
    *size = used;
    return data;
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: xwd_compare SCREENSHOT.xwd EXPECTED.png [TOLERANCE]\n");
        return 2;
    }
    int tolerance = argc == 4 ? atoi(argv[3]) : 0;
    size_t size = 0;
    unsigned char *xwd = read_file(argv[1], &size);
    if (xwd == NULL || size < 4 * XWD_HEADER_WORDS) {
        fprintf(stderr, "xwd_compare: cannot read '%s'\n", argv[1]);
        return 2;
    }
    uint32_t h[XWD_HEADER_WORDS];
    for (int i = 0; i < XWD_HEADER_WORDS; ++i)
        h[i] = big_endian_32(xwd + 4 * i);
    const int bytes_per_pixel = (int)h[XWD_BITS_PER_PIXEL] / 8;
    size_t offset = (size_t)h[XWD_HEADER_SIZE] + (size_t)h[XWD_NCOLORS] * XWD_COLOR_BYTES;
    if (h[XWD_VERSION] != 7 || h[XWD_FORMAT] != 2 /* ZPixmap */ || (bytes_per_pixel != 3 && bytes_per_pixel != 4) ||
        offset + (size_t)h[XWD_BYTES_PER_LINE] * h[XWD_HEIGHT] > size) {
        fprintf(stderr, "xwd_compare: '%s': not a 24/32-bit ZPixmap XWD file this tool reads\n", argv[1]);
        return 2;
    }
    cpu_bitmap expected;
    if (bitmap_load_png(&expected, argv[2]) != 0) return 2;
    if ((int)h[XWD_WIDTH] != expected.width || (int)h[XWD_HEIGHT] != expected.height) {
        printf("xwd_compare: the window is %u x %u pixels, the image %d x %d\n", h[XWD_WIDTH], h[XWD_HEIGHT],
               expected.width, expected.height);
        return 1;
    }
    long long different = 0;
    for (int row = 0; row < expected.height; ++row) {
        const unsigned char *line = xwd + offset + (size_t)row * h[XWD_BYTES_PER_LINE];
        for (int x = 0; x < expected.width; ++x) {
            const unsigned char *b = line + (size_t)x * bytes_per_pixel;
            uint32_t pixel = 0;
            for (int i = 0; i < bytes_per_pixel; ++i) /* byte order 0: least significant byte first */
                pixel |= (uint32_t)b[h[XWD_BYTE_ORDER] == 0 ? i : bytes_per_pixel - 1 - i] << (8 * i);
            int rgb[3] = {channel(pixel, h[XWD_RED_MASK]), channel(pixel, h[XWD_GREEN_MASK]),
                          channel(pixel, h[XWD_BLUE_MASK])};
            /* The dump's first row is the top; the bitmap's row 0 is the bottom. */
            const unsigned char *want = bitmap_pixel(&expected, x, expected.height - 1 - row);
            int bad = 0;
            for (int c = 0; c < 3; ++c)
                bad |= abs(rgb[c] - want[c]) > tolerance;
            if (bad && different++ < 5)
                printf("xwd_compare: pixel (%d, %d from the top): window %d,%d,%d, image %d,%d,%d\n", x, row, rgb[0],
                       rgb[1], rgb[2], want[0], want[1], want[2]);
        }
    }
    printf("xwd_compare: %lld of %d pixels differ by more than %d\n", different, expected.width * expected.height,
           tolerance);
    bitmap_free(&expected);
    free(xwd);
    return different ? 1 : 0;
}
