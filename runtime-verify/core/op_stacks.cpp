// The runtime core's operator stacks (op_stacks.h): a global RecordFunction callback that captures the stack
// of each top-level operator, and the JSON writer.
#include "op_stacks.h"

#include "json_string.h"
#include "stack_trace.h"

#include <ATen/record_function.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace torch_sync::runtime {
namespace {

// More operators than this in one recording are counted but not kept (a record holds a 1 KiB stack).
constexpr std::size_t kMaxOperators = 200000;

struct OperatorRecord {
  std::string name;
  long threadId = 0;
  std::int64_t startNs = 0, endNs = 0;
  StackTrace stack;
};

// The recording, shared by the callbacks of all threads. Never destroyed: a callback may run while the
// process exits.
struct Recording {
  std::mutex mutex;
  std::vector<OperatorRecord> operators;
  std::size_t dropped = 0;
  std::atomic<bool> active{false};
  // Bumped by start(): an end callback of an operator that began in an earlier recording is ignored.
  std::atomic<std::uint64_t> generation{0};
};

Recording &recording() {
  static auto *instance = new Recording;
  return *instance;
}

// Operators open on this thread (FUNCTION scope). Trivially destructible, as the core's per-thread state must
// be (a callback may run after the thread's non-trivial thread_locals are gone).
thread_local int openOperators = 0;

std::int64_t systemClockNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct OperatorContext : at::ObserverContext {
  OperatorContext(std::size_t index, std::uint64_t generation) : index(index), generation(generation) {}
  std::size_t index;
  std::uint64_t generation;
};

std::unique_ptr<at::ObserverContext> onOperatorStart(const at::RecordFunction &function) {
  Recording &state = recording();
  if (openOperators++ > 0 || !state.active.load(std::memory_order_relaxed))
    return nullptr;
  OperatorRecord record;
  // The clock first: the profiler's start of the same operator is taken before the operator runs, and the
  // stack walk takes microseconds.
  record.startNs = systemClockNs();
  record.stack = captureStack(1); // without this callback
  record.name = function.name();
  record.threadId = static_cast<long>(syscall(SYS_gettid));
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.operators.size() >= kMaxOperators) {
    ++state.dropped;
    return nullptr;
  }
  state.operators.push_back(std::move(record));
  return std::make_unique<OperatorContext>(state.operators.size() - 1, state.generation.load());
}

void onOperatorEnd(const at::RecordFunction &, at::ObserverContext *context) {
  if (openOperators > 0)
    --openOperators;
  if (!context)
    return;
  const std::int64_t endNs = systemClockNs();
  Recording &state = recording();
  auto *open = static_cast<OperatorContext *>(context);
  std::lock_guard<std::mutex> lock(state.mutex);
  if (open->generation == state.generation.load() && open->index < state.operators.size())
    state.operators[open->index].endNs = endNs;
}

} // namespace

OpStackRecorder::OpStackRecorder() {
  warmUpStackCapture();
  callbackHandle_ = at::addGlobalCallback(
      at::RecordFunctionCallback(onOperatorStart, onOperatorEnd).scopes({at::RecordScope::FUNCTION}));
}

OpStackRecorder::~OpStackRecorder() {
  stop();
  at::removeCallback(callbackHandle_);
}

void OpStackRecorder::start() {
  Recording &state = recording();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.operators.clear();
  state.dropped = 0;
  ++state.generation;
  state.active.store(true);
}

void OpStackRecorder::stop() { recording().active.store(false); }

std::size_t OpStackRecorder::write(const std::string &path, const std::string &sourceRoot) const {
  Recording &state = recording();
  std::vector<OperatorRecord> operators;
  std::size_t dropped = 0;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    operators = state.operators;
    dropped = state.dropped;
  }
  std::vector<StackTrace> stacks;
  stacks.reserve(operators.size());
  for (const OperatorRecord &record : operators)
    stacks.push_back(record.stack);
  const std::vector<std::vector<Frame>> frames = symbolize(stacks);

  std::ofstream out(path);
  if (!out)
    throw std::runtime_error("cannot write the operator stacks to " + path);
  out << "{\"format\": \"torch-sync-op-stacks\", \"version\": 1, \"clock\": \"unix_ns\", \"source_root\": ";
  out << jsonString(sourceRoot);
  out << ", \"dropped_operators\": " << dropped << ",\n \"ops\": [";
  for (std::size_t i = 0; i < operators.size(); ++i) {
    const OperatorRecord &record = operators[i];
    const int user = firstUserFrame(frames[i]);
    out << (i ? ",\n  " : "\n  ") << "{\"name\": ";
    out << jsonString(record.name);
    out << ", \"tid\": " << record.threadId << ", \"start_ns\": " << record.startNs
        << ", \"end_ns\": " << (record.endNs ? record.endNs : record.startNs) << ", \"location\": ";
    out << jsonString(user < 0 ? std::string() : describeLocation(frames[i][user], sourceRoot));
    out << ", \"function\": ";
    out << jsonString(user < 0 ? std::string() : readableFunction(frames[i][user].function));
    out << "}";
  }
  out << "\n]}\n";
  out.close();
  if (!out)
    throw std::runtime_error("cannot write the operator stacks to " + path);
  return operators.size();
}

} // namespace torch_sync::runtime
