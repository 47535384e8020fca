//===--- SyncCheckBase.h - what every torch-sync check shares -------------===//
//
// The options, the filters, the pipeline and the message that all torch-sync
// checks share. A check derives from SyncCheckBase, gives it its category of
// the facts, and registers its matchers in registerSyncMatchers(), binding the
// calls to CallId; the base registers the census-measured calls of the
// category and runs each call through find-fact, place, decide and report
// (checkSync). A check says only what is special to it: calls it leaves to
// another check (skipsCall), its rules (callRules), its message
// (reportCallSync), other nodes it matches (checkSync, then the base's).
// The base class decides:
//   - where not to report: LibTorch's and other system headers, functions in
//     which a sync is intended, a location already reported from another
//     template instantiation, tensors provably on the CPU;
//   - what to say: the call, what the host waits for, whether it repeats in a
//     loop, and the sync-free alternative from the facts table.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_SYNCCHECKBASE_H
#define TORCH_SYNC_SYNCCHECKBASE_H

#include "analysis/CallSync.h"
#include "analysis/DeviceValueFlow.h"
#include "analysis/ReadUse.h"
#include "analysis/RunCondition.h"
#include "analysis/SyncSummary.h"
#include "analysis/UnitTestCode.h"
#include "analysis/device/DeviceInference.h"
#include "checks/AlternativeRewrites.h"
#include "clang-tidy/ClangTidyCheck.h"
#include "facts/SyncFacts.h"
#include "project/ProjectFacts.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Regex.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::torch_sync {

class SyncCheckBase : public ClangTidyCheck {
public:
  /// Reads the shared options (local to the check, or global):
  ///   IntendedSyncFunctions  regexes of functions whose syncs are intended
  ///   ReportUnknownDevice    report tensors whose device is not known
  ///   ProjectDatasetsOnCPU   take the examples of the project's own
  ///                          torch::data datasets to be on the CPU
  ///   LoopsOnly              report only syncs inside loop bodies
  ///   LibTorchHeaderRegex    paths of LibTorch headers, never reported in
  ///   ThirdPartyHeaderRegex  paths of other libraries' headers (pybind11,
  ///                          CUDA's), never reported in
  ///   SkipLibraryHeaders     parse the headers of both as system headers,
  ///                          so that no matcher runs inside them
  ///   LibTorchVersion        "MAJOR.MINOR" to apply rules for, or "" for
  ///                          the version the parsed headers define
  ///   ProjectFactsFile       the project facts file (ProjectFacts.h) that
  ///                          the device inference reads, or "" for none
  ///   ProjectFactsQueryDirectory
  ///                          without ProjectFactsFile: record what the
  ///                          device inference asks of the project facts
  ///                          (ProjectFacts::recorder) and write it to this
  ///                          folder, one file per translation unit named by
  ///                          its main file's MD5; "" for none
  ///   IgnoreUnitTests        no findings in unit-test bodies and their
  ///                          file-local helpers (UnitTestCode.h)
  ///   UnitTestMacros         the test macros whose bodies those are
  /// \p Category is the facts' category of the calls the check reports:
  /// the base registers the census-measured calls of that category and runs
  /// the pipeline of checkSync() on the calls the check matches; none for a
  /// check with a pipeline of its own (transitive, project facts).
  SyncCheckBase(StringRef Name, ClangTidyContext *Context,
                std::optional<SyncCategory> Category = std::nullopt);

  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus;
  }
  /// Template instantiations are visited (a dependent 't.item()' is resolved
  /// only there); reportSync() reports each location once.
  std::optional<TraversalKind> getCheckTraversalKind() const override {
    return TK_AsIs;
  }
  void onStartOfTranslationUnit() override;
  /// Gives the translation unit back its whole traversal scope, if this check
  /// limited it (see check()).
  void onEndOfTranslationUnit() override;
  /// Keeps \p PP, and with SkipLibraryHeaders marks the headers that match
  /// LibTorchHeaderRegex or ThirdPartyHeaderRegex as system headers
  /// (markLibraryHeadersAsSystem).
  void registerPPCallbacks(const SourceManager &SM, Preprocessor *PP,
                           Preprocessor *ModuleExpanderPP) override;

  /// Registers a matcher of the translation unit's declaration (matched
  /// before any other node), the census-measured calls' matchers of the
  /// check's category and the check's own (registerSyncMatchers).
  void registerMatchers(ast_matchers::MatchFinder *Finder) final;
  /// At the translation unit's declaration, limits the parent map to the
  /// user's code (TraversalScope.h) unless --system-headers asks for
  /// findings in system headers; passes census-measured calls to
  /// checkMeasuredSync and every other match to checkSync.
  void check(const ast_matchers::MatchFinder::MatchResult &Result) final;

