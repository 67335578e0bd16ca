// The CUDA runtime's host calls on the CPU runner (cpu_runner/host_api.c), one case per argument:
//   attributes, properties, errors, constant, device_array, managed, pointer_attributes, pitch, streams,
//   settings, pinned, occupancy, not_on_runner
// Each prints what it found; tests/cpu_runner_host_api.cmake holds the lines expected. The program is CUDA
// as nvcc takes it: on an H100 SXM 80GB it prints the same lines (not_on_runner aside: there both calls
// succeed).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#define CHECK(call)                                                                                                    \
    do {                                                                                                               \
        const cudaError_t status_ = (call);                                                                            \
        if (status_ != cudaSuccess) {                                                                                  \
            printf("%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call, cudaGetErrorName(status_),                       \
                   cudaGetErrorString(status_));                                                                       \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)
// a call expected to fail: prints the call's error name
#define SAYS(call) printf("%s -> %s\n", #call, cudaGetErrorName(call))

// ----- attributes: every value of enum cudaDeviceAttr (CUDA 13.0), as an H100 SXM 80GB answers it -----
struct expected_attribute {
    cudaDeviceAttr attribute;
    const char *name;
    int value;
};
#define A(name, value) {name, #name, value}
static const expected_attribute h100[] = {
    A(cudaDevAttrMaxThreadsPerBlock, 1024),
    A(cudaDevAttrMaxBlockDimX, 1024),
    A(cudaDevAttrMaxBlockDimY, 1024),
    A(cudaDevAttrMaxBlockDimZ, 64),
    A(cudaDevAttrMaxGridDimX, 2147483647),
    A(cudaDevAttrMaxGridDimY, 65535),
    A(cudaDevAttrMaxGridDimZ, 65535),
    A(cudaDevAttrMaxSharedMemoryPerBlock, 49152),
    A(cudaDevAttrTotalConstantMemory, 65536),
    A(cudaDevAttrWarpSize, 32),
    A(cudaDevAttrMaxPitch, 2147483647),
    A(cudaDevAttrMaxRegistersPerBlock, 65536),
    A(cudaDevAttrClockRate, 1980000),
    A(cudaDevAttrTextureAlignment, 512),
    A(cudaDevAttrGpuOverlap, 1),
    A(cudaDevAttrMultiProcessorCount, 132),
    A(cudaDevAttrKernelExecTimeout, 0),
    A(cudaDevAttrIntegrated, 0),
    A(cudaDevAttrCanMapHostMemory, 1),
    A(cudaDevAttrComputeMode, 0),
    A(cudaDevAttrMaxTexture1DWidth, 131072),
    A(cudaDevAttrMaxTexture2DWidth, 131072),
    A(cudaDevAttrMaxTexture2DHeight, 65536),
    A(cudaDevAttrMaxTexture3DWidth, 16384),
    A(cudaDevAttrMaxTexture3DHeight, 16384),
    A(cudaDevAttrMaxTexture3DDepth, 16384),
    A(cudaDevAttrMaxTexture2DLayeredWidth, 32768),
    A(cudaDevAttrMaxTexture2DLayeredHeight, 32768),
    A(cudaDevAttrMaxTexture2DLayeredLayers, 2048),
    A(cudaDevAttrSurfaceAlignment, 512),
    A(cudaDevAttrConcurrentKernels, 1),
    A(cudaDevAttrEccEnabled, 1),
    A(cudaDevAttrPciBusId, 0),
    A(cudaDevAttrPciDeviceId, 0), /* H200: 6 */
    A(cudaDevAttrTccDriver, 0),
    A(cudaDevAttrMemoryClockRate, 2619000), /* H200: 3201000 */
    A(cudaDevAttrGlobalMemoryBusWidth, 5120), /* H200: 6016 */
    A(cudaDevAttrL2CacheSize, 52428800), /* H200: 62914560 */
    A(cudaDevAttrMaxThreadsPerMultiProcessor, 2048),
    A(cudaDevAttrAsyncEngineCount, 3),
    A(cudaDevAttrUnifiedAddressing, 1),
    A(cudaDevAttrMaxTexture1DLayeredWidth, 32768),
    A(cudaDevAttrMaxTexture1DLayeredLayers, 2048),
    A(cudaDevAttrMaxTexture2DGatherWidth, 32768),
    A(cudaDevAttrMaxTexture2DGatherHeight, 32768),
    A(cudaDevAttrMaxTexture3DWidthAlt, 8192),
    A(cudaDevAttrMaxTexture3DHeightAlt, 8192),
    A(cudaDevAttrMaxTexture3DDepthAlt, 32768),
    A(cudaDevAttrPciDomainId, 0),
    A(cudaDevAttrTexturePitchAlignment, 32),
    A(cudaDevAttrMaxTextureCubemapWidth, 32768),
    A(cudaDevAttrMaxTextureCubemapLayeredWidth, 32768),
    A(cudaDevAttrMaxTextureCubemapLayeredLayers, 2046),
    A(cudaDevAttrMaxSurface1DWidth, 32768),
    A(cudaDevAttrMaxSurface2DWidth, 131072),
    A(cudaDevAttrMaxSurface2DHeight, 65536),
    A(cudaDevAttrMaxSurface3DWidth, 16384),
    A(cudaDevAttrMaxSurface3DHeight, 16384),
    A(cudaDevAttrMaxSurface3DDepth, 16384),
    A(cudaDevAttrMaxSurface1DLayeredWidth, 32768),
    A(cudaDevAttrMaxSurface1DLayeredLayers, 2048),
    A(cudaDevAttrMaxSurface2DLayeredWidth, 32768),
    A(cudaDevAttrMaxSurface2DLayeredHeight, 32768),
    A(cudaDevAttrMaxSurface2DLayeredLayers, 2048),
    A(cudaDevAttrMaxSurfaceCubemapWidth, 32768),
    A(cudaDevAttrMaxSurfaceCubemapLayeredWidth, 32768),
    A(cudaDevAttrMaxSurfaceCubemapLayeredLayers, 2046),
    A(cudaDevAttrMaxTexture1DLinearWidth, 268435456),
    A(cudaDevAttrMaxTexture2DLinearWidth, 131072),
    A(cudaDevAttrMaxTexture2DLinearHeight, 65000),
    A(cudaDevAttrMaxTexture2DLinearPitch, 2097120),
    A(cudaDevAttrMaxTexture2DMipmappedWidth, 32768),
    A(cudaDevAttrMaxTexture2DMipmappedHeight, 32768),
    A(cudaDevAttrComputeCapabilityMajor, 9),
    A(cudaDevAttrComputeCapabilityMinor, 0),
    A(cudaDevAttrMaxTexture1DMipmappedWidth, 32768),
    A(cudaDevAttrStreamPrioritiesSupported, 1),
    A(cudaDevAttrGlobalL1CacheSupported, 1),
    A(cudaDevAttrLocalL1CacheSupported, 1),
    A(cudaDevAttrMaxSharedMemoryPerMultiprocessor, 233472),
    A(cudaDevAttrMaxRegistersPerMultiprocessor, 65536),
    A(cudaDevAttrManagedMemory, 1),
    A(cudaDevAttrIsMultiGpuBoard, 0),
    A(cudaDevAttrMultiGpuBoardGroupID, 0),
    A(cudaDevAttrHostNativeAtomicSupported, 0),
    A(cudaDevAttrSingleToDoublePrecisionPerfRatio, 2),
    A(cudaDevAttrPageableMemoryAccess, 0),
    A(cudaDevAttrConcurrentManagedAccess, 1),
    A(cudaDevAttrComputePreemptionSupported, 1),
    A(cudaDevAttrCanUseHostPointerForRegisteredMem, 1),
    A(cudaDevAttrReserved92, 0),
    A(cudaDevAttrReserved93, 0),
    A(cudaDevAttrReserved94, 0),
    A(cudaDevAttrCooperativeLaunch, 1),
    A(cudaDevAttrReserved96, 1),
    A(cudaDevAttrMaxSharedMemoryPerBlockOptin, 232448),
    A(cudaDevAttrCanFlushRemoteWrites, 0),
    A(cudaDevAttrHostRegisterSupported, 1),
    A(cudaDevAttrPageableMemoryAccessUsesHostPageTables, 0),
    A(cudaDevAttrDirectManagedMemAccessFromHost, 0),
    A(cudaDevAttrMaxBlocksPerMultiprocessor, 32),
    A(cudaDevAttrMaxPersistingL2CacheSize, 32768000), /* H200: 39321600 */
    A(cudaDevAttrMaxAccessPolicyWindowSize, 134217728),
    A(cudaDevAttrReservedSharedMemoryPerBlock, 1024),
    A(cudaDevAttrSparseCudaArraySupported, 1),
    A(cudaDevAttrHostRegisterReadOnlySupported, 1),
    A(cudaDevAttrTimelineSemaphoreInteropSupported, 1),
    A(cudaDevAttrMemoryPoolsSupported, 1),
    A(cudaDevAttrGPUDirectRDMASupported, 1),
    A(cudaDevAttrGPUDirectRDMAFlushWritesOptions, 1),
    A(cudaDevAttrGPUDirectRDMAWritesOrdering, 100),
    A(cudaDevAttrMemoryPoolSupportedHandleTypes, 9),
    A(cudaDevAttrClusterLaunch, 1),
    A(cudaDevAttrDeferredMappingCudaArraySupported, 1),
    A(cudaDevAttrReserved122, 1),
    A(cudaDevAttrReserved123, 1),
    A(cudaDevAttrReserved124, 1),
    A(cudaDevAttrIpcEventSupport, 1),
    A(cudaDevAttrMemSyncDomainCount, 4),
    A(cudaDevAttrReserved127, 1),
    A(cudaDevAttrReserved128, 1),
    A(cudaDevAttrReserved129, 1),
    A(cudaDevAttrNumaConfig, 0),
    A(cudaDevAttrNumaId, -1),
    A(cudaDevAttrReserved132, 0),
    A(cudaDevAttrMpsEnabled, 0),
    A(cudaDevAttrHostNumaId, 0),
    A(cudaDevAttrD3D12CigSupported, 0),
    A(cudaDevAttrVulkanCigSupported, 0),
    A(cudaDevAttrGpuPciDeviceId, 590352606), /* H200: 590680286 */
    A(cudaDevAttrGpuPciSubsystemId, 381751518), /* H200: 415174878 */
    A(cudaDevAttrReserved141, 1),
    A(cudaDevAttrHostNumaMemoryPoolsSupported, 1),
    A(cudaDevAttrHostNumaMultinodeIpcSupported, 0),
    A(cudaDevAttrHostMemoryPoolsSupported, 1),
    A(cudaDevAttrReserved145, 1),
    A(cudaDevAttrOnlyPartialHostNativeAtomicSupported, 0),
};
#undef A

static int attributes(void) {
    const int named = (int)(sizeof h100 / sizeof *h100);
    int wrong = 0, refused = 0, answered_unnamed = 0;
    for (int i = 0; i < named; ++i) {
        int value = -12345;
        const cudaError_t e = cudaDeviceGetAttribute(&value, h100[i].attribute, 0);
        if (e != cudaSuccess || value != h100[i].value) {
            printf("%s: %s, %d (an H100: %d)\n", h100[i].name, cudaGetErrorName(e), value, h100[i].value);
            ++wrong;
        }
    }
    for (int a = -5; a <= 300; ++a) { // every value the enum does not name: refused, the answer untouched
        int known = 0;
        for (int i = 0; i < named; ++i) known |= (int)h100[i].attribute == a;
        if (known) continue;
        int value = -12345;
        const cudaError_t e = cudaDeviceGetAttribute(&value, (cudaDeviceAttr)a, 0);
        if (e == cudaErrorInvalidValue && value == -12345) ++refused;
        else ++answered_unnamed;
    }
    cudaGetLastError();
    printf("attributes: %d named, %d answered as an H100 SXM 80GB does, %d otherwise\n", named, named - wrong, wrong);
    printf("attributes not named by the enum (-5 to 300): %d refused with cudaErrorInvalidValue, %d answered\n",
           refused, answered_unnamed);
    int value = -1;
    CHECK(cudaDeviceGetAttribute(&value, cudaDevAttrComputeMode, 0));
    printf("cudaDevAttrComputeMode = %d (cudaComputeModeDefault = %d)\n", value, (int)cudaComputeModeDefault);
    SAYS(cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, 1));
    cudaGetLastError();
    return wrong != 0;
}

// ----- properties: what cuda-samples' helper_cuda.h (findCudaDevice, gpuGetMaxGflopsDeviceId) asks -----
static int cores_per_sm(int major, int minor) { // helper_cuda.h's _ConvertSMVer2Cores, for the ones here
    const int sm = major * 16 + minor;
    return sm == 0x90 ? 128 : sm == 0x80 ? 64 : sm == 0x86 || sm == 0x89 ? 128 : 0;
}
static int properties(void) {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    int best = -1;
    unsigned long long best_performance = 0;
    for (int device = 0; device < count; ++device) { // gpuGetMaxGflopsDeviceId
        int compute_mode = -1, major = 0, minor = 0, sms = 0, clock_khz = 0;
        CHECK(cudaDeviceGetAttribute(&compute_mode, cudaDevAttrComputeMode, device));
        CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
        CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
        if (compute_mode == cudaComputeModeProhibited) continue;
        const unsigned long long performance =
            (unsigned long long)sms * cores_per_sm(major, minor) * (unsigned long long)clock_khz;
        printf("device %d: compute mode %d, %d.%d, %d SMs x %d cores at %d MHz\n", device, compute_mode, major, minor,
               sms, cores_per_sm(major, minor), clock_khz / 1000);
        if (performance > best_performance) best = device, best_performance = performance;
    }
    CHECK(cudaSetDevice(best));
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, best));
    printf("GPU Device %d: compute capability %d.%d\n", best, p.major, p.minor);
    printf("global memory %zu bytes (%.1f GiB), constant %zu, L2 %d, persisting L2 at most %d, bus %d bits\n",
           p.totalGlobalMem, p.totalGlobalMem / 1073741824.0, p.totalConstMem, p.l2CacheSize,
           p.persistingL2CacheMaxSize, p.memoryBusWidth);
    printf("shared memory: %zu per block, %zu opt-in, %zu per SM, %zu reserved per block\n", p.sharedMemPerBlock,
           p.sharedMemPerBlockOptin, p.sharedMemPerMultiprocessor, p.reservedSharedMemPerBlock);
    printf("threads: %d per block (%d, %d, %d), %d per SM, %d blocks per SM, warp %d, grid (%d, %d, %d)\n",
           p.maxThreadsPerBlock, p.maxThreadsDim[0], p.maxThreadsDim[1], p.maxThreadsDim[2],
           p.maxThreadsPerMultiProcessor, p.maxBlocksPerMultiProcessor, p.warpSize, p.maxGridSize[0], p.maxGridSize[1],
           p.maxGridSize[2]);
    printf("registers %d per block, %d per SM, memPitch %zu, alignment: texture %zu, texture pitch %zu, surface %zu\n",
           p.regsPerBlock, p.regsPerMultiprocessor, p.memPitch, p.textureAlignment, p.texturePitchAlignment,
           p.surfaceAlignment);
    printf("managed %d, concurrent managed %d, unified addressing %d, map host %d, cooperative %d, cluster %d, "
           "copy engines %d, ECC %d, integrated %d\n",
           p.managedMemory, p.concurrentManagedAccess, p.unifiedAddressing, p.canMapHostMemory, p.cooperativeLaunch,
           p.clusterLaunch, p.asyncEngineCount, p.ECCEnabled, p.integrated);
    SAYS(cudaGetDeviceProperties(&p, 1));
    SAYS(cudaSetDevice(1));
    SAYS(cudaGetLastError());
    SAYS(cudaGetLastError());
    int driver = 0, runtime = 0;
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    printf("runtime %d, driver at least the runtime: %s\n", runtime, driver >= runtime ? "yes" : "no");
    size_t free_bytes = 0, total = 0;
    CHECK(cudaMemGetInfo(&free_bytes, &total));
    printf("cudaMemGetInfo: total is totalGlobalMem: %s, free at most total: %s\n",
           total == p.totalGlobalMem ? "yes" : "no", free_bytes <= total ? "yes" : "no");
    return 0;
}

