//===--- TraversalScope.cpp - the parent map over the user's code only ----===//

#include "support/TraversalScope.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/SourceManager.h"
#include <vector>

namespace clang::tidy::torch_sync {

bool limitTraversalScopeToUserCode(ASTContext &Context) {
  TranslationUnitDecl *Unit = Context.getTranslationUnitDecl();
  auto Scope = Context.getTraversalScope();
  if (Scope.size() != 1 || Scope.front() != Unit)
    return false;
  const SourceManager &SM = Context.getSourceManager();
  std::vector<Decl *> UserCode;
  for (Decl *TopLevel : Unit->decls()) {
    SourceLocation Loc = TopLevel->getLocation();
    // A declaration written in a macro belongs where the macro is used.
    if (Loc.isValid() && SM.isInSystemHeader(SM.getExpansionLoc(Loc)))
      continue;
    UserCode.push_back(TopLevel);
  }
  Context.setTraversalScope(UserCode);
  return true;
}

void restoreWholeTraversalScope(ASTContext &Context) {
  Context.setTraversalScope({Context.getTranslationUnitDecl()});
}

} // namespace clang::tidy::torch_sync
