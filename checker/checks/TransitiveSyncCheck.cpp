//===--- TransitiveSyncCheck.cpp - torch-sync-transitive ------------------===//

#include "checks/TransitiveSyncCheck.h"
#include "support/EnclosingContext.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {

/// Matches a function with a body somewhere in the translation unit, in any
/// of its declarations (the one called may come before it).
AST_MATCHER(FunctionDecl, isDefinedInTranslationUnit) {
  return Node.isDefined();
}

/// The id of a function whose implicit calls are looked at.
constexpr llvm::StringLiteral FunctionId = "function";

/// Whether \p Call calls a lambda where it is written ('[&] { ... }()', as
/// AT_DISPATCH_* do with the lambda given them): the syncs in its body are
/// reported there, where they are written.
bool callsLambdaWhereDefined(const CallExpr &Call) {
  const auto *Operator = dyn_cast<CXXOperatorCallExpr>(&Call);
  return Operator && Operator->getOperator() == OO_Call &&
         Operator->getNumArgs() >= 1 &&
         isa<LambdaExpr>(Operator->getArg(0)->IgnoreUnlessSpelledInSource());
}

/// The template instantiation that \p Call was seen in, through the lambdas
/// around it; null when it is in no instantiation. The call is reported once
/// for all instantiations, and the note names the one analysed.
const FunctionDecl *enclosingInstantiation(const Expr &Call,
                                           ASTContext &Context) {
  const FunctionDecl *Instantiation = nullptr;
  forEachAncestor(DynTypedNode::create(Call), Context,
                  [&](const DynTypedNode &Parent, const DynTypedNode &) {
                    const auto *Function = Parent.get<FunctionDecl>();
                    if (!Function || isLambdaCallOperator(*Function))
                      return false;
                    if (Function->isTemplateInstantiation())
                      Instantiation = Function;
                    return true;
                  });
  return Instantiation;
}
} // namespace

TransitiveSyncCheck::TransitiveSyncCheck(StringRef Name,
                                         ClangTidyContext *Context)
    : SyncCheckBase(Name, Context), MaxDepth(Options.get("MaxDepth", 0U)) {}

void TransitiveSyncCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  SyncCheckBase::storeOptions(Opts);
  Options.store(Opts, "MaxDepth", MaxDepth);
}

void TransitiveSyncCheck::onStartOfTranslationUnit() {
  SyncCheckBase::onStartOfTranslationUnit();
  Summaries.reset();
  SummariesContext = nullptr;
}

SyncSummaries &TransitiveSyncCheck::summaries(ASTContext &Context) {
  if (!Summaries || SummariesContext != &Context) {
    SyncSummaries::Options Opts = summaryOptions(Context);
    Opts.MaxDepth = MaxDepth;
    Summaries = std::make_unique<SyncSummaries>(Context, devices(Context),
                                                std::move(Opts));
    SummariesContext = &Context;
  }
  return *Summaries;
}

void TransitiveSyncCheck::registerSyncMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      callExpr(callee(functionDecl(isDefinedInTranslationUnit())),
               // Calls inside LibTorch's and other system headers are never
               // reported; skipping them here keeps the check cheap.
               unless(isExpansionInSystemHeader()))
          .bind(CallId),
      this);
  // The functions whose constructions and destructions are looked at: not
  // the compiler's own (an implicit constructor's calls are reported where
  // it is called), nor those in system headers.
  Finder->addMatcher(functionDecl(isDefinition(), unless(isImplicit()),
                                  unless(isExpansionInSystemHeader()))
                         .bind(FunctionId),
                     this);
}

void TransitiveSyncCheck::checkSync(const MatchFinder::MatchResult &Result) {
  ASTContext &Context = *Result.Context;
  if (const auto *Function = Result.Nodes.getNodeAs<FunctionDecl>(FunctionId)) {
    for (const CallSite &Site : implicitCalls(*Function, Context))
      // A member's destructor is reported where its owner is destroyed.
      if (Site.Kind != CallSite::MemberDestruction)
        checkCallSite(Site, Context);
    return;
  }
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>(CallId);
  if (!Call || callsLambdaWhereDefined(*Call))
    return;
  checkCallSite(writtenCallSite(*Call, Context), Context);
}

