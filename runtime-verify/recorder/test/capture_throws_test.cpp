// capture_throws (../capture_throws.h) without a GPU: the recorder's __cxa_throw, reached by the throws of a
// shared library (throwing_library.cpp) and of this executable, records the first exception of each stream
// capture under way, none outside captures and none after a CUDA call failed the capture, and passes every
// throw on so that it is caught as usual. The runtime core's capture counts and recordEvent are test doubles.
#include "capture_throws.h"
#include "cupti_calls.h"
#include "sync_recorder.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

void throwFromLibrary(const std::string &message);
void throwIntFromLibrary();

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

// Throws message from the shared library and catches it here; fails the test when it is not caught.
void throwAndCatch(const std::string &message) {
  bool caught = false;
  try {
    throwFromLibrary(message);
  } catch (const std::runtime_error &error) {
    caught = error.what() == message;
  }
  EXPECT_TRUE(caught) << "the exception did not reach its catch clause unchanged";
}

class CaptureThrowsTest : public testing::Test {
protected:
  void SetUp() override {
    recorded.clear();
    openCaptures = 0;
  }
};

TEST_F(CaptureThrowsTest, TheProgramsThrowsReachTheRecorder) {
  EXPECT_STREQ(torch_sync::recorder::captureThrowsStatus(), "ok");
}

TEST_F(CaptureThrowsTest, NothingIsRecordedOutsideACapture) {
  throwAndCatch("outside");
  EXPECT_TRUE(recorded.empty());
}

TEST_F(CaptureThrowsTest, TheFirstThrowInACaptureIsItsFailure) {
  beginCapture();
  throwAndCatch("Cannot copy between CPU and CUDA tensors during CUDA graph capture\nException raised from");
  throwAndCatch("a second exception in the same capture");
  endCapture();
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0].signal, "capture_failure");
  EXPECT_EQ(recorded[0].api, "std::runtime_error");
  EXPECT_EQ(recorded[0].kind, "exception");
  EXPECT_EQ(recorded[0].error, "Cannot copy between CPU and CUDA tensors during CUDA graph capture");
  EXPECT_EQ(recorded[0].capture, "cause");
}

TEST_F(CaptureThrowsTest, EachCaptureFailsOnce) {
  beginCapture();
  throwAndCatch("first capture");
  endCapture();
  beginCapture();
  throwAndCatch("second capture");
  endCapture();
  ASSERT_EQ(recorded.size(), 2u);
  EXPECT_EQ(recorded[1].error, "second capture");
}

TEST_F(CaptureThrowsTest, ACaptureThatACudaCallFailedIsNotRecordedAgain) {
  beginCapture();
  torch_sync::recorder::noteCaptureFailed(); // as onCaptureError does
  throwAndCatch("C10_CUDA_CHECK after the failed call");
  endCapture();
  EXPECT_TRUE(recorded.empty());
}

TEST_F(CaptureThrowsTest, ExceptionsThatAreNoStdExceptionHaveNoMessage) {
  beginCapture();
  bool caught = false;
  try {
    throwIntFromLibrary();
  } catch (int value) {
    caught = value == 7;
  }
  endCapture();
  EXPECT_TRUE(caught);
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0].api, "int");
  EXPECT_EQ(recorded[0].error, "");
}

TEST_F(CaptureThrowsTest, TheExecutablesOwnThrowsAreSeenToo) {
  beginCapture();
  bool caught = false;
  try {
    throw std::logic_error("thrown here");
  } catch (const std::logic_error &) {
    caught = true;
  }
  endCapture();
  EXPECT_TRUE(caught);
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0].api, "std::logic_error");
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
