//===--- ImplicitCalls.h - the calls a body makes without writing them ----===//
//
// A function's body calls more than the calls written in it: the constructor
// of each object it makes ('Reader r(x)', 'new T', a temporary, the members
// and bases of a constructor's class), the destructor of each object it ends
// (a variable at the end of its scope, a temporary at the end of its
// full-expression, 'delete p', the members and bases of a destructor's
// class), and a user-defined conversion that an expression applies ('double
// d = reader'). torch-sync-transitive follows them as it follows the written
// calls. The destructors come from clang's CFG (its implicit-destructor
// elements); the constructions and conversions from the AST.
//
// A written call through a 'std::function' whose value is a lambda visible
// in the same function is resolved to that lambda's call operator
// (storedLambda).
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_IMPLICITCALLS_H
#define TORCH_SYNC_IMPLICITCALLS_H

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/SmallVector.h"
#include <string>

namespace clang {
class ASTContext;
class CallExpr;
class CXXMethodDecl;
class Expr;
class FunctionDecl;
class VarDecl;
namespace tidy::torch_sync {

/// One call on the way to a sync: a call written in the body, or one the
/// body makes implicitly.
struct CallSite {
  enum KindType {
    /// A call as written ('f(x)', 'obj(x)', an operator).
    Written,
    /// A user-defined conversion, applied implicitly or by a cast.
    Conversion,
    /// A call through a std::function holding a lambda (storedLambda).
    StoredLambda,
    /// A constructor: of a variable, of 'new T(...)', of a temporary, of a
    /// member or base in a constructor's initializers (written or implicit).
    Construction,
    /// A variable's destructor, at the end of its scope.
    ScopeEndDestruction,
    /// A temporary's destructor, at the end of its full-expression.
    TemporaryDestruction,
    /// The destructor that 'delete p' runs.
    Deletion,
    /// A member's or base's destructor, run by the destructor of its class.
    MemberDestruction,
  };
  KindType Kind = Written;
  /// The expression the call belongs to: the written call, the construction,
  /// the 'delete', the temporary; for a variable's destructor, its
  /// initializer. Its place decides the flag and loop the call runs under.
  /// Null for a member's destructor.
  const Expr *Anchor = nullptr;
  /// The function called.
  const FunctionDecl *Callee = nullptr;
  /// Where the GPU sees the call when that is not the anchor's place: the
  /// closing brace of a variable's scope (where g++ -g puts the destructor
  /// call), the end of a destructor's body.
  SourceLocation Loc;
  /// For ScopeEndDestruction and a variable's Construction: the variable.
  const VarDecl *Variable = nullptr;
  /// Which implicit call it is, for diagnostics ("the destructor of 'b', run
  /// at its scope's end"); empty for a Written call.
  std::string Description;
};

/// The calls \p Function's body makes without writing them (see the file
/// comment), each once, in no particular order. A variable's destructor is
/// one call, however many ways leave its scope.
llvm::SmallVector<CallSite, 8> implicitCalls(const FunctionDecl &Function,
                                             ASTContext &Context);

/// The call operator of the lambda that \p Call calls through a
/// std::function variable: a local variable initialized with the lambda and
/// never assigned in its function. Null for any other call.
const CXXMethodDecl *storedLambda(const CallExpr &Call, ASTContext &Context);

/// Whether \p Function or its class is invalid: in a unit with errors (a
/// missing header leaves members without a type) clang's CFG builder crashes
/// on the implicit destructors of such a class, so no CFG of it is built.
bool isInvalidCode(const FunctionDecl &Function);

/// \p Call as a CallSite: a Conversion for a user-defined conversion's call,
/// a StoredLambda when storedLambda resolves it, else Written; the callee is
/// null when the call has no direct callee.
CallSite writtenCallSite(const CallExpr &Call, ASTContext &Context);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_IMPLICITCALLS_H
