//===--- CallerDevices.cpp - parameters' devices from their callers -------===//

#include "analysis/device/CallerDevices.h"
#include "analysis/device/DeviceQueries.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

bool isCpuRegistrationName(StringRef Name) {
  return Name.starts_with("TORCH_LIBRARY_IMPL_init_") &&
         Name.rtrim("0123456789").ends_with("_CPU_");
}

const FunctionDecl *registeredKernel(const Expr *Arg) {
  const Expr *E = Arg->IgnoreUnlessSpelledInSource()->IgnoreParens();
  if (const auto *Unary = dyn_cast<UnaryOperator>(E);
      Unary && Unary->getOpcode() == UO_AddrOf)
    E = Unary->getSubExpr()->IgnoreUnlessSpelledInSource()->IgnoreParens();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E))
    return dyn_cast<FunctionDecl>(Ref->getDecl());
  if (const auto *Lambda = dyn_cast<LambdaExpr>(E))
    return Lambda->getCallOperator();
  const auto *Pointer = dyn_cast_or_null<ClassTemplateSpecializationDecl>(
      E->getType().getNonReferenceType()->getAsRecordDecl());
  if (!Pointer || !Pointer->getIdentifier() ||
      Pointer->getName() != "CompileTimeFunctionPointer" ||
      Pointer->getTemplateArgs().size() < 2)
    return nullptr;
  const TemplateArgument &Function = Pointer->getTemplateArgs()[1];
  return Function.getKind() == TemplateArgument::Declaration
             ? dyn_cast<FunctionDecl>(Function.getAsDecl())
             : nullptr;
}

namespace {

/// Matches a function that may be private to the main file: not a member,
/// not 'main', with internal linkage or declared in the main file only.
AST_MATCHER(FunctionDecl, mayBeFilePrivate) {
  if (isa<CXXMethodDecl>(Node) || Node.isMain())
    return false;
  if (!Node.isExternallyVisible())
    return true;
  const SourceManager &SM = Finder->getASTContext().getSourceManager();
  return llvm::all_of(Node.redecls(), [&](const FunctionDecl *Redecl) {
    return SM.isInMainFile(SM.getExpansionLoc(Redecl->getLocation()));
  });
}

} // namespace

CallerDevices::CallerDevices(ASTContext &Context, DeviceQueries &Devices)
    : Context(Context), Devices(Devices) {}

CallerDevices::~CallerDevices() = default;

DeviceKind CallerDevices::callSiteDevice(const ParmVarDecl &Param,
                                         unsigned Depth) {
  const auto *Function = dyn_cast<FunctionDecl>(Param.getDeclContext());
  if (!Function)
    return DeviceKind::Unknown;
  const CallSites *Sites = privateCallSites(*Function);
  if (!Sites || Sites->Calls.empty())
    return DeviceKind::Unknown;
  unsigned Index = Param.getFunctionScopeIndex();
  DeviceKind Result = DeviceKind::Unspecified;
  for (const CallExpr *Call : Sites->Calls) {
    if (Index >= Call->getNumArgs())
      return DeviceKind::Unknown;
    DeviceKind Argument = Devices.tensorDevice(Call->getArg(Index), Depth + 1);
    // A real argument is a defined tensor: Unspecified here is a parameter
    // still being analysed (recursion), whose device is not known yet.
    if (Argument == DeviceKind::Unspecified)
      return DeviceKind::Unknown;
    Result = joinAlternatives(Result, Argument);
    if (Result == DeviceKind::Unknown)
      break;
  }
  return Result;
}

