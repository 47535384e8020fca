// The guard's cost on a loop with no sync inside: iterations per second and host CPU time per iteration of
// the talk's minimal loop (samples/minimal_loop.cpp, healthyLoop: GPU-bound) and of a launch-bound loop of
// small operations (where the host's per-call cost shows), armed (inside a torch_sync::SyncScope) and not.
// Built twice: guard_overhead (linked with the guard) and guard_overhead_unlinked
// (-DTORCH_SYNC_GUARD_NOT_LINKED, no guard in the process), the baseline the issue asks for.
//
// Usage: guard_overhead <armed|unarmed> [repetitions]; prints one JSON object per repetition and loop.
#define TORCH_SYNC_SAMPLE_NO_MAIN
#include "../../../samples/minimal_loop.cpp"

#ifndef TORCH_SYNC_GUARD_NOT_LINKED
#include "torch_sync/guard.h"
#endif

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>

namespace {

double processCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// Many small element-wise operations: about 10 kernel launches per iteration, each a few microseconds on the
// host, so any per-call cost of the guard would show.
void launchBoundLoop(torch::Tensor &x, int iterations) {
  for (int i = 0; i < iterations; ++i) {
    x = x * 0.5 + 1.0;
    x = torch::tanh(x).add_(0.1).mul_(0.9);
    x = x.clamp(-2.0, 2.0).sub_(0.01);
    x = torch::relu(x) + x;
  }
}

template <typename Loop>
void measure(const char *loopName, const char *mode, int repetition, int iterations, Loop &&loop) {
  loop(iterations / 10); // warm-up
  torch::cuda::synchronize();
  // Arming (the CUPTI subscription) is a cost per outermost scope, not per iteration: timed on its own.
  double armSeconds = 0;
#ifndef TORCH_SYNC_GUARD_NOT_LINKED
  std::unique_ptr<torch_sync::SyncScope> scope;
  if (std::strcmp(mode, "armed") == 0) {
    auto arm0 = std::chrono::steady_clock::now();
    scope = std::make_unique<torch_sync::SyncScope>();
    armSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - arm0).count();
  }
#endif
  double cpu0 = processCpuSeconds();
  auto wall0 = std::chrono::steady_clock::now();
  loop(iterations);
  torch::cuda::synchronize(); // the one sync the armed run sees
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  double cpu = processCpuSeconds() - cpu0;
#ifndef TORCH_SYNC_GUARD_NOT_LINKED
  if (scope && scope->stop().size() != 1)
    std::fprintf(stderr, "guard_overhead: expected the final synchronize only, saw %zu syncs\n",
                 scope->stop().size());
#endif
  std::printf("{\"loop\": \"%s\", \"mode\": \"%s\", \"repetition\": %d, \"iterations\": %d, "
              "\"iterations_per_second\": %.3f, \"cpu_us_per_iteration\": %.3f, \"arm_ms\": %.3f}\n",
              loopName, mode, repetition, iterations, iterations / wall, cpu / iterations * 1e6,
              armSeconds * 1e3);
  std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "unarmed";
#ifdef TORCH_SYNC_GUARD_NOT_LINKED
  mode = "not-linked";
#endif
  int repetitions = argc > 2 ? std::atoi(argv[2]) : 5;
  if (!torch::cuda::is_available()) {
    std::fprintf(stderr, "guard_overhead: no CUDA device\n");
    return 77;
  }
  torch::manual_seed(0);
  MinimalLoopState state = makeMinimalLoopState(torch::kCUDA);
  torch::Tensor x = torch::randn({256}, torch::kCUDA);
  for (int r = 0; r < repetitions; ++r) {
    measure("minimal_loop_healthy", mode, r, 200, [&](int n) { healthyLoop(state, n); });
    measure("launch_bound", mode, r, 20000, [&](int n) { launchBoundLoop(x, n); });
  }
  return 0;
}
