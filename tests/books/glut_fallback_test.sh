#!/bin/sh
# glut_fallback_test.sh GLUT_WINDOW WORK_PREFIX
# cpu_runner/glut_fallback.c, through tests/books/glut_window.c (GLUT called as
# CUDA by Example's cpu_bitmap.h calls it):
#   1. DISPLAY unset: exit 0, one line naming $CUDA_CPU_WINDOW_PNG, glutMainLoop
#      returns, and the PNG holds exactly the image given to glDrawPixels;
#   2. DISPLAY naming no server: <program>.png in the current directory;
#   3. a PNG that cannot be written: a line says so, the program still ends well;
#   4. where Xvfb is installed: with a display the real window opens (no PNG, the
#      program waits in glutMainLoop), and a display without GLX gives the PNG.
exe=$1 prefix=$2
work=$(mktemp -d "$prefix.XXXXXX") || exit 1
xvfb_pid="" window_pid=""
cleanup() {
    [ -n "$window_pid" ] && kill "$window_pid" 2>/dev/null
    [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null && wait "$xvfb_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1.
out=$(env -u DISPLAY CUDA_CPU_WINDOW_PNG="$work/one.png" "$exe") || fail "exit $? without a display: $out"
echo "$out"
echo "$out" | grep -qx "CPU runner: no display: DISPLAY is not set: the window's image (64x48) was written to $work/one.png" \
    || fail "no line naming $work/one.png"
echo "$out" | grep -qx returned || fail "glutMainLoop did not return"
"$exe" --check "$work/one.png" || exit 1

# 2. A display number nobody serves (Xvfb would need a socket in /tmp/.X11-unix).
(cd "$work" && DISPLAY=:9731 "$exe") >"$work/two.log" || fail "exit $? with a dead display: $(cat "$work/two.log")"
cat "$work/two.log"
grep -qx "CPU runner: no display: the X server at DISPLAY=:9731 does not answer: the window's image (64x48) was written to glut_window.png" \
    "$work/two.log" || fail "no line naming glut_window.png"
"$exe" --check "$work/glut_window.png" || exit 1

# 3.
out=$(env -u DISPLAY CUDA_CPU_WINDOW_PNG="$work/no/such/dir.png" "$exe") || fail "exit $? when the PNG cannot be written"
echo "$out"
echo "$out" | grep -q "could not be written to $work/no/such/dir.png" || fail "no line saying the PNG was not written"

# 4.
if ! command -v Xvfb >/dev/null 2>&1; then
    echo "(Xvfb is not installed: the real window is not tried; Debian package: xvfb)"
    exit 0
fi
start_xvfb() { # start_xvfb EXTRA_ARGS...: sets xvfb_pid and display
    rm -f "$work/display"
    Xvfb -displayfd 3 -noreset -nolisten tcp -screen 0 640x480x24 "$@" 3>"$work/display" 2>"$work/xvfb.log" &
    xvfb_pid=$!
    i=0
    while [ ! -s "$work/display" ]; do
        i=$((i + 1))
        [ $i -gt 600 ] || ! kill -0 $xvfb_pid 2>/dev/null && fail "Xvfb did not start: $(cat "$work/xvfb.log")"
        sleep 0.1
    done
    display=:$(cat "$work/display")
}
start_xvfb
(cd "$work" && DISPLAY=$display CUDA_CPU_WINDOW_PNG="$work/four.png" exec "$exe") >"$work/four.log" 2>&1 &
window_pid=$!
sleep 2
kill -0 $window_pid 2>/dev/null || fail "with a display the program did not stay in glutMainLoop: $(cat "$work/four.log")"
[ -e "$work/four.png" ] && fail "with a display a PNG was written: $(cat "$work/four.log")"
echo "with DISPLAY=$display: the window is open (no PNG)"
kill $window_pid; wait $window_pid 2>/dev/null; window_pid=""
kill $xvfb_pid; wait $xvfb_pid 2>/dev/null; xvfb_pid=""

start_xvfb -extension GLX
out=$(DISPLAY=$display CUDA_CPU_WINDOW_PNG="$work/five.png" "$exe") || fail "exit $? on a display without GLX: $out"
echo "$out"
echo "$out" | grep -q "^CPU runner: freeglut could not open a window (.*): the window's image (64x48) was written to $work/five.png$" \
    || fail "no line naming $work/five.png"
"$exe" --check "$work/five.png" || exit 1
echo "all glut fallback cases passed"
