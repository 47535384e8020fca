// The runtime core's operator stacks: the host call stack of every top-level ATen operator (one that no other
// operator encloses on its thread), recorded while a profiler runs, so that torch-sync-trace can give each
// GPU idle gap the user's source line. LibTorch's Kineto traces of C++ programs carry no call stacks; the
// operators of the trace and of this record are joined by name, thread and start time (docs/trace.md).
//
// Written as JSON, format "torch-sync-op-stacks", version 1:
//   {"format": "torch-sync-op-stacks", "version": 1, "clock": "unix_ns", "source_root": "...",
//    "ops": [{"name": "aten::to", "tid": 2457, "start_ns": ..., "end_ns": ..., "location":
//    "samples/x.cpp:42",
//             "function": "printingLoop(...)"}, ...]}
// start_ns and end_ns are on the system clock (nanoseconds since the Unix epoch), as the profiler's trace
// timestamps are (its baseTimeNanoseconds plus ts); tid is the kernel's thread id, as the trace's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace torch_sync::runtime {

// Records the stack of each top-level operator (RecordScope::FUNCTION) of every thread between start() and
// stop(). One recorder at a time per process: the constructor installs a global RecordFunction callback and
// the destructor removes it. start() and stop() may be called from any thread; recording itself is
// thread-safe. Stacks are captured with backtrace() (a few microseconds per top-level operator) and
// symbolized only in write().
class OpStackRecorder {
public:
  OpStackRecorder();
  ~OpStackRecorder();
  OpStackRecorder(const OpStackRecorder &) = delete;
  OpStackRecorder &operator=(const OpStackRecorder &) = delete;

  // Starts recording, after dropping what an earlier start() recorded.
  void start();
  // Stops recording; what was recorded stays until the next start().
  void stop();

  // Symbolizes the recorded stacks (stack_trace.h) and writes them to path as described above. location is
  // the innermost frame of the program's own code (firstUserFrame), relative to sourceRoot where it lies
  // under it, or "" when the stack has no such frame. Returns the number of operators written; throws
  // std::runtime_error when path cannot be written.
  std::size_t write(const std::string &path, const std::string &sourceRoot) const;

private:
  std::uint64_t callbackHandle_;
};

} // namespace torch_sync::runtime
