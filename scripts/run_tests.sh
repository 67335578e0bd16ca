#!/usr/bin/env bash
# The whole test suite: install what is missing, build, run every test.
# Without a GPU the gpu, sanitizer and large tests are reported as skipped, not
# passed; the last lines say how many ran, passed, failed and were skipped, and why.
#   bash scripts/run_tests.sh            (extra arguments go to cmake's configure)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
source scripts/env.sh
configure_and_build "$@"
run_test_suite
