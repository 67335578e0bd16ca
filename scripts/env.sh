# Sourced by the scripts: puts nvcc on PATH when the toolkit is in its usual place.
if ! command -v nvcc >/dev/null; then
    for dir in /usr/local/cuda/bin /usr/local/cuda-13*/bin /usr/local/cuda-12*/bin; do
        if [ -x "$dir/nvcc" ]; then export PATH="$dir:$PATH"; break; fi
    done
fi
BUILD_DIR=${BUILD_DIR:-build}
# Warnings are errors in CI (CI=true): the collection builds cleanly.
CMAKE_EXTRA_ARGS=()
if [ "${CI:-}" = "true" ]; then CMAKE_EXTRA_ARGS+=(-DCMAKE_COMPILE_WARNING_AS_ERROR=ON); fi
configure_and_build() {
    cmake -S . -B "$BUILD_DIR" "${CMAKE_EXTRA_ARGS[@]}" "$@"
    cmake --build "$BUILD_DIR" -j "$(nproc)"
}
