//===--- ProjectFactsCheck.cpp - torch-sync-project-facts -----------------===//

#include "checks/ProjectFactsCheck.h"
#include "analysis/ProjectModuleDevices.h"
#include "analysis/device/DeviceInference.h"
#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "libtorch/LibTorchApi.h"
#include "project/ProjectFacts.h"
#include "project/ProjectModules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <vector>

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {

constexpr llvm::StringLiteral UnitId = "torch-sync-facts-unit";
constexpr llvm::StringLiteral FactsCallId = "torch-sync-facts-call";
constexpr llvm::StringLiteral CalleeId = "torch-sync-facts-callee";
constexpr llvm::StringLiteral RefId = "torch-sync-facts-ref";
constexpr llvm::StringLiteral ReferencedId = "torch-sync-facts-referenced";
constexpr llvm::StringLiteral RegistrationId = "torch-sync-facts-registration";
constexpr llvm::StringLiteral RegistrarId = "torch-sync-facts-registrar";
constexpr llvm::StringLiteral ReturnValueId = "torch-sync-facts-return-value";
constexpr llvm::StringLiteral ReturningId = "torch-sync-facts-returning";
constexpr llvm::StringLiteral ModuleMemberId = "torch-sync-facts-module-member";

/// The dispatch key of a TORCH_LIBRARY_IMPL(ns, KEY, m) block, from the name
/// of the function it defines, 'TORCH_LIBRARY_IMPL_init_<ns>_<KEY>_<uid>'
/// (torch/library.h, _TORCH_LIBRARY_IMPL; dispatch key names have no '_');
/// empty for any other function.
StringRef registrationBlockKey(const FunctionDecl &Registrar) {
  if (!Registrar.getIdentifier())
    return "";
  StringRef Name = Registrar.getName();
  if (!Name.consume_front("TORCH_LIBRARY_IMPL_init_"))
    return "";
  Name = Name.rtrim("0123456789");
  if (!Name.consume_back("_"))
    return "";
  return Name.rsplit('_').second;
}

/// The name of the dispatch key or device type that \p E names
/// ('c10::DispatchKey::CPU', 'c10::kCUDA', 'at::DeviceType::CPU'); empty
/// when it names none.
StringRef dispatchKeyName(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 4; ++Depth) {
    const auto *Ref =
        dyn_cast<DeclRefExpr>(E->IgnoreUnlessSpelledInSource()->IgnoreParens());
    if (!Ref)
      return "";
    if (const auto *Enumerator = dyn_cast<EnumConstantDecl>(Ref->getDecl())) {
      const auto *Enum = dyn_cast<EnumDecl>(Enumerator->getDeclContext());
      return Enum && Enum->getIdentifier() &&
                     (Enum->getName() == "DispatchKey" ||
                      Enum->getName() == "DeviceType")
                 ? Enumerator->getName()
                 : "";
    }
    // 'c10::kCPU': a constexpr DeviceType constant (c10/core/DeviceType.h).
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    E = Var && Var->isConstexpr() ? Var->getInit() : nullptr;
  }
  return "";
}

/// The call 'torch::dispatch(key, kernel)' that \p E is, or null.
const CallExpr *dispatchCall(const Expr *E) {
  const auto *Call =
      dyn_cast<CallExpr>(E->IgnoreUnlessSpelledInSource()->IgnoreParens());
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  return Callee && Callee->getIdentifier() && Callee->getName() == "dispatch" &&
                 Call->getNumArgs() == 2 && isInNamespace(Callee, {"torch"})
             ? Call
             : nullptr;
}

