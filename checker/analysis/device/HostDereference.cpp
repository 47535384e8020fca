//===--- HostDereference.cpp ----------------------------------------------===//
//
// Tensors whose data the host reads or writes.

#include "analysis/device/HostDereference.h"
#include "libtorch/DeviceTypes.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"

namespace clang::tidy::torch_sync {

using namespace ast_matchers;

namespace {

constexpr llvm::StringLiteral TensorId = "torch-sync-host-tensor";
constexpr llvm::StringLiteral PointerId = "torch-sync-host-pointer";
constexpr llvm::StringLiteral AskedId = "torch-sync-device-asked";

/// A function or lambda that runs on the device: what it dereferences is
/// device memory, whatever the host does.
AST_MATCHER(FunctionDecl, isDeviceCode) {
  return Node.hasAttr<CUDADeviceAttr>() || Node.hasAttr<CUDAGlobalAttr>();
}

/// A variable of tensor type (or a reference to one).
AST_MATCHER(VarDecl, isTensorVariable) { return isTensorType(Node.getType()); }

/// A tensor variable (its elements are what is dereferenced), bound.
ast_matchers::internal::Matcher<Expr> tensorVariable() {
  return ignoringParenImpCasts(
      declRefExpr(to(varDecl(isTensorVariable()).bind(TensorId))));
}

/// 't.data_ptr<T>()' and its like, on a tensor variable: a pointer to its
/// elements, or an accessor of them.
ast_matchers::internal::Matcher<Expr> elementsOf() {
  return ignoringParenImpCasts(cxxMemberCallExpr(
      on(tensorVariable()),
      callee(cxxMethodDecl(hasAnyName("data_ptr", "data", "mutable_data_ptr",
                                      "const_data_ptr", "accessor")))));
}

/// A subscript or a dereference of \p Pointer: an element read or written.
ast_matchers::internal::Matcher<Stmt>
dereferenceOf(const ast_matchers::internal::Matcher<Expr> &Pointer) {
  return stmt(
      anyOf(arraySubscriptExpr(hasBase(Pointer)),
            unaryOperator(hasOperatorName("*"), hasUnaryOperand(Pointer)),
            // 'a[i]' of an accessor.
            cxxOperatorCallExpr(hasOverloadedOperatorName("[]"),
                                hasArgument(0, Pointer))));
}

} // namespace

const HostDereferences::Found &
HostDereferences::find(const FunctionDecl &Function) {
  auto Cached = Cache.find(&Function);
  if (Cached != Cache.end())
    return Cached->second;
  Found &Out = Cache[&Function];
  const Stmt *Body = Function.getBody();
  if (!Body || Function.hasAttr<CUDADeviceAttr>() ||
      Function.hasAttr<CUDAGlobalAttr>())
    return Out;
  // Nothing inside a lambda or a local class's member that runs on the device.
  auto OnHost = unless(hasAncestor(functionDecl(isDeviceCode())));
  // '*p' or 'p[i]' of a local pointer or accessor initialized from the
  // elements ('p++' on the way still points into them).
  auto Pointer = varDecl(hasLocalStorage(), unless(hasType(referenceType())),
                         hasInitializer(elementsOf()))
                     .bind(PointerId);
  for (const BoundNodes &Nodes :
       match(findAll(stmt(anyOf(dereferenceOf(elementsOf()),
                                dereferenceOf(ignoringParenImpCasts(
                                    declRefExpr(to(Pointer))))),
                          OnHost)),
             *Body, Context))
    if (const auto *Tensor = Nodes.getNodeAs<VarDecl>(TensorId))
      Out.Dereferenced.insert(Tensor->getCanonicalDecl());
  if (Out.Dereferenced.empty())
    return Out;
  // A question about the device lets the dereference sit in a branch for CPU
  // tensors only: no evidence then.
  for (const BoundNodes &Nodes :
       match(findAll(cxxMemberCallExpr(
                         on(tensorVariable()),
                         callee(cxxMethodDecl(hasAnyName(
                             "is_cuda", "is_cpu", "is_hip", "is_xpu", "is_mps",
                             "is_meta", "is_privateuseone", "device",
                             "get_device", "options", "type", "is_pinned"))))
                         .bind(AskedId)),
             *Body, Context))
    if (const auto *Tensor = Nodes.getNodeAs<VarDecl>(TensorId))
      Out.DeviceAsked.insert(Tensor->getCanonicalDecl());
  return Out;
}

bool HostDereferences::dereferencesOnHost(const VarDecl &Var,
                                          const FunctionDecl &Function) {
  const Found &F = find(Function);
  const VarDecl *Canonical = Var.getCanonicalDecl();
  return F.Dereferenced.contains(Canonical) &&
         !F.DeviceAsked.contains(Canonical);
}

} // namespace clang::tidy::torch_sync