// ----- errors: every cudaError_t's name and words -----
static int errors(void) {
    const cudaError_t some[] = {cudaSuccess, cudaErrorInvalidValue, cudaErrorMemoryAllocation,
                                cudaErrorInvalidConfiguration, cudaErrorInvalidSymbol, cudaErrorInvalidMemcpyDirection,
                                cudaErrorInvalidDevice, cudaErrorInvalidResourceHandle, cudaErrorNotReady,
                                cudaErrorIllegalAddress, cudaErrorMisalignedAddress, cudaErrorLaunchFailure,
                                cudaErrorNotSupported, cudaErrorUnsupportedLimit, cudaErrorHostMemoryAlreadyRegistered,
                                cudaErrorNoDevice, cudaErrorUnknown};
    for (cudaError_t e : some) printf("%d %s: %s\n", (int)e, cudaGetErrorName(e), cudaGetErrorString(e));
    int named = 0;
    for (int e = 0; e <= 10000; ++e) named += strcmp(cudaGetErrorName((cudaError_t)e), "unrecognized error code") != 0;
    printf("values 0 to 10000 with a name: %d\n", named);
    printf("12345: %s: %s\n", cudaGetErrorName((cudaError_t)12345), cudaGetErrorString((cudaError_t)12345));
    return 0;
}

