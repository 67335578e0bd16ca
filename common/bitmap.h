/* The CPU bitmap of CUDA by Example, modern: a width x height RGBA image a program fills,
 * then shows in a window or saves as PNG. Plain C, header-only, no GPU; link -lpng (the
 * window: -lglut -lGL, when <GL/freeglut.h> is found and BITMAP_NO_WINDOW is not defined).
 * pixels[0 .. 4 * width) is the BOTTOM row, as in the book and OpenGL; the PNG code flips
 * rows, so a saved file looks like the window. A save never destroys what was there.
 * The window: Esc or q closes it; it redraws when exposed and scales when resized, then the
 * program goes on. EXAMPLES_WINDOW_SECONDS=N closes it N seconds after the first draw.
 * Without GLUT, a display, or when asked, the image is saved as PNG instead. */
#ifndef COMMON_BITMAP_H
#define COMMON_BITMAP_H

#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if !defined(BITMAP_NO_WINDOW) && defined(__has_include)
#if __has_include(<GL/freeglut.h>)
#define BITMAP_HAVE_WINDOW 1
#include <GL/freeglut.h>
#include <setjmp.h>
#include <stdarg.h>
#endif
#endif

typedef struct {
    int width, height;
    unsigned char *pixels; /* width * height * 4 bytes: R, G, B, A; row 0 = bottom */
} cpu_bitmap;

enum bitmap_outcome { BITMAP_ERROR = -1, BITMAP_SHOWN = 0, BITMAP_SAVED = 1 };

#define BITMAP_MAX_SIDE 32768 /* far beyond any screen; keeps width * height * 4 well inside size_t */

// ---------------------------------------------------------------------------
// Memory.

/* Allocates width x height pixels, all zero (transparent black). 0 on success; -1 (an empty bitmap,
 * a line on stderr) for a side below 1 or above BITMAP_MAX_SIDE, or when memory runs out. */
static inline int bitmap_create(cpu_bitmap *bitmap, int width, int height) {
    memset(bitmap, 0, sizeof *bitmap);
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
    bitmap->width = width, bitmap->height = height;
    return 0;
}

/* Frees the pixels and leaves an empty bitmap; freeing an empty one is fine. */
static inline void bitmap_free(cpu_bitmap *bitmap) {
    free(bitmap->pixels);
    memset(bitmap, 0, sizeof *bitmap);
}

/* width * height * 4: the bytes to copy into pixels. */
static inline size_t bitmap_size_bytes(const cpu_bitmap *bitmap) {
    return (size_t)bitmap->width * (size_t)bitmap->height * 4;
}

/* The 4 bytes of pixel (x, y), y counted from the bottom row; NULL outside. */
static inline unsigned char *bitmap_pixel(const cpu_bitmap *bitmap, int x, int y) {
    if (x < 0 || y < 0 || x >= bitmap->width || y >= bitmap->height) return NULL;
    return bitmap->pixels + ((size_t)y * (size_t)bitmap->width + (size_t)x) * 4;
}

// ---------------------------------------------------------------------------
// Saving a PNG without ever losing a file.

/* Writes an 8-bit RGBA PNG to `path` by way of `path`.tmp.XXXXXX renamed over it (a reader sees the
 * old file or the new one, never half of one), with the old file's permissions or 0666 less the
 * umask. 0 on success; -1 with a line on stderr, the temporary file removed, the old file as it was.
 * The rename would replace a link, a device or a pipe, not write through it: refused, as is a file
 * with no write permission bit (for root too) or one we may not write. */
