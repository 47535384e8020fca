// The runtime core's host-wait test, a third signal that measures rather than reads the documentation.
//
// Before a CUDA runtime call that may wait (see sync_recorder.cpp), the recorder queues a long GPU sleep
// kernel (at::cuda::sleep, from LibTorch) on the stream the call uses, followed by an event. When the call
// returns, the event is queried: if the sleep has already finished, the call returned only after the queued
// GPU work had drained, so it made the host wait; if the sleep is still running, the call returned without
// waiting. This catches syncs that make no synchronize call (a copy with pageable host memory, a free) and
// shows which documented waits really wait.
#include "host_wait.h"

#include <ATen/cuda/Sleep.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <exception>

namespace torch_sync::runtime {
namespace {

// About 20 ms at the H200's 1.98 GHz SM clock: far longer than any call that does not wait.
constexpr long long kDefaultSleepCycles = 40'000'000;

long long sleepCycles() {
  static const long long cycles = [] {
    const char *env = std::getenv("TORCH_SYNC_HOST_WAIT_CYCLES");
    long long value = env && *env ? std::atoll(env) : 0;
    return value > 0 ? value : kDefaultSleepCycles;
  }();
  return cycles;
}

// Trivially destructible: CUDA calls made during thread and process teardown still reach the probe.
struct Probe {
  bool armed = false;
  cudaEvent_t event = nullptr;
};
thread_local Probe probe;

// Exit detection. glibc runs a thread's thread_local destructors when the thread ends, and the main thread's
// first of all in exit(), before atexit handlers and static destructors (where LibTorch's handle pools free
// memory and so make probed calls). The sentinel's destructor marks the thread, and the main thread's marks
// the process, as exiting. thread_local destructors run in the reverse order of construction, so those of
// objects made after the sentinel (c10's per-thread stream state, say) run before it: a CUDA call made by one
// of those is still probed. None was seen to make one (19 samples, three host-wait runs each).
std::atomic<bool> processExiting{false};
thread_local bool threadExiting = false;
struct ExitSentinel {
  bool touched = false;
  ~ExitSentinel() {
    threadExiting = true;
    if (syscall(SYS_gettid) == getpid())
      processExiting = true;
  }
};
thread_local ExitSentinel exitSentinel;

bool exiting() {
  exitSentinel.touched = true; // constructs the sentinel on first use, so that its destructor runs
  return threadExiting || processExiting.load(std::memory_order_relaxed);
}

} // namespace

bool hostWaitEnabled() {
  static const bool enabled = [] {
    // The first call comes from the main thread at start-up (the recorder's constructor): arm its sentinel.
    (void)exiting();
    const char *env = std::getenv("TORCH_SYNC_HOST_WAIT");
    return env && *env && *env != '0';
  }();
  return enabled;
}

bool hostWaitArm(cudaStream_t stream) {
  probe.armed = false;
  if (exiting())
    return false;
  // An error the program has not read yet stays its own: probing would clear or replace it.
  if (cudaPeekAtLastError() != cudaSuccess)
    return false;
  try {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
      (void)cudaGetLastError(); // the probe's own error, not the program's (none was pending)
      return false;
    }
    if (!probe.event && cudaEventCreateWithFlags(&probe.event, cudaEventDisableTiming) != cudaSuccess) {
      (void)cudaGetLastError();
      probe.event = nullptr;
      return false;
    }
    // Queue the sleep on the call's own stream (the legacy default stream when it names none).
    c10::cuda::CUDAStreamGuard guard(
        c10::cuda::getStreamFromExternal(stream, static_cast<c10::DeviceIndex>(device)));
    at::cuda::sleep(sleepCycles());
    if (cudaEventRecord(probe.event, stream) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    probe.armed = true;
  } catch (const std::exception &) {
    (void)cudaGetLastError();
  }
  return probe.armed;
}

std::optional<bool> hostWaitResult() {
  if (!probe.armed)
    return std::nullopt;
  probe.armed = false;
  cudaError_t status = cudaEventQuery(probe.event);
  if (status == cudaSuccess)
    return true;
  if (status == cudaErrorNotReady)
    return false;
  (void)cudaGetLastError();
  return std::nullopt;
}

} // namespace torch_sync::runtime
