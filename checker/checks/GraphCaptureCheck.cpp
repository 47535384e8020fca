//===--- GraphCaptureCheck.cpp - torch-sync-graph-capture -----------------===//

#include "checks/GraphCaptureCheck.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {

/// The ids of a function definition and of a capture's begin.
constexpr llvm::StringLiteral FunctionId = "function";
constexpr llvm::StringLiteral BeginId = "begin";

/// The names a capture_begin function may be declared under: the api list's,
/// and for the CUDA API functions their suffixed names
/// ('cuStreamBeginCapture_v2').
std::vector<std::string> captureBeginNames() {
  std::vector<std::string> Names;
  for (StringRef Name : apiList(ApiList::CaptureBeginFunctions)) {
    Names.push_back(Name.str());
    if (!Name.drop_front(2).contains("::"))
      for (StringRef Suffix : apiList(ApiList::CudaApiNameSuffixes))
        Names.push_back((Name + Suffix).str());
  }
  return Names;
}

/// The name diagnostics give the call \p Call that \p Fact refuses: a
/// kernel launch as 'kernel<<<...>>>', a CUDA API function by its documented
/// name ('cuMemAlloc', declared as 'cuMemAlloc_v2'), any other as the other
/// checks name it.
std::string refusedName(const CallExpr &Call, const CaptureFact &Fact) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (isa<CUDAKernelCallExpr>(Call))
    return (Callee ? Callee->getNameAsString() : std::string("kernel")) +
           "<<<...>>>";
  StringRef Documented = Fact.Function.drop_front(2);
  if (!Documented.contains("::") || !Callee)
    return Documented.str();
  return diagnosticName(*Callee);
}

/// The open capture that refuses a call of \p Fact before \p Element: any,
/// or for a call that relaxed mode permits, one begun in another mode; null
/// when none does.
const OpenCapture *refusingCapture(const CaptureFact &Fact,
                                   const CapturedElement &Element) {
  if (!Fact.RelaxedModeAllows)
    return &Element.Open.front();
  const auto *Strict = llvm::find_if(
      Element.Open, [](const OpenCapture &Open) { return !Open.Relaxed; });
  return Strict == Element.Open.end() ? nullptr : &*Strict;
}

} // namespace

void GraphCaptureCheck::onStartOfTranslationUnit() {
  SyncCheckBase::onStartOfTranslationUnit();
  Functions.clear();
  BeginsCapture = false;
  Unit = nullptr;
  Reported.clear();
  Summaries.reset();
  Regions.reset();
}

void GraphCaptureCheck::registerSyncMatchers(MatchFinder *Finder) {
  // The functions whose control flow is followed: not the compiler's own,
  // nor those in system headers (LibTorch's, CUDA's).
  Finder->addMatcher(functionDecl(isDefinition(), unless(isImplicit()),
                                  unless(isExpansionInSystemHeader()))
                         .bind(FunctionId),
                     this);
  std::vector<std::string> Names = captureBeginNames();
  Finder->addMatcher(
      callExpr(callee(functionDecl(hasAnyName(
                   std::vector<StringRef>(Names.begin(), Names.end())))))
          .bind(BeginId),
      this);
}

void GraphCaptureCheck::checkSync(const MatchFinder::MatchResult &Result) {
  Unit = Result.Context;
  // LibTorch's and other libraries' bodies are never reported in; a capture
  // they begin is seen through the summary of the project's call.
  if (const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId))
    if (!isInLibraryHeader(Function->getLocation(),
                           Result.Context->getSourceManager()))
      Functions.push_back(Function);
  if (Result.Nodes.getNodeAs<CallExpr>(BeginId))
    BeginsCapture = true;
}

void GraphCaptureCheck::onEndOfTranslationUnit() {
  if (BeginsCapture && Unit) {
    ASTContext &Context = *Unit;
    SyncSummaries &Followed = summaries(Context);
    Regions = std::make_unique<CaptureRegions>(
        Context, [&Followed](const FunctionDecl &Function) {
          return Followed.followedDefinition(Function) != nullptr;
        });
    for (const FunctionDecl *Function : Functions) {
      // The function's implicit calls, read once, when a construction or
      // destruction is captured.
      std::optional<llvm::SmallVector<CallSite, 8>> Implicit;
      Regions->forEachCapturedElement(
          *Function, [&](const CapturedElement &Element) {
            if (!Implicit && !isa_and_nonnull<CallExpr>(Element.Call))
              Implicit = implicitCalls(*Function, Context);
            checkElement(Element,
                         Implicit ? llvm::ArrayRef<CallSite>(*Implicit)
                                  : llvm::ArrayRef<CallSite>(),
                         Context);
          });
    }
  }
  Functions.clear();
  Regions.reset();
  Summaries.reset();
  SyncCheckBase::onEndOfTranslationUnit();
}

