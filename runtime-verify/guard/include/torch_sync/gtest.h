// GoogleTest assertions on host-device synchronizations, built on torch_sync/guard.h. See docs/guard.md.
//
//   EXPECT_NO_DEVICE_SYNC(statement);      ASSERT_NO_DEVICE_SYNC(statement);
//   EXPECT_DEVICE_SYNCS(statement, n);     ASSERT_DEVICE_SYNCS(statement, n);
//   torch_sync::testing::ScopedNoDeviceSync guard;   // the rest of the enclosing block must not sync
//
// Each macro runs statement torch_sync::warmupRuns() times unguarded (default 1: first-call set-up such as
// the CUDA context, library handles and the first pinned allocation), then once guarded on the calling
// thread, and fails with one line per sync (the CUDA call, the copy and its bytes, the ATen operator, the
// user's source line). When the guard cannot see syncs (no GPU, CUPTI held by another tool and no fallback),
// the test is skipped with the reason: never passed silently (EXPECT_* record the skip and go on, ASSERT_*
// return). Inside an enclosing SyncScope or ScopedNoDeviceSync, the warm-up runs count against that scope
// too.
#pragma once

#include "torch_sync/guard.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace torch_sync::testing {

// The reason a test is skipped when the guard is blind (status.seesSyncs false).
inline std::string blindGuardMessage(const GuardStatus &status) {
  return "torch-sync guard: cannot see device syncs (" + status.reason + ")";
}

// The outcome of one guarded statement.
class SyncExpectation {
public:
  // Runs statement warmups times, then once guarded, and checks the unallowed syncs against expected.
  SyncExpectation(const std::function<void()> &statement, int expected, const char *text,
                  int warmups = warmupRuns()) {
    for (int i = 0; i < warmups; ++i)
      statement();
    std::vector<DeviceSync> syncs;
    GuardStatus status;
    {
      SyncScope scope;
      status = scope.status();
      statement();
      syncs = scope.stop();
    }
    if (!status.seesSyncs) {
      skipped_ = true;
      message_ = blindGuardMessage(status) + "; `" + text + "` not checked";
      return;
    }
    SyncCountCheck check = checkSyncCount(syncs, expected, text, warmups);
    passed_ = check.passed;
    message_ = check.message;
    if (status.backend != "CUPTI" && !passed_)
      message_ += "(seen through " + status.backend + ": " + status.reason + ")\n";
  }
  bool passed() const { return passed_; }
  bool skipped() const { return skipped_; }
  const std::string &message() const { return message_; }

private:
  bool passed_ = false, skipped_ = false;
  std::string message_;
};

// The enclosing block must make no unallowed device sync from here to its end on this thread; a failure
// is reported at the line where the guard was made. No warm-up: run the code once before, or use the macros.
class ScopedNoDeviceSync {
public:
  explicit ScopedNoDeviceSync(const char *file = __builtin_FILE(), int line = __builtin_LINE())
      : file_(file), line_(line) {}
  ~ScopedNoDeviceSync() {
    const std::vector<DeviceSync> &syncs = scope_.stop();
    if (!scope_.status().seesSyncs) {
      GTEST_MESSAGE_AT_(file_, line_, blindGuardMessage(scope_.status()).c_str(),
                        ::testing::TestPartResult::kSkip);
      return;
    }
    SyncCountCheck check = checkSyncCount(syncs, 0, "the guarded scope", 0);
    if (!check.passed)
      ADD_FAILURE_AT(file_, line_) << check.message;
  }
  ScopedNoDeviceSync(const ScopedNoDeviceSync &) = delete;
  ScopedNoDeviceSync &operator=(const ScopedNoDeviceSync &) = delete;

private:
  const char *file_;
  int line_;
  SyncScope scope_;
};

} // namespace torch_sync::testing

// skip: how a blind guard skips: the EXPECT forms record the skip and go on (usable in any function), the
// ASSERT forms return from the test body as GTEST_SKIP does.
#define TORCH_SYNC_GTEST_SYNCS_(expected, fail, skip, ...)                                                   \
  GTEST_AMBIGUOUS_ELSE_BLOCKER_                                                                              \
  if (const ::torch_sync::testing::SyncExpectation torch_sync_expectation_{                                  \
          [&]() { __VA_ARGS__; }, static_cast<int>(expected), #__VA_ARGS__};                                 \
      torch_sync_expectation_.passed())                                                                      \
    ;                                                                                                        \
  else if (torch_sync_expectation_.skipped())                                                                \
    skip(torch_sync_expectation_.message().c_str());                                                         \
  else                                                                                                       \
    fail() << torch_sync_expectation_.message()

#define TORCH_SYNC_GTEST_RECORD_SKIP_(message) GTEST_MESSAGE_(message, ::testing::TestPartResult::kSkip)
#define TORCH_SYNC_GTEST_RETURN_SKIP_(message) GTEST_SKIP() << (message)

// The statement may hold commas (structured bindings, template arguments, lambda captures).
#define EXPECT_NO_DEVICE_SYNC(...)                                                                           \
  TORCH_SYNC_GTEST_SYNCS_(0, ADD_FAILURE, TORCH_SYNC_GTEST_RECORD_SKIP_, __VA_ARGS__)
#define ASSERT_NO_DEVICE_SYNC(...)                                                                           \
  TORCH_SYNC_GTEST_SYNCS_(0, FAIL, TORCH_SYNC_GTEST_RETURN_SKIP_, __VA_ARGS__)
// Here the statement is the first argument: one with a comma outside parentheses needs parentheses around it
// (an expression), or SyncExpectation.
#define EXPECT_DEVICE_SYNCS(statement, n)                                                                    \
  TORCH_SYNC_GTEST_SYNCS_(n, ADD_FAILURE, TORCH_SYNC_GTEST_RECORD_SKIP_, statement)
#define ASSERT_DEVICE_SYNCS(statement, n)                                                                    \
  TORCH_SYNC_GTEST_SYNCS_(n, FAIL, TORCH_SYNC_GTEST_RETURN_SKIP_, statement)
