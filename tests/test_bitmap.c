/* Unit tests of common/bitmap.h without a display: the PNG round trip, the
 * row order in the file, bad input that must give an error, not a crash, and
 * the saving rules: no save ever destroys a file that was there (a read-only
 * file, a write-only one, /dev/full, a pipe, a symbolic link, a write that
 * fails half way). Everything happens in a fresh temporary directory, and the
 * test removes only files it created. Run as root, the cases that root would
 * pass for the wrong reason also run in a child process that became nobody. */
#include <dirent.h>
#include <grp.h>
#include <png.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bitmap_load.h"
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

static void write_bytes(const char *path, const char *bytes, size_t size) {
    FILE *file = fopen(path, "wb");
    if (file) {
        fwrite(bytes, 1, size, file);
        fclose(file);
    }
}

/* 1 when `path` holds exactly `bytes` (read as root or through a mode we set). */
static int holds(const char *path, const char *bytes) {
    char buffer[256];
    FILE *file = fopen(path, "rb");
    if (file == NULL) return 0;
    size_t size = fread(buffer, 1, sizeof buffer, file);
    fclose(file);
    return size == strlen(bytes) && memcmp(buffer, bytes, size) == 0;
}

static mode_t mode_of(const char *path) {
    struct stat status;
    return lstat(path, &status) == 0 ? status.st_mode : 0;
}

/* The entries of `directory` besides . and .. (a leftover temporary file shows here). */
static int entries_in(const char *directory) {
    int count = 0;
    DIR *dir = opendir(directory);
    if (dir == NULL) return -1;
    for (struct dirent *entry; (entry = readdir(dir)) != NULL;)
        count += strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0;
    closedir(dir);
    return count;
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
    const char *path = "round_trip.png";
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

    /* A 1 x 1 image, under an upper-case name. */
    cpu_bitmap tiny, tiny_read;
    CHECK(bitmap_create(&tiny, 1, 1) == 0);
    memcpy(tiny.pixels, "\x01\x02\x03\x04", 4);
    CHECK(bitmap_save_png(&tiny, "TINY.PNG") == 0);
    CHECK(bitmap_load_png(&tiny_read, "TINY.PNG") == 0 && same_pixels(&tiny, &tiny_read));
    bitmap_free(&tiny);
    bitmap_free(&tiny_read);

    /* Saving over an existing file replaces it and keeps its permissions; a
     * new file gets 0666 less the umask; no temporary file is left. */
    fill_distinct(&read);
    read.pixels[0] ^= 0xFF;
    chmod(path, 0640);
    CHECK(bitmap_save_png(&read, path) == 0);
    CHECK((mode_of(path) & 07777) == 0640);
    cpu_bitmap again;
    CHECK(bitmap_load_png(&again, path) == 0 && same_pixels(&read, &again) && !same_pixels(&written, &again));
    mode_t old_mask = umask(022);
    CHECK(bitmap_save_png(&read, "fresh.png") == 0 && (mode_of("fresh.png") & 07777) == 0644);
    umask(old_mask);
    CHECK(entries_in(".") == 3);
    bitmap_free(&again);
    bitmap_free(&written);
    bitmap_free(&read);
    remove(path);
    remove("TINY.PNG");
    remove("fresh.png");
}

static void test_bad_input(void) {
    cpu_bitmap b, empty = {0, 0, NULL};
    CHECK(bitmap_load_png(&b, "no_such_directory/no_such_file.png") == -1 && b.pixels == NULL);
    CHECK(bitmap_load_png(&b, NULL) == -1 && b.pixels == NULL);

    write_bytes("not_a.png", "this is not a PNG file\n", 23);
    CHECK(bitmap_load_png(&b, "not_a.png") == -1 && b.pixels == NULL);
    remove("not_a.png");

    /* A PNG cut in half: the header reads, the pixels do not. */
    cpu_bitmap big;
    CHECK(bitmap_create(&big, 64, 64) == 0);
    fill_distinct(&big);
    CHECK(bitmap_save_png(&big, "whole.png") == 0);
    FILE *file = fopen("whole.png", "rb");
    char buffer[65536];
    size_t size = file ? fread(buffer, 1, sizeof buffer, file) : 0;
    if (file) fclose(file);
    CHECK(size > 200);
    write_bytes("cut.png", buffer, size / 2);
    CHECK(bitmap_load_png(&b, "cut.png") == -1 && b.pixels == NULL);
    remove("cut.png");
    remove("whole.png");

    CHECK(bitmap_save_png(&big, "no_such_directory/out.png") == -1);
    CHECK(bitmap_save_png(&big, NULL) == -1);
    CHECK(bitmap_save_png(&empty, "empty.png") == -1);

    const char *why = NULL;
    CHECK(bitmap_show(&empty, "empty", &why) == BITMAP_ERROR && why != NULL);
    CHECK(bitmap_show_or_save(&empty, "empty", "empty.png", 1) == BITMAP_ERROR);
    CHECK(bitmap_show_or_save(&big, "fallback", "no_such_directory/out.png", 1) == BITMAP_ERROR);

    /* --no-window: saved, and the file holds the image. */
    CHECK(bitmap_show_or_save(&big, "fallback", "fallback.png", 1) == BITMAP_SAVED);
    CHECK(bitmap_load_png(&b, "fallback.png") == 0 && same_pixels(&big, &b));
    bitmap_free(&b);
    remove("fallback.png");
    bitmap_free(&big);
    CHECK(entries_in(".") == 0);
}

