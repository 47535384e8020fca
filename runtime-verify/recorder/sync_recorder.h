// sync_recorder: records the host-device synchronizations of one process, each with the source line of the
// program that caused it, and writes them as JSON at exit, or when the process crashes (std::terminate, a
// fatal signal: what was recorded before, marked "ended"; see runtime-verify/README.md, The JSON).
//
// Linked into a program as an object library, it starts itself before main() (a constructor function), so
// the programs it observes need no change. It is built on the runtime core (../core/), which the guard
// (../guard/) shares. Three signals are recorded:
//   "cupti": every CUDA runtime or driver API call that waits for the device or copies memory, seen through
//            CUPTI's callback API (runtime::isWatchedApi in ../core/cuda_call.cpp);
//   "sdm":    every "called a synchronizing CUDA operation" warning of PyTorch's sync debug mode, set to
//            L_WARN, caught by a c10::WarningHandler on the main thread;
//   "host_wait": with TORCH_SYNC_HOST_WAIT=1, whether each copy, free, allocation or synchronize made the
//   host
//            wait for a GPU sleep kernel queued just before it (host_wait.cpp); not while a stream capture
//            is under way.
//   "capture_failure": every CUDA runtime or driver call that returned a stream capture error (900 to 908,
//            runtime::captureErrorName), with its "error" and its "capture" role: "cause" (the call failed
//            the capture) or "consequence" (cudaErrorStreamCaptureInvalidated: it only reports an earlier
//            cause, as cudaStreamEndCapture does for an invalidated capture).
// Each event keeps its host call stack (backtrace()); at exit the stacks are symbolized
// (../core/stack_trace.h) and each event is attributed to the innermost frame that lies in a file under
// <source root>/samples/.
//
// Environment:
//   TORCH_SYNC_HOST_WAIT     1: run the host-wait test (slower; run.sh makes it a second pass)
//   TORCH_SYNC_OBSERVATIONS  path of the JSON file to write at exit (unset: a one-line summary on stderr)
//   TORCH_SYNC_SOURCE_ROOT   the repository root whose samples/ files count (default: the one it was built
//   in) TORCH_SYNC_ADDR2LINE     the addr2line program (default: addr2line)
#pragma once

#include <string>
#include <vector>

namespace torch_sync::recorder {

// Records one event with the current host call stack. Thread-safe; cheap enough for a CUPTI callback.
// blocksHost is the JSON value of "blocks_host": "true", "false" or "null". kind, hostMemory and measured
// (the host-wait test's outcome: "waited" or "returned") may be empty; so may error (a stream capture error's
// name) and capture ("cause" or "consequence"), which only capture_failure events have.
void recordEvent(const char *signal, const std::string &api, const char *blocksHost,
                 const std::string &kind = {}, const std::string &hostMemory = {},
                 const std::string &measured = {}, const std::string &error = {},
                 const std::string &capture = {});

// Writes the observations now (also done at exit); later events are ignored.
void finish();

} // namespace torch_sync::recorder
