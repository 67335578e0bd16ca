# tests/cpu_runner_host_api.cu on the CPU runner: the CUDA runtime's host calls (cpu_runner/host_api.c),
# each case's every line as an H100 SXM 80GB prints it (an H200 printed these lines under CUDA 13.0,
# and the same program's H100 figures where the two differ: memory, L2, bus, clocks, PCI ids).
add_cpu_twin(cpu_runner_host_api cpu_runner_host_api.cu)
set(host_api $<TARGET_FILE:cpu_runner_host_api_cpu>)

# attributes: every value of enum cudaDeviceAttr, as the H100 answers it; every other value refused
add_cpu_test(cpu_runner_host_api_attributes 0
  --stdout-matches "^attributes: 137 named, 137 answered as an H100 SXM 80GB does, 0 otherwise$"
  --stdout-matches "^attributes not named by the enum \\(-5 to 300\\): 169 refused with cudaErrorInvalidValue, 0 answered$"
  --stdout-matches "^cudaDevAttrComputeMode = 0 \\(cudaComputeModeDefault = 0\\)$"
  --stdout-matches "^cudaDeviceGetAttribute\\(&value, cudaDevAttrWarpSize, 1\\) -> cudaErrorInvalidDevice$"
  --stdout-lacks "an H100:"
  --stdout-lacks "^CPU runner:"
  ${host_api} attributes)
# properties: what cuda-samples' findCudaDevice/gpuGetMaxGflopsDeviceId ask, and cudaDeviceProp's figures
add_cpu_test(cpu_runner_host_api_properties 0
  --stdout-matches "^device 0: compute mode 0, 9\\.0, 132 SMs x 128 cores at 1980 MHz$"
  --stdout-matches "^GPU Device 0: compute capability 9\\.0$"
  --stdout-matches "^global memory 85029158912 bytes \\(79\\.2 GiB\\), constant 65536, L2 52428800, persisting L2 at most 32768000, bus 5120 bits$"
  --stdout-matches "^shared memory: 49152 per block, 232448 opt-in, 233472 per SM, 1024 reserved per block$"
  --stdout-matches "^threads: 1024 per block \\(1024, 1024, 64\\), 2048 per SM, 32 blocks per SM, warp 32, grid \\(2147483647, 65535, 65535\\)$"
  --stdout-matches "^registers 65536 per block, 65536 per SM, memPitch 2147483647, alignment: texture 512, texture pitch 32, surface 512$"
  --stdout-matches "^managed 1, concurrent managed 1, unified addressing 1, map host 1, cooperative 1, cluster 1, copy engines 3, ECC 1, integrated 0$"
  --stdout-matches "^cudaGetDeviceProperties\\(&p, 1\\) -> cudaErrorInvalidDevice$"
  --stdout-matches "^cudaSetDevice\\(1\\) -> cudaErrorInvalidDevice$"
  --stdout-matches "^cudaGetLastError\\(\\) -> cudaErrorInvalidDevice$"
  --stdout-matches "^cudaGetLastError\\(\\) -> cudaSuccess$"
  --stdout-matches "^runtime 1[23][0-9]{3}, driver at least the runtime: yes$"
  --stdout-matches "^cudaMemGetInfo: total is totalGlobalMem: yes, free at most total: yes$"
  --stdout-lacks "^CPU runner:"
  ${host_api} properties)
