//===--- TransitiveSyncCheck.cpp - torch-sync-transitive -------------------===//

#include "TransitiveSyncCheck.h"
#include "TorchMatchers.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral CallId = "call";
constexpr llvm::StringLiteral InnerSyncId = "inner-sync";
constexpr llvm::StringLiteral InnerCallId = "inner-call";

/// Functions whose bodies are not followed: ATen and c10 (their syncs, where
/// there are any, are the direct facts of the other checks), the tensor
/// classes, and std.
bool isOpaqueLibrary(const FunctionDecl &Function) {
  const DeclContext *Context = Function.getDeclContext();
  const NamespaceDecl *Outermost = nullptr;
  for (; Context; Context = Context->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(Context))
      Outermost = NS;
  if (!Outermost || !Outermost->getIdentifier())
    return false;
  StringRef Name = Outermost->getName();
  return Name == "at" || Name == "c10" || Name == "caffe2" || Name == "std";
}

/// Whether \p Function is a direct fact of any check ('torch::tensor',
/// 'torch::linalg::inv') or a census-measured overload that a check reports:
/// its call is that check's finding, not a transitive one.
bool isDirectFact(const FunctionDecl &Function) {
  return findAnySyncFact(Function) || findMeasuredSync(Function);
}

/// The calls inside a body that synchronize by themselves, whatever their
/// arguments: the facts marked unconditional in the table (value reads,
/// printing, copies to the host, the ops whose output size depends on values,
/// the explicit waits), and the census-measured names all of whose overloads
/// block the host. Not the facts that sync only with some arguments (the
/// tensor-value overloads of masked_fill_ and fill_, 'repeat_interleave'
/// without 'output_size', mask indexing).
auto directSync() {
  std::vector<StringRef> Methods;
  std::vector<std::string> Functions;
  for (const SyncFact &Fact : syncFacts()) {
    if (!Fact.Unconditional)
      continue;
    if (!Fact.Method.empty())
      Methods.push_back(Fact.Method);
    if (!Fact.Function.empty())
      Functions.push_back(Fact.Function.str());
  }
  for (SyncCategory Category :
       {SyncCategory::Item, SyncCategory::Print, SyncCategory::DeviceToHost,
        SyncCategory::BooleanMask, SyncCategory::DynamicShape,
        SyncCategory::DeviceIndex, SyncCategory::Explicit}) {
    for (StringRef Name : measuredMethodNames(Category, /*AllOverloadsOnly=*/true))
      Methods.push_back(Name);
    for (const std::string &Name :
         measuredFunctionNames(Category, /*AllOverloadsOnly=*/true))
      Functions.push_back(Name);
  }
  // The explicit waits under every name the CUDA headers declare them by, and
  // the frees among them that a null pointer makes a no-op ('cudaFree(nullptr)',
  // as torch-sync-explicit exempts it).
  std::vector<std::string> Waits = declaredFunctionNames(SyncCategory::Explicit);
  std::vector<std::string> NullNoOps;
  for (const SyncFact &Fact : syncFacts())
    if (Fact.Category == SyncCategory::Explicit && Fact.NullPointerIsNoOp)
      for (const std::string &Name : declaredFunctionNames(SyncCategory::Explicit)) {
        StringRef Rest = Name;
        if (Rest.consume_front(Fact.Function) &&
            (Rest.empty() || isInApiList(ApiList::CudaApiNameSuffixes, Rest)))
          NullNoOps.push_back(Name);
      }
  return callExpr(anyOf(
      cxxMemberCallExpr(callee(tensorMethod(Methods))),
      callExpr(callee(functionDecl(hasAnyName(
                   std::vector<StringRef>(Functions.begin(), Functions.end())))),
               hasAnyArgument(hasType(isTorchTensor()))),
      // A device-to-device cudaMemcpy does not wait for the host (as
      // torch-sync-explicit exempts it).
      callExpr(callee(functionDecl(hasAnyName(
                   std::vector<StringRef>(Waits.begin(), Waits.end())))),
               unless(hasAnyArgument(ignoringParenImpCasts(declRefExpr(to(
                   enumConstantDecl(hasName("cudaMemcpyDeviceToDevice"))))))),
               unless(allOf(callee(functionDecl(hasAnyName(std::vector<StringRef>(
                                NullNoOps.begin(), NullNoOps.end())))),
                            hasArgument(0, ignoringParenImpCasts(nullPointerConstant())))))));
}
} // namespace

