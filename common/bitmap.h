/* The CPU bitmap every drawing example uses (plain C, no GPU needed): a
 * width x height image of RGBA bytes that a program fills (or copies from the
 * GPU), then shows in a window or saves as PNG.
 *
 *   cpu_bitmap image;
 *   bitmap_create(&image, 1024, 1024);           // pixels: 1024 * 1024 * 4 bytes
 *   cudaMemcpy(image.pixels, d_pixels, bitmap_size_bytes(&image), cudaMemcpyDeviceToHost);
 *   bitmap_show_or_save(&image, "shared_bitmap", "shared_bitmap.png", 0);
 *   bitmap_free(&image);
 *
 * Row order: pixels[0..4*width) is the BOTTOM row, as in the book and in
 * OpenGL (glDrawPixels starts at the bottom-left corner), so y grows upwards
 * like a graph's axis. The PNG writer and reader flip the rows, so a saved
 * file looks exactly like the window.
 *
 * The window (freeglut; only when the build found GLUT and a display is
 * there): Esc or q closes it, the image is redrawn when the window is exposed
 * and scaled to fit when it is resized, and control returns to the program,
 * which may open another window afterwards. Setting the environment variable
 * EXAMPLES_WINDOW_SECONDS=N closes the window after N seconds (tests and
 * scripts use it, so nothing waits for a person).
 * Without GLUT, without a display, or with no_window set, the image is saved
 * as PNG and the program says where.
 *
 * Declarations here, definitions in bitmap.c: safe to include from any number
 * of translation units, from C and from CUDA. */
#ifndef COMMON_BITMAP_H
#define COMMON_BITMAP_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int width, height;
    unsigned char *pixels; /* width * height * 4 bytes: R, G, B, A; row 0 = bottom */
} cpu_bitmap;

/* Allocates width x height pixels, all zero (transparent black).
 * 0 on success; -1 (bitmap left empty, a line on stderr) for a size below 1 or
 * above 32768, or when memory runs out. */
int bitmap_create(cpu_bitmap *bitmap, int width, int height);

/* Frees the pixels and leaves an empty bitmap; freeing an empty one is fine. */
void bitmap_free(cpu_bitmap *bitmap);

/* width * height * 4: the bytes to copy into pixels. */
size_t bitmap_size_bytes(const cpu_bitmap *bitmap);

/* The 4 bytes of pixel (x, y), y counted from the bottom row. */
unsigned char *bitmap_pixel(const cpu_bitmap *bitmap, int x, int y);

/* Writes an 8-bit RGBA PNG. 0 on success, -1 with a line on stderr. */
int bitmap_save_png(const cpu_bitmap *bitmap, const char *path);

/* Reads any PNG into a new bitmap, converted to 8-bit RGBA. 0 on success,
 * -1 with a line on stderr (missing file, not a PNG, damaged file). */
int bitmap_load_png(cpu_bitmap *bitmap, const char *path);

/* 1 when `path` can be written (an existing file is left as it was, a new
 * one is not left behind): lets a program reject --save before its work. */
int bitmap_path_writable(const char *path);

/* 1 when this build has the GLUT window, 0 when it can only save PNGs. */
int bitmap_window_built(void);

enum bitmap_outcome { BITMAP_ERROR = -1, BITMAP_SHOWN = 0, BITMAP_SAVED = 1 };

/* Shows the bitmap in a window titled `title` and returns BITMAP_SHOWN when
 * the window has closed. Where no window can open, returns BITMAP_ERROR and,
 * if why_not is not NULL, sets *why_not to a short reason (never prints). */
int bitmap_show(const cpu_bitmap *bitmap, const char *title, const char **why_not);

/* The usual ending of a drawing example: shows the window, or, with
 * no_window set or where no window can open, saves `fallback_png_path` and
 * prints "saved PATH (why)". BITMAP_SHOWN, BITMAP_SAVED or BITMAP_ERROR
 * (the PNG could not be written). */
int bitmap_show_or_save(const cpu_bitmap *bitmap, const char *title, const char *fallback_png_path, int no_window);

#ifdef __cplusplus
}
#endif
#endif
