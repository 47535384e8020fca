//===--- SyncCheckBase.cpp - what every torch-sync check shares -----------===//

#include "checks/SyncCheckBase.h"
#include "analysis/DeviceValueFlow.h"
#include "clang-tidy/utils/OptionsUtils.h"
#include "libtorch/TorchMatchers.h"
#include "support/EnclosingContext.h"
#include "support/LibraryHeaders.h"
#include "support/TraversalScope.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"

namespace clang::tidy::torch_sync {

using namespace clang::ast_matchers;

namespace {

constexpr llvm::StringLiteral MeasuredCallId = "torch-sync-measured-call";
constexpr llvm::StringLiteral TranslationUnitId = "torch-sync-translation-unit";

/// Default LibTorch header paths: the ATen, c10, caffe2 and torch/csrc trees
/// and the umbrella headers under torch/, as installed by a LibTorch package
/// or a torch wheel.
constexpr llvm::StringLiteral DefaultLibTorchHeaderRegex =
    "(^|/)(ATen|c10|caffe2|torch/csrc)/|(^|/)torch/(torch|script|extension|"
    "library|custom_class)\\.h$";

/// Default headers of the other libraries that LibTorch extensions and CUDA
/// programs include, often with -I, by the folder or file names their own
/// include paths use. Folders: pybind11 (torch/extension.h includes it),
/// CUTLASS and CuTe, CCCL (thrust, cub), cuCollections, NVTX 3, RAPIDS (RMM,
/// RAFT, cuDF), cuDNN's and cuTENSOR's, NanoVDB, Eigen, Boost, fmt, spdlog,
/// nlohmann/json, GLM, glog, gflags, Abseil, folly, GoogleTest, oneTBB and
/// OpenCV. Names that a project's own folder could have are narrowed to the
/// library's files: libcu++ (cuda/std/, cuda/__*, cuda/experimental/ and the
/// extensionless cuda/atomic, cuda/barrier, ...; not cuda/kernels.cuh), NV
/// target (nv/target, nv/detail/), Google Benchmark (benchmark/benchmark.h)
/// and Triton's C++ API (triton/core/, triton/backend/, triton/common/).
/// Files: the headers of cuBLAS, cuDNN, NCCL, cuRAND, cuSPARSE, cuFFT,
/// cuSOLVER, cuTENSOR, NVTX 2 and TensorRT (NvInfer*.h, NvOnnxParser.h),
/// wherever they are installed (a conda environment's include/). Folders of
/// installs: the CUDA toolkit's include folder and those of the CUDA
/// libraries' pip wheels (site-packages/nvidia/*/include/). And any header
/// below a folder that holds others' code (third_party, _deps, ...).
constexpr llvm::StringLiteral DefaultThirdPartyHeaderRegex =
    "(^|/)(pybind11|cutlass|cute|thrust|cub|cuco|nvtx3|rmm|raft|cudf|"
    "cudnn_frontend|cutensor|nanovdb|Eigen|boost|fmt|spdlog|nlohmann|glm|"
    "glog|gflags|absl|folly|gtest|gmock|tbb|opencv2)/|"
    "(^|/)cuda/(std/|__|experimental/|[a-z_]+$)|(^|/)nv/(target$|detail/)|"
    "(^|/)benchmark/benchmark\\.h$|(^|/)triton/(core|backend|common)/|"
    "(^|/)(cublas(_v2|_api|Lt|Xt)?|cudnn(_version|_backend|_graph|"
    "_(ops|cnn|adv)(_infer|_train)?)?|cudnn_frontend[a-z_]*|nccl(_net)?|"
    "curand(_[a-z0-9_]+)?|cusparse(Lt)?|cufft(XT|w)?|"
    "cusolver(Dn|Sp|Rf|Mg|_common)?|cutensor(Mg)?|nvToolsExt[A-Za-z]*|"
    "NvInfer[A-Za-z]*|NvOnnxParser)\\.h$|"
    "(^|/)cuda(-[0-9.]+)?/(targets/[^/]+/)?include/|"
    "(^|/)nvidia/[^/]+/include/|"
    "(^|/)(third_party|third-party|thirdparty|3rdparty|external|vendor|_deps)/";

/// Parses "MAJOR.MINOR" (a patch part is ignored) into MAJOR * 100 + MINOR.
std::optional<unsigned> parseVersion(StringRef Text) {
  auto [MajorText, Rest] = Text.trim().split('.');
  StringRef MinorText = Rest.split('.').first;
  unsigned Major = 0, Minor = 0;
  if (MajorText.getAsInteger(10, Major) || MinorText.getAsInteger(10, Minor) ||
      Minor >= 100)
    return std::nullopt;
  return Major * 100 + Minor;
}

} // namespace

SyncCheckBase::SyncCheckBase(StringRef Name, ClangTidyContext *Context,
                             std::optional<SyncCategory> Category)
    : ClangTidyCheck(Name, Context),
      IntendedSyncFunctions(
          Options.getLocalOrGlobal("IntendedSyncFunctions", "")),
      ReportUnknownDevice(
          Options.getLocalOrGlobal("ReportUnknownDevice", true)),
      ProjectDatasetsOnCPU(
          Options.getLocalOrGlobal("ProjectDatasetsOnCPU", false)),
      LoopsOnly(Options.getLocalOrGlobal("LoopsOnly", false)),
      LibTorchHeaderRegex(Options.getLocalOrGlobal("LibTorchHeaderRegex",
                                                   DefaultLibTorchHeaderRegex)),
      ThirdPartyHeaderRegex(Options.getLocalOrGlobal(
          "ThirdPartyHeaderRegex", DefaultThirdPartyHeaderRegex)),
      SkipLibraryHeaders(Options.getLocalOrGlobal("SkipLibraryHeaders", true)),
      LibTorchVersion(Options.getLocalOrGlobal("LibTorchVersion", "")),
      ProjectFactsFile(Options.getLocalOrGlobal("ProjectFactsFile", "")),
      ProjectFactsQueryDirectory(
          Options.getLocalOrGlobal("ProjectFactsQueryDirectory", "")),
      IgnoreUnitTests(Options.getLocalOrGlobal("IgnoreUnitTests", true)),
      UnitTestMacros(
          Options.getLocalOrGlobal("UnitTestMacros", DefaultUnitTestMacros)),
      TidyContext(Context), Category(Category),
      LibTorchHeaderPattern(LibTorchHeaderRegex),
      ThirdPartyHeaderPattern(ThirdPartyHeaderRegex) {
  if (!LibTorchVersion.empty()) {
    ConfiguredVersion = parseVersion(LibTorchVersion);
    if (!ConfiguredVersion)
      configurationDiag("invalid LibTorch version '%0' in option "
                        "'LibTorchVersion': expected MAJOR.MINOR, such as 2.4")
          << LibTorchVersion;
  }
  IntendedPatterns =
      parseRegexList("IntendedSyncFunctions", IntendedSyncFunctions);
  std::string Error;
  if (!LibTorchHeaderPattern.isValid(Error))
    configurationDiag("invalid regular expression '%0' in option "
                      "'LibTorchHeaderRegex': %1")
        << LibTorchHeaderRegex << Error;
  if (!ThirdPartyHeaderPattern.isValid(Error))
    configurationDiag("invalid regular expression '%0' in option "
                      "'ThirdPartyHeaderRegex': %1")
        << ThirdPartyHeaderRegex << Error;
}

void SyncCheckBase::registerPPCallbacks(const SourceManager &SM,
                                        Preprocessor *PP,
                                        Preprocessor *ModuleExpanderPP) {
  this->PP = PP;
  if (SkipLibraryHeaders)
    markLibraryHeadersAsSystem(*PP,
                               {LibTorchHeaderRegex, ThirdPartyHeaderRegex});
  auto Recorder = std::make_unique<ConditionalBranches>(SM);
  Branches = Recorder.get();
  PP->addPPCallbacks(std::move(Recorder));
}

std::vector<llvm::Regex> SyncCheckBase::parseRegexList(StringRef OptionName,
                                                       StringRef Value) {
  std::vector<llvm::Regex> Patterns;
  for (StringRef Pattern : utils::options::parseStringList(Value)) {
    llvm::Regex Regex(Pattern);
    std::string Error;
    if (!Regex.isValid(Error)) {
      configurationDiag("invalid regular expression '%0' in option '%1': %2")
          << Pattern << OptionName << Error;
      continue;
    }
    Patterns.push_back(std::move(Regex));
  }
  return Patterns;
}

void SyncCheckBase::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "IntendedSyncFunctions", IntendedSyncFunctions);
  Options.store(Opts, "ReportUnknownDevice", ReportUnknownDevice);
  Options.store(Opts, "ProjectDatasetsOnCPU", ProjectDatasetsOnCPU);
  Options.store(Opts, "LoopsOnly", LoopsOnly);
  Options.store(Opts, "LibTorchHeaderRegex", LibTorchHeaderRegex);
  Options.store(Opts, "ThirdPartyHeaderRegex", ThirdPartyHeaderRegex);
  Options.store(Opts, "SkipLibraryHeaders", SkipLibraryHeaders);
  Options.store(Opts, "LibTorchVersion", LibTorchVersion);
  Options.store(Opts, "ProjectFactsFile", ProjectFactsFile);
  Options.store(Opts, "ProjectFactsQueryDirectory", ProjectFactsQueryDirectory);
  Options.store(Opts, "IgnoreUnitTests", IgnoreUnitTests);
  Options.store(Opts, "UnitTestMacros", UnitTestMacros);
}

