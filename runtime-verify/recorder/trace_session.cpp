// trace_session: profiles a whole program with LibTorch's Kineto profiler (CPU and CUDA activities) and
// records the host call stack of each top-level operator (../core/op_stacks.h), for torch-sync-trace. The
// program needs no change: linked with -Wl,--wrap=main, the C runtime calls __wrap_main, which starts both,
// runs the program's main and, once main has returned, stops them and writes
//   $TORCH_SYNC_TRACE.json         the Chrome trace (what torch::autograd::profiler's result->save() writes)
//   $TORCH_SYNC_TRACE.stacks.json  the operator stacks, lines relative to TORCH_SYNC_SOURCE_ROOT
// Everything happens inside main's lifetime, before LibTorch's static objects go. Without TORCH_SYNC_TRACE
// the program runs unprofiled. A program that ends through exit() or an uncaught exception writes nothing
// (one line on stderr says so). Errors are reported on stderr; the program's exit status is kept, or 1 when
// main succeeded but the trace could not be written.
#include "op_stacks.h"

#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/cuda.h>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <set>
#include <string>

extern "C" int __real_main(int argc, char **argv, char **envp);

namespace {

namespace profiler = torch::autograd::profiler;

// Set once main has returned; a program that ends through exit() or std::terminate never gets there, and
// the exit handler says that nothing was written (writing then would run after LibTorch's objects made
// during main are gone).
bool mainReturned = false;

void reportMissingTrace() {
  if (!mainReturned)
    std::cerr << "trace_session: main did not return (exit() or an uncaught exception): no trace written\n";
}

std::string sourceRoot() {
  const char *root = std::getenv("TORCH_SYNC_SOURCE_ROOT");
  return root && *root ? root : TORCH_SYNC_SOURCE_ROOT;
}

} // namespace

extern "C" int __wrap_main(int argc, char **argv, char **envp) {
  const char *prefix = std::getenv("TORCH_SYNC_TRACE");
  if (!prefix || !*prefix)
    return __real_main(argc, argv, envp);

  torch_sync::runtime::OpStackRecorder stacks;
  const profiler::ProfilerConfig config(profiler::ProfilerState::KINETO);
  std::set<profiler::ActivityType> activities{profiler::ActivityType::CPU};
  if (torch::cuda::is_available())
    activities.insert(profiler::ActivityType::CUDA);
  profiler::prepareProfiler(config, activities);
  profiler::enableProfiler(config, activities);
  std::atexit(reportMissingTrace);
  stacks.start();
  const int status = __real_main(argc, argv, envp);
  mainReturned = true;
  stacks.stop();
  try {
    if (torch::cuda::is_available())
      torch::cuda::synchronize();
    std::unique_ptr<profiler::ProfilerResult> result = profiler::disableProfiler();
    const std::string tracePath = std::string(prefix) + ".json";
    const std::string stacksPath = std::string(prefix) + ".stacks.json";
    result->save(tracePath);
    const std::size_t operators = stacks.write(stacksPath, sourceRoot());
    std::cerr << "trace_session: wrote " << tracePath << " and " << stacksPath << " (" << operators
              << " top-level operators)\n";
  } catch (const std::exception &error) {
    std::cerr << "trace_session: error: " << error.what() << "\n";
    return status ? status : 1;
  }
  return status;
}
