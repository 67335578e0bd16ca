/* The CPU runner's stand-in for cuBLAS's header: what the chapters call of cuBLAS, declared, so that a
 * program using it builds on the runner without NVIDIA's cuBLAS (a large download) installed. Every
 * computation answers "not supported" (libraries.c): cuBLAS's kernels are the library's, not the
 * lesson's. A cuBLAS function not declared here does not build, the compiler naming it. */
#ifndef CUDA_CPU_CUBLAS_STUB
#define CUDA_CPU_CUBLAS_STUB
#include <cuda_runtime_api.h>
#include <stdint.h>

typedef struct cublasContext *cublasHandle_t;
typedef enum { /* cuBLAS's own values */
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_ARCH_MISMATCH = 8,
    CUBLAS_STATUS_MAPPING_ERROR = 11,
    CUBLAS_STATUS_EXECUTION_FAILED = 13,
    CUBLAS_STATUS_INTERNAL_ERROR = 14,
    CUBLAS_STATUS_NOT_SUPPORTED = 15,
    CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;

#ifdef __cplusplus
extern "C" {
#endif
cublasStatus_t cublasCreate_v2(cublasHandle_t *handle);
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle);
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode);
const char *cublasGetStatusString(cublasStatus_t status);
cublasStatus_t cublasSdot_v2_64(cublasHandle_t h, int64_t n, const float *x, int64_t incx, const float *y,
                                int64_t incy, float *result);
cublasStatus_t cublasDdot_v2_64(cublasHandle_t h, int64_t n, const double *x, int64_t incx, const double *y,
                                int64_t incy, double *result);
cublasStatus_t cublasSgeam_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                              const float *alpha, const float *a, int64_t lda, const float *beta, const float *b,
                              int64_t ldb, float *c, int64_t ldc);
cublasStatus_t cublasDgeam_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                              const double *alpha, const double *a, int64_t lda, const double *beta, const double *b,
                              int64_t ldb, double *c, int64_t ldc);
cublasStatus_t cublasSgemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                              const float *alpha, const float *a, int lda, const float *b, int ldb, const float *beta,
                              float *c, int ldc);
#ifdef __cplusplus
}
#endif
/* cuBLAS's names for its _v2 functions, as its header spells them */
#define cublasCreate cublasCreate_v2
#define cublasDestroy cublasDestroy_v2
#define cublasSetPointerMode cublasSetPointerMode_v2
#define cublasSdot_64 cublasSdot_v2_64
#define cublasDdot_64 cublasDdot_v2_64
#define cublasSgemm cublasSgemm_v2
#endif
