// See sync_counting.h.
#include "sync_counting.h"

namespace torch_sync::guard_detail {

std::vector<SyncGroup> groupSyncs(const std::vector<CallRecord> &calls) {
  std::vector<SyncGroup> groups;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const CallRecord &call = calls[i];
    if (call.copy && i + 1 < calls.size()) {
      const CallRecord &next = calls[i + 1];
      bool waitsForIt = runtime::isDeviceWideSynchronize(next.api) ||
                        (runtime::isSynchronize(next.api) &&
                         next.api.find("Stream") != std::string_view::npos && next.stream == call.stream);
      if (waitsForIt && next.callerKey == call.callerKey) {
        groups.push_back(SyncGroup{i + 1, static_cast<long>(i), false});
        ++i;
        continue;
      }
    }
    if (call.blocks == runtime::Blocking::No)
      continue;
    groups.push_back(SyncGroup{i, -1, call.blocks == runtime::Blocking::Unknown});
  }
  return groups;
}

} // namespace torch_sync::guard_detail
