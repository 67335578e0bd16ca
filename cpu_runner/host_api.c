/* The CUDA runtime's calls about the device, memory beyond cudaMalloc/cudaMemcpy/cudaMemset (runtime.c's),
 * symbols, streams, events and errors, answered on the host in plain C.
 *
 * The GPU the runner models: one H100 SXM5 80GB (GH100, compute capability 9.0, 132 SMs at 1980 MHz, 50 MB
 * of L2, 80 GB of HBM3 on a 5120-bit bus at 2619 MHz), with CUDA 13.0's runtime and driver. Every field of
 * cudaDeviceProp and every attribute of driver_types.h's enum cudaDeviceAttr is what that GPU reports: the
 * figures an H200 (the same GH100 chip) reported under CUDA 13.0, with the H100's memory, L2, clocks and PCI
 * ids in place of the H200's. The name says it is the CPU runner. What the runner cannot be (a GPU's time,
 * registers, textures, graphs) is said in one line where it is asked, never answered wrongly. */
#define _GNU_SOURCE
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime.h"

/* ----- the model's figures ----- */
#define H100_GLOBAL_MEMORY 85029158912ull /* 81090 MiB: an H100 80GB HBM3's totalGlobalMem (driver 5xx) */
#define H100_L2 (50 * 1024 * 1024)
#define H100_PERSISTING_L2_MAX 32768000 /* 5/8 of the L2, as the H200's 39321600 of its 60 MB */
#define H100_CLOCK_KHZ 1980000          /* boost clock */
#define H100_MEMORY_CLOCK_KHZ 2619000
#define H100_BUS_BITS 5120
#define H100_PCI_ID 0x233010DEu          /* device 0x2330 (H100 SXM5 80GB), vendor 0x10de */
#define H100_PCI_SUBSYSTEM_ID 0x16C110DEu
#define PITCH_ALIGNMENT 512               /* what cudaMallocPitch rounds a row up to on an H100 / H200 */
#define LEAST_PRIORITY 0
#define GREATEST_PRIORITY (-5)

static void not_on_runner(const char *call, const char *why) {
    fflush(stdout);
    fprintf(stderr, "CPU runner: %s is not on the CPU runner: %s\n", call, why);
}

/* ----- errors: each call that fails also sets what cudaGetLastError returns, as the runtime does ----- */
static cudaError_t last_error = cudaSuccess;
void cuda_cpu_set_last_error(cudaError_t error) { last_error = error; }
static cudaError_t fail(cudaError_t error) {
    if (error != cudaSuccess) last_error = error;
    return error;
}
/* a kernel's fault (misaligned, illegal address) is sticky: every later call returns it, as on a GPU */
#define RETURN_IF_STICKY()                                                                                             \
    do {                                                                                                               \
        if (cuda_cpu_sticky_error()) return cuda_cpu_sticky_error();                                                  \
    } while (0)

cudaError_t cudaGetLastError(void) {
    if (cuda_cpu_sticky_error()) return cuda_cpu_sticky_error();
    const cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}
cudaError_t cudaPeekAtLastError(void) { return cuda_cpu_sticky_error() ? cuda_cpu_sticky_error() : last_error; }

/* cudaGetErrorName and cudaGetErrorString: every value of driver_types.h's enum cudaError, with the words
 * CUDA 13.0's runtime gives (read on an H200); another value: "unrecognized error code", as there. */
