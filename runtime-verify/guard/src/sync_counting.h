// The guard's counting rule: which of the CUDA calls seen on a thread make up one host-device
// synchronization. Pure code, tested without a GPU (../test/guard_logic_test.cpp).
//
// One synchronization is one wait of the host. LibTorch waits for a copy with a copy followed by a
// synchronize of the same stream (at::cuda::memcpy_and_sync: item(), nonzero, printing), which is one wait,
// not two; a copy that returns at once and is not waited for is no synchronization at all.
#pragma once

#include "cuda_call.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace torch_sync::guard_detail {

// What the counting rule needs of one observed call.
struct CallRecord {
  std::string_view api; // "cudaStreamSynchronize", or "sync debug mode" for a debug mode warning
  runtime::Blocking blocks = runtime::Blocking::Yes;
  bool copy = false; // a memcpy
  const void *stream = nullptr;
  std::uint64_t callerKey = 0; // equal for calls made by the same function invocation (see guard.cpp)
};

// One synchronization: the call that waited, and the copy it waited for (-1: none).
struct SyncGroup {
  std::size_t waitingCall = 0;
  long copyCall = -1;
  bool mayWait = false; // CUDA does not say whether the call waits (unknown direction or memory)
};

// Groups calls (in the order they were made) into synchronizations:
//   - a copy followed at once by a synchronize of its stream (or a device-wide one) with the same callerKey
//   is
//     one synchronization, whether or not the copy itself waits;
//   - any other call that waits (Blocking::Yes) is one, and so is one that may wait (Blocking::Unknown);
//   - a call that does not wait (a pinned asynchronous copy, a free of a null pointer) is none.
std::vector<SyncGroup> groupSyncs(const std::vector<CallRecord> &calls);

} // namespace torch_sync::guard_detail
