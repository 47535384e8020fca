// See cuda_call.h.
#include "cuda_call.h"

#include "prefixes.h"

namespace torch_sync::runtime {
namespace {

constexpr std::string_view kWatchedApis[] = {
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaThreadSynchronize",
    "cudaMemcpy",            "cudaFree",              "cuCtxSynchronize",     "cuStreamSynchronize",
    "cuEventSynchronize",    "cuMemcpy",              "cuMemFree",            "cudaHostUnregister",
    "cuMemHostUnregister",
};

bool isAsync(std::string_view api) { return api.find("Async") != std::string_view::npos; }
bool isFree(std::string_view api) { return startsWith(api, "cudaFree") || startsWith(api, "cuMemFree"); }

} // namespace

bool isCopyApi(std::string_view api) { return startsWith(api, "cudaMemcpy") || startsWith(api, "cuMemcpy"); }

bool isWatchedApi(std::string_view api) {
  // Stream-ordered frees (cudaFreeAsync, cuMemFreeAsync) return at once.
  if (isFree(api) && isAsync(api))
    return false;
  return startsWithAny(api, kWatchedApis);
}

bool isSynchronize(std::string_view api) { return api.find("Synchronize") != std::string_view::npos; }

bool isDeviceWideSynchronize(std::string_view api) {
  return startsWith(api, "cudaDeviceSynchronize") || startsWith(api, "cudaThreadSynchronize") ||
         startsWith(api, "cuCtxSynchronize");
}

Blocking blocking(const CudaCall &call) {
  std::string_view api = call.api;
  if (isSynchronize(api))
    return Blocking::Yes;
  if (isFree(api))
    return isAsync(api) || call.nullPointer ? Blocking::No : Blocking::Yes;
  if (startsWith(api, "cudaHostUnregister") || startsWith(api, "cuMemHostUnregister"))
    return Blocking::Yes;
  if (!isCopyApi(api))
    return Blocking::No;
  switch (call.copy) {
  case CopyKind::DeviceToDevice:
  case CopyKind::HostToHost:
    return Blocking::No; // no host-side synchronization (CUDA's documentation)
  case CopyKind::HostToDevice:
  case CopyKind::DeviceToHost:
    break;
  default:
    return Blocking::Unknown;
  }
  if (!isAsync(api))
    return Blocking::Yes;
  // Asynchronous copies: measured on the GPU (census-frontend.tsv): pageable DtoH waited, pageable HtoD and
  // pinned either way did not.
  if (call.hostMemory == MemoryType::Pinned)
    return Blocking::No;
  if (call.hostMemory == MemoryType::Pageable)
    return call.copy == CopyKind::DeviceToHost ? Blocking::Yes : Blocking::No;
  return Blocking::Unknown;
}

const char *copyKindName(CopyKind kind) {
  switch (kind) {
  case CopyKind::None:
    return "";
  case CopyKind::HostToHost:
    return "HtoH";
  case CopyKind::HostToDevice:
    return "HtoD";
  case CopyKind::DeviceToHost:
    return "DtoH";
  case CopyKind::DeviceToDevice:
    return "DtoD";
  case CopyKind::Unknown:
    break;
  }
  return "default";
}

const char *memoryTypeName(MemoryType type) {
  switch (type) {
  case MemoryType::Pageable:
    return "pageable";
  case MemoryType::Pinned:
    return "pinned";
  case MemoryType::Device:
    return "device";
  case MemoryType::Managed:
    return "managed";
  case MemoryType::Unknown:
    break;
  }
  return "";
}

CopyKind copyKindBetween(MemoryType src, MemoryType dst) {
  if (src == MemoryType::Unknown || dst == MemoryType::Unknown)
    return CopyKind::Unknown;
  auto onHost = [](MemoryType m) { return m == MemoryType::Pageable || m == MemoryType::Pinned; };
  if (onHost(src))
    return onHost(dst) ? CopyKind::HostToHost : CopyKind::HostToDevice;
  return onHost(dst) ? CopyKind::DeviceToHost : CopyKind::DeviceToDevice;
}

} // namespace torch_sync::runtime
