#!/usr/bin/env bash
# Installs what the collection needs and is missing, on Debian or Ubuntu (the catalogue below: each package and
# what is lost without it), then says what is still missing. Safe to run again. Nothing is installed into a Python
# with pip (matplotlib is the distribution's package); nvcc is the machine's, or NVIDIA's wheels from PyPI unpacked
# into .tools/cuda (below). Exit 1 only without what the build needs (nvcc, cmake, make, a C and C++ compiler); any
# other package still missing (no root or sudo, no mirror, apt-get failing) is one line naming what it costs, and
# the script goes on (exit 0). INSTALL_DEPS_REPORT=FILE: those lines go to FILE too, for the closing lines.
set -uo pipefail

# package|the command that provides it where no Debian package does (- for none)|what is lost without it
catalogue=(
    "cmake|cmake|required: the build"
    "make|make|required: the build"
    "gcc|gcc|required: the build"
    "g++|g++|required: the build"
    "pkg-config|pkg-config|CMake finds freeglut without its help less often: see freeglut3-dev"
    "libpng-dev|-|ch05_shared_bitmap is not built, and with it its tests and the bitmap viewer's (PNG files)"
    "zlib1g-dev|-|libpng cannot be linked: as libpng-dev"
    "freeglut3-dev|-|the bitmap chapter has no window (it saves PNG files); shared_bitmap_builds_alone and bitmap_window_xvfb are skipped"
    "libgl-dev|-|as freeglut3-dev: no OpenGL to link the window with"
    "libglu1-mesa-dev|-|as freeglut3-dev: no GLU for freeglut"
    "xvfb|Xvfb|bitmap_window_xvfb is skipped (no X server to open the window on)"
    "x11-apps|xwd|bitmap_window_xvfb is skipped (no xwd to take the window's picture)"
    "libgl1-mesa-dri|-|bitmap_window_xvfb is skipped (no software OpenGL for a window on Xvfb)"
    "python3|python3|the results tooling, docs, SASS, res-usage, first-hour and bank-model tests are not registered; no closing summary"
    "python3-matplotlib|matplotlib|plots are not drawn (tables are); the tooling test's drawing cases are skipped"
    "fonts-wqy-microhei|cjkfont|the Chinese pictures (*.zh-CN.png) are not drawn (plot.py says so); the tooling test's Chinese drawing cases are skipped"
    "g++-aarch64-linux-gnu|aarch64-linux-gnu-g++|the arm64 tests are skipped (no compiler to build the CPU runner for arm64)"
    "qemu-user|qemu-aarch64|the arm64 tests are skipped (nothing to run arm64 programs on this machine)"
    "python3-pip|pip|cmake_oldest is skipped (pip fetches CMake 3.22); where the CUDA toolkit lacks cuobjdump, the SASS and res-usage tests are skipped"
)
report=${INSTALL_DEPS_REPORT:-/dev/null}
: >"$report" 2>/dev/null || report=/dev/null
say() { echo "install_deps: $*"; }
warn() { echo "install_deps: $*" >&2; }

system_python=${SYSTEM_PYTHON:-/usr/bin/python3}
path_python=$(command -v python3 || true)
imports_matplotlib() { [ -n "$1" ] && [ -x "$1" ] && "$1" -c "import matplotlib" 2>/dev/null; }
# Is a package's job done, by the Debian package or otherwise (a CMake from Kitware, a pip matplotlib)?
installed() {
    local package=$1 provider=$2
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" && return 0
    case $provider in
    -) return 1 ;;
    matplotlib) imports_matplotlib "$path_python" || imports_matplotlib "$system_python" ;;
    cjkfont) [ -f /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ] ||
        { command -v fc-list >/dev/null && fc-list | grep -q "WenQuanYi Micro Hei"; } ;;
    pip) [ -n "$path_python" ] && "$path_python" -m pip --version >/dev/null 2>&1 ;;
    *) command -v "$provider" >/dev/null 2>&1 ;;
    esac
}
missing_packages() {
    local entry package provider
    for entry in "${catalogue[@]}"; do
        IFS='|' read -r package provider _ <<<"$entry"
        installed "$package" "$provider" || echo "$package"
    done
}

