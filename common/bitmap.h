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
 * Header-only (every function static inline), from C and from CUDA. Link with
 * libpng (-lpng); the window needs freeglut and OpenGL (-lglut -lGL) and is
 * built when <GL/freeglut.h> is found, unless BITMAP_NO_WINDOW is defined. */
#ifndef COMMON_BITMAP_H
#define COMMON_BITMAP_H

#include <errno.h>
#include <png.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(BITMAP_NO_WINDOW) && defined(__has_include)
#if __has_include(<GL/freeglut.h>)
#define BITMAP_HAVE_WINDOW 1
#endif
#endif
#ifdef BITMAP_HAVE_WINDOW
#include <GL/freeglut.h>
#include <setjmp.h>
#include <stdarg.h>
#endif

typedef struct {
    int width, height;
    unsigned char *pixels; /* width * height * 4 bytes: R, G, B, A; row 0 = bottom */
} cpu_bitmap;

enum bitmap_outcome { BITMAP_ERROR = -1, BITMAP_SHOWN = 0, BITMAP_SAVED = 1 };

#define BITMAP_MAX_SIDE 32768 /* far beyond any screen; keeps width * height * 4 well inside size_t */

// ---------------------------------------------------------------------------
// Memory.

/* Allocates width x height pixels, all zero (transparent black).
 * 0 on success; -1 (bitmap left empty, a line on stderr) for a size below 1 or
 * above 32768, or when memory runs out. */
static inline int bitmap_create(cpu_bitmap *bitmap, int width, int height) {
    bitmap->width = bitmap->height = 0;
    bitmap->pixels = NULL;
    if (width < 1 || height < 1 || width > BITMAP_MAX_SIDE || height > BITMAP_MAX_SIDE) {
        fprintf(stderr, "bitmap: a bitmap of %d x %d pixels is not possible (each side 1 to %d)\n", width, height,
                BITMAP_MAX_SIDE);
        return -1;
    }
    bitmap->pixels = (unsigned char *)calloc((size_t)width * (size_t)height, 4);
    if (bitmap->pixels == NULL) {
        fprintf(stderr, "bitmap: out of host memory for %d x %d pixels\n", width, height);
        return -1;
    }
    bitmap->width = width;
    bitmap->height = height;
    return 0;
}

/* Frees the pixels and leaves an empty bitmap; freeing an empty one is fine. */
static inline void bitmap_free(cpu_bitmap *bitmap) {
    free(bitmap->pixels);
    bitmap->pixels = NULL;
    bitmap->width = bitmap->height = 0;
}

/* width * height * 4: the bytes to copy into pixels. */
static inline size_t bitmap_size_bytes(const cpu_bitmap *bitmap) {
    return (size_t)bitmap->width * (size_t)bitmap->height * 4;
}

/* The 4 bytes of pixel (x, y), y counted from the bottom row. */
static inline unsigned char *bitmap_pixel(const cpu_bitmap *bitmap, int x, int y) {
    if (x < 0 || y < 0 || x >= bitmap->width || y >= bitmap->height) return NULL;
    return bitmap->pixels + ((size_t)y * (size_t)bitmap->width + (size_t)x) * 4;
}

// ---------------------------------------------------------------------------
// PNG, through libpng's simplified API (libpng 1.6+). A negative row stride
// tells libpng that the buffer holds the bottom row first: that is our row
// order, and the file gets the usual top row first.

/* Writes an 8-bit RGBA PNG. 0 on success, -1 with a line on stderr. */
static inline int bitmap_save_png(const cpu_bitmap *bitmap, const char *path) {
    if (bitmap == NULL || bitmap->pixels == NULL || path == NULL) {
        fprintf(stderr, "bitmap: nothing to save (empty bitmap or no path)\n");
        return -1;
    }
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = (png_uint_32)bitmap->width;
    image.height = (png_uint_32)bitmap->height;
    image.format = PNG_FORMAT_RGBA;
    errno = 0;
    if (!png_image_write_to_file(&image, path, 0, bitmap->pixels, -(png_int_32)(4 * bitmap->width), NULL)) {
        fprintf(stderr, "bitmap: cannot write PNG '%s': %s\n", path, errno ? strerror(errno) : image.message);
        png_image_free(&image);
        return -1;
    }
    return 0;
}

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
    image.format = PNG_FORMAT_RGBA; /* convert whatever the file holds to 8-bit RGBA */
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

