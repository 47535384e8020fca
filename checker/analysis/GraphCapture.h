//===--- GraphCapture.h - where a CUDA graph capture may be open ----------===//
//
// The regions of a function in which a CUDA stream capture may be open, for
// torch-sync-graph-capture: a forward may-analysis over clang's CFG whose
// state is the set of open captures. A capture opens at a call of a
// capture_begin function (sync-facts.yaml api list capture_begin_functions:
// 'CUDAGraph::capture_begin', 'cudaStreamBeginCapture',
// 'cuStreamBeginCapture' and their ToGraph forms) and closes at a
// capture_end function's call on the same capture: the same graph object, or
// for the runtime and driver calls the same stream expression. A branch that
// runs only when a capture status says no capture is under way (api lists
// capture_status_none and capture_status_active) starts with none open.
//
// The project's own functions are summarized (CaptureSummary): those that
// leave a capture open when they return ('beginCapture()', an RAII class's
// constructor) open it at their call, those that end a capture they did not
// begin ('endCapture()', its destructor) close it there. A capture is named
// by a key relative to its function ('this', a parameter, a variable, a
// printed expression), which a call maps onto the caller's object and
// arguments. A variable of an RAII class opens a capture at its construction
// and closes it at its scope's end (the CFG's automatic destructor).
//
// A capture that a function begins and does not end stays open to the
// function's end; an end of a capture that the function did not begin closes
// nothing in it (what runs before it is not known to be captured).
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_GRAPHCAPTURE_H
#define TORCH_SYNC_GRAPHCAPTURE_H

#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace clang {
class ASTContext;
class CallExpr;
class CFGElement;
class Expr;
class FunctionDecl;
class Stmt;
class VarDecl;
namespace tidy::torch_sync {

struct CaptureFact;

/// The capture fact of \p Call (sync-facts.yaml 'capture_facts'): of its
/// callee, or of a kernel launch on the legacy default stream (no stream, or
/// a null one, unless the default stream is per thread:
/// -fgpu-default-stream=per-thread); null for any other call.
const CaptureFact *refusingFact(const CallExpr &Call,
                                const ASTContext &Context);

/// A call that a capture refuses, reached from a function's body.
struct RefusedPath {
  /// The refused call and its fact.
  const CallExpr *Refused = nullptr;
  const CaptureFact *Fact = nullptr;
  /// The call in the body on the way: the refused call itself, or the call
  /// of the next function.
  const CallExpr *Through = nullptr;
  /// How many calls deep the refused call is: 1 in the body itself.
  unsigned Levels = 0;
};

/// One capture that may be open at a point of a function.
struct OpenCapture {
  /// Which capture: the graph object's or the stream's key (see the file
  /// comment).
  std::string Key;
  /// The call or construction in the function that opened it.
  const Expr *Begin = nullptr;
  /// Whether it was begun in relaxed mode (api list relaxed_capture_modes).
  bool Relaxed = false;
  bool operator==(const OpenCapture &Other) const {
    return Key == Other.Key && Begin == Other.Begin && Relaxed == Other.Relaxed;
  }
};

/// One element of a function's CFG where a capture may be open.
struct CapturedElement {
  /// A call (CallExpr, a kernel launch included) or a construction
  /// (CXXConstructExpr); null for a variable's destructor at its scope's end.
  const Expr *Call = nullptr;
  /// For a destructor at its scope's end: the variable.
  const VarDecl *Destroyed = nullptr;
  /// The captures that may be open before it, never empty.
  llvm::SmallVector<OpenCapture, 1> Open;
};

/// The capture regions of one translation unit's functions.
class CaptureRegions {
public:
  /// \p IsFollowed tells whether a call to a function with a definition is
  /// summarized (the project's own code, not a library's).
  CaptureRegions(ASTContext &Context,
                 std::function<bool(const FunctionDecl &)> IsFollowed);
  ~CaptureRegions();

  /// Calls \p Visit for each call, construction and automatic destructor of
  /// \p Function's body before which a capture may be open, once each, in
  /// no particular order; the calls that open or close a capture are not
  /// visited. Nothing for an invalid or dependent function.
  void forEachCapturedElement(
      const FunctionDecl &Function,
      llvm::function_ref<void(const CapturedElement &)> Visit);

  /// A call that a capture refuses which \p Definition's body makes, in the
  /// body or through the written calls of the functions it calls
  /// (IsFollowed): one in the body itself before any deeper; std::nullopt
  /// when there is none. A call under a flag of its body is left out.
  std::optional<RefusedPath> reachedRefusal(const FunctionDecl &Definition);

private:
  struct Summary;
  struct Analysis;
  /// Whether \p Call runs only under a flag of \p Body, or never
  /// (RunCondition.h).
  bool runsConditionally(const CallExpr &Call, const Stmt &Body);
  /// The summary of \p Definition: the captures it leaves open and those it
  /// ends without beginning them. Computed once; empty during its own
  /// computation (recursion).
  const Summary &summary(const FunctionDecl &Definition);

  ASTContext &Context;
  std::function<bool(const FunctionDecl &)> IsFollowed;
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<Summary>> Summaries;
  /// reachedRefusal's answers; std::nullopt also while one is computed.
  llvm::DenseMap<const FunctionDecl *, std::optional<RefusedPath>> Refusals;
};

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_GRAPHCAPTURE_H
