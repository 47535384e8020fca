//===--- DeviceConditions.h - guards and branches on a tensor's device ----===//
//
// What a test of a tensor's device tells about it: after a guard that stops
// the function when the test fails ('TORCH_CHECK(t.is_cuda())', 'CHECK_CPU(t)',
// 'if (!t.is_cpu()) throw ...;'), for the rest of its block, and inside the
// branches of 'if (t.is_cuda()) { ... } else { ... }' written in the source.
// The facts are source ranges (expansion offsets in one file) of the
// function; a switch's body has none after a guard (its cases may be entered
// past it). In a function with a label, where a goto may enter a range past
// its guard, a fact holds at a use only when the edge of clang's CFG that the
// test's outcome takes dominates the use's block (every path to the use
// passes the test with that outcome). A fact holds only for a variable that
// nothing writes (DeviceWrites::isNeverWritten).
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_DEVICECONDITIONS_H
#define TORCH_SYNC_DEVICECONDITIONS_H

#include "libtorch/DeviceLattice.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

namespace clang {
class ASTContext;
class CFG;
class Expr;
class IfStmt;
class FunctionDecl;
class SourceManager;
class Stmt;
class VarDecl;
namespace tidy::torch_sync {

class DeviceQueries;
class DeviceWrites;

/// A device that a condition gives a variable when it has a given truth.
using DeviceTest = std::pair<const VarDecl *, DeviceKind>;

/// The local tensor variable that \p E names, directly or as 't.device()' or
/// 't.device().type()' (the forms a device test is written with); null
/// otherwise.
const VarDecl *testedTensor(const Expr *E);

/// Whether the statement \p S never completes normally: it returns, throws,
/// calls a [[noreturn]] function (torchCheckFail, torchInternalAssertFail),
/// breaks or continues, in all its paths that the checks can see (a block
/// with such a statement, an 'if' whose branches all do, a
/// 'do { ... } while (0)' around one). False for null.
bool neverFallsThrough(const Stmt *S, ASTContext &Context);

/// Appends to \p Out the devices that condition \p Cond, when it evaluates to
/// \p Truth, gives to local tensor variables: 't.is_cuda()' and
/// 't.device().is_cuda()' (CUDA when true, not CUDA when false), 't.is_cpu()'
/// (CPU when true), 't.device() == at::kCUDA' and
/// 't.device().type() != c10::kCPU'-style comparisons with a device that
/// \p Devices names (targetDevice), through '!', '&&', '||', parentheses, casts
/// to bool and '__builtin_expect' (C10_UNLIKELY in TORCH_CHECK). A tensor that
/// is not on CUDA counts as on the CPU: the checks are about CUDA
/// synchronizations.
void collectDeviceTests(const Expr *Cond, bool Truth, DeviceQueries &Devices,
                        llvm::SmallVectorImpl<DeviceTest> &Out);

/// The expansion range from \p Begin to \p End in its file: (file, begin
/// offset, end offset); std::nullopt when invalid or not in one file.
std::optional<std::tuple<FileID, unsigned, unsigned>>
expansionOffsets(SourceLocation Begin, SourceLocation End,
                 const SourceManager &SM);

/// The guards and device branches of the functions of one translation unit,
/// cached per function.
class DeviceConditions {
public:
  /// A fact about a variable's device that holds inside a range of its
  /// function's source (expansion offsets in one file).
  struct DeviceFact {
    const VarDecl *Var;
    FileID File;
    unsigned Begin, End;
    DeviceKind Device;
    /// The test's 'if' and the outcome (its then branch when true) that the
    /// fact holds after.
    const IfStmt *Test;
    bool Outcome;
  };

  /// \p Devices names the devices that comparisons test against; \p Writes
  /// tells whether a variable is written.
  DeviceConditions(ASTContext &Context, DeviceQueries &Devices,
                   DeviceWrites &Writes);
  ~DeviceConditions();

  /// The device that a guard or a branch on the device of \p Var
  /// ('TORCH_CHECK(t.is_cuda())', 'if (t.is_cuda()) {...}') gives it at
  /// \p Use (the join of the facts whose range holds it); Unknown when none
  /// applies there, or when \p Var is written in its function.
  DeviceKind guardedDevice(const VarDecl &Var, const Expr &Use);

  /// The guards and branches of \p Function, cached.
  llvm::ArrayRef<DeviceFact> deviceFacts(const FunctionDecl &Function);

  /// Whether every path of \p Function's CFG to \p Use goes through the
  /// outcome \p Outcome of \p Test (the CFG edge from the block that \p Test
  /// ends to its then (true) or else (false) successor dominates the block
  /// of \p Use); false when the CFG cannot be built or does not hold them.
  bool outcomeDominates(const FunctionDecl &Function, const IfStmt &Test,
                        bool Outcome, const Stmt &Use);

private:
  struct Flow;
  ASTContext &Context;
  DeviceQueries &Devices;
  DeviceWrites &Writes;
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<DeviceFact, 4>>
      FactCache;
  /// The functions with a label, whose facts need outcomeDominates.
  llvm::DenseMap<const FunctionDecl *, bool> HasLabel;
  /// The CFG of each function with a label that a use was asked about.
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<Flow>> Flows;
};

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_DEVICECONDITIONS_H
