// loop_benchmark: what one sync per iteration costs in the minimal loop of samples/minimal_loop.cpp.
//
// Usage: loop_benchmark <outdir> [iterations] [repetitions]
//
// For each of healthyLoop, printingLoop and repairedLoop, in one process, on a fresh state: a warm-up, then
// `repetitions` timed repetitions of `iterations` iterations without the profiler (iterations per second,
// host clock), then `repetitions` repetitions under LibTorch's Kineto profiler (the GPU idle fraction).
// Writes <outdir>/loop_benchmark.json and, per loop, <outdir>/trace_<loop>.json: the Chrome trace of one
// more profiled repetition of kTraceIterations iterations, to open in Perfetto (https://ui.perfetto.dev) or
// chrome://tracing, and <outdir>/stacks_<loop>.json: the host stacks of that repetition's top-level operators
// (../core/op_stacks.h), which give torch-sync-trace the source line of each GPU idle gap.
//
// The GPU idle fraction and the rates are measured as benchmark_timing.h says.
//
// stdout is discarded while the loops run (printingLoop and repairedLoop print every iteration). The
// discarding buffer sits behind std::cout, so a CUDA tensor printed into it is still formatted and so
// still copied to the host: the sync stays, only the text goes nowhere.
#define TORCH_SYNC_SAMPLE_NO_MAIN
#include "../samples/minimal_loop.cpp"

#include "benchmark_timing.h"
#include "op_stacks.h"

#include <ATen/cuda/CUDAContext.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <vector>

