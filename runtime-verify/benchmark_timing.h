// The loop benchmarks' measurements (loop_benchmark.cpp, fused_benchmark.cu): iterations per second on the
// host clock, and the GPU idle fraction of a profiled repetition under LibTorch's Kineto profiler.
//
// The GPU idle fraction of a profiled repetition is 1 - busy / window, where
// - window: the repetition's iterations and the torch::cuda::synchronize() that ends them, as the profiler
//   recorded a user annotation (RECORD_USER_SCOPE) around them;
// - busy: the length of the union of the device activities that Kineto reports as kernels, memory copies
//   and memsets (its CONCURRENT_KERNEL, GPU_MEMCPY and GPU_MEMSET records, from CUPTI), clipped to the
//   window. Activities that overlap count once. A kernel counts as busy for its whole duration, however
//   few of the GPU's multiprocessors it occupies: idle means that no kernel, copy or memset runs at all,
//   not that compute goes unused.
// The window is on the profiler's host clock and the activities on the device clock as Kineto converts
// it; busyOutsideWindowSeconds is the busy time that falls outside the window, which is close to zero
// when the two agree. The profiler adds host work to every operator, so its repetitions run somewhat
// slower than the timed ones.
#pragma once

#include "json_string.h"

#include <ATen/record_function.h>
#include <kineto/ActivityType.h>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace torch_sync::benchmark {

namespace profiler = torch::autograd::profiler;

struct Summary {
  double median = 0, min = 0, max = 0;
};

// The median, min and max of `values` (all zero when empty).
inline Summary summarize(std::vector<double> values) {
  Summary summary;
  if (values.empty())
    return summary;
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  summary.median = values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
  summary.min = values.front();
  summary.max = values.back();
  return summary;
}

inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// One repetition without the profiler: runIterations() between two synchronizes; returns `iterations` per
// second.
inline double timedRepetition(const std::function<void()> &runIterations, int iterations) {
  torch::cuda::synchronize();
  auto start = std::chrono::steady_clock::now();
  runIterations();
  torch::cuda::synchronize();
  return iterations / secondsSince(start);
}

struct Interval {
  int64_t start, end; // nanoseconds
};

// The length of the union of `intervals` within [from, to).
inline int64_t unionLength(std::vector<Interval> intervals, int64_t from, int64_t to) {
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval &a, const Interval &b) { return a.start < b.start; });
  int64_t total = 0, coveredUntil = from;
  for (const Interval &interval : intervals) {
    const int64_t start = std::max(interval.start, coveredUntil);
    const int64_t end = std::min(interval.end, to);
    if (end > start) {
      total += end - start;
      coveredUntil = end;
    }
  }
  return total;
}

inline bool isDeviceBusy(uint8_t activityType) {
  switch (static_cast<libkineto::ActivityType>(activityType)) {
  case libkineto::ActivityType::CONCURRENT_KERNEL:
  case libkineto::ActivityType::GPU_MEMCPY:
  case libkineto::ActivityType::GPU_MEMSET:
    return true;
  default:
    return false;
  }
}

struct IdleMeasurement {
  double idleFraction = 0;
  double windowSeconds = 0;
  double busySeconds = 0;
  double busyOutsideWindowSeconds = 0;
  size_t deviceActivities = 0;
};

// The GPU idle fraction of a profiled repetition whose window is the user annotation `windowName`; throws
// when the profiler recorded no such annotation or no device activity.
inline IdleMeasurement measureIdle(const profiler::ProfilerResult &result, const char *windowName) {
  const profiler::KinetoEvent *window = nullptr;
  std::vector<Interval> busy;
  for (const profiler::KinetoEvent &event : result.events()) {
    if (event.activityType() == static_cast<uint8_t>(libkineto::ActivityType::USER_ANNOTATION) &&
        event.name() == windowName)
      window = &event;
    else if (isDeviceBusy(event.activityType()))
      busy.push_back({static_cast<int64_t>(event.startNs()), static_cast<int64_t>(event.endNs())});
  }
  if (!window)
    throw std::runtime_error(std::string("the profiler recorded no '") + windowName + "' annotation");
  // Every iteration runs kernels: none recorded means that CUPTI did not report to Kineto, not an idle GPU.
  if (busy.empty())
    throw std::runtime_error("the profiler recorded no GPU kernel or copy (is CUPTI available to Kineto?)");
  const auto from = static_cast<int64_t>(window->startNs());
  const auto to = static_cast<int64_t>(window->endNs());
  if (to <= from)
    throw std::runtime_error("the measured window has no length");
  const int64_t inside = unionLength(busy, from, to);
  const int64_t outside = unionLength(busy, std::numeric_limits<int64_t>::min(), from) +
                          unionLength(busy, to, std::numeric_limits<int64_t>::max());
  IdleMeasurement measurement;
  measurement.windowSeconds = (to - from) * 1e-9;
  measurement.busySeconds = inside * 1e-9;
  measurement.idleFraction = 1.0 - static_cast<double>(inside) / static_cast<double>(to - from);
  measurement.busyOutsideWindowSeconds = outside * 1e-9;
  measurement.deviceActivities = busy.size();
  return measurement;
}

struct ProfiledRepetition {
  double iterationsPerSecond = 0; // host clock, under the profiler
  IdleMeasurement idle;
  std::unique_ptr<profiler::ProfilerResult> result;
};

// One repetition under the Kineto profiler (CPU and CUDA activities): runIterations() and the synchronize
// after it inside the user annotation `windowName`; returns the rate, the idle measurement and the result.
inline ProfiledRepetition profiledRepetition(const std::function<void()> &runIterations, int iterations,
                                             const char *windowName) {
  const profiler::ProfilerConfig config(profiler::ProfilerState::KINETO);
  const std::set<profiler::ActivityType> activities{profiler::ActivityType::CPU,
                                                    profiler::ActivityType::CUDA};
  torch::cuda::synchronize();
  profiler::prepareProfiler(config, activities);
  profiler::enableProfiler(config, activities);
  double seconds = 0;
  {
    RECORD_USER_SCOPE(windowName);
    auto start = std::chrono::steady_clock::now();
    runIterations();
    torch::cuda::synchronize();
    seconds = secondsSince(start);
  }
  ProfiledRepetition repetition;
  repetition.result = profiler::disableProfiler();
  repetition.iterationsPerSecond = iterations / seconds;
  repetition.idle = measureIdle(*repetition.result, windowName);
  return repetition;
}

using torch_sync::runtime::jsonString;

// A number as JSON: six significant digits, null when not finite.
inline std::string jsonNumber(double value) {
  if (!std::isfinite(value))
    return "null";
  std::ostringstream out;
  out.precision(6);
  out << value;
  return out.str();
}

inline std::string jsonSummary(const Summary &summary) {
  return "{\"median\": " + jsonNumber(summary.median) + ", \"min\": " + jsonNumber(summary.min) +
         ", \"max\": " + jsonNumber(summary.max) + "}";
}

} // namespace torch_sync::benchmark
