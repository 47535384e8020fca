// The guard's bookkeeping of one thread: its open scopes, its allowances, and which observed call each scope
// saw and under which allowance. Pure code, tested without a GPU (../test/guard_logic_test.cpp).
//
// An allowance covers the scopes that were open when it was made: a scope opened inside an allowance is strict
// again, so a helper that allows its own logging sync does not hide syncs from a test that guards a part of it.
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

  // Opens a scope; returns its depth (0: outermost). Scopes close in the reverse order (RAII).
  std::size_t openScope();
  // Closes the innermost scope and returns what it saw, in order.
  std::vector<Seen> closeScope();
  std::size_t openScopes() const { return scopes_.size(); }

  // Opens an allowance; throws std::invalid_argument when reason is empty or only blanks (a reason is
  // required, so that every intended sync says why). Allowances close in the reverse order.
  void openAllowance(std::string reason);
  void closeAllowance();

  // Records call (an index in the thread's call log) in every open scope, with the innermost allowance that
  // covers that scope.
  void record(std::size_t call);

private:
  struct Allowance {
    std::string reason;
    std::size_t scopesWhenOpened = 0;
  };
  std::vector<std::vector<Seen>> scopes_;
  std::vector<Allowance> allowances_;
};

} // namespace torch_sync::guard_detail
