// fused_benchmark: what the sync of a compaction by a boolean mask costs in a loop, against the sync-free
// forms of samples/fused_compaction.cu: the mask as a weight and a cumsum scatter in ATen, and a fused CUDA
// kernel that writes a fixed-size output and the count into a device tensor. docs/fused-kernels.md gives
// the figures.
//
// Usage: fused_benchmark <outdir> [iterations (100)] [repetitions (7)]
//
// Each iteration is one step of a detection loop: decodeDetections (a matrix product and a few elementwise
// kernels: the GPU work queued before the compaction), the form's compaction, keptStatistics on what it
// kept (a few small kernels after it), and an add of the statistics into a running total on the device.
// For each number of rows (kRows) and fraction of rows kept (kKeepFractions), a fresh detection head and
// the threshold that keeps that fraction (read once, before anything is measured); then for each form: a
// check that its statistics agree with the mask index's, a warm-up, `repetitions` timed repetitions of
// `iterations` iterations (iterations per second, host clock), and `repetitions` repetitions under
// LibTorch's Kineto profiler (the GPU idle fraction), as benchmark_timing.h measures them. At kTraceRows
// and kTraceKeepFraction, one more profiled repetition of kTraceIterations iterations per form is saved as
// a Chrome trace (trace_<form>.json), to open in Perfetto (https://ui.perfetto.dev).
//
// Writes <outdir>/fused_benchmark.json and <outdir>/fused_benchmark.tsv (one row per case and form; both
// rewritten after each case, so that a run stopped part way keeps the cases it finished) and prints the
// table. Exit status 1 when a form's statistics disagree with the mask index's (the results
// are written first), or without a CUDA device; 2 on bad arguments.
#define TORCH_SYNC_SAMPLE_NO_MAIN
#include "../samples/fused_compaction.cu"

#include "benchmark_timing.h"

#include <ATen/cuda/CUDAContext.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <tuple>
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
constexpr int kTraceIterations = 10;
constexpr int64_t kRows[] = {10000, 100000, 1000000};
constexpr double kKeepFractions[] = {0.01, 0.5};
constexpr int64_t kTraceRows = 1000000;
constexpr double kTraceKeepFraction = 0.01;
constexpr const char *kWindowName = "fused_benchmark::measured_window";

// One form of the compaction and the next step: the statistics of the rows kept at the threshold.
struct Form {
  const char *name;
  const char *what;
  bool syncs;
  torch::Tensor (*statistics)(const torch::Tensor &detections, float threshold);
};

torch::Tensor statisticsOf(const Compacted &compacted) {
  return keptStatistics(compacted.rows, compacted.count);
}

const Form kForms[] = {
    {"mask_index", "detections.index({scores > t}), the count from the compacted rows' size", true,
     [](const torch::Tensor &d, float t) { return rule_keep_with_mask_index(d, t); }},
    {"nonzero", "(scores > t).nonzero(), then index_select", true,
     [](const torch::Tensor &d, float t) { return rule_keep_with_nonzero(d, t); }},
    {"mask_weight", "no compaction: the dropped rows zeroed with masked_fill, the count a device sum", false,
     [](const torch::Tensor &d, float t) { return statisticsOf(exempt_keep_as_weight(d, t)); }},
    {"cumsum_scatter", "cumsum, then index_copy_ into a fixed-size buffer, the count on the device", false,
     [](const torch::Tensor &d, float t) { return statisticsOf(exempt_keep_with_cumsum(d, t)); }},
    {"fused_kernel", "one CUDA kernel: fixed-size output, the count written to a device tensor", false,
     [](const torch::Tensor &d, float t) { return statisticsOf(exempt_keep_with_fused_kernel(d, t)); }},
};

// A number of rows and a fraction to keep: the detection head, the threshold that keeps that fraction of
// its rows, and the running total that each step adds its statistics to.
struct Case {
  int64_t rows = 0;
  double keepFraction = 0;
  DetectionHead head;
  float threshold = 0;
  int64_t keptRows = 0; // rows above the threshold, as measured
  torch::Tensor total;
};

