#!/usr/bin/env bash
# The README's two commands as a newcomer runs them on a machine without the CUDA toolkit: a fresh clone of
# this checkout's HEAD (../shared beside it), in a mount namespace where the toolkit (/usr/local/cuda*) and
# every nvcc on PATH are hidden. MODE compiler: install_deps unpacks NVIDIA's nvcc from PyPI into .tools/cuda
# and everything builds; MODE headers: the CUDA runtime's headers alone, so only the CPU runner's programs
# build (EXAMPLES_TOOLKIT_WHEELS=headers). Both must pass, the examples running on the CPU runner.
#   bash tests/fresh_machine.sh WORK_DIR [compiler|headers]
# Exit 77 where a mount namespace cannot be made (not root) or PyPI cannot be reached.
set -euo pipefail
work=$1 mode=${2:-headers}
here=$(cd "$(dirname "$0")/.." && pwd)
unshare -m true 2>/dev/null || { echo "skipped: no mount namespace here (needs root): cannot hide the toolkit"; exit 77; }
sh "$here/scripts/wheels.sh" "$(mktemp -d)" "nvidia-cuda-crt==13.*" 2>/dev/null ||
    { echo "skipped: PyPI cannot be reached: NVIDIA's wheels cannot be had"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
git clone -q "$here" "$work/main"
[ -d "$here/../shared" ] && cp -r "$here/../shared" "$work/shared"
status=0
unshare -m bash -s "$work/main" "$mode" <<'INSIDE' || status=$?
set -euo pipefail
clone=$1 mode=$2
for dir in /usr/local/cuda /usr/local/cuda-*; do [ -d "$dir" ] && mount -t tmpfs none "$dir"; done
IFS=: read -r -a folders <<<"$PATH"
for folder in "${folders[@]}"; do # a folder on PATH that holds an nvcc (a wrapper, say) is hidden whole
    if [ -e "$folder/nvcc" ]; then mount -t tmpfs none "$folder"; fi
done
if command -v nvcc >/dev/null; then echo "FAIL: nvcc is still there: $(command -v nvcc)"; exit 1; fi
cd "$clone"
export EXAMPLES_TOOLKIT_WHEELS=$mode
bash scripts/run_examples.sh >examples.log 2>&1 || { echo "FAIL: run_examples.sh"; tail -20 examples.log; exit 1; }
grep -q "CPU runner" examples.log || { echo "FAIL: the examples did not run on the CPU runner"; tail -20 examples.log; exit 1; }
bash scripts/run_tests.sh >tests.log 2>&1 || { echo "FAIL: run_tests.sh"; tail -30 tests.log; exit 1; }
tail -4 tests.log
grep -q "^tests: [0-9]* passed, 0 failed" tests.log || { echo "FAIL: a test failed"; exit 1; }
echo "fresh machine ($mode): both README commands pass without a CUDA toolkit"
INSIDE
# The loader's cache (/etc/ld.so.cache) is shared with the namespace: an install inside (apt's ldconfig trigger) rebuilds it with the
# toolkit hidden, and then no program linking libcudart starts. Rebuilt now that the toolkit is back.
if [ "$(id -u)" = 0 ] && command -v ldconfig >/dev/null; then ldconfig || true; fi
exit "$status"
