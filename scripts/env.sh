# Sourced by the scripts: puts nvcc's folder on PATH, wherever scripts/cuda_tool.sh finds it (the toolkit's
# usual place, or .tools/cuda where scripts/install_deps.sh unpacked NVIDIA's wheels).
if nvcc=$(sh "$(dirname "${BASH_SOURCE[0]}")/cuda_tool.sh" nvcc); then export PATH="$(dirname "$nvcc"):$PATH"; fi
BUILD_DIR=${BUILD_DIR:-build}
EXAMPLES_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Warnings are errors in CI (CI=true): the collection builds cleanly.
CMAKE_EXTRA_ARGS=()
if [ "${CI:-}" = "true" ]; then CMAKE_EXTRA_ARGS+=(-DCMAKE_COMPILE_WARNING_AS_ERROR=ON); fi
# How long each phase took, for the line that closes a run (timing_line): the README's
# times are such lines, from scripts/time_test_command.sh's runs.
PHASES=()
duration() { if [ "$1" -ge 60 ]; then echo "$(($1 / 60)) min $(($1 % 60)) s"; else echo "$1 s"; fi; }
phase_took() { PHASES+=("$1 $(duration "$2")"); }
timing_line() {
    local IFS=,
    echo "$(basename "$0"): $(duration "$SECONDS") in all on $(nproc) cores (${PHASES[*]})" | sed 's/,/, /g'
}
# scripts/install_deps.sh, its lines about what is still missing kept in the build folder
# for the closing lines; it stops (exit 1) only for what the build cannot do without.
install_dependencies() {
    local start=$SECONDS
    mkdir -p "$BUILD_DIR"
    INSTALL_DEPS_REPORT=$BUILD_DIR/not_installed.txt bash "$EXAMPLES_ROOT/scripts/install_deps.sh"
    phase_took dependencies $((SECONDS - start))
}
configure_and_build() {
    local start=$SECONDS
    cmake -S . -B "$BUILD_DIR" "${CMAKE_EXTRA_ARGS[@]}" "$@"
    phase_took configure $((SECONDS - start))
    start=$SECONDS
    cmake --build "$BUILD_DIR" -j "$(nproc)"
    phase_took build $((SECONDS - start))
}

# Every test of the build, then the closing lines (scripts/ctest_summary.py): how many ran, why the others were
# skipped, and last "tests: N passed, N failed, N skipped", the line the CI reads. Returns CTest's own exit status.
run_test_suite() {
    local build junit status=0 start=$SECONDS
    build=$(cd "$BUILD_DIR" && pwd)
    junit=$build/ctest-junit.xml
    rm -f "$junit"
    # The planted bugs (label mutants) rebuild each chapter once per bug: minutes of a GPU machine's
    # cores, so they run when asked (the GPU evidence run asks); the closing lines say they did not.
    local selection=(-LE '^mutants$')
    [ "${EXAMPLES_MUTANTS:-0}" = 1 ] && selection=()
    ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --output-junit "$junit" "${selection[@]}" || status=$?
    phase_took tests $((SECONDS - start))
    echo
    timing_line
    ctest --test-dir "$build" --show-only=json-v1 >"$build/ctest-tests.json" 2>/dev/null || true
    [ -s "$build/not_installed.txt" ] && cat "$build/not_installed.txt" # what install_deps could not install
    python3 "$EXAMPLES_ROOT/scripts/ctest_summary.py" "$junit" "$build/ctest-tests.json" ||
        echo "tests: no summary (CTest's own lines above say what ran); CTest exited $status"
    return "$status"
}
