// cupti_counter: counts the CUDA runtime and driver API calls a process makes between two points, for the
// operator census (census.py loads it with ctypes). Unlike the sync recorder it keeps no stacks: the census
// asks only "which CUDA calls did this one operator call make, and how many bytes did they copy".
//
// C API (all return 0 on success):
//   int tsc_start(void)          subscribe to CUPTI's runtime and driver callbacks; non-zero with
//                                tsc_error() set when CUPTI is unavailable (another profiler holds it)
//   void tsc_reset(void)         forget everything counted so far and start counting
//   void tsc_pause(void)         stop counting (the census's own CUDA calls are not counted)
//   int tsc_read(char*, int)     the counts since tsc_reset as JSON:
//                                {"calls": {"cudaStreamSynchronize": 1, ...},
//                                 "copies": [{"api": "cudaMemcpyAsync", "kind": "DtoH", "bytes": 8,
//                                             "host": "pinned"}, ...]}
//                                returns the length needed when the buffer is too small (nothing written)
//   const char *tsc_error(void)  the reason tsc_start failed
// Built on the runtime core's CUPTI subscription (../core/cupti_calls.h), with every runtime and driver API
// enabled: a driver call made inside a runtime call is not counted apart (cudaMemcpy calls cuMemcpy), and
// copies are described (direction, bytes, host memory) as the recorder and the guard describe them. Only the
// thread that called tsc_reset is counted.
#include "cupti_calls.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using torch_sync::runtime::CopyKind;
using torch_sync::runtime::CudaCall;

struct Copy {
  std::string api, kind, host;
  size_t bytes;
};

struct Counts {
  std::mutex mutex;
  std::map<std::string, long> calls;
  std::vector<Copy> copies;
  bool counting = false;
  std::thread::id thread;
  std::string error;
};

Counts &counts() {
  static Counts *c = new Counts; // never destroyed: callbacks may run during exit
  return *c;
}

bool everyApi(std::string_view) { return true; }

void onCall(const CudaCall &call) {
  Counts &c = counts();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (!c.counting || std::this_thread::get_id() != c.thread)
    return;
  ++c.calls[call.api];
  if (call.copy == CopyKind::None)
    return;
  bool hostSide = call.copy == CopyKind::HostToDevice || call.copy == CopyKind::DeviceToHost;
  c.copies.push_back(Copy{call.api, torch_sync::runtime::copyKindName(call.copy),
                          hostSide ? torch_sync::runtime::memoryTypeName(call.hostMemory) : "",
                          static_cast<size_t>(call.bytes)});
}

void appendEscaped(std::string &out, const std::string &s) {
  for (char ch : s) {
    if (ch == '"' || ch == '\\')
      out += '\\';
    out += ch;
  }
}

} // namespace

extern "C" {

int tsc_start(void) {
  std::string error;
  torch_sync::runtime::CudaCallClient client{everyApi, onCall, nullptr};
  // Never destroyed: the census counts until the process ends.
  static auto *subscription = torch_sync::runtime::CuptiSubscription::start(client, error).release();
  if (!subscription) {
    counts().error = error;
    return 1;
  }
  return 0;
}

void tsc_reset(void) {
  Counts &c = counts();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.calls.clear();
  c.copies.clear();
  c.thread = std::this_thread::get_id();
  c.counting = true;
}

void tsc_pause(void) {
  std::lock_guard<std::mutex> lock(counts().mutex);
  counts().counting = false;
}

int tsc_read(char *buffer, int size) {
  Counts &c = counts();
  std::string out = "{\"calls\": {";
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    bool first = true;
    for (const auto &[name, n] : c.calls) {
      out += first ? "\"" : ", \"";
      first = false;
      appendEscaped(out, name);
      out += "\": " + std::to_string(n);
    }
    out += "}, \"copies\": [";
    first = true;
    for (const Copy &copy : c.copies) {
      out += first ? "{" : ", {";
      first = false;
      out += "\"api\": \"";
      appendEscaped(out, copy.api);
      out += "\", \"kind\": \"" + copy.kind + "\", \"bytes\": " + std::to_string(copy.bytes) +
             ", \"host\": \"" + copy.host + "\"}";
    }
    out += "]}";
  }
  if (static_cast<int>(out.size()) + 1 > size)
    return static_cast<int>(out.size()) + 1;
  std::memcpy(buffer, out.c_str(), out.size() + 1);
  return 0;
}

const char *tsc_error(void) { return counts().error.c_str(); }
}