# errors: cudaGetErrorName/cudaGetErrorString: the runtime's own words
add_cpu_test(cpu_runner_host_api_errors 0
  --stdout-matches "^0 cudaSuccess: no error$"
  --stdout-matches "^1 cudaErrorInvalidValue: invalid argument$"
  --stdout-matches "^2 cudaErrorMemoryAllocation: out of memory$"
  --stdout-matches "^9 cudaErrorInvalidConfiguration: invalid configuration argument$"
  --stdout-matches "^13 cudaErrorInvalidSymbol: invalid device symbol$"
  --stdout-matches "^21 cudaErrorInvalidMemcpyDirection: invalid copy direction for memcpy$"
  --stdout-matches "^101 cudaErrorInvalidDevice: invalid device ordinal$"
  --stdout-matches "^400 cudaErrorInvalidResourceHandle: invalid resource handle$"
  --stdout-matches "^600 cudaErrorNotReady: device not ready$"
  --stdout-matches "^700 cudaErrorIllegalAddress: an illegal memory access was encountered$"
  --stdout-matches "^716 cudaErrorMisalignedAddress: misaligned address$"
  --stdout-matches "^719 cudaErrorLaunchFailure: unspecified launch failure$"
  --stdout-matches "^801 cudaErrorNotSupported: operation not supported$"
  --stdout-matches "^215 cudaErrorUnsupportedLimit: limit is not supported on this architecture$"
  --stdout-matches "^712 cudaErrorHostMemoryAlreadyRegistered: part or all of the requested memory range is already mapped$"
  --stdout-matches "^100 cudaErrorNoDevice: no CUDA-capable device is detected$"
  --stdout-matches "^999 cudaErrorUnknown: unknown error$"
  --stdout-matches "^values 0 to 10000 with a name: 134$"
  --stdout-matches "^12345: unrecognized error code: unrecognized error code$"
  --stdout-lacks "^CPU runner:"
  ${host_api} errors)
# constant: __constant__ coefficients written by cudaMemcpyToSymbol (with an offset), read by a kernel
add_cpu_test(cpu_runner_host_api_constant 0
  --stdout-matches "^y = 1 6\\.5 21 47\\.5 89 148\\.5 229 333\\.5$"
  --stdout-matches "^coefficients\\[2\\.\\.3\\] = 3 0\\.5$"
  --stdout-matches "^cudaGetSymbolSize\\(coefficients\\) = 16$"
  --stdout-matches "^cudaMemcpyToSymbol\\(coefficients, c, sizeof c, sizeof\\(float\\)\\) -> cudaErrorInvalidValue$"
  --stdout-matches "^cudaMemcpyToSymbol\\(coefficients, c, sizeof c, 0, cudaMemcpyDeviceToHost\\) -> cudaErrorInvalidMemcpyDirection$"
  --stdout-matches "^cudaMemcpyToSymbol\\(coefficients\\[1\\], c, sizeof\\(float\\)\\) -> cudaErrorInvalidSymbol$"
  --stdout-matches "^cudaGetLastError\\(\\) -> cudaErrorInvalidSymbol$"
  --stdout-lacks "^CPU runner:"
  ${host_api} constant)
# device_array: a __device__ array to and from the host with offsets, doubled by a kernel in between
add_cpu_test(cpu_runner_host_api_device_array 0
  --stdout-matches "^table\\[34\\.\\.47\\] = 34 70 72 74 76 78 2000 2002 2004 2006 2008 1005 1006 1007$"
  --stdout-matches "^launches = 1$"
  --stdout-matches "^cudaGetSymbolSize\\(table\\) = 400$"
  --stdout-matches "^table\\[40\\] through cudaGetSymbolAddress = 2000$"
  --stdout-matches "^table\\[97\\.\\.99\\] through a stream = 97 -1 -2$"
  --stdout-matches "^cudaMemcpyFromSymbol\\(back, table, sizeof back, 90 \\* sizeof\\(int\\)\\) -> cudaErrorInvalidValue$"
  --stdout-matches "^cudaMemcpyToSymbol\\(host_variable, part, sizeof\\(int\\)\\) -> cudaErrorInvalidSymbol$"
  --stdout-matches "^cudaGetLastError\\(\\) -> cudaErrorInvalidSymbol$"
  --stdout-lacks "^CPU runner:"
  ${host_api} device_array)
# managed: cudaMallocManaged memory written by the host, then a kernel, then read by the host
add_cpu_test(cpu_runner_host_api_managed 0
  --stdout-matches "^managed: data\\[0\\] = 3, data\\[999\\] = 1002, sum = 502500$"
  --stdout-matches "^cudaMallocManaged\\(&data, 16, 7\\) -> cudaErrorInvalidValue$"
  --stdout-matches "^cudaGetLastError\\(\\) -> cudaErrorInvalidValue$"
  --stdout-lacks "^CPU runner:"
  ${host_api} managed)