/// Whether another parameter of \p Function may replace the tensor that the
/// reference parameter \p Param refers to: a non-const lvalue reference to
/// something that carries a device. The caller's argument then need not keep
/// its device (DeviceInference::variableDevice draws the same line).
bool mayBeAliasedAndWritten(const ParmVarDecl &Param,
                            const FunctionDecl &Function) {
  if (!Param.getType()->isReferenceType())
    return false;
  return llvm::any_of(Function.parameters(), [&](const ParmVarDecl *Other) {
    QualType T = Other->getType();
    return Other != &Param && T->isLValueReferenceType() &&
           !T.getNonReferenceType().isConstQualified() && mayCarryDevice(T);
  });
}

/// What the facts record for the tensor \p E: "CPU" or "CUDA" when the
/// translation unit shows it, {"function": key, "parameter": k} when it
/// provably shares the device of parameter k of a project function (only k,
/// {"parameter": k}, when \p Own is that function), else "Unknown".
llvm::json::Value deviceTerm(const Expr &E, const FunctionDecl *Own,
                             DeviceInference &Devices, ASTContext &Context) {
  DeviceKind Device = Devices.tensorDevice(&E);
  if (Device == DeviceKind::CPU)
    return "CPU";
  if (Device == DeviceKind::CUDA)
    return "CUDA";
  const auto *Param = dyn_cast_or_null<ParmVarDecl>(Devices.deviceOrigin(&E));
  const auto *Function =
      Param ? dyn_cast<FunctionDecl>(Param->getDeclContext()) : nullptr;
  if (!Function || mayBeAliasedAndWritten(*Param, *Function))
    return "Unknown";
  if (Own)
    return Function == Own ? llvm::json::Value(llvm::json::Object{
                                 {"parameter", Param->getFunctionScopeIndex()}})
                           : llvm::json::Value("Unknown");
  std::string Key = projectFunctionKey(*Function, Context);
  if (Key.empty())
    return "Unknown";
  return llvm::json::Object{{"function", std::move(Key)},
                            {"parameter", Param->getFunctionScopeIndex()}};
}

/// "file:line:col" of \p Loc's expansion.
std::string siteName(SourceLocation Loc, const SourceManager &SM) {
  PresumedLoc Presumed = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
  if (Presumed.isInvalid())
    return "";
  return absoluteSourcePath(Presumed.getFilename(), SM.getFileManager()) + ":" +
         std::to_string(Presumed.getLine()) + ":" +
         std::to_string(Presumed.getColumn());
}

} // namespace

ProjectFactsCheck::ProjectFactsCheck(StringRef Name, ClangTidyContext *Context)
    : SyncCheckBase(Name, Context),
      OutputDirectory(Options.get("OutputDirectory", "")) {}

void ProjectFactsCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  SyncCheckBase::storeOptions(Opts);
  Options.store(Opts, "OutputDirectory", OutputDirectory);
}

void ProjectFactsCheck::onStartOfTranslationUnit() {
  SyncCheckBase::onStartOfTranslationUnit();
  Context = nullptr;
  Calls.clear();
  CallsSeen.clear();
  Returns = llvm::json::Object();
  Hypothesis.reset();
  HypothesisContext = nullptr;
  Callees.clear();
  Registered.clear();
  References.clear();
}

void ProjectFactsCheck::registerSyncMatchers(MatchFinder *Finder) {
  // The translation unit, matched once, so that a fragment is written even
  // where nothing else matches.
  Finder->addMatcher(translationUnitDecl().bind(UnitId), this);
  // Members are left out by projectFunctionKey; leaving them out here keeps
  // the matchers cheap. Nothing inside a system header is project code.
  auto Free = functionDecl(unless(cxxMethodDecl()));
  Finder->addMatcher(
      callExpr(unless(isExpansionInSystemHeader()), callee(Free.bind(CalleeId)))
          .bind(FactsCallId),
      this);
  Finder->addMatcher(declRefExpr(unless(isExpansionInSystemHeader()),
                                 to(Free.bind(ReferencedId)))
                         .bind(RefId),
                     this);
  Finder->addMatcher(
      cxxMemberCallExpr(
          unless(isExpansionInSystemHeader()),
          callee(cxxMethodDecl(hasAnyName("impl", "def"),
                               ofClass(hasName("::torch::Library")))),
          hasAncestor(functionDecl().bind(RegistrarId)))
          .bind(RegistrationId),
      this);
  // The constructors and forward of the project's modules, the 'get' of its
  // datasets (ProjectModules.h).
  Finder->addMatcher(
      cxxMethodDecl(isDefinition(), unless(isExpansionInSystemHeader()),
                    unless(isImplicit()),
                    anyOf(cxxConstructorDecl(), hasAnyName("forward", "get")))
          .bind(ModuleMemberId),
      this);
  Finder->addMatcher(
      returnStmt(unless(isExpansionInSystemHeader()),
                 hasReturnValue(expr().bind(ReturnValueId)),
                 // A return inside a lambda is the lambda's: a member.
                 forFunction(Free.bind(ReturningId))),
      this);
}