void SyncCheckBase::onStartOfTranslationUnit() {
  ReportedLocations.clear();
  ShapeReads.clear();
  Inference.reset();
  InferenceContext = nullptr;
  Facts.reset();
  Unit = nullptr;
  if (recordsFactQueries())
    ProjectFacts::recorder()->clearRecordedQueries();
  Tests.emplace(utils::options::parseStringList(UnitTestMacros));
}

bool SyncCheckBase::recordsFactQueries() const {
  return ProjectFactsFile.empty() && !ProjectFactsQueryDirectory.empty() &&
         readsProjectFacts();
}

unsigned SyncCheckBase::libTorchVersion() const {
  if (ConfiguredVersion)
    return *ConfiguredVersion;
  auto MacroValue = [this](StringRef Name) -> std::optional<unsigned> {
    if (!PP)
      return std::nullopt;
    const MacroInfo *Macro = PP->getMacroInfo(PP->getIdentifierInfo(Name));
    if (!Macro || Macro->getNumTokens() != 1 ||
        Macro->tokens()[0].isNot(tok::numeric_constant))
      return std::nullopt;
    // A macro read from a precompiled header or a clangd preamble has no
    // literal data in memory: spell the token through the preprocessor.
    SmallString<16> Buffer;
    bool Invalid = false;
    StringRef Spelling = PP->getSpelling(Macro->tokens()[0], Buffer, &Invalid);
    unsigned Value = 0;
    if (Invalid || Spelling.getAsInteger(10, Value))
      return std::nullopt;
    return Value;
  };
  std::optional<unsigned> Major = MacroValue("TORCH_VERSION_MAJOR");
  std::optional<unsigned> Minor = MacroValue("TORCH_VERSION_MINOR");
  if (Major && Minor && *Minor < 100)
    return *Major * 100 + *Minor;
  return NewestKnownVersion;
}