TransitiveSyncCheck::TransitiveSyncCheck(StringRef Name,
                                         ClangTidyContext *Context)
    : SyncCheckBase(Name, Context), MaxDepth(Options.get("MaxDepth", 3U)) {}

void TransitiveSyncCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  SyncCheckBase::storeOptions(Opts);
  Options.store(Opts, "MaxDepth", MaxDepth);
}

void TransitiveSyncCheck::onStartOfTranslationUnit() {
  SyncCheckBase::onStartOfTranslationUnit();
  Summaries.clear();
  OptionsMaybeUnset.clear();
}

void TransitiveSyncCheck::registerSyncMatchers(MatchFinder *Finder) {
  Finder->addMatcher(
      callExpr(callee(functionDecl(hasBody(stmt()))),
               // Calls inside LibTorch's and other system headers are never
               // reported; skipping them here keeps the check cheap.
               unless(isExpansionInSystemHeader()),
               // Direct syncs are the other checks' findings.
               unless(directSync()))
          .bind(CallId),
      this);
}

void TransitiveSyncCheck::checkSync(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>(CallId);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  ASTContext &Context = *Result.Context;
  // A callee in IntendedSyncFunctions syncs on purpose: so does a call to it.
  if (!Callee || isOpaqueLibrary(*Callee) || isDirectFact(*Callee) ||
      isIntendedFunction(*Callee) || !isReportablePlace(*Call, Context))
    return;
  const FunctionDecl *Definition = Callee->getDefinition();
  if (!Definition)
    return;
  const CallExpr *Inner = summarize(*Definition, Context).Through;
  if (!Inner)
    return;
  const FunctionDecl *InnerCallee = Inner->getDirectCallee();
  std::string InnerName =
      InnerCallee ? calleeName(*Inner, *InnerCallee) : std::string("a sync");
  // What the sync inside waits for (a stream, an event, the device) is the
  // note's to say: the call blocks the host as long as that sync does.
  std::string Effect =
      "calls '" + InnerName + "' in its body, which blocks the host";
  const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
  std::string Name = Method && Method->getParent()->isLambda()
                         ? std::string("lambda")
                         : Callee->getQualifiedNameAsString();
  reportSync(*Call, Name, Effect,
             "a variant that keeps the value on the device, or calling it "
             "outside the hot path",
             Context, std::nullopt, HostWait::StatedInEffect);
  diag(callLocation(*Inner, Context.getSourceManager()),
       "'%0' synchronizes here", DiagnosticIDs::Note)
      << InnerName;
}

TransitiveSyncCheck::Summary
TransitiveSyncCheck::summarize(const FunctionDecl &Function,
                               ASTContext &Context) {
  auto Cached = Summaries.find(&Function);
  if (Cached != Summaries.end())
    return Cached->second;
  const Stmt *Body = Function.getBody();
  if (!Body || Function.isDependentContext() || MaxDepth == 0)
    return {};
  Summaries[&Function] = {}; // in progress

  Summary Best;
  DeviceInference &Devices = devices(Context);
  auto Matches = match(
      findAll(callExpr(anyOf(directSync().bind(InnerSyncId),
                             callExpr(callee(functionDecl(hasBody(stmt()))))
                                 .bind(InnerCallId)))),
      *Body, Context);
  for (const BoundNodes &Nodes : Matches) {
    if (const auto *Sync = Nodes.getNodeAs<CallExpr>(InnerSyncId)) {
      // A sync on a tensor provably on the CPU in that body is none (an
      // explicit wait has no tensor input: Unspecified); nor is one under a
      // test of an option that nothing unsets.
      if (Devices.inputsDevice(*Sync) != DeviceKind::CPU &&
          !runsOnlyWithUnsetOption(*Sync, *Body, Context)) {
        Best = {Sync, 1};
        break;
      }
      continue;
    }
    const auto *Inner = Nodes.getNodeAs<CallExpr>(InnerCallId);
    const FunctionDecl *Callee = Inner ? Inner->getDirectCallee() : nullptr;
    if (!Callee || isOpaqueLibrary(*Callee))
      continue;
    const FunctionDecl *Definition = Callee->getDefinition();
    if (!Definition)
      continue;
    Summary Nested = summarize(*Definition, Context);
    if (Nested.Through && Nested.Levels + 1 <= MaxDepth &&
        (!Best.Through || Nested.Levels + 1 < Best.Levels))
      Best = {Inner, Nested.Levels + 1};
  }
  Summaries[&Function] = Best;
  return Best;
}

