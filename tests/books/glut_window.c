/* glut_window.c: calls GLUT the way CUDA by Example's common/cpu_bitmap.h does
 * (glutInit with one empty argument, a single-buffered RGBA window of the
 * image's size, a keyboard and a display function, glutMainLoop; the display
 * function clears and draws the pixels with glDrawPixels), for the tests of
 * cpu_runner/glut_fallback.c. The image is 64 x 48, not square, and no two of
 * its pixels are alike, so a transposed, flipped or shifted PNG is caught.
 *
 *   glut_window              open the window / write the PNG, print "returned"
 *   glut_window --check PNG  exit 0 when PNG holds exactly the image the window shows
 */
#include <GL/glut.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WIDTH = 64, HEIGHT = 48 };
static unsigned char pixels[WIDTH * HEIGHT * 4]; /* OpenGL's order: the bottom row first */

/* The pixel in OpenGL row r (0 = bottom), column c. */
static void expected(int r, int c, unsigned char out[4]) {
    out[0] = (unsigned char)(c * 4);
    out[1] = (unsigned char)(r * 5);
    out[2] = (unsigned char)(c ^ r);
    out[3] = (unsigned char)(255 - c);
}

static void key(unsigned char k, int x, int y) {
    (void)x, (void)y;
    if (k == 27) exit(0);
}

static void draw(void) {
    glClearColor(0.0, 0.0, 0.0, 1.0);
    glClear(GL_COLOR_BUFFER_BIT);
    glDrawPixels(WIDTH, HEIGHT, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    glFlush();
}

static int check(const char *path) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) {
        printf("FAIL: cannot read %s: %s\n", path, image.message);
        return 1;
    }
    if (image.width != WIDTH || image.height != HEIGHT) {
        printf("FAIL: %s is %ux%u, the window %dx%d\n", path, image.width, image.height, WIDTH, HEIGHT);
        return 1;
    }
    image.format = PNG_FORMAT_RGBA;
    static unsigned char read[WIDTH * HEIGHT * 4];
    if (!png_image_finish_read(&image, NULL, read, 0, NULL)) {
        printf("FAIL: cannot decode %s: %s\n", path, image.message);
        return 1;
    }
    for (int y = 0; y < HEIGHT; ++y) /* the PNG's top row is the window's top: OpenGL row HEIGHT-1 */
        for (int x = 0; x < WIDTH; ++x) {
            unsigned char want[4];
            expected(HEIGHT - 1 - y, x, want);
            const unsigned char *got = read + (y * WIDTH + x) * 4;
            if (memcmp(got, want, 4) != 0) {
                printf("FAIL: %s at x=%d y=%d (from the top): %u %u %u %u, the window shows %u %u %u %u\n",
                       path, x, y, got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
                return 1;
            }
        }
    printf("%s holds the window's image\n", path);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--check") == 0) return check(argv[2]);
    for (int r = 0; r < HEIGHT; ++r)
        for (int c = 0; c < WIDTH; ++c) expected(r, c, pixels + (r * WIDTH + c) * 4);
    int count = 1;
    char empty[] = "";
    char *dummy = empty;
    glutInit(&count, &dummy);
    glutInitDisplayMode(GLUT_SINGLE | GLUT_RGBA);
    glutInitWindowSize(WIDTH, HEIGHT);
    glutCreateWindow("bitmap");
    glutKeyboardFunc(key);
    glutDisplayFunc(draw);
    glutMainLoop();
    printf("returned\n");
    return 0;
}
