// GoogleTest tests of LibTorch code: the syncs in test bodies, fixtures and
// the file's own helpers are how the tests check results; the code under
// test keeps its findings.
#include <ATen/core/Tensor.h>
#include <gtest/gtest.h>

// The code under test, with external linkage: reported.
float meanOf(const at::Tensor &t) {
  return t.mean().item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'item' copies a tensor element to the host
}

namespace {
// A file-local helper of the tests.
float firstValue(const at::Tensor &t) { return t.item<float>(); }
// CHECK-MESSAGES-ALL: :[[@LINE-1]]:50: warning: 'item' copies a tensor element to the host
} // namespace

static double secondValue(const at::Tensor &t) { return t.item<double>(); }
// CHECK-MESSAGES-ALL: :[[@LINE-1]]:59: warning: 'item' copies a tensor element to the host

TEST(Mean, OfOnes) {
  at::Tensor t;
  EXPECT_EQ(t.item<float>(), 1.0f);
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:15: warning: 'item' copies a tensor element to the host
  // In a lambda of the test body too.
  auto read = [&] { return t.item<float>(); };
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:30: warning: 'item' copies a tensor element to the host
  EXPECT_EQ(read() + firstValue(t) + secondValue(t), 3.0f);
}

class MeanTest : public ::testing::Test {
protected:
  void SetUp() override { Expected = Input.item<float>(); }
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:44: warning: 'item' copies a tensor element to the host
  at::Tensor Input;
  float Expected = 0;
};

TEST_F(MeanTest, MatchesExpected) {
  EXPECT_FLOAT_EQ(Input.mean().item<float>(), Expected);
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:32: warning: 'item' copies a tensor element to the host
}

template <typename T> class TypedMean : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TypedMean, Types);
TYPED_TEST(TypedMean, Reads) {
  at::Tensor t;
  EXPECT_EQ(t.item<TypeParam>(), TypeParam(1));
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:15: warning: 'item' copies a tensor element to the host
}

// A project's own macro around TEST: the class still derives from ::testing::Test.
#define TORCH_TEST(suite, name) TEST(suite, name)
TORCH_TEST(Mean, Wrapped) {
  at::Tensor t;
  EXPECT_GT(t.item<float>(), 0.0f);
  // CHECK-MESSAGES-ALL: :[[@LINE-1]]:15: warning: 'item' copies a tensor element to the host
}
