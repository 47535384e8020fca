//===--- DeviceInference.h - where does a tensor live? ---------------------===//
//
// A small inference of the device a LibTorch tensor lives on. A host-device
// synchronization needs a CUDA tensor, so the checks stay silent on tensors
// that are provably on the CPU: made by a factory without a device, by
// '.cpu()' or '.to(at::kCPU)', by 'from_blob' without a device, read from a
// module of torch::nn made in the function and never moved, from LibTorch's
// MNIST dataset, or computed only from such tensors, and held in a local
// variable that is never given a tensor from elsewhere. A guard such as
// 'TORCH_CHECK(t.is_cuda())' or 'CHECK_CPU(t)' makes its tensor's device known
// for the rest of the block; a kernel registered for the CPU dispatch key
// has CPU tensor parameters, and a function private to its file has the
// devices that its callers there pass. Everything else is Unknown, and the
// checks treat Unknown as possibly CUDA unless told otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_DEVICEINFERENCE_H
#define TORCH_SYNC_DEVICEINFERENCE_H

#include "ReachingWrites.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include <memory>
#include <optional>

namespace clang {
class ASTContext;
class CXXConstructExpr;
class CXXMemberCallExpr;
class CallExpr;
class FunctionDecl;
class MemberExpr;
class ParmVarDecl;
class VarDecl;
namespace tidy::torch_sync {

/// What is known about a device.
enum class DeviceKind {
  Unknown,     ///< could be any device, CUDA included
  CPU,         ///< provably the host
  CUDA,        ///< provably a CUDA device
  Unspecified, ///< an expression that names no device: a dtype-only
               ///< TensorOptions, an undefined tensor; inherits from context
};

/// Whether \p T (after references, cv-qualifiers and sugar such as torch::Tensor)
/// is at::Tensor or at::TensorBase.
bool isTensorType(QualType T);

/// Device inference over one translation unit's AST: local to a function,
/// except for the parameters of CPU kernels and of functions private to the
/// file. Results for variables, modules and functions are cached; the object
/// lives as long as the ASTContext.
class DeviceInference {
public:
  /// With \p ProjectDatasetsOnCPU, the examples of the project's own
  /// datasets (option ProjectDatasetsOnCPU) count as made on the CPU.
  explicit DeviceInference(ASTContext &Context,
                           bool ProjectDatasetsOnCPU = false)
      : Context(Context), ProjectDatasetsOnCPU(ProjectDatasetsOnCPU) {}

  /// The device of the tensor that the expression \p E evaluates to.
  DeviceKind tensorDevice(const Expr *E) { return tensorDevice(E, 0); }

  /// The device named by \p E, an expression of type c10::Device,
  /// c10::DeviceType, c10::TensorOptions, c10::optional<Device> or a dtype.
  /// Unspecified when it names none (a dtype, default options).
  DeviceKind targetDevice(const Expr *E) { return targetDevice(E, 0); }

  /// The device that the Tensor method call \p Call ('to', 'cuda', 'cpu',
  /// 'copy_'...) copies to, Unspecified when it keeps the receiver's device.
  DeviceKind transferTarget(const CXXMemberCallExpr &Call);

  /// The value of the 'non_blocking' argument of \p Call: true or false when it
  /// is a constant (a default argument is false), std::nullopt when it is not a
  /// constant or the callee has no such parameter.
  std::optional<bool> nonBlockingArgument(const CallExpr &Call);

  /// The device of the values a call computes from: its receiver when it is
  /// a tensor method, and every tensor argument (combineInputs).
  /// Unspecified when there is none.
  DeviceKind inputsDevice(const CallExpr &Call);

  /// The initializer of local variable \p Var when nothing else in its
  /// function assigns it or lets it change (a non-const reference, its
  /// address, set_, set_data or swap); null otherwise, and for parameters and
  /// globals.
  const Expr *singleValue(const VarDecl &Var);

  /// The dataset type of torch::data whose example (or stacked batch) \p E
  /// holds: a variable set from 'dataset.get_batch(i)' or 'dataset.get(i)',
  /// the variable of a range-based for over a data loader, '*loader->begin()';
  /// a null type when it is not known.
  QualType exampleDataset(const Expr *E);