Case makeCase(int64_t rows, double keepFraction, const torch::Device &device) {
  Case c;
  c.rows = rows;
  c.keepFraction = keepFraction;
  c.head = makeDetectionHead(rows, device);
  // The threshold is a score of the decoded rows: the one with `keep` scores above it. Read once, here.
  auto scores = decodeDetections(c.head).select(1, kScoreColumn);
  auto sorted = std::get<0>(scores.sort());
  const int64_t keep = std::max<int64_t>(1, std::llround(keepFraction * static_cast<double>(rows)));
  c.threshold = sorted[rows - keep - 1].item<float>();
  c.keptRows = (scores > c.threshold).sum().item<int64_t>();
  c.total = torch::zeros({kStatistics}, torch::TensorOptions().device(device));
  return c;
}

// One step of the loop.
void step(const Form &form, Case &c) {
  auto detections = decodeDetections(c.head);
  c.total.add_(form.statistics(detections, c.threshold));
}

// Whether the form's statistics agree with the mask index's: the same count, the sums close (they are added
// in different orders).
bool agreesWithMaskIndex(const Form &form, const Case &c) {
  auto detections = decodeDetections(c.head);
  auto reference = kForms[0].statistics(detections, c.threshold).cpu();
  auto result = form.statistics(detections, c.threshold).cpu();
  return torch::equal(result[0], reference[0]) &&
         torch::allclose(result, reference, /*rtol=*/1e-4, /*atol=*/1e-3);
}

struct FormReport {
  std::string form;
  bool agrees = false;
  Summary iterationsPerSecond, profiledIterationsPerSecond, idleFraction;
  double maxBusyOutsideWindowSeconds = 0;
  double medianDeviceActivities = 0;
  std::string trace; // empty: none saved
};

struct CaseReport {
  int64_t rows = 0;
  double keepFraction = 0;
  int64_t keptRows = 0;
  float threshold = 0;
  std::vector<FormReport> forms;
};

FormReport benchmarkForm(const Form &form, Case &c, int iterations, int repetitions, bool saveTrace,
                         const std::filesystem::path &outdir) {
  FormReport report;
  report.form = form.name;
  report.agrees = agreesWithMaskIndex(form, c);
  auto run = [&](int count) {
    return [&form, &c, count] {
      for (int i = 0; i < count; ++i)
        step(form, c);
    };
  };
  run(kWarmUpIterations)();
  torch::cuda::synchronize();
  std::vector<double> rates;
  for (int repetition = 0; repetition < repetitions; ++repetition)
    rates.push_back(timedRepetition(run(iterations), iterations));
  // A short profiled run first, left out: the profiler's first session in the process sets up CUPTI.
  profiledRepetition(run(kWarmUpIterations), kWarmUpIterations, kWindowName);
  std::vector<double> profiledRates, idleFractions, deviceActivities;
  for (int repetition = 0; repetition < repetitions; ++repetition) {
    ProfiledRepetition profiled = profiledRepetition(run(iterations), iterations, kWindowName);
    profiledRates.push_back(profiled.iterationsPerSecond);
    idleFractions.push_back(profiled.idle.idleFraction);
    deviceActivities.push_back(static_cast<double>(profiled.idle.deviceActivities));
    report.maxBusyOutsideWindowSeconds =
        std::max(report.maxBusyOutsideWindowSeconds, profiled.idle.busyOutsideWindowSeconds);
  }
  report.iterationsPerSecond = summarize(rates);
  report.profiledIterationsPerSecond = summarize(profiledRates);
  report.idleFraction = summarize(idleFractions);
  report.medianDeviceActivities = summarize(deviceActivities).median;
  if (saveTrace) {
    report.trace = std::string("trace_") + form.name + ".json";
    ProfiledRepetition traced = profiledRepetition(run(kTraceIterations), kTraceIterations, kWindowName);
    traced.result->save((outdir / report.trace).string());
  }
  return report;
}

// Iterations per second of the form relative to the mask index's in the same case.
double relativeRate(const CaseReport &c, const FormReport &form) {
  return form.iterationsPerSecond.median / c.forms.front().iterationsPerSecond.median;
}