// ----- __constant__ memory written by cudaMemcpyToSymbol, read by a kernel -----
__constant__ float coefficients[4];
__global__ void polynomial(const float *x, float *y, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = coefficients[0] + x[i] * (coefficients[1] + x[i] * (coefficients[2] + x[i] * coefficients[3]));
}
static int constant(void) {
    const int n = 8;
    const float c[4] = {1, 2, 3, 4}, last = 0.5f;
    float x[n], y[n], *d_x, *d_y;
    for (int i = 0; i < n; ++i) x[i] = (float)i;
    CHECK(cudaMemcpyToSymbol(coefficients, c, sizeof c));
    CHECK(cudaMemcpyToSymbol(coefficients, &last, sizeof last, 3 * sizeof(float))); // offset: the last one
    CHECK(cudaMalloc(&d_x, sizeof x));
    CHECK(cudaMalloc(&d_y, sizeof y));
    CHECK(cudaMemcpy(d_x, x, sizeof x, cudaMemcpyHostToDevice));
    polynomial<<<2, 4>>>(d_x, d_y, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(y, d_y, sizeof y, cudaMemcpyDeviceToHost));
    printf("y =");
    for (int i = 0; i < n; ++i) printf(" %g", y[i]);
    printf("\n");
    float back[2];
    CHECK(cudaMemcpyFromSymbol(back, coefficients, sizeof back, 2 * sizeof(float)));
    printf("coefficients[2..3] = %g %g\n", back[0], back[1]);
    size_t size = 0;
    CHECK(cudaGetSymbolSize(&size, coefficients));
    printf("cudaGetSymbolSize(coefficients) = %zu\n", size);
    SAYS(cudaMemcpyToSymbol(coefficients, c, sizeof c, sizeof(float)));             // past its end
    SAYS(cudaMemcpyToSymbol(coefficients, c, sizeof c, 0, cudaMemcpyDeviceToHost)); // the wrong way
    SAYS(cudaMemcpyToSymbol(coefficients[1], c, sizeof(float)));                   // not a symbol's start
    SAYS(cudaGetLastError());
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    return 0;
}