namespace {

using torch_sync::benchmark::jsonNumber;
using torch_sync::benchmark::jsonString;
using torch_sync::benchmark::jsonSummary;
using torch_sync::benchmark::ProfiledRepetition;
using torch_sync::benchmark::profiledRepetition;
using torch_sync::benchmark::summarize;
using torch_sync::benchmark::Summary;
using torch_sync::benchmark::timedRepetition;

constexpr int kDefaultIterations = 100;
constexpr int kDefaultRepetitions = 7;
constexpr int kWarmUpIterations = 10;
constexpr int kTraceIterations = 10; // iterations in the saved Chrome trace
constexpr const char *kWindowName = "loop_benchmark::measured_window";

struct LoopUnderTest {
  const char *name;
  void (*run)(MinimalLoopState &, int);
};

// Accepts and drops every character, after the stream has formatted it.
class DiscardingBuffer : public std::streambuf {
protected:
  int_type overflow(int_type character) override { return traits_type::not_eof(character); }
  std::streamsize xsputn(const char *, std::streamsize count) override { return count; }
};

// Sends std::cout to a DiscardingBuffer for its lifetime.
class StdoutDiscarded {
public:
  StdoutDiscarded() : previous_(std::cout.rdbuf(&buffer_)) {}
  ~StdoutDiscarded() { std::cout.rdbuf(previous_); }
  StdoutDiscarded(const StdoutDiscarded &) = delete;
  StdoutDiscarded &operator=(const StdoutDiscarded &) = delete;

private:
  DiscardingBuffer buffer_;
  std::streambuf *previous_;
};

struct LoopReport {
  std::string name;
  int iterations = 0, repetitions = 0;
  Summary iterationsPerSecond, profiledIterationsPerSecond, idleFraction;
  double maxBusyOutsideWindowSeconds = 0;
  double medianDeviceActivities = 0;
  std::string trace, stacks;
};

LoopReport benchmarkLoop(const LoopUnderTest &loop, const torch::Device &device, int iterations,
                         int repetitions, const std::filesystem::path &outdir) {
  MinimalLoopState state = makeMinimalLoopState(device);
  std::vector<double> rates;
  std::vector<ProfiledRepetition> profiled;
  {
    StdoutDiscarded quiet;
    loop.run(state, kWarmUpIterations);
    torch::cuda::synchronize();
    for (int repetition = 0; repetition < repetitions; ++repetition)
      rates.push_back(timedRepetition([&] { loop.run(state, iterations); }, iterations));
    // A short profiled run first, left out: the profiler's first session in the process sets up CUPTI.
    profiledRepetition([&] { loop.run(state, kWarmUpIterations); }, kWarmUpIterations, kWindowName);
    for (int repetition = 0; repetition < repetitions; ++repetition)
      profiled.push_back(profiledRepetition([&] { loop.run(state, iterations); }, iterations, kWindowName));
  }

  LoopReport report;
  report.name = loop.name;
  report.iterations = iterations;
  report.repetitions = repetitions;
  report.iterationsPerSecond = summarize(rates);
  std::vector<double> profiledRates, idleFractions, deviceActivities;
  for (const ProfiledRepetition &repetition : profiled) {
    profiledRates.push_back(repetition.iterationsPerSecond);
    idleFractions.push_back(repetition.idle.idleFraction);
    deviceActivities.push_back(static_cast<double>(repetition.idle.deviceActivities));
    report.maxBusyOutsideWindowSeconds =
        std::max(report.maxBusyOutsideWindowSeconds, repetition.idle.busyOutsideWindowSeconds);
  }
  report.profiledIterationsPerSecond = summarize(profiledRates);
  report.idleFraction = summarize(idleFractions);
  report.medianDeviceActivities = summarize(deviceActivities).median;

  // The trace: one more profiled repetition of a few iterations, enough to see the pattern and small
  // enough to keep (a trace of every measured iteration is megabytes).
  // Its top-level operators' stacks go to stacks_<loop>.json, for torch-sync-trace's source lines.
  report.trace = "trace_" + report.name + ".json";
  report.stacks = "stacks_" + report.name + ".json";
  {
    StdoutDiscarded quiet;
    torch_sync::runtime::OpStackRecorder stacks;
    stacks.start();
    ProfiledRepetition traced =
        profiledRepetition([&] { loop.run(state, kTraceIterations); }, kTraceIterations, kWindowName);
    stacks.stop();
    traced.result->save((outdir / report.trace).string());
    stacks.write((outdir / report.stacks).string(), TORCH_SYNC_SOURCE_ROOT);
  }
  return report;
}

void writeJson(const std::filesystem::path &path, const std::vector<LoopReport> &reports,
               const std::string &gpuName, int64_t matrixSize) {
  std::ofstream out(path);
  out << "{\n"
      << "  \"torch_version\": " << jsonString(TORCH_VERSION) << ",\n"
      << "  \"gpu\": " << jsonString(gpuName) << ",\n"
      << "  \"matrix_size\": " << matrixSize << ",\n"
      << "  \"products_per_iteration\": " << kProductsPerStep << ",\n"
      << "  \"warm_up_iterations\": " << kWarmUpIterations << ",\n"
      << "  \"gpu_busy\": "
      << jsonString("union of the Kineto CONCURRENT_KERNEL, GPU_MEMCPY and GPU_MEMSET "
                    "activities within the measured window")
      << ",\n"
      << "  \"loops\": {\n";
  for (size_t i = 0; i < reports.size(); ++i) {
    const LoopReport &report = reports[i];
    out << "    " << jsonString(report.name) << ": {\n"
        << "      \"iterations\": " << report.iterations << ",\n"
        << "      \"repetitions\": " << report.repetitions << ",\n"
        << "      \"iterations_per_second\": " << jsonSummary(report.iterationsPerSecond) << ",\n"
        << "      \"gpu_idle_fraction\": " << jsonSummary(report.idleFraction) << ",\n"
        << "      \"profiled_iterations_per_second\": " << jsonSummary(report.profiledIterationsPerSecond)
        << ",\n"
        << "      \"device_activities_per_repetition\": " << jsonNumber(report.medianDeviceActivities)
        << ",\n"
        << "      \"busy_outside_window_seconds\": " << jsonNumber(report.maxBusyOutsideWindowSeconds)
        << ",\n"
        << "      \"trace\": " << jsonString(report.trace) << ",\n"
        << "      \"stacks\": " << jsonString(report.stacks) << "\n"
        << "    }" << (i + 1 < reports.size() ? "," : "") << "\n";
  }
  out << "  }\n}\n";
  if (!out)
    throw std::runtime_error("could not write " + path.string());
}

int positiveArgument(const char *text, const char *what) {
  char *end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value <= 0 || value > 1000000)
    throw std::invalid_argument(std::string(what) + " must be a positive integer, got '" + text + "'");
  return static_cast<int>(value);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || argc > 4) {
    std::cerr << "usage: loop_benchmark <outdir> [iterations (default " << kDefaultIterations
              << ")] [repetitions (default " << kDefaultRepetitions << ")]\n";
    return 2;
  }
  if (!torch::cuda::is_available()) {
    std::cerr << "loop_benchmark: no CUDA device is visible; it measures GPU idle time and needs a GPU\n";
    return 1;
  }
  try {
    const std::filesystem::path outdir = argv[1];
    const int iterations = argc > 2 ? positiveArgument(argv[2], "iterations") : kDefaultIterations;
    const int repetitions = argc > 3 ? positiveArgument(argv[3], "repetitions") : kDefaultRepetitions;
    std::filesystem::create_directories(outdir);

    torch::manual_seed(0);
    const torch::Device device(torch::kCUDA);
    const std::string gpuName = at::cuda::getCurrentDeviceProperties()->name;
    const int64_t matrixSize = makeMinimalLoopState(device).weights.size(0);
    const LoopUnderTest loops[] = {
        {"healthy", healthyLoop}, {"printing", printingLoop}, {"repaired", repairedLoop}};
    std::vector<LoopReport> reports;
    for (const LoopUnderTest &loop : loops)
      reports.push_back(benchmarkLoop(loop, device, iterations, repetitions, outdir));
    writeJson(outdir / "loop_benchmark.json", reports, gpuName, matrixSize);

    std::cout << "loop_benchmark: " << gpuName << ", torch " << TORCH_VERSION << ", " << iterations
              << " iterations x " << repetitions << " repetitions per loop\n";
    for (const LoopReport &report : reports)
      std::cout << "  " << report.name << ": " << jsonNumber(report.iterationsPerSecond.median)
                << " iterations/s (median), GPU idle " << jsonNumber(100 * report.idleFraction.median)
                << "% (median, under the profiler), trace " << (outdir / report.trace).string() << "\n";
    std::cout << "  results: " << (outdir / "loop_benchmark.json").string() << "\n";
    return 0;
  } catch (const std::exception &error) {
    std::cerr << "loop_benchmark: error: " << error.what() << "\n";
    return 1;
  }
}
