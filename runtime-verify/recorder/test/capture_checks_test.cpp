// capture_checks (../capture_checks.h) without a GPU: the recorder's c10::detail::torchCheckFail, reached by
// a library's failed checks through the dynamic linker (fake_torch.cpp, as LibTorch's libraries reach
// libc10's), records the first failed check of each stream capture under way, none outside captures and none
// after a CUDA call failed the capture, and passes every failure on to libc10's definition (fake_c10.cpp),
// whose exception reaches the caller unchanged. The runtime core's capture counts and recordEvent are test
// doubles.
#include "capture_checks.h"
#include "cupti_calls.h"
#include "sync_recorder.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

void failCheckWithBuiltMessage(const std::string &message);
void failCheckWithLiteral();

namespace {

// What the test doubles below see and say.
int openCaptures = 0;
int begunCaptures = 0;
struct Recorded {
  std::string signal, api, kind, error, capture;
};
std::vector<Recorded> recorded;

void beginCapture() {
  ++begunCaptures;
  ++openCaptures;
}
void endCapture() { --openCaptures; }

// Fails a check with message in the library and catches libc10's exception here; fails the test when it
// does not arrive unchanged.
void failAndCatch(const std::string &message) {
  std::string caught;
  try {
    failCheckWithBuiltMessage(message);
  } catch (const std::runtime_error &error) {
    caught = error.what();
  }
  EXPECT_EQ(caught, message) << "libc10's exception did not reach the caller unchanged";
}

class CaptureChecksTest : public testing::Test {
protected:
  void SetUp() override {
    recorded.clear();
    openCaptures = 0;
  }
};

TEST_F(CaptureChecksTest, LibTorchsFailedChecksReachTheRecorder) {
  EXPECT_STREQ(torch_sync::recorder::captureChecksStatus(), "ok");
}

TEST_F(CaptureChecksTest, NothingIsRecordedOutsideACapture) {
  failAndCatch("outside");
  EXPECT_TRUE(recorded.empty());
}

TEST_F(CaptureChecksTest, AMessageIsCutAtTwoHundredBytesOnACharacterBoundary) {
  beginCapture();
  // 199 ASCII bytes, then a two-byte character across the 200-byte limit.
  failAndCatch(std::string(199, 'x') + "\xC3\xA9 and more");
  endCapture();
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0].error, std::string(199, 'x'));
}

TEST_F(CaptureChecksTest, TheFirstFailedCheckInACaptureIsItsFailure) {
  beginCapture();
  failAndCatch("Expected a pinned tensor\nException raised from copy_");
  failAndCatch("a second check in the same capture");
  endCapture();
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0].signal, "capture_failure");
  EXPECT_EQ(recorded[0].api, "TORCH_CHECK");
  EXPECT_EQ(recorded[0].kind, "exception");
  EXPECT_EQ(recorded[0].error, "Expected a pinned tensor");
  EXPECT_EQ(recorded[0].capture, "cause");
}

TEST_F(CaptureChecksTest, ALiteralMessageIsSeenToo) {
  beginCapture();
  std::string caught;
  try {
    failCheckWithLiteral();
  } catch (const std::runtime_error &error) {
    caught = error.what();
  }
  endCapture();
  EXPECT_EQ(caught.rfind("Cannot copy between CPU and CUDA tensors", 0), 0u) << caught;
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0].error, caught);
}

TEST_F(CaptureChecksTest, EachCaptureFailsOnce) {
  beginCapture();
  failAndCatch("first capture");
  endCapture();
  beginCapture();
  failAndCatch("second capture");
  endCapture();
  ASSERT_EQ(recorded.size(), 2u);
  EXPECT_EQ(recorded[1].error, "second capture");
}

TEST_F(CaptureChecksTest, ACaptureThatACudaCallFailedIsNotRecordedAgain) {
  beginCapture();
  torch_sync::recorder::noteCaptureFailed(); // as onCaptureError does
  failAndCatch("C10_CUDA_CHECK after the failed call");
  endCapture();
  EXPECT_TRUE(recorded.empty());
}

} // namespace

// Test doubles of the runtime core (../../core/cupti_calls.h) and of the recorder (../sync_recorder.h).
namespace torch_sync::runtime {
int capturesUnderway() { return openCaptures; }
int capturesBegun() { return begunCaptures; }
} // namespace torch_sync::runtime

namespace torch_sync::recorder {
void recordEvent(const char *signal, const std::string &api, const char *, const std::string &kind,
                 const std::string &, const std::string &, const std::string &error,
                 const std::string &capture) {
  recorded.push_back({signal, api, kind, error, capture});
}
} // namespace torch_sync::recorder