#define E(value, text) {value, #value, text}
static const struct {
    cudaError_t value;
    const char *name, *text;
} error_texts[] = {
    E(cudaSuccess, "no error"),
    E(cudaErrorInvalidValue, "invalid argument"),
    E(cudaErrorMemoryAllocation, "out of memory"),
    E(cudaErrorInitializationError, "initialization error"),
    E(cudaErrorCudartUnloading, "driver shutting down"),
    E(cudaErrorProfilerDisabled, "profiler disabled while using external profiling tool"),
    E(cudaErrorProfilerNotInitialized, "profiler not initialized: call cudaProfilerInitialize()"),
    E(cudaErrorProfilerAlreadyStarted, "profiler already started"),
    E(cudaErrorProfilerAlreadyStopped, "profiler already stopped"),
    E(cudaErrorInvalidConfiguration, "invalid configuration argument"),
    E(cudaErrorInvalidPitchValue, "invalid pitch argument"),
    E(cudaErrorInvalidSymbol, "invalid device symbol"),
    E(cudaErrorInvalidHostPointer, "invalid host pointer"),
    E(cudaErrorInvalidDevicePointer, "invalid device pointer"),
    E(cudaErrorInvalidTexture, "invalid texture reference"),
    E(cudaErrorInvalidTextureBinding, "texture is not bound to a pointer"),
    E(cudaErrorInvalidChannelDescriptor, "invalid channel descriptor"),
    E(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy"),
    E(cudaErrorAddressOfConstant, "invalid address of constant"),
    E(cudaErrorTextureFetchFailed, "fetch from texture failed"),
    E(cudaErrorTextureNotBound, "cannot fetch from a texture that is not bound"),
    E(cudaErrorSynchronizationError, "incorrect use of __syncthreads()"),
    E(cudaErrorInvalidFilterSetting, "linear filtering not supported for non-float type"),
    E(cudaErrorInvalidNormSetting, "read as normalized float not supported for data type"),
    E(cudaErrorMixedDeviceExecution, "device emulation mode and device execution mode cannot be mixed"),
    E(cudaErrorNotYetImplemented, "feature not yet implemented"),
    E(cudaErrorMemoryValueTooLarge, "memory size or pointer value too large to fit in 32 bit"),
    E(cudaErrorStubLibrary, "CUDA driver is a stub library"),
    E(cudaErrorInsufficientDriver, "CUDA driver version is insufficient for CUDA runtime version"),
    E(cudaErrorCallRequiresNewerDriver, "API call is not supported in the installed CUDA driver"),
    E(cudaErrorInvalidSurface, "invalid surface reference"),
    E(cudaErrorDuplicateVariableName, "duplicate global variable looked up by string name"),
    E(cudaErrorDuplicateTextureName, "duplicate texture looked up by string name"),
    E(cudaErrorDuplicateSurfaceName, "duplicate surface looked up by string name"),
    E(cudaErrorDevicesUnavailable, "CUDA-capable device(s) is/are busy or unavailable"),
    E(cudaErrorIncompatibleDriverContext, "incompatible driver context"),
    E(cudaErrorMissingConfiguration, "__global__ function call is not configured"),
    E(cudaErrorPriorLaunchFailure, "unspecified launch failure in prior launch"),
    E(cudaErrorLaunchMaxDepthExceeded, "launch would exceed maximum depth of nested launches"),
    E(cudaErrorLaunchFileScopedTex, "launch failed because kernel uses unsupported, file-scoped textures (texture objects are supported)"),
    E(cudaErrorLaunchFileScopedSurf, "launch failed because kernel uses unsupported, file-scoped surfaces (surface objects are supported)"),
    E(cudaErrorSyncDepthExceeded, "cudaDeviceSynchronize failed because caller's grid depth exceeds cudaLimitDevRuntimeSyncDepth"),
    E(cudaErrorLaunchPendingCountExceeded, "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount"),
    E(cudaErrorInvalidDeviceFunction, "invalid device function"),
    E(cudaErrorNoDevice, "no CUDA-capable device is detected"),
    E(cudaErrorInvalidDevice, "invalid device ordinal"),
    E(cudaErrorDeviceNotLicensed, "device doesn't have valid Grid license"),
    E(cudaErrorSoftwareValidityNotEstablished, "integrity checks failed"),
    E(cudaErrorStartupFailure, "startup failure in cuda runtime"),
    E(cudaErrorInvalidKernelImage, "device kernel image is invalid"),
    E(cudaErrorDeviceUninitialized, "invalid device context"),
    E(cudaErrorMapBufferObjectFailed, "mapping of buffer object failed"),
    E(cudaErrorUnmapBufferObjectFailed, "unmapping of buffer object failed"),
    E(cudaErrorArrayIsMapped, "array is mapped"),
    E(cudaErrorAlreadyMapped, "resource already mapped"),
    E(cudaErrorNoKernelImageForDevice, "no kernel image is available for execution on the device"),
    E(cudaErrorAlreadyAcquired, "resource already acquired"),
    E(cudaErrorNotMapped, "resource not mapped"),
    E(cudaErrorNotMappedAsArray, "resource not mapped as array"),
    E(cudaErrorNotMappedAsPointer, "resource not mapped as pointer"),
    E(cudaErrorECCUncorrectable, "uncorrectable ECC error encountered"),
    E(cudaErrorUnsupportedLimit, "limit is not supported on this architecture"),
    E(cudaErrorDeviceAlreadyInUse, "exclusive-thread device already in use by a different thread"),
    E(cudaErrorPeerAccessUnsupported, "peer access is not supported between these two devices"),
    E(cudaErrorInvalidPtx, "a PTX JIT compilation failed"),
    E(cudaErrorInvalidGraphicsContext, "invalid OpenGL or DirectX context"),
    E(cudaErrorNvlinkUncorrectable, "uncorrectable NVLink error detected during the execution"),
    E(cudaErrorJitCompilerNotFound, "PTX JIT compiler library not found"),
    E(cudaErrorUnsupportedPtxVersion, "the provided PTX was compiled with an unsupported toolchain."),
    E(cudaErrorJitCompilationDisabled, "PTX JIT compilation was disabled"),
    E(cudaErrorUnsupportedExecAffinity, "the provided execution affinity is not supported"),
    E(cudaErrorUnsupportedDevSideSync, "the provided PTX contains unsupported call to cudaDeviceSynchronize"),
    E(cudaErrorContained, "Invalid access of peer GPU memory over nvlink or a hardware error"),
    E(cudaErrorInvalidSource, "device kernel image is invalid"),
    E(cudaErrorFileNotFound, "file not found"),
    E(cudaErrorSharedObjectSymbolNotFound, "shared object symbol not found"),
    E(cudaErrorSharedObjectInitFailed, "shared object initialization failed"),
    E(cudaErrorOperatingSystem, "OS call failed or operation not supported on this OS"),
    E(cudaErrorInvalidResourceHandle, "invalid resource handle"),
    E(cudaErrorIllegalState, "the operation cannot be performed in the present state"),
    E(cudaErrorLossyQuery, "attempted introspection would be semantically lossy"),
    E(cudaErrorSymbolNotFound, "named symbol not found"),
    E(cudaErrorNotReady, "device not ready"),
    E(cudaErrorIllegalAddress, "an illegal memory access was encountered"),
    E(cudaErrorLaunchOutOfResources, "too many resources requested for launch"),
    E(cudaErrorLaunchTimeout, "the launch timed out and was terminated"),
    E(cudaErrorLaunchIncompatibleTexturing, "launch uses incompatible texturing mode"),
    E(cudaErrorPeerAccessAlreadyEnabled, "peer access is already enabled"),
    E(cudaErrorPeerAccessNotEnabled, "peer access has not been enabled"),
    E(cudaErrorSetOnActiveProcess, "cannot set while device is active in this process"),
    E(cudaErrorContextIsDestroyed, "context is destroyed"),
    E(cudaErrorAssert, "device-side assert triggered"),
    E(cudaErrorTooManyPeers, "peer mapping resources exhausted"),
    E(cudaErrorHostMemoryAlreadyRegistered, "part or all of the requested memory range is already mapped"),
    E(cudaErrorHostMemoryNotRegistered, "pointer does not correspond to a registered memory region"),
    E(cudaErrorHardwareStackError, "hardware stack error"),
    E(cudaErrorIllegalInstruction, "an illegal instruction was encountered"),
    E(cudaErrorMisalignedAddress, "misaligned address"),
    E(cudaErrorInvalidAddressSpace, "operation not supported on global/shared address space"),
    E(cudaErrorInvalidPc, "invalid program counter"),
    E(cudaErrorLaunchFailure, "unspecified launch failure"),
    E(cudaErrorCooperativeLaunchTooLarge, "too many blocks in cooperative launch"),
    E(cudaErrorTensorMemoryLeak, "tensor memory not completely freed"),
    E(cudaErrorNotPermitted, "operation not permitted"),
    E(cudaErrorNotSupported, "operation not supported"),
    E(cudaErrorSystemNotReady, "system not yet initialized"),
    E(cudaErrorSystemDriverMismatch, "system has unsupported display driver / cuda driver combination"),
    E(cudaErrorCompatNotSupportedOnDevice, "forward compatibility was attempted on non supported HW"),
    E(cudaErrorMpsConnectionFailed, "MPS client failed to connect to the MPS control daemon or the MPS server"),
    E(cudaErrorMpsRpcFailure, "the remote procedural call between the MPS server and the MPS client failed"),
    E(cudaErrorMpsServerNotReady, "MPS server is not ready to accept new MPS client requests"),
    E(cudaErrorMpsMaxClientsReached, "the hardware resources required to create MPS client have been exhausted"),
    E(cudaErrorMpsMaxConnectionsReached, "the hardware resources required to support device connections have been exhausted"),
    E(cudaErrorMpsClientTerminated, "the MPS client has been terminated by the server"),
    E(cudaErrorCdpNotSupported, "is using CUDA Dynamic Parallelism, but the current configuration, like MPS, does not support it"),
    E(cudaErrorCdpVersionMismatch, "unsupported interaction between different versions of CUDA Dynamic Parallelism"),
    E(cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing"),
    E(cudaErrorStreamCaptureInvalidated, "operation failed due to a previous error during capture"),
    E(cudaErrorStreamCaptureMerge, "operation would result in a merge of separate capture sequences"),
    E(cudaErrorStreamCaptureUnmatched, "capture was not ended in the same stream as it began"),
    E(cudaErrorStreamCaptureUnjoined, "capturing stream has unjoined work"),
    E(cudaErrorStreamCaptureIsolation, "dependency created on uncaptured work in another stream"),
    E(cudaErrorStreamCaptureImplicit, "operation would make the legacy stream depend on a capturing blocking stream"),
    E(cudaErrorCapturedEvent, "operation not permitted on an event last recorded in a capturing stream"),
    E(cudaErrorStreamCaptureWrongThread, "attempt to terminate a thread-local capture sequence from another thread"),
    E(cudaErrorTimeout, "wait operation timed out"),
    E(cudaErrorGraphExecUpdateFailure, "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"),
    E(cudaErrorExternalDevice, "an async error has occured in external entity outside of CUDA"),
    E(cudaErrorInvalidClusterSize, "a kernel launch error has occurred due to cluster misconfiguration"),
    E(cudaErrorFunctionNotLoaded, "the function handle is not loaded when calling an API that requires a loaded function"),
    E(cudaErrorInvalidResourceType, "one or more resources passed in are not valid resource types for the operation"),
    E(cudaErrorInvalidResourceConfiguration, "one or more resources are insufficient or non-applicable for the operation"),
    E(cudaErrorUnknown, "unknown error"),
    E(cudaErrorApiFailureBase, "api failure base"),
};
#undef E
static int error_index(cudaError_t e) {
    for (int i = 0; i < (int)(sizeof error_texts / sizeof *error_texts); ++i)
        if (error_texts[i].value == e) return i;
    return -1;
}
const char *cudaGetErrorName(cudaError_t e) {
    const int i = error_index(e);
    return i < 0 ? "unrecognized error code" : error_texts[i].name;
}
const char *cudaGetErrorString(cudaError_t e) {
    const int i = error_index(e);
    return i < 0 ? "unrecognized error code" : error_texts[i].text;
}

/* ----- the device ----- */
static const unsigned default_device_flags = cudaDeviceMapHost; /* as an H100 reports before any is set */
static unsigned device_flags = cudaDeviceMapHost;
static enum cudaFuncCache cache_config = cudaFuncCachePreferNone;
/* cudaDeviceGetLimit's answers on an H100 with CUDA 13.0 until cudaDeviceSetLimit (kept, not enforced: a
 * kernel's stack, printf and malloc are the CPU's here) */
static const size_t default_limits[] = {
    [cudaLimitStackSize] = 1024,
    [cudaLimitPrintfFifoSize] = 8650752,
    [cudaLimitMallocHeapSize] = 8388608,
    [cudaLimitDevRuntimeSyncDepth] = 0, /* unsupported on compute capability 9.0 */
    [cudaLimitDevRuntimePendingLaunchCount] = 2048,
    [cudaLimitMaxL2FetchGranularity] = 64,
    [cudaLimitPersistingL2CacheSize] = 9830400, /* 3/16 of the L2, as the H200's 11796480 of its 60 MB */
};
static size_t limits[sizeof default_limits / sizeof *default_limits];
static int limits_set;
static size_t limit_value(int limit) { return limits_set & 1 << limit ? limits[limit] : default_limits[limit]; }

/* CUDA_CPU_NO_DEVICE: this build stands in for a GPU program that could not be built (no CUDA compiler:
 * cpu_runner/only_cpu.c), run without --cpu: it has no GPU, and says why. */
cudaError_t cudaGetDeviceCount(int *count) {
    if (!count) return fail(cudaErrorInvalidValue);
    if (getenv("CUDA_CPU_NO_DEVICE")) {
        fprintf(stderr, "No GPU program here: this build found no CUDA compiler (nvcc), so it holds only the CPU "
                        "runner's (scripts/install_deps.sh unpacks NVIDIA's from PyPI; docs/CPU_RUNNER.md).\n");
        *count = 0;
        return fail(cudaErrorNoDevice);
    }
    *count = 1;
    return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice); }
cudaError_t cudaGetDevice(int *device) {
    if (!device) return fail(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}
cudaError_t cudaInitDevice(int device, unsigned device_flags_, unsigned flags) {
    if (device != 0) return fail(cudaErrorInvalidDevice);
    if (flags != 0) return fail(cudaErrorInvalidValue);
    return device_flags_ ? cudaSetDeviceFlags(device_flags_) : cudaSuccess;
}
cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop) {
    if (!device || !prop) return fail(cudaErrorInvalidValue);
    *device = 0; /* the only one */
    return cudaSuccess;
}
cudaError_t cudaDeviceCanAccessPeer(int *can_access, int device, int peer) {
    if (!can_access) return fail(cudaErrorInvalidValue);
    if (device != 0 || peer != 0) return fail(cudaErrorInvalidDevice);
    *can_access = 0; /* a device is not its own peer */
    return cudaSuccess;
}
/* one device: itself is no peer (the GPU's answers), any other is no device */
cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned flags) {
    (void)flags;
    return fail(peer == 0 ? cudaErrorPeerAccessUnsupported : cudaErrorInvalidDevice);
}
cudaError_t cudaDeviceDisablePeerAccess(int peer) {
    return fail(peer == 0 ? cudaErrorPeerAccessNotEnabled : cudaErrorInvalidDevice);
}
cudaError_t cudaDeviceGetPCIBusId(char *id, int length, int device) {
    if (device != 0) return fail(cudaErrorInvalidDevice);
    if (!id || length <= 0) return fail(cudaErrorInvalidValue);
    snprintf(id, (size_t)length, "0000:00:00.0");
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device) {
    if (!p) return fail(cudaErrorInvalidValue);
    if (device != 0) return fail(cudaErrorInvalidDevice);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name,
             "CPU runner (CUDA's rules on the CPU, no timing; shaped like an H100 SXM 80GB)");
    static const char uuid[16] = "CPU-runner-H100"; /* the runner's own, the same every run */
    memcpy(p->uuid.bytes, uuid, sizeof p->uuid.bytes);
    p->totalGlobalMem = H100_GLOBAL_MEMORY;
    p->sharedMemPerBlock = CUDA_CPU_SHARED_PER_BLOCK;
    p->regsPerBlock = 65536;
    p->warpSize = CUDA_CPU_WARP;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = CUDA_CPU_MAX_THREADS;
    p->maxThreadsDim[0] = 1024, p->maxThreadsDim[1] = 1024, p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647, p->maxGridSize[1] = 65535, p->maxGridSize[2] = 65535;
    p->totalConstMem = 65536;
    p->major = 9, p->minor = 0;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->multiProcessorCount = 132;
    p->integrated = 0;
    p->canMapHostMemory = 1;
    p->maxTexture1D = 131072;
    p->maxTexture1DMipmap = 32768;
    p->maxTexture2D[0] = 131072, p->maxTexture2D[1] = 65536;
    p->maxTexture2DMipmap[0] = 32768, p->maxTexture2DMipmap[1] = 32768;
    p->maxTexture2DLinear[0] = 131072, p->maxTexture2DLinear[1] = 65000, p->maxTexture2DLinear[2] = 2097120;
    p->maxTexture2DGather[0] = 32768, p->maxTexture2DGather[1] = 32768;
    p->maxTexture3D[0] = 16384, p->maxTexture3D[1] = 16384, p->maxTexture3D[2] = 16384;
    p->maxTexture3DAlt[0] = 8192, p->maxTexture3DAlt[1] = 8192, p->maxTexture3DAlt[2] = 32768;
    p->maxTextureCubemap = 32768;
    p->maxTexture1DLayered[0] = 32768, p->maxTexture1DLayered[1] = 2048;
    p->maxTexture2DLayered[0] = 32768, p->maxTexture2DLayered[1] = 32768, p->maxTexture2DLayered[2] = 2048;
    p->maxTextureCubemapLayered[0] = 32768, p->maxTextureCubemapLayered[1] = 2046;
    p->maxSurface1D = 32768;
    p->maxSurface2D[0] = 131072, p->maxSurface2D[1] = 65536;
    p->maxSurface3D[0] = 16384, p->maxSurface3D[1] = 16384, p->maxSurface3D[2] = 16384;
    p->maxSurface1DLayered[0] = 32768, p->maxSurface1DLayered[1] = 2048;
    p->maxSurface2DLayered[0] = 32768, p->maxSurface2DLayered[1] = 32768, p->maxSurface2DLayered[2] = 2048;
    p->maxSurfaceCubemap = 32768;
    p->maxSurfaceCubemapLayered[0] = 32768, p->maxSurfaceCubemapLayered[1] = 2046;
    p->surfaceAlignment = 512;
    p->concurrentKernels = 1;
    p->ECCEnabled = 1;
    p->pciBusID = 0, p->pciDeviceID = 0, p->pciDomainID = 0;
    p->tccDriver = 0;
    p->asyncEngineCount = 3;
    p->unifiedAddressing = 1;
    p->memoryBusWidth = H100_BUS_BITS;
    p->l2CacheSize = H100_L2;
    p->persistingL2CacheMaxSize = H100_PERSISTING_L2_MAX;
    p->maxThreadsPerMultiProcessor = 2048;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = CUDA_CPU_SHARED_PER_SM;
    p->regsPerMultiprocessor = 65536;
    p->managedMemory = 1;
    p->isMultiGpuBoard = 0;
    p->multiGpuBoardGroupID = 0;
    p->hostNativeAtomicSupported = 0;
    p->pageableMemoryAccess = 0;
    p->concurrentManagedAccess = 1;
    p->computePreemptionSupported = 1;
    p->canUseHostPointerForRegisteredMem = 1;
    p->cooperativeLaunch = 1;
    p->sharedMemPerBlockOptin = CUDA_CPU_SHARED_PER_BLOCK_OPTIN;
    p->pageableMemoryAccessUsesHostPageTables = 0;
    p->directManagedMemAccessFromHost = 0;
    p->maxBlocksPerMultiProcessor = 32;
    p->accessPolicyMaxWindowSize = 134217728;
    p->reservedSharedMemPerBlock = CUDA_CPU_SHARED_RESERVED;
    p->hostRegisterSupported = 1;
    p->sparseCudaArraySupported = 1;
    p->hostRegisterReadOnlySupported = 1;
    p->timelineSemaphoreInteropSupported = 1;
    p->memoryPoolsSupported = 1;
    p->gpuDirectRDMASupported = 1;
    p->gpuDirectRDMAFlushWritesOptions = 1;
    p->gpuDirectRDMAWritesOrdering = 100;
    p->memoryPoolSupportedHandleTypes = 9;
    p->deferredMappingCudaArraySupported = 1;
    p->ipcEventSupported = 1;
    p->clusterLaunch = 1;
    p->unifiedFunctionPointers = 1;
    p->deviceNumaConfig = 0;
    p->deviceNumaId = -1;
    p->mpsEnabled = 0;
    p->hostNumaId = 0;
    p->gpuPciDeviceID = H100_PCI_ID;
    p->gpuPciSubsystemID = H100_PCI_SUBSYSTEM_ID;
    p->hostNumaMultinodeIpcSupported = 0;
    return cudaSuccess;
}

