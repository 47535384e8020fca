//===--- TraversalScopeTest.cpp - the parent map over the user's code -----===//
//
// limitTraversalScopeToUserCode on a snippet that includes a system header
// with function bodies (Inputs/library-inline.h): the scope keeps the main
// file's top-level declarations only, the parents of the user's statements
// are those of the whole-unit map, and the header's statements have none.
//
//===----------------------------------------------------------------------===//

#include "support/TraversalScope.h"
#include "support/EnclosingContext.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"
#include <memory>
#include <string>
#include <vector>

using namespace clang;
using namespace clang::ast_matchers;
using namespace clang::tidy::torch_sync;

namespace {

constexpr const char *Code = R"cpp(
#include "library-inline.h"
namespace user {
int caller(int y) {
  if (y > 0)
    return lib::twice(y);
  return 0;
}
} // namespace user
int global = user::caller(1);
)cpp";

std::unique_ptr<ASTUnit> parse() {
  std::vector<std::string> Args = {"-std=c++17", "-fsyntax-only", "-isystem",
                                   TORCH_SYNC_UNIT_INPUTS};
  return tooling::buildASTFromCodeWithArgs(Code, Args, "input.cc");
}

/// The only node of type \p NodeT that \p M binds as "node" in the unit.
template <typename NodeT, typename MatcherT>
const NodeT *only(ASTContext &Context, const MatcherT &M) {
  auto Found = match(translationUnitDecl(forEachDescendant(M.bind("node"))),
                     *Context.getTranslationUnitDecl(), Context);
  EXPECT_EQ(Found.size(), 1u);
  return Found.empty() ? nullptr : Found[0].template getNodeAs<NodeT>("node");
}

/// The kinds of the ancestors of \p S, innermost first, up to the unit.
std::vector<std::string> ancestorKinds(const Stmt &S, ASTContext &Context) {
  std::vector<std::string> Kinds;
  forEachAncestor(DynTypedNode::create(S), Context,
                  [&](const DynTypedNode &Parent, const DynTypedNode &) {
                    Kinds.push_back(Parent.getNodeKind().asStringRef().str());
                    return false;
                  });
  return Kinds;
}

} // namespace

TEST(TraversalScope, KeepsOnlyTheUserCodesTopLevelDeclarations) {
  std::unique_ptr<ASTUnit> Unit = parse();
  ASSERT_TRUE(Unit);
  ASTContext &Context = Unit->getASTContext();
  ASSERT_TRUE(limitTraversalScopeToUserCode(Context));
  const SourceManager &SM = Context.getSourceManager();
  unsigned MainFileDecls = 0;
  for (Decl *D : Context.getTraversalScope()) {
    ASSERT_NE(D, Context.getTranslationUnitDecl());
    SourceLocation Loc = D->getLocation();
    EXPECT_FALSE(Loc.isValid() && SM.isInSystemHeader(Loc));
    if (Loc.isValid() && SM.isInMainFile(Loc))
      ++MainFileDecls;
  }
  // 'namespace user' and 'global'.
  EXPECT_EQ(MainFileDecls, 2u);
  // A scope limited already (as clangd limits it) is left as it is.
  std::vector<Decl *> Limited = Context.getTraversalScope();
  EXPECT_FALSE(limitTraversalScopeToUserCode(Context));
  std::vector<Decl *> After = Context.getTraversalScope();
  EXPECT_EQ(After, Limited);
  restoreWholeTraversalScope(Context);
  ASSERT_EQ(Context.getTraversalScope().size(), 1u);
  EXPECT_EQ(Context.getTraversalScope().front(),
            Context.getTranslationUnitDecl());
}

TEST(TraversalScope, UserParentsAreTheWholeUnitsAndLibraryNodesHaveNone) {
  std::unique_ptr<ASTUnit> Unit = parse();
  ASSERT_TRUE(Unit);
  ASTContext &Context = Unit->getASTContext();
  const auto *Call =
      only<CallExpr>(Context, callExpr(callee(functionDecl(hasName("twice")))));
  const auto *LibraryAdd =
      only<BinaryOperator>(Context, binaryOperator(hasOperatorName("+")));
  ASSERT_TRUE(Call && LibraryAdd);
  std::vector<std::string> Whole = ancestorKinds(*Call, Context);
  EXPECT_FALSE(ancestorKinds(*LibraryAdd, Context).empty());

  ASSERT_TRUE(limitTraversalScopeToUserCode(Context));
  EXPECT_EQ(ancestorKinds(*Call, Context), Whole);
  EXPECT_EQ(Whole.back(), "TranslationUnitDecl");
  // The library's function is outside the map: its statements have no parent.
  EXPECT_TRUE(ancestorKinds(*LibraryAdd, Context).empty());
}