protected:
  /// The bind id of the calls that a check's matchers give the base's
  /// pipeline (checkSync).
  static constexpr llvm::StringLiteral CallId = "call";

  /// Registers the check's own matchers; the calls for the pipeline are
  /// bound to CallId.
  virtual void registerSyncMatchers(ast_matchers::MatchFinder *Finder) = 0;
  /// The pipeline of a call bound to CallId: the callee's fact of the
  /// check's category (findSyncFact), a reportable place, the check's own
  /// exclusions (skipsCall), whether and where it synchronizes (callSync,
  /// with callRules), a reportable device unless the call waits for a device
  /// whatever its tensors (needsTensorDevice), and the report
  /// (reportCallSync). A check that matches other nodes overrides it, handles
  /// them, and passes the rest on.
  virtual void checkSync(const ast_matchers::MatchFinder::MatchResult &Result);
  /// Whether the check leaves \p Call of \p Fact to another check; no by
  /// default.
  virtual bool skipsCall(const CallExpr &Call, const SyncFact &Fact,
                         ASTContext &Context) {
    return false;
  }
  /// The rules callSync applies (CallSync.h); the LibTorch version's.
  virtual SyncRules callRules() const { return syncRules(); }
  /// Whether a call is reported only on a tensor that may be on a device
  /// (isReportableDevice); not for explicit waits.
  virtual bool needsTensorDevice() const { return true; }
  /// Reports \p Sync at \p Call: "'<name>' <effect>...; consider
  /// <alternative>", from the fact (reportSync).
  virtual void
  reportCallSync(const CallExpr &Call, const CallSync &Sync,
                 const ast_matchers::MatchFinder::MatchResult &Result);

  /// Whether LoopsOnly limits the check's findings to loop bodies; a check
  /// whose findings matter outside loops too (a failed graph capture) says
  /// no.
  virtual bool limitsToLoops() const { return true; }

  /// Whether a sync by \p Call may be reported at its place: not in a
  /// LibTorch or system header, not yet reported (another template
  /// instantiation), inside a loop when LoopsOnly is set, not in an
  /// intended-sync function, not in unit-test code with IgnoreUnitTests.
  /// Cheap: call it before inferring devices. \p At, when valid, is where
  /// the report goes instead of the call's place (the closing brace where a
  /// variable's destructor runs).
  bool isReportablePlace(const Expr &Call, ASTContext &Context,
                         SourceLocation At = SourceLocation());

  /// Whether a sync on a tensor on \p Device is reported: never on the CPU;
  /// an unknown (or unspecified) device only with ReportUnknownDevice.
  bool isReportableDevice(DeviceKind Device) const;

  /// What the host waits for at a sync, as the message says it.
  enum class HostWait {
    /// The work queued on the current stream: LibTorch's copies to and from
    /// the host wait for it with cudaStreamSynchronize (the census measured
    /// every such call: runtime-verify/census).
    CurrentStream,
    /// All work queued on the device (a census row whose mechanism includes
    /// cudaDeviceSynchronize, a synchronous cudaMemcpy or cudaFree).
    WholeDevice,
    /// The Effect says it ("waits for all work queued on the device"):
    /// explicit waits, whose target is the device, a stream or an event.
    StatedInEffect,
  };

  /// The sync-free alternatives a message chooses from: InLoop (one bulk copy
  /// instead of one per iteration) where the call runs on every iteration of
  /// a loop and InLoop is set, else Default (adviceFor() picks them by the
  /// shape of the use).
  struct Advice {
    Advice(StringRef Default, StringRef InLoop = "")
        : Default(Default), InLoop(InLoop) {}
    Advice(const char *Default) : Default(Default) {}
    Advice(const std::string &Default) : Default(Default) {}
    /// A fact's Alternative and LoopAlternative.
    static Advice of(const SyncFact &Fact) {
      return Advice(Fact.Alternative, Fact.LoopAlternative);
    }
    StringRef Default;
    StringRef InLoop;
  };

  /// The alternatives for \p Sync at \p Call: the alternative of the use
  /// (ReadUse.h; sync-facts.yaml 'advice_by_use') where the code uses what the
  /// call reads, uploads or waits for in one of those shapes, loop or not;
  /// else the fact's (Advice::of).
  Advice adviceFor(const CallExpr &Call, const CallSync &Sync,
                   ASTContext &Context);

  /// Emits "'<Callee>' <Effect>[ and waits for the current stream | and
  /// waits for all work on the device]" at the call, with \p Fix when given
  /// (only rewrites that keep the program's meaning, applied by --fix), and
  /// remembers the location. Notes follow: "consider <alternative>", the
  /// alternative chosen from \p Alternative; \p Rewrite's note with its
  /// fix-its (applied by --fix-notes); the loop the call runs in on every
  /// iteration; the flag the call runs under (noteRunCondition); what the
  /// census measured, when \p Measured names it. \p At, when valid, is
  /// where the report goes instead of the call's place (isReportablePlace).
  void reportSync(const Expr &Call, StringRef Callee, StringRef Effect,
                  Advice Alternative, ASTContext &Context,
                  std::optional<FixItHint> Fix = std::nullopt,
                  HostWait Wait = HostWait::CurrentStream,
                  std::optional<AlternativeRewrite> Rewrite = std::nullopt,
                  StringRef Measured = "",
                  SourceLocation At = SourceLocation());

  /// The name a diagnostic gives the callee: the bare name of a member
  /// ('item', 'operator[]'), the qualified name of a free function
  /// ('at::equal').
  static std::string calleeName(const CallExpr &Call,
                                const FunctionDecl &Callee);

  /// Compiles the semicolon-separated regular expressions of option
  /// \p OptionName; reports each invalid one as a configuration error and
  /// leaves it out.
  std::vector<llvm::Regex> parseRegexList(StringRef OptionName,
                                          StringRef Value);

  /// The LibTorch version the code is analysed against, as major * 100 +
  /// minor (113 for 1.13, 211 for 2.11): the LibTorchVersion option when set;
  /// else TORCH_VERSION_MAJOR and TORCH_VERSION_MINOR as defined by the parsed
  /// headers (torch/version.h); else NewestKnownVersion.
  unsigned libTorchVersion() const;
  /// What the argument conditions of the facts depend on besides the call
  /// (CallSync.h): the LibTorch version.
  SyncRules syncRules() const { return SyncRules{libTorchVersion()}; }
  /// The newest LibTorch release whose behaviour the facts describe.
  static constexpr unsigned NewestKnownVersion = 211;

  /// Whether the 'item()' call \p Read gives a value that sizes, slices or
  /// indexes a tensor in its function (findShapeReads, cached per function).
  bool isShapeRead(const Expr &Read, ASTContext &Context);
  /// How the value of the shape read \p Read is used (it sizes an output, or
  /// indexes or bounds a tensor); std::nullopt when it is no shape read.
  std::optional<ShapeUse> shapeUse(const Expr &Read, ASTContext &Context);

  /// Whether \p Function's qualified name matches IntendedSyncFunctions: its
  /// syncs are intended, and so are the syncs of a call to it.
  bool isIntendedFunction(const FunctionDecl &Function) const;

  /// Notes the flag or preprocessor branch that the reported \p Call runs
  /// under, if any (RunCondition.h): "the call runs only when 'debug' is true".
  void noteRunCondition(const Expr &Call, ASTContext &Context);

  /// The options of the sync summaries (SyncSummary.h) that
  /// torch-sync-transitive and torch-sync-graph-capture follow calls with: this
  /// check's rules, its intended functions, library headers and preprocessor
  /// branches; the depth is left at its default.
  SyncSummaries::Options summaryOptions(ASTContext &Context);

  /// The preprocessor branches of the translation unit (RunCondition.h); null
  /// before registerPPCallbacks.
  const ConditionalBranches *conditionalBranches() const { return Branches; }

  /// The device inference for the current translation unit, with the
  /// project facts of ProjectFactsFile when they can be used; when they
  /// cannot, a configuration diagnostic says why, once per translation unit.
  DeviceInference &devices(ASTContext &Context);

  /// Whether the device inference reads ProjectFactsFile; the check that
  /// collects the facts does not.
  virtual bool readsProjectFacts() const { return true; }
  /// Whether the device inference asks the recorder's empty facts and the
  /// questions are written (ProjectFactsQueryDirectory without a facts file).
  bool recordsFactQueries() const;

  /// The fingerprint of the options that change what the device inference
  /// concludes (inferenceFingerprint in ProjectFacts.h).
  std::string inferenceFingerprint() const;

  /// The location to report a call at: the member name for 't.item()', the
  /// operator for 'os << t', the call's start otherwise; for a call written
  /// in a LibTorch macro ('TORCH_WARN'), where the macro is used (clang-tidy
  /// drops diagnostics located in system macros).
  SourceLocation callLocation(const Expr &Call, const SourceManager &SM) const;

  /// Whether \p Loc (its expansion) is in a system header or in a file that
  /// LibTorchHeaderRegex or ThirdPartyHeaderRegex matches; the main file
  /// never is.
  bool isInLibraryHeader(SourceLocation Loc, const SourceManager &SM) const;

  /// Registers the calls of the ATen overloads that the census measured to
  /// block the host and classified under \p Category (findMeasuredSync).
  /// The base class reports them, like the check's own facts: at a
  /// reportable place, on tensors that may be on a device, with the census
  /// table's effect, mechanism and alternative. checkSync() never sees them.
  void registerMeasuredSyncMatchers(ast_matchers::MatchFinder *Finder,
                                    SyncCategory Category);

