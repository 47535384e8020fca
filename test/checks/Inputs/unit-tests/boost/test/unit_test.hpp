// Stand-in for Boost.Test's boost/test/unit_test.hpp: the test-case macros
// expand as Boost 1.74's boost/test/unit_test_suite.hpp expands them (a
// struct derived from the fixture, whose test_method() the body after the
// macro defines, and a registration), without the registry behind it.
#pragma once

namespace boost::unit_test {
struct auto_test_unit_registrar {
  explicit auto_test_unit_registrar(void (*)()) {}
};
struct nil_t {};
} // namespace boost::unit_test

#define BOOST_FIXTURE_TEST_CASE(test_name, F)                                  \
  struct test_name : public F {                                                \
    void test_method();                                                        \
  };                                                                           \
  static void test_name##_invoker() {                                          \
    test_name t;                                                               \
    t.test_method();                                                           \
  }                                                                            \
  static boost::unit_test::auto_test_unit_registrar test_name##_registrar(    \
      &test_name##_invoker);                                                   \
  void test_name::test_method()

#define BOOST_AUTO_TEST_CASE(test_name)                                        \
  BOOST_FIXTURE_TEST_CASE(test_name, boost::unit_test::nil_t)

#define BOOST_TEST(expr) static_cast<void>(expr)
