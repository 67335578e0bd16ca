/* <cuda_pipeline_primitives.h> on the CPU runner (cpu_runner/cuda_on_cpu.h is included before it): the
 * CUDA Programming Guide's asynchronous copies from global to shared memory, its C-style primitives.
 *   __pipeline_memcpy_async(dst_shared, src_global, size_and_align, zfill = 0): this thread issues a copy
 *       of size_and_align - zfill bytes (size_and_align 4, 8 or 16, both addresses aligned to it), then
 *       zfill zero bytes; until it lands, its destination bytes are pending;
 *   __pipeline_commit(): closes this thread's batch of copies (an empty one too);
 *   __pipeline_wait_prior(N): lands every batch of this thread but the newest N it committed.
 * cpu_runner/runtime.c models them as the hardware runs cp.async, and reports a read or write of pending
 * bytes, a misused copy, a source overwritten in flight; docs/CPU_RUNNER.md says how. Each function is
 * inlined into the kernel, so that a finding names the kernel's line (where() skips stubs/ lines).
 * Not modelled: __pipeline_arrive_on (an mbarrier), a build error where it is used. */
#ifndef CUDA_CPU_PIPELINE_PRIMITIVES_H
#define CUDA_CPU_PIPELINE_PRIMITIVES_H
#define _CUDA_PIPELINE_PRIMITIVES_H_ /* the toolkit's own, if anything includes it, is this one */

#include <stddef.h>

#define CUDA_CPU_PIPELINE_CALL static inline __attribute__((always_inline, no_sanitize_thread))
CUDA_CPU_PIPELINE_CALL void __pipeline_memcpy_async(void *__restrict__ dst_shared, const void *__restrict__ src_global,
                                                    size_t size_and_align, size_t zfill = 0) {
    cuda_cpu_pipeline_memcpy_async(dst_shared, src_global, size_and_align, zfill);
}
CUDA_CPU_PIPELINE_CALL void __pipeline_commit() { cuda_cpu_pipeline_commit(); }
CUDA_CPU_PIPELINE_CALL void __pipeline_wait_prior(size_t prior) { cuda_cpu_pipeline_wait_prior(prior); }
template <typename Barrier>
void __pipeline_arrive_on(Barrier *barrier)
    __attribute__((error("needs a GPU: the CPU runner does not model __pipeline_arrive_on (an mbarrier)")));
#undef CUDA_CPU_PIPELINE_CALL

#endif
