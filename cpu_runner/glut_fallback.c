/* glut_fallback.c: a GLUT window where there is a display, a PNG where there is none.
 *
 * CUDA by Example's programs show their result in a GLUT window (common/cpu_bitmap.h,
 * cpu_anim.h: glutInit ... glutMainLoop, the image drawn with glDrawPixels). On a
 * machine without a display freeglut ends the program ("failed to open display").
 * Linked into a runner build with
 *
 *   -Wl,--wrap=glutInit,--wrap=glutInitDisplayMode,--wrap=glutInitWindowSize,
 *   --wrap=glutCreateWindow,--wrap=glutDisplayFunc,--wrap=glutKeyboardFunc,
 *   --wrap=glutMouseFunc,--wrap=glutIdleFunc,--wrap=glutReshapeFunc,
 *   --wrap=glutPostRedisplay,--wrap=glutSwapBuffers,--wrap=glutMainLoop,
 *   --wrap=glClearColor,--wrap=glClear,--wrap=glFlush,--wrap=glDrawPixels
 *   ... -lglut -lGL -lpng      (GLUT_FALLBACK_WRAP_FLAGS below spells the list)
 *
 * every call of the program goes to a __wrap_ function here, which
 *   - where there is a display (DISPLAY set, the X server answers, freeglut opens the
 *     window): passes it on to freeglut and OpenGL (__real_...): the book's window;
 *   - where there is none: records the callbacks, and glutMainLoop calls the idle
 *     function once (an animation's first frame), the reshape and display functions
 *     once, writes the pixels the last glDrawPixels was given to a PNG (RGBA, top row
 *     first, as the window shows them: OpenGL's rows run bottom up), prints one line
 *     saying where, and returns, so the program carries on and ends as it would when
 *     the window is closed.
 * The PNG is <program>.png in the current directory, or $CUDA_CPU_WINDOW_PNG.
 * CUDA_CPU_NO_WINDOW=1 writes the PNG even where there is a display.
 *
 * Kept in a static library: the object is linked only into programs that call GLUT,
 * so the others need neither freeglut nor libpng. No GL or GLUT header is needed to
 * compile it (the few types and tokens are spelled out), only libpng's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GLUT_FALLBACK_WRAP_FLAGS                                                              \
    "-Wl,--wrap=glutInit,--wrap=glutInitDisplayMode,--wrap=glutInitWindowSize,"               \
    "--wrap=glutCreateWindow,--wrap=glutDisplayFunc,--wrap=glutKeyboardFunc,"                 \
    "--wrap=glutMouseFunc,--wrap=glutIdleFunc,--wrap=glutReshapeFunc,"                        \
    "--wrap=glutPostRedisplay,--wrap=glutSwapBuffers,--wrap=glutMainLoop,"                    \
    "--wrap=glClearColor,--wrap=glClear,--wrap=glFlush,--wrap=glDrawPixels"

/* OpenGL's types and the tokens glDrawPixels is given (GL/gl.h, GL/glext.h). */
typedef unsigned int gl_enum;
enum {
    GL_UNSIGNED_BYTE_ = 0x1401,
    GL_RGB_ = 0x1907,
    GL_RGBA_ = 0x1908,
    GL_LUMINANCE_ = 0x1909,
    GL_BGR_ = 0x80E0,
    GL_BGRA_ = 0x80E1,
};

typedef void (*display_callback)(void);
typedef void (*keyboard_callback)(unsigned char, int, int);
typedef void (*mouse_callback)(int, int, int, int);
typedef void (*reshape_callback)(int, int);

void __real_glutInit(int *argc, char **argv);
void __real_glutInitDisplayMode(unsigned int mode);
void __real_glutInitWindowSize(int width, int height);
int __real_glutCreateWindow(const char *title);
void __real_glutDisplayFunc(display_callback f);
void __real_glutKeyboardFunc(keyboard_callback f);
void __real_glutMouseFunc(mouse_callback f);
void __real_glutIdleFunc(display_callback f);
void __real_glutReshapeFunc(reshape_callback f);
void __real_glutPostRedisplay(void);
void __real_glutSwapBuffers(void);
void __real_glutMainLoop(void);
void __real_glClearColor(float red, float green, float blue, float alpha);
void __real_glClear(unsigned int mask);
void __real_glFlush(void);
void __real_glDrawPixels(int width, int height, gl_enum format, gl_enum type, const void *pixels);

