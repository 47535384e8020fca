// See scope_ledger.h.
#include "scope_ledger.h"

#include <algorithm>
#include <stdexcept>

namespace torch_sync::guard_detail {

std::size_t ScopeLedger::openScope() {
  scopes_.push_back(Scope{nextId_++, {}});
  return scopes_.back().id;
}

std::vector<ScopeLedger::Seen> ScopeLedger::closeScope(std::size_t id) {
  auto it = std::find_if(scopes_.begin(), scopes_.end(), [&](const Scope &s) { return s.id == id; });
  if (it == scopes_.end())
    return {};
  std::vector<Seen> seen = std::move(it->seen);
  scopes_.erase(it);
  return seen;
}

std::size_t ScopeLedger::openAllowance(std::string reason) {
  if (reason.find_first_not_of(" \t\n") == std::string::npos)
    throw std::invalid_argument("torch_sync::AllowDeviceSyncs needs a reason: say why this sync is intended");
  Allowance allowance{nextId_++, std::move(reason), {}};
  for (const Scope &scope : scopes_)
    allowance.scopes.push_back(scope.id);
  allowances_.push_back(std::move(allowance));
  return allowances_.back().id;
}

void ScopeLedger::closeAllowance(std::size_t id) {
  allowances_.erase(
      std::remove_if(allowances_.begin(), allowances_.end(), [&](const Allowance &a) { return a.id == id; }),
      allowances_.end());
}

void ScopeLedger::record(std::size_t call) {
  for (Scope &scope : scopes_) {
    Seen seen{call, {}};
    for (auto it = allowances_.rbegin(); it != allowances_.rend(); ++it)
      if (std::find(it->scopes.begin(), it->scopes.end(), scope.id) != it->scopes.end()) {
        seen.allowedBecause = it->reason;
        break;
      }
    scope.seen.push_back(std::move(seen));
  }
}

} // namespace torch_sync::guard_detail
