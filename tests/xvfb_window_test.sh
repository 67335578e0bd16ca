#!/bin/sh
# xvfb_window_test.sh DEMO XWD_COMPARE WORK_PREFIX
# Opens the bitmap viewer's real GLUT window on a private Xvfb server, takes a
# screenshot of it with xwd while it is up, and requires that the window shows
# exactly the image it was given (twice: the second window also proves that
# the program carries on after the first one closes).
# Needs (Debian): xvfb, x11-apps (xwd); the build needs freeglut and Mesa.
# Exit 77 (skipped) when the build has no GLUT window, Xvfb/xwd are missing, or
# Xvfb has no GLX (no software OpenGL: libgl1-mesa-dri).
#
# Nothing here depends on timing luck:
#   - Xvfb -displayfd picks a free display number and writes it only once the
#     server accepts connections, so parallel tests never share a display;
#   - Xvfb -noreset: without it the server resets whenever its last client
#     disconnects, and a client connecting during the reset is refused. Each
#     xwd below is a client that connects and leaves while the demo is between
#     windows (or not yet connected): that reset was the one-in-eight failure
#     ("failed to open display");
#   - a screenshot counts only when it equals the image, so one taken before
#     the first draw is simply taken again; the demo keeps each window up for
#     EXAMPLES_WINDOW_SECONDS counted from its first draw, however slowly the
#     window came;
#   - every file lives in a directory of its own (mktemp -d), removed on success.
demo=$1 compare=$2 prefix=$3
seconds=${EXAMPLES_TEST_WINDOW_SECONDS:-5}

if ! "$demo" --window-built; then
    echo "skipped: this build has no GLUT window (PNG only)"
    exit 77
fi
for tool in Xvfb xwd; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "skipped: $tool is not installed (Debian packages: xvfb, x11-apps)"
        exit 77
    fi
done

work=$(mktemp -d "$prefix.XXXXXX") || exit 1
xvfb_pid="" demo_pid="" failed=1
cleanup() {
    [ -n "$demo_pid" ] && kill "$demo_pid" 2>/dev/null
    [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null && wait "$xvfb_pid" 2>/dev/null
    if [ $failed -eq 0 ]; then rm -rf "$work"; else echo "(files kept in $work)"; fi
}
trap cleanup EXIT

# Up to 60 s for each step under load; a healthy run takes well under a second.
deadline() { echo $(($(date +%s) + 60)); }

Xvfb -displayfd 3 -noreset -nolisten tcp -screen 0 1280x1024x24 3>"$work/display" 2>"$work/xvfb.log" &
xvfb_pid=$!
until_time=$(deadline)
while [ ! -s "$work/display" ]; do
    if [ "$(date +%s)" -gt "$until_time" ] || ! kill -0 "$xvfb_pid" 2>/dev/null; then
        echo "FAIL: Xvfb did not start:"
        cat "$work/xvfb.log"
        exit 1
    fi
    sleep 0.1
done
DISPLAY=:$(head -n 1 "$work/display")
export DISPLAY
echo "Xvfb on $DISPLAY"

EXAMPLES_WINDOW_SECONDS=$seconds "$demo" --require-window --out "$work/demo" >"$work/demo.log" 2>&1 &
demo_pid=$!

status=0
for which in 1 2; do
    title="bitmap_viewer_demo $which"
    matched=0
    until_time=$(deadline)
    while [ "$(date +%s)" -le "$until_time" ] && kill -0 "$demo_pid" 2>/dev/null; do
        if xwd -display "$DISPLAY" -silent -name "$title" -out "$work/$which.xwd" 2>/dev/null &&
            "$compare" "$work/$which.xwd" "$work/demo_expected_$which.png" >"$work/$which.compare" 2>&1; then
            matched=1
            break
        fi
        sleep 0.1
    done
    cat "$work/$which.compare" 2>/dev/null
    if [ $matched -eq 1 ]; then
        echo "window $which: the screenshot equals the image"
    else
        echo "FAIL: window $which never showed the image"
        status=1
    fi
done

# The windows close by themselves (EXAMPLES_WINDOW_SECONDS) and the demo exits 0.
wait "$demo_pid"
demo_status=$?
demo_pid=""
cat "$work/demo.log"
if [ $demo_status -ne 0 ]; then
    echo "FAIL: the demo exited $demo_status"
    status=1
fi
# Xvfb without GLX: no software OpenGL (Mesa's, Debian's libgl1-mesa-dri) for any window to draw
# with. A missing package, not a broken viewer: skipped, saying which.
if [ $status -ne 0 ] && grep -q "GLX extension not supported" "$work/demo.log"; then
    echo "skipped: Xvfb has no OpenGL (GLX) to draw a window with (Debian package: libgl1-mesa-dri)"
    failed=0
    exit 77
fi
failed=$status
[ $status -eq 0 ] && echo "ok"
exit $status
