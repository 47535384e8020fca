// sync_recorder: CUPTI callbacks, event storage, symbolization and the JSON output. See sync_recorder.h.
#include "sync_recorder.h"
#include "host_wait.h"

#include <cupti.h> // also the generated_*_meta.h parameter structs
#include <cuda_runtime_api.h>

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#ifndef TORCH_SYNC_SOURCE_ROOT
#define TORCH_SYNC_SOURCE_ROOT ""
#endif

namespace torch_sync::recorder {
namespace {

constexpr int kMaxFrames = 128;

// The API calls that wait for the device or copy memory. A name matches when it starts with one of these
// (so versioned and per-thread forms such as cuMemcpyDtoH_v2 or cudaMemcpyAsync_ptsz match too).
constexpr std::string_view kWatchedApis[] = {
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaThreadSynchronize",
    "cudaMemcpy",            "cudaFree",              "cuCtxSynchronize",     "cuStreamSynchronize",
    "cuEventSynchronize",    "cuMemcpy",              "cuMemFree",            "cudaHostUnregister",
    "cuMemHostUnregister",
};

// Whether name starts with one of prefixes.
template <typename Prefixes> bool startsWithAny(std::string_view name, const Prefixes &prefixes) {
  for (std::string_view prefix : prefixes)
    if (name.substr(0, prefix.size()) == prefix)
      return true;
  return false;
}

bool isWatched(std::string_view name) {
  // Stream-ordered frees do not wait for the device.
  return name.find("FreeAsync") == std::string_view::npos && startsWithAny(name, kWatchedApis);
}

struct RawKey {
  std::string signal, api, kind, hostMemory, measured;
  bool mainThread = true;
  std::vector<uintptr_t> frames; // return addresses, innermost first
  bool operator<(const RawKey &o) const {
    return std::tie(signal, api, kind, hostMemory, measured, mainThread, frames) <
           std::tie(o.signal, o.api, o.kind, o.hostMemory, o.measured, o.mainThread, o.frames);
  }
};

struct State {
  std::mutex mutex;
  std::map<RawKey, uint64_t> events;
  bool stopped = false;
  std::string cuptiStatus = "not started";
  std::string sdmStatus = "not started";
};

// Never destroyed: callbacks and the exit handler may run during static destruction.
State &state() {
  static State *s = new State;
  return *s;
}

// Set once the observations are written (at exit): from then on, CUDA calls (of static destructors) are
// neither recorded nor probed.
std::atomic<bool> finished{false};

// The host-wait test measures each call site (stack of return addresses) this many times at most: a loop
// that syncs thousands of times would otherwise wait for thousands of sleeps.
constexpr int kProbesPerStack = 3;

// Whether the call about to run, from the current stack, is still to be measured.
bool stillToProbe() {
  void *frames[kMaxFrames];
  int n = backtrace(frames, kMaxFrames);
  uint64_t hash = 1469598103934665603ull; // FNV-1a over the return addresses
  for (int i = 0; i < n; ++i) {
    hash ^= reinterpret_cast<uintptr_t>(frames[i]);
    hash *= 1099511628211ull;
  }
  static std::mutex mutex;
  static auto *probes = new std::map<uint64_t, int>;
  std::lock_guard<std::mutex> lock(mutex);
  return ++(*probes)[hash] <= kProbesPerStack;
}

// Set while the recorder itself calls the CUDA runtime, so that those calls are not recorded.
thread_local bool inRecorder = false;
// Depth of runtime API calls on this thread: driver calls made inside a runtime call are not recorded
// twice (cudaStreamSynchronize calls cuStreamSynchronize, for example).
thread_local int runtimeDepth = 0;

const char *memcpyKindName(int kind) {
  switch (kind) {
  case cudaMemcpyHostToHost:
    return "HtoH";
  case cudaMemcpyHostToDevice:
    return "HtoD";
  case cudaMemcpyDeviceToHost:
    return "DtoH";
  case cudaMemcpyDeviceToDevice:
    return "DtoD";
  default:
    return "default";
  }
}

// "device", "pinned", "pageable", "managed", or "" when unknown.
std::string memoryOf(const void *ptr) {
  inRecorder = true;
  std::string result;
  // Never touch the runtime's last-error slot while it holds an error that the program may still read.
  if (cudaPeekAtLastError() == cudaSuccess) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, ptr) == cudaSuccess) {
      switch (attributes.type) {
      case cudaMemoryTypeUnregistered:
        result = "pageable";
        break;
      case cudaMemoryTypeHost:
        result = "pinned";
        break;
      case cudaMemoryTypeDevice:
        result = "device";
        break;
      case cudaMemoryTypeManaged:
        result = "managed";
        break;
      }
    } else {
      (void)cudaGetLastError();
    }
  }
  inRecorder = false;
  return result;
}

