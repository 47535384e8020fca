// The guard's report text (torch_sync/guard.h: unallowed, describe, formatSyncs, checkSyncCount). Pure code,
// tested without a GPU (../test/guard_logic_test.cpp).
#include "torch_sync/guard.h"

#include <sstream>

namespace torch_sync {

std::vector<DeviceSync> unallowed(const std::vector<DeviceSync> &syncs) {
  std::vector<DeviceSync> result;
  for (const DeviceSync &sync : syncs)
    if (sync.allowedBecause.empty())
      result.push_back(sync);
  return result;
}

std::string describe(const DeviceSync &sync) {
  std::ostringstream out;
  out << sync.api;
  if (!sync.copyApi.empty() && sync.copyApi != sync.api)
    out << " after a";
  else if (!sync.copyKind.empty())
    out << ", a";
  if (!sync.copyKind.empty()) {
    if (sync.bytes)
      out << " " << sync.bytes << "-byte";
    out << " " << sync.copyKind;
    if (!sync.copyApi.empty() && sync.copyApi != sync.api)
      out << " " << sync.copyApi;
    else
      out << " copy";
    if (!sync.hostMemory.empty())
      out << (sync.copyKind == "HtoD" ? " from " : " into ") << sync.hostMemory << " memory";
  }
  if (sync.mayWait)
    out << " (may wait: CUDA does not say for this direction or memory)";
  if (!sync.atenOperator.empty())
    out << ", in " << sync.atenOperator;
  else if (!sync.libTorchEntry.empty())
    out << ", in " << sync.libTorchEntry;
  if (!sync.location.empty())
    out << ", at " << sync.location;
  if (!sync.function.empty())
    out << " (in " << sync.function << ")";
  return out.str();
}

std::string formatSyncs(const std::vector<DeviceSync> &syncs) {
  std::ostringstream out;
  for (std::size_t i = 0; i < syncs.size(); ++i) {
    out << "  " << i + 1 << ". " << describe(syncs[i]);
    if (!syncs[i].allowedBecause.empty())
      out << " [allowed: " << syncs[i].allowedBecause << "]";
    out << "\n";
  }
  return out.str();
}

SyncCountCheck checkSyncCount(const std::vector<DeviceSync> &syncs, int expected,
                              const std::string &statement, int warmups) {
  std::size_t counted = unallowed(syncs).size();
  SyncCountCheck check;
  check.passed = counted == static_cast<std::size_t>(expected < 0 ? 0 : expected);
  if (check.passed)
    return check;
  auto plural = [](std::size_t n) { return std::to_string(n) + (n == 1 ? " device sync" : " device syncs"); };
  std::ostringstream out;
  out << "Expected: " << (expected == 0 ? std::string("no device sync") : plural(expected)) << " in `"
      << statement << "`";
  if (warmups > 0)
    out << " (guarded run after " << warmups << " warm-up run" << (warmups == 1 ? "" : "s") << ")";
  out << "\n  Actual: " << plural(counted);
  if (counted != syncs.size())
    out << " (and " << syncs.size() - counted << " allowed)";
  out << (syncs.empty() ? "\n" : ":\n") << formatSyncs(syncs);
  check.message = out.str();
  return check;
}

} // namespace torch_sync
