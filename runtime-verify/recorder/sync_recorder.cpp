// sync_recorder: records the host-device synchronizations of one process on the runtime core
// (../core/: CUPTI calls, stacks, the host-wait probe, the sync debug mode) and writes them as JSON at exit.
// See sync_recorder.h.
#include "sync_recorder.h"

#include "cuda_call.h"
#include "cupti_calls.h"
#include "host_wait.h"
#include "json_string.h"
#include "prefixes.h"
#include "stack_trace.h"
#include "sync_debug_mode.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#ifndef TORCH_SYNC_SOURCE_ROOT
#define TORCH_SYNC_SOURCE_ROOT ""
#endif

namespace torch_sync::recorder {
namespace {

using runtime::CudaCall;

struct RawKey {
  std::string signal, api, blocksHost, kind, hostMemory, measured;
  bool mainThread = true;
  std::vector<uintptr_t> frames; // return addresses, innermost first
  bool operator<(const RawKey &o) const {
    return std::tie(signal, api, blocksHost, kind, hostMemory, measured, mainThread, frames) <
           std::tie(o.signal, o.api, o.blocksHost, o.kind, o.hostMemory, o.measured, o.mainThread, o.frames);
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
  uint64_t hash = runtime::hashFrames(runtime::captureStack());
  static std::mutex mutex;
  static auto *probes = new std::map<uint64_t, int>;
  std::lock_guard<std::mutex> lock(mutex);
  return ++(*probes)[hash] <= kProbesPerStack;
}

// The "kind" field of an event: the copy direction, or "null" for a free of a null pointer.
std::string kindOf(const CudaCall &call) {
  if (call.nullPointer)
    return "null";
  return runtime::copyKindName(call.copy);
}

// The "blocks_host" field of a cupti event: whether the call makes the host wait for the device, by
// runtime::blocking (CUDA's documentation, corrected by the census' measurements): "true", "false" or "null".
const char *blocksHostOf(const CudaCall &call) {
  switch (runtime::blocking(call)) {
  case runtime::Blocking::Yes:
    return "true";
  case runtime::Blocking::No:
    return "false";
  case runtime::Blocking::Unknown:
    break;
  }
  return "null";
}

// The calls the host-wait test measures: those of the facts' table (runtime::isMeasuredApi: synchronizes,
// copies, frees, unregistrations, and the allocations and memsets measured not to wait; the synchronizes
// as a check of the test itself: they must be measured as waiting). Not event synchronizes, which wait for
// their own event, not for the sleep queued before the call; not stream-ordered frees and allocations, nor
// the driver's asynchronous calls.
bool isProbedApi(std::string_view name) {
  using runtime::startsWith;
  if (runtime::isEventSynchronize(name))
    return false;
  bool async = name.find("Async") != std::string_view::npos;
  if (async && (startsWith(name, "cudaFree") || startsWith(name, "cudaMalloc")))
    return false;
  if (async && startsWith(name, "cu") && !startsWith(name, "cuda"))
    return false; // asynchronous driver calls
  return runtime::isMeasuredApi(name);
}

bool wantsApi(std::string_view name) {
  return runtime::isWatchedApi(name) || (runtime::hostWaitEnabled() && isProbedApi(name));
}

// The probe in progress on this thread. Trivially destructible (see cupti_calls.cpp).
struct PendingProbe {
  CudaCall call;
  bool active = false;
};
thread_local PendingProbe pendingProbe;

void onEnter(const CudaCall &call) {
  if (finished.load(std::memory_order_relaxed))
    return;
  if (runtime::isWatchedApi(call.api))
    recordEvent("cupti", call.api, blocksHostOf(call), kindOf(call),
                runtime::memoryTypeName(call.hostMemory));
  if (!runtime::hostWaitEnabled() || pendingProbe.active || call.nullPointer || !isProbedApi(call.api) ||
      !stillToProbe())
    return;
  runtime::ScopedCoreCall own;
  // Driver calls outside runtime calls run on the legacy default stream unless they name one.
  if (runtime::hostWaitArm(static_cast<cudaStream_t>(const_cast<void *>(call.stream))))
    pendingProbe = PendingProbe{call, true};
}

void onExit(const CudaCall &call) {
  if (!pendingProbe.active || pendingProbe.call.api != call.api)
    return;
  pendingProbe.active = false;
  std::optional<bool> waited;
  {
    runtime::ScopedCoreCall own;
    waited = runtime::hostWaitResult();
  }
  if (waited && !finished.load(std::memory_order_relaxed))
    recordEvent("host_wait", call.api, *waited ? "true" : "false", kindOf(call),
                runtime::memoryTypeName(call.hostMemory), *waited ? "waited" : "returned");
}

std::string startCupti() {
  std::string error;
  runtime::CudaCallClient client{wantsApi, onEnter, onExit};
  // Never destroyed: the recorder watches the whole process, static destruction included.
  static auto *subscription = runtime::CuptiSubscription::start(client, error).release();
  return subscription ? "ok" : "error: " + error;
}

void onSyncWarning(const char *function) {
  if (!finished.load(std::memory_order_relaxed))
    recordEvent("sdm", function, "true");
}

std::string startSyncDebugMode() {
  std::string status = runtime::enableSyncDebugMode();
  if (status == "ok")
    new runtime::ScopedSyncWarningHandler(onSyncWarning); // never destroyed: warnings come until exit
  return status;
}

std::string baseName(const std::string &path) { return std::string(runtime::baseName(path)); }

// ---- Output ------------------------------------------------------------------------------------------

using runtime::jsonString;

std::string jsonOrNull(const std::string &s) { return s.empty() ? "null" : jsonString(s); }

struct Attributed {
  std::string file; // relative to the source root; empty when no frame lies in samples/
  int line = 0;
  std::string signal, api, blocksHost, kind, hostMemory, measured;
  bool mainThread = true;
  std::string function, via, stack;
  // Every frame of the stack in a samples/ file, innermost first, as "samples/x.cpp:12": a sync inside a
  // helper function is also a sync of each line that calls it.
  std::vector<std::string> sampleFrames;
  bool operator<(const Attributed &o) const {
    // Unattributed events last.
    return std::make_tuple(file.empty(), file, line, signal, api, blocksHost, kind, hostMemory, measured,
                           !mainThread, via, function, stack, sampleFrames) <
           std::make_tuple(o.file.empty(), o.file, o.line, o.signal, o.api, o.blocksHost, o.kind,
                           o.hostMemory, o.measured, !o.mainThread, o.via, o.function, o.stack,
                           o.sampleFrames);
  }
};

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
  runtime::ScopedCoreCall own;

