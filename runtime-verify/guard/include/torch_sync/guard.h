// torch-sync's sync guard: finds the host-device synchronizations that code makes on the calling thread, so
// that a unit test can fail when one creeps in. See docs/guard.md; GoogleTest macros in torch_sync/gtest.h.
//
// It sees every CUDA runtime and driver call that can wait for the device (synchronizes, copies, frees,
// unregistrations) through CUPTI's callback API, on the guarded thread only, and names for each the user's
// source line (the first frame outside LibTorch, CUDA and the C++ runtime), the ATen operator around it and
// the bytes copied. When CUPTI is held by another tool it falls back to PyTorch's sync debug mode (when built
// with LibTorch); with no GPU it sees nothing and says so (status()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// The library's public symbols; everything else in it is hidden (it must not interpose on, or be interposed
// by, another copy of the runtime core in the process).
#define TORCH_SYNC_GUARD_API __attribute__((visibility("default")))

namespace torch_sync {

// One host-device synchronization: one wait of the host.
struct DeviceSync {
  std::string api;            // the call that waited: "cudaStreamSynchronize", "cudaFree", or, in the sync
                              // debug mode fallback, "sync debug mode: <the warning's source function>"
  std::string copyApi;        // the copy it waited for or made ("cudaMemcpyAsync"), "" when none
  std::string copyKind;       // "DtoH", "HtoD", "DtoD", "HtoH", "default", or ""
  std::string hostMemory;     // "pageable" or "pinned" for a copy's host side, else ""
  std::uint64_t bytes = 0;    // bytes copied, 0 when nothing was (or the size is not known)
  bool mayWait = false;       // CUDA does not say whether the call waits (direction or memory unknown)
  std::string atenOperator;   // the outermost ATen operator on the stack ("aten::nonzero"), or ""
  std::string libTorchEntry;  // the LibTorch function the user's code called, or ""
  std::string location;       // the user's line ("/src/test/foo_test.cpp:42", relative to the environment
                              // variable TORCH_SYNC_SOURCE_ROOT when it is set and holds the file), or
                              // "<module> (<function>)" without line information
  std::string function;       // the user's function at that line
  std::string allowedBecause; // the reason of the AllowDeviceSyncs that covered it; "" when not allowed
};

// What the guard can see in this process, as of the last time a scope was opened (or now, when none was).
struct GuardStatus {
  bool seesSyncs = false; // false: no GPU, or neither CUPTI nor a fallback is available
  std::string backend;    // "CUPTI", "sync debug mode" or "none"
  std::string reason;     // why not CUPTI, and what the fallback misses; "" with CUPTI
};
TORCH_SYNC_GUARD_API GuardStatus guardStatus();

// Records the device syncs made on the calling thread from construction until stop() or destruction.
// Scopes nest and may end in any order (each sees the calls made while it is open); other threads are not
// affected and their syncs are not counted. A scope belongs to the thread that made it: stop() on another
// thread throws std::logic_error. CUPTI is held only while some scope is open in the process.
class TORCH_SYNC_GUARD_API SyncScope {
public:
  SyncScope();
  ~SyncScope();
  SyncScope(const SyncScope &) = delete;
  SyncScope &operator=(const SyncScope &) = delete;

  // Stops recording (only the first call does) and returns every sync seen, allowed ones included, in order.
  // Symbolizes the stacks (runs addr2line), so it costs milliseconds when there were syncs.
  const std::vector<DeviceSync> &stop();
  // What the guard could see when this scope opened.
  const GuardStatus &status() const { return status_; }

private:
  GuardStatus status_;
  std::vector<DeviceSync> syncs_;
  bool stopped_ = false;
  std::size_t id_ = 0;            // in the thread's ledger
  std::uint64_t threadGuard_ = 0; // the thread's guard state it belongs to
};

// Allows the syncs made on the calling thread while alive, for the scopes already open: they are listed but
// not counted. reason says why the sync is intended and is shown with it; an empty reason throws
// std::invalid_argument. A scope opened inside an allowance is strict again.
class TORCH_SYNC_GUARD_API AllowDeviceSyncs {
public:
  explicit AllowDeviceSyncs(std::string reason);
  ~AllowDeviceSyncs();
  AllowDeviceSyncs(const AllowDeviceSyncs &) = delete;
  AllowDeviceSyncs &operator=(const AllowDeviceSyncs &) = delete;

private:
  std::size_t id_ = 0; // 0 when no scope was open on the thread
  std::uint64_t threadGuard_ = 0;
};

// How many times the GoogleTest macros run a statement before the guarded run, so that first-call set-up
// (CUDA context, cuBLAS/cuSOLVER handles, the first pinned or device allocation) does not fail a test.
// Default 1, or the environment variable TORCH_SYNC_GUARD_WARMUP_RUNS. Returns the previous value.
TORCH_SYNC_GUARD_API int setWarmupRuns(int runs);
TORCH_SYNC_GUARD_API int warmupRuns();

// The syncs that were not allowed.
TORCH_SYNC_GUARD_API std::vector<DeviceSync> unallowed(const std::vector<DeviceSync> &syncs);

// One line describing sync: "cudaStreamSynchronize after a 4-byte DtoH cudaMemcpyAsync into pinned memory,
// in aten::item, at test/foo_test.cpp:42 (in TestBody)".
TORCH_SYNC_GUARD_API std::string describe(const DeviceSync &sync);

// The numbered list of syncs, one describe() line each, allowed ones marked with their reason.
TORCH_SYNC_GUARD_API std::string formatSyncs(const std::vector<DeviceSync> &syncs);

// The outcome of checking a guarded run against an expected number of (unallowed) syncs.
struct SyncCountCheck {
  bool passed = false;
  std::string message; // empty when passed
};
// Pure: compares syncs with expected and writes GoogleTest-style "Expected/Actual" text naming statement and
// the warm-up runs.
TORCH_SYNC_GUARD_API SyncCountCheck checkSyncCount(const std::vector<DeviceSync> &syncs, int expected,
                                                   const std::string &statement, int warmups);

} // namespace torch_sync
