// sync_recorder: records the host-device synchronizations of one process on the runtime core
// (../core/: CUPTI calls, stacks, the host-wait probe, the sync debug mode) and writes them as JSON at exit.
// See sync_recorder.h.
#include "sync_recorder.h"

#include "capture_checks.h"
#include "cuda_call.h"
#include "cupti_calls.h"
#include "host_wait.h"
#include "json_string.h"
#include "prefixes.h"
#include "stack_trace.h"
#include "sync_debug_mode.h"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
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
  std::string signal, api, blocksHost, kind, hostMemory, measured, error, capture;
  bool mainThread = true;
  std::vector<uintptr_t> frames; // return addresses, innermost first
  bool operator<(const RawKey &o) const {
    return std::tie(signal, api, blocksHost, kind, hostMemory, measured, error, capture, mainThread, frames) <
           std::tie(o.signal, o.api, o.blocksHost, o.kind, o.hostMemory, o.measured, o.error, o.capture,
                    o.mainThread, o.frames);
  }
};

struct State {
  std::mutex mutex;
  std::map<RawKey, uint64_t> events;
  bool stopped = false;
  std::string cuptiStatus = "not started";
  std::string sdmStatus = "not started";
  std::string captureChecksStatus = "not started";
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
  // Not while a stream capture is under way: the probe's sleep kernel and event would join the capture (or
  // fail it).
  if (!runtime::hostWaitEnabled() || pendingProbe.active || call.nullPointer || !isProbedApi(call.api) ||
      runtime::capturesUnderway() > 0 || !stillToProbe())
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

// A call that failed a stream capture (or, cudaErrorStreamCaptureInvalidated, reported an earlier failure of
// its capture): a "capture_failure" event, its "capture" the "cause" or a "consequence".
void onCaptureError(const CudaCall &call, int error) {
  if (finished.load(std::memory_order_relaxed))
    return;
  noteCaptureFailed();
  recordEvent("capture_failure", call.api, "null", {}, {}, {}, runtime::captureErrorName(error),
              runtime::isCaptureConsequence(error) ? "consequence" : "cause");
}

std::string startCupti() {
  std::string error;
  runtime::CudaCallClient client{wantsApi, onEnter, onExit, nullptr, onCaptureError};
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
  std::string signal, api, blocksHost, kind, hostMemory, measured, error, capture;
  bool mainThread = true;
  std::string function, via, stack;
  // Every frame of the stack in a samples/ file, innermost first, as "samples/x.cpp:12": a sync inside a
  // helper function is also a sync of each line that calls it.
  std::vector<std::string> sampleFrames;
  bool operator<(const Attributed &o) const {
    // Unattributed events last.
    return std::make_tuple(file.empty(), file, line, signal, api, blocksHost, kind, hostMemory, measured,
                           error, capture, !mainThread, via, function, stack, sampleFrames) <
           std::make_tuple(o.file.empty(), o.file, o.line, o.signal, o.api, o.blocksHost, o.kind,
                           o.hostMemory, o.measured, o.error, o.capture, !o.mainThread, o.via, o.function,
                           o.stack, o.sampleFrames);
  }
};

// How a run ended that did not return from main() or call exit(): written as "ended". how is "terminate"
// (std::terminate) or "signal" (a fatal signal, abort() included: SIGABRT), signal the signal's name.
struct Ending {
  const char *how = nullptr; // null: a normal exit, no "ended"
  const char *signal = nullptr;
};

// Takes the state's lock: at a normal exit by waiting for it; at a crash by trying for about 100 ms, since
// the crashing thread may hold it (a fault inside recordEvent) and would never give it back.
bool lockForWriting(std::unique_lock<std::mutex> &lock, const Ending &ending) {
  if (!ending.how) {
    lock.lock();
    return true;
  }
  for (int attempt = 0; attempt < 100; ++attempt) {
    if (lock.try_lock())
      return true;
    timespec pause{0, 1000000};
    nanosleep(&pause, nullptr);
  }
  return false;
}

void writeObservations(const Ending &ending) {
  State &s = state();
  std::map<RawKey, uint64_t> events;
  {
    std::unique_lock<std::mutex> lock(s.mutex, std::defer_lock);
    if (!lockForWriting(lock, ending)) {
      std::fprintf(stderr,
                   "sync_recorder: the run ended (%s) while its events were being recorded; "
                   "nothing written\n",
                   ending.signal ? ending.signal : ending.how);
      return;
    }
    // Written once at exit; a crash after that (a static destructor that throws, run after the exit
    // handler) writes again, marked "ended" (crashWriting makes that once too).
    if (s.stopped && !ending.how)
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
    a.error = key.error;
    a.capture = key.capture;
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
    std::fprintf(stderr, "sync_recorder: %llu events%s%s; set TORCH_SYNC_OBSERVATIONS=FILE to write them\n",
                 static_cast<unsigned long long>(total), ending.how ? " before the run ended by " : "",
                 ending.how ? (ending.signal ? ending.signal : "std::terminate") : "");
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
  // capture_failure: watched by the CUPTI subscription (onCaptureError); capture_exception: LibTorch's checks
  // that fail a capture (capture_checks.h).
  std::fprintf(out,
               "  \"signals\": {\"cupti\": %s, \"sdm\": %s, \"host_wait\": %s, \"capture_failure\": %s, "
               "\"capture_exception\": %s},\n",
               jsonString(s.cuptiStatus).c_str(), jsonString(s.sdmStatus).c_str(),
               runtime::hostWaitEnabled() ? "\"ok\"" : "\"off\"", jsonString(s.cuptiStatus).c_str(),
               jsonString(s.captureChecksStatus).c_str());
  // A run that crashed: the events are those recorded before it ended.
  if (ending.how) {
    std::fprintf(out, "  \"ended\": {\"how\": %s", jsonString(ending.how).c_str());
    if (ending.signal)
      std::fprintf(out, ", \"signal\": %s", jsonString(ending.signal).c_str());
    std::fprintf(out, "},\n");
  }
  std::fprintf(out, "  \"events\": [");
  bool first = true;
  for (const auto &[a, count] : attributed) {
    std::fprintf(
        out,
        "%s\n    {\"signal\": %s, \"api\": %s, \"kind\": %s, \"host_memory\": %s, \"blocks_host\": %s, "
        "\"measured\": %s, \"thread\": %s, ",
        first ? "" : ",", jsonString(a.signal).c_str(), jsonString(a.api).c_str(), jsonOrNull(a.kind).c_str(),
        jsonOrNull(a.hostMemory).c_str(), a.blocksHost.c_str(), jsonOrNull(a.measured).c_str(),
        a.mainThread ? "\"main\"" : "\"other\"");
    if (!a.error.empty())
      std::fprintf(out, "\"error\": %s, \"capture\": %s, ", jsonString(a.error).c_str(),
                   jsonString(a.capture).c_str());
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

void writeAtExit() { writeObservations(Ending{}); }

// ---- Runs that crash ---------------------------------------------------------------------------------
//
// A run that ends in std::terminate (an exception escaping main, or a static destructor), abort() or a fatal
// signal runs no atexit handler: without the handlers below it would write nothing, though its syncs before
// the crash were seen. Each writes what was recorded, once, marked "ended", then lets the run end as it
// would have: the previous terminate handler, or the signal's previous action (the default one: the exit
// status stays the signal's).
//
// Writing JSON from a signal handler calls functions that are not async-signal-safe (malloc, stdio, the
// addr2line pipe). That is accepted here: the process is about to die anyway, it happens at most once
// (crashWriting), the worst outcomes (a deadlock on a lock that the crashing thread held, a second fault)
// are bounded by a watchdog (SIGALRM after kWatchdogSeconds re-raises the original signal) or end the
// process by the same or another fatal signal, and the recorder only runs in the test harness
// (runtime-verify/run.sh), where a partial file is better than none. The state's lock is only tried.

// The fatal signals handled, and their names as written in "ended".
constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr unsigned kWatchdogSeconds = 30;

const char *signalName(int signal) {
  switch (signal) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGABRT:
    return "SIGABRT";
  }
  return "signal";
}

// Set by the first of the crash handlers to run: the observations are written at most once.
std::atomic<bool> crashWriting{false};
// The signal to end the run with if writing takes longer than the watchdog allows.
volatile sig_atomic_t endingSignal = SIGABRT;
struct sigaction previousActions[NSIG];
std::terminate_handler previousTerminate = nullptr;

// Ends the run by SIGNAL as it would have ended without the recorder: its previous action (the default
// where it was ignored), unblocked and raised again. Async-signal-safe.
[[noreturn]] void reraise(int signal) {
  struct sigaction action = previousActions[signal];
  if (action.sa_handler == SIG_IGN)
    action.sa_handler = SIG_DFL;
  sigaction(signal, &action, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  raise(signal);
  // A previous handler that returned: end the run as abort() would.
  struct sigaction fallback{};
  fallback.sa_handler = SIG_DFL;
  sigaction(SIGABRT, &fallback, nullptr);
  abort();
}

// SIGALRM while the observations of a crashed run are being written: give up and end the run.
void onWatchdog(int) {
  static const char message[] = "sync_recorder: writing the observations of a crashed run took too long\n";
  ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
  (void)ignored;
  reraise(endingSignal);
}

// Starts the one write of a crashed run; false when one has started already. Arms the watchdog, which
// ends the run by SIGNAL.
bool beginCrashWrite(int signal) {
  if (crashWriting.exchange(true))
    return false;
  endingSignal = signal;
  struct sigaction watchdog{};
  watchdog.sa_handler = onWatchdog;
  sigemptyset(&watchdog.sa_mask);
  sigaction(SIGALRM, &watchdog, nullptr);
  alarm(kWatchdogSeconds);
  return true;
}

void onFatalSignal(int signal) {
  if (beginCrashWrite(signal)) {
    writeObservations(Ending{"signal", signalName(signal)});
    alarm(0);
  }
  reraise(signal);
}

[[noreturn]] void onTerminate() {
  // The default terminate handler ends in abort(): SIGABRT, whose handler then writes nothing again.
  if (beginCrashWrite(SIGABRT)) {
    writeObservations(Ending{"terminate", nullptr});
    alarm(0);
  }
  if (previousTerminate)
    previousTerminate();
  std::abort();
}

// Installs the terminate handler and the fatal signals' handlers, keeping the previous ones to chain to.
// The main thread gets an alternate signal stack, so that a stack overflow there is handled too.
void installCrashHandlers() {
  previousTerminate = std::set_terminate(onTerminate);
  constexpr size_t kAltStackSize = 1 << 20; // symbolizing and writing need more than SIGSTKSZ
  stack_t altStack{};
  altStack.ss_sp = new char[kAltStackSize]; // never freed: the handlers may run until the end
  altStack.ss_size = kAltStackSize;
  sigaltstack(&altStack, nullptr);
  for (int signal : kFatalSignals) {
    struct sigaction action{};
    action.sa_handler = onFatalSignal;
    action.sa_flags = SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(signal, &action, &previousActions[signal]);
  }
}

__attribute__((constructor)) void startRecorder() {
  State &s = state();
  // The first backtrace() loads the unwinder; do it here rather than inside a CUDA call.
  runtime::warmUpStackCapture();
  (void)runtime::hostWaitEnabled(); // reads the environment and arms the main thread's exit detection
  s.cuptiStatus = startCupti();
  s.sdmStatus = startSyncDebugMode();
  // The checks are recorded only while a capture is under way, which the CUPTI subscription counts.
  s.captureChecksStatus =
      s.cuptiStatus == "ok" ? captureChecksStatus() : "off (needs the CUPTI subscription)";
  if (s.cuptiStatus != "ok" || s.sdmStatus != "ok" || s.captureChecksStatus != "ok")
    std::fprintf(stderr, "sync_recorder: cupti: %s; sync debug mode: %s; LibTorch checks: %s\n",
                 s.cuptiStatus.c_str(), s.sdmStatus.c_str(), s.captureChecksStatus.c_str());
  std::atexit(writeAtExit);
  installCrashHandlers();
}

} // namespace

void recordEvent(const char *signal, const std::string &api, const char *blocksHost, const std::string &kind,
                 const std::string &hostMemory, const std::string &measured, const std::string &error,
                 const std::string &capture) {
  runtime::StackTrace stack = runtime::captureStack();
  RawKey key{
      signal, api, blocksHost, kind, hostMemory, measured, error, capture, syscall(SYS_gettid) == getpid(),
      {}};
  key.frames.assign(stack.frames, stack.frames + stack.size);
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.stopped)
    ++s.events[key];
}

void finish() { writeObservations(Ending{}); }

} // namespace torch_sync::recorder