// ----- a __device__ array: to and from the host with offsets, doubled by a kernel in between -----
__device__ int table[100];
__device__ unsigned launches;
__global__ void double_table(int from, int count) {
    const int i = from + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < from + count) table[i] *= 2;
    if (blockIdx.x == 0 && threadIdx.x == 0) ++launches;
}
static int device_array(void) {
    int all[100], part[10];
    for (int i = 0; i < 100; ++i) all[i] = i;
    for (int i = 0; i < 10; ++i) part[i] = 1000 + i;
    const unsigned zero = 0;
    CHECK(cudaMemcpyToSymbol(launches, &zero, sizeof zero));
    CHECK(cudaMemcpyToSymbol(table, all, sizeof all));
    CHECK(cudaMemcpyToSymbol(table, part, sizeof part, 40 * sizeof(int))); // table[40..49]
    double_table<<<2, 8>>>(35, 10);                                      // table[35..44]
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int back[14];
    CHECK(cudaMemcpyFromSymbol(back, table, sizeof back, 34 * sizeof(int))); // table[34..47]
    printf("table[34..47] =");
    for (int i = 0; i < 14; ++i) printf(" %d", back[i]);
    printf("\n");
    unsigned count = 0;
    CHECK(cudaMemcpyFromSymbol(&count, launches, sizeof count));
    printf("launches = %u\n", count);
    size_t size = 0;
    CHECK(cudaGetSymbolSize(&size, table));
    printf("cudaGetSymbolSize(table) = %zu\n", size);
    int *address = NULL; // the array's device address: a kernel may use it like any device pointer
    CHECK(cudaGetSymbolAddress((void **)&address, table));
    int first = -1;
    CHECK(cudaMemcpy(&first, address + 40, sizeof first, cudaMemcpyDeviceToHost));
    printf("table[40] through cudaGetSymbolAddress = %d\n", first);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    const int two[2] = {-1, -2};
    CHECK(cudaMemcpyToSymbolAsync(table, two, sizeof two, 98 * sizeof(int), cudaMemcpyHostToDevice, s));
    CHECK(cudaMemcpyFromSymbolAsync(back, table, 3 * sizeof(int), 97 * sizeof(int), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    printf("table[97..99] through a stream = %d %d %d\n", back[0], back[1], back[2]);
    SAYS(cudaMemcpyFromSymbol(back, table, sizeof back, 90 * sizeof(int))); // past its end
    int host_variable = 0;
    SAYS(cudaMemcpyToSymbol(host_variable, part, sizeof(int))); // not a device variable
    SAYS(cudaGetLastError());
    return 0;
}

// ----- managed memory: written by the host, then a kernel, then read by the host -----
__global__ void add_index(int *data, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += i;
}
static int managed(void) {
    const int n = 1000;
    int *data = NULL;
    CHECK(cudaMallocManaged(&data, n * sizeof(int)));
    for (int i = 0; i < n; ++i) data[i] = 3;
    cudaMemLocation gpu = {};
    gpu.type = cudaMemLocationTypeDevice;
    gpu.id = 0;
    CHECK(cudaMemAdvise(data, n * sizeof(int), cudaMemAdviseSetPreferredLocation, gpu));
    CHECK(cudaMemPrefetchAsync(data, n * sizeof(int), gpu, 0, 0));
    add_index<<<(n + 255) / 256, 256>>>(data, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    long long sum = 0;
    for (int i = 0; i < n; ++i) sum += data[i];
    printf("managed: data[0] = %d, data[999] = %d, sum = %lld\n", data[0], data[n - 1], sum);
    SAYS(cudaMallocManaged(&data, 16, 7)); // no such flags
    SAYS(cudaGetLastError());
    CHECK(cudaFree(data));
    return 0;
}

// ----- cudaPointerGetAttributes: device, pinned host, managed and ordinary host memory -----
static int pointer_attributes(void) {
    float *device, *host, *mapped;
    int *both;
    int stack = 0;
    CHECK(cudaMalloc(&device, 64));
    CHECK(cudaMallocHost(&host, 64));
    CHECK(cudaHostAlloc(&mapped, 64, cudaHostAllocMapped));
    CHECK(cudaMallocManaged(&both, 64));
    const struct {
        const char *what;
        const void *pointer;
    } cases[] = {{"cudaMalloc", device}, {"cudaMalloc + 5", device + 5}, {"cudaMallocHost", host},
                 {"cudaHostAlloc", mapped}, {"cudaMallocManaged", both}, {"a local", &stack}};
    for (const auto &c : cases) {
        cudaPointerAttributes a;
        CHECK(cudaPointerGetAttributes(&a, c.pointer));
        printf("%s: type %d, device %d, devicePointer %s, hostPointer %s\n", c.what, (int)a.type, a.device,
               a.devicePointer == c.pointer ? "it" : a.devicePointer ? "another" : "none",
               a.hostPointer == c.pointer ? "it" : a.hostPointer ? "another" : "none");
    }
    CHECK(cudaFree(device));
    CHECK(cudaFreeHost(host));
    CHECK(cudaFreeHost(mapped));
    CHECK(cudaFree(both));
    return 0;
}

// ----- pitched memory and 2D copies, with widths that are no multiple of anything -----
__global__ void scale_rows(float *rows, size_t pitch, int width, int height) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    float *row = (float *)((char *)rows + y * pitch);
    if (x < width && y < height) row[x] = row[x] * 10 + y;
}
static int pitch(void) {
    const size_t widths[] = {1, 3, 100, 511, 512, 513, 1000, 1025, 4096, 5000};
    printf("pitches:");
    for (size_t w : widths) {
        void *p;
        size_t pitch = 0;
        CHECK(cudaMallocPitch(&p, &pitch, w, 7));
        printf(" %zu->%zu", w, pitch);
        CHECK(cudaFree(p));
    }
    printf("\n");
    const int width = 7, height = 5; // floats: 28-byte rows
    float host[height][width], back[height][width + 2];
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) host[y][x] = (float)(y * width + x);
    float *rows;
    size_t pitch = 0;
    CHECK(cudaMallocPitch(&rows, &pitch, width * sizeof(float), height));
    CHECK(cudaMemcpy2D(rows, pitch, host, sizeof host[0], width * sizeof(float), height, cudaMemcpyHostToDevice));
    scale_rows<<<dim3(1, height), 32>>>(rows, pitch, width, height);
    CHECK(cudaGetLastError());
    memset(back, 0, sizeof back);
    CHECK(cudaMemcpy2D(back, sizeof back[0], rows, pitch, width * sizeof(float), height, cudaMemcpyDeviceToHost));
    int right = 0;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width + 2; ++x)
            right += back[y][x] == (x < width ? host[y][x] * 10 + y : 0);
    printf("2D round trip, 28-byte rows in a %zu-byte pitch: %d of %d right\n", pitch, right, height * (width + 2));
    // bytes: 37 of each row set to 0x5a, the rest of the row kept
    unsigned char *bytes;
    size_t byte_pitch = 0;
    CHECK(cudaMallocPitch(&bytes, &byte_pitch, 37, 3));
    CHECK(cudaMemset2D(bytes, byte_pitch, 0x11, 40, 3));
    CHECK(cudaMemset2D(bytes, byte_pitch, 0x5a, 37, 3));
    unsigned char out[3][41];
    CHECK(cudaMemcpy2D(out, 41, bytes, byte_pitch, 40, 3, cudaMemcpyDeviceToHost));
    int fives = 0, ones = 0;
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 40; ++x) fives += out[y][x] == 0x5a, ones += out[y][x] == 0x11;
    printf("cudaMemset2D: %d bytes 0x5a, %d bytes 0x11\n", fives, ones);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMemcpy2DAsync(rows, pitch, host, sizeof host[0], width * sizeof(float), height, cudaMemcpyHostToDevice,
                            s));
    CHECK(cudaMemset2DAsync(bytes, byte_pitch, 0, 37, 3, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
    SAYS(cudaMemcpy2D(rows, 16, host, sizeof host[0], width * sizeof(float), height, cudaMemcpyHostToDevice));
    SAYS(cudaMemset2D(bytes, 16, 0, 17, 2));
    SAYS(cudaGetLastError());
    CHECK(cudaFree(rows));
    CHECK(cudaFree(bytes));
    return 0;
}

// ----- streams and events, as cuda-samples use them -----
__global__ void fill(int *data, int n, int value) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = value + i;
}
static void CUDART_CB host_function(void *data) { printf("host function ran: %s\n", (const char *)data); }
static int streams(void) {
    int least = 1, greatest = 1;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    printf("priorities: least %d, greatest %d\n", least, greatest);
    const int n = 1 << 12, count = 4, chunk = n / count;
    int *host, *device;
    CHECK(cudaMallocHost(&host, n * sizeof(int)));
    CHECK(cudaMalloc(&device, n * sizeof(int)));
    cudaStream_t stream[count];
    for (int i = 0; i < count; ++i)
        CHECK(i % 2 ? cudaStreamCreateWithFlags(&stream[i], cudaStreamNonBlocking)
                    : cudaStreamCreateWithPriority(&stream[i], cudaStreamDefault, greatest - i));
    cudaEvent_t start, stop, done[count];
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));
    for (int i = 0; i < count; ++i) CHECK(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming));
    CHECK(cudaEventRecord(start, 0));
    for (int i = 0; i < count; ++i) {
        fill<<<chunk / 256, 256, 0, stream[i]>>>(device + i * chunk, chunk, 1000 * i);
        CHECK(cudaMemcpyAsync(host + i * chunk, device + i * chunk, chunk * sizeof(int), cudaMemcpyDeviceToHost,
                              stream[i]));
        CHECK(cudaEventRecordWithFlags(done[i], stream[i], cudaEventRecordDefault));
        CHECK(cudaStreamWaitEvent(stream[(i + 1) % count], done[i], 0));
    }
    CHECK(cudaLaunchHostFunc(stream[0], host_function, (void *)"after stream 0's work"));
    CHECK(cudaEventRecord(stop, 0));
    CHECK(cudaEventSynchronize(stop));
    for (int i = 0; i < count; ++i) CHECK(cudaStreamSynchronize(stream[i]));
    int right = 0;
    for (int i = 0; i < n; ++i) right += host[i] == 1000 * (i / chunk) + i % chunk;
    printf("streams: %d of %d right\n", right, n);
    printf("cudaStreamQuery: %s, cudaEventQuery: %s\n", cudaGetErrorName(cudaStreamQuery(stream[1])),
           cudaGetErrorName(cudaEventQuery(stop)));
    unsigned flags = 9;
    int priority = 9;
    CHECK(cudaStreamGetFlags(stream[1], &flags));
    CHECK(cudaStreamGetPriority(stream[2], &priority));
    printf("stream 1's flags %u, stream 2's priority %d\n", flags, priority);
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    printf("elapsed time measured: %s\n", ms >= 0 ? "yes" : "no");
    SAYS(cudaEventElapsedTime(&ms, done[0], stop)); // made with cudaEventDisableTiming
    cudaEvent_t never;
    CHECK(cudaEventCreate(&never));
    SAYS(cudaEventElapsedTime(&ms, start, never)); // never recorded
    printf("cudaEventQuery of an event never recorded: %s\n", cudaGetErrorName(cudaEventQuery(never)));
    SAYS(cudaStreamCreateWithFlags(&stream[0], 7));
    SAYS(cudaEventCreateWithFlags(&never, 0x100));
    SAYS(cudaGetLastError());
    for (int i = 0; i < count; ++i) CHECK(cudaStreamDestroy(stream[i]));
    for (int i = 0; i < count; ++i) CHECK(cudaEventDestroy(done[i]));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaEventDestroy(never));
    CHECK(cudaFreeHost(host));
    CHECK(cudaFree(device));
    CHECK(cudaProfilerStart());
    CHECK(cudaProfilerStop());
    return 0;
}

