//===--- CcclNamespaces.cpp - Thrust and CUB however they are namespaced --===//

#include "support/CcclNamespaces.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclBase.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::torch_sync {

namespace {

/// Whether \p Namespace is named \p Name and is not an inline namespace.
bool isNamed(const DeclContext *Context, StringRef Name) {
  const auto *Namespace = dyn_cast<NamespaceDecl>(Context);
  return Namespace && !Namespace->isInline() && Namespace->getIdentifier() &&
         Namespace->getName() == Name;
}

/// Whether every context around \p Namespace, up to the translation unit, is
/// a namespace: a wrapper, not a class or a function.
bool isWrappedOnlyInNamespaces(const NamespaceDecl &Namespace) {
  for (const DeclContext *Context = Namespace.getParent(); Context;
       Context = Context->getParent())
    if (!Context->isTranslationUnit() && !isa<NamespaceDecl>(Context) &&
        !isa<LinkageSpecDecl>(Context))
      return false;
  return true;
}

} // namespace

const NamespaceDecl *ccclNamespaceOf(const Decl &D) {
  const NamespaceDecl *Found = nullptr;
  for (const DeclContext *Context = D.getDeclContext(); Context;
       Context = Context->getParent())
    if (isNamed(Context, "thrust") || isNamed(Context, "cub"))
      Found = cast<NamespaceDecl>(Context);
  if (!Found || !isWrappedOnlyInNamespaces(*Found))
    return nullptr;
  if (Found->getParent()->getRedeclContext()->isTranslationUnit())
    return Found;
  // Wrapped: only CCCL's own headers open it.
  const SourceManager &SM = D.getASTContext().getSourceManager();
  SourceLocation Where = D.getLocation();
  return Where.isValid() && SM.isInSystemHeader(Where) ? Found : nullptr;
}

bool isInLibcudacxxStd(const Decl &D) {
  for (const DeclContext *Context = D.getDeclContext(); Context;
       Context = Context->getParent())
    if (isNamed(Context, "std") &&
        isNamed(Context->getParent()->getRedeclContext(), "cuda") &&
        Context->getParent()
            ->getRedeclContext()
            ->getParent()
            ->getRedeclContext()
            ->isTranslationUnit())
      return true;
  return false;
}

std::string unwrappedQualifiedName(const NamedDecl &D) {
  std::string Qualified = D.getQualifiedNameAsString();
  const NamespaceDecl *Namespace = ccclNamespaceOf(D);
  if (!Namespace)
    return Qualified;
  const auto *Wrapper = dyn_cast<NamedDecl>(Namespace->getParent());
  if (!Wrapper)
    return Qualified; // top-level: nothing to strip
  std::string Prefix = Wrapper->getQualifiedNameAsString() + "::";
  if (StringRef(Qualified).starts_with(Prefix))
    Qualified.erase(0, Prefix.size());
  return Qualified;
}

} // namespace clang::tidy::torch_sync