// A runtime API call as recorded: its name, the copy direction and host memory of a copy, and the stream
// it runs on (for the host-wait test).
struct RuntimeCall {
  std::string api, kind, hostMemory;
  cudaStream_t stream = nullptr;
};

// Copy direction and host memory of cudaMemcpy / cudaMemcpyAsync (their parameter structs start alike).
void describeRuntimeMemcpy(RuntimeCall &call, const void *dst, const void *src, int kind) {
  std::string dstMemory = memoryOf(dst), srcMemory = memoryOf(src);
  auto onHost = [](const std::string &m) { return m == "pageable" || m == "pinned"; };
  call.kind = memcpyKindName(kind);
  if (kind == cudaMemcpyDefault && !dstMemory.empty() && !srcMemory.empty())
    call.kind = std::string(onHost(srcMemory) ? "H" : "D") + "to" + (onHost(dstMemory) ? "H" : "D");
  if (call.kind == "HtoD")
    call.hostMemory = srcMemory;
  else if (call.kind == "DtoH")
    call.hostMemory = dstMemory;
}

RuntimeCall describeRuntimeCall(CUpti_CallbackId cbid, const CUpti_CallbackData &info) {
  RuntimeCall call;
  call.api = info.functionName;
  switch (cbid) {
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000: {
    const auto *p = static_cast<const cudaMemcpy_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, p->dst, p->src, p->kind);
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000: {
    const auto *p = static_cast<const cudaMemcpyAsync_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, p->dst, p->src, p->kind);
    call.stream = p->stream;
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
    call.stream = static_cast<const cudaStreamSynchronize_v3020_params *>(info.functionParams)->stream;
    break;
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000:
    call.stream = static_cast<const cudaMemsetAsync_v3020_params *>(info.functionParams)->stream;
    break;
  case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:
    // cudaFree(nullptr) does nothing (CUDA libraries call it to create the context).
    if (!static_cast<const cudaFree_v3020_params *>(info.functionParams)->devPtr)
      call.kind = "null";
    break;
  default:
    break;
  }
  return call;
}

// The runtime calls the host-wait test measures: copies, frees, allocations and the stream and device
// synchronizes (these two as a check of the test itself: they must be measured as waiting). Not event
// synchronizes, which wait for their own event, not for the sleep queued before the call.
bool isProbed(const RuntimeCall &call) {
  static constexpr std::string_view kProbed[] = {
      "cudaMemcpy", "cudaMemset", "cudaFree", "cudaMalloc", "cudaHostAlloc", "cudaHostRegister",
      "cudaHostUnregister", "cudaStreamSynchronize", "cudaDeviceSynchronize"};
  std::string_view name = call.api;
  if (name.find("Async") != std::string_view::npos &&
      (name.rfind("cudaFree", 0) == 0 || name.rfind("cudaMalloc", 0) == 0))
    return false; // stream-ordered allocation
  if (call.kind == "null")
    return false;
  return startsWithAny(name, kProbed);
}

// The probed call in progress on this thread, at its API depth (runtime calls), or a driver call made
// outside any runtime call.
struct PendingProbe {
  RuntimeCall call;
  int depth = 0;
  bool active = false;
  bool driver = false;
};
thread_local PendingProbe pendingProbe;
// Depth of driver API calls made outside runtime calls on this thread.
thread_local int driverDepth = 0;

