// A file that is all tests (in a tests/ folder, named test_*): its helpers that
// no header declares, with external linkage too, and the headers of its folder
// are test code; the code under test, declared in a library header, is not.
#include <ATen/core/Tensor.h>
#include <gtest/gtest.h>
#include <iostream>

#include "../library.h"
#include "buffer_env.h"

float libraryRead(const at::Tensor &t) { return t.item<float>(); }
// (reported: see unit-test-code.test)

void printAll(const at::Tensor &t) { std::cout << t.item<float>() << "\n"; }

TEST(Buffer, Reads) {
  at::Tensor t;
  printAll(t);
  EXPECT_GT(envReward(t) + libraryRead(t), 0.0f);
}
