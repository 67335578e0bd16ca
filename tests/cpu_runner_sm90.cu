/* What the CPU runner does not model, sm_90's Tensor Memory Accelerator and thread block clusters (and the
 * C++ pipelines, cuda::pipeline and nvcuda::experimental::pipeline): each USE_* below, defined alone
 * (-D USE_...), is one unguarded use, which must stop the runner's build with one line naming it
 * (tests/cpu_runner_pipeline.cmake). With none defined the program builds and runs: the
 * cluster kernel is guarded by #ifndef CUDA_CPU_RUNNER, as a chapter guards its TMA and cluster steps
 * (docs/CPU_RUNNER.md), and cudaLaunchKernelEx launches a kernel with no cluster, or with a cluster of more
 * than one block (argument "cluster") says in one line that it needs a GPU, exit 3. */
#include <stdio.h>
#include <string.h>
#if defined(USE_BARRIER_HEADER)
#include <cuda/barrier>
#elif defined(USE_PTX_HEADER)
#include <cuda/ptx>
#elif defined(USE_PIPELINE_HEADER)
#include <cuda/pipeline>
#elif defined(USE_NVCUDA_PIPELINE)
#include <cuda_pipeline.h>
#endif
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void scale(float *x, float factor) { x[blockIdx.x * 32 + threadIdx.x] *= factor; }

#ifndef CUDA_CPU_RUNNER /* a GPU's step: the runner's build leaves it out */
__global__ void __cluster_dims__(2, 1, 1) guarded(float *x) {
    cg::this_cluster().sync();
    x[threadIdx.x] = 1.0f;
}
#endif

#if defined(USE_CLUSTER_DIMS)
__global__ void __cluster_dims__(2, 1, 1) clustered(float *x) { x[threadIdx.x] = 1.0f; }
#elif defined(USE_THIS_CLUSTER)
__global__ void clustered(float *x) {
    cg::cluster_group cluster = cg::this_cluster();
    x[threadIdx.x] = (float)cluster.block_rank();
    cluster.sync();
}
#elif defined(USE_BULK_COPY)
__global__ void clustered(float *x) {
    __shared__ __align__(16) float tile[32];
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 128, [%2];"
                 :: "r"(0u), "l"(x), "r"(0u) : "memory");
    x[threadIdx.x] = tile[threadIdx.x];
}
#elif defined(USE_NVCUDA_PIPELINE)
__global__ void clustered(float *x) {
    __shared__ float tile[32];
    nvcuda::experimental::pipeline pipe;
    nvcuda::experimental::memcpy_async(tile[threadIdx.x], x[threadIdx.x], pipe);
    pipe.commit_and_wait();
    x[threadIdx.x] = tile[31 - threadIdx.x];
}
#endif

int main(int argc, char **argv) {
    float h[64], *d;
    for (int i = 0; i < 64; ++i) h[i] = (float)i;
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
#if defined(USE_CLUSTER_DIMS) || defined(USE_THIS_CLUSTER) || defined(USE_BULK_COPY) || defined(USE_NVCUDA_PIPELINE)
    clustered<<<2, 32>>>(d);
#endif
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(2);
    config.blockDim = dim3(32);
    cudaLaunchAttribute cluster[1];
    cluster[0].id = cudaLaunchAttributeClusterDimension;
    cluster[0].val.clusterDim.x = 2, cluster[0].val.clusterDim.y = 1, cluster[0].val.clusterDim.z = 1;
    if (argc > 1 && strcmp(argv[1], "cluster") == 0) config.attrs = cluster, config.numAttrs = 1;
    printf("launch: %s\n", cudaGetErrorName(cudaLaunchKernelEx(&config, scale, d, 2)));
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("x 1 %g 63 %g\n", h[1], h[63]);
    cudaFree(d);
    return 0;
}