std::string SyncCheckBase::inferenceFingerprint() const {
  return torch_sync::inferenceFingerprint(
      ProjectDatasetsOnCPU, LibTorchHeaderRegex, ThirdPartyHeaderRegex);
}

DeviceInference &SyncCheckBase::devices(ASTContext &Context) {
  if (!Inference || InferenceContext != &Context) {
    Facts.reset();
    if (recordsFactQueries())
      Facts = ProjectFacts::recorder();
    if (!ProjectFactsFile.empty() && readsProjectFacts()) {
      std::string Problem;
      Facts =
          ProjectFacts::load(ProjectFactsFile, inferenceFingerprint(), Problem);
      const SourceManager &SM = Context.getSourceManager();
      OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
      std::string MainFile =
          Main ? absoluteSourcePath(Main->getName(), SM.getFileManager()) : "";
      if (Facts && !Facts->coversTranslationUnit(MainFile)) {
        Problem = "'" + MainFile + "' was not part of their collection";
        Facts.reset();
      }
      // The same text from every check: clang-tidy shows it once.
      if (!Facts)
        configurationDiag("ignoring the project facts in '%0': %1; collect "
                          "them again (docs/project-facts.md)")
            << ProjectFactsFile << Problem;
    }
    Inference = std::make_unique<DeviceInference>(Context, ProjectDatasetsOnCPU,
                                                  Facts.get());
    InferenceContext = &Context;
  }
  return *Inference;
}

