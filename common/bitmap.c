/* The CPU bitmap: PNG through libpng, a window through freeglut. See bitmap.h. */
#include "bitmap.h"

#include <errno.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BITMAP_MAX_SIDE 32768 /* far beyond any screen; keeps width * height * 4 well inside size_t */

// ---------------------------------------------------------------------------
// Memory.

int bitmap_create(cpu_bitmap *bitmap, int width, int height) {
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

void bitmap_free(cpu_bitmap *bitmap) {
    free(bitmap->pixels);
    bitmap->pixels = NULL;
    bitmap->width = bitmap->height = 0;
}

size_t bitmap_size_bytes(const cpu_bitmap *bitmap) { return (size_t)bitmap->width * (size_t)bitmap->height * 4; }

unsigned char *bitmap_pixel(const cpu_bitmap *bitmap, int x, int y) {
    if (x < 0 || y < 0 || x >= bitmap->width || y >= bitmap->height) return NULL;
    return bitmap->pixels + ((size_t)y * (size_t)bitmap->width + (size_t)x) * 4;
}

// ---------------------------------------------------------------------------
// PNG, through libpng's simplified API (libpng 1.6+). A negative row stride
// tells libpng that the buffer holds the bottom row first: that is our row
// order, and the file gets the usual top row first.

int bitmap_save_png(const cpu_bitmap *bitmap, const char *path) {
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

int bitmap_load_png(cpu_bitmap *bitmap, const char *path) {
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

int bitmap_path_writable(const char *path) {
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
// to draw in window_bitmap.

#ifdef EXAMPLES_HAVE_GLUT
#include <GL/freeglut.h>
#include <setjmp.h>
#include <stdarg.h>

static const cpu_bitmap *window_bitmap;
static int window_width, window_height;

/* freeglut calls exit() on a fatal error (no display, no suitable visual).
 * Our error function jumps back instead, so the program saves a PNG; after
 * that GLUT is in an unknown state and is never called again. */
static jmp_buf glut_failed;
static int glut_unusable;
static char glut_program_name[] = "bitmap";
static char *glut_argv[] = {glut_program_name, NULL};
static int glut_argc = 1;

static void glut_error(const char *format, va_list arguments) {
    fprintf(stderr, "bitmap: GLUT: ");
    vfprintf(stderr, format, arguments);
    fprintf(stderr, "\n");
    longjmp(glut_failed, 1);
}

/* Scales the image to fit the window (keeping its shape), centred on black. */
static void draw(void) {
    const cpu_bitmap *b = window_bitmap;
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
static void reshape(int width, int height) {
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

static void keyboard(unsigned char key, int x, int y) {
    (void)x;
    (void)y;
    if (key == 27 || key == 'q' || key == 'Q') glutLeaveMainLoop();
}

static void close_timer(int value) {
    (void)value;
    glutLeaveMainLoop();
}

static int open_glut_window(const cpu_bitmap *bitmap, const char *title) {
    if (setjmp(glut_failed)) {
        glut_unusable = 1;
        window_bitmap = NULL;
        return -1;
    }
    glutInitErrorFunc(glut_error);
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
    window_bitmap = bitmap;

    glutInitDisplayMode(GLUT_RGBA | GLUT_DOUBLE);
    glutInitWindowSize(window_width, window_height);
    /* Centred: left to itself, X puts the window at (-1, -1), one column and
     * one row off the screen when no window manager moves it. */
    if (screen_width > 0 && screen_height > 0)
        glutInitWindowPosition((screen_width - window_width) / 2, (screen_height - window_height) / 2);
    glutCreateWindow(title);
    glDisable(GL_DITHER); /* the window must show the bytes exactly */
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glutDisplayFunc(draw); /* also called when the window is exposed */
    glutReshapeFunc(reshape);
    glutKeyboardFunc(keyboard);
    const char *seconds_text = getenv("EXAMPLES_WINDOW_SECONDS");
    double seconds = seconds_text ? strtod(seconds_text, NULL) : 0.0;
    if (seconds > 0) glutTimerFunc((unsigned int)(seconds * 1000.0), close_timer, 0);
    printf("window '%s' (%d x %d): Esc or q closes it%s\n", title, bitmap->width, bitmap->height,
           seconds > 0 ? ", or EXAMPLES_WINDOW_SECONDS" : "");
    fflush(stdout);
    glutMainLoop();
    window_bitmap = NULL;
    return 0;
}
#endif

int bitmap_window_built(void) {
#ifdef EXAMPLES_HAVE_GLUT
    return 1;
#else
    return 0;
#endif
}

int bitmap_show(const cpu_bitmap *bitmap, const char *title, const char **why_not) {
    const char *reason = NULL;
    if (bitmap == NULL || bitmap->pixels == NULL) {
        reason = "the bitmap is empty";
    } else {
#ifdef EXAMPLES_HAVE_GLUT
        const char *display = getenv("DISPLAY");
        if (display == NULL || display[0] == '\0')
            reason = "no display: DISPLAY is not set";
        else if (glut_unusable)
            reason = "GLUT failed earlier in this run";
        else if (open_glut_window(bitmap, title ? title : "bitmap") != 0)
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

int bitmap_show_or_save(const cpu_bitmap *bitmap, const char *title, const char *fallback_png_path, int no_window) {
    const char *why_not = "--no-window";
    if (!no_window && bitmap_show(bitmap, title, &why_not) == BITMAP_SHOWN) return BITMAP_SHOWN;
    if (bitmap_save_png(bitmap, fallback_png_path) != 0) return BITMAP_ERROR;
    printf("saved %s (%s)\n", fallback_png_path, why_not);
    fflush(stdout);
    return BITMAP_SAVED;
}
