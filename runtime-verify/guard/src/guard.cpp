// The guard's runtime: scopes and allowances per thread, the CUPTI subscription while any scope is open, the
// sync debug mode fallback, and the translation of observed calls into DeviceSync values. See
// torch_sync/guard.h.
#include "torch_sync/guard.h"

#include "cuda_call.h"
#include "cupti_calls.h"
#include "scope_ledger.h"
#include "stack_trace.h"
#include "sync_counting.h"
#ifdef TORCH_SYNC_GUARD_WITH_TORCH
#include "sync_debug_mode.h"
#endif

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

namespace torch_sync {
namespace guard_detail {
namespace {

using runtime::CudaCall;

// One call seen on a guarded thread: a watched CUDA call, or a sync debug mode warning (sdmFunction set).
struct ObservedCall {
  CudaCall call;
  runtime::Blocking blocks = runtime::Blocking::Yes;
  std::uint64_t callerKey = 0;
  std::string sdmFunction;
  runtime::StackTrace stack;
};

// The calling thread's guard state, made when its first scope opens and deleted when its last closes.
struct ThreadGuard {
  std::uint64_t id = 0; // unique in the process, so that a scope or allowance never reaches a later one
  ScopeLedger ledger;
  std::vector<ObservedCall> log;
#ifdef TORCH_SYNC_GUARD_WITH_TORCH
  std::unique_ptr<runtime::ScopedSyncWarningHandler> sdmHandler;
#endif
};
// Both trivially destructible (see ../../core/cupti_calls.cpp): the callback reads them on every delivered
// call.
thread_local int armedScopes = 0;
thread_local ThreadGuard *threadGuard = nullptr;
std::atomic<std::uint64_t> nextThreadGuardId{1};

// The client's thread filter (cupti_calls.h): only guarded threads have their calls described.
bool isGuardedThread() { return armedScopes > 0; }

bool isOwnModule(const void *address) {
  static const void *ownBase = [] {
    Dl_info info{};
    return dladdr(reinterpret_cast<void *>(&isOwnModule), &info) ? info.dli_fbase : nullptr;
  }();
  Dl_info info{};
  return dladdr(address, &info) && info.dli_fbase == ownBase;
}

bool isCudaRuntimeModule(const void *address) {
  Dl_info info{};
  if (!dladdr(address, &info) || !info.dli_fname)
    return false;
  std::string_view name = info.dli_fname;
  name = name.substr(name.rfind('/') + 1);
  return name.rfind("libcupti", 0) == 0 || name.rfind("libcudart", 0) == 0 || name.rfind("libcuda.", 0) == 0;
}

// Equal for the CUDA calls made by one invocation of one function: a hash of the stack outside the guard,
// CUPTI and the CUDA runtime, less the frame that made the CUDA call (whose return address differs per call).
std::uint64_t callerKeyOf(const runtime::StackTrace &stack) {
  int i = 0;
  while (i < stack.size && isOwnModule(reinterpret_cast<const void *>(stack.frames[i])))
    ++i;
  while (i < stack.size && isCudaRuntimeModule(reinterpret_cast<const void *>(stack.frames[i])))
    ++i;
  return runtime::hashFrames(stack, i + 1); // + 1: past the caller of the CUDA call
}

void record(ObservedCall observed) {
  ThreadGuard &guard = *threadGuard;
  guard.log.push_back(std::move(observed));
  guard.ledger.record(guard.log.size() - 1);
}

void onCudaCall(const CudaCall &call) {
  if (armedScopes == 0 || !threadGuard)
    return; // not a guarded thread: nothing to do
  runtime::ScopedCoreCall own;
  ObservedCall observed;
  observed.call = call;
  observed.blocks = runtime::blocking(call);
  observed.stack = runtime::captureStack();
  observed.callerKey = callerKeyOf(observed.stack);
  record(std::move(observed));
}

#ifdef TORCH_SYNC_GUARD_WITH_TORCH
void onSyncWarning(const char *function) {
  if (armedScopes == 0 || !threadGuard)
    return;
  ObservedCall observed;
  observed.call.api = "sync debug mode";
  observed.sdmFunction = function;
  observed.stack = runtime::captureStack();
  record(std::move(observed));
}
#endif

// Process-wide state: the backend in use while any scope is open.
struct ProcessGuard {
  std::mutex mutex;
  int openScopes = 0;
  GuardStatus status;
  std::unique_ptr<runtime::CuptiSubscription> subscription;
  bool sdmEnabled = false;
};
ProcessGuard &process() {
  static auto *p = new ProcessGuard; // never destroyed: scopes may close during static destruction
  return *p;
}

// Whether a CUDA device is there; error says why not.
bool haveDevice(std::string &error) {
  runtime::ScopedCoreCall own;
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    error = std::string("no CUDA device: cudaGetDeviceCount says ") + cudaGetErrorString(status);
    (void)cudaGetLastError();
    return false;
  }
  if (count == 0) {
    error = "no CUDA device: cudaGetDeviceCount found none";
    return false;
  }
  return true;
}

constexpr const char *kSdmMisses =
    "PyTorch's sync debug mode sees only the syncs that go through c10's wrappers (not device or event "
    "synchronizes, cudaFree or raw CUDA copies), and while it is on it is on for every thread";

// Starts the backend for the first open scope of the process. Called with the process mutex held.
void startBackend(ProcessGuard &p) {
  std::string error;
  if (!haveDevice(error)) {
    p.status = GuardStatus{false, "none", error};
    return;
  }
  runtime::CudaCallClient client{runtime::isWatchedApi, onCudaCall, nullptr, isGuardedThread};
  p.subscription = runtime::CuptiSubscription::start(client, error);
  if (p.subscription) {
    p.status = GuardStatus{true, "CUPTI", ""};
    return;
  }
  if (const char *require = std::getenv("TORCH_SYNC_GUARD_REQUIRE_CUPTI");
      require && *require && *require != '0') {
    p.status = GuardStatus{false, "none", error + "; TORCH_SYNC_GUARD_REQUIRE_CUPTI forbids the fallback"};
    return;
  }
#ifdef TORCH_SYNC_GUARD_WITH_TORCH
  std::string sdm = runtime::enableSyncDebugMode();
  if (sdm == "ok") {
    p.sdmEnabled = true;
    p.status = GuardStatus{true, "sync debug mode",
                           error + "; falling back to PyTorch's sync debug mode: " + kSdmMisses};
    // Said once per process: tests that pass under the fallback may still sync where it cannot see.
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true))
      std::fprintf(stderr, "torch-sync guard: %s\n", p.status.reason.c_str());
    return;
  }
  p.status = GuardStatus{false, "none", error + "; the sync debug mode fallback failed too: " + sdm};
#else
  p.status = GuardStatus{false, "none", error + "; this build of the guard has no LibTorch, so no fallback"};
  (void)kSdmMisses;
#endif
}

