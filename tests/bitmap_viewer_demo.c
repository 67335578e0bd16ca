/* bitmap_viewer_demo: shows two known images, one window after the other, so
 * a test can check the viewer (common/bitmap.h) without a GPU.
 *
 *   bitmap_viewer_demo --out PREFIX [--no-window] [--require-window]
 *   bitmap_viewer_demo --window-built      exit 0 if built with GLUT, else 77
 *
 * Saves PREFIX_expected_1.png and PREFIX_expected_2.png (the images as given),
 * then shows each in a window titled "bitmap_viewer_demo 1" / "... 2"; where
 * no window opens it saves PREFIX_1.png / PREFIX_2.png instead and checks
 * that the saved file reads back equal to the image. The second window proves
 * that control returns after the first closes. Set EXAMPLES_WINDOW_SECONDS so
 * the windows close by themselves. Exit 0 when all went as asked, 1 if not,
 * 2 for a bad command line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap_load.h"

/* Two images that look different from every side: a flipped or shifted
 * picture cannot match. Sizes are odd on purpose. */
static void fill_pattern(cpu_bitmap *b, int which) {
    for (int y = 0; y < b->height; ++y)
        for (int x = 0; x < b->width; ++x) {
            unsigned char *p = bitmap_pixel(b, x, y);
            if (which == 1) {
                p[0] = (unsigned char)(x * 255 / (b->width - 1));
                p[1] = (unsigned char)(y * 255 / (b->height - 1));
                p[2] = ((x / 8 + y / 8) % 2) ? 200 : 40;
            } else {
                p[0] = (unsigned char)((x * y) & 255);
                p[1] = (unsigned char)(255 - (x & 255));
                p[2] = (unsigned char)((3 * y + 1) & 255);
            }
            p[3] = 255;
        }
    /* A white square in the bottom-left corner: where row 0 ends up. */
    for (int y = 0; y < 12; ++y)
        for (int x = 0; x < 12; ++x)
            memset(bitmap_pixel(b, x, y), 255, 4);
}

static int same_pixels(const cpu_bitmap *a, const cpu_bitmap *b) {
    return a->width == b->width && a->height == b->height && memcmp(a->pixels, b->pixels, bitmap_size_bytes(a)) == 0;
}

int main(int argc, char **argv) {
    const char *prefix = NULL;
    int no_window = 0, require_window = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--window-built") == 0) {
#ifdef BITMAP_HAVE_WINDOW
            printf("bitmap viewer window: built (GLUT)\n");
            return 0;
#else
            printf("bitmap viewer window: not built (no GLUT)\n");
            return 77;
#endif
        } else if (strcmp(argv[i], "--no-window") == 0) {
            no_window = 1;
        } else if (strcmp(argv[i], "--require-window") == 0) {
            require_window = 1;
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            prefix = argv[++i];
        } else {
            fprintf(stderr, "bitmap_viewer_demo: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (prefix == NULL || strlen(prefix) > 900) {
        fprintf(stderr, "bitmap_viewer_demo: --out PREFIX is needed\n");
        return 2;
    }

    static const int sizes[2][2] = {{203, 157}, {161, 119}};
    int failures = 0;
    for (int which = 1; which <= 2; ++which) {
        char expected_path[1024], fallback_path[1024], title[64];
        snprintf(expected_path, sizeof expected_path, "%s_expected_%d.png", prefix, which);
        snprintf(fallback_path, sizeof fallback_path, "%s_%d.png", prefix, which);
        snprintf(title, sizeof title, "bitmap_viewer_demo %d", which);
        cpu_bitmap image, saved;
        if (bitmap_create(&image, sizes[which - 1][0], sizes[which - 1][1]) != 0) return 1;
        fill_pattern(&image, which);
        if (bitmap_save_png(&image, expected_path) != 0) return 1;

        int outcome = bitmap_show_or_save(&image, title, fallback_path, no_window);
        if (outcome == BITMAP_SHOWN) {
            printf("%s: shown, window closed\n", title);
        } else if (outcome == BITMAP_SAVED) {
            if (bitmap_load_png(&saved, fallback_path) != 0 || !same_pixels(&image, &saved)) {
                printf("%s: FAIL: %s does not read back equal to the image\n", title, fallback_path);
                ++failures;
            } else {
                printf("%s: %s reads back equal to the image\n", title, fallback_path);
            }
            bitmap_free(&saved);
            if (require_window) {
                printf("%s: FAIL: a window was required\n", title);
                ++failures;
            }
        } else {
            ++failures;
        }
        bitmap_free(&image);
    }
    return failures ? 1 : 0;
}