void ProjectFactsCheck::recordModuleMember(const CXXMethodDecl &Method,
                                           ASTContext &Context) {
  const CXXRecordDecl &Module = *Method.getParent();
  if (isInLibraryHeader(Method.getLocation(), Context.getSourceManager()))
    return;
  std::string Key;
  llvm::json::Value Term = "Unknown";
  if (isProjectDatasetClass(Module)) {
    if (!Method.getIdentifier() || Method.getName() != "get")
      return;
    Key = projectModuleKey(Module, DatasetGetFact);
    if (returnsCpuExamples(Method, devices(Context), Context))
      Term = "CPU";
  } else if (!isProjectModule(Module)) {
    return;
  } else if (const auto *Constructor = dyn_cast<CXXConstructorDecl>(&Method)) {
    if (Constructor->isCopyOrMoveConstructor())
      return; // a copy of a module that is already somewhere
    Key = projectModuleKey(Module, ModuleConstructionFact);
    if (constructsOnCpu(*Constructor, devices(Context)))
      Term = "CPU";
  } else {
    const CXXMethodDecl *Forward = moduleForward(Module);
    if (!Forward || Forward->getCanonicalDecl() != Method.getCanonicalDecl())
      return;
    Key = projectModuleKey(Module, ModuleForwardFact);
    if (!Hypothesis || HypothesisContext != &Context) {
      Hypothesis = std::make_unique<DeviceInference>(
          Context, false, nullptr, /*AssumeModuleStateOnCpu=*/true);
      HypothesisContext = &Context;
    }
    // CPU when every return is on the CPU, given CPU inputs and state.
    bool Cpu = isTensorType(Method.getReturnType()) && Method.getBody();
    unsigned Returns = 0;
    if (Cpu)
      for (const Expr *Value : returnValues(Method, Context)) {
        ++Returns;
        Cpu =
            Cpu && Value && Hypothesis->tensorDevice(Value) == DeviceKind::CPU;
      }
    if (Cpu && Returns > 0)
      Term = "CPU";
  }
  if (Key.empty())
    return;
  llvm::json::Value &Terms = this->Returns[Key];
  if (Terms.kind() != llvm::json::Value::Array)
    Terms = llvm::json::Array();
  llvm::json::Array &List = *Terms.getAsArray();
  if (llvm::find(List, Term) == List.end())
    List.push_back(std::move(Term));
}

