//===--- UnitTestCode.h - the bodies of unit tests and their helpers ------===//
//
// A unit test calls item(), compares tensors on the host and copies results
// to the CPU on purpose: its syncs are how it checks the code under test, and
// they cost nothing that matters. A linter that reports them gets switched
// off for test code, and then misses the code under test that a test file
// includes. So the checks leave alone (IgnoreUnitTests):
//   - the test bodies of GoogleTest (TEST, TEST_F, TEST_P, TYPED_TEST,
//     TYPED_TEST_P, and any macro of the project that expands to them: the
//     'TestBody' of a class derived from ::testing::Test) and every other
//     member of such a class (fixtures' SetUp and TearDown, their helpers);
//   - the bodies that the test macros of Catch2, doctest and Boost.Test
//     expand to (TEST_CASE, SCENARIO, TEST_CASE_METHOD, TEST_CASE_FIXTURE,
//     BOOST_AUTO_TEST_CASE, ... : UnitTestMacros), SECTION and SUBCASE
//     blocks included, as they lie inside them;
//   - the helpers of a file that defines a test body: functions with internal
//     linkage (static, or in an anonymous namespace) defined in the main
//     file, which only that file's tests can call; and when the main file is
//     all tests (in a test folder: one of its three nearest folders is named
//     test, tests, testing, unittest or unittests; or named test_x, x_test,
//     x_tests, xTest, xTests),
//     also the functions it declares first (no header declares them) and the
//     functions of the headers of a test folder. A library file that also
//     holds tests keeps the findings of its code.
// Lambdas are judged by the function they are written in.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_UNITTESTCODE_H
#define TORCH_SYNC_UNITTESTCODE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include <optional>

namespace clang {
class ASTContext;
class Expr;
class FunctionDecl;
class SourceLocation;
class SourceManager;
} // namespace clang

namespace clang::tidy::torch_sync {

/// The test macros of Catch2 (2.x and 3.x, with and without the CATCH_
/// prefix), doctest (with and without the DOCTEST_ prefix) and Boost.Test
/// whose expansion declares the function that holds a test's body, as the
/// UnitTestMacros option's default (semicolon-separated).
extern const char DefaultUnitTestMacros[];

/// Finds the unit-test code of one translation unit; keep one per unit.
class UnitTestCode {
public:
  /// \p Macros: the names of the test macros (UnitTestMacros).
  explicit UnitTestCode(llvm::ArrayRef<llvm::StringRef> Macros);

  /// Whether \p E lies in unit-test code (see the file comment): the function
  /// it is written in (out of lambdas) is a test body, a member of a
  /// GoogleTest test class, or a file-local helper of a file that defines a
  /// test body.
  bool contains(const Expr &E, ASTContext &Context);

  /// Whether \p Function is a test body or a member of a GoogleTest test
  /// class (a class derived from ::testing::Test).
  bool isTestFunction(const FunctionDecl &Function, ASTContext &Context) const;

private:
  /// Whether the main file of \p Context defines a test body (computed once).
  bool mainFileDefinesTests(ASTContext &Context);
  /// Whether \p Loc is in a file of a test folder (see the file comment).
  static bool inTestFolder(SourceLocation Loc, const SourceManager &SM);
  /// Whether \p Loc is in a file of a test folder or with a test's name.
  static bool isTestFile(SourceLocation Loc, const SourceManager &SM);

  llvm::StringSet<> Macros;
  std::optional<bool> MainFileHasTests;
};

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_UNITTESTCODE_H