std::string driverCopyKind(std::string_view name) {
  for (std::string_view kind : {"HtoD", "DtoH", "DtoD", "HtoA", "AtoH", "DtoA", "AtoD", "AtoA"})
    if (name.find(kind) != std::string_view::npos)
      return std::string(kind);
  return {};
}

// Direction and host memory of a driver copy: from the name (cuMemcpyDtoH), or, for the unified forms
// (cuMemcpy, cuMemcpy2D, cuMemcpy3D), from the pointers' memory types.
RuntimeCall describeDriverCall(CUpti_CallbackId cbid, const CUpti_CallbackData &info) {
  RuntimeCall call;
  call.api = info.functionName;
  call.kind = driverCopyKind(info.functionName);
  auto fromMemoryTypes = [&](const std::string &src, const std::string &dst) {
    auto onHost = [](const std::string &m) { return m == "pageable" || m == "pinned"; };
    if (src.empty() || dst.empty())
      return;
    call.kind = std::string(onHost(src) ? "H" : "D") + "to" + (onHost(dst) ? "H" : "D");
    call.hostMemory = call.kind == "HtoD" ? src : call.kind == "DtoH" ? dst : "";
  };
  auto fromDescriptor = [&](CUmemorytype srcType, const void *srcHost, CUmemorytype dstType, const void *dstHost) {
    std::string src = srcType == CU_MEMORYTYPE_HOST ? memoryOf(srcHost) : "device";
    std::string dst = dstType == CU_MEMORYTYPE_HOST ? memoryOf(dstHost) : "device";
    fromMemoryTypes(src, dst);
  };
  switch (cbid) {
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy: {
    const auto *p = static_cast<const cuMemcpy_params *>(info.functionParams);
    fromMemoryTypes(memoryOf(reinterpret_cast<const void *>(p->src)),
                    memoryOf(reinterpret_cast<const void *>(p->dst)));
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
    call.hostMemory = memoryOf(static_cast<const cuMemcpyDtoH_v2_params *>(info.functionParams)->dstHost);
    break;
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
    call.hostMemory = memoryOf(static_cast<const cuMemcpyHtoD_v2_params *>(info.functionParams)->srcHost);
    break;
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2: {
    const CUDA_MEMCPY2D *c = static_cast<const cuMemcpy2D_v2_params *>(info.functionParams)->pCopy;
    if (c)
      fromDescriptor(c->srcMemoryType, c->srcHost, c->dstMemoryType, c->dstHost);
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2: {
    const CUDA_MEMCPY3D *c = static_cast<const cuMemcpy3D_v2_params *>(info.functionParams)->pCopy;
    if (c)
      fromDescriptor(c->srcMemoryType, c->srcHost, c->dstMemoryType, c->dstHost);
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
    if (!static_cast<const cuMemFree_v2_params *>(info.functionParams)->dptr)
      call.kind = "null";
    break;
  default:
    break;
  }
  return call;
}

// The driver calls the host-wait test measures (outside runtime calls): the synchronous copies, and the
// context and stream synchronizes as a check of the test itself. Their stream is the legacy default one.
bool isProbedDriverCall(const RuntimeCall &call) {
  std::string_view name = call.api;
  if (name.find("Async") != std::string_view::npos || call.kind == "null")
    return false;
  static constexpr std::string_view kProbedDriver[] = {"cuMemcpy", "cuMemFree", "cuCtxSynchronize",
                                                      "cuStreamSynchronize"};
  return startsWithAny(name, kProbedDriver);
}

void finishProbe() {
  pendingProbe.active = false;
  inRecorder = true;
  std::optional<bool> waited = hostWaitResult();
  inRecorder = false;
  if (waited) {
    const RuntimeCall &call = pendingProbe.call;
    recordEvent("host_wait", call.api, call.kind, call.hostMemory, *waited ? "waited" : "returned");
  }
}

void onDriverApiCall(CUpti_CallbackId cbid, const CUpti_CallbackData &info) {
  // A driver call made inside a runtime call is the runtime call's business.
  if (runtimeDepth > 0)
    return;
  if (info.callbackSite != CUPTI_API_ENTER) {
    if (pendingProbe.active && pendingProbe.driver && pendingProbe.depth == driverDepth)
      finishProbe();
    --driverDepth;
    return;
  }
  ++driverDepth;
  if (!info.functionName)
    return;
  bool watched = isWatched(info.functionName);
  bool probing = hostWaitEnabled() && !pendingProbe.active;
  if (!watched && !probing)
    return;
  RuntimeCall call = describeDriverCall(cbid, info);
  if (watched)
    recordEvent("cupti", call.api, call.kind, call.hostMemory);
  if (probing && isProbedDriverCall(call) && stillToProbe()) {
    inRecorder = true;
    bool armed = hostWaitArm(nullptr);
    inRecorder = false;
    if (armed)
      pendingProbe = PendingProbe{call, driverDepth, true, true};
  }
}

void onRuntimeApiCall(CUpti_CallbackId cbid, const CUpti_CallbackData &info) {
  if (info.callbackSite != CUPTI_API_ENTER) {
    if (pendingProbe.active && !pendingProbe.driver && pendingProbe.depth == runtimeDepth) {
      finishProbe();
    }
    --runtimeDepth;
    return;
  }
  ++runtimeDepth;
  if (!info.functionName)
    return;
  bool watched = isWatched(info.functionName);
  bool probing = hostWaitEnabled() && !pendingProbe.active;
  if (!watched && !probing)
    return;
  RuntimeCall call = describeRuntimeCall(cbid, info);
  if (watched)
    recordEvent("cupti", call.api, call.kind, call.hostMemory);
  if (probing && isProbed(call) && stillToProbe()) {
    inRecorder = true;
    bool armed = hostWaitArm(call.stream);
    inRecorder = false;
    if (armed)
      pendingProbe = PendingProbe{call, runtimeDepth, true, false};
  }
}

void CUPTIAPI onApiCall(void *, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data) {
  if (inRecorder || finished.load(std::memory_order_relaxed))
    return;
  const auto *info = static_cast<const CUpti_CallbackData *>(data);
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    onRuntimeApiCall(cbid, *info);
    return;
  }
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
    onDriverApiCall(cbid, *info);
}

std::string cuptiError(const char *what, CUptiResult result) {
  const char *text = nullptr;
  cuptiGetResultString(result, &text);
  return std::string("error: ") + what + ": " + (text ? text : "unknown CUPTI error");
}

std::string startCupti() {
  CUpti_SubscriberHandle subscriber;
  if (CUptiResult r = cuptiSubscribe(&subscriber, reinterpret_cast<CUpti_CallbackFunc>(onApiCall), nullptr);
      r != CUPTI_SUCCESS)
    return cuptiError("cuptiSubscribe", r);
  if (CUptiResult r = cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API); r != CUPTI_SUCCESS)
    return cuptiError("cuptiEnableDomain(runtime)", r);
  if (CUptiResult r = cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API); r != CUPTI_SUCCESS)
    return cuptiError("cuptiEnableDomain(driver)", r);
  return "ok";
}