void ProjectFactsCheck::checkSync(const MatchFinder::MatchResult &Result) {
  Context = Result.Context;
  const SourceManager &SM = *Result.SourceManager;
  const auto &Nodes = Result.Nodes;
  if (Nodes.getNodeAs<TranslationUnitDecl>(UnitId))
    return;
  if (const auto *Member = Nodes.getNodeAs<CXXMethodDecl>(ModuleMemberId)) {
    recordModuleMember(*Member, *Result.Context);
    return;
  }
  if (const auto *Call = Nodes.getNodeAs<CallExpr>(FactsCallId)) {
    const auto *Callee = Nodes.getNodeAs<FunctionDecl>(CalleeId);
    if (!isInLibraryHeader(Call->getBeginLoc(), SM))
      recordCall(*Call, *Callee, *Result.Context);
    return;
  }
  if (const auto *Ref = Nodes.getNodeAs<DeclRefExpr>(RefId)) {
    if (!isInLibraryHeader(Ref->getBeginLoc(), SM))
      References.push_back({Ref, Nodes.getNodeAs<FunctionDecl>(ReferencedId)});
    return;
  }
  if (const auto *Registration =
          Nodes.getNodeAs<CXXMemberCallExpr>(RegistrationId)) {
    if (!isInLibraryHeader(Registration->getBeginLoc(), SM))
      recordRegistration(*Registration,
                         *Nodes.getNodeAs<FunctionDecl>(RegistrarId),
                         *Result.Context);
    return;
  }
  if (const auto *Value = Nodes.getNodeAs<Expr>(ReturnValueId)) {
    if (!isInLibraryHeader(Value->getBeginLoc(), SM))
      recordReturn(*Value, *Nodes.getNodeAs<FunctionDecl>(ReturningId),
                   *Result.Context);
  }
}

void ProjectFactsCheck::addCall(std::string Callee, StringRef Via,
                                SourceLocation Site,
                                llvm::json::Object Arguments,
                                ASTContext &Context) {
  if (Arguments.empty())
    return;
  llvm::json::Value Record =
      llvm::json::Object{{"callee", std::move(Callee)},
                         {"via", Via},
                         {"site", siteName(Site, Context.getSourceManager())},
                         {"arguments", std::move(Arguments)}};
  // A call in a template is seen once per instantiation.
  std::string Text;
  llvm::raw_string_ostream(Text) << Record;
  if (CallsSeen.insert(Text).second)
    Calls.push_back(std::move(Record));
}

void ProjectFactsCheck::recordCall(const CallExpr &Call,
                                   const FunctionDecl &Callee,
                                   ASTContext &Context) {
  if (const auto *Ref =
          dyn_cast<DeclRefExpr>(Call.getCallee()->IgnoreParenImpCasts()))
    Callees.insert(Ref);
  if (isInLibraryHeader(Callee.getCanonicalDecl()->getLocation(),
                        Context.getSourceManager()))
    return;
  std::string Key = projectFunctionKey(Callee, Context);
  if (Key.empty())
    return;
  llvm::json::Object Arguments;
  for (const ParmVarDecl *Param : Callee.parameters()) {
    if (!isTensorType(Param->getType()))
      continue;
    unsigned Index = Param->getFunctionScopeIndex();
    Arguments[std::to_string(Index)] =
        Index < Call.getNumArgs() ? deviceTerm(*Call.getArg(Index), nullptr,
                                               devices(Context), Context)
                                  : llvm::json::Value("Unknown");
  }
  addCall(std::move(Key), "call", Call.getBeginLoc(), std::move(Arguments),
          Context);
}