static inline int bitmap_save_png(const cpu_bitmap *bitmap, const char *path) {
    struct stat old;
    png_image image; /* its message outlives the write */
    const int exists = path && lstat(path, &old) == 0;
    const char *failure = NULL;
    char temporary[4160];
    snprintf(temporary, sizeof temporary, "%s.tmp.XXXXXX", path ? path : "");
    int descriptor = -1;
    FILE *file = NULL;
    if (bitmap == NULL || bitmap->pixels == NULL || path == NULL || path[0] == '\0')
        failure = "an empty bitmap, or no path";
    else if (exists && !S_ISREG(old.st_mode))
        failure = S_ISLNK(old.st_mode) ? "it is a symbolic link (name the file it points to)"
                                       : "it is not a regular file (a directory, a device or a pipe)";
    else if (exists && ((old.st_mode & 0222) == 0 || access(path, W_OK) != 0))
        failure = "it is read-only, or you may not write it";
    else if ((descriptor = mkstemp(temporary)) < 0 || (file = fdopen(descriptor, "wb")) == NULL)
        failure = strerror(errno); /* mkstemp: the directory is missing, or not ours to write */
    if (file == NULL && descriptor >= 0) close(descriptor);
    if (file) {
        const mode_t mask = umask(0);
        umask(mask);
        memset(&image, 0, sizeof image);
        image.version = PNG_IMAGE_VERSION;
        image.width = (png_uint_32)bitmap->width;
        image.height = (png_uint_32)bitmap->height;
        image.format = PNG_FORMAT_RGBA;
        errno = 0; /* a negative row stride: the buffer holds the bottom row first */
        if (!png_image_write_to_stdio(&image, file, 0, bitmap->pixels, -(png_int_32)(4 * bitmap->width), NULL))
            failure = errno ? strerror(errno) : image.message;
        else if (fflush(file) != 0 || fsync(descriptor) != 0 ||
                 fchmod(descriptor, exists ? old.st_mode & 07777 : 0666 & ~mask) != 0)
            failure = strerror(errno); /* a full disk shows here at the latest */
        if (fclose(file) != 0 && failure == NULL) failure = strerror(errno);
    }
    if (failure == NULL && rename(temporary, path) != 0) failure = strerror(errno);
    if (failure && descriptor >= 0) unlink(temporary); /* ours: the only file a failed save removes */
    if (failure)
        fprintf(stderr, "bitmap: cannot write PNG '%s': %s (nothing there was changed)\n", path ? path : "", failure);
    return failure ? -1 : 0;
}

// ---------------------------------------------------------------------------
// The window (freeglut). One window at a time: the callbacks find what to draw in these variables.

#ifdef BITMAP_HAVE_WINDOW

static const cpu_bitmap *bitmap_window_image_;
static int bitmap_window_width_, bitmap_window_height_, bitmap_window_drawn_;
static unsigned bitmap_window_close_ms_; /* 0: stays until Esc or q */

/* freeglut calls exit() on a fatal error (no display, no suitable visual). Our error function jumps
 * back instead, so the program can save a PNG; GLUT, in an unknown state then, is never called again. */
static jmp_buf bitmap_glut_failed_;
static int bitmap_glut_unusable_, bitmap_glut_argc_ = 1;
static char bitmap_glut_program_name_[] = "bitmap", *bitmap_glut_argv_[] = {bitmap_glut_program_name_, NULL};

static inline void bitmap_glut_error_(const char *format, va_list arguments) {
    fprintf(stderr, "bitmap: GLUT: ");
    vfprintf(stderr, format, arguments);
    fprintf(stderr, "\n");
    longjmp(bitmap_glut_failed_, 1);
}

static inline void bitmap_close_timer_(int value) { (void)value, glutLeaveMainLoop(); }

/* Draws the image scaled to fit the window (keeping its shape), centred on black. The close timer
 * starts at the first draw: the image is shown the whole EXAMPLES_WINDOW_SECONDS, however slow the window. */
static inline void bitmap_draw_(void) {
    const cpu_bitmap *b = bitmap_window_image_;
    double zoom_x = (double)bitmap_window_width_ / b->width, zoom_y = (double)bitmap_window_height_ / b->height;
    double zoom = zoom_x < zoom_y ? zoom_x : zoom_y;
    int x0 = (int)((bitmap_window_width_ - zoom * b->width) / 2);
    int y0 = (int)((bitmap_window_height_ - zoom * b->height) / 2);
    glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glRasterPos2i(x0 > 0 ? x0 : 0, y0 > 0 ? y0 : 0); /* inside the window, or nothing is drawn */
    glPixelZoom((GLfloat)zoom, (GLfloat)zoom);
    glDrawPixels(b->width, b->height, GL_RGBA, GL_UNSIGNED_BYTE, b->pixels); /* first row at the bottom */
    glutSwapBuffers();
    if (bitmap_window_close_ms_ && !bitmap_window_drawn_)
        glutTimerFunc(bitmap_window_close_ms_, bitmap_close_timer_, 0);
    bitmap_window_drawn_ = 1;
}

/* One window unit = one pixel, origin at the bottom-left corner. */
static inline void bitmap_reshape_(int width, int height) {
    bitmap_window_width_ = width > 0 ? width : 1;
    bitmap_window_height_ = height > 0 ? height : 1;
    glViewport(0, 0, bitmap_window_width_, bitmap_window_height_);
    glMatrixMode(GL_PROJECTION);
    glLoadIdentity();
    glOrtho(0, bitmap_window_width_, 0, bitmap_window_height_, -1, 1);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
    glutPostRedisplay();
}

static inline void bitmap_keyboard_(unsigned char key, int x, int y) {
    (void)x, (void)y;
    if (key == 27 || key == 'q' || key == 'Q') glutLeaveMainLoop();
}

