//===--- DeviceValueFlow.cpp - host values read from the device ------------===//

#include "DeviceValueFlow.h"
#include "SyncFacts.h"
#include "TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral ReadId = "read";
} // namespace

llvm::DenseSet<const Expr *> findShapeReads(const Stmt &Body,
                                            ASTContext &Context) {
  // t.item<int64_t>(), t.item().toLong(): the read itself is the item() call.
  auto Read = cxxMemberCallExpr(callee(tensorMethod({"item"}))).bind(ReadId);
  auto ReadValue = expr(anyOf(
      Read, hasDescendant(Read),
      // A local variable initialized with a read.
      declRefExpr(to(varDecl(hasLocalStorage(),
                             hasInitializer(anyOf(Read, hasDescendant(Read)))))),
      hasDescendant(declRefExpr(to(varDecl(
          hasLocalStorage(), hasInitializer(anyOf(Read, hasDescendant(Read)))))))));
  auto IndexingType = namedDecl(hasAnyName("::at::indexing::Slice",
                                           "::at::indexing::TensorIndex"));
  // Only parameters that take a size, a bound or an index: integers and
  // integer lists ('IntArrayRef', 'SymInt', 'optional<int64_t>'), not a fill
  // value ('full(size, value)') or a tensor ('index_select(dim, index)').
  auto ShapeParameter = parmVarDecl(hasType(qualType(anyOf(
      isInteger(),
      hasUnqualifiedDesugaredType(recordType(hasDeclaration(namedDecl(
          hasAnyName("ArrayRef", "SymInt", "SymIntArrayRef", "optional",
                     "OptionalArrayRef", "initializer_list")))))))));
  auto Consumer = stmt(anyOf(
      cxxConstructExpr(hasDeclaration(cxxConstructorDecl(ofClass(IndexingType))),
                       hasAnyArgument(ReadValue)),
      // Tensor methods whose integer arguments are sizes, bounds or indices.
      cxxMemberCallExpr(
          callee(tensorMethod(apiList(ApiList::ShapeArgumentMethods).vec())),
          forEachArgumentWithParam(ReadValue, ShapeParameter)),
      // ATen and C++-frontend functions whose integer arguments are sizes.
      callExpr(callee(functionDecl(
                   hasAnyName(apiList(ApiList::ShapeArgumentFunctions)))),
               forEachArgumentWithParam(ReadValue, ShapeParameter))));

  llvm::DenseSet<const Expr *> Reads;
  for (const BoundNodes &Nodes : match(findAll(Consumer), Body, Context))
    if (const auto *Call = Nodes.getNodeAs<Expr>(ReadId))
      Reads.insert(Call);
  return Reads;
}

} // namespace clang::tidy::torch_sync