/* Every value of driver_types.h's enum cudaDeviceAttr (CUDA 13.0), as the H100 answers it: from
 * cudaDeviceProp where a field holds it, else the GPU's own figure (clock rates, compute mode, ...). The
 * cudaDevAttrReservedNN values too, with what the GPU answers for them. A value the enum does not name:
 * cudaErrorInvalidValue. */
static cudaError_t attribute_value(int *value, enum cudaDeviceAttr attribute) {
    struct cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
#pragma GCC diagnostic push
#pragma GCC diagnostic warning "-Wswitch-enum" /* a newer toolkit's attribute: a warning naming it */
    switch (attribute) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrTotalConstantMemory: *value = (int)p.totalConstMem; break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrMaxPitch: *value = (int)p.memPitch; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrClockRate: *value = H100_CLOCK_KHZ; break;
    case cudaDevAttrTextureAlignment: *value = (int)p.textureAlignment; break;
    case cudaDevAttrGpuOverlap: *value = 1; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrKernelExecTimeout: *value = 0; break;
    case cudaDevAttrIntegrated: *value = p.integrated; break;
    case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; break;
    case cudaDevAttrComputeMode: *value = cudaComputeModeDefault; break;
    case cudaDevAttrMaxTexture1DWidth: *value = p.maxTexture1D; break;
    case cudaDevAttrMaxTexture2DWidth: *value = p.maxTexture2D[0]; break;
    case cudaDevAttrMaxTexture2DHeight: *value = p.maxTexture2D[1]; break;
    case cudaDevAttrMaxTexture3DWidth: *value = p.maxTexture3D[0]; break;
    case cudaDevAttrMaxTexture3DHeight: *value = p.maxTexture3D[1]; break;
    case cudaDevAttrMaxTexture3DDepth: *value = p.maxTexture3D[2]; break;
    case cudaDevAttrMaxTexture2DLayeredWidth: *value = p.maxTexture2DLayered[0]; break;
    case cudaDevAttrMaxTexture2DLayeredHeight: *value = p.maxTexture2DLayered[1]; break;
    case cudaDevAttrMaxTexture2DLayeredLayers: *value = p.maxTexture2DLayered[2]; break;
    case cudaDevAttrSurfaceAlignment: *value = (int)p.surfaceAlignment; break;
    case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
    case cudaDevAttrEccEnabled: *value = p.ECCEnabled; break;
    case cudaDevAttrPciBusId: *value = p.pciBusID; break;
    case cudaDevAttrPciDeviceId: *value = p.pciDeviceID; break;
    case cudaDevAttrTccDriver: *value = p.tccDriver; break;
    case cudaDevAttrMemoryClockRate: *value = H100_MEMORY_CLOCK_KHZ; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
    case cudaDevAttrMaxTexture1DLayeredWidth: *value = p.maxTexture1DLayered[0]; break;
    case cudaDevAttrMaxTexture1DLayeredLayers: *value = p.maxTexture1DLayered[1]; break;
    case cudaDevAttrMaxTexture2DGatherWidth: *value = p.maxTexture2DGather[0]; break;
    case cudaDevAttrMaxTexture2DGatherHeight: *value = p.maxTexture2DGather[1]; break;
    case cudaDevAttrMaxTexture3DWidthAlt: *value = p.maxTexture3DAlt[0]; break;
    case cudaDevAttrMaxTexture3DHeightAlt: *value = p.maxTexture3DAlt[1]; break;
    case cudaDevAttrMaxTexture3DDepthAlt: *value = p.maxTexture3DAlt[2]; break;
    case cudaDevAttrPciDomainId: *value = p.pciDomainID; break;
    case cudaDevAttrTexturePitchAlignment: *value = (int)p.texturePitchAlignment; break;
    case cudaDevAttrMaxTextureCubemapWidth: *value = p.maxTextureCubemap; break;
    case cudaDevAttrMaxTextureCubemapLayeredWidth: *value = p.maxTextureCubemapLayered[0]; break;
    case cudaDevAttrMaxTextureCubemapLayeredLayers: *value = p.maxTextureCubemapLayered[1]; break;
    case cudaDevAttrMaxSurface1DWidth: *value = p.maxSurface1D; break;
    case cudaDevAttrMaxSurface2DWidth: *value = p.maxSurface2D[0]; break;
    case cudaDevAttrMaxSurface2DHeight: *value = p.maxSurface2D[1]; break;
    case cudaDevAttrMaxSurface3DWidth: *value = p.maxSurface3D[0]; break;
    case cudaDevAttrMaxSurface3DHeight: *value = p.maxSurface3D[1]; break;
    case cudaDevAttrMaxSurface3DDepth: *value = p.maxSurface3D[2]; break;
    case cudaDevAttrMaxSurface1DLayeredWidth: *value = p.maxSurface1DLayered[0]; break;
    case cudaDevAttrMaxSurface1DLayeredLayers: *value = p.maxSurface1DLayered[1]; break;
    case cudaDevAttrMaxSurface2DLayeredWidth: *value = p.maxSurface2DLayered[0]; break;
    case cudaDevAttrMaxSurface2DLayeredHeight: *value = p.maxSurface2DLayered[1]; break;
    case cudaDevAttrMaxSurface2DLayeredLayers: *value = p.maxSurface2DLayered[2]; break;
    case cudaDevAttrMaxSurfaceCubemapWidth: *value = p.maxSurfaceCubemap; break;
    case cudaDevAttrMaxSurfaceCubemapLayeredWidth: *value = p.maxSurfaceCubemapLayered[0]; break;
    case cudaDevAttrMaxSurfaceCubemapLayeredLayers: *value = p.maxSurfaceCubemapLayered[1]; break;
    case cudaDevAttrMaxTexture1DLinearWidth: *value = 268435456; break;
    case cudaDevAttrMaxTexture2DLinearWidth: *value = p.maxTexture2DLinear[0]; break;
    case cudaDevAttrMaxTexture2DLinearHeight: *value = p.maxTexture2DLinear[1]; break;
    case cudaDevAttrMaxTexture2DLinearPitch: *value = p.maxTexture2DLinear[2]; break;
    case cudaDevAttrMaxTexture2DMipmappedWidth: *value = p.maxTexture2DMipmap[0]; break;
    case cudaDevAttrMaxTexture2DMipmappedHeight: *value = p.maxTexture2DMipmap[1]; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxTexture1DMipmappedWidth: *value = p.maxTexture1DMipmap; break;
    case cudaDevAttrStreamPrioritiesSupported: *value = p.streamPrioritiesSupported; break;
    case cudaDevAttrGlobalL1CacheSupported: *value = p.globalL1CacheSupported; break;
    case cudaDevAttrLocalL1CacheSupported: *value = p.localL1CacheSupported; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int)p.sharedMemPerMultiprocessor; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
    case cudaDevAttrIsMultiGpuBoard: *value = p.isMultiGpuBoard; break;
    case cudaDevAttrMultiGpuBoardGroupID: *value = p.multiGpuBoardGroupID; break;
    case cudaDevAttrHostNativeAtomicSupported: *value = p.hostNativeAtomicSupported; break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: *value = 2; break;
    case cudaDevAttrPageableMemoryAccess: *value = p.pageableMemoryAccess; break;
    case cudaDevAttrConcurrentManagedAccess: *value = p.concurrentManagedAccess; break;
    case cudaDevAttrComputePreemptionSupported: *value = p.computePreemptionSupported; break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: *value = p.canUseHostPointerForRegisteredMem; break;
    case cudaDevAttrReserved92: *value = 0; break;
    case cudaDevAttrReserved93: *value = 0; break;
    case cudaDevAttrReserved94: *value = 0; break;
    case cudaDevAttrCooperativeLaunch: *value = p.cooperativeLaunch; break;
    case cudaDevAttrReserved96: *value = 1; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
    case cudaDevAttrCanFlushRemoteWrites: *value = 0; break;
    case cudaDevAttrHostRegisterSupported: *value = p.hostRegisterSupported; break;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables: *value = p.pageableMemoryAccessUsesHostPageTables; break;
    case cudaDevAttrDirectManagedMemAccessFromHost: *value = p.directManagedMemAccessFromHost; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrMaxPersistingL2CacheSize: *value = p.persistingL2CacheMaxSize; break;
    case cudaDevAttrMaxAccessPolicyWindowSize: *value = p.accessPolicyMaxWindowSize; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: *value = (int)p.reservedSharedMemPerBlock; break;
    case cudaDevAttrSparseCudaArraySupported: *value = p.sparseCudaArraySupported; break;
    case cudaDevAttrHostRegisterReadOnlySupported: *value = p.hostRegisterReadOnlySupported; break;
    case cudaDevAttrTimelineSemaphoreInteropSupported: *value = p.timelineSemaphoreInteropSupported; break;
    case cudaDevAttrMemoryPoolsSupported: *value = p.memoryPoolsSupported; break;
    case cudaDevAttrGPUDirectRDMASupported: *value = p.gpuDirectRDMASupported; break;
    case cudaDevAttrGPUDirectRDMAFlushWritesOptions: *value = (int)p.gpuDirectRDMAFlushWritesOptions; break;
    case cudaDevAttrGPUDirectRDMAWritesOrdering: *value = p.gpuDirectRDMAWritesOrdering; break;
    case cudaDevAttrMemoryPoolSupportedHandleTypes: *value = (int)p.memoryPoolSupportedHandleTypes; break;
    case cudaDevAttrClusterLaunch: *value = p.clusterLaunch; break;
    case cudaDevAttrDeferredMappingCudaArraySupported: *value = p.deferredMappingCudaArraySupported; break;
    case cudaDevAttrReserved122: *value = 1; break;
    case cudaDevAttrReserved123: *value = 1; break;
    case cudaDevAttrReserved124: *value = 1; break;
    case cudaDevAttrIpcEventSupport: *value = p.ipcEventSupported; break;
    case cudaDevAttrMemSyncDomainCount: *value = 4; break;
    case cudaDevAttrReserved127: *value = 1; break;
    case cudaDevAttrReserved128: *value = 1; break;
    case cudaDevAttrReserved129: *value = 1; break;
    case cudaDevAttrNumaConfig: *value = p.deviceNumaConfig; break;
    case cudaDevAttrNumaId: *value = p.deviceNumaId; break;
    case cudaDevAttrReserved132: *value = 0; break;
    case cudaDevAttrMpsEnabled: *value = p.mpsEnabled; break;
    case cudaDevAttrHostNumaId: *value = p.hostNumaId; break;
    case cudaDevAttrD3D12CigSupported: *value = 0; break;
    case cudaDevAttrVulkanCigSupported: *value = 0; break;
    case cudaDevAttrGpuPciDeviceId: *value = (int)p.gpuPciDeviceID; break;
    case cudaDevAttrGpuPciSubsystemId: *value = (int)p.gpuPciSubsystemID; break;
    case cudaDevAttrReserved141: *value = 1; break;
    case cudaDevAttrHostNumaMemoryPoolsSupported: *value = 1; break;
    case cudaDevAttrHostNumaMultinodeIpcSupported: *value = p.hostNumaMultinodeIpcSupported; break;
    case cudaDevAttrHostMemoryPoolsSupported: *value = 1; break;
    case cudaDevAttrReserved145: *value = 1; break;
    case cudaDevAttrOnlyPartialHostNativeAtomicSupported: *value = 0; break;
    case cudaDevAttrMax:
    default: return cudaErrorInvalidValue;
    }
