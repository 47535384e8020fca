// doctest (Debian's doctest-dev) tests of LibTorch code.
#include <ATen/core/Tensor.h>
#include <doctest/doctest.h>

float meanOf(const at::Tensor &t) {
  return t.mean().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'item' copies a tensor element to the host
}

TEST_CASE("mean of ones") {
  at::Tensor t;
  CHECK(t.item<float>() == 1.0f);
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:11: warning: 'item' copies a tensor element to the host
  SUBCASE("a subcase") {
    CHECK(t.mean().item<float>() == 1.0f);
    // CHECK-MESSAGES-ALL: :[[@LINE-1]]:20: warning: 'item' copies a tensor element to the host
  }
}

struct Fixture {
  at::Tensor Input;
};

TEST_CASE_FIXTURE(Fixture, "fixture input") {
  CHECK(Input.item<float>() == 1.0f);
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:15: warning: 'item' copies a tensor element to the host
}
