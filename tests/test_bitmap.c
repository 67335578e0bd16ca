/* Unit tests of common/bitmap.c without a display: the PNG round trip, the
 * row order in the file, and bad input that must give an error, not a crash. */
#include <png.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "unit.h"

/* Every byte of every pixel different from its neighbours', alpha included. */
static void fill_distinct(cpu_bitmap *b) {
    for (int y = 0; y < b->height; ++y)
        for (int x = 0; x < b->width; ++x) {
            unsigned char *p = bitmap_pixel(b, x, y);
            p[0] = (unsigned char)(7 * x + y);
            p[1] = (unsigned char)(11 * y + 3 * x);
            p[2] = (unsigned char)(x + 37 * y);
            p[3] = (unsigned char)(255 - ((x * y) & 255));
        }
}

static int same_pixels(const cpu_bitmap *a, const cpu_bitmap *b) {
    return a->width == b->width && a->height == b->height && a->pixels && b->pixels &&
           memcmp(a->pixels, b->pixels, bitmap_size_bytes(a)) == 0;
}

static void test_create(void) {
    cpu_bitmap b;
    CHECK(bitmap_create(&b, 0, 10) == -1 && b.pixels == NULL);
    CHECK(bitmap_create(&b, 10, -1) == -1 && b.pixels == NULL);
    CHECK(bitmap_create(&b, 40000, 10) == -1 && b.pixels == NULL);
    CHECK(bitmap_create(&b, 3, 2) == 0);
    CHECK(b.width == 3 && b.height == 2 && bitmap_size_bytes(&b) == 24);
    CHECK(b.pixels[0] == 0 && b.pixels[23] == 0);
    CHECK(bitmap_pixel(&b, 2, 1) == b.pixels + 20);
    CHECK(bitmap_pixel(&b, 3, 0) == NULL && bitmap_pixel(&b, 0, 2) == NULL && bitmap_pixel(&b, -1, 0) == NULL);
    bitmap_free(&b);
    CHECK(b.pixels == NULL && b.width == 0);
    bitmap_free(&b); /* twice is fine */
}

static void test_round_trip(void) {
    const char *path = "test_bitmap_round_trip.png";
    cpu_bitmap written, read;
    CHECK(bitmap_create(&written, 37, 23) == 0);
    fill_distinct(&written);
    CHECK(bitmap_save_png(&written, path) == 0);
    CHECK(bitmap_load_png(&read, path) == 0);
    CHECK(same_pixels(&written, &read));

    /* The file itself, read top row first by libpng: its first row must be
     * the bitmap's top row (row height - 1), so the file looks like the window. */
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    CHECK(png_image_begin_read_from_file(&image, path) != 0);
    image.format = PNG_FORMAT_RGBA;
    unsigned char *top_down = (unsigned char *)malloc(PNG_IMAGE_SIZE(image));
    CHECK(top_down && png_image_finish_read(&image, NULL, top_down, 0, NULL) != 0);
    CHECK(image.width == 37 && image.height == 23);
    if (top_down) {
        CHECK(memcmp(top_down, bitmap_pixel(&written, 0, 22), 37 * 4) == 0);
        CHECK(memcmp(top_down + 22 * 37 * 4, bitmap_pixel(&written, 0, 0), 37 * 4) == 0);
    }
    free(top_down);

    /* A 1 x 1 image and a wide one. */
    cpu_bitmap tiny, tiny_read;
    CHECK(bitmap_create(&tiny, 1, 1) == 0);
    memcpy(tiny.pixels, "\x01\x02\x03\x04", 4);
    CHECK(bitmap_save_png(&tiny, "test_bitmap_tiny.png") == 0);
    CHECK(bitmap_load_png(&tiny_read, "test_bitmap_tiny.png") == 0 && same_pixels(&tiny, &tiny_read));
    bitmap_free(&tiny);
    bitmap_free(&tiny_read);

    /* Saving over an existing file replaces it. */
    fill_distinct(&read);
    read.pixels[0] ^= 0xFF;
    CHECK(bitmap_save_png(&read, path) == 0);
    cpu_bitmap again;
    CHECK(bitmap_load_png(&again, path) == 0 && same_pixels(&read, &again) && !same_pixels(&written, &again));
    bitmap_free(&again);
    bitmap_free(&written);
    bitmap_free(&read);
    remove(path);
    remove("test_bitmap_tiny.png");
}

static void write_text(const char *path, const char *bytes, size_t size) {
    FILE *file = fopen(path, "wb");
    if (file) {
        fwrite(bytes, 1, size, file);
        fclose(file);
    }
}

static void test_bad_input(void) {
    cpu_bitmap b, empty = {0, 0, NULL};
    fprintf(stderr, "(the bitmap errors below are expected)\n");
    CHECK(bitmap_load_png(&b, "no_such_directory/no_such_file.png") == -1 && b.pixels == NULL);
    CHECK(bitmap_load_png(&b, NULL) == -1 && b.pixels == NULL);

    write_text("test_bitmap_not_a.png", "this is not a PNG file\n", 23);
    CHECK(bitmap_load_png(&b, "test_bitmap_not_a.png") == -1 && b.pixels == NULL);
    remove("test_bitmap_not_a.png");

    /* A PNG cut in half: the header reads, the pixels do not. */
    cpu_bitmap big;
    CHECK(bitmap_create(&big, 64, 64) == 0);
    fill_distinct(&big);
    CHECK(bitmap_save_png(&big, "test_bitmap_whole.png") == 0);
    FILE *file = fopen("test_bitmap_whole.png", "rb");
    char buffer[65536];
    size_t size = file ? fread(buffer, 1, sizeof buffer, file) : 0;
    if (file) fclose(file);
    CHECK(size > 200);
    write_text("test_bitmap_cut.png", buffer, size / 2);
    CHECK(bitmap_load_png(&b, "test_bitmap_cut.png") == -1 && b.pixels == NULL);
    remove("test_bitmap_cut.png");
    remove("test_bitmap_whole.png");

    CHECK(bitmap_save_png(&big, "no_such_directory/out.png") == -1);
    CHECK(bitmap_save_png(&big, ".") == -1); /* a directory */
    CHECK(bitmap_save_png(&big, NULL) == -1);
    CHECK(bitmap_save_png(&empty, "test_bitmap_empty.png") == -1);

    CHECK(!bitmap_path_writable("no_such_directory/out.png"));
    CHECK(!bitmap_path_writable("."));
    CHECK(bitmap_path_writable("test_bitmap_new.png"));
    FILE *left = fopen("test_bitmap_new.png", "rb"); /* the probe leaves nothing behind */
    CHECK(left == NULL);
    if (left) fclose(left);

    const char *why = NULL;
    CHECK(bitmap_show(&empty, "empty", &why) == BITMAP_ERROR && why != NULL);
    CHECK(bitmap_show_or_save(&empty, "empty", "test_bitmap_empty.png", 1) == BITMAP_ERROR);
    CHECK(bitmap_show_or_save(&big, "fallback", "no_such_directory/out.png", 1) == BITMAP_ERROR);

    /* --no-window: saved, and the file holds the image. */
    CHECK(bitmap_show_or_save(&big, "fallback", "test_bitmap_fallback.png", 1) == BITMAP_SAVED);
    CHECK(bitmap_load_png(&b, "test_bitmap_fallback.png") == 0 && same_pixels(&big, &b));
    bitmap_free(&b);
    remove("test_bitmap_fallback.png");
    bitmap_free(&big);
}

int main(void) {
    test_create();
    test_round_trip();
    test_bad_input();
    return unit_finish("test_bitmap");
}