# pointer_attributes: cudaPointerGetAttributes of device, pinned, managed and ordinary host memory
add_cpu_test(cpu_runner_host_api_pointer_attributes 0
  --stdout-matches "^cudaMalloc: type 2, device 0, devicePointer it, hostPointer none$"
  --stdout-matches "^cudaMalloc \\+ 5: type 2, device 0, devicePointer it, hostPointer none$"
  --stdout-matches "^cudaMallocHost: type 1, device 0, devicePointer it, hostPointer it$"
  --stdout-matches "^cudaHostAlloc: type 1, device 0, devicePointer it, hostPointer it$"
  --stdout-matches "^cudaMallocManaged: type 3, device 0, devicePointer it, hostPointer it$"
  --stdout-matches "^a local: type 0, device -2, devicePointer none, hostPointer it$"
  --stdout-lacks "^CPU runner:"
  ${host_api} pointer_attributes)
# pitch: cudaMallocPitch's 512-byte rows, cudaMemcpy2D and cudaMemset2D round trips with odd widths
add_cpu_test(cpu_runner_host_api_pitch 0
  --stdout-matches "^pitches: 1->512 3->512 100->512 511->512 512->512 513->1024 1000->1024 1025->1536 4096->4096 5000->5120$"
  --stdout-matches "^2D round trip, 28-byte rows in a 512-byte pitch: 45 of 45 right$"
  --stdout-matches "^cudaMemset2D: 111 bytes 0x5a, 9 bytes 0x11$"
  --stdout-matches "^cudaMemcpy2D\\(rows, 16, host, sizeof host\\[0\\], width \\* sizeof\\(float\\), height, cudaMemcpyHostToDevice\\) -> cudaErrorInvalidPitchValue$"
  --stdout-matches "^cudaMemset2D\\(bytes, 16, 0, 17, 2\\) -> cudaErrorInvalidValue$"
  --stdout-matches "^cudaGetLastError\\(\\) -> cudaErrorInvalidValue$"
  --stdout-lacks "^CPU runner:"
  ${host_api} pitch)
# streams: streams with flags and priorities, events, waits and a host function, as cuda-samples use them
add_cpu_test(cpu_runner_host_api_streams 0
  --stdout-matches "^priorities: least 0, greatest -5$"
  --stdout-matches "^host function ran: after stream 0's work$"
  --stdout-matches "^streams: 4096 of 4096 right$"
  --stdout-matches "^cudaStreamQuery: cudaSuccess, cudaEventQuery: cudaSuccess$"
  --stdout-matches "^stream 1's flags 1, stream 2's priority -5$"
  --stdout-matches "^elapsed time measured: yes$"
  --stdout-matches "^cudaEventElapsedTime\\(&ms, done\\[0\\], stop\\) -> cudaErrorInvalidResourceHandle$"
  --stdout-matches "^cudaEventElapsedTime\\(&ms, start, never\\) -> cudaErrorInvalidResourceHandle$"
  --stdout-matches "^cudaEventQuery of an event never recorded: cudaSuccess$"
  --stdout-matches "^cudaStreamCreateWithFlags\\(&stream\\[0\\], 7\\) -> cudaErrorInvalidValue$"
  --stdout-matches "^cudaEventCreateWithFlags\\(&never, 0x100\\) -> cudaErrorInvalidValue$"
  --stdout-matches "^cudaGetLastError\\(\\) -> cudaErrorInvalidValue$"
  --stdout-lacks "^CPU runner:"
  ${host_api} streams)
