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
// A driver call made inside a runtime call is not counted apart (cudaMemcpy calls cuMemcpy). Only the thread
// that called tsc_reset is counted.
#include <cupti.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

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

thread_local int runtimeDepth = 0;
thread_local bool inCounter = false;

const char *kindName(int kind) {
  switch (kind) {
  case cudaMemcpyHostToHost: return "HtoH";
  case cudaMemcpyHostToDevice: return "HtoD";
  case cudaMemcpyDeviceToHost: return "DtoH";
  case cudaMemcpyDeviceToDevice: return "DtoD";
  default: return "default";
  }
}

// "pageable", "pinned", "device", "managed" or "" (unknown), without disturbing the program's last error.
std::string memoryOf(const void *ptr) {
  inCounter = true;
  std::string result;
  if (cudaPeekAtLastError() == cudaSuccess) {
    cudaPointerAttributes a{};
    if (cudaPointerGetAttributes(&a, ptr) == cudaSuccess) {
      switch (a.type) {
      case cudaMemoryTypeUnregistered: result = "pageable"; break;
      case cudaMemoryTypeHost: result = "pinned"; break;
      case cudaMemoryTypeDevice: result = "device"; break;
      case cudaMemoryTypeManaged: result = "managed"; break;
      }
    } else {
      (void)cudaGetLastError();
    }
  }
  inCounter = false;
  return result;
}

void recordRuntimeCopy(const char *api, const void *dst, const void *src, size_t bytes, int kind) {
  Copy c{api, kindName(kind), "", bytes};
  std::string d = memoryOf(dst), s = memoryOf(src);
  auto onHost = [](const std::string &m) { return m == "pageable" || m == "pinned"; };
  if (kind == cudaMemcpyDefault && !d.empty() && !s.empty())
    c.kind = std::string(onHost(s) ? "H" : "D") + "to" + (onHost(d) ? "H" : "D");
  c.host = c.kind == "HtoD" ? s : c.kind == "DtoH" ? d : "";
  std::lock_guard<std::mutex> lock(counts().mutex);
  counts().copies.push_back(c);
}

void CUPTIAPI onCallback(void *, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data) {
  if (inCounter)
    return;
  const auto *info = static_cast<const CUpti_CallbackData *>(data);
  Counts &c = counts();
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    if (info->callbackSite == CUPTI_API_EXIT) {
      --runtimeDepth;
      return;
    }
    ++runtimeDepth;
    if (runtimeDepth > 1)
      return;
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    if (runtimeDepth > 0 || info->callbackSite != CUPTI_API_ENTER)
      return;
  } else {
    return;
  }
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    if (!c.counting || std::this_thread::get_id() != c.thread)
      return;
    ++c.calls[info->functionName];
  }
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API)
    return;
  switch (cbid) {
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000: {
    const auto *p = static_cast<const cudaMemcpy_v3020_params *>(info->functionParams);
    recordRuntimeCopy(info->functionName, p->dst, p->src, p->count, p->kind);
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000: {
    const auto *p = static_cast<const cudaMemcpyAsync_v3020_params *>(info->functionParams);
    recordRuntimeCopy(info->functionName, p->dst, p->src, p->count, p->kind);
    break;
  }
  default:
    break;
  }
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
  CUpti_SubscriberHandle subscriber;
  CUptiResult r = cuptiSubscribe(&subscriber, onCallback, nullptr);
  if (r != CUPTI_SUCCESS) {
    const char *msg = nullptr;
    cuptiGetResultString(r, &msg);
    counts().error = std::string("cuptiSubscribe failed: ") + (msg ? msg : "unknown error") +
                     (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? " (another profiler holds CUPTI)" : "");
    return 1;
  }
  if (cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API) != CUPTI_SUCCESS ||
      cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS) {
    counts().error = "cuptiEnableDomain failed";
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