/* The targets bitmap_save_png refuses, each left exactly as it was, with no temporary file beside it. */
static void test_save_refusals_touch_nothing(void) {
    cpu_bitmap image;
    CHECK(bitmap_create(&image, 16, 16) == 0);
    fill_distinct(&image);

    write_bytes("read_only.png", "keep me", 7);
    chmod("read_only.png", 0444);
    CHECK(bitmap_save_png(&image, "read_only.png") == -1);
    CHECK(holds("read_only.png", "keep me") && (mode_of("read_only.png") & 07777) == 0444);
    remove("read_only.png");

    /* /dev/full: once the example deleted it (libpng removes its target on
     * failure). Now it is refused, not a regular file, and a link to it too.
     * Root tries a copy of the device here, so that a broken bitmap.h replaces
     * the copy, not the machine's /dev/full (a container may forbid mknod). */
    struct stat before, after;
    CHECK(stat("/dev/full", &before) == 0 && S_ISCHR(before.st_mode));
    const char *device = mknod("full", S_IFCHR | 0666, before.st_rdev) == 0 ? "full" : "/dev/full";
    CHECK(bitmap_save_png(&image, device) == -1);
    CHECK(symlink(device, "full.png") == 0 && bitmap_save_png(&image, "full.png") == -1);
    CHECK(S_ISLNK(mode_of("full.png")));
    remove("full.png");
    CHECK(stat(device, &after) == 0 && S_ISCHR(after.st_mode) && after.st_rdev == before.st_rdev);
    if (device[0] != '/') remove(device);
    /* A link to a file: the rename would replace the link, not write the file it points to. */
    write_bytes("target.png", "keep me", 7);
    CHECK(symlink("target.png", "link.png") == 0 && bitmap_save_png(&image, "link.png") == -1);
    CHECK(S_ISLNK(mode_of("link.png")) && holds("target.png", "keep me"));
    remove("link.png");
    remove("target.png");

    /* A pipe: never opened (opening it to write would wait for a reader), nor replaced. */
    CHECK(mkfifo("pipe.png", 0644) == 0 && bitmap_save_png(&image, "pipe.png") == -1);
    CHECK(S_ISFIFO(mode_of("pipe.png")));
    remove("pipe.png");
    CHECK(mkdir("directory.png", 0755) == 0 && bitmap_save_png(&image, "directory.png") == -1);
    CHECK(S_ISDIR(mode_of("directory.png")) && entries_in("directory.png") == 0);
    CHECK(bitmap_save_png(&image, "directory.png/inside.png") == 0 && entries_in("directory.png") == 1);
    remove("directory.png/inside.png");
    rmdir("directory.png");
    write_bytes("plain", "x", 1);
    CHECK(bitmap_save_png(&image, "plain/out.png") == -1 && holds("plain", "x")); /* a file, not a directory */
    remove("plain");
    CHECK(entries_in(".") == 0);
    bitmap_free(&image);
}

/* A write that fails half way (here: a file-size limit, as a full disk
 * would): the old file is untouched and no temporary file is left behind. */
static void test_failed_write_keeps_the_old_file(void) {
    cpu_bitmap image;
    CHECK(bitmap_create(&image, 64, 64) == 0);
    fill_distinct(&image);
    write_bytes("keep.png", "the old image", 13);

    struct rlimit old_limit, small_limit;
    CHECK(getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
    small_limit = old_limit;
    small_limit.rlim_cur = 100; /* bytes: the PNG (over 10 KB) cannot fit */
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &small_limit) == 0);
    int existing = bitmap_save_png(&image, "keep.png");
    int fresh = bitmap_save_png(&image, "new.png");
    CHECK(setrlimit(RLIMIT_FSIZE, &old_limit) == 0);
    signal(SIGXFSZ, old_handler);

    CHECK(existing == -1 && holds("keep.png", "the old image"));
    CHECK(fresh == -1 && access("new.png", F_OK) != 0);
    CHECK(entries_in(".") == 1);                                             /* keep.png alone: no keep.png.tmp.* */
    CHECK(bitmap_save_png(&image, "keep.png") == 0 && entries_in(".") == 1); /* without the limit it works */
    remove("keep.png");
    bitmap_free(&image);
}

