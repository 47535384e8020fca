// See cuda_call.h.
#include "cuda_call.h"

#include "prefixes.h"

namespace torch_sync::runtime {
namespace {

// The facts' one list of CUDA calls and how they wait (checker/facts/sync-facts.yaml, cuda_waits).
enum class Waits { Device, Stream, Event, Copy, Free, Unregister, Never };

struct CudaCallRule {
  std::string_view name; // CUPTI's name without version and per-thread suffixes
  Waits waits;
  bool prefix; // the rule covers every name that starts with 'name'
};

constexpr CudaCallRule kRules[] = {
#define TORCH_SYNC_CUDA_CALL(NAME, WAITS, PREFIX) {NAME, Waits::WAITS, PREFIX},
#include "cuda_waits.inc"
#undef TORCH_SYNC_CUDA_CALL
};

// The rule that covers api (the longest matching name), or nullptr. A rule's name matches itself, its
// versioned and per-thread forms ("cuMemcpyDtoH_v2", "cudaStreamSynchronize_ptsz": the name then '_'), and
// with 'prefix' every name that starts with it.
const CudaCallRule *ruleFor(std::string_view api) {
  const CudaCallRule *best = nullptr;
  for (const CudaCallRule &rule : kRules) {
    bool matches = startsWith(api, rule.name) &&
                   (rule.prefix || api.size() == rule.name.size() || api[rule.name.size()] == '_');
    if (matches && (!best || rule.name.size() > best->name.size()))
      best = &rule;
  }
  return best;
}

bool hasWaits(std::string_view api, Waits waits) {
  const CudaCallRule *rule = ruleFor(api);
  return rule && rule->waits == waits;
}

bool isAsync(std::string_view api) { return api.find("Async") != std::string_view::npos; }

} // namespace

bool isCopyApi(std::string_view api) { return hasWaits(api, Waits::Copy); }

bool isWatchedApi(std::string_view api) {
  const CudaCallRule *rule = ruleFor(api);
  if (!rule || rule->waits == Waits::Never)
    return false;
  // Stream-ordered frees (cudaFreeAsync, cuMemFreeAsync) return at once.
  return !(rule->waits == Waits::Free && isAsync(api));
}

bool isMeasuredApi(std::string_view api) { return ruleFor(api) != nullptr; }

bool isSynchronize(std::string_view api) {
  const CudaCallRule *rule = ruleFor(api);
  return rule &&
         (rule->waits == Waits::Device || rule->waits == Waits::Stream || rule->waits == Waits::Event);
}

bool isDeviceWideSynchronize(std::string_view api) { return hasWaits(api, Waits::Device); }

bool isEventSynchronize(std::string_view api) { return hasWaits(api, Waits::Event); }

Blocking blocking(const CudaCall &call) {
  std::string_view api = call.api;
  const CudaCallRule *rule = ruleFor(api);
  if (!rule)
    return Blocking::No;
  switch (rule->waits) {
  case Waits::Device:
  case Waits::Stream:
  case Waits::Event:
  case Waits::Unregister:
    return Blocking::Yes;
  case Waits::Free:
    return isAsync(api) || call.nullPointer ? Blocking::No : Blocking::Yes;
  case Waits::Never:
    return Blocking::No;
  case Waits::Copy:
    break;
  }
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

const char *captureErrorName(int code) {
  switch (code) {
  case 900:
    return "cudaErrorStreamCaptureUnsupported";
  case 901:
    return "cudaErrorStreamCaptureInvalidated";
  case 902:
    return "cudaErrorStreamCaptureMerge";
  case 903:
    return "cudaErrorStreamCaptureUnmatched";
  case 904:
    return "cudaErrorStreamCaptureUnjoined";
  case 905:
    return "cudaErrorStreamCaptureIsolation";
  case 906:
    return "cudaErrorStreamCaptureImplicit";
  case 907:
    return "cudaErrorCapturedEvent";
  case 908:
    return "cudaErrorStreamCaptureWrongThread";
  }
  return nullptr;
}

bool isCaptureConsequence(int code) { return code == 901; }

bool returnsNoFailure(std::string_view api) {
  return startsWith(api, "cudaGetLastError") || startsWith(api, "cudaPeekAtLastError") ||
         startsWith(api, "cudaGetErrorName") || startsWith(api, "cudaGetErrorString");
}

bool beginsCapture(std::string_view api) {
  return startsWith(api, "cudaStreamBeginCapture") || startsWith(api, "cuStreamBeginCapture");
}

bool endsCapture(std::string_view api) {
  return startsWith(api, "cudaStreamEndCapture") || startsWith(api, "cuStreamEndCapture");
}

} // namespace torch_sync::runtime
