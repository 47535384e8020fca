//===--- SyncCheckBase.h - what every torch-sync check shares --------------===//
//
// The options, the filters and the message that all torch-sync checks share.
// A check derives from SyncCheckBase, registers its matchers, and in check()
// asks shouldReport() and emits reportSync(). The base class decides:
//   - where not to report: LibTorch's and other system headers, functions in
//     which a sync is intended, a location already reported from another
//     template instantiation, tensors provably on the CPU;
//   - what to say: the call, what the host waits for, whether it repeats in a
//     loop, and the sync-free alternative from the facts table.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_SYNCCHECKBASE_H
#define TORCH_SYNC_SYNCCHECKBASE_H

#include "DeviceInference.h"
#include "SyncFacts.h"
#include "clang-tidy/ClangTidyCheck.h"
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
  ///   LoopsOnly              report only syncs inside loop bodies
  ///   LibTorchHeaderRegex    paths of LibTorch headers, never reported in
  SyncCheckBase(StringRef Name, ClangTidyContext *Context);

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

protected:
  /// Whether a sync by \p Call, on a tensor on \p Device, is reported: not
  /// provably on the CPU, not in a LibTorch or system header, not in an
  /// intended-sync function, inside a loop when LoopsOnly is set, and not yet
  /// reported at the same place.
  bool shouldReport(const Expr &Call, DeviceKind Device, ASTContext &Context);

  /// Emits "'<Callee>' <Effect> and blocks until the GPU has finished all
  /// queued work[, on every loop iteration]; consider <Alternative>" at the
  /// call, and remembers the location.
  void reportSync(const Expr &Call, StringRef Callee, StringRef Effect,
                  StringRef Alternative, ASTContext &Context);

  /// Compiles the semicolon-separated regular expressions of option
  /// \p OptionName; reports each invalid one as a configuration error and
  /// leaves it out.
  std::vector<llvm::Regex> parseRegexList(StringRef OptionName, StringRef Value);

  /// The device inference for the current translation unit.
  DeviceInference &devices(ASTContext &Context);

  /// The location to report a call at: the member name for 't.item()', the
  /// operator for 'os << t', the call's start otherwise; for a call written
  /// in a LibTorch macro ('TORCH_WARN'), where the macro is used (clang-tidy
  /// drops diagnostics located in system macros).
  SourceLocation callLocation(const Expr &Call, const SourceManager &SM) const;

private:
  bool isInLibraryHeader(SourceLocation Loc, const SourceManager &SM) const;
  bool isInIntendedFunction(const Expr &Call, ASTContext &Context) const;

  const std::string IntendedSyncFunctions;
  const bool ReportUnknownDevice;
  const bool LoopsOnly;
  const std::string LibTorchHeaderRegex;
  std::vector<llvm::Regex> IntendedPatterns;
  llvm::Regex LibTorchHeaderPattern;
  llvm::DenseSet<unsigned> ReportedLocations;
  std::unique_ptr<DeviceInference> Inference;
  const ASTContext *InferenceContext = nullptr;
};

/// Whether \p Node sits in the body, condition or increment of a loop within
/// its function (not in a for-init or range-init, which run once).
bool isInsideLoop(const Stmt &Node, ASTContext &Context);

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_SYNCCHECKBASE_H
