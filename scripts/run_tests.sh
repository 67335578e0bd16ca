#!/usr/bin/env bash
# The whole test suite: install what is missing, build, run every test.
# Without a GPU the gpu and sanitizer tests are reported as skipped, not passed.
#   bash scripts/run_tests.sh            (extra arguments go to cmake's configure)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
source scripts/env.sh
configure_and_build "$@"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)"
