/* The CPU runner's stand-in for CUB: a program built for the runner compiles, and its CUB row says
 * it does not run here (CUB's kernels are the library's, not the lesson's). */
#ifndef CUDA_CPU_CUB_STUB
#define CUDA_CPU_CUB_STUB
#include <cuda_runtime_api.h>
namespace cub {
struct DeviceReduce {
    template <typename... Arguments> static cudaError_t Sum(Arguments...) { return cudaErrorNotSupported; }
};
} // namespace cub
#endif