# settings: limits, device flags, cache configuration, cudaFuncGetAttributes with the opt-in, cudaDeviceReset
add_cpu_test(cpu_runner_host_api_settings 0
  --stdout-matches "^limit stack: cudaSuccess 1024$"
  --stdout-matches "^limit printf FIFO: cudaSuccess 8650752$"
  --stdout-matches "^limit malloc heap: cudaSuccess 8388608$"
  --stdout-matches "^limit sync depth: cudaErrorUnsupportedLimit 12345$"
  --stdout-matches "^limit pending launches: cudaSuccess 2048$"
  --stdout-matches "^limit L2 fetch granularity: cudaSuccess 64$"
  --stdout-matches "^limit persisting L2: cudaSuccess 9830400$"
  --stdout-matches "^stack 4000 -> 4000$"
  --stdout-matches "^heap 64 MiB -> 67108864$"
  --stdout-matches "^printf FIFO 1000 -> 524288$"
  --stdout-matches "^device flags 8$"
  --stdout-matches "^device flags after cudaDeviceScheduleBlockingSync 12$"
  --stdout-matches "^cudaSetDeviceFlags\\(0xffff\\) -> cudaErrorInvalidValue$"
  --stdout-matches "^cudaGetLastError\\(\\) -> cudaErrorInvalidValue$"
  --stdout-matches "^cache config 1$"
  --stdout-matches "^kernel: maxThreadsPerBlock 1024, ptxVersion 90, binaryVersion 90, maxDynamicSharedSizeBytes 49152$"
  --stdout-matches "^after the opt-in to 100000: maxDynamicSharedSizeBytes 100000$"
  --stdout-matches "^a launch with 60000 bytes of dynamic shared memory: out\\[63\\] = 0$"
  --stdout-matches "^cudaChooseDevice 0, cudaDeviceCanAccessPeer\\(0, 0\\) 0$"
  --stdout-matches "^cudaDeviceCanAccessPeer\\(&can, 0, 1\\) -> cudaErrorInvalidDevice$"
  --stdout-matches "^cudaGetLastError\\(\\) -> cudaErrorInvalidDevice$"
  --stdout-matches "^after cudaDeviceReset: stack 1024, cache config 0$"
  --stdout-lacks "^CPU runner:"
  ${host_api} settings)
# pinned: cudaHostAlloc's mapped memory used by a kernel, cudaHostRegister twice
add_cpu_test(cpu_runner_host_api_pinned 0
  --stdout-matches "^mapped: host\\[7\\] = 49, host\\[99\\] = 9801$"
  --stdout-matches "^cudaHostGetFlags: 3$"
  --stdout-matches "^cudaHostRegister\\(registered, sizeof registered, cudaHostRegisterDefault\\) -> cudaErrorHostMemoryAlreadyRegistered$"
  --stdout-matches "^cudaHostUnregister\\(registered\\) -> cudaErrorHostMemoryNotRegistered$"
  --stdout-matches "^cudaHostAlloc\\(&host, 16, 0x100\\) -> cudaErrorInvalidValue$"
  --stdout-matches "^cudaGetLastError\\(\\) -> cudaErrorInvalidValue$"
  --stdout-lacks "^CPU runner:"
  ${host_api} pinned)
# occupancy: the occupancy calls and the toolkit's cudaOccupancyMaxPotentialBlockSize template
add_cpu_test(cpu_runner_host_api_occupancy 0
  --stdout-matches "^fill: 8 blocks of 256 threads per SM$"
  --stdout-matches "^uses_dynamic_shared: 5 blocks of 128 threads with 40000 bytes per SM$"
  --stdout-matches "^cudaOccupancyMaxPotentialBlockSize\\(fill\\): block 1024, grid 264$"
  --stdout-lacks "^CPU runner:"
  ${host_api} occupancy)
# not_on_runner: what the runner cannot do fails with one line on stderr (a GPU does both: the runner's own case)
add_cpu_test(cpu_runner_host_api_not_on_runner 0
  --stdout-matches "^cudaMemcpyToSymbol\\(fixed, values, sizeof values\\) -> cudaErrorNotSupported$"
  --stdout-matches "^cudaLaunchKernel\\(\\(const void \\*\\)nothing, dim3\\(1\\), dim3\\(1\\), arguments, 0, 0\\) -> cudaErrorNotSupported$"
  --stdout-lacks "^CPU runner:"
  ${host_api} not_on_runner)
# a case the program does not have: its usage line, exit 2
add_cpu_test(cpu_runner_host_api_usage 2 ${host_api} no_such_case)