#pragma GCC diagnostic pop
    return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attribute, int device) {
    if (!value) return fail(cudaErrorInvalidValue);
    if (device != 0) return fail(cudaErrorInvalidDevice);
    return fail(attribute_value(value, attribute)); /* *value unchanged when refused, as on a GPU */
}
cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attribute, int source, int destination) {
    (void)value, (void)attribute, (void)source, (void)destination;
    return fail(cudaErrorInvalidDevice); /* one device: no peer */
}

cudaError_t cudaGetDeviceFlags(unsigned *flags) {
    if (!flags) return fail(cudaErrorInvalidValue);
    *flags = device_flags;
    return cudaSuccess;
}
cudaError_t cudaSetDeviceFlags(unsigned flags) {
    const unsigned schedule = flags & cudaDeviceScheduleMask;
    if (flags & ~(unsigned)cudaDeviceMask || (schedule != cudaDeviceScheduleAuto && schedule != cudaDeviceScheduleSpin &&
                                              schedule != cudaDeviceScheduleYield &&
                                              schedule != cudaDeviceScheduleBlockingSync))
        return fail(cudaErrorInvalidValue);
    device_flags = flags | cudaDeviceMapHost; /* mapped pinned memory is always on, as the GPU reports */
    return cudaSuccess;
}
cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *config) {
    if (!config) return fail(cudaErrorInvalidValue);
    *config = cache_config;
    return cudaSuccess;
}
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config) {
    if ((unsigned)config > cudaFuncCachePreferEqual) return fail(cudaErrorInvalidValue);
    cache_config = config; /* a preference; the runner's shared memory is the same whatever it is */
    return cudaSuccess;
}
/* Hopper's banks are 4 bytes wide, whatever is asked (the GPU answers so after a Set too) */
cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *config) {
    if (!config) return fail(cudaErrorInvalidValue);
    *config = cudaSharedMemBankSizeFourByte;
    return cudaSuccess;
}
cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config) {
    return (unsigned)config > cudaSharedMemBankSizeEightByte ? fail(cudaErrorInvalidValue) : cudaSuccess;
}
cudaError_t cudaFuncSetCacheConfig(const void *function, enum cudaFuncCache config) {
    if (!function) return fail(cudaErrorInvalidDeviceFunction);
    return (unsigned)config > cudaFuncCachePreferEqual ? fail(cudaErrorInvalidValue) : cudaSuccess;
}
cudaError_t cudaFuncSetSharedMemConfig(const void *function, enum cudaSharedMemConfig config) {
    if (!function) return fail(cudaErrorInvalidDeviceFunction);
    return (unsigned)config > cudaSharedMemBankSizeEightByte ? fail(cudaErrorInvalidValue) : cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit) {
    if (!value) return fail(cudaErrorInvalidValue);
    if ((unsigned)limit >= sizeof default_limits / sizeof *default_limits || limit == cudaLimitDevRuntimeSyncDepth)
        return fail(cudaErrorUnsupportedLimit);
    *value = limit_value(limit);
    return cudaSuccess;
}
cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
    if ((unsigned)limit >= sizeof default_limits / sizeof *default_limits || limit == cudaLimitDevRuntimeSyncDepth)
        return fail(cudaErrorUnsupportedLimit);
    switch (limit) { /* what the GPU makes of a value, as an H200 answered under CUDA 13.0 */
    case cudaLimitStackSize: /* in 16-byte steps, up to the 512 KB of local memory a thread may have */
        if (value > 512 * 1024) return fail(cudaErrorInvalidValue);
        value = (value + 15) / 16 * 16;
        break;
    case cudaLimitPrintfFifoSize: value = value < 524288 ? 524288 : (value + 127) / 128 * 128; break;
    case cudaLimitMallocHeapSize: value = value < 4194304 ? 4194304 : (value + 65535) / 65536 * 65536; break;
    case cudaLimitMaxL2FetchGranularity:
        if (value > 128) return fail(cudaErrorInvalidValue);
        break;
    case cudaLimitPersistingL2CacheSize:
        if (value > H100_PERSISTING_L2_MAX) return fail(cudaErrorInvalidValue);
        break;
    default: break;
    }
    limits[limit] = value;
    limits_set |= 1 << limit;
    return cudaSuccess;
}
cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) {
    if (least) *least = LEAST_PRIORITY;
    if (greatest) *greatest = GREATEST_PRIORITY;
    return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int *version) {
    if (!version) return fail(cudaErrorInvalidValue);
    *version = CUDART_VERSION;
    return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int *version) {
    if (!version) return fail(cudaErrorInvalidValue);
    *version = CUDART_VERSION;
    return cudaSuccess;
}
/* The H100's total; free: as much of it as this machine's memory has free now (a program that sizes its
 * buffers by what is free gets buffers the runner can hold). */
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes) {
    RETURN_IF_STICKY();
    if (!free_bytes || !total_bytes) return fail(cudaErrorInvalidValue);
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    const unsigned long long host = pages > 0 && page > 0 ? (unsigned long long)pages * (unsigned long long)page : 0;
    *total_bytes = (size_t)H100_GLOBAL_MEMORY;
    *free_bytes = (size_t)(host && host < H100_GLOBAL_MEMORY ? host : H100_GLOBAL_MEMORY);
    return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void) { return cuda_cpu_sticky_error(); }
cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }
cudaError_t cudaCtxResetPersistingL2Cache(void) { return cudaSuccess; }

static void forget_registrations(void);
/* On a GPU it destroys the context: every allocation freed, every setting back to its default. */
cudaError_t cudaDeviceReset(void) {
    cuda_cpu_free_all();
    forget_registrations();
    device_flags = default_device_flags;
    cache_config = cudaFuncCachePreferNone;
    limits_set = 0;
    last_error = cudaSuccess;
    return cudaSuccess;
}

/* cudaFuncGetAttributes: what the runner knows of a kernel. It compiles no PTX and allocates no registers:
 * numRegs and the static, constant and local sizes are 0 (unknown here, not the kernel's); the limits are
 * the H100's for a kernel built for sm_90. */
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *function) {
    if (!a) return fail(cudaErrorInvalidValue);
    if (!function) return fail(cudaErrorInvalidDeviceFunction);
    memset(a, 0, sizeof *a);
    a->maxThreadsPerBlock = CUDA_CPU_MAX_THREADS;
    a->ptxVersion = 90;
    a->binaryVersion = 90;
    a->maxDynamicSharedSizeBytes = (int)cuda_cpu_func_max_dynamic_shared(function); /* 48 KB, or the opt-in */
    a->preferredShmemCarveout = -1; /* none set */
    return cudaSuccess;
}

/* Occupancy: threads and the dynamic shared memory asked (the runner knows no registers, no static shared
 * memory), against the H100's 2048 threads, 32 blocks and 228 KB of shared memory per SM. */
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, const void *function, int block_size,
                                                                   size_t dynamic_bytes, unsigned flags) {
    (void)function, (void)flags;
    if (!blocks) return fail(cudaErrorInvalidValue);
    *blocks = block_size > 0 ? 2048 / block_size : 0;
    if (*blocks > 32) *blocks = 32;
    if (*blocks > (int)(CUDA_CPU_SHARED_PER_SM / (dynamic_bytes + CUDA_CPU_SHARED_RESERVED)))
        *blocks = (int)(CUDA_CPU_SHARED_PER_SM / (dynamic_bytes + CUDA_CPU_SHARED_RESERVED));
    return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *function, int block_size,
                                                          size_t dynamic_bytes) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, function, block_size, dynamic_bytes, 0);
}

/* ----- symbols: __device__, __constant__ and __managed__ variables -----
 * Under g++ those words mean nothing (host_defines.h without __CUDACC__): such a variable is one of the
 * program's globals, and the toolkit's template cudaMemcpyToSymbol(const T &symbol, ...) passes its
 * address. Its size and name come from the executable's symbol table (ELF .symtab), as a GPU's runtime
 * knows each registered symbol: an address that starts no variable (a pointer's own address, an element
 * past the first, a local) is cudaErrorInvalidSymbol, as there. */
struct symbol {
    const char *name;
    size_t size;
    int writable;
};
static const unsigned char *elf_image;
static size_t elf_size;
static uintptr_t load_bias;
static int elf_state; /* 0 not read yet, 1 read, -1 unreadable or stripped */

static int find_bias(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size, (void)data;
    load_bias = (uintptr_t)info->dlpi_addr; /* the first is the program itself */
    return 1;
}
static int read_elf(void) {
    if (elf_state) return elf_state;
    elf_state = -1;
    const int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return elf_state;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size > sizeof(ElfW(Ehdr))) {
        void *image = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (image != MAP_FAILED) elf_image = image, elf_size = (size_t)st.st_size, elf_state = 1;
    }
    close(fd);
    if (elf_state != 1) return elf_state;
    const ElfW(Ehdr) *header = (const ElfW(Ehdr) *)elf_image;
    int has_symbols = 0; /* a stripped program keeps only .dynsym, without its variables */
    if (memcmp(header->e_ident, ELFMAG, SELFMAG) == 0 && header->e_shoff != 0 &&
        header->e_shoff + (size_t)header->e_shnum * sizeof(ElfW(Shdr)) <= elf_size) {
        const ElfW(Shdr) *sections = (const ElfW(Shdr) *)(elf_image + header->e_shoff);
        for (int s = 0; s < header->e_shnum; ++s) has_symbols |= sections[s].sh_type == SHT_SYMTAB;
    }
    if (!has_symbols) return elf_state = -1;
    dl_iterate_phdr(find_bias, NULL);
    return elf_state;
}
/* 1 and what the symbol table says when address starts a variable (kind: STT_OBJECT) or, with functions
 * set, a function; else 0. */
