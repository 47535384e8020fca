//===--- GraphCaptureCheck.h - torch-sync-graph-capture -------------------===//

#ifndef TORCH_SYNC_GRAPHCAPTURECHECK_H
#define TORCH_SYNC_GRAPHCAPTURECHECK_H

#include "analysis/GraphCapture.h"
#include "analysis/ImplicitCalls.h"
#include "analysis/SyncSummary.h"
#include "checks/SyncCheckBase.h"
#include <memory>
#include <vector>

namespace clang::tidy::torch_sync {

/// Finds calls that fail a CUDA graph capture: a sync, a call of the
/// project's own that reaches one, or a call the capture refuses
/// ('cudaMalloc', a launch on the legacy stream; sync-facts.yaml
/// 'capture_facts'), between a capture's begin ('CUDAGraph::capture_begin',
/// 'cudaStreamBeginCapture', an RAII class that calls it) and its end, along
/// the function's control flow (GraphCapture.h).
///
/// For the user-facing documentation see docs/checks/graph-capture.md.
class GraphCaptureCheck : public SyncCheckBase {
public:
  GraphCaptureCheck(StringRef Name, ClangTidyContext *Context)
      : SyncCheckBase(Name, Context) {}
  void onStartOfTranslationUnit() override;
  /// Analyses the functions collected, when the unit begins a capture
  /// anywhere, before the base gives the unit its whole traversal scope.
  void onEndOfTranslationUnit() override;

protected:
  /// A capture fails in a loop or not: LoopsOnly does not apply.
  bool limitsToLoops() const override { return false; }
  void registerSyncMatchers(ast_matchers::MatchFinder *Finder) override;
  /// Collects the function definitions, and notes a capture's begin.
  void checkSync(const ast_matchers::MatchFinder::MatchResult &Result) override;

private:
  /// Reports what fails the captures open before \p Element, a call, or a
  /// construction or destruction among the function's \p ImplicitCalls.
  void checkElement(const CapturedElement &Element,
                    llvm::ArrayRef<CallSite> ImplicitCalls,
                    ASTContext &Context);
  /// Reports \p Call when it synchronizes (findCallSync); whether it does.
  bool reportDirectSync(const CallExpr &Call, const OpenCapture &Capture,
                        ASTContext &Context);
  /// Reports \p Call when a capture refuses it (a capture fact); whether it
  /// does.
  bool reportRefusedCall(const CallExpr &Call, const CapturedElement &Element,
                         ASTContext &Context);
  /// Reports \p Site when its callee's visible body reaches a sync
  /// (SyncSummaries); whether it does.
  bool reportReachedSync(const CallSite &Site, const OpenCapture &Capture,
                         ASTContext &Context);
  /// Reports \p Call when its callee's visible body reaches a call that a
  /// capture open before \p Element refuses (CaptureRegions::reachedRefusal).
  void reportReachedRefusal(const CallExpr &Call,
                            const CapturedElement &Element,
                            ASTContext &Context);
  /// Whether \p Call may be reported at \p At (or its place), once.
  bool claimPlace(const Expr &Call, ASTContext &Context,
                  SourceLocation At = SourceLocation());
  /// The line the capture \p Capture begins at, for the message.
  unsigned beginLine(const OpenCapture &Capture, ASTContext &Context) const;
  /// The note at the capture's begin.
  void noteBegin(const OpenCapture &Capture, ASTContext &Context);

  SyncSummaries &summaries(ASTContext &Context);

  /// The function definitions of the unit, in the order matched.
  std::vector<const FunctionDecl *> Functions;
  /// Whether the unit calls a capture_begin function.
  bool BeginsCapture = false;
  ASTContext *Unit = nullptr;
  llvm::DenseSet<unsigned> Reported;
  std::unique_ptr<SyncSummaries> Summaries;
  std::unique_ptr<CaptureRegions> Regions;
};

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_GRAPHCAPTURECHECK_H