  /// The variable whose device the tensor \p E provably shares: a parameter
  /// or local variable that nothing reassigns, reached through the local
  /// variables, tensor methods (other than copies), LibTorch operators and
  /// factories ('torch::empty(n, x.options())') that compute \p E from it
  /// alone; null when there is none.
  const VarDecl *deviceOrigin(const Expr *E) { return deviceOrigin(E, 0); }

  /// The variable whose device the TensorOptions, Device or tensor \p E
  /// names ('x.options()', 'x.device()', 'x.options().dtype(k)', 'x'), as
  /// deviceOrigin; null when there is none.
  const VarDecl *targetOrigin(const Expr *E) { return targetOrigin(E, 0); }

private:
  /// A fact about a variable's device that holds inside a range of its
  /// function's source (expansion offsets in one file).
  struct DeviceFact {
    const VarDecl *Var;
    FileID File;
    unsigned Begin, End;
    DeviceKind Device;
  };
  /// A function's call sites in the translation unit; AddressTaken when it is
  /// also named other than as the callee of a direct call.
  struct CallSites {
    llvm::SmallVector<const CallExpr *, 4> Calls;
    bool AddressTaken = false;
  };

  DeviceKind tensorDevice(const Expr *E, unsigned Depth);
  DeviceKind targetDevice(const Expr *E, unsigned Depth);
  DeviceKind variableDevice(const VarDecl &Var, unsigned Depth);
  /// The device of the local tensor variable \p Var (not a reference) read
  /// at \p Use: the join of the writes that reach \p Use (ReachingWrites),
  /// when nothing else can write it (no escape); Unknown otherwise, and
  /// when it has only one value (variableDevice's answer is then exact).
  DeviceKind reachingDevice(const VarDecl &Var, const DeclRefExpr &Use,
                            unsigned Depth);
  DeviceKind memberCallDevice(const CXXMemberCallExpr &Call, unsigned Depth);
  DeviceKind functionCallDevice(const CallExpr &Call, unsigned Depth);
  DeviceKind transferTarget(const CXXMemberCallExpr &Call, unsigned Depth);
  /// The device of a list of tensors (at::TensorList and the like): its
  /// elements' when it is a braced list at the call, else Unknown.
  DeviceKind tensorListDevice(const Expr *E, unsigned Depth);
  /// The device of an element-wise (TensorIterator) operation on the tensors
  /// \p Operands: combineInputs, and CPU when one operand is on the CPU with
  /// rank >= 1 (no other device can be combined with it).
  DeviceKind elementwiseDevice(llvm::ArrayRef<const Expr *> Operands,
                               unsigned Depth);
  /// The device of a tensor member: a parameter or buffer of a module
  /// ('linear->weight'), the data or target of a torch::data::Example.
  DeviceKind memberDevice(const MemberExpr &Member, unsigned Depth);
  /// The device a parameter receives: CPU in a kernel registered for the CPU
  /// dispatch key, the join of the arguments at every call of a function
  /// private to its file, else Unknown.
  DeviceKind parameterDevice(const ParmVarDecl &Param, unsigned Depth);
  /// The device that a guard or a branch on the device of \p Var
  /// ('TORCH_CHECK(t.is_cuda())', 'if (t.is_cuda()) {...}') gives it at \p Use;
  /// Unknown when none applies there.
  DeviceKind guardedDevice(const VarDecl &Var, const Expr &Use);
  /// The guards and branches of \p Function, cached.
  llvm::ArrayRef<DeviceFact> deviceFacts(const FunctionDecl &Function);

  /// The device of the parameters and buffers of the module that the
  /// torch::nn::ModuleHolder \p Holder (a local variable, or a temporary
  /// built there) holds: CPU when it is one of LibTorch's leaf modules,
  /// constructed there without a tensor or module argument, and every use
  /// in its function is one that keeps or names its device.
  DeviceKind moduleDevice(const Expr *Holder, unsigned Depth);
  DeviceKind moduleVariableDevice(const VarDecl &Var, unsigned Depth);
  /// The device of the result of the library module \p Holder's forward on
  /// the arguments \p Args: combineInputs of the module's device and the
  /// tensor arguments'.
  DeviceKind moduleForwardDevice(const Expr *Holder,
                                 llvm::ArrayRef<const Expr *> Args,
                                 unsigned Depth);