static int lookup_symbol(const void *address, int functions, struct symbol *found) {
    if (read_elf() != 1) return 0;
    const ElfW(Ehdr) *header = (const ElfW(Ehdr) *)elf_image;
    if (memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_shoff == 0 ||
        header->e_shoff + (size_t)header->e_shnum * sizeof(ElfW(Shdr)) > elf_size)
        return 0;
    const ElfW(Shdr) *sections = (const ElfW(Shdr) *)(elf_image + header->e_shoff);
    const char *section_names =
        header->e_shstrndx < header->e_shnum ? (const char *)elf_image + sections[header->e_shstrndx].sh_offset : NULL;
    for (int s = 0; s < header->e_shnum; ++s) {
        if (sections[s].sh_type != SHT_SYMTAB || sections[s].sh_link >= header->e_shnum) continue;
        const ElfW(Sym) *symbols = (const ElfW(Sym) *)(elf_image + sections[s].sh_offset);
        const char *names = (const char *)elf_image + sections[sections[s].sh_link].sh_offset;
        const size_t count = sections[s].sh_size / sizeof(ElfW(Sym));
        for (size_t i = 0; i < count; ++i) {
            const ElfW(Sym) *y = &symbols[i];
            const int type = ELF64_ST_TYPE(y->st_info);
            if (!(type == STT_OBJECT || (functions && type == STT_FUNC)) || y->st_shndx == SHN_UNDEF ||
                y->st_shndx >= header->e_shnum || (uintptr_t)address != load_bias + y->st_value)
                continue;
            const ElfW(Shdr) *in = &sections[y->st_shndx];
            const char *section = section_names ? section_names + in->sh_name : "";
            found->name = names + y->st_name;
            found->size = y->st_size;
            found->writable = (in->sh_flags & SHF_WRITE) && strncmp(section, ".data.rel.ro", 12) != 0;
            return 1;
        }
    }
    return 0;
}
/* The symbol at address, or an error (with one line when the runner cannot tell). */
static cudaError_t symbol_at(const char *call, const void *address, struct symbol *found) {
    if (read_elf() != 1) {
        not_on_runner(call, "the program's symbol table is unreadable (built with -s, or stripped?), so the runner "
                            "cannot tell its __device__ and __constant__ variables");
        return cudaErrorNotSupported;
    }
    return address && lookup_symbol(address, 0, found) ? cudaSuccess : cudaErrorInvalidSymbol;
}
/* A variable's name as the program wrote it, where C++ mangled a plain one (_ZL5fixed: fixed); else as is. */
static const char *plain_name(const char *name) {
    if (strncmp(name, "_Z", 2) != 0) return name;
    const char *p = name + 2 + (name[2] == 'L');
    char *end;
    const unsigned long length = strtoul(p, &end, 10);
    return end != p && length > 0 && strlen(end) == length ? end : name;
}
static int is_copy_kind(enum cudaMemcpyKind kind) { return (unsigned)kind <= cudaMemcpyDefault; }

cudaError_t cudaGetSymbolAddress(void **device_pointer, const void *symbol) {
    struct symbol s;
    if (!device_pointer) return fail(cudaErrorInvalidValue);
    const cudaError_t e = symbol_at("cudaGetSymbolAddress", symbol, &s);
    if (e) return fail(e);
    *device_pointer = (void *)symbol; /* one address space: the variable is where the host sees it */
    return cudaSuccess;
}
cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
    struct symbol s;
    if (!size) return fail(cudaErrorInvalidValue);
    const cudaError_t e = symbol_at("cudaGetSymbolSize", symbol, &s);
    if (e) return fail(e);
    *size = s.size;
    return cudaSuccess;
}
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *source, size_t count, size_t offset,
                               enum cudaMemcpyKind kind) {
    RETURN_IF_STICKY();
    struct symbol s;
    const cudaError_t e = symbol_at("cudaMemcpyToSymbol", symbol, &s);
    if (e) return fail(e);
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return fail(cudaErrorInvalidMemcpyDirection);
    if (count == 0) return cudaSuccess; /* whatever the offset, as the GPU answers */
    if (offset > s.size || count > s.size - offset || !source) return fail(cudaErrorInvalidValue);
    if (!s.writable) {
        char call[200];
        snprintf(call, sizeof call, "cudaMemcpyToSymbol(%s, ...)", plain_name(s.name));
        not_on_runner(call, "the variable is const, so read-only here (a GPU writes __constant__ memory from the "
                            "host): declare it without const");
        return fail(cudaErrorNotSupported);
    }
    memmove((char *)symbol + offset, source, count);
    cuda_cpu_host_wrote((const char *)symbol + offset, count);
    return cudaSuccess;
}
cudaError_t cudaMemcpyFromSymbol(void *destination, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind) {
    RETURN_IF_STICKY();
    struct symbol s;
    const cudaError_t e = symbol_at("cudaMemcpyFromSymbol", symbol, &s);
    if (e) return fail(e);
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return fail(cudaErrorInvalidMemcpyDirection);
    if (count == 0) return cudaSuccess;
    if (offset > s.size || count > s.size - offset || !destination) return fail(cudaErrorInvalidValue);
    memmove(destination, (const char *)symbol + offset, count);
    if (kind != cudaMemcpyDeviceToHost) cuda_cpu_host_wrote(destination, count);
    return cudaSuccess;
}

/* ----- streams and events -----
 * The runner runs every launch and copy when it is made, so every stream is always idle: a stream's order,
 * its waits on events and the callbacks hold trivially. The handles are checked as a GPU checks them. */
#define STREAM_MAGIC 0x5354524du /* "STRM" */
#define EVENT_MAGIC 0x45564e54u  /* "EVNT" */
#define DEAD_MAGIC 0xdeadu
struct CUstream_st {
    unsigned magic, flags;
    int priority;
};
struct CUevent_st {
    unsigned magic, flags;
    int recorded;
};
/* A handle the program may pass: 0, cudaStreamLegacy, cudaStreamPerThread or one it created and has not
 * destroyed (a destroyed handle is kept, marked dead, so that its later use is caught, not undefined). */
static int stream_ok(cudaStream_t s) {
    return s == 0 || s == cudaStreamLegacy || s == cudaStreamPerThread || s->magic == STREAM_MAGIC;
}
static int event_ok(cudaEvent_t e) { return e && e->magic == EVENT_MAGIC; }

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned flags, int priority) {
    if (!stream || flags & ~(unsigned)cudaStreamNonBlocking) return fail(cudaErrorInvalidValue);
    struct CUstream_st *s = malloc(sizeof *s);
    if (!s) return fail(cudaErrorMemoryAllocation);
    /* clamped into [greatest, least], as the GPU does */
    priority = priority < GREATEST_PRIORITY ? GREATEST_PRIORITY : priority > LEAST_PRIORITY ? LEAST_PRIORITY : priority;
    *s = (struct CUstream_st){STREAM_MAGIC, flags, priority};
    *stream = s;
    return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned flags) {
    return cudaStreamCreateWithPriority(stream, flags, LEAST_PRIORITY);
}
cudaError_t cudaStreamCreate(cudaStream_t *stream) { return cudaStreamCreateWithPriority(stream, 0, LEAST_PRIORITY); }
cudaError_t cudaStreamDestroy(cudaStream_t s) {
    if (!s || s == cudaStreamLegacy || s == cudaStreamPerThread || s->magic != STREAM_MAGIC)
        return fail(cudaErrorInvalidResourceHandle);
    s->magic = DEAD_MAGIC;
    return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
    RETURN_IF_STICKY();
    return stream_ok(s) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}
