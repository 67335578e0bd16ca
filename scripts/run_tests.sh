#!/usr/bin/env bash
# The whole test suite: install what is missing, build, run every test. Without a GPU the gpu, sanitizer and large
# tests are reported as skipped, not passed; the last lines say how many ran, passed, failed and were skipped, and why.
#   bash scripts/run_tests.sh            (extra arguments go to cmake's configure)
# A package that could not be installed (no root, no mirror) costs only the tests that need it: the closing lines
# repeat which, and for want of which package.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
install_dependencies
configure_and_build "$@"
run_test_suite