/* 1 when `path` can be written (an existing file is left as it was, a new
 * one is not left behind): lets a program reject --save before its work. */
static inline int bitmap_path_writable(const char *path) {
    FILE *file = fopen(path, "rb");
    if (file) { /* it exists: can we write it? (a directory fails here) */
        fclose(file);
        file = fopen(path, "r+b");
        if (file == NULL) return 0;
        fclose(file);
        return 1;
    }
    file = fopen(path, "wb");
    if (file == NULL) return 0;
    fclose(file);
    remove(path);
    return 1;
}

// ---------------------------------------------------------------------------
// The window (freeglut). One window at a time: the callbacks find the image
// to draw in bitmap_window_image_.

#ifdef BITMAP_HAVE_WINDOW

static const cpu_bitmap *bitmap_window_image_;
static int window_width, window_height;

/* freeglut calls exit() on a fatal error (no display, no suitable visual).
 * Our error function jumps back instead, so the program saves a PNG; after
 * that GLUT is in an unknown state and is never called again. */
static jmp_buf glut_failed;
static int glut_unusable;
static char glut_program_name[] = "bitmap";
static char *glut_argv[] = {glut_program_name, NULL};
static int glut_argc = 1;

static inline void bitmap_glut_error_(const char *format, va_list arguments) {
    fprintf(stderr, "bitmap: GLUT: ");
    vfprintf(stderr, format, arguments);
    fprintf(stderr, "\n");
    longjmp(glut_failed, 1);
}

/* Scales the image to fit the window (keeping its shape), centred on black. */
static inline void bitmap_draw_(void) {
    const cpu_bitmap *b = bitmap_window_image_;
    double zoom_x = (double)window_width / b->width, zoom_y = (double)window_height / b->height;
    double zoom = zoom_x < zoom_y ? zoom_x : zoom_y;
    int x0 = (int)((window_width - zoom * b->width) / 2), y0 = (int)((window_height - zoom * b->height) / 2);
    glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glRasterPos2i(x0 > 0 ? x0 : 0, y0 > 0 ? y0 : 0); /* inside the window, or nothing is drawn */
    glPixelZoom((GLfloat)zoom, (GLfloat)zoom);
    glDrawPixels(b->width, b->height, GL_RGBA, GL_UNSIGNED_BYTE, b->pixels); /* first row at the bottom */
    glutSwapBuffers();
}

/* One window unit = one pixel, origin at the bottom-left corner. */
static inline void bitmap_reshape_(int width, int height) {
    window_width = width > 0 ? width : 1;
    window_height = height > 0 ? height : 1;
    glViewport(0, 0, window_width, window_height);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glOrtho(0, window_width, 0, window_height, -1, 1);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
    glutPostRedisplay();
}

static inline void bitmap_keyboard_(unsigned char key, int x, int y) {
    (void)x;
    (void)y;
    if (key == 27 || key == 'q' || key == 'Q') glutLeaveMainLoop();
}

static inline void bitmap_close_timer_(int value) {
    (void)value;
    glutLeaveMainLoop();
}