  const char *rootEnv = std::getenv("TORCH_SYNC_SOURCE_ROOT");
  std::string root = runtime::realPath(rootEnv && *rootEnv ? rootEnv : TORCH_SYNC_SOURCE_ROOT);
  std::string samplesPrefix = root + "/samples/";
  std::string exe = runtime::executablePath();

  std::vector<runtime::StackTrace> stacks;
  stacks.reserve(events.size());
  for (const auto &entry : events) {
    runtime::StackTrace stack;
    for (uintptr_t frame : entry.first.frames)
      if (stack.size < runtime::StackTrace::kMaxFrames)
        stack.frames[stack.size++] = frame;
    stacks.push_back(stack);
  }
  std::vector<std::vector<runtime::Frame>> symbolized = runtime::symbolize(stacks);

  std::map<Attributed, uint64_t> attributed;
  size_t index = 0;
  for (const auto &[key, count] : events) {
    const std::vector<runtime::Frame> &stack = symbolized[index++];
    Attributed a;
    a.signal = key.signal;
    a.api = key.api;
    a.blocksHost = key.blocksHost;
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
      for (const runtime::Frame &frame : stack) {
        runtime::FrameOrigin origin = runtime::classifyFrame(frame);
        if (origin == runtime::FrameOrigin::TorchSync ||
            (shown.empty() && origin == runtime::FrameOrigin::Cuda))
          continue;
        std::string text = frame.function;
        if (!frame.file.empty())
          text += " (" + baseName(frame.file) + ":" + std::to_string(frame.line) + ")";
        else if (!frame.module.empty())
          text += " (" + baseName(frame.module) + ")";
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
  // source_root: the tree whose samples/ the file names are relative to, as this run saw it.
  std::fprintf(out, "{\n  \"format\": 1,\n  \"sample\": %s,\n  \"source_root\": %s,\n",
               jsonString(baseName(exe)).c_str(), jsonString(root).c_str());
  std::fprintf(out, "  \"signals\": {\"cupti\": %s, \"sdm\": %s, \"host_wait\": %s},\n  \"events\": [",
               jsonString(s.cuptiStatus).c_str(), jsonString(s.sdmStatus).c_str(),
               runtime::hostWaitEnabled() ? "\"ok\"" : "\"off\"");
  bool first = true;
  for (const auto &[a, count] : attributed) {
    std::fprintf(
        out,
        "%s\n    {\"signal\": %s, \"api\": %s, \"kind\": %s, \"host_memory\": %s, \"blocks_host\": %s, "
        "\"measured\": %s, \"thread\": %s, ",
        first ? "" : ",", jsonString(a.signal).c_str(), jsonString(a.api).c_str(), jsonOrNull(a.kind).c_str(),
        jsonOrNull(a.hostMemory).c_str(), a.blocksHost.c_str(), jsonOrNull(a.measured).c_str(),
        a.mainThread ? "\"main\"" : "\"other\"");
    if (a.file.empty())
      std::fprintf(out, "\"file\": null, \"line\": null, \"stack\": %s, ", jsonString(a.stack).c_str());
    else {
      std::fprintf(out, "\"file\": %s, \"line\": %d, \"function\": %s, \"via\": %s, \"sample_frames\": [",
                   jsonString(a.file).c_str(), a.line, jsonString(a.function).c_str(),
                   jsonOrNull(a.via).c_str());
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
  runtime::warmUpStackCapture();
  (void)runtime::hostWaitEnabled(); // reads the environment and arms the main thread's exit detection
  s.cuptiStatus = startCupti();
  s.sdmStatus = startSyncDebugMode();
  if (s.cuptiStatus != "ok" || s.sdmStatus != "ok")
    std::fprintf(stderr, "sync_recorder: cupti: %s; sync debug mode: %s\n", s.cuptiStatus.c_str(),
                 s.sdmStatus.c_str());
  std::atexit(writeObservations);
}

} // namespace

void recordEvent(const char *signal, const std::string &api, const char *blocksHost, const std::string &kind,
                 const std::string &hostMemory, const std::string &measured) {
  runtime::StackTrace stack = runtime::captureStack();
  RawKey key{signal, api, blocksHost, kind, hostMemory, measured, syscall(SYS_gettid) == getpid(), {}};
  key.frames.assign(stack.frames, stack.frames + stack.size);
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.stopped)
    ++s.events[key];
}

void finish() { writeObservations(); }

} // namespace torch_sync::recorder
