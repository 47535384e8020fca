//===--- CallArguments.cpp - a call's argument for a named parameter ------===//

#include "support/CallArguments.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"

namespace clang::tidy::torch_sync {

const ParmVarDecl *namedParameter(const FunctionDecl &Callee,
                                  llvm::StringRef Name) {
  for (const ParmVarDecl *Param : Callee.parameters())
    if (Param->getIdentifier() && Param->getName() == Name)
      return Param;
  return nullptr;
}

const Expr *namedArgument(const CallExpr &Call, const FunctionDecl &Callee,
                          llvm::StringRef Name) {
  const ParmVarDecl *Param = namedParameter(Callee, Name);
  if (!Param || Param->getFunctionScopeIndex() >= Call.getNumArgs())
    return nullptr;
  return Call.getArg(Param->getFunctionScopeIndex());
}

} // namespace clang::tidy::torch_sync