// ---- Symbolization ----------------------------------------------------------------------------------

struct Location {
  std::string function, file; // file is empty outside the executable
  int line = 0;
  std::string module; // shared object basename, empty for the executable
};

std::string demangle(const char *name) {
  if (!name)
    return "?";
  int status = 0;
  char *out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string result = status == 0 && out ? out : name;
  std::free(out);
  return result;
}

std::string baseName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string realPath(const std::string &path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) ? std::string(buffer) : path;
}

std::string executablePath() {
  char buffer[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  return n > 0 ? std::string(buffer, n) : std::string();
}

uintptr_t mainProgramBias() {
  uintptr_t bias = 0;
  // The first object dl_iterate_phdr reports is the main program.
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *out) {
        *static_cast<uintptr_t *>(out) = info->dlpi_addr;
        return 1;
      },
      &bias);
  return bias;
}

// Runs addr2line once over every executable address; returns each address's inline chain, innermost first.
std::map<uintptr_t, std::vector<Location>> symbolizeExecutable(const std::string &exe,
                                                                const std::set<uintptr_t> &addresses) {
  std::map<uintptr_t, std::vector<Location>> result;
  if (addresses.empty() || exe.empty())
    return result;
  char listPath[] = "/tmp/sync_recorder_XXXXXX";
  int fd = mkstemp(listPath);
  if (fd < 0)
    return result;
  FILE *list = fdopen(fd, "w");
  for (uintptr_t a : addresses)
    std::fprintf(list, "0x%lx\n", static_cast<unsigned long>(a));
  std::fclose(list);
  const char *tool = std::getenv("TORCH_SYNC_ADDR2LINE");
  std::string command = std::string(tool && *tool ? tool : "addr2line") + " -a -C -f -i -e '" + exe + "' < " +
                        listPath;
  if (FILE *pipe = popen(command.c_str(), "r")) {
    char buffer[8192];
    std::vector<std::string> lines;
    while (std::fgets(buffer, sizeof(buffer), pipe)) {
      std::string line = buffer;
      while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
        line.pop_back();
      lines.push_back(line);
    }
    pclose(pipe);
    uintptr_t current = 0;
    bool haveAddress = false;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].rfind("0x", 0) == 0) {
        current = std::strtoul(lines[i].c_str(), nullptr, 16);
        haveAddress = true;
        continue;
      }
      if (!haveAddress || i + 1 >= lines.size())
        continue;
      Location loc;
      loc.function = lines[i];
      std::string where = lines[++i];
      if (size_t space = where.find(" ("); space != std::string::npos) // " (discriminator N)"
        where.resize(space);
      size_t colon = where.rfind(':');
      if (colon != std::string::npos) {
        loc.file = where.substr(0, colon);
        loc.line = std::atoi(where.c_str() + colon + 1);
      }
      if (loc.file == "??")
        loc.file.clear();
      else if (!loc.file.empty())
        loc.file = realPath(loc.file);
      result[current].push_back(loc);
    }
  }
  unlink(listPath);
  return result;
}