SyncSummaries &GraphCaptureCheck::summaries(ASTContext &Context) {
  if (!Summaries) {
    Summaries = std::make_unique<SyncSummaries>(Context, devices(Context),
                                                summaryOptions(Context));
  }
  return *Summaries;
}

void GraphCaptureCheck::checkElement(const CapturedElement &Element,
                                     llvm::ArrayRef<CallSite> ImplicitCalls,
                                     ASTContext &Context) {
  const OpenCapture &Capture = Element.Open.front();
  if (const auto *Call = dyn_cast_or_null<CallExpr>(Element.Call)) {
    if (reportDirectSync(*Call, Capture, Context) ||
        reportRefusedCall(*Call, Element, Context))
      return;
    // A lambda called where it is written is followed like any function.
    if (!reportReachedSync(writtenCallSite(*Call, Context), Capture, Context))
      reportReachedRefusal(*Call, Element, Context);
    return;
  }
  // A construction, or a variable's destructor at its scope's end.
  for (const CallSite &Site : ImplicitCalls)
    if ((Element.Call && Site.Kind == CallSite::Construction &&
         Site.Anchor == Element.Call) ||
        (Element.Destroyed && Site.Kind == CallSite::ScopeEndDestruction &&
         Site.Variable == Element.Destroyed))
      reportReachedSync(Site, Capture, Context);
}

bool GraphCaptureCheck::claimPlace(const Expr &Call, ASTContext &Context,
                                   SourceLocation At) {
  const SourceManager &SM = Context.getSourceManager();
  SourceLocation Loc = At.isValid() ? At : callLocation(Call, SM);
  if (!isReportablePlace(Call, Context, At))
    return false;
  return Reported.insert(SM.getFileLoc(Loc).getRawEncoding()).second;
}

unsigned GraphCaptureCheck::beginLine(const OpenCapture &Capture,
                                      ASTContext &Context) const {
  const SourceManager &SM = Context.getSourceManager();
  return SM.getPresumedLineNumber(
      SM.getExpansionLoc(callLocation(*Capture.Begin, SM)));
}

void GraphCaptureCheck::noteBegin(const OpenCapture &Capture,
                                  ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  diag(SM.getFileLoc(callLocation(*Capture.Begin, SM)),
       "the capture begins here", DiagnosticIDs::Note);
}

bool GraphCaptureCheck::reportDirectSync(const CallExpr &Call,
                                         const OpenCapture &Capture,
                                         ASTContext &Context) {
  std::optional<CallSync> Sync =
      findCallSync(Call, devices(Context), Context, syncRules());
  if (!Sync)
    return false;
  // An explicit wait waits for a device whatever its arguments; a tensor
  // provably on the CPU is no sync (findCallSync), one of unknown device
  // follows ReportUnknownDevice.
  if (Sync->Category != SyncCategory::Explicit &&
      !isReportableDevice(Sync->Device))
    return true;
  // A message built for a failure runs only when the program fails anyway.
  if (isFailureMessage(Call, Context) || !claimPlace(Call, Context))
    return true;
  const SourceManager &SM = Context.getSourceManager();
  SourceLocation Loc = callLocation(Call, SM);
  diag(Loc, "'%0' synchronizes with the device inside the CUDA graph capture "
            "begun at line %1, which fails at run time (operation not "
            "permitted when stream is capturing)")
      << Sync->Name << beginLine(Capture, Context);
  // A wait has no value to keep on the device: the captured work runs in
  // stream order when the graph is replayed.
  diag(SM.getFileLoc(Loc),
       "consider %select{keeping the value on the device, "
       "or moving the call|removing the wait from the "
       "captured code, or moving it}0 before the capture "
       "begins or after it ends",
       DiagnosticIDs::Note)
      << (Sync->Category == SyncCategory::Explicit);
  noteBegin(Capture, Context);
  return true;
}