SourceLocation SyncCheckBase::callLocation(const Expr &Call,
                                           const SourceManager &SM) const {
  SourceLocation Loc = Call.getBeginLoc();
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
    // An implicit conversion's call names no member: its start it is.
    if (const auto *Callee = dyn_cast<MemberExpr>(Member->getCallee());
        Callee && Callee->getMemberLoc().isValid())
      Loc = Callee->getMemberLoc();
  } else if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(&Call)) {
    // For 't[i]' the operator location is the ']'; the callee starts at '['.
    // For 'f()' it is the '('; the called object is more telling.
    if (Operator->getOperator() == OO_Subscript)
      Loc = Operator->getCallee()->getBeginLoc();
    else if (Operator->getOperator() == OO_Call)
      Loc = Operator->getArg(0)->getBeginLoc();
    else
      Loc = Operator->getOperatorLoc();
  }
  // isInSystemMacro() also sees through names made by token pasting, such
  // as the CUDA headers' 'cudaMemcpy_ptds', which are spelled nowhere.
  if (Loc.isMacroID() && (SM.isInSystemMacro(Loc) ||
                          isInLibraryHeader(SM.getSpellingLoc(Loc), SM)))
    return SM.getExpansionLoc(Loc);
  return Loc;
}

bool SyncCheckBase::isInLibraryHeader(SourceLocation Loc,
                                      const SourceManager &SM) const {
  SourceLocation Expansion = SM.getExpansionLoc(Loc);
  if (Expansion.isInvalid() || SM.isInSystemHeader(Expansion))
    return true;
  if (SM.isWrittenInMainFile(Expansion))
    return false;
  StringRef File = SM.getFilename(Expansion);
  if (File.empty())
    return false;
  return (LibTorchHeaderPattern.isValid() &&
          LibTorchHeaderPattern.match(File)) ||
         (ThirdPartyHeaderPattern.isValid() &&
          ThirdPartyHeaderPattern.match(File));
}

SyncSummaries::Options SyncCheckBase::summaryOptions(ASTContext &Context) {
  SyncSummaries::Options Opts;
  Opts.Rules = syncRules();
  Opts.IsIntended = [this](const FunctionDecl &Function) {
    return isIntendedFunction(Function);
  };
  Opts.IsInLibraryHeader = [this, &Context](SourceLocation Loc) {
    return isInLibraryHeader(Loc, Context.getSourceManager());
  };
  Opts.Branches = conditionalBranches();
  return Opts;
}

bool SyncCheckBase::isIntendedFunction(const FunctionDecl &Function) const {
  if (IntendedPatterns.empty())
    return false;
  std::string Name = Function.getQualifiedNameAsString();
  return llvm::any_of(IntendedPatterns, [&](const llvm::Regex &Pattern) {
    return Pattern.match(Name);
  });
}

bool SyncCheckBase::isInIntendedFunction(const Expr &Call,
                                         ASTContext &Context) const {
  if (IntendedPatterns.empty())
    return false;
  bool Intended = false;
  forEachAncestor(
      DynTypedNode::create(Call), Context,
      [&](const DynTypedNode &Parent, const DynTypedNode &) {
        const auto *Function = Parent.get<FunctionDecl>();
        if (!Function)
          return false;
        Intended = isIntendedFunction(*Function);
        // Keep walking out of lambdas into the enclosing function.
        return Intended || !isa<CXXMethodDecl>(Function) ||
               !cast<CXXMethodDecl>(Function)->getParent()->isLambda();
      });
  return Intended;
}

bool SyncCheckBase::isReportablePlace(const Expr &Call, ASTContext &Context,
                                      SourceLocation At) {
  const SourceManager &SM = Context.getSourceManager();
  SourceLocation Loc = At.isValid() ? At : callLocation(Call, SM);
  if (Loc.isInvalid() || isInLibraryHeader(Loc, SM))
    return false;
  if (ReportedLocations.contains(SM.getFileLoc(Loc).getRawEncoding()))
    return false;
  if (LoopsOnly && limitsToLoops() && !runsOnEveryLoopIteration(Call, Context))
    return false;
  if (IgnoreUnitTests && Tests && Tests->contains(Call, Context))
    return false;
  return !isInIntendedFunction(Call, Context);
}

std::string SyncCheckBase::calleeName(const CallExpr &Call,
                                      const FunctionDecl &Callee) {
  return diagnosticName(Callee);
}

bool SyncCheckBase::isReportableDevice(DeviceKind Device) const {
  if (Device == DeviceKind::CPU)
    return false;
  // An undefined tensor, or a value whose device nothing names, is unknown.
  return Device == DeviceKind::CUDA || ReportUnknownDevice;
}