void ProjectFactsCheck::recordRegistration(
    const CXXMemberCallExpr &Registration, const FunctionDecl &Registrar,
    ASTContext &Context) {
  // 'm.impl(name, kernel)' in TORCH_LIBRARY_IMPL(ns, KEY, m) registers for
  // KEY; 'm.impl(name, key, kernel)' and 'torch::dispatch(key, kernel)' name
  // the key themselves; 'm.def(schema, kernel)' registers for every key.
  const CXXMethodDecl *Method = Registration.getMethodDecl();
  StringRef Key =
      Method->getName() == "impl" ? registrationBlockKey(Registrar) : "";
  for (unsigned I = 1; I < Registration.getNumArgs(); ++I) {
    const Expr *Kernel = Registration.getArg(I);
    StringRef KernelKey = Key;
    if (const CallExpr *Dispatch = dispatchCall(Kernel)) {
      KernelKey = dispatchKeyName(Dispatch->getArg(0));
      Kernel = Dispatch->getArg(1);
    } else if (StringRef Named = dispatchKeyName(Kernel); !Named.empty()) {
      Key = Named;
      continue;
    }
    const FunctionDecl *Function = registeredKernel(Kernel);
    if (!Function || (KernelKey != "CPU" && KernelKey != "CUDA"))
      continue; // its address escapes (References)
    std::string FunctionKey = projectFunctionKey(*Function, Context);
    if (FunctionKey.empty())
      continue;
    // The dispatcher calls a CPU kernel only when no argument is on a device
    // of a higher dispatch key, CUDA among them (c10/core/DispatchKeySet.h);
    // a CUDA kernel when at least one argument is on CUDA: only a sole
    // argument that can carry a device is then known to be there.
    unsigned Carriers =
        llvm::count_if(Function->parameters(), [](const ParmVarDecl *Param) {
          return mayCarryDevice(Param->getType());
        });
    llvm::json::Object Arguments;
    for (const ParmVarDecl *Param : Function->parameters())
      if (isTensorType(Param->getType()))
        Arguments[std::to_string(Param->getFunctionScopeIndex())] =
            KernelKey == "CPU" ? "CPU"
            : Carriers == 1    ? "CUDA"
                               : "Unknown";
    addCall(std::move(FunctionKey),
            KernelKey == "CPU" ? "cpu-kernel" : "cuda-kernel",
            Registration.getBeginLoc(), std::move(Arguments), Context);
    // The names of the kernel in the argument ('&f', 'TORCH_FN(f)') are this
    // registration, not an escape.
    for (const BoundNodes &Nodes :
         match(findAll(declRefExpr().bind(RefId)), *Kernel, Context))
      Registered.insert(Nodes.getNodeAs<DeclRefExpr>(RefId));
  }
}

void ProjectFactsCheck::recordReturn(const Expr &Value,
                                     const FunctionDecl &Function,
                                     ASTContext &Context) {
  if (!isTensorType(Function.getReturnType()) ||
      isInLibraryHeader(Function.getLocation(), Context.getSourceManager()))
    return;
  std::string Key = projectFunctionKey(Function, Context);
  if (Key.empty())
    return;
  llvm::json::Value Term =
      deviceTerm(Value, &Function, devices(Context), Context);
  llvm::json::Value &Terms = Returns[Key];
  if (Terms.kind() != llvm::json::Value::Array)
    Terms = llvm::json::Array();
  llvm::json::Array &List = *Terms.getAsArray();
  if (llvm::find(List, Term) == List.end())
    List.push_back(std::move(Term));
}

void ProjectFactsCheck::onEndOfTranslationUnit() {
  if (Context)
    writeUnitFacts();
  SyncCheckBase::onEndOfTranslationUnit();
}

void ProjectFactsCheck::writeUnitFacts() {
  // A reference that is neither a call's callee nor a registration for the
  // CPU or CUDA key lets the function be called from anywhere: pybind11's
  // 'm.def("f", &f)', TORCH_LIBRARY's 'm.def', std::function, a pointer.
  llvm::StringSet<> Escaped;
  for (const Reference &Use : References) {
    if (Callees.contains(Use.Ref) || Registered.contains(Use.Ref) ||
        isInLibraryHeader(Use.Function->getCanonicalDecl()->getLocation(),
                          Context->getSourceManager()))
      continue;
    std::string Key = projectFunctionKey(*Use.Function, *Context);
    if (Key.empty() || !Escaped.insert(Key).second)
      continue;
    llvm::json::Object Arguments;
    for (const ParmVarDecl *Param : Use.Function->parameters())
      if (isTensorType(Param->getType()))
        Arguments[std::to_string(Param->getFunctionScopeIndex())] = "Unknown";
    addCall(std::move(Key), "address", Use.Ref->getBeginLoc(),
            std::move(Arguments), *Context);
  }
  const SourceManager &SM = Context->getSourceManager();
  OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
  if (Main)
    write(fragment(*Context),
          absoluteSourcePath(Main->getName(), SM.getFileManager()));
}