/* Opens the window and returns when it has closed: 0, or -1 when GLUT failed. */
static inline int bitmap_open_window_(const cpu_bitmap *bitmap, const char *title) {
    if (setjmp(bitmap_glut_failed_)) {
        bitmap_glut_unusable_ = 1;
        bitmap_window_image_ = NULL;
        return -1;
    }
    glutInitErrorFunc(bitmap_glut_error_);
    glutInit(&bitmap_glut_argc_, bitmap_glut_argv_);
    /* Closing the window (Esc, q, the close button) returns from glutMainLoop instead of exiting,
     * and freeglut resets itself for the next window. */
    glutSetOption(GLUT_ACTION_ON_WINDOW_CLOSE, GLUT_ACTION_GLUTMAINLOOP_RETURNS);

    /* The image's size, shrunk (same shape) to fit 90 % of the screen. */
    const int screen_width = glutGet(GLUT_SCREEN_WIDTH), screen_height = glutGet(GLUT_SCREEN_HEIGHT);
    double shrink = 1.0;
    if (screen_width > 0 && bitmap->width > 0.9 * screen_width) shrink = 0.9 * screen_width / bitmap->width;
    if (screen_height > 0 && bitmap->height * shrink > 0.9 * screen_height)
        shrink = 0.9 * screen_height / bitmap->height;
    bitmap_window_width_ = (int)(bitmap->width * shrink);
    bitmap_window_height_ = (int)(bitmap->height * shrink);
    bitmap_window_image_ = bitmap;
    const char *seconds_text = getenv("EXAMPLES_WINDOW_SECONDS");
    const double seconds = seconds_text ? strtod(seconds_text, NULL) : 0.0;
    bitmap_window_close_ms_ = seconds > 0 ? (unsigned)(seconds * 1000.0) : 0;
    bitmap_window_drawn_ = 0;

    glutInitDisplayMode(GLUT_RGBA | GLUT_DOUBLE);
    glutInitWindowSize(bitmap_window_width_, bitmap_window_height_);
    /* Centred: left to itself, X puts it at (-1, -1), a column and a row off screen without a window manager. */
    if (screen_width > 0 && screen_height > 0)
        glutInitWindowPosition((screen_width - bitmap_window_width_) / 2, (screen_height - bitmap_window_height_) / 2);
    glutCreateWindow(title);
    glDisable(GL_DITHER); /* the window must show the bytes exactly */
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glutDisplayFunc(bitmap_draw_); /* also called when the window is exposed */
    glutReshapeFunc(bitmap_reshape_);
    glutKeyboardFunc(bitmap_keyboard_);
    printf("window '%s' (%d x %d): Esc or q closes it%s\n", title, bitmap->width, bitmap->height,
           seconds > 0 ? ", or EXAMPLES_WINDOW_SECONDS" : "");
    fflush(stdout);
    glutMainLoop();
    bitmap_window_image_ = NULL;
    return 0;
}
#endif

// ---------------------------------------------------------------------------
// Showing: the window where there can be one, a PNG otherwise.

/* Shows the bitmap in a window titled `title`; BITMAP_SHOWN when the window has closed. Where none can
 * open, BITMAP_ERROR and, if why_not is not NULL, a short reason in *why_not (it never prints). */
static inline int bitmap_show(const cpu_bitmap *bitmap, const char *title, const char **why_not) {
    const char *reason = NULL;
    if (bitmap == NULL || bitmap->pixels == NULL) {
        reason = "the bitmap is empty";
    } else {
#ifdef BITMAP_HAVE_WINDOW
        const char *display = getenv("DISPLAY");
        if (display == NULL || display[0] == '\0')
            reason = "no display: DISPLAY is not set";
        else if (bitmap_glut_unusable_)
            reason = "GLUT failed earlier in this run";
        else if (bitmap_open_window_(bitmap, title ? title : "bitmap") != 0)
            reason = "no window could open";
#else
        (void)title;
        reason = "this build has no GLUT window";
#endif
    }
    if (reason && why_not) *why_not = reason;
    return reason ? BITMAP_ERROR : BITMAP_SHOWN;
}

/* The usual ending of a drawing example: the window or, with no_window set or where none can open,
 * the PNG `fallback` saved and "saved PATH (why)" printed. BITMAP_SHOWN, BITMAP_SAVED or
 * BITMAP_ERROR (the PNG could not be written: a line on stderr says why). */
static inline int bitmap_show_or_save(const cpu_bitmap *bitmap, const char *title, const char *fallback,
                                      int no_window) {
    const char *why_not = "--no-window";
    if (!no_window && bitmap_show(bitmap, title, &why_not) == BITMAP_SHOWN) return BITMAP_SHOWN;
    if (bitmap_save_png(bitmap, fallback) != 0) return BITMAP_ERROR;
    printf("saved %s (%s)\n", fallback, why_not);
    fflush(stdout);
    return BITMAP_SAVED;
}

#endif
