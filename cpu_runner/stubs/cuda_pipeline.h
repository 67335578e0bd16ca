/* <cuda_pipeline.h> on the CPU runner: its primitives (__pipeline_memcpy_async, __pipeline_commit,
 * __pipeline_wait_prior), modelled in cuda_pipeline_primitives.h beside this. Its C++ class
 * nvcuda::experimental::pipeline is not: declared whole, its constructor stops the build with one line. */
#ifndef CUDA_CPU_PIPELINE_H
#define CUDA_CPU_PIPELINE_H
#include "cuda_pipeline_primitives.h"

namespace nvcuda {
namespace experimental {
class pipeline {
  public:
    pipeline() __attribute__((error("needs a GPU: the CPU runner does not model nvcuda::experimental::pipeline; it "
                                    "models __pipeline_memcpy_async, __pipeline_commit and __pipeline_wait_prior")));
    pipeline(const pipeline &) = delete;
    pipeline &operator=(const pipeline &) = delete;
    size_t commit();
    void commit_and_wait();
    void wait(size_t batch);
    template <unsigned N> void wait_prior();
    template <class Barrier> void arrive_on(Barrier &barrier);
};
template <class T> void memcpy_async(T &dst, const T &src, pipeline &pipe);
template <class T, size_t DstN, size_t SrcN> void memcpy_async(T (*dst)[DstN], const T (*src)[SrcN], pipeline &pipe);
template <size_t N, typename T> T (*segment(T *ptr))[N] { return (T(*)[N])ptr; }
} // namespace experimental
} // namespace nvcuda
#endif