  /// The object that the torch::data example \p E was taken from: the data
  /// loader ('*loader' of a range-based for, 'loader->' of
  /// '*loader->begin()'), with \p IsLoader set, or the dataset of
  /// 'dataset.get_batch(i)'; null when not known.
  const Expr *exampleSource(const Expr *E, bool &IsLoader);
  /// The expression that built the dataset that \p E (a dataset, a data
  /// loader, or a pointer to one) holds, through 'std::move', local variables
  /// never assigned, and 'torch::data::make_data_loader(dataset, ...)'; null
  /// when not seen.
  const Expr *datasetConstruction(const Expr *E);
  /// Whether the data of the examples from \p Source (an exampleSource) went
  /// last through a Normalize transform built there, then only Stack: the
  /// transform subtracts and divides by CPU tensors of rank >= 1
  /// (torch/data/transforms/tensor.h), so that the data is on the CPU (or
  /// the program fails), whatever the dataset made.
  bool dataNormalizedOnCpu(const Expr *Source);

  const VarDecl *deviceOrigin(const Expr *E, unsigned Depth);
  const VarDecl *targetOrigin(const Expr *E, unsigned Depth);
  /// Whether \p Var is never assigned, nor passed where it may be replaced.
  bool isNeverWritten(const VarDecl &Var);

  /// Whether \p Function is registered for the CPU dispatch key with
  /// TORCH_LIBRARY_IMPL(ns, CPU, m) in the main file.
  bool isCpuKernel(const FunctionDecl &Function);
  /// Whether every call of \p Function is in this translation unit: it has
  /// internal linkage, or every declaration is in the main file and that file
  /// is a program's (it defines 'main') or registers CPU kernels.
  bool isFilePrivate(const FunctionDecl &Function);
  /// The calls of \p Function in the translation unit, or null when it is not
  /// private to the file or its address is taken.
  const CallSites *privateCallSites(const FunctionDecl &Function);
  /// Finds the CPU kernels and 'main' of the main file, once.
  void scanMainFile();

  ASTContext &Context;
  const bool ProjectDatasetsOnCPU;
  /// Cached variable results. A variable being analysed maps to Unspecified,
  /// so that 'x = x + 1' does not change what is known about 'x'.
  llvm::DenseMap<const VarDecl *, DeviceKind> VariableCache;
  /// Cached reachingDevice results per read; a read being analysed maps to
  /// Unspecified, as in VariableCache.
  llvm::DenseMap<const DeclRefExpr *, DeviceKind> ReachingCache;
  /// The CFG and statement order of each function that reachingDevice asked.
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<ReachingWrites>>
      FunctionFlows;
  llvm::DenseMap<const VarDecl *, DeviceKind> ModuleCache;
  llvm::DenseMap<const VarDecl *, bool> NeverWrittenCache;
  llvm::DenseMap<const FunctionDecl *, llvm::SmallVector<DeviceFact, 4>>
      FactCache;
  bool MainFileScanned = false;
  bool MainFileDefinesMain = false;
  llvm::DenseSet<const FunctionDecl *> CpuKernels;
  std::unique_ptr<llvm::DenseMap<const FunctionDecl *, CallSites>> CallIndex;
};

/// The braced list written at a call for a list parameter ('{a, b}' for an
/// at::TensorList, '{mask, Slice()}' for TensorIndex indices), through the
/// implicit ArrayRef / initializer_list construction; null for anything else.
const InitListExpr *bracedList(const Expr *E);

/// Combines the devices of the inputs of an op whose result lives where its
/// inputs live: CUDA if any input is, CPU if all are, else Unknown.
DeviceKind combineInputs(DeviceKind A, DeviceKind B);

/// Joins the devices of two values that may reach the same place (the arms of
/// '?:', the assignments to a variable): the same device, or Unknown.
DeviceKind joinAlternatives(DeviceKind A, DeviceKind B);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_DEVICEINFERENCE_H