// ---- Output ------------------------------------------------------------------------------------------

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
        out += buffer;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + "\"";
}

std::string jsonOrNull(const std::string &s) { return s.empty() ? "null" : jsonString(s); }

struct Attributed {
  std::string file; // relative to the source root; empty when no frame lies in samples/
  int line = 0;
  std::string signal, api, kind, hostMemory, measured;
  bool mainThread = true;
  std::string function, via, stack;
  // Every frame of the stack in a samples/ file, innermost first, as "samples/x.cpp:12": a sync inside a
  // helper function is also a sync of each line that calls it.
  std::vector<std::string> sampleFrames;
  bool operator<(const Attributed &o) const {
    // Unattributed events last.
    return std::make_tuple(file.empty(), file, line, signal, api, kind, hostMemory, measured, !mainThread, via,
                           function, stack, sampleFrames) <
           std::make_tuple(o.file.empty(), o.file, o.line, o.signal, o.api, o.kind, o.hostMemory, o.measured,
                           !o.mainThread, o.via, o.function, o.stack, o.sampleFrames);
  }
};

// Whether the call makes the host wait for the device, as CUDA documents it (not measured here):
// "true", "false" or "null" (unknown). See docs.nvidia.com/cuda/cuda-runtime-api/api-sync-behavior.html.
const char *blocksHost(const Attributed &a) {
  std::string_view api = a.api;
  if (a.signal == "host_wait") // measured
    return a.measured == "waited" ? "true" : "false";
  if (a.signal == "sdm" || api.find("Synchronize") != std::string_view::npos)
    return "true";
  if (api.rfind("cudaFree", 0) == 0 || api.rfind("cuMemFree", 0) == 0)
    return a.kind == "null" ? "false" : "true";
  if (api.rfind("cudaMemcpy", 0) == 0 || api.rfind("cuMemcpy", 0) == 0) {
    if (a.kind == "DtoD")
      return "false"; // no host-side synchronization for device-to-device copies
    if (api.find("Async") == std::string_view::npos)
      return a.kind == "HtoD" || a.kind == "DtoH" ? "true" : "null";
    // Asynchronous copies: pageable host memory makes them synchronous, pinned memory does not.
    if (a.hostMemory == "pageable")
      return "true";
    if (a.hostMemory == "pinned")
      return "false";
  }
  return "null";
}