void TransitiveSyncCheck::checkCallSite(const CallSite &Site,
                                        ASTContext &Context) {
  if (!Site.Callee || !Site.Anchor)
    return;
  // Direct syncs are the other checks' findings; a callee in
  // IntendedSyncFunctions syncs on purpose, and so does a call to it.
  const FunctionDecl *Definition =
      summaries(Context).followedDefinition(*Site.Callee);
  if (!Definition || !isReportablePlace(*Site.Anchor, Context, Site.Loc))
    return;
  std::optional<SyncPath> Path = summaries(Context).reachedSync(
      Site, *Definition,
      /*UnknownDevice=*/isReportableDevice(DeviceKind::Unknown));
  if (Path)
    report(Site, *Path, Context);
}

SourceLocation
TransitiveSyncCheck::siteLocation(const CallSite &Site,
                                  const SourceManager &SM) const {
  if (Site.Loc.isValid() || !Site.Anchor)
    return Site.Loc;
  return callLocation(*Site.Anchor, SM);
}

void TransitiveSyncCheck::report(const CallSite &Site, const SyncPath &Path,
                                 ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  const FunctionDecl *Next = Path.Through.Callee;
  std::string Inner = Path.Levels == 1 || !Next
                          ? Path.SyncName
                          : diagnosticFunctionName(*Next, SM);
  // What the sync inside waits for (a stream, an event, the device) is the
  // note's to say: the call blocks the host as long as that sync does.
  std::string Effect;
  if (!Site.Description.empty())
    Effect = "(" + Site.Description + ") ";
  Effect += "calls '" + Inner + "' in its body";
  if (Path.Guard)
    Effect += " (" + Path.Guard->Description + ")";
  Effect += ", which blocks the host";
  const Expr &Call = *Site.Anchor;
  reportSync(Call, diagnosticFunctionName(*Site.Callee, SM), Effect,
             "a variant that keeps the value on the device, or calling it "
             "outside the hot path",
             Context, std::nullopt, HostWait::StatedInEffect, std::nullopt, "",
             Site.Loc);
  if (Site.Kind == CallSite::ScopeEndDestruction && Site.Variable)
    diag(Site.Variable->getLocation(),
         "'%0' is destroyed at the end of its scope by '%1'",
         DiagnosticIDs::Note)
        << Site.Variable->getName() << diagnosticFunctionName(*Site.Callee, SM);
  if (const FunctionDecl *Instantiation =
          enclosingInstantiation(Call, Context)) {
    std::string Name;
    llvm::raw_string_ostream OS(Name);
    Instantiation->getNameForDiagnostic(OS, Context.getPrintingPolicy(),
                                        /*Qualified=*/true);
    diag(siteLocation(Site, SM),
         "in the instantiation '%0' (reported once for all instantiations)",
         DiagnosticIDs::Note)
        << OS.str();
  }
  if (Path.Through.Description.empty() || Path.Levels == 1)
    diag(siteLocation(Path.Through, SM), "'%0' synchronizes here",
         DiagnosticIDs::Note)
        << Inner;
  else
    diag(siteLocation(Path.Through, SM), "'%0' (%1) synchronizes here",
         DiagnosticIDs::Note)
        << Inner << Path.Through.Description;
  if (Path.Levels > 1)
    diag(callLocation(*Path.Sync, SM), "'%0' synchronizes here, %1 calls deep",
         DiagnosticIDs::Note)
        << Path.SyncName << Path.Levels;
  if (Path.Guard)
    diag(Path.Guard->Loc, "the sync runs %0", DiagnosticIDs::Note)
        << Path.Guard->Description;
}

} // namespace clang::tidy::torch_sync
