/* cuBLAS on the CPU runner, and for a GPU build whose toolkit has no cuBLAS (NVIDIA's wheels of nvcc): a
 * handle can be made, so a program starts as it does on a GPU, but every computation answers "not
 * supported": the library's kernels are not the lesson's, and the programs skip their cuBLAS rows. */
#include <cublas_v2.h>

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle) {
    *handle = (cublasHandle_t)0;
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
    (void)handle;
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode) {
    (void)handle, (void)mode;
    return CUBLAS_STATUS_SUCCESS;
}
const char *cublasGetStatusString(cublasStatus_t status) {
    return status == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS"
                                           : "CUBLAS_STATUS_NOT_SUPPORTED (no cuBLAS: the CPU runner, or a toolkit without it)";
}
cublasStatus_t cublasSdot_v2_64(cublasHandle_t h, int64_t n, const float *x, int64_t incx, const float *y,
                                int64_t incy, float *result) {
    (void)h, (void)n, (void)x, (void)incx, (void)y, (void)incy, (void)result;
    return CUBLAS_STATUS_NOT_SUPPORTED;
}
cublasStatus_t cublasDdot_v2_64(cublasHandle_t h, int64_t n, const double *x, int64_t incx, const double *y,
                                int64_t incy, double *result) {
    (void)h, (void)n, (void)x, (void)incx, (void)y, (void)incy, (void)result;
    return CUBLAS_STATUS_NOT_SUPPORTED;
}
cublasStatus_t cublasSgeam_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                              const float *alpha, const float *a, int64_t lda, const float *beta, const float *b,
                              int64_t ldb, float *c, int64_t ldc) {
    (void)h, (void)ta, (void)tb, (void)m, (void)n, (void)alpha, (void)a, (void)lda, (void)beta, (void)b, (void)ldb;
    (void)c, (void)ldc;
    return CUBLAS_STATUS_NOT_SUPPORTED;
}
cublasStatus_t cublasDgeam_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                              const double *alpha, const double *a, int64_t lda, const double *beta, const double *b,
                              int64_t ldb, double *c, int64_t ldc) {
    (void)h, (void)ta, (void)tb, (void)m, (void)n, (void)alpha, (void)a, (void)lda, (void)beta, (void)b, (void)ldb;
    (void)c, (void)ldc;
    return CUBLAS_STATUS_NOT_SUPPORTED;
}
cublasStatus_t cublasSgemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                              const float *alpha, const float *a, int lda, const float *b, int ldb, const float *beta,
                              float *c, int ldc) {
    (void)h, (void)ta, (void)tb, (void)m, (void)n, (void)k, (void)alpha, (void)a, (void)lda, (void)b, (void)ldb;
    (void)beta, (void)c, (void)ldc;
    return CUBLAS_STATUS_NOT_SUPPORTED;
}