/* The cases root passes for the wrong reason (root may write anything): run
 * by an unprivileged user, in `directory`, which that user owns. */
static void test_as_unprivileged_user(const char *directory) {
    CHECK(chdir(directory) == 0);
    cpu_bitmap image;
    CHECK(bitmap_create(&image, 16, 16) == 0);
    fill_distinct(&image);

    /* A write-only file (an old probe opened it with "wb", emptying it, and removed it): replaced
     * whole, its mode kept. */
    write_bytes("write_only.png", "keep me", 7);
    chmod("write_only.png", 0200);
    CHECK(bitmap_save_png(&image, "write_only.png") == 0 && (mode_of("write_only.png") & 07777) == 0200);
    chmod("write_only.png", 0600);
    cpu_bitmap saved;
    CHECK(bitmap_load_png(&saved, "write_only.png") == 0 && same_pixels(&image, &saved));
    bitmap_free(&saved);

    /* A file another user's permissions keep us from writing (mode 0444 on
     * our own file stands for it here), and a read-only directory. */
    write_bytes("read_only.png", "keep me", 7);
    chmod("read_only.png", 0444);
    CHECK(bitmap_save_png(&image, "read_only.png") == -1 && holds("read_only.png", "keep me"));
    CHECK(mkdir("locked", 0755) == 0);
    write_bytes("locked/old.png", "old", 3);
    chmod("locked", 0555);
    CHECK(bitmap_save_png(&image, "locked/new.png") == -1);
    CHECK(bitmap_save_png(&image, "locked/old.png") == -1 && holds("locked/old.png", "old"));
    CHECK(entries_in("locked") == 1);
    if (access("roots.png", F_OK) == 0) /* root's file in our directory: we may not write it, nor replace it */
        CHECK(bitmap_save_png(&image, "roots.png") == -1 && holds("roots.png", "root's"));
    chmod("locked", 0755);
    remove("locked/old.png");
    rmdir("locked");
    remove("read_only.png");
    remove("write_only.png");
    bitmap_free(&image);
}

/* As root: the unprivileged cases in a child that became nobody. */
static void run_unprivileged_cases(void) {
    if (geteuid() != 0) {
        char here[4096];
        test_as_unprivileged_user(getcwd(here, sizeof here) ? here : ".");
        return;
    }
    const struct passwd *nobody = getpwnam("nobody");
    const uid_t uid = nobody ? nobody->pw_uid : 65534;
    const gid_t gid = nobody ? nobody->pw_gid : 65534;
    char directory[] = "/tmp/test_bitmap_nobody.XXXXXX";
    if (mkdtemp(directory) == NULL || chown(directory, uid, gid) != 0) {
        printf("test_bitmap: SKIPPED the unprivileged cases: no directory for nobody\n");
        return;
    }
    char roots[sizeof directory + 10];
    snprintf(roots, sizeof roots, "%s/roots.png", directory);
    write_bytes(roots, "root's", 6);
    chmod(roots, 0644);
    fflush(stdout);
    fflush(stderr);
    pid_t child = fork();
    if (child == 0) {
        if (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(uid) != 0) {
            printf("test_bitmap: SKIPPED the unprivileged cases: cannot become nobody\n");
            _exit(0);
        }
        test_as_unprivileged_user(directory);
        printf("test_bitmap: as nobody: %d checks, %d failed\n", unit_checks, unit_failures);
        fflush(stdout);
        _exit(unit_failures ? 1 : 0);
    }
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(holds(roots, "root's") && remove(roots) == 0 && entries_in(directory) == 0);
    rmdir(directory);
}

int main(void) {
    char directory[] = "/tmp/test_bitmap.XXXXXX";
    if (mkdtemp(directory) == NULL || chdir(directory) != 0) {
        perror("test_bitmap: a temporary directory");
        return 1;
    }
    fprintf(stderr, "(the bitmap errors below are expected)\n");
    test_create();
    test_round_trip();
    test_bad_input();
    test_save_refusals_touch_nothing();
    test_failed_write_keeps_the_old_file();
    run_unprivileged_cases();
    CHECK(chdir("/") == 0 && rmdir(directory) == 0); /* empty: every file made here was removed */
    return unit_finish("test_bitmap");
}