llvm::json::Value ProjectFactsCheck::fragment(ASTContext &Context) const {
  const SourceManager &SM = Context.getSourceManager();
  // The project's own files that the translation unit read: neither system
  // nor library headers. A change to any of them makes the facts stale.
  llvm::json::Object Sources;
  // Each file entry of the unit, those parsed here and those loaded from a
  // precompiled header or preamble, once: a file entry starts at its offset.
  // (SourceManager::translateFile would scan every entry once per file, which
  // with LibTorch's thousands of headers costs more than the analysis.)
  auto Visit = [&](const SrcMgr::SLocEntry &Entry) {
    if (!Entry.isFile())
      return;
    SourceLocation Start =
        SourceLocation::getFromRawEncoding(Entry.getOffset());
    if (Start.isInvalid() || isInLibraryHeader(Start, SM))
      return;
    FileID File = SM.getFileID(Start);
    OptionalFileEntryRef FileEntry = SM.getFileEntryRefForID(File);
    if (!FileEntry)
      return; // the predefines and command-line buffers
    std::string Path =
        absoluteSourcePath(FileEntry->getName(), SM.getFileManager());
    if (Sources.find(Path) != Sources.end())
      return;
    std::optional<StringRef> Data = SM.getBufferDataOrNone(File);
    llvm::sys::fs::file_status Status;
    if (!Data || llvm::sys::fs::status(Path, Status))
      return;
    Sources[Path] = llvm::json::Object{
        {"size", static_cast<int64_t>(Status.getSize())},
        {"mtime_ns",
         static_cast<int64_t>(
             std::chrono::duration_cast<std::chrono::nanoseconds>(
                 Status.getLastModificationTime().time_since_epoch())
                 .count())},
        {"md5", md5Hex(*Data)}};
  };
  for (unsigned I = 0, N = SM.local_sloc_entry_size(); I < N; ++I)
    Visit(SM.getLocalSLocEntry(I));
  for (unsigned I = 0, N = SM.loaded_sloc_entry_size(); I < N; ++I) {
    bool Invalid = false;
    const SrcMgr::SLocEntry &Entry = SM.getLoadedSLocEntry(I, &Invalid);
    if (Invalid || !Entry.isFile())
      continue;
    // The precompiled header's own main file (a prefix header), which the
    // reader places at the unit's start, is not one of the unit's sources;
    // the files it includes are.
    SourceLocation Includer = Entry.getFile().getIncludeLoc();
    if (Includer.isValid() && SM.isLoadedSourceLocation(Includer))
      Visit(Entry);
  }
  OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
  return llvm::json::Object{
      {"format", "torch-sync-project-facts-fragment"},
      {"version", ProjectFactsFormatVersion},
      {"tool", projectFactsToolVersion()},
      {"configuration", inferenceFingerprint()},
      {"translation_unit",
       Main ? absoluteSourcePath(Main->getName(), SM.getFileManager()) : ""},
      // Calls in code that did not parse may be missing.
      {"parse_errors", Context.getDiagnostics().hasErrorOccurred()},
      {"sources", std::move(Sources)},
      {"calls", llvm::json::Array(Calls)},
      {"returns", llvm::json::Object(Returns)}};
}

void ProjectFactsCheck::write(const llvm::json::Value &Fragment,
                              StringRef MainFile) {
  // One fragment per translation unit, named by its main file's MD5.
  std::string Problem = writeUnitJson(OutputDirectory, MainFile, Fragment);
  if (!Problem.empty())
    configurationDiag("cannot write the project facts fragment %0") << Problem;
}

} // namespace clang::tidy::torch_sync