bool GraphCaptureCheck::reportRefusedCall(const CallExpr &Call,
                                          const CapturedElement &Element,
                                          ASTContext &Context) {
  const CaptureFact *Fact = refusingFact(Call, Context);
  if (!Fact)
    return false;
  const OpenCapture *Refusing = refusingCapture(*Fact, Element);
  if (!Refusing || !claimPlace(Call, Context))
    return true;
  const SourceManager &SM = Context.getSourceManager();
  SourceLocation Loc = callLocation(Call, SM);
  diag(Loc, "'%0' inside the CUDA graph capture begun at line %1 %2; the "
            "capture fails at run time")
      << refusedName(Call, *Fact) << beginLine(*Refusing, Context)
      << Fact->Effect;
  diag(SM.getFileLoc(Loc), "consider %0", DiagnosticIDs::Note)
      << Fact->Alternative;
  noteBegin(*Refusing, Context);
  return true;
}

bool GraphCaptureCheck::reportReachedSync(const CallSite &Site,
                                          const OpenCapture &Capture,
                                          ASTContext &Context) {
  if (!Site.Callee || !Site.Anchor)
    return false;
  SyncSummaries &Followed = summaries(Context);
  const FunctionDecl *Definition = Followed.followedDefinition(*Site.Callee);
  if (!Definition)
    return false;
  std::optional<SyncPath> Path = Followed.reachedSync(
      Site, *Definition,
      /*UnknownDevice=*/isReportableDevice(DeviceKind::Unknown));
  if (!Path)
    return false;
  if (!claimPlace(*Site.Anchor, Context, Site.Loc))
    return true;
  const SourceManager &SM = Context.getSourceManager();
  SourceLocation Loc =
      Site.Loc.isValid() ? Site.Loc : callLocation(*Site.Anchor, SM);
  const FunctionDecl *Next = Path->Through.Callee;
  std::string Inner = Path->Levels == 1 || !Next
                          ? Path->SyncName
                          : diagnosticFunctionName(*Next, SM);
  diag(Loc, "'%0' calls '%1' in its body, which synchronizes inside the CUDA "
            "graph capture begun at line %2; the capture fails at run time "
            "(operation not permitted when stream is capturing)")
      << diagnosticFunctionName(*Site.Callee, SM) << Inner
      << beginLine(Capture, Context);
  diag(SM.getFileLoc(Loc),
       "consider a variant that keeps the value on the device, or calling it "
       "before the capture begins or after it ends",
       DiagnosticIDs::Note);
  noteBegin(Capture, Context);
  SourceLocation Through = Path->Through.Loc.isValid()
                               ? Path->Through.Loc
                               : callLocation(*Path->Through.Anchor, SM);
  diag(Through, "'%0' synchronizes here", DiagnosticIDs::Note) << Inner;
  if (Path->Levels > 1)
    diag(callLocation(*Path->Sync, SM), "'%0' synchronizes here, %1 calls deep",
         DiagnosticIDs::Note)
        << Path->SyncName << Path->Levels;
  return true;
}

void GraphCaptureCheck::reportReachedRefusal(const CallExpr &Call,
                                             const CapturedElement &Element,
                                             ASTContext &Context) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  const FunctionDecl *Definition =
      Callee ? summaries(Context).followedDefinition(*Callee) : nullptr;
  if (!Definition)
    return;
  std::optional<RefusedPath> Path = Regions->reachedRefusal(*Definition);
  if (!Path)
    return;
  const OpenCapture *Refusing = refusingCapture(*Path->Fact, Element);
  if (!Refusing || !claimPlace(Call, Context))
    return;
  const SourceManager &SM = Context.getSourceManager();
  SourceLocation Loc = callLocation(Call, SM);
  std::string Refused = refusedName(*Path->Refused, *Path->Fact);
  const FunctionDecl *Next = Path->Through == Path->Refused
                                 ? nullptr
                                 : Path->Through->getDirectCallee();
  std::string Inner = Next ? diagnosticFunctionName(*Next, SM) : Refused;
  diag(Loc, "'%0' calls '%1' in its body%select{|, %3 calls deep}2, which a "
            "capture refuses, inside the CUDA graph capture begun at line %4; "
            "the capture fails at run time")
      << diagnosticFunctionName(*Callee, SM) << Refused << (Path->Levels > 1)
      << Path->Levels << beginLine(*Refusing, Context);
  diag(SM.getFileLoc(Loc), "consider %0", DiagnosticIDs::Note)
      << Path->Fact->Alternative;
  noteBegin(*Refusing, Context);
  diag(callLocation(*Path->Through, SM), "'%0' is called here",
       DiagnosticIDs::Note)
      << Inner;
  if (Path->Levels > 1)
    diag(callLocation(*Path->Refused, SM), "'%0' %1, %2 calls deep",
         DiagnosticIDs::Note)
        << Refused << Path->Fact->Effect << Path->Levels;
}

} // namespace clang::tidy::torch_sync