private:
  /// Reports \p Call of a census-measured overload (see
  /// registerMeasuredSyncMatchers).
  void checkMeasuredSync(const CallExpr &Call, ASTContext &Context);

  bool isInIntendedFunction(const Expr &Call, ASTContext &Context) const;

  const std::string IntendedSyncFunctions;
  const bool ReportUnknownDevice;
  const bool ProjectDatasetsOnCPU;
  const bool LoopsOnly;
  const std::string LibTorchHeaderRegex;
  const std::string ThirdPartyHeaderRegex;
  const bool SkipLibraryHeaders;
  const std::string LibTorchVersion;
  const std::string ProjectFactsFile;
  const std::string ProjectFactsQueryDirectory;
  const bool IgnoreUnitTests;
  const std::string UnitTestMacros;
  /// For the SystemHeaders option of the current file.
  ClangTidyContext *const TidyContext;
  /// The unit whose traversal scope this check limited, until its end.
  ASTContext *LimitedScope = nullptr;
  /// The current translation unit, from its first match to its end.
  ASTContext *Unit = nullptr;
  std::optional<unsigned> ConfiguredVersion;
  /// The facts' category of the calls the check reports, if it has one.
  const std::optional<SyncCategory> Category;
  std::optional<SyncCategory> MeasuredCategory;
  Preprocessor *PP = nullptr;
  /// Owned by the Preprocessor.
  ConditionalBranches *Branches = nullptr;
  std::vector<llvm::Regex> IntendedPatterns;
  /// The unit-test code of the current translation unit.
  std::optional<UnitTestCode> Tests;
  llvm::Regex LibTorchHeaderPattern;
  llvm::Regex ThirdPartyHeaderPattern;
  llvm::DenseSet<unsigned> ReportedLocations;
  llvm::DenseMap<const FunctionDecl *, llvm::DenseMap<const Expr *, ShapeUse>>
      ShapeReads;
  /// The project facts that Inference reads, if any.
  std::shared_ptr<const ProjectFacts> Facts;
  std::unique_ptr<DeviceInference> Inference;
  const ASTContext *InferenceContext = nullptr;
};

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_SYNCCHECKBASE_H
