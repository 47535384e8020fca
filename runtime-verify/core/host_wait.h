// The runtime core's host-wait test (host_wait.cpp), which measures whether a CUDA call waits for the device.
// The recorder's CUPTI callback calls these inside a ScopedCoreCall, so that the probe's own CUDA calls are
// not delivered. Needs LibTorch (a CUDA build: at::cuda::sleep).
#pragma once

#include <cuda_runtime_api.h>

#include <optional>

namespace torch_sync::runtime {

// Whether TORCH_SYNC_HOST_WAIT is set (to anything but 0): the test slows every probed call that waits by
// the sleep's length (TORCH_SYNC_HOST_WAIT_CYCLES GPU clock cycles, default 4e7, about 20 ms), so it is a
// separate pass of run.sh.
bool hostWaitEnabled();

// Queues the sleep kernel and an event on stream (0: the legacy default stream), before the probed call
// runs. Returns false when it could not (no current device, an error) or must not: once the calling thread or
// the process has begun to exit, LibTorch's statics that the sleep kernel needs may be destroyed, so nothing
// is probed from then on. The call is then not measured.
bool hostWaitArm(cudaStream_t stream);

// After the probed call returned: true when the sleep had finished (the call waited for the device),
// false when it was still running, nothing when the probe was not armed or the query failed.
std::optional<bool> hostWaitResult();

} // namespace torch_sync::runtime
