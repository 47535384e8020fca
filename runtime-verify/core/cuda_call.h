// The runtime core's model of one CUDA runtime or driver call that may make the host wait for the device, and
// the rules that say whether it does. Pure code: no CUDA, no LibTorch, so it is tested without a GPU
// (runtime-verify/guard/test/guard_logic_test.cpp).
//
// Which calls wait comes from the facts' table (checker/facts/sync-facts.yaml, cuda_waits): CUDA's
// documentation of API synchronization behaviour
// (docs.nvidia.com/cuda/cuda-runtime-api/api-sync-behavior.html), corrected where the GPU measured otherwise:
// checker/facts/census-frontend.tsv, rows "cudaMemcpyAsync" (runtime-verify/census/frontend_census.cpp).
#pragma once

#include <cstdint>
#include <string_view>

namespace torch_sync::runtime {

// The direction of a copy; None for calls that copy nothing.
enum class CopyKind { None, HostToHost, HostToDevice, DeviceToHost, DeviceToDevice, Unknown };

// Where the host side of a copy lives (or what a pointer points to); Unknown when it could not be asked.
enum class MemoryType { Unknown, Pageable, Pinned, Device, Managed };

// Whether a call makes the host wait for work queued on the device.
enum class Blocking { No, Yes, Unknown };

// One CUDA runtime or driver API call as the core sees it. Trivially copyable and destructible, so that it
// can live in thread-local storage that CUDA calls made during thread or process teardown still reach.
struct CudaCall {
  const char *api = ""; // the name CUPTI gives (static storage), e.g. "cudaMemcpyAsync", "cuMemFree_v2"
  bool driver = false;  // a driver API call (cu*) rather than a runtime one (cuda*)
  CopyKind copy = CopyKind::None;
  MemoryType hostMemory = MemoryType::Unknown; // the host side of a HtoD or DtoH copy
  std::uint64_t bytes = 0;      // bytes copied (0 for other calls, and for 2D/3D copies: not computed)
  const void *stream = nullptr; // cudaStream_t / CUstream of the call; nullptr: the legacy default stream
  bool nullPointer = false;     // a free given a null pointer, which does nothing
};

// Whether api is one of the calls the core watches: the synchronizes, copies, frees and unregistrations that
// can wait for the device, as the facts list them (checker/facts/sync-facts.yaml, cuda_waits, generated into
// cuda_waits.inc). Versioned and per-thread forms (cuMemcpyDtoH_v2, cudaMemcpyAsync_ptsz) match too;
// stream-ordered frees (cudaFreeAsync) do not.
bool isWatchedApi(std::string_view api);

// Whether the facts' table has a rule for api, one that waits or one measured not to (cudaMalloc, cudaMemset,
// cudaHostAlloc, cudaHostRegister): the calls whose waiting the recorder's host-wait test measures.
bool isMeasuredApi(std::string_view api);

// Whether api is an event synchronize (cudaEventSynchronize, cuEventSynchronize): it waits for its own event.
bool isEventSynchronize(std::string_view api);

// Whether api is a memory copy (cudaMemcpy*, cuMemcpy*), in any direction.
bool isCopyApi(std::string_view api);

// Whether api is an explicit synchronize (device, context, stream, event or thread).
bool isSynchronize(std::string_view api);

// Whether api is a device-, context- or thread-wide synchronize (which waits for every stream): with a stream
// synchronize of the copy's stream, the waits that can end a copy-and-wait pair
// (../guard/src/sync_counting.h).
bool isDeviceWideSynchronize(std::string_view api);

// Whether call makes the host wait: documented by CUDA, corrected by the GPU's measurements (header comment).
// Synchronizes, synchronous HtoD/DtoH copies, frees of non-null pointers and unregistrations wait; DtoD
// copies do not; an asynchronous copy waits when it copies into pageable host memory (DtoH), not from it
// (HtoD, measured), and not with pinned memory. Unknown when the memory type or direction is unknown.
Blocking blocking(const CudaCall &call);

// "HtoD", "DtoH", "DtoD", "HtoH", "default" (unknown direction), or "" for None.
const char *copyKindName(CopyKind kind);
// "pageable", "pinned", "device", "managed", or "" for Unknown.
const char *memoryTypeName(MemoryType type);

// The copy kind a copy between memory of types src and dst is; Unknown when either is unknown.
CopyKind copyKindBetween(MemoryType src, MemoryType dst);

// Stream capture errors (cudaErrorStreamCapture*, cudaErrorCapturedEvent; the driver's
// CUDA_ERROR_STREAM_CAPTURE_* and CUDA_ERROR_CAPTURED_EVENT have the same values, 900 to 908: driver_types.h,
// cuda.h). The runtime's name of a stream capture error code (runtime and driver alike), or nullptr for any
// other code.
const char *captureErrorName(int code);
// Whether a call that returned the stream capture error code only reports an earlier failure of the same
// capture (cudaErrorStreamCaptureInvalidated: "invalidated due to a previous error"), rather than failing it.
bool isCaptureConsequence(int code);
// Whether api's return value says nothing of its own failure: cudaGetLastError and cudaPeekAtLastError return
// an earlier call's error, cudaGetErrorName and cudaGetErrorString a string.
bool returnsNoFailure(std::string_view api);
// Whether api begins (cudaStreamBeginCapture*, cuStreamBeginCapture*) or ends (cudaStreamEndCapture,
// cuStreamEndCapture) a stream capture.
bool beginsCapture(std::string_view api);
bool endsCapture(std::string_view api);

} // namespace torch_sync::runtime
