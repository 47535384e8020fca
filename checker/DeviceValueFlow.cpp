//===--- DeviceValueFlow.cpp - host values read from the device ------------===//

#include "DeviceValueFlow.h"
#include "TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral ReadId = "read";

/// Tensor methods whose integer arguments are sizes, bounds or indices.
constexpr llvm::StringLiteral ShapeMethods[] = {
    "narrow", "slice",   "select",  "view",      "reshape",  "expand",
    "repeat", "resize_", "topk",    "kthvalue",  "new_zeros", "new_empty",
    "new_ones", "new_full", "split", "unfold",   "narrow_copy", "index_select"};

/// ATen and C++-frontend functions whose integer arguments are sizes.
constexpr llvm::StringLiteral ShapeFunctions[] = {
    "::at::zeros",   "::at::ones",    "::at::empty",   "::at::full",
    "::at::rand",    "::at::randn",   "::at::randint", "::at::arange",
    "::at::linspace", "::at::eye",    "::at::randperm", "::at::narrow",
    "::torch::zeros", "::torch::ones", "::torch::empty", "::torch::full",
    "::torch::rand",  "::torch::randn", "::torch::randint", "::torch::arange",
    "::torch::linspace", "::torch::eye", "::torch::randperm"};
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
      cxxMemberCallExpr(
          callee(tensorMethod(std::vector<StringRef>(std::begin(ShapeMethods),
                                                     std::end(ShapeMethods)))),
          forEachArgumentWithParam(ReadValue, ShapeParameter)),
      callExpr(callee(functionDecl(hasAnyName(std::vector<StringRef>(
                   std::begin(ShapeFunctions), std::end(ShapeFunctions))))),
               forEachArgumentWithParam(ReadValue, ShapeParameter))));

  llvm::DenseSet<const Expr *> Reads;
  for (const BoundNodes &Nodes : match(findAll(Consumer), Body, Context))
    if (const auto *Call = Nodes.getNodeAs<Expr>(ReadId))
      Reads.insert(Call);
  return Reads;
}

} // namespace clang::tidy::torch_sync