cudaError_t cudaStreamQuery(cudaStream_t s) {
    RETURN_IF_STICKY();
    return stream_ok(s) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle); /* never cudaErrorNotReady */
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t event, unsigned flags) {
    RETURN_IF_STICKY();
    if (!stream_ok(s) || !event_ok(event)) return fail(cudaErrorInvalidResourceHandle);
    return flags & ~(unsigned)cudaEventWaitExternal ? fail(cudaErrorInvalidValue) : cudaSuccess;
}
cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned *flags) {
    if (!stream_ok(s)) return fail(cudaErrorInvalidResourceHandle);
    if (!flags) return fail(cudaErrorInvalidValue);
    *flags = s == 0 || s == cudaStreamLegacy || s == cudaStreamPerThread ? 0 : s->flags;
    return cudaSuccess;
}
cudaError_t cudaStreamGetPriority(cudaStream_t s, int *priority) {
    if (!stream_ok(s)) return fail(cudaErrorInvalidResourceHandle);
    if (!priority) return fail(cudaErrorInvalidValue);
    *priority = s == 0 || s == cudaStreamLegacy || s == cudaStreamPerThread ? 0 : s->priority;
    return cudaSuccess;
}
cudaError_t cudaStreamGetDevice(cudaStream_t s, int *device) {
    if (!stream_ok(s)) return fail(cudaErrorInvalidResourceHandle);
    if (!device) return fail(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}
/* a host function queued on a stream runs now: everything before it on the stream has finished */
cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t function, void *data) {
    RETURN_IF_STICKY();
    if (!stream_ok(s)) return fail(cudaErrorInvalidResourceHandle);
    if (!function) return fail(cudaErrorInvalidValue);
    function(data);
    return cudaSuccess;
}
cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t callback, void *data, unsigned flags) {
    RETURN_IF_STICKY();
    if (!stream_ok(s)) return fail(cudaErrorInvalidResourceHandle);
    if (!callback || flags != 0) return fail(cudaErrorInvalidValue);
    callback(s, cudaSuccess, data);
    return cudaSuccess;
}

/* Events: recorded and waited on like a GPU's, but the runner does not time (a CPU's time says nothing of a
 * GPU's, and every launch has finished before the next call): cudaEventElapsedTime is 0 ms between two
 * recorded timing events, and refuses what a GPU refuses (an event never recorded, or made with
 * cudaEventDisableTiming: cudaErrorInvalidResourceHandle). */
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned flags) {
    if (!event || flags & ~(unsigned)(cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess) ||
        ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming)))
        return fail(cudaErrorInvalidValue);
    struct CUevent_st *e = malloc(sizeof *e);
    if (!e) return fail(cudaErrorMemoryAllocation);
    *e = (struct CUevent_st){EVENT_MAGIC, flags, 0};
    *event = e;
    return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t *event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }
cudaError_t cudaEventDestroy(cudaEvent_t event) {
    if (!event_ok(event)) return fail(cudaErrorInvalidResourceHandle);
    event->magic = DEAD_MAGIC;
    return cudaSuccess;
}
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t s, unsigned flags) {
    RETURN_IF_STICKY();
    if (!event_ok(event) || !stream_ok(s)) return fail(cudaErrorInvalidResourceHandle);
    if (flags & ~(unsigned)cudaEventRecordExternal) return fail(cudaErrorInvalidValue);
    event->recorded = 1;
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t s) { return cudaEventRecordWithFlags(event, s, 0); }
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    RETURN_IF_STICKY();
    return event_ok(event) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}
cudaError_t cudaEventQuery(cudaEvent_t event) {
    RETURN_IF_STICKY();
    return event_ok(event) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
    RETURN_IF_STICKY();
    if (!ms) return fail(cudaErrorInvalidValue);
    if (!event_ok(start) || !event_ok(end) || !start->recorded || !end->recorded ||
        (start->flags | end->flags) & cudaEventDisableTiming)
        return fail(cudaErrorInvalidResourceHandle);
    *ms = 0;
    return cudaSuccess;
}

/* ----- memory beyond cudaMalloc (runtime.c's allocations: cuda_cpu_allocate / cuda_cpu_free) ----- */
/* The pinned ranges: cudaHostAlloc's (with their flags) and cudaHostRegister's. */
static struct pinned {
    char *base;
    size_t size;
    unsigned flags;
    int registered; /* cudaHostRegister's, not cudaHostAlloc's */
} *pinned;
static int pinned_count, pinned_room;
static void forget_pinned(struct pinned *p);
static struct pinned *pinned_at(const void *address) {
    for (int i = 0; i < pinned_count; ++i) {
        if ((const char *)address < pinned[i].base || (const char *)address >= pinned[i].base + pinned[i].size)
            continue;
        void *base;
        size_t size;
        enum cuda_cpu_memory kind;
        if (pinned[i].registered || (cuda_cpu_allocation_of(pinned[i].base, &base, &size, &kind) &&
                                     base == pinned[i].base && kind == CUDA_CPU_HOST))
            return &pinned[i];
        forget_pinned(&pinned[i--]); /* a cudaHostAlloc since freed by cudaFreeHost */
    }
    return NULL;
}
static int remember_pinned(void *base, size_t size, unsigned flags, int registered) {
    if (pinned_count == pinned_room) {
        const int room = pinned_room ? 2 * pinned_room : 16;
        struct pinned *more = realloc(pinned, (size_t)room * sizeof *more);
        if (!more) return -1;
        pinned = more, pinned_room = room;
    }
    pinned[pinned_count++] = (struct pinned){base, size ? size : 1, flags, registered};
    return 0;
}
static void forget_pinned(struct pinned *p) { *p = pinned[--pinned_count]; }
static void forget_registrations(void) { pinned_count = 0; }
/* The kind of memory at address: 1 and its kind, base and size where known. */
static int memory_at(const void *address, enum cuda_cpu_memory *kind, void **base, size_t *size) {
    if (!address) return 0;
    if (cuda_cpu_allocation_of(address, base, size, kind)) return 1;
    const struct pinned *p = pinned_at(address);
    if (!p) return 0;
    *kind = CUDA_CPU_HOST, *base = p->base, *size = p->size;
    return 1;
}