void stopBackend(ProcessGuard &p) {
  p.subscription.reset();
#ifdef TORCH_SYNC_GUARD_WITH_TORCH
  if (p.sdmEnabled)
    runtime::restoreSyncDebugMode();
#endif
  p.sdmEnabled = false;
}

// TORCH_SYNC_SOURCE_ROOT, when set: locations under it are shown relative to it (shorter CI logs).
const std::string &sourceRoot() {
  // Never destroyed: scopes may close during static destruction.
  static const std::string *root = [] {
    const char *env = std::getenv("TORCH_SYNC_SOURCE_ROOT");
    if (!env || !*env)
      return new std::string();
    return new std::string(runtime::realPath(env));
  }();
  return *root;
}

// The DeviceSync values of one closed scope.
std::vector<DeviceSync> describeSeen(const std::vector<ObservedCall> &log,
                                     const std::vector<ScopeLedger::Seen> &seen) {
  std::vector<CallRecord> records;
  records.reserve(seen.size());
  for (const ScopeLedger::Seen &s : seen) {
    const ObservedCall &o = log[s.call];
    records.push_back(
        CallRecord{o.call.api, o.blocks, runtime::isCopyApi(o.call.api), o.call.stream, o.callerKey});
  }
  std::vector<SyncGroup> groups = groupSyncs(records);
  std::vector<runtime::StackTrace> stacks;
  for (const SyncGroup &g : groups)
    stacks.push_back(log[seen[g.waitingCall].call].stack);
  std::vector<std::vector<runtime::Frame>> frames = runtime::symbolize(stacks);

  std::vector<DeviceSync> syncs;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const SyncGroup &g = groups[i];
    const ObservedCall &waiting = log[seen[g.waitingCall].call];
    const ObservedCall &copy =
        g.copyCall >= 0 ? log[seen[static_cast<std::size_t>(g.copyCall)].call] : waiting;
    DeviceSync sync;
    sync.api = waiting.sdmFunction.empty() ? waiting.call.api : "sync debug mode: " + waiting.sdmFunction;
    if (copy.call.copy != runtime::CopyKind::None) {
      sync.copyApi = copy.call.api;
      sync.copyKind = runtime::copyKindName(copy.call.copy);
      if (copy.call.copy == runtime::CopyKind::HostToDevice ||
          copy.call.copy == runtime::CopyKind::DeviceToHost)
        sync.hostMemory = runtime::memoryTypeName(copy.call.hostMemory);
      sync.bytes = copy.call.bytes;
    }
    sync.mayWait = g.mayWait;
    const std::vector<runtime::Frame> &stack = frames[i];
    sync.atenOperator = runtime::outermostAtenOperator(stack);
    int user = runtime::firstUserFrame(stack);
    sync.libTorchEntry = runtime::libTorchEntry(stack, user);
    if (sync.libTorchEntry == "?") // a LibTorch function without a dynamic symbol
      sync.libTorchEntry.clear();
    if (user >= 0) {
      sync.location = runtime::describeLocation(stack[static_cast<std::size_t>(user)], sourceRoot());
      sync.function = runtime::readableFunction(stack[static_cast<std::size_t>(user)].function);
    }
    sync.allowedBecause = seen[g.waitingCall].allowedBecause;
    syncs.push_back(std::move(sync));
  }
  return syncs;
}

