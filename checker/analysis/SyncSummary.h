//===--- SyncSummary.h - the syncs a call of a function reaches -----------===//
//
// Per-function summaries of the syncs that a function's body reaches, in the
// body itself or through the functions it calls, for torch-sync-transitive.
// A sync in a body is a call that CallSync.h says synchronizes; a call to a
// function with a visible definition (not of ATen, c10 or std, not itself a
// fact) is followed, to any depth, and so are the calls a body makes without
// writing them (ImplicitCalls.h): constructors, destructors, user-defined
// conversions, a lambda called through a std::function.
//
// A summary keeps, for each place the sync's data may come from, the
// shallowest way to it: a CUDA tensor or an explicit wait (the device is
// known), a tensor of unknown device, or the tensor of one of the function's
// parameters, decided at each call by the argument passed there. A call that
// passes a CPU tensor to 'readLoss(const Tensor &)' reaches no sync; one that
// passes a CUDA tensor reaches a sync on a known device. Ways that run only
// under a flag (RunCondition.h) are kept apart, so that an unconditional sync
// is preferred to a deeper guarded one.
//
// Each function is summarized once per translation unit. Recursion is handled
// as strongly connected components (Tarjan): the functions of a cycle are
// summarized together, by iteration until nothing changes.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_SYNCSUMMARY_H
#define TORCH_SYNC_SYNCSUMMARY_H

#include "analysis/CallSync.h"
#include "analysis/ImplicitCalls.h"
#include "analysis/RunCondition.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace clang {
class ASTContext;
class CallExpr;
class FieldDecl;
class FunctionDecl;
class SourceManager;
class Stmt;
namespace tidy::torch_sync {

/// One way from a function's body to a sync.
struct SyncPath {
  /// How many calls deep the sync is: 1 when it is in the body itself.
  unsigned Levels = 0;
  /// The call in the body on the way: the sync itself, or the call of the
  /// next function, written or implicit.
  CallSite Through;
  /// The sync at the end of the way, and its name in diagnostics.
  const CallExpr *Sync = nullptr;
  std::string SyncName;
  /// The flag the way runs under, the one nearest to the body, or null.
  const RunCondition *Guard = nullptr;
};

/// Whether \p Function is a lambda's call operator.
bool isLambdaCallOperator(const FunctionDecl &Function);

/// The name a diagnostic gives \p Function on a way to a sync: its qualified
/// name, and for a lambda, the function it is defined in ("lambda in
/// 'metrics::evaluate'" would nest quotes: "lambda in metrics::evaluate"), or
/// its place ("lambda at train.cpp:12").
std::string diagnosticFunctionName(const FunctionDecl &Function,
                                   const SourceManager &SM);

/// The summaries of one translation unit.
class SyncSummaries {
public:
  struct Options {
    /// How many calls deep to look (0: no limit).
    unsigned MaxDepth = 0;
    SyncRules Rules;
    /// Whether syncs in a function are intended (IntendedSyncFunctions):
    /// such a function is not followed.
    std::function<bool(const FunctionDecl &)> IsIntended;
    /// Whether a location is in LibTorch's or another library's headers
    /// (SyncCheckBase::isInLibraryHeader), where no option is unset.
    std::function<bool(SourceLocation)> IsInLibraryHeader;
    /// The preprocessor branches of the translation unit, or null.
    const ConditionalBranches *Branches = nullptr;
  };

  SyncSummaries(ASTContext &Context, DeviceInference &Devices, Options Opts);
  ~SyncSummaries();

  /// The definition of \p Callee when a call to it is followed: it has one
  /// in the translation unit, is not in namespace at, c10, caffe2 or std,
  /// is not a fact's declaration (isSyncDeclaration) and is not intended to
  /// sync; null otherwise.
  const FunctionDecl *followedDefinition(const FunctionDecl &Callee) const;

  /// The way the call \p Call of \p Definition (followedDefinition), written
  /// or implicit, reaches a sync, with the devices of the arguments it
  /// passes: the unguarded before the guarded, then the shallowest, then one
  /// on a known device. Syncs on a tensor of unknown device count only with
  /// \p UnknownDevice.
  std::optional<SyncPath> reachedSync(const CallSite &Call,
                                      const FunctionDecl &Definition,
                                      bool UnknownDevice);

private:
  /// Where a sync's data comes from, seen from one function.
  struct Source {
    enum KindType { Host, Device, Unknown, Parameter } Kind = Unknown;
    /// For Parameter: the parameter's index.
    unsigned Index = 0;
    bool operator==(const Source &Other) const {
      return Kind == Other.Kind && (Kind != Parameter || Index == Other.Index);
    }
  };
  struct Entry {
    Source From;
    SyncPath Path;
  };
  /// A followed call in a body, with where each tensor argument's device
  /// comes from (by the callee's parameter index).
  struct Edge {
    CallSite Call;
    const FunctionDecl *Callee;
    llvm::SmallVector<Source, 4> Arguments;
    const RunCondition *Guard;
  };
  struct Node;

  Node &node(const FunctionDecl &Definition);
  /// Tarjan's visit: summarizes \p N and everything it calls.
  void visit(Node &N);
  /// Reads the body of \p N's function: its syncs and followed calls, written
  /// (also in a constructor's initializers) and implicit.
  void readBody(Node &N);
  /// Reads the written calls in \p Root, a part of \p N's function.
  void readWrittenCalls(Node &N, const Stmt &Root);
  /// Adds the edge of the call \p Site to \p N when its callee is followed.
  void addEdge(Node &N, const CallSite &Site, const Stmt *Body);
  /// Recomputes \p N's summary from its body and its callees' summaries;
  /// whether it changed.
  bool evaluate(Node &N);

  /// Where the tensor \p Tensor's device comes from in \p Function.
  Source sourceOf(const Expr *Tensor, const FunctionDecl &Function);
  /// The sources of the arguments \p Call passes to \p Callee's parameters
  /// (none known for a destructor).
  llvm::SmallVector<Source, 4> argumentSources(const CallSite &Call,
                                               const FunctionDecl &Callee,
                                               const FunctionDecl *Caller);
  /// A guard kept for the lifetime of the summaries.
  const RunCondition *keep(std::optional<RunCondition> Guard);

  /// Whether the sync \p Sync in \p Body runs only when an option of a
  /// module is unset, and nothing in the translation unit unsets it:
  /// 'num_batches_tracked.item()' in BatchNorm's forward sits under
  /// 'if (this->options.momentum() == c10::nullopt)', and momentum defaults
  /// to 0.1 (torch/nn/modules/batchnorm.h, torch/nn/options/batchnorm.h).
  bool runsOnlyWithUnsetOption(const CallExpr &Sync, const Stmt &Body);
  /// Whether code outside the library headers may unset the option stored in
  /// \p Field (the 'X_' member of TORCH_ARG(c10::optional<T>, X)): a call of
  /// its setter with anything but a number, or of its non-const getter,
  /// which returns a reference. Cached.
  bool mayUnsetOption(const FieldDecl &Field);

  ASTContext &Context;
  DeviceInference &Devices;
  const Options Opts;
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<Node>> Nodes;
  std::vector<Node *> Stack;
  unsigned NextIndex = 0;
  std::deque<RunCondition> Guards;
  llvm::DenseMap<const FieldDecl *, bool> OptionsMaybeUnset;
};

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_SYNCSUMMARY_H
