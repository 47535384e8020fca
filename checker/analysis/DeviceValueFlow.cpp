//===--- DeviceValueFlow.cpp - host values read from the device -----------===//

#include "analysis/DeviceValueFlow.h"
#include "facts/SyncFacts.h"
#include "libtorch/TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral ReadId = "read";
constexpr llvm::StringLiteral IndexUseId = "index-use";
} // namespace

llvm::DenseMap<const Expr *, ShapeUse> findShapeReads(const Stmt &Body,
                                                      ASTContext &Context) {
  // t.item<int64_t>(), t.item().toLong(): the read itself is the item() call.
  auto Read = cxxMemberCallExpr(callee(tensorMethod({"item"}))).bind(ReadId);
  auto ReadValue = expr(
      anyOf(Read, hasDescendant(Read),
            // A local variable initialized with a read.
            declRefExpr(
                to(varDecl(hasLocalStorage(),
                           hasInitializer(anyOf(Read, hasDescendant(Read)))))),
            hasDescendant(declRefExpr(to(
                varDecl(hasLocalStorage(),
                        hasInitializer(anyOf(Read, hasDescendant(Read)))))))));
  auto IndexingType = namedDecl(
      hasAnyName("::at::indexing::Slice", "::at::indexing::TensorIndex"));
  // Only parameters that take a size, a bound or an index: integers and
  // integer lists ('IntArrayRef', 'SymInt', 'optional<int64_t>'), not a fill
  // value ('full(size, value)') or a tensor ('index_select(dim, index)').
  auto ShapeParameter = parmVarDecl(hasType(qualType(
      anyOf(isInteger(),
            hasUnqualifiedDesugaredType(recordType(hasDeclaration(namedDecl(
                hasAnyName("ArrayRef", "SymInt", "SymIntArrayRef", "optional",
                           "OptionalArrayRef", "initializer_list")))))))));
  // The methods whose integer arguments index or bound the tensor rather
  // than size an output.
  auto IndexingMethod = tensorMethod({"narrow", "slice", "select"});
  auto Consumer = stmt(anyOf(
      cxxConstructExpr(
          hasDeclaration(cxxConstructorDecl(ofClass(IndexingType))),
          hasAnyArgument(ReadValue))
          .bind(IndexUseId),
      cxxMemberCallExpr(callee(IndexingMethod),
                        forEachArgumentWithParam(ReadValue, ShapeParameter))
          .bind(IndexUseId),
      // Tensor methods whose integer arguments are sizes.
      cxxMemberCallExpr(
          callee(tensorMethod(apiList(ApiList::ShapeArgumentMethods).vec())),
          unless(callee(IndexingMethod)),
          forEachArgumentWithParam(ReadValue, ShapeParameter)),
      // ATen and C++-frontend functions whose integer arguments are sizes.
      callExpr(callee(functionDecl(
                   hasAnyName(apiList(ApiList::ShapeArgumentFunctions)))),
               forEachArgumentWithParam(ReadValue, ShapeParameter))));

  llvm::DenseMap<const Expr *, ShapeUse> Reads;
  for (const BoundNodes &Nodes : match(findAll(Consumer), Body, Context))
    if (const auto *Call = Nodes.getNodeAs<Expr>(ReadId)) {
      ShapeUse Use =
          Nodes.getNodeAs<Stmt>(IndexUseId) ? ShapeUse::Index : ShapeUse::Size;
      auto [It, Inserted] = Reads.try_emplace(Call, Use);
      if (!Inserted && Use == ShapeUse::Size)
        It->second = ShapeUse::Size;
    }
  return Reads;
}

} // namespace clang::tidy::torch_sync