void SyncCheckBase::reportSync(const Expr &Call, StringRef Callee,
                               StringRef Effect, Advice Alternative,
                               ASTContext &Context,
                               std::optional<FixItHint> Fix, HostWait Wait,
                               std::optional<AlternativeRewrite> Rewrite,
                               StringRef Measured, SourceLocation At) {
  const SourceManager &SM = Context.getSourceManager();
  SourceLocation Loc = At.isValid() ? At : callLocation(Call, SM);
  ReportedLocations.insert(SM.getFileLoc(Loc).getRawEncoding());
  const Stmt *Loop = perIterationLoop(Call, Context);
  StringRef Chosen = Loop && !Alternative.InLoop.empty() ? Alternative.InLoop
                                                         : Alternative.Default;
  // 'opt.value_or(t.item())' reads even when 'opt' holds the value.
  std::string LazyDefault;
  if (const Expr *Optional = optionalWithDefaultFrom(Call, Context)) {
    StringRef Name = Lexer::getSourceText(
        CharSourceRange::getTokenRange(Optional->getSourceRange()), SM,
        Context.getLangOpts());
    if (Name.empty() || Name.size() > 40 || Name.contains('\n'))
      Name = "opt";
    LazyDefault = ("'" + Name + ".has_value() ? *" + Name +
                   " : ...', which reads only when '" + Name +
                   "' is empty ('value_or' evaluates its argument first)")
                      .str();
    Chosen = LazyDefault;
  }
  {
    auto Diag = diag(Loc, "'%0' %1%select{ and waits for the current stream| "
                          "and waits for all work on the device|}2")
                << Callee << Effect << static_cast<unsigned>(Wait);
    if (Fix)
      Diag << *Fix;
  } // emitted here, before its notes
  // The notes point at the call as written, inside a macro's argument too,
  // with no macro backtrace of their own.
  SourceLocation NoteLoc = SM.getFileLoc(Loc);
  diag(NoteLoc, "consider %0", DiagnosticIDs::Note) << Chosen;
  if (Rewrite) {
    auto Note = diag(NoteLoc, Rewrite->Note, DiagnosticIDs::Note);
    for (const FixItHint &Hint : Rewrite->Fixes)
      Note << Hint;
  }
  if (Loop)
    diag(SM.getExpansionLoc(Loop->getBeginLoc()),
         "the call runs on every iteration of this loop", DiagnosticIDs::Note);
  noteRunCondition(Call, Context);
  if (!Measured.empty())
    diag(NoteLoc, "measured on a GPU: %0", DiagnosticIDs::Note) << Measured;
}

void SyncCheckBase::noteRunCondition(const Expr &Call, ASTContext &Context) {
  RunConditionResult Guard = findRunCondition(Call, Context, Branches);
  if (Guard.Guard)
    diag(Guard.Guard->Loc, "the call runs %0", DiagnosticIDs::Note)
        << Guard.Guard->Description;
}

void SyncCheckBase::onEndOfTranslationUnit() {
  if (LimitedScope)
    restoreWholeTraversalScope(*LimitedScope);
  LimitedScope = nullptr;
  // Every check writes what has been asked so far, the last the union of all.
  if (recordsFactQueries() && Unit) {
    const SourceManager &SM = Unit->getSourceManager();
    OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
    std::string MainFile =
        Main ? absoluteSourcePath(Main->getName(), SM.getFileManager()) : "";
    std::string Problem = writeUnitJson(
        ProjectFactsQueryDirectory, MainFile,
        llvm::json::Object{
            {"format", "torch-sync-project-facts-queries"},
            {"translation_unit", MainFile},
            {"queries", ProjectFacts::recorder()->recordedQueries()}});
    if (!Problem.empty())
      configurationDiag("cannot write the project facts queries %0") << Problem;
  }
  Unit = nullptr;
}

void SyncCheckBase::registerMatchers(MatchFinder *Finder) {
  Finder->addMatcher(translationUnitDecl().bind(TranslationUnitId), this);
  if (Category)
    registerMeasuredSyncMatchers(Finder, *Category);
  registerSyncMatchers(Finder);
}

