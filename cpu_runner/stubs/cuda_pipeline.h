/* <cuda_pipeline.h> on the CPU runner: its primitives (__pipeline_memcpy_async, __pipeline_commit,
 * __pipeline_wait_prior), modelled in cuda_pipeline_primitives.h beside this. Its C++ class
 * nvcuda::experimental::pipeline is not (a build error where it is used). */
#include "cuda_pipeline_primitives.h"