void CallerDevices::scanMainFile() {
  if (MainFileScanned)
    return;
  MainFileScanned = true;
  const SourceManager &SM = Context.getSourceManager();
  SmallVector<const DeclContext *, 8> Work{Context.getTranslationUnitDecl()};
  while (!Work.empty()) {
    const DeclContext *Scope = Work.pop_back_val();
    for (const Decl *D : Scope->decls()) {
      if (!SM.isInMainFile(SM.getExpansionLoc(D->getLocation())))
        continue;
      if (isa<NamespaceDecl, LinkageSpecDecl>(D)) {
        Work.push_back(cast<DeclContext>(D));
        continue;
      }
      const auto *Function = dyn_cast<FunctionDecl>(D);
      if (!Function || !Function->doesThisDeclarationHaveABody())
        continue;
      if (Function->isMain())
        MainFileDefinesMain = true;
      if (!Function->getIdentifier() ||
          !isCpuRegistrationName(Function->getName()))
        continue;
      // 'm.impl("op", &kernel)' in TORCH_LIBRARY_IMPL(ns, CPU, m).
      for (const BoundNodes &Nodes :
           match(findAll(cxxMemberCallExpr(
                             callee(cxxMethodDecl(
                                 hasName("impl"),
                                 ofClass(hasName("::torch::Library")))))
                             .bind("impl")),
                 *Function->getBody(), Context)) {
        const auto *Impl = Nodes.getNodeAs<CXXMemberCallExpr>("impl");
        for (unsigned I = 1; I < Impl->getNumArgs(); ++I)
          if (const FunctionDecl *Kernel = registeredKernel(Impl->getArg(I)))
            CpuKernels.insert(Kernel->getCanonicalDecl());
      }
    }
  }
}

bool CallerDevices::isCpuKernel(const FunctionDecl &Function) {
  scanMainFile();
  return !CpuKernels.empty() &&
         CpuKernels.contains(Function.getCanonicalDecl());
}

bool CallerDevices::isFilePrivate(const FunctionDecl &Function) {
  if (isa<CXXMethodDecl>(Function) || Function.isMain() ||
      Function.isDependentContext() || Function.isExternC())
    return false;
  if (!Function.isExternallyVisible())
    return true;
  // A function declared only in the main file, with external linkage, can be
  // called from elsewhere only by a declaration repeated there; in a
  // program's main file or a file of CPU kernels, its helpers are taken to be
  // the file's own.
  scanMainFile();
  if (!MainFileDefinesMain && CpuKernels.empty())
    return false;
  const SourceManager &SM = Context.getSourceManager();
  auto InMainFile = [&](const Decl *D) {
    return SM.isInMainFile(SM.getExpansionLoc(D->getLocation()));
  };
  if (!llvm::all_of(Function.redecls(), InMainFile))
    return false;
  if (const FunctionTemplateDecl *Template = Function.getPrimaryTemplate())
    return llvm::all_of(Template->redecls(), InMainFile);
  return true;
}

const CallerDevices::CallSites *
CallerDevices::privateCallSites(const FunctionDecl &Function) {
  if (!isFilePrivate(Function))
    return nullptr;
  if (!CallIndex) {
    // Every call and other reference to a possibly private function, outside
    // system headers, indexed once per translation unit.
    CallIndex =
        std::make_unique<llvm::DenseMap<const FunctionDecl *, CallSites>>();
    auto Private = functionDecl(mayBeFilePrivate()).bind("function");
    auto Uses = decl(forEachDescendant(
        stmt(anyOf(callExpr(callee(expr(ignoringParenImpCasts(
                                declRefExpr(to(Private)).bind("callee")))))
                       .bind("call"),
                   declRefExpr(to(Private)).bind("ref")))));
    const SourceManager &SM = Context.getSourceManager();
    llvm::SmallPtrSet<const DeclRefExpr *, 16> Callees;
    SmallVector<std::pair<const FunctionDecl *, const DeclRefExpr *>, 16> Refs;
    for (const Decl *D : Context.getTranslationUnitDecl()->decls()) {
      if (SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
        continue;
      for (const BoundNodes &Nodes : match(Uses, *D, Context)) {
        const auto *Target = Nodes.getNodeAs<FunctionDecl>("function");
        if (const auto *Call = Nodes.getNodeAs<CallExpr>("call")) {
          (*CallIndex)[Target->getCanonicalDecl()].Calls.push_back(Call);
          Callees.insert(Nodes.getNodeAs<DeclRefExpr>("callee"));
        } else if (const auto *Ref = Nodes.getNodeAs<DeclRefExpr>("ref")) {
          Refs.emplace_back(Target->getCanonicalDecl(), Ref);
        }
      }
    }
    // A reference other than a direct call's callee takes the address.
    for (const auto &[Target, Ref] : Refs)
      if (!Callees.contains(Ref))
        (*CallIndex)[Target].AddressTaken = true;
  }
  static const CallSites None;
  auto Found = CallIndex->find(Function.getCanonicalDecl());
  if (Found == CallIndex->end())
    return &None;
  return Found->second.AddressTaken ? nullptr : &Found->second;
}

} // namespace clang::tidy::torch_sync