int defaultWarmupRuns() {
  const char *env = std::getenv("TORCH_SYNC_GUARD_WARMUP_RUNS");
  if (env && *env) {
    char *end = nullptr;
    long value = std::strtol(env, &end, 10);
    if (end && *end == '\0' && value >= 0 && value < 1000)
      return static_cast<int>(value);
  }
  return 1;
}
int &warmupRunsSetting() {
  static int runs = defaultWarmupRuns();
  return runs;
}

} // namespace
} // namespace guard_detail

using namespace guard_detail;

GuardStatus guardStatus() {
  ProcessGuard &p = process();
  std::lock_guard<std::mutex> lock(p.mutex);
  if (p.openScopes == 0) {
    // No scope is open: try the backend now (another tool may have taken or released CUPTI since) and let
    // it go again.
    startBackend(p);
    stopBackend(p);
  }
  return p.status;
}

SyncScope::SyncScope() {
  runtime::warmUpStackCapture();
  {
    ProcessGuard &p = process();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (p.openScopes == 0)
      startBackend(p);
    ++p.openScopes;
    status_ = p.status;
  }
  if (!threadGuard) {
    threadGuard = new ThreadGuard;
    threadGuard->id = nextThreadGuardId++;
  }
  id_ = threadGuard->ledger.openScope();
  threadGuard_ = threadGuard->id;
#ifdef TORCH_SYNC_GUARD_WITH_TORCH
  if (status_.backend == "sync debug mode" && !threadGuard->sdmHandler)
    threadGuard->sdmHandler = std::make_unique<runtime::ScopedSyncWarningHandler>(onSyncWarning);
#endif
  ++armedScopes;
}

SyncScope::~SyncScope() {
  if (!stopped_ && (!threadGuard || threadGuard->id != threadGuard_)) {
    std::fprintf(stderr, "torch_sync::SyncScope destroyed on another thread than the one that made it; its "
                         "syncs are lost and that thread stays guarded\n");
    return;
  }
  stop();
}

const std::vector<DeviceSync> &SyncScope::stop() {
  if (stopped_)
    return syncs_;
  if (!threadGuard || threadGuard->id != threadGuard_)
    throw std::logic_error(
        "torch_sync::SyncScope::stop() called on another thread than the one that made it");
  stopped_ = true;
  --armedScopes;
  std::vector<ScopeLedger::Seen> seen = threadGuard->ledger.closeScope(id_);
  {
    ProcessGuard &p = process();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (--p.openScopes == 0)
      stopBackend(p);
  }
  syncs_ = describeSeen(threadGuard->log, seen);
  if (threadGuard->ledger.openScopes() == 0) {
    delete threadGuard; // also removes the thread's sync warning handler
    threadGuard = nullptr;
  }
  return syncs_;
}

AllowDeviceSyncs::AllowDeviceSyncs(std::string reason) {
  if (!threadGuard) {
    // No scope is open on this thread: nothing to allow, but the reason is still required.
    ScopeLedger check;
    check.openAllowance(std::move(reason));
    return;
  }
  id_ = threadGuard->ledger.openAllowance(std::move(reason));
  threadGuard_ = threadGuard->id;
}

AllowDeviceSyncs::~AllowDeviceSyncs() {
  if (id_ && threadGuard && threadGuard->id == threadGuard_)
    threadGuard->ledger.closeAllowance(id_);
}

int setWarmupRuns(int runs) {
  int previous = warmupRunsSetting();
  warmupRunsSetting() = runs < 0 ? 0 : runs;
  return previous;
}

int warmupRuns() { return warmupRunsSetting(); }

} // namespace torch_sync
