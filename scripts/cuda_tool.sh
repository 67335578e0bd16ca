#!/bin/sh
# cuda_tool.sh NAME [NVCC]: prints the path of a CUDA tool (nvcc, cuobjdump, compute-sanitizer, ncu), exit 1
# when there is none. Every script, test and CMake looks the tools up here: beside NVCC when given (the
# build's compiler), on PATH, under $CUDA_HOME, in /usr/local/cuda*, in .tools/cuda and .tools/bin (NVIDIA's
# wheels, cuobjdump alone: scripts/install_deps.sh), or where Nsight Compute installs itself.
name=$1
root=$(cd "$(dirname "$0")/.." && pwd)
for candidate in ${2:+"$(dirname "$2")/$name"} "$(command -v "$name")" \
    "${CUDA_HOME:-/usr/local/cuda}/bin/$name" "${CUDA_HOME:-/usr/local/cuda}/$name/$name" \
    /usr/local/cuda/bin/"$name" /usr/local/cuda-13*/bin/"$name" /usr/local/cuda-12*/bin/"$name" \
    "$root/.tools/cuda/bin/$name" "$root/.tools/bin/$name" /opt/nvidia/nsight-compute/*/"$name"; do
    if [ -f "$candidate" ] && [ -x "$candidate" ]; then
        echo "$candidate"
        exit 0
    fi
done
exit 1