# How to become root: as root, env; "sudo -n" without a password; else nothing (never a prompt).
as_root=()
if [ "$(id -u)" -eq 0 ]; then
    as_root=(env)
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    as_root=(sudo -n)
fi
apt_install() { "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "$@" >/dev/null 2>&1; }

if command -v dpkg-query >/dev/null && command -v apt-get >/dev/null; then
    mapfile -t missing < <(missing_packages)
    if [ ${#missing[@]} -eq 0 ]; then
        say "Debian packages already installed"
    elif [ ${#as_root[@]} -eq 0 ]; then
        warn "not root, and sudo is missing or asks for a password: not installing ${missing[*]}; going on without them"
    else
        say "installing ${missing[*]}"
        "${as_root[@]}" apt-get update -qq >/dev/null 2>&1 ||
            warn "apt-get update failed (no package mirror reachable?): trying the package lists already here"
        if ! apt_install "${missing[@]}"; then
            # One by one: a package this release lacks must not cost the others.
            failed=()
            for package in "${missing[@]}"; do
                apt_install "$package" || failed+=("$package")
            done
            warn "apt-get install failed for ${failed[*]}; going on without them"
        fi
    fi
else
    warn "not a Debian/Ubuntu system (no apt-get): install by hand what is named below, if anything"
fi

# What is still missing, and what each costs. Required ones stop the build here.
mapfile -t still < <(missing_packages)
required=()
for entry in "${catalogue[@]}"; do
    IFS='|' read -r package _ cost <<<"$entry"
    case " ${still[*]} " in *" $package "*) ;; *) continue ;; esac
    if [ "$cost" = "required: the build" ]; then
        required+=("$package")
    else
        echo "not installed: $package: $cost" | tee -a "$report" >&2
    fi
done
if [ ${#required[@]} -gt 0 ]; then
    warn "cannot build without ${required[*]} (Debian packages of those names): install them and run this again"
    exit 1
fi

# matplotlib: CMake runs the tooling's tests with the python3 first on PATH, or with the system's when only that
# one has matplotlib (a pyenv or a virtual environment first on PATH); run plot.py with that one.
if [ -n "$path_python" ] && ! imports_matplotlib "$path_python" && imports_matplotlib "$system_python"; then
    say "the python3 first on PATH ($path_python) has no matplotlib: the plot tests use $system_python," \
        "which has the distribution's; run plot.py with it"
fi

# The CUDA compiler: the machine's toolkit; else NVIDIA's own wheels from PyPI (nvcc, NVVM, the runtime, its
# headers and CCCL: about 105 MB to download, 270 MB unpacked), unpacked into .tools/cuda of this checkout,
# nothing installed into any Python, no root needed; else none: with the CUDA runtime's headers alone (the
# small wheels) CMake builds only the CPU runner's programs, and every test that needs nvcc is skipped.
# EXAMPLES_TOOLKIT_WHEELS=headers takes the headers alone (6 MB) even where the compiler could be had.
nvcc=$(sh "$(dirname "$0")/cuda_tool.sh" nvcc) && [ "$nvcc" != "$(command -v nvcc)" ] &&
    say "nvcc found in $(dirname "$nvcc") (not on PATH; the build scripts add it)"
# unpack_cuda_wheels PACKAGE...: NVIDIA's wheels of CUDA 13 into .tools/cuda (one prefix: bin, include, lib, nvvm).
unpack_cuda_wheels() {
    local wheels
    wheels=$(mktemp -d)
    sh "$(dirname "$0")/wheels.sh" "$wheels/x" "$@" 2>/dev/null || { rm -rf "$wheels"; return 1; }
    mkdir -p .tools/cuda
    cp -a "$wheels"/x/nvidia/cu13/. .tools/cuda/
    chmod +x .tools/cuda/bin/* .tools/cuda/bin/crt/* .tools/cuda/nvvm/bin/* 2>/dev/null
    [ -e .tools/cuda/lib/libcudart.so.13 ] && ln -sf libcudart.so.13 .tools/cuda/lib/libcudart.so
    # nvcc.profile looks for its headers and libraries under targets/<platform>/, as a toolkit lays them out
    local target
    for target in x86_64-linux sbsa-linux; do
        mkdir -p ".tools/cuda/targets/$target"
        ln -sfn ../../include ".tools/cuda/targets/$target/include"
        ln -sfn ../../lib ".tools/cuda/targets/$target/lib64"
        ln -sfn ../../lib ".tools/cuda/targets/$target/lib"
    done
    rm -rf "$wheels"
}
# CUDA 13.0, the version the SASS tests and the lessons' excerpts were taken with.
cuda_headers=("nvidia-cuda-runtime==13.0.*" "nvidia-cuda-crt==13.0.*" "nvidia-cuda-cccl==13.0.*"
    "nvidia-cuda-profiler-api==13.0.*")
if [ -z "$nvcc" ] && [ "${EXAMPLES_TOOLKIT_WHEELS:-}" != headers ] &&
    unpack_cuda_wheels "nvidia-cuda-nvcc==13.0.*" "nvidia-nvvm==13.0.*" "${cuda_headers[@]}" &&
    [ -x .tools/cuda/bin/nvcc ]; then
    nvcc=$PWD/.tools/cuda/bin/nvcc
    say "nvcc unpacked from NVIDIA's wheels into .tools/cuda (the build scripts add it to PATH)"
fi
if [ -z "$nvcc" ]; then
    if [ -f .tools/cuda/include/cuda_runtime.h ] || [ -f /usr/local/cuda/include/cuda_runtime.h ] ||
        unpack_cuda_wheels "${cuda_headers[@]}"; then
        echo "not installed: nvcc (no CUDA toolkit, and none from PyPI): only the CPU runner's programs are built;" \
            "the GPU programs and the tests that need nvcc are skipped" | tee -a "$report" >&2
        exit 0
    fi
    warn "the CUDA toolkit (nvcc, version 12 or 13) is missing, and NVIDIA's wheels could not be downloaded from"
    warn "  PyPI. Install it from NVIDIA's CUDA downloads (deb network repository: the package cuda-toolkit), or"
    warn "  let pip reach PyPI, then run this again."
    exit 1
fi
say "nvcc: $("$nvcc" --version | grep -m 1 release || echo "$nvcc (no release line in --version)")"

# cuobjdump and nvdisasm read the compiled code (the SASS tests, label host, need no GPU): beside nvcc in a full
# toolkit; else NVIDIA's own wheels from PyPI, unpacked into .tools/bin of this checkout (into no Python).
if ! sh "$(dirname "$0")/cuda_tool.sh" cuobjdump "$nvcc" >/dev/null; then
    wheels=$(mktemp -d)
    if sh "$(dirname "$0")/wheels.sh" "$wheels/x" nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm 2>/dev/null; then
        mkdir -p .tools/bin
        find "$wheels/x" -type f \( -name cuobjdump -o -name nvdisasm \) -exec cp {} .tools/bin/ \;
        chmod +x .tools/bin/* 2>/dev/null || true
        say "cuobjdump and nvdisasm unpacked into .tools/bin (for the SASS tests)"
    else
        echo "not installed: cuobjdump (NVIDIA's wheel, from PyPI): the SASS and res-usage tests are skipped" |
            tee -a "$report" >&2
    fi
    rm -rf "$wheels"
fi
exit 0
