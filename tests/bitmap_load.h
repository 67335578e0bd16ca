/* Test-only: reads a PNG back, so the tests can compare what the bitmap
 * header saved (or what a window showed) with what was drawn. */
#ifndef TESTS_BITMAP_LOAD_H
#define TESTS_BITMAP_LOAD_H

#include "bitmap.h"

/* Reads any PNG into a new bitmap, converted to 8-bit RGBA. 0 on success,
 * -1 with a line on stderr (missing file, not a PNG, damaged file). */
static inline int bitmap_load_png(cpu_bitmap *bitmap, const char *path) {
    bitmap->width = bitmap->height = 0;
    bitmap->pixels = NULL;
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (path == NULL || !png_image_begin_read_from_file(&image, path)) {
        fprintf(stderr, "bitmap: cannot read PNG '%s': %s\n", path ? path : "(null)", path ? image.message : "no path");
        png_image_free(&image);
        return -1;
    }
    image.format = PNG_FORMAT_RGBA; /* whatever the file holds, as 8-bit RGBA */
    if (image.width > BITMAP_MAX_SIDE || image.height > BITMAP_MAX_SIDE ||
        bitmap_create(bitmap, (int)image.width, (int)image.height) != 0) {
        fprintf(stderr, "bitmap: '%s' is %u x %u pixels, more than this viewer takes\n", path, image.width,
                image.height);
        png_image_free(&image);
        return -1;
    }
    if (!png_image_finish_read(&image, NULL, bitmap->pixels, -(png_int_32)(4 * bitmap->width), NULL)) {
        fprintf(stderr, "bitmap: cannot read PNG '%s': %s\n", path, image.message);
        png_image_free(&image);
        bitmap_free(bitmap);
        return -1;
    }
    return 0;
}

#endif