void writeJson(const std::filesystem::path &path, const std::vector<CaseReport> &cases,
               const std::string &gpu, int iterations, int repetitions) {
  std::ofstream out(path);
  out << "{\n"
      << "  \"torch_version\": " << jsonString(TORCH_VERSION) << ",\n"
      << "  \"gpu\": " << jsonString(gpu) << ",\n"
      << "  \"features_per_row\": " << kFeatures << ",\n"
      << "  \"warm_up_iterations\": " << kWarmUpIterations << ",\n"
      << "  \"iterations\": " << iterations << ",\n"
      << "  \"repetitions\": " << repetitions << ",\n"
      << "  \"step\": "
      << jsonString("decodeDetections (a matrix product and elementwise kernels), the form's compaction, "
                    "keptStatistics on the kept rows, and an add into a running total on the device")
      << ",\n"
      << "  \"gpu_busy\": "
      << jsonString("union of the Kineto CONCURRENT_KERNEL, GPU_MEMCPY and GPU_MEMSET "
                    "activities within the measured window")
      << ",\n"
      << "  \"forms\": {\n";
  const size_t forms = std::size(kForms);
  for (size_t i = 0; i < forms; ++i)
    out << "    " << jsonString(kForms[i].name) << ": {\"syncs\": " << (kForms[i].syncs ? "true" : "false")
        << ", \"what\": " << jsonString(kForms[i].what) << "}" << (i + 1 < forms ? "," : "") << "\n";
  out << "  },\n"
      << "  \"cases\": [\n";
  for (size_t i = 0; i < cases.size(); ++i) {
    const CaseReport &c = cases[i];
    out << "    {\"rows\": " << c.rows << ", \"keep_fraction\": " << jsonNumber(c.keepFraction)
        << ", \"kept_rows\": " << c.keptRows << ", \"threshold\": " << jsonNumber(c.threshold) << ",\n"
        << "     \"forms\": {\n";
    for (size_t j = 0; j < c.forms.size(); ++j) {
      const FormReport &form = c.forms[j];
      out << "       " << jsonString(form.form) << ": {\n"
          << "         \"agrees_with_mask_index\": " << (form.agrees ? "true" : "false") << ",\n"
          << "         \"iterations_per_second\": " << jsonSummary(form.iterationsPerSecond) << ",\n"
          << "         \"relative_to_mask_index\": " << jsonNumber(relativeRate(c, form)) << ",\n"
          << "         \"gpu_idle_fraction\": " << jsonSummary(form.idleFraction) << ",\n"
          << "         \"profiled_iterations_per_second\": " << jsonSummary(form.profiledIterationsPerSecond)
          << ",\n"
          << "         \"device_activities_per_repetition\": " << jsonNumber(form.medianDeviceActivities)
          << ",\n"
          << "         \"busy_outside_window_seconds\": " << jsonNumber(form.maxBusyOutsideWindowSeconds)
          << ",\n"
          << "         \"trace\": " << (form.trace.empty() ? "null" : jsonString(form.trace)) << "\n"
          << "       }" << (j + 1 < c.forms.size() ? "," : "") << "\n";
    }
    out << "     }}" << (i + 1 < cases.size() ? "," : "") << "\n";
  }
  out << "  ]\n}\n";
  if (!out)
    throw std::runtime_error("could not write " + path.string());
}

// The table's columns, for the TSV file and the printed table.
const char *const kColumnNames[] = {"rows",
                                    "keep_fraction",
                                    "kept_rows",
                                    "form",
                                    "syncs",
                                    "iterations_per_second",
                                    "min",
                                    "max",
                                    "us_per_iteration",
                                    "vs_mask_index",
                                    "gpu_idle_percent",
                                    "idle_min",
                                    "idle_max",
                                    "profiled_iterations_per_second",
                                    "agrees"};

std::vector<std::vector<std::string>> tableRows(const std::vector<CaseReport> &cases) {
  std::vector<std::vector<std::string>> rows;
  for (const CaseReport &c : cases)
    for (size_t j = 0; j < c.forms.size(); ++j) {
      const FormReport &form = c.forms[j];
      rows.push_back({std::to_string(c.rows), jsonNumber(c.keepFraction), std::to_string(c.keptRows),
                      form.form, kForms[j].syncs ? "yes" : "no", jsonNumber(form.iterationsPerSecond.median),
                      jsonNumber(form.iterationsPerSecond.min), jsonNumber(form.iterationsPerSecond.max),
                      jsonNumber(1e6 / form.iterationsPerSecond.median), jsonNumber(relativeRate(c, form)),
                      jsonNumber(100 * form.idleFraction.median), jsonNumber(100 * form.idleFraction.min),
                      jsonNumber(100 * form.idleFraction.max),
                      jsonNumber(form.profiledIterationsPerSecond.median), form.agrees ? "yes" : "no"});
    }
  return rows;
}

