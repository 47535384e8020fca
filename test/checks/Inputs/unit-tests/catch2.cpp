// Catch2 (2.x, Debian's catch2) tests of LibTorch code.
#include <ATen/core/Tensor.h>
#include <catch2/catch.hpp>

float meanOf(const at::Tensor &t) {
  return t.mean().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'item' copies a tensor element to the host
}

static float firstValue(const at::Tensor &t) { return t.item<float>(); }
// CHECK-MESSAGES-ALL: :[[@LINE-1]]:57: warning: 'item' copies a tensor element to the host

TEST_CASE("mean of ones", "[mean]") {
  at::Tensor t;
  REQUIRE(t.item<float>() == firstValue(t));
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:13: warning: 'item' copies a tensor element to the host
  SECTION("in a section") {
    CHECK(t.mean().item<float>() == 1.0f);
    // CHECK-MESSAGES-ALL: :[[@LINE-1]]:20: warning: 'item' copies a tensor element to the host
  }
}

struct Fixture {
  at::Tensor Input;
};

TEST_CASE_METHOD(Fixture, "fixture input", "[mean]") {
  CHECK(Input.item<float>() == 1.0f);
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:15: warning: 'item' copies a tensor element to the host
}

SCENARIO("a scenario") {
  at::Tensor t;
  CHECK(t.item<int>() == 1);
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:11: warning: 'item' copies a tensor element to the host
}

// A project's own test macro: a test only once UnitTestMacros names it (the
// MACROS run); else a function like any other (the UNNAMED prefix).
#define GPU_TEST(name) void name##_gpu_test()
GPU_TEST(reads) {
  at::Tensor t;
  CHECK(t.item<float>() == 1.0f);
  // CHECK-MESSAGES-UNNAMED: :[[@LINE-1]]:11: warning: 'item' copies a tensor element to the host
}
