//===--- DeviceWrites.h - what may give a tensor variable another value ---===//
//
// The writes of a variable that the device inference looks for in its
// function: assignments (built-in and operator=), and the escapes through
// which unseen code may replace the tensor and with it the device (a
// non-const reference bound to it, its address, an argument for a non-const
// reference parameter, 'set_', 'set_data', 'swap'). LibTorch's parameters
// that never replace their argument (ATen's out= outputs, the forwarding
// references of ModuleHolder::operator() and Function<T>::apply, the
// TensorOptions constructors: LibTorchApi.h) are not escapes. From these:
// whether a variable is never written, and its single value.
//
// clang's ExprMutationAnalyzer is not used: it counts every non-const
// reference argument and non-const method call as a mutation, which would
// take the out= outputs and in-place ops (const methods of at::Tensor, which
// keep the device) the wrong way.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_DEVICEWRITES_H
#define TORCH_SYNC_DEVICEWRITES_H

#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace clang {
class ASTContext;
class CallExpr;
class Expr;
class FieldDecl;
class Stmt;
class VarDecl;
namespace tidy::torch_sync {

/// A matcher, for match() on a function body, of the places where the body
/// may give the tensor that \p Target names (a variable, a module's member) a
/// value other than the one it has: assignments (the expression bound as
/// "assignment", its value as "assigned"; for 'std::tie(a, b) = v', the tie
/// also as "tie", and the target gets one element of 'v'), and the escapes
/// that let unseen code change it (bound as "escape").
ast_matchers::internal::Matcher<Stmt>
writesTo(const ast_matchers::internal::Matcher<Expr> &Target);

/// A matcher of a reference to the variable \p Var.
ast_matchers::internal::BindableMatcher<Stmt> refersTo(const VarDecl &Var);

/// writesTo(refersTo(Var)).
ast_matchers::internal::Matcher<Stmt> writesToVariable(const VarDecl &Var);

/// The position of \p Var among the arguments of the 'std::tie' call \p Tie;
/// std::nullopt when it is not one of them.
std::optional<unsigned> tiedElement(const CallExpr &Tie, const VarDecl &Var);

/// Whether \p Arg, an argument for a module's constructor or an options
/// argument, may hand a tensor or a module over: its type may carry a device
/// (mayCarryDevice), or a call inside it takes such an argument
/// ('EmbeddingOptions(10, 3)._weight(w)'). 'Linear(w.size(0), 1)' does not.
bool mayHandOverDevice(const Expr &Arg, ASTContext &Context);

/// The writes of local variables, per variable, cached; lives as long as the
/// ASTContext.
class DeviceWrites {
public:
  explicit DeviceWrites(ASTContext &Context) : Context(Context) {}

  /// Whether \p Var is never assigned, nor passed where it may be replaced,
  /// in its function (writesToVariable finds nothing); false for a variable
  /// outside a function body.
  bool isNeverWritten(const VarDecl &Var);

  /// The initializer of local variable \p Var when nothing else in its
  /// function assigns it or lets it change (isNeverWritten); null otherwise,
  /// and for parameters, references and globals.
  const Expr *singleValue(const VarDecl &Var);

  /// The writes of the local variable \p Var, in the form that
  /// ReachingWrites::reaching takes.
  struct Writes {
    /// Its DeclStmt (none for a parameter) and the assignments to it.
    llvm::SmallVector<const Stmt *, 4> Statements;
    /// The value each statement gives (the initializer, the right-hand
    /// side); null for a declaration without an initializer.
    llvm::DenseMap<const Stmt *, const Expr *> Values;
    /// For a 'std::tie(...) = v' among them, the element of 'v' it gives.
    llvm::DenseMap<const Stmt *, unsigned> Elements;
  };
  /// The writes of \p Var in \p Body (its function's body); std::nullopt
  /// when an escape lets code that is not seen write it, or the declaration
  /// of a variable other than a parameter is not found.
  std::optional<Writes> writesOf(const VarDecl &Var, const Stmt &Body);

  /// The values that the private tensor member \p Field is given: its
  /// default member initializer, its constructor initializers and the
  /// assignments to it in the bodies of its class's members. std::nullopt
  /// when code that is not seen may write it: the class has friends or is a
  /// template, a member is not defined in this translation unit, returns a
  /// non-const reference or pointer, or lets the member escape.
  std::optional<llvm::SmallVector<const Expr *, 4>>
  privateMemberValues(const FieldDecl &Field);

private:
  ASTContext &Context;
  llvm::DenseMap<const VarDecl *, bool> NeverWrittenCache;
};

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_DEVICEWRITES_H
