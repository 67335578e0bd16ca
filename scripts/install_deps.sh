#!/usr/bin/env bash
# Installs what the collection needs and is missing, on Debian or Ubuntu.
# Safe to run again: it installs only what is not there yet.
#   Debian packages: cmake, a C compiler, libpng (PNG output), freeglut (the
#   bitmap window), Xvfb and xwd (the window test), Python 3 with Debian's own
#   matplotlib (the plots of the results page), and pip, which only downloads.
# Nothing is ever installed into a Python with pip: matplotlib comes from the
# distribution's package, into the system's Python, as every other package.
# The CUDA toolkit (nvcc) is not a Debian package of the right version: it is
# checked for, and the script says how to get it when it is missing.
set -euo pipefail

packages=(cmake make gcc g++ pkg-config libpng-dev zlib1g-dev freeglut3-dev libgl-dev libglu1-mesa-dev
          xvfb x11-apps libgl1-mesa-dri python3 python3-matplotlib python3-pip)

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null; then sudo "$@"
    else echo "install_deps: need root (or sudo) to run: $*" >&2; return 1
    fi
}

if command -v dpkg-query >/dev/null && command -v apt-get >/dev/null; then
    missing=()
    for package in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "install_deps: installing ${missing[*]}"
        as_root apt-get update -qq
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "install_deps: Debian packages already installed"
    fi
else
    echo "install_deps: not a Debian/Ubuntu system: install by hand: ${packages[*]}" >&2
fi

# matplotlib: CMake runs the tooling's tests with the python3 first on PATH, or
# with the system's when only that one has matplotlib (a pyenv or a virtual
# environment first on PATH); without any, the plots are not drawn (the tables
# still are) and the drawing test says it was skipped.
system_python=${SYSTEM_PYTHON:-/usr/bin/python3}
path_python=$(command -v python3 || true)
if [ -n "$path_python" ] && "$path_python" -c "import matplotlib" 2>/dev/null; then
    :
elif [ -x "$system_python" ] && "$system_python" -c "import matplotlib" 2>/dev/null; then
    echo "install_deps: the python3 first on PATH (${path_python:-none}) has no matplotlib: the plot tests use" \
        "$system_python, which has the distribution's"
else
    echo "install_deps: matplotlib is missing (Debian package python3-matplotlib): plots will not be drawn," \
        "tables will; the drawing test is skipped" >&2
fi

# The CUDA compiler.
nvcc=$(command -v nvcc || true)
if [ -z "$nvcc" ]; then
    for dir in /usr/local/cuda/bin /usr/local/cuda-13*/bin /usr/local/cuda-12*/bin; do
        if [ -x "$dir/nvcc" ]; then
            nvcc=$dir/nvcc
            echo "install_deps: nvcc found in $dir (not on PATH; the build scripts add it)"
            break
        fi
    done
fi
if [ -z "$nvcc" ]; then
    echo "install_deps: the CUDA toolkit (nvcc, version 12 or 13) is missing. Install it from NVIDIA's" >&2
    echo "  CUDA downloads (deb network repository: the package cuda-toolkit), then run this again." >&2
    exit 1
fi
echo "install_deps: nvcc: $("$nvcc" --version | grep -m 1 release || echo "$nvcc (no release line in --version)")"

# cuobjdump and nvdisasm read the compiled code (the SASS tests, label host, need
# no GPU). A full CUDA toolkit has them beside nvcc; a minimal one does not: then
# NVIDIA's own wheels from PyPI are unpacked into .tools/ of this checkout
# (nothing is installed into any Python).
if ! [ -x "$(dirname "$nvcc")/cuobjdump" ] && ! [ -x .tools/bin/cuobjdump ]; then
    wheels=$(mktemp -d)
    if python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$wheels" nvidia-cuda-cuobjdump \
        nvidia-cuda-nvdisasm >/dev/null 2>&1; then
        mkdir -p .tools/bin
        for wheel in "$wheels"/*.whl; do
            python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$wheel" "$wheels/x"
        done
        find "$wheels/x" -type f \( -name cuobjdump -o -name nvdisasm \) -exec cp {} .tools/bin/ \;
        chmod +x .tools/bin/* 2>/dev/null || true
        echo "install_deps: cuobjdump and nvdisasm unpacked into .tools/bin (for the SASS tests)"
    else
        echo "install_deps: cuobjdump could not be fetched: the SASS tests will be skipped" >&2
    fi
    rm -rf "$wheels"
fi
