// The built guard library on any machine: with a GPU it must see syncs through CUPTI; without one it must say
// so, and its GoogleTest assertions must skip with that reason rather than pass.
#include "torch_sync/gtest.h"

#include <cuda_runtime_api.h>

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

bool haveGpu() {
  int count = 0;
  bool have = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  (void)cudaGetLastError();
  return have;
}

TEST(GuardStatus, SaysWhatItCanSee) {
  torch_sync::GuardStatus status = torch_sync::guardStatus();
  if (haveGpu()) {
    EXPECT_TRUE(status.seesSyncs) << status.reason;
    EXPECT_EQ(status.backend, "CUPTI") << status.reason;
  } else {
    EXPECT_FALSE(status.seesSyncs);
    EXPECT_EQ(status.backend, "none");
    EXPECT_NE(status.reason.find("no CUDA device"), std::string::npos) << status.reason;
  }
}

TEST(GuardStatus, AssertionsSkipWithTheReasonWhenBlind) {
  torch_sync::testing::SyncExpectation expectation([] {}, 0, "nothing");
  if (haveGpu()) {
    EXPECT_TRUE(expectation.passed()) << expectation.message();
    EXPECT_FALSE(expectation.skipped());
  } else {
    EXPECT_FALSE(expectation.passed());
    EXPECT_TRUE(expectation.skipped());
    EXPECT_NE(expectation.message().find("cannot see device syncs (no CUDA device"), std::string::npos)
        << expectation.message();
  }
}

TEST(GuardStatus, AScopeWithoutAGpuRecordsNothingAndSaysWhy) {
  torch_sync::SyncScope scope;
  EXPECT_TRUE(scope.stop().empty());
  EXPECT_EQ(scope.status().seesSyncs, haveGpu()) << scope.status().reason;
}

TEST(AllowDeviceSyncs, NeedsAReasonInsideAndOutsideAScope) {
  EXPECT_THROW(torch_sync::AllowDeviceSyncs(""), std::invalid_argument);
  EXPECT_NO_THROW(torch_sync::AllowDeviceSyncs("warm-up"));
  torch_sync::SyncScope scope;
  EXPECT_THROW(torch_sync::AllowDeviceSyncs(" "), std::invalid_argument);
  EXPECT_NO_THROW(torch_sync::AllowDeviceSyncs("metric logged once per epoch"));
}

} // namespace