/* Which of the two: decided at the first call, changed only when freeglut fails. */
enum mode { UNDECIDED, WINDOW, IMAGE };
static enum mode mode_ = UNDECIDED;
static char reason_[256]; /* why there is no window: the line says it */

static display_callback display_, idle_;
static reshape_callback reshape_;
static int window_width_ = 300, window_height_ = 300; /* GLUT's default size */
static unsigned char *image_;                         /* RGBA, top row first */
static int image_width_, image_height_;

/* Does the X server named by DISPLAY answer? libX11 is asked through dlopen (it is
 * loaded anyway with freeglut), so no X11 headers or -lX11 are needed here. */
static int x_server_answers(const char *display) {
    void *x11 = dlopen("libX11.so.6", RTLD_LAZY | RTLD_LOCAL);
    if (!x11) x11 = dlopen("libX11.so", RTLD_LAZY | RTLD_LOCAL);
    if (!x11) return 1; /* cannot ask: let freeglut try, its failure is caught below */
    void *(*open_display)(const char *) = (void *(*)(const char *))dlsym(x11, "XOpenDisplay");
    int (*close_display)(void *) = (int (*)(void *))dlsym(x11, "XCloseDisplay");
    int answers = 1;
    if (open_display && close_display) {
        void *connection = open_display(display);
        answers = connection != NULL;
        if (connection) close_display(connection);
    }
    dlclose(x11);
    return answers;
}

static enum mode decide(void) {
    if (mode_ != UNDECIDED) return mode_;
    const char *display = getenv("DISPLAY");
    const char *no_window = getenv("CUDA_CPU_NO_WINDOW");
    if (no_window && *no_window && strcmp(no_window, "0") != 0)
        snprintf(reason_, sizeof reason_, "CUDA_CPU_NO_WINDOW is set");
    else if (!display || !*display)
        snprintf(reason_, sizeof reason_, "no display: DISPLAY is not set");
    else if (!x_server_answers(display))
        snprintf(reason_, sizeof reason_, "no display: the X server at DISPLAY=%.100s does not answer",
                 display);
    else
        return mode_ = WINDOW;
    return mode_ = IMAGE;
}

/* freeglut ends the program on an error (no GLX, no visual); its error function
 * (a freeglut extension, looked up so that another GLUT still links) jumps back. */
static jmp_buf glut_failed_;
static int guarding_;
static void glut_error(const char *format, va_list arguments) {
    char message[160];
    vsnprintf(message, sizeof message, format, arguments);
    if (!guarding_) { /* an error later on, in the window's life: freeglut's own ending */
        fprintf(stderr, "freeglut: %s\n", message);
        exit(1);
    }
    snprintf(reason_, sizeof reason_, "freeglut could not open a window (%.150s)", message);
    longjmp(glut_failed_, 1);
}
static void install_error_function(void) {
    void (*init_error)(void (*)(const char *, va_list)) =
        (void (*)(void (*)(const char *, va_list)))dlsym(RTLD_DEFAULT, "glutInitErrorFunc");
    if (init_error) init_error(glut_error);
}

void __wrap_glutInit(int *argc, char **argv) {
    if (decide() != WINDOW) return;
    install_error_function();
    guarding_ = 1;
    if (setjmp(glut_failed_)) {
        guarding_ = 0;
        mode_ = IMAGE;
        return;
    }
    __real_glutInit(argc, argv);
    guarding_ = 0;
}

void __wrap_glutInitDisplayMode(unsigned int display_mode) {
    if (decide() == WINDOW) __real_glutInitDisplayMode(display_mode);
}

void __wrap_glutInitWindowSize(int width, int height) {
    window_width_ = width;
    window_height_ = height;
    if (decide() == WINDOW) __real_glutInitWindowSize(width, height);
}

int __wrap_glutCreateWindow(const char *title) {
    if (decide() != WINDOW) return 1;
    guarding_ = 1;
    if (setjmp(glut_failed_)) {
        guarding_ = 0;
        mode_ = IMAGE;
        return 1;
    }
    int window = __real_glutCreateWindow(title);
    guarding_ = 0;
    return window;
}

