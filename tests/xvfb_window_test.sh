#!/bin/sh
# xvfb_window_test.sh DEMO XWD_COMPARE WORK_PREFIX
# Opens the bitmap viewer's real GLUT window on a private Xvfb server, takes a
# screenshot of it with xwd while it is up, and requires that the window shows
# exactly the image it was given (twice: the second window also proves that
# the program carries on after the first one closes).
# Needs (Debian): xvfb, x11-apps (xwd); the build needs freeglut and Mesa.
# Exit 77 (skipped) when the build has no GLUT window or Xvfb/xwd are missing.
demo=$1 compare=$2 work=$3
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

rm -f "$work".* "$work"_*
xvfb_pid="" demo_pid=""
cleanup() {
    [ -n "$demo_pid" ] && kill "$demo_pid" 2>/dev/null
    [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null
}
trap cleanup EXIT

# -displayfd: Xvfb picks a free display number and writes it once it is ready.
Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp 3>"$work.display" 2>"$work.xvfb.log" &
xvfb_pid=$!
tries=0
while [ ! -s "$work.display" ]; do
    tries=$((tries + 1))
    if [ $tries -gt 100 ] || ! kill -0 "$xvfb_pid" 2>/dev/null; then
        echo "FAIL: Xvfb did not start:"
        cat "$work.xvfb.log"
        exit 1
    fi
    sleep 0.1
done
DISPLAY=:$(head -n 1 "$work.display")
export DISPLAY
echo "Xvfb on $DISPLAY"

EXAMPLES_WINDOW_SECONDS=$seconds "$demo" --require-window --out "$work" >"$work.demo.log" 2>&1 &
demo_pid=$!

failed=0
for which in 1 2; do
    title="bitmap_viewer_demo $which"
    tries=0 matched=0
    # Until the window exists and has been drawn: up to about 3 windows' time.
    while [ $tries -lt $((seconds * 15)) ]; do
        tries=$((tries + 1))
        if xwd -display "$DISPLAY" -silent -name "$title" -out "$work.$which.xwd" 2>/dev/null &&
            "$compare" "$work.$which.xwd" "${work}_expected_$which.png" >"$work.$which.compare" 2>&1; then
            matched=1
            break
        fi
        sleep 0.2
    done
    cat "$work.$which.compare" 2>/dev/null
    if [ $matched -eq 1 ]; then
        echo "window $which: the screenshot equals the image"
    else
        echo "FAIL: window $which never showed the image"
        failed=1
    fi
done

# The windows close by themselves (EXAMPLES_WINDOW_SECONDS) and the demo exits 0.
wait "$demo_pid"
status=$?
demo_pid=""
cat "$work.demo.log"
if [ $status -ne 0 ]; then
    echo "FAIL: the demo exited $status"
    failed=1
fi
[ $failed -eq 0 ] && echo "ok"
exit $failed
