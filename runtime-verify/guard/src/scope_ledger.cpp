// See scope_ledger.h.
#include "scope_ledger.h"

#include <stdexcept>

namespace torch_sync::guard_detail {

std::size_t ScopeLedger::openScope() {
  scopes_.emplace_back();
  return scopes_.size() - 1;
}

std::vector<ScopeLedger::Seen> ScopeLedger::closeScope() {
  if (scopes_.empty())
    return {};
  std::vector<Seen> seen = std::move(scopes_.back());
  scopes_.pop_back();
  // Allowances opened inside the closed scope cover nothing any more; RAII closes them first anyway.
  return seen;
}

void ScopeLedger::openAllowance(std::string reason) {
  if (reason.find_first_not_of(" \t\n") == std::string::npos)
    throw std::invalid_argument("torch_sync::AllowDeviceSyncs needs a reason: say why this sync is intended");
  allowances_.push_back(Allowance{std::move(reason), scopes_.size()});
}

void ScopeLedger::closeAllowance() {
  if (!allowances_.empty())
    allowances_.pop_back();
}

void ScopeLedger::record(std::size_t call) {
  for (std::size_t scope = 0; scope < scopes_.size(); ++scope) {
    Seen seen{call, {}};
    // The innermost allowance that was opened while this scope was open.
    for (auto it = allowances_.rbegin(); it != allowances_.rend(); ++it)
      if (it->scopesWhenOpened > scope) {
        seen.allowedBecause = it->reason;
        break;
      }
    scopes_[scope].push_back(std::move(seen));
  }
}

} // namespace torch_sync::guard_detail
