#include <gtest/gtest.h>
TEST(Dummy, x) {}
