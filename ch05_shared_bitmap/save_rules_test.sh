#!/bin/sh
# save_rules_test.sh MODE PROGRAM
# The --save rules of shared_bitmap, tested on real files: no run ever
# destroys a file that was there. Every file lives in a fresh directory
# (mktemp -d) that the test removes at the end; nothing else is touched,
# except that /dev/full is looked at (never written) to prove it survives.
#   refusals      (cpu) on the CPU runner, no GPU: a passing run whose save is refused exits 5,
#                 a line naming the file, the target untouched: a read-only file, a symbolic
#                 link to /dev/full or to a file, a pipe, a directory, a missing directory.
#   unprivileged  (cpu) as nobody when run as root (setpriv or runuser; skipped, 77,
#                 without them), else as the user running it: a write-only file is replaced
#                 whole, its mode kept; a file or directory we may not write is refused (5).
#   saves         (gpu) both kernels save image and diff; an existing target is replaced
#                 by a whole PNG with its permissions kept, and no temporary file is left.
#   save_fails    (gpu) a save that fails after a passing run (a file-size limit stands
#                 for a full disk): exit 5, the old file unchanged, no temporary file.
mode=$1 program=$2
case $program in /*) ;; *) program=$(pwd)/$program ;; esac # the test runs in its own directory
work=$(mktemp -d) || exit 1
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
failed=0
fail() {
    echo "FAIL: $*"
    failed=1
}
# run EXPECTED_EXIT ARGS...: runs the program (as $runner, if set) and checks
# the exit code; exit 2 must come with exactly one line on stderr.
run() {
    expected=$1
    shift
    $runner "$program" "$@" >"$work/out" 2>"$work/err"
    status=$?
    echo "  [$*] -> exit $status: $(cat "$work/err")"
    if [ "$status" -eq 77 ] && [ "$needs_gpu" = yes ]; then
        echo "no CUDA device: skipped"
        exit 77
    fi
    [ "$status" -eq "$expected" ] || fail "[$*] exited $status, expected $expected"
    if [ "$expected" -eq 2 ] && [ "$(wc -l <"$work/err")" -ne 1 ]; then fail "[$*]: not one line on stderr"; fi
}
# unchanged PATH TEXT: the file still holds exactly TEXT.
unchanged() { [ "$(cat "$1" 2>/dev/null)" = "$2" ] || fail "$1 was changed or removed"; }
no_temporary_left() {
    leftover=$(find "$work" -name '*.tmp.*'; find /dev -maxdepth 1 -name 'full.tmp.*')
    [ -z "$leftover" ] || fail "a temporary file was left behind: $leftover"
}
# refused ARGS...: the image passes on the CPU runner but no --save/--save-diff target of ARGS
# (option, file, ...) can take it: exit 5, a line on stderr naming each file, no temporary file.
refused() {
    run 5 --cpu "$@"
    while [ $# -ge 2 ]; do
        grep -q "^bitmap: cannot write PNG '$2': " "$work/err" || fail "[$1 $2]: no line on stderr names '$2'"
        shift 2
    done
    no_temporary_left
}
is_png() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "$1 is not a PNG file"; }

cd "$work" || exit 1
runner="" needs_gpu=no
case $mode in
refusals)
    echo "keep me" >read_only.png
    chmod 0444 read_only.png
    refused --save read_only.png
    unchanged read_only.png "keep me"
    [ "$(stat -c %a read_only.png)" = 444 ] || fail "read_only.png lost its mode"

    device_before=$(stat -c '%F %t:%T' /dev/full)
    run 2 --cpu --save /dev/full # by its name: not .png
    ln -s /dev/full full.png
    refused --save full.png
    refused --save-diff full.png
    [ -L full.png ] || fail "the link full.png was replaced"
    [ "$(stat -c '%F %t:%T' /dev/full)" = "$device_before" ] || fail "/dev/full changed: $(stat -c '%F %t:%T' /dev/full)"
    echo "keep me" >target.png
    ln -s target.png link.png
    refused --save link.png
    [ -L link.png ] || fail "the link link.png was replaced"
    unchanged target.png "keep me"

    mkfifo pipe.png
    mkdir directory.png
    runner="timeout 60" # writing to a pipe would wait for a reader: it must never be opened
    refused --save pipe.png --save-diff directory.png
    runner=""
    [ -p pipe.png ] || fail "pipe.png is no longer a pipe"
    [ -d directory.png ] && [ -z "$(ls -A directory.png)" ] || fail "directory.png is no longer an empty directory"
    refused --save no_such_directory/image.png
    [ ! -e no_such_directory ] || fail "no_such_directory was made"
    run 2 --cpu --save image.jpg # a name, judged before the work
    [ ! -e image.jpg ] || fail "image.jpg was written"
    ;;
unprivileged)
    if [ "$(id -u)" -eq 0 ]; then
        if command -v setpriv >/dev/null 2>&1; then
            runner="setpriv --reuid=$(id -u nobody) --regid=$(id -g nobody) --clear-groups"
        elif command -v runuser >/dev/null 2>&1; then
            runner="runuser -u nobody --"
        else
            echo "skipped: running as root, and neither setpriv nor runuser can make this run unprivileged"
            exit 77
        fi
        chmod 0755 "$work"
        mkdir mine && chown nobody mine
        cp "$program" "$work/program" && cp "${program}_cpu" "$work/program_cpu" # nobody may not reach the build tree
        chmod 0755 "$work/program" "$work/program_cpu"
        program=$work/program
        echo "running as nobody: $runner"
    else
        mkdir mine
    fi
    cd mine || exit 1
    # A write-only file (an old probe opened it with "wb", emptying it, and removed it): replaced
    # by a whole PNG, its mode kept.
    $runner sh -c 'echo "keep me" >write_only.png && chmod 0200 write_only.png'
    run 0 --cpu --save write_only.png
    [ "$(stat -c %a write_only.png)" = 200 ] || fail "write_only.png lost its mode 200"
    $runner chmod 0600 write_only.png
    is_png write_only.png

    $runner sh -c 'echo "keep me" >read_only.png && chmod 0444 read_only.png'
    refused --save read_only.png
    unchanged read_only.png "keep me"
    $runner sh -c 'mkdir locked && chmod 0555 locked'
    refused --save locked/image.png --save-diff locked/diff.png
    [ -z "$(ls -A locked)" ] || fail "a file appeared in the read-only directory"
    if [ -n "$runner" ]; then # a file of root's in nobody's directory: nobody may replace it, not write it
        echo "root's" >roots.png
        chmod 0644 roots.png
        refused --save roots.png
        unchanged roots.png "root's"
    fi
    ;;
saves)
    needs_gpu=yes
    run 0 --no-window --save synced.png --save-diff synced_diff.png
    echo "an old file" >no_sync.png
    chmod 0640 no_sync.png
    run 0 --no-window --no-sync --save no_sync.png --save-diff no_sync_diff.png
    for f in synced.png synced_diff.png no_sync.png no_sync_diff.png; do is_png $f; done
    [ "$(stat -c %a no_sync.png)" = 640 ] || fail "no_sync.png lost its mode 640"
    # Without a window the default PNG is written.
    run 0 --no-window --no-sync
    is_png shared_bitmap_no_sync.png
    no_temporary_left
    ;;
save_fails)
    echo "the old image" >keep.png
    # dash counts ulimit -f in 512-byte blocks, bash in 1024: the PNG is far larger either way.
    for kernel_option in "" --no-sync; do
        sh -c 'trap "" XFSZ; ulimit -f 8; exec "$0" "$@"' "$program" --check $kernel_option --save keep.png \
            >"$work/out" 2>"$work/err"
        status=$?
        echo "  [--check${kernel_option:+ $kernel_option} --save keep.png, files limited to 4 KiB] -> exit $status: $(cat "$work/err")"
        [ "$status" -eq 77 ] && { echo "no CUDA device: skipped"; exit 77; }
        [ "$status" -eq 5 ] || fail "exit $status, expected 5 (the image was right but could not be saved)"
        grep -q 'status=PASS' "$work/out" || fail "no status=PASS in the output"
        unchanged keep.png "the old image"
    done
    no_temporary_left
    ;;
*)
    echo "save_rules_test.sh: unknown mode '$mode'"
    exit 2
    ;;
esac
cd / || exit 1
if [ $failed -eq 0 ]; then echo "ok"; fi
exit $failed
