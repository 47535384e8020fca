// The guard's bookkeeping of one thread: its open scopes, its allowances, and which observed call each scope
// saw and under which allowance. Pure code, tested without a GPU (../test/guard_logic_test.cpp).
//
// Scopes and allowances are known by the id they were given when opened, not by their position, so they may
// close in any order. An allowance covers the scopes that were open when it was made: a scope opened inside
// an allowance is strict again, so a helper that allows its own logging sync does not hide syncs from a test
// that guards a part of it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace torch_sync::guard_detail {

class ScopeLedger {
public:
  // One call as a scope saw it: its index in the thread's call log, and the allowance's reason ("" if none).
  struct Seen {
    std::size_t call = 0;
    std::string allowedBecause;
  };

  // Opens a scope; returns its id.
  std::size_t openScope();
  // Closes the scope with that id and returns what it saw, in order; nothing for an unknown id.
  std::vector<Seen> closeScope(std::size_t id);
  std::size_t openScopes() const { return scopes_.size(); }

  // Opens an allowance and returns its id; throws std::invalid_argument when reason is empty or only blanks
  // (a reason is required, so that every intended sync says why).
  std::size_t openAllowance(std::string reason);
  void closeAllowance(std::size_t id);

  // Records call (an index in the thread's call log) in every open scope, with the reason of the newest open
  // allowance that covers that scope.
  void record(std::size_t call);

private:
  struct Scope {
    std::size_t id = 0;
    std::vector<Seen> seen;
  };
  struct Allowance {
    std::size_t id = 0;
    std::string reason;
    std::vector<std::size_t> scopes; // the ids of the scopes open when it was made
  };
  std::size_t nextId_ = 1;
  std::vector<Scope> scopes_;
  std::vector<Allowance> allowances_;
};

} // namespace torch_sync::guard_detail
