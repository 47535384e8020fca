// A test as a user writes it, against the installed package.
#include <torch_sync/gtest.h>

#include <gtest/gtest.h>

TEST(PackageUser, NothingSyncs) { EXPECT_NO_DEVICE_SYNC((void)0); }