void writeTsv(const std::filesystem::path &path, const std::vector<std::vector<std::string>> &rows) {
  std::ofstream out(path);
  for (size_t i = 0; i < std::size(kColumnNames); ++i)
    out << (i ? "\t" : "") << kColumnNames[i];
  out << "\n";
  for (const auto &row : rows) {
    for (size_t i = 0; i < row.size(); ++i)
      out << (i ? "\t" : "") << row[i];
    out << "\n";
  }
  if (!out)
    throw std::runtime_error("could not write " + path.string());
}

void printTable(const std::vector<std::vector<std::string>> &rows) {
  std::vector<size_t> widths;
  for (const char *name : kColumnNames)
    widths.push_back(std::string(name).size());
  for (const auto &row : rows)
    for (size_t i = 0; i < row.size(); ++i)
      widths[i] = std::max(widths[i], row[i].size());
  auto print = [&](const std::vector<std::string> &cells) {
    for (size_t i = 0; i < cells.size(); ++i)
      std::printf(i == 3 ? "%-*s  " : "%*s  ", static_cast<int>(widths[i]), cells[i].c_str());
    std::printf("\n");
  };
  print(std::vector<std::string>(std::begin(kColumnNames), std::end(kColumnNames)));
  for (const auto &row : rows)
    print(row);
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
    std::cerr << "usage: fused_benchmark <outdir> [iterations (default " << kDefaultIterations
              << ")] [repetitions (default " << kDefaultRepetitions << ")]\n";
    return 2;
  }
  if (!torch::cuda::is_available()) {
    std::cerr << "fused_benchmark: no CUDA device is visible; it measures GPU idle time and needs a GPU\n";
    return 1;
  }
  int iterations = kDefaultIterations, repetitions = kDefaultRepetitions;
  try {
    iterations = argc > 2 ? positiveArgument(argv[2], "iterations") : kDefaultIterations;
    repetitions = argc > 3 ? positiveArgument(argv[3], "repetitions") : kDefaultRepetitions;
  } catch (const std::invalid_argument &error) {
    std::cerr << "fused_benchmark: " << error.what() << "\n";
    return 2;
  }
  try {
    const std::filesystem::path outdir = argv[1];
    std::filesystem::create_directories(outdir);
    torch::manual_seed(0);
    const torch::Device device(torch::kCUDA);
    const std::string gpu = at::cuda::getCurrentDeviceProperties()->name;

    std::vector<CaseReport> cases;
    bool allAgree = true;
    for (int64_t rows : kRows)
      for (double keepFraction : kKeepFractions) {
        Case c = makeCase(rows, keepFraction, device);
        CaseReport report{rows, keepFraction, c.keptRows, c.threshold, {}};
        const bool saveTrace = rows == kTraceRows && keepFraction == kTraceKeepFraction;
        for (const Form &form : kForms) {
          report.forms.push_back(benchmarkForm(form, c, iterations, repetitions, saveTrace, outdir));
          allAgree = allAgree && report.forms.back().agrees;
          std::cerr << "fused_benchmark: " << rows << " rows, keep " << keepFraction << ", " << form.name
                    << ": " << jsonNumber(report.forms.back().iterationsPerSecond.median)
                    << " iterations/s\n";
        }
        cases.push_back(std::move(report));
        // Written after each case: a run stopped part way keeps the cases it finished.
        writeJson(outdir / "fused_benchmark.json", cases, gpu, iterations, repetitions);
        writeTsv(outdir / "fused_benchmark.tsv", tableRows(cases));
      }

    const auto rows = tableRows(cases);
    std::printf("fused_benchmark: %s, torch %s, %d iterations x %d repetitions per form and case; "
                "iterations/s and GPU idle are medians (idle under the profiler)\n",
                gpu.c_str(), TORCH_VERSION, iterations, repetitions);
    printTable(rows);
    std::printf("results: %s, %s\n", (outdir / "fused_benchmark.json").c_str(),
                (outdir / "fused_benchmark.tsv").c_str());
    if (!allAgree) {
      std::cerr
          << "fused_benchmark: error: a form's statistics disagree with the mask index's (agrees: no)\n";
      return 1;
    }
    return 0;
  } catch (const std::exception &error) {
    std::cerr << "fused_benchmark: error: " << error.what() << "\n";
    return 1;
  }
}