void SyncCheckBase::checkSync(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>(CallId);
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee || !Category)
    return;
  ASTContext &Context = *Result.Context;
  const SyncFact *Fact = findSyncFact(*Category, *Callee);
  if (!Fact || !isReportablePlace(*Call, Context) ||
      skipsCall(*Call, *Fact, Context))
    return;
  std::optional<CallSync> Sync =
      callSync(*Call, *Fact, devices(Context), Context, callRules());
  if (!Sync || (needsTensorDevice() && !isReportableDevice(Sync->Device)))
    return;
  reportCallSync(*Call, *Sync, Result);
}

void SyncCheckBase::reportCallSync(const CallExpr &Call, const CallSync &Sync,
                                   const MatchFinder::MatchResult &Result) {
  reportSync(Call, Sync.Name, Sync.Fact->Effect,
             adviceFor(Call, Sync, *Result.Context), *Result.Context);
}

SyncCheckBase::Advice SyncCheckBase::adviceFor(const CallExpr &Call,
                                               const CallSync &Sync,
                                               ASTContext &Context) {
  if (std::optional<ValueUse> Use =
          valueUse(Call, Sync, devices(Context), Context, callRules()))
    return Advice(useAlternative(*Use));
  return Advice::of(*Sync.Fact);
}

void SyncCheckBase::check(const MatchFinder::MatchResult &Result) {
  if (Result.Nodes.getNodeAs<TranslationUnitDecl>(TranslationUnitId)) {
    Unit = Result.Context;
    // The first torch-sync check to see the unit limits the scope; the
    // others find it limited. With --system-headers the parents inside
    // system headers may be asked for.
    if (!TidyContext->getOptions().SystemHeaders.value_or(false) &&
        limitTraversalScopeToUserCode(*Result.Context))
      LimitedScope = Result.Context;
    return;
  }
  if (const auto *Call = Result.Nodes.getNodeAs<CallExpr>(MeasuredCallId)) {
    checkMeasuredSync(*Call, *Result.Context);
    return;
  }
  checkSync(Result);
}

void SyncCheckBase::registerMeasuredSyncMatchers(MatchFinder *Finder,
                                                 SyncCategory Category) {
  MeasuredCategory = Category;
  // The callee's bare name is looked up in a set (hasAnyName over a few
  // hundred qualified names would cost a comparison each per call);
  // findMeasuredSync() then checks the class or namespace and the overload.
  auto Names = std::make_shared<llvm::StringSet<>>();
  for (const MeasuredSync &Measured : measuredSyncs())
    if (Measured.Category == Category)
      Names->insert(Measured.CppName);
  if (Names->empty())
    return;
  Finder->addMatcher(
      callExpr(callee(functionDecl(hasNameInSet(Names))),
               // Calls inside LibTorch's and other system headers are never
               // reported; skipping them here keeps the matcher cheap.
               unless(isExpansionInSystemHeader()))
          .bind(MeasuredCallId),
      this);
}

void SyncCheckBase::checkMeasuredSync(const CallExpr &Call,
                                      ASTContext &Context) {
  const FunctionDecl *Callee = Call.getDirectCallee();
  if (!Callee)
    return;
  const MeasuredSync *Measured = findMeasuredSync(*Callee);
  // The name matched; the overload (its parameter kinds) must be the one the
  // census measured to block the host, in this check's category.
  if (!Measured || Measured->Category != MeasuredCategory ||
      !isReportablePlace(Call, Context))
    return;
  if (!isReportableDevice(devices(Context).inputsDevice(Call)))
    return;
  reportSync(Call, calleeName(Call, *Callee), Measured->Effect,
             Measured->Alternative, Context, std::nullopt,
             Measured->DeviceWide ? HostWait::WholeDevice
                                  : HostWait::CurrentStream,
             std::nullopt, Measured->MechanismSummary);
}

bool SyncCheckBase::isShapeRead(const Expr &Read, ASTContext &Context) {
  return shapeUse(Read, Context).has_value();
}

std::optional<ShapeUse> SyncCheckBase::shapeUse(const Expr &Read,
                                                ASTContext &Context) {
  const FunctionDecl *Function = enclosingFunction(Read, Context);
  if (!Function || !Function->getBody())
    return std::nullopt;
  auto Cached = ShapeReads.find(Function);
  if (Cached == ShapeReads.end())
    Cached = ShapeReads
                 .try_emplace(Function,
                              findShapeReads(*Function->getBody(), Context))
                 .first;
  auto Found = Cached->second.find(&Read);
  if (Found == Cached->second.end())
    return std::nullopt;
  return Found->second;
}

} // namespace clang::tidy::torch_sync