static inline int bitmap_open_window_(const cpu_bitmap *bitmap, const char *title) {
    if (setjmp(glut_failed)) {
        glut_unusable = 1;
        bitmap_window_image_ = NULL;
        return -1;
    }
    glutInitErrorFunc(bitmap_glut_error_);
    glutInit(&glut_argc, glut_argv);
    /* Closing the window (Esc, q, the close button) returns from glutMainLoop
     * instead of exiting, and freeglut resets itself: the program carries on
     * and may open another window. */
    glutSetOption(GLUT_ACTION_ON_WINDOW_CLOSE, GLUT_ACTION_GLUTMAINLOOP_RETURNS);

    /* Start at the image's size, shrunk (same shape) to fit 90 % of the screen. */
    const int screen_width = glutGet(GLUT_SCREEN_WIDTH), screen_height = glutGet(GLUT_SCREEN_HEIGHT);
    double shrink = 1.0;
    if (screen_width > 0 && bitmap->width > 0.9 * screen_width) shrink = 0.9 * screen_width / bitmap->width;
    if (screen_height > 0 && bitmap->height * shrink > 0.9 * screen_height)
        shrink = 0.9 * screen_height / bitmap->height;
    window_width = (int)(bitmap->width * shrink);
    window_height = (int)(bitmap->height * shrink);
    bitmap_window_image_ = bitmap;

    glutInitDisplayMode(GLUT_RGBA | GLUT_DOUBLE);
    glutInitWindowSize(window_width, window_height);
    /* Centred: left to itself, X puts the window at (-1, -1), one column and
     * one row off the screen when no window manager moves it. */
    if (screen_width > 0 && screen_height > 0)
        glutInitWindowPosition((screen_width - window_width) / 2, (screen_height - window_height) / 2);
    glutCreateWindow(title);
    glDisable(GL_DITHER); /* the window must show the bytes exactly */
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glutDisplayFunc(bitmap_draw_); /* also called when the window is exposed */
    glutReshapeFunc(bitmap_reshape_);
    glutKeyboardFunc(bitmap_keyboard_);
    const char *seconds_text = getenv("EXAMPLES_WINDOW_SECONDS");
    double seconds = seconds_text ? strtod(seconds_text, NULL) : 0.0;
    if (seconds > 0) glutTimerFunc((unsigned int)(seconds * 1000.0), bitmap_close_timer_, 0);
    printf("window '%s' (%d x %d): Esc or q closes it%s\n", title, bitmap->width, bitmap->height,
           seconds > 0 ? ", or EXAMPLES_WINDOW_SECONDS" : "");
    fflush(stdout);
    glutMainLoop();
    bitmap_window_image_ = NULL;
    return 0;
}
#endif

/* 1 when this build has the GLUT window, 0 when it can only save PNGs. */
static inline int bitmap_window_built(void) {
#ifdef BITMAP_HAVE_WINDOW
    return 1;
#else
    return 0;
#endif
}

/* Shows the bitmap in a window titled `title` and returns BITMAP_SHOWN when
 * the window has closed. Where no window can open, returns BITMAP_ERROR and,
 * if why_not is not NULL, sets *why_not to a short reason (never prints). */
static inline int bitmap_show(const cpu_bitmap *bitmap, const char *title, const char **why_not) {
    const char *reason = NULL;
    if (bitmap == NULL || bitmap->pixels == NULL) {
        reason = "the bitmap is empty";
    } else {
#ifdef BITMAP_HAVE_WINDOW
        const char *display = getenv("DISPLAY");
        if (display == NULL || display[0] == '\0')
            reason = "no display: DISPLAY is not set";
        else if (glut_unusable)
            reason = "GLUT failed earlier in this run";
        else if (bitmap_open_window_(bitmap, title ? title : "bitmap") != 0)
            reason = "no window could open";
#else
        (void)title;
        reason = "this build has no GLUT window";
#endif
    }
    if (reason) {
        if (why_not) *why_not = reason;
        return BITMAP_ERROR;
    }
    return BITMAP_SHOWN;
}

/* The usual ending of a drawing example: shows the window, or, with
 * no_window set or where no window can open, saves `fallback_png_path` and
 * prints "saved PATH (why)". BITMAP_SHOWN, BITMAP_SAVED or BITMAP_ERROR
 * (the PNG could not be written). */
static inline int bitmap_show_or_save(const cpu_bitmap *bitmap, const char *title, const char *fallback_png_path,
                                      int no_window) {
    const char *why_not = "--no-window";
    if (!no_window && bitmap_show(bitmap, title, &why_not) == BITMAP_SHOWN) return BITMAP_SHOWN;
    if (bitmap_save_png(bitmap, fallback_png_path) != 0) return BITMAP_ERROR;
    printf("saved %s (%s)\n", fallback_png_path, why_not);
    fflush(stdout);
    return BITMAP_SAVED;
}

#endif