cudaError_t cudaMallocManaged(void **pointer, size_t size, unsigned flags) {
    RETURN_IF_STICKY();
    if (!pointer || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)) return fail(cudaErrorInvalidValue);
    if (size == 0) { /* as a GPU: success, and no memory */
        *pointer = NULL;
        return cudaSuccess;
    }
    return fail(cuda_cpu_allocate(pointer, size, CUDA_CPU_MANAGED));
}
cudaError_t cudaMallocAsync(void **pointer, size_t size, cudaStream_t s) {
    RETURN_IF_STICKY();
    if (!stream_ok(s)) return fail(cudaErrorInvalidResourceHandle);
    if (!pointer) return fail(cudaErrorInvalidValue);
    return fail(cuda_cpu_allocate(pointer, size, CUDA_CPU_DEVICE));
}
cudaError_t cudaFreeAsync(void *pointer, cudaStream_t s) {
    RETURN_IF_STICKY();
    if (!stream_ok(s)) return fail(cudaErrorInvalidResourceHandle);
    return fail(cuda_cpu_free(pointer, CUDA_CPU_DEVICE));
}
cudaError_t cudaHostAlloc(void **pointer, size_t size, unsigned flags) {
    RETURN_IF_STICKY();
    if (!pointer || flags & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
        return fail(cudaErrorInvalidValue);
    const cudaError_t e = cuda_cpu_allocate(pointer, size, CUDA_CPU_HOST);
    if (e) return fail(e);
    /* every pinned allocation is mapped under unified addressing: its device pointer is its address */
    if (remember_pinned(*pointer, size, flags | cudaHostAllocMapped, 0) != 0) {
        cuda_cpu_free(*pointer, CUDA_CPU_HOST);
        return fail(cudaErrorMemoryAllocation);
    }
    return cudaSuccess;
}
cudaError_t cudaHostGetDevicePointer(void **device_pointer, void *host_pointer, unsigned flags) {
    enum cuda_cpu_memory kind;
    void *base;
    size_t size;
    if (!device_pointer || flags != 0) return fail(cudaErrorInvalidValue);
    /* pinned memory only (cudaMallocHost, cudaHostAlloc, cudaHostRegister), as on a GPU */
    if (!memory_at(host_pointer, &kind, &base, &size) || kind != CUDA_CPU_HOST) return fail(cudaErrorInvalidValue);
    *device_pointer = host_pointer; /* one address space */
    return cudaSuccess;
}
cudaError_t cudaHostGetFlags(unsigned *flags, void *host_pointer) {
    if (!flags) return fail(cudaErrorInvalidValue);
    const struct pinned *p = pinned_at(host_pointer);
    enum cuda_cpu_memory kind;
    void *base;
    size_t size;
    if (p) *flags = p->flags | cudaHostAllocMapped; /* mapped under unified addressing */
    else if (cuda_cpu_allocation_of(host_pointer, &base, &size, &kind) && kind == CUDA_CPU_HOST)
        *flags = cudaHostAllocMapped; /* cudaMallocHost's */
    else return fail(cudaErrorInvalidValue);
    return cudaSuccess;
}
cudaError_t cudaHostRegister(void *pointer, size_t size, unsigned flags) {
    if (!pointer || size == 0 || flags & ~(unsigned)(cudaHostRegisterPortable | cudaHostRegisterMapped |
                                                     cudaHostRegisterIoMemory | cudaHostRegisterReadOnly))
        return fail(cudaErrorInvalidValue);
    for (int i = 0; i < pinned_count; ++i)
        if (pinned[i].registered && (char *)pointer < pinned[i].base + pinned[i].size &&
            pinned[i].base < (char *)pointer + size)
            return fail(cudaErrorHostMemoryAlreadyRegistered);
    if (remember_pinned(pointer, size, flags, 1) != 0) return fail(cudaErrorMemoryAllocation);
    return cudaSuccess;
}
cudaError_t cudaHostUnregister(void *pointer) {
    for (int i = 0; i < pinned_count; ++i)
        if (pinned[i].registered && pinned[i].base == pointer) {
            forget_pinned(&pinned[i]);
            return cudaSuccess;
        }
    const struct pinned *p = pinned_at(pointer); /* inside a registered range, not its start */
    return fail(p && p->registered ? cudaErrorInvalidValue : cudaErrorHostMemoryNotRegistered);
}

/* Rows padded to 512 bytes, as cudaMallocPitch pads them on an H100 (texturePitchAlignment says 32; the
 * allocation's rows are aligned for every use). The padding is memory nothing wrote. */
cudaError_t cudaMallocPitch(void **pointer, size_t *pitch, size_t width, size_t height) {
    RETURN_IF_STICKY();
    if (!pointer || !pitch) return fail(cudaErrorInvalidValue);
    if (width == 0 || height == 0) { /* as a GPU: success, no memory */
        *pointer = NULL, *pitch = 0;
        return cudaSuccess;
    }
    const size_t padded = (width + PITCH_ALIGNMENT - 1) / PITCH_ALIGNMENT * PITCH_ALIGNMENT;
    if (padded < width || height > (size_t)-1 / padded) return fail(cudaErrorMemoryAllocation);
    const cudaError_t e = cuda_cpu_allocate(pointer, padded * height, CUDA_CPU_DEVICE);
    if (e) return fail(e);
    *pitch = padded;
    return cudaSuccess;
}
cudaError_t cudaMemcpy2D(void *destination, size_t destination_pitch, const void *source, size_t source_pitch,
                         size_t width, size_t height, enum cudaMemcpyKind kind) {
    RETURN_IF_STICKY();
    if (!is_copy_kind(kind)) return fail(cudaErrorInvalidMemcpyDirection);
    if (width == 0 || height == 0) return cudaSuccess;
    if (width > destination_pitch) return fail(cudaErrorInvalidPitchValue); /* as the GPU answers each */
    if (width > source_pitch) return fail(cudaErrorInvalidValue);
    if (!destination || !source) return fail(cudaErrorInvalidValue);
    for (size_t row = 0; row < height; ++row) {
        char *to = (char *)destination + row * destination_pitch;
        memmove(to, (const char *)source + row * source_pitch, width);
        if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyHostToHost) cuda_cpu_host_wrote(to, width);
    }
    return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync(void *destination, size_t destination_pitch, const void *source, size_t source_pitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t s) {
    if (!stream_ok(s)) return fail(cudaErrorInvalidResourceHandle);
    return cudaMemcpy2D(destination, destination_pitch, source, source_pitch, width, height, kind);
}
cudaError_t cudaMemset2D(void *pointer, size_t pitch, int value, size_t width, size_t height) {
    RETURN_IF_STICKY();
    if (width == 0 || height == 0) return cudaSuccess;
    if (width > pitch || !pointer) return fail(cudaErrorInvalidValue);
    for (size_t row = 0; row < height; ++row) {
        char *to = (char *)pointer + row * pitch;
        memset(to, value, width);
        cuda_cpu_host_wrote(to, width);
    }
    return cudaSuccess;
}
cudaError_t cudaMemset2DAsync(void *pointer, size_t pitch, int value, size_t width, size_t height, cudaStream_t s) {
    if (!stream_ok(s)) return fail(cudaErrorInvalidResourceHandle);
    return cudaMemset2D(pointer, pitch, value, width, height);
}
cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *source, size_t count, size_t offset,
                                    enum cudaMemcpyKind kind, cudaStream_t s) {
    if (!stream_ok(s)) return fail(cudaErrorInvalidResourceHandle);
    return cudaMemcpyToSymbol(symbol, source, count, offset, kind);
}
cudaError_t cudaMemcpyFromSymbolAsync(void *destination, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t s) {
    if (!stream_ok(s)) return fail(cudaErrorInvalidResourceHandle);
    return cudaMemcpyFromSymbol(destination, symbol, count, offset, kind);
}
/* One device: a peer copy is a copy on device 0. */
cudaError_t cudaMemcpyPeer(void *destination, int destination_device, const void *source, int source_device,
                           size_t count) {
    RETURN_IF_STICKY();
    if (destination_device != 0 || source_device != 0) return fail(cudaErrorInvalidDevice);
    if (count == 0) return cudaSuccess;
    if (!destination || !source) return fail(cudaErrorInvalidValue);
    memmove(destination, source, count);
    cuda_cpu_host_wrote(destination, count);
    return cudaSuccess;
}
cudaError_t cudaMemcpyPeerAsync(void *destination, int destination_device, const void *source, int source_device,
                                size_t count, cudaStream_t s) {
    if (!stream_ok(s)) return fail(cudaErrorInvalidResourceHandle);
    return cudaMemcpyPeer(destination, destination_device, source, source_device, count);
}
/* Managed memory is where both sides see it: prefetching and advice change nothing here. A GPU refuses
 * them on memory that is not managed, or past its end (cudaErrorInvalidValue); so does the runner. */
static cudaError_t managed_range(const void *pointer, size_t count) {
    enum cuda_cpu_memory kind;
    void *base;
    size_t size;
    if (!pointer || count == 0) return cudaErrorInvalidValue;
    if (!memory_at(pointer, &kind, &base, &size) || kind != CUDA_CPU_MANAGED ||
        count > size - (size_t)((const char *)pointer - (const char *)base))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}
static int location_ok(struct cudaMemLocation location) {
    return (location.type == cudaMemLocationTypeDevice && location.id == 0) ||
           location.type == cudaMemLocationTypeHost || location.type == cudaMemLocationTypeHostNuma ||
           location.type == cudaMemLocationTypeHostNumaCurrent;
}
cudaError_t cudaMemPrefetchAsync(const void *pointer, size_t count, struct cudaMemLocation location, unsigned flags,
                                 cudaStream_t s) {
    RETURN_IF_STICKY();
    if (!stream_ok(s)) return fail(cudaErrorInvalidResourceHandle);
    if (flags != 0 || !location_ok(location)) return fail(cudaErrorInvalidValue);
    return fail(managed_range(pointer, count));
}
cudaError_t cudaMemAdvise(const void *pointer, size_t count, enum cudaMemoryAdvise advice,
                          struct cudaMemLocation location) {
    RETURN_IF_STICKY();
    if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy) return fail(cudaErrorInvalidValue);
    if (advice != cudaMemAdviseSetReadMostly && advice != cudaMemAdviseUnsetReadMostly && !location_ok(location))
        return fail(cudaErrorInvalidValue);
    return fail(managed_range(pointer, count));
}
/* What a GPU says of a pointer under unified addressing: device, pinned host or managed memory, or
 * (cudaMemoryTypeUnregistered) ordinary host memory. */
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *pointer) {
    if (!a) return fail(cudaErrorInvalidValue);
    enum cuda_cpu_memory kind;
    void *base;
    size_t size;
    memset(a, 0, sizeof *a);
    if (!memory_at(pointer, &kind, &base, &size)) {
        a->type = cudaMemoryTypeUnregistered;
        a->device = cudaInvalidDeviceId;
        a->hostPointer = (void *)pointer;
        if (!pointer) a->hostPointer = NULL;
        return cudaSuccess;
    }
    a->device = 0;
    a->devicePointer = (void *)pointer;
    switch (kind) {
    case CUDA_CPU_DEVICE: a->type = cudaMemoryTypeDevice; break;
    case CUDA_CPU_MANAGED: a->type = cudaMemoryTypeManaged, a->hostPointer = (void *)pointer; break;
    case CUDA_CPU_HOST: a->type = cudaMemoryTypeHost, a->hostPointer = (void *)pointer; break;
    }
    return cudaSuccess;
}

/* ----- what the runner cannot model: the call says so in one line and fails ----- */
cudaError_t cudaFuncGetName(const char **name, const void *function) {
    static char names[8][256];
    static int next;
    struct symbol s;
    if (!name || !function) return fail(cudaErrorInvalidValue);
    if (!lookup_symbol(function, 1, &s)) return fail(cudaErrorInvalidDeviceFunction);
    char *kept = names[next++ % 8]; /* the mapped file may be the only copy: keep the name */
    snprintf(kept, sizeof names[0], "%s", s.name);
    *name = kept;
    return cudaSuccess;
}
cudaError_t cudaLaunchKernel(const void *function, dim3 grid, dim3 block, void **arguments, size_t shared,
                             cudaStream_t s) {
    (void)function, (void)grid, (void)block, (void)arguments, (void)shared, (void)s;
    not_on_runner("cudaLaunchKernel", "the runner launches a kernel written kernel<<<grid, block>>>(arguments), "
                                      "whose arguments it knows; write the launch so");
    return fail(cudaErrorNotSupported);
}
cudaError_t cudaLaunchCooperativeKernel(const void *function, dim3 grid, dim3 block, void **arguments, size_t shared,
                                        cudaStream_t s) {
    (void)function, (void)grid, (void)block, (void)arguments, (void)shared, (void)s;
    not_on_runner("cudaLaunchCooperativeKernel", "the runner runs one block at a time, so a grid-wide sync "
                                                 "cannot be kept");
    return fail(cudaErrorNotSupported);
}