bool TransitiveSyncCheck::runsOnlyWithUnsetOption(const CallExpr &Sync,
                                                  const Stmt &Body,
                                                  ASTContext &Context) {
  // 'if (this->options.X() == c10::nullopt) { ... Sync ... }'.
  auto NulloptType = qualType(hasUnqualifiedDesugaredType(
      recordType(hasDeclaration(namedDecl(hasName("nullopt_t"))))));
  auto UnsetTest = cxxOperatorCallExpr(
      hasOverloadedOperatorName("=="),
      hasArgument(0, ignoringImplicit(cxxMemberCallExpr(
                         argumentCountIs(0),
                         callee(cxxMethodDecl().bind("getter")),
                         on(memberExpr(member(fieldDecl(hasName("options")))))))),
      hasArgument(1, expr(hasType(NulloptType))));
  auto Inside = anyOf(equalsNode(&Sync), hasDescendant(stmt(equalsNode(&Sync))));
  for (const BoundNodes &Nodes :
       match(findAll(ifStmt(hasCondition(UnsetTest), hasThen(stmt(Inside)))),
             Body, Context)) {
    const auto *Getter = Nodes.getNodeAs<CXXMethodDecl>("getter");
    if (!Getter->getIdentifier())
      continue;
    // TORCH_ARG(T, X) stores the option in the member 'X_' (torch/arg.h).
    const FieldDecl *Field = nullptr;
    for (const FieldDecl *Candidate : Getter->getParent()->fields())
      if (Candidate->getIdentifier() &&
          Candidate->getName() == (Getter->getName() + "_").str())
        Field = Candidate;
    // The default must be set: an initializer that is a number
    // ('TORCH_ARG(c10::optional<double>, momentum) = 0.1').
    const Expr *Default = Field ? Field->getInClassInitializer() : nullptr;
    if (!Default ||
        !Default->IgnoreUnlessSpelledInSource()->getType()->isArithmeticType() ||
        mayUnsetOption(*Field, Context))
      continue;
    return true;
  }
  return false;
}

bool TransitiveSyncCheck::mayUnsetOption(const FieldDecl &Field,
                                         ASTContext &Context) {
  auto Cached = OptionsMaybeUnset.find(&Field);
  if (Cached != OptionsMaybeUnset.end())
    return Cached->second;
  StringRef Name = Field.getName().drop_back(); // 'momentum_' -> 'momentum'
  auto Accessor = cxxMemberCallExpr(
                      callee(cxxMethodDecl(hasName(Name),
                                           ofClass(equalsNode(Field.getParent())))))
                      .bind("call");
  const SourceManager &SM = Context.getSourceManager();
  bool MayUnset = false;
  for (const Decl *D : Context.getTranslationUnitDecl()->decls()) {
    if (MayUnset)
      break;
    if (isInLibraryHeader(D->getLocation(), SM))
      continue;
    for (const BoundNodes &Nodes :
         match(decl(forEachDescendant(Accessor)), *D, Context)) {
      const auto *Call = Nodes.getNodeAs<CXXMemberCallExpr>("call");
      // 'options.momentum(0.01)' sets a value; 'momentum(c10::nullopt)', an
      // optional, or the getter's reference may unset it.
      if (Call->getNumArgs() == 1 && Call->getArg(0)
                                         ->IgnoreUnlessSpelledInSource()
                                         ->getType()
                                         ->isArithmeticType())
        continue;
      MayUnset = true;
      break;
    }
  }
  OptionsMaybeUnset[&Field] = MayUnset;
  return MayUnset;
}

} // namespace clang::tidy::torch_sync
