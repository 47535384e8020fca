// Boost.Test tests of LibTorch code (on the stand-in of
// boost/test/unit_test.hpp beside this file).
#include <ATen/core/Tensor.h>
#include <boost/test/unit_test.hpp>

float meanOf(const at::Tensor &t) {
  return t.mean().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'item' copies a tensor element to the host
}

BOOST_AUTO_TEST_CASE(mean_of_ones) {
  at::Tensor t;
  BOOST_TEST(t.item<float>() == 1.0f);
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:16: warning: 'item' copies a tensor element to the host
}

struct Fixture {
  at::Tensor Input;
};

BOOST_FIXTURE_TEST_CASE(fixture_input, Fixture) {
  BOOST_TEST(Input.item<float>() == 1.0f);
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:20: warning: 'item' copies a tensor element to the host
}
