// sync_recorder: the host-wait test (host_wait.cpp). Only the recorder's CUPTI callback calls these, with
// its own calls to the CUDA runtime excluded from recording.
#pragma once

#include <cuda_runtime_api.h>

#include <optional>

namespace torch_sync::recorder {

// Whether TORCH_SYNC_HOST_WAIT is set (to anything but 0): the test slows every probed call that waits by
// the sleep's length (TORCH_SYNC_HOST_WAIT_CYCLES GPU clock cycles, default 4e7, about 20 ms), so it is a
// separate pass of run.sh.
bool hostWaitEnabled();

// Queues the sleep kernel and an event on stream (0: the legacy default stream), before the probed call
// runs. Returns false when it could not (no current device, an error); the call is then not measured.
bool hostWaitArm(cudaStream_t stream);

// After the probed call returned: true when the sleep had finished (the call waited for the device),
// false when it was still running, nothing when the probe was not armed or the query failed.
std::optional<bool> hostWaitResult();

} // namespace torch_sync::recorder
