// The runtime core's CUPTI subscription: CUDA runtime and driver calls as CudaCall values, delivered to a
// client (the runtime-verify recorder, the guard) on the thread that makes them.
//
// Only the calls a client asks for are enabled, one callback id at a time (cuptiEnableCallback), so that
// kernel launches and other frequent calls cost nothing. A driver call made inside an enabled runtime call is
// the runtime call's business and is not delivered. CUPTI allows one subscriber per process: start() says who
// holds it when it cannot subscribe (Nsight Systems, a LibTorch profiler session, another guard).
#pragma once

#include "cuda_call.h"

#include <memory>
#include <string>
#include <string_view>

namespace torch_sync::runtime {

// What a client receives. Both functions run inside CUDA calls, on the calling thread: they must not call
// the CUDA runtime except through the core (cudaPointerGetAttributes-like queries are not enabled and so
// do not call back).
struct CudaCallClient {
  // Whether the client wants calls of this API name delivered (asked once per callback id, and cached per
  // function, at the first start()).
  bool (*wantsApi)(std::string_view api) = nullptr;
  // At the entry of a wanted call, with its arguments described.
  void (*onEnter)(const CudaCall &call) = nullptr;
  // When the same call returns (optional).
  void (*onExit)(const CudaCall &call) = nullptr;
  // Optional: whether calls on the calling thread are wanted now, asked before a call is described (which
  // costs pointer queries), so that threads the client does not watch pay nothing more.
  bool (*wantsThread)() = nullptr;
  // Optional: at the exit of any runtime call, or driver call made outside runtime calls, that returns a
  // stream capture error (cuda_call.h: captureErrorName), with that error, on the calling thread. Not for
  // the calls whose value is no failure of their own (cuda_call.h: returnsNoFailure). Setting it enables
  // every callback of the runtime and driver domains (cuptiEnableDomain), so that calls the client does not
  // otherwise want (kernel launches, allocations) are seen too; onEnter and onExit still get only the wanted.
  void (*onCaptureError)(const CudaCall &call, int error) = nullptr;
};

class CuptiSubscription {
public:
  // Subscribes client to CUPTI and enables its APIs. Returns nullptr and sets error to a sentence saying why
  // when it cannot: no CUPTI library, another subscriber (named when CUPTI names it), a CUPTI error.
  static std::unique_ptr<CuptiSubscription> start(const CudaCallClient &client, std::string &error);
  // Unsubscribes. CUPTI does not promise that a callback already running on another thread has returned; the
  // client the subscription was made with is therefore never freed.
  ~CuptiSubscription();
  CuptiSubscription(const CuptiSubscription &) = delete;
  CuptiSubscription &operator=(const CuptiSubscription &) = delete;

  // How many callback ids (runtime and driver) were enabled.
  int enabledCallbacks() const { return enabled_; }

private:
  CuptiSubscription() = default;
  void *subscriber_ = nullptr;
  int enabled_ = 0;
};

// Suspends delivery on the calling thread while alive: the core's and its clients' own CUDA calls (the
// host-wait probe's sleep kernel, pointer queries) are not delivered. Nestable.
class ScopedCoreCall {
public:
  ScopedCoreCall();
  ~ScopedCoreCall();
  ScopedCoreCall(const ScopedCoreCall &) = delete;
  ScopedCoreCall &operator=(const ScopedCoreCall &) = delete;
};

// The memory type of ptr, asked with cudaPointerGetAttributes; Unknown when the runtime holds an error the
// program has not read yet (the query would clear it), while a stream capture is under way (capturesUnderway:
// the query must not fail the capture it observes), or when the query fails.
MemoryType memoryTypeOf(const void *ptr);

// How many stream captures the process has begun and not ended (cudaStreamBeginCapture*,
// cuStreamBeginCapture* that succeeded, less cudaStreamEndCapture and cuStreamEndCapture that ended one), as
// seen by a subscription whose client has onCaptureError; 0 without one.
int capturesUnderway();

// How many stream captures the process has begun (counted as for capturesUnderway, never decreasing): a
// client tells one capture from the next by it (the recorder: whether the capture under way already failed).
int capturesBegun();

} // namespace torch_sync::runtime