// ----- device settings: limits, flags, cache and bank configuration, kernel attributes, reset -----
__global__ void uses_dynamic_shared(float *out) {
    extern __shared__ float buffer[];
    buffer[threadIdx.x] = (float)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = buffer[blockDim.x - 1 - threadIdx.x];
}
static int settings(void) {
    const char *names[] = {"stack", "printf FIFO", "malloc heap", "sync depth", "pending launches",
                           "L2 fetch granularity", "persisting L2"};
    for (int limit = 0; limit < 7; ++limit) {
        size_t value = 12345;
        const cudaError_t e = cudaDeviceGetLimit(&value, (cudaLimit)limit);
        printf("limit %s: %s %zu\n", names[limit], cudaGetErrorName(e), value);
    }
    cudaGetLastError();
    size_t value = 0;
    CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 4000));
    CHECK(cudaDeviceGetLimit(&value, cudaLimitStackSize));
    printf("stack 4000 -> %zu\n", value);
    CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 << 20));
    CHECK(cudaDeviceGetLimit(&value, cudaLimitMallocHeapSize));
    printf("heap 64 MiB -> %zu\n", value);
    CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 1000));
    CHECK(cudaDeviceGetLimit(&value, cudaLimitPrintfFifoSize));
    printf("printf FIFO 1000 -> %zu\n", value);
    unsigned flags = 0;
    CHECK(cudaGetDeviceFlags(&flags));
    printf("device flags %u\n", flags);
    CHECK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
    CHECK(cudaGetDeviceFlags(&flags));
    printf("device flags after cudaDeviceScheduleBlockingSync %u\n", flags);
    SAYS(cudaSetDeviceFlags(0xffff));
    SAYS(cudaGetLastError());
    cudaFuncCache cache;
    CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
    CHECK(cudaDeviceGetCacheConfig(&cache));
    printf("cache config %d\n", (int)cache);
    CHECK(cudaFuncSetCacheConfig(uses_dynamic_shared, cudaFuncCachePreferL1));
    cudaFuncAttributes a;
    CHECK(cudaFuncGetAttributes(&a, uses_dynamic_shared));
    printf("kernel: maxThreadsPerBlock %d, ptxVersion %d, binaryVersion %d, maxDynamicSharedSizeBytes %d\n",
           a.maxThreadsPerBlock, a.ptxVersion, a.binaryVersion, a.maxDynamicSharedSizeBytes);
    CHECK(cudaFuncSetAttribute(uses_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000));
    CHECK(cudaFuncGetAttributes(&a, uses_dynamic_shared));
    printf("after the opt-in to 100000: maxDynamicSharedSizeBytes %d\n", a.maxDynamicSharedSizeBytes);
    float *out;
    CHECK(cudaMalloc(&out, 64 * sizeof(float)));
    uses_dynamic_shared<<<1, 64, 60000>>>(out);
    CHECK(cudaGetLastError());
    float last = -1;
    CHECK(cudaMemcpy(&last, out + 63, sizeof last, cudaMemcpyDeviceToHost));
    printf("a launch with 60000 bytes of dynamic shared memory: out[63] = %g\n", last);
    CHECK(cudaFree(out));
    int device = -1, can = -1;
    cudaDeviceProp wanted;
    memset(&wanted, 0, sizeof wanted);
    wanted.major = 9;
    CHECK(cudaChooseDevice(&device, &wanted));
    CHECK(cudaDeviceCanAccessPeer(&can, 0, 0));
    printf("cudaChooseDevice %d, cudaDeviceCanAccessPeer(0, 0) %d\n", device, can);
    SAYS(cudaDeviceCanAccessPeer(&can, 0, 1));
    SAYS(cudaGetLastError());
    CHECK(cudaDeviceReset());
    CHECK(cudaDeviceGetLimit(&value, cudaLimitStackSize));
    CHECK(cudaDeviceGetCacheConfig(&cache));
    printf("after cudaDeviceReset: stack %zu, cache config %d\n", value, (int)cache);
    return 0;
}