void __wrap_glutDisplayFunc(display_callback f) {
    display_ = f;
    if (mode_ == WINDOW) __real_glutDisplayFunc(f);
}
void __wrap_glutKeyboardFunc(keyboard_callback f) {
    if (mode_ == WINDOW) __real_glutKeyboardFunc(f);
}
void __wrap_glutMouseFunc(mouse_callback f) {
    if (mode_ == WINDOW) __real_glutMouseFunc(f);
}
void __wrap_glutIdleFunc(display_callback f) {
    idle_ = f;
    if (mode_ == WINDOW) __real_glutIdleFunc(f);
}
void __wrap_glutReshapeFunc(reshape_callback f) {
    reshape_ = f;
    if (mode_ == WINDOW) __real_glutReshapeFunc(f);
}
void __wrap_glutPostRedisplay(void) {
    if (mode_ == WINDOW) __real_glutPostRedisplay();
}
void __wrap_glutSwapBuffers(void) {
    if (mode_ == WINDOW) __real_glutSwapBuffers();
}
void __wrap_glClearColor(float red, float green, float blue, float alpha) {
    if (mode_ == WINDOW) __real_glClearColor(red, green, blue, alpha);
}
void __wrap_glClear(unsigned int mask) {
    if (mode_ == WINDOW) __real_glClear(mask);
}
void __wrap_glFlush(void) {
    if (mode_ == WINDOW) __real_glFlush();
}

/* The pixels as the window would show them: RGBA, the top row first. */
void __wrap_glDrawPixels(int width, int height, gl_enum format, gl_enum type, const void *pixels) {
    if (mode_ == WINDOW) {
        __real_glDrawPixels(width, height, format, type, pixels);
        return;
    }
    int channels = format == GL_RGBA_ || format == GL_BGRA_ ? 4
                   : format == GL_RGB_ || format == GL_BGR_ ? 3
                   : format == GL_LUMINANCE_                ? 1
                                                            : 0;
    if (type != GL_UNSIGNED_BYTE_ || channels == 0 || width <= 0 || height <= 0 || !pixels) {
        printf("CPU runner: glDrawPixels(format 0x%x, type 0x%x) is not saved to a PNG "
               "(only unsigned bytes in RGBA, RGB, BGRA, BGR or LUMINANCE)\n",
               format, type);
        return;
    }
    unsigned char *image = (unsigned char *)malloc((size_t)width * height * 4);
    if (!image) return;
    const unsigned char *source = (const unsigned char *)pixels;
    /* GL_UNPACK_ALIGNMENT 4, OpenGL's default: each row starts at a multiple of 4. */
    const size_t row_bytes = ((size_t)width * channels + 3) / 4 * 4;
    for (int y = 0; y < height; ++y) {
        const unsigned char *row = source + (size_t)(height - 1 - y) * row_bytes;
        unsigned char *out = image + (size_t)y * width * 4;
        for (int x = 0; x < width; ++x, row += channels, out += 4) {
            if (channels == 1) {
                out[0] = out[1] = out[2] = row[0];
                out[3] = 255;
            } else {
                const int swap = format == GL_BGRA_ || format == GL_BGR_;
                out[0] = row[swap ? 2 : 0];
                out[1] = row[1];
                out[2] = row[swap ? 0 : 2];
                out[3] = channels == 4 ? row[3] : 255;
            }
        }
    }
    free(image_);
    image_ = image;
    image_width_ = width;
    image_height_ = height;
}

static void save_image(void) {
    char name[4096];
    const char *chosen = getenv("CUDA_CPU_WINDOW_PNG");
    if (chosen && *chosen)
        snprintf(name, sizeof name, "%s", chosen);
    else
        snprintf(name, sizeof name, "%s.png",
                 program_invocation_short_name && *program_invocation_short_name
                     ? program_invocation_short_name
                     : "window");
    if (!image_) {
        printf("CPU runner: %s: the window would show nothing (no glDrawPixels), no PNG written\n",
               reason_);
        fflush(stdout);
        return;
    }
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    png.width = (png_uint_32)image_width_;
    png.height = (png_uint_32)image_height_;
    png.format = PNG_FORMAT_RGBA;
    errno = 0;
    if (png_image_write_to_file(&png, name, 0, image_, 0, NULL))
        printf("CPU runner: %s: the window's image (%dx%d) was written to %s\n", reason_,
               image_width_, image_height_, name);
    else
        printf("CPU runner: %s: the window's image could not be written to %s: %s\n", reason_, name,
               errno ? strerror(errno) : png.message);
    png_image_free(&png);
    fflush(stdout);
}

void __wrap_glutMainLoop(void) {
    if (decide() == WINDOW) {
        __real_glutMainLoop();
        return;
    }
    if (idle_) idle_(); /* an animation draws its first frame */
    if (reshape_) reshape_(window_width_, window_height_);
    if (display_) display_();
    save_image();
}