bool isOwnFile(const std::string &file) { return file.find("/runtime-verify/recorder/") != std::string::npos; }

bool isCudaModule(const std::string &module) {
  return module.rfind("libcupti", 0) == 0 || module.rfind("libcuda.", 0) == 0 ||
         module.rfind("libcudart", 0) == 0;
}

void writeObservations() {
  State &s = state();
  std::map<RawKey, uint64_t> events;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.stopped)
      return;
    s.stopped = true;
    finished = true;
    events = s.events;
  }

  const char *rootEnv = std::getenv("TORCH_SYNC_SOURCE_ROOT");
  std::string root = realPath(rootEnv && *rootEnv ? rootEnv : TORCH_SYNC_SOURCE_ROOT);
  std::string samplesPrefix = root + "/samples/";
  std::string exe = executablePath();

  // The executable's frames go to addr2line; the others are named by dladdr.
  Dl_info self{};
  dladdr(reinterpret_cast<void *>(&writeObservations), &self);
  uintptr_t bias = mainProgramBias();
  std::set<uintptr_t> exeAddresses;
  std::map<uintptr_t, Location> otherFrames;
  for (const auto &[key, count] : events) {
    for (uintptr_t frame : key.frames) {
      Dl_info info{};
      if (dladdr(reinterpret_cast<void *>(frame), &info) && info.dli_fbase == self.dli_fbase) {
        exeAddresses.insert(frame - 1 - bias); // - 1: the call instruction, not the one after it
      } else if (!otherFrames.count(frame)) {
        Location loc;
        loc.function = demangle(info.dli_sname);
        loc.module = info.dli_fname ? baseName(info.dli_fname) : "?";
        otherFrames[frame] = loc;
      }
    }
  }
  auto exeLocations = symbolizeExecutable(exe, exeAddresses);

  std::map<Attributed, uint64_t> attributed;
  for (const auto &[key, count] : events) {
    // The stack as a list of locations, innermost first, inline chains expanded.
    std::vector<Location> stack;
    for (uintptr_t frame : key.frames) {
      if (auto it = otherFrames.find(frame); it != otherFrames.end()) {
        stack.push_back(it->second);
        continue;
      }
      auto it = exeLocations.find(frame - 1 - bias);
      if (it == exeLocations.end() || it->second.empty()) {
        stack.push_back(Location{"?", "", 0, baseName(exe)});
        continue;
      }
      for (const Location &loc : it->second)
        stack.push_back(loc);
    }
    Attributed a;
    a.signal = key.signal;
    a.api = key.api;
    a.kind = key.kind;
    a.hostMemory = key.hostMemory;
    a.measured = key.measured;
    a.mainThread = key.mainThread;
    for (size_t i = 0; i < stack.size(); ++i) {
      if (stack[i].file.rfind(samplesPrefix, 0) != 0)
        continue;
      std::string file = stack[i].file.substr(root.size() + 1);
      a.sampleFrames.push_back(file + ":" + std::to_string(stack[i].line));
      if (!a.file.empty())
        continue;
      a.file = file;
      a.line = stack[i].line;
      a.function = stack[i].function;
      if (i > 0)
        a.via = stack[i - 1].function;
    }
    if (a.file.empty()) {
      // No frame in samples/: keep a short stack to explain it, past the recorder and the CUDA libraries:
      // its six innermost and three outermost frames.
      std::vector<std::string> shown;
      for (const Location &loc : stack) {
        if (isOwnFile(loc.file) || (shown.empty() && isCudaModule(loc.module)))
          continue;
        std::string text = loc.function;
        if (!loc.file.empty())
          text += " (" + baseName(loc.file) + ":" + std::to_string(loc.line) + ")";
        else if (!loc.module.empty())
          text += " (" + loc.module + ")";
        shown.push_back(text);
      }
      for (size_t i = 0; i < shown.size(); ++i) {
        if (i == 6 && shown.size() > 9) {
          a.stack += " <- ...";
          i = shown.size() - 3;
        }
        a.stack += (a.stack.empty() ? "" : " <- ") + shown[i];
      }
    }
    attributed[a] += count;
  }

  const char *outPath = std::getenv("TORCH_SYNC_OBSERVATIONS");
  if (!outPath || !*outPath) {
    uint64_t total = 0;
    for (const auto &entry : attributed)
      total += entry.second;
    std::fprintf(stderr, "sync_recorder: %llu events; set TORCH_SYNC_OBSERVATIONS=FILE to write them\n",
                 static_cast<unsigned long long>(total));
    return;
  }
  FILE *out = std::fopen(outPath, "w");
  if (!out) {
    std::fprintf(stderr, "sync_recorder: cannot write %s\n", outPath);
    return;
  }
  std::fprintf(out, "{\n  \"format\": 1,\n  \"sample\": %s,\n  \"source_root\": %s,\n",
               jsonString(baseName(exe)).c_str(), jsonString(".").c_str());
  std::fprintf(out, "  \"signals\": {\"cupti\": %s, \"sdm\": %s, \"host_wait\": %s},\n  \"events\": [",
               jsonString(s.cuptiStatus).c_str(), jsonString(s.sdmStatus).c_str(),
               hostWaitEnabled() ? "\"ok\"" : "\"off\"");
  bool first = true;
  for (const auto &[a, count] : attributed) {
    std::fprintf(out,
                 "%s\n    {\"signal\": %s, \"api\": %s, \"kind\": %s, \"host_memory\": %s, \"blocks_host\": %s, "
                 "\"measured\": %s, \"thread\": %s, ",
                 first ? "" : ",", jsonString(a.signal).c_str(), jsonString(a.api).c_str(), jsonOrNull(a.kind).c_str(),
                 jsonOrNull(a.hostMemory).c_str(), blocksHost(a), jsonOrNull(a.measured).c_str(), a.mainThread ? "\"main\"" : "\"other\"");
    if (a.file.empty())
      std::fprintf(out, "\"file\": null, \"line\": null, \"stack\": %s, ", jsonString(a.stack).c_str());
    else {
      std::fprintf(out, "\"file\": %s, \"line\": %d, \"function\": %s, \"via\": %s, \"sample_frames\": [",
                   jsonString(a.file).c_str(), a.line, jsonString(a.function).c_str(), jsonOrNull(a.via).c_str());
      for (size_t i = 0; i < a.sampleFrames.size(); ++i)
        std::fprintf(out, "%s%s", i ? ", " : "", jsonString(a.sampleFrames[i]).c_str());
      std::fprintf(out, "], ");
    }
    std::fprintf(out, "\"count\": %llu}", static_cast<unsigned long long>(count));
    first = false;
  }
  std::fprintf(out, "%s]\n}\n", first ? "" : "\n  ");
  std::fclose(out);
}

__attribute__((constructor)) void startRecorder() {
  State &s = state();
  // The first backtrace() loads the unwinder; do it here rather than inside a CUDA call.
  void *warmUp[4];
  backtrace(warmUp, 4);
  s.cuptiStatus = startCupti();
  s.sdmStatus = startSyncDebugMode();
  if (s.cuptiStatus != "ok" || s.sdmStatus != "ok")
    std::fprintf(stderr, "sync_recorder: cupti: %s; sync debug mode: %s\n", s.cuptiStatus.c_str(),
                 s.sdmStatus.c_str());
  std::atexit(writeObservations);
}

} // namespace

void recordEvent(const char *signal, const std::string &api, const std::string &kind,
                 const std::string &hostMemory, const std::string &measured) {
  void *frames[kMaxFrames];
  int n = backtrace(frames, kMaxFrames);
  RawKey key{signal, api, kind, hostMemory, measured, syscall(SYS_gettid) == getpid(), {}};
  key.frames.reserve(n);
  for (int i = 0; i < n; ++i)
    key.frames.push_back(reinterpret_cast<uintptr_t>(frames[i]));
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.stopped)
    ++s.events[key];
}

void finish() { writeObservations(); }

} // namespace torch_sync::recorder