// ----- pinned memory: cudaHostAlloc's mapped pointer used by a kernel, cudaHostRegister -----
__global__ void square(int *data, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= data[i];
}
static int pinned(void) {
    const int n = 100;
    int *host = NULL, *device = NULL;
    CHECK(cudaHostAlloc(&host, n * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable));
    for (int i = 0; i < n; ++i) host[i] = i;
    CHECK(cudaHostGetDevicePointer((void **)&device, host, 0));
    square<<<1, 128>>>(device, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("mapped: host[7] = %d, host[99] = %d\n", host[7], host[99]);
    unsigned flags = 0;
    CHECK(cudaHostGetFlags(&flags, host));
    printf("cudaHostGetFlags: %u\n", flags);
    static int registered[4096];
    CHECK(cudaHostRegister(registered, sizeof registered, cudaHostRegisterDefault));
    SAYS(cudaHostRegister(registered, sizeof registered, cudaHostRegisterDefault));
    CHECK(cudaHostUnregister(registered));
    SAYS(cudaHostUnregister(registered));
    SAYS(cudaHostAlloc(&host, 16, 0x100));
    SAYS(cudaGetLastError());
    return 0;
}

// ----- what the runner cannot do says so (one line on stderr) and fails: not run on a GPU, where both work -----
__constant__ const float fixed[2] = {1, 2};
__global__ void nothing(int) {}
static int not_on_runner(void) {
    const float values[2] = {3, 4};
    SAYS(cudaMemcpyToSymbol(fixed, values, sizeof values)); // const: read-only memory on the CPU
    int argument = 1;
    void *arguments[] = {&argument};
    SAYS(cudaLaunchKernel((const void *)nothing, dim3(1), dim3(1), arguments, 0, 0)); // arguments unknown here
    return 0;
}

// ----- occupancy: the toolkit's templates, over cudaFuncGetAttributes and the attributes -----
static int occupancy(void) {
    int blocks = 0, grid = 0, block = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fill, 256, 0));
    printf("fill: %d blocks of 256 threads per SM\n", blocks);
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, uses_dynamic_shared, 128, 40000));
    printf("uses_dynamic_shared: %d blocks of 128 threads with 40000 bytes per SM\n", blocks);
    CHECK(cudaOccupancyMaxPotentialBlockSize(&grid, &block, fill, 0, 0));
    printf("cudaOccupancyMaxPotentialBlockSize(fill): block %d, grid %d\n", block, grid);
    return 0;
}

int main(int argc, char **argv) {
    const struct {
        const char *name;
        int (*run)(void);
    } cases[] = {{"attributes", attributes},
                 {"properties", properties},
                 {"errors", errors},
                 {"constant", constant},
                 {"device_array", device_array},
                 {"managed", managed},
                 {"pointer_attributes", pointer_attributes},
                 {"pitch", pitch},
                 {"streams", streams},
                 {"settings", settings},
                 {"pinned", pinned},
                 {"occupancy", occupancy},
                 {"not_on_runner", not_on_runner}};
    for (const auto &c : cases)
        if (argc == 2 && strcmp(argv[1], c.name) == 0) return c.run();
    fprintf(stderr, "usage: %s CASE (attributes, properties, errors, constant, device_array, managed, "
                    "pointer_attributes, pitch, streams, settings, pinned, occupancy, not_on_runner)\n", argv[0]);
    return 2;
}
