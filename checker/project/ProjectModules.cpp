//===--- ProjectModules.cpp - keys of the project's module facts ---------===//

#include "project/ProjectModules.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"

namespace clang::tidy::torch_sync {

std::string projectModuleKey(const CXXRecordDecl &Module, StringRef Fact) {
  if (!Module.isExternallyVisible() || Module.isLocalClass() ||
      Module.isDependentContext())
    return "";
  return ("class " + Module.getQualifiedNameAsString() + "::" + Fact).str();
}

const CXXMethodDecl *moduleForward(const CXXRecordDecl &Module) {
  const CXXMethodDecl *Found = nullptr;
  for (const Decl *Member : Module.decls()) {
    if (const auto *Template = dyn_cast<FunctionTemplateDecl>(Member)) {
      if (Template->getName() == "forward")
        return nullptr;
      continue;
    }
    const auto *Method = dyn_cast<CXXMethodDecl>(Member);
    if (!Method || !Method->getIdentifier() || Method->getName() != "forward")
      continue;
    if (Found && Found->getCanonicalDecl() != Method->getCanonicalDecl())
      return nullptr;
    Found = Method;
  }
  return Found;
}

} // namespace clang::tidy::torch_sync
