#!/bin/sh
# wheels.sh FOLDER PACKAGE...: the wheels of PACKAGE... (pip specifiers: nvidia-cuda-nvcc==13.0.*, cmake==3.22.*)
# fetched from PyPI with pip download and unpacked into FOLDER: installed into no Python. The one way the
# scripts and tests take NVIDIA's wheels and CMake's. Exit 1, pip's last line on stderr, when PyPI cannot be
# reached or has no such wheel (one retry, 15 s a connection, 300 s in all); 2 when a wheel cannot be unpacked.
folder=$1
shift
download=$(mktemp -d)
trap 'rm -rf "$download"' EXIT
if ! timeout 300 python3 -m pip download --quiet --no-deps --only-binary=:all: --disable-pip-version-check \
    --retries 1 --timeout 15 -d "$download" "$@" >"$download/log" 2>&1; then
    tail -n 1 "$download/log" >&2
    exit 1
fi
mkdir -p "$folder" || exit 2
for wheel in "$download"/*.whl; do
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$wheel" "$folder" 2>/dev/null ||
        { echo "wheels.sh: $(basename "$wheel") cannot be unpacked" >&2; exit 2; }
done
