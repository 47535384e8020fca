//===--- DeviceInference.h - where does a tensor live? --------------------===//
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
// DeviceInference keeps the entry points and the walk over expressions; the
// jobs it dispatches to are components of their own: the values
// (DeviceLattice.h), the types it recognises (DeviceTypes.h), the writes of a
// variable (DeviceWrites.h, ReachingWrites.h), guards and device branches
// (DeviceConditions.h), torch::nn modules (ModuleDevices.h), torch::data
// pipelines (DataPipelines.h), parameters' devices from call sites and
// registrations (CallerDevices.h), and the tensors that the elements of a
// list of tensors are (TensorLists.h): a piece of 'x.chunk(2)' or
// 'x.split(3)', read as 'parts[0]', 'parts.at(1)' or in a range-based for, is
// on x's device, as the views that tensor methods return are.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_DEVICEINFERENCE_H
#define TORCH_SYNC_DEVICEINFERENCE_H

#include "analysis/device/CallerDevices.h"
#include "analysis/device/DataPipelines.h"
#include "analysis/device/DeviceConditions.h"
#include "analysis/device/DeviceQueries.h"
#include "analysis/device/DeviceWrites.h"
#include "analysis/device/HostDereference.h"
#include "analysis/device/ModuleDevices.h"
#include "analysis/device/ReachingWrites.h"
#include "analysis/device/TensorLists.h"
#include "libtorch/DeviceLattice.h"
#include "libtorch/DeviceTypes.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <memory>
#include <optional>

namespace clang {
class ASTContext;
class BindingDecl;
class CXXConstructExpr;
class CXXMemberCallExpr;
class FieldDecl;
class CallExpr;
class FunctionDecl;
class MemberExpr;
class ParmVarDecl;
class VarDecl;
namespace tidy::torch_sync {

class ProjectFacts;

/// Device inference over one translation unit's AST: local to a function,
/// except for the parameters of CPU kernels and of functions private to the
/// file. Results for variables, modules and functions are cached; the object
/// lives as long as the ASTContext.
class DeviceInference : public DeviceQueries {
public:
  /// With \p ProjectDatasetsOnCPU, the examples of the project's own
  /// datasets (option ProjectDatasetsOnCPU) count as made on the CPU. With
  /// \p Facts (option ProjectFactsFile), which must outlive the inference,
  /// parameters and the results of the project's functions take the devices
  /// that the whole project gives them.
  ///
  /// With \p AssumeModuleStateOnCpu (the project pass, asking what a
  /// project module's forward returns), the tensor parameters of the
  /// forwards of project modules and the members of the module whose method
  /// is being read ('this->fc', 'this->weight') count as on the CPU.
  explicit DeviceInference(ASTContext &Context,
                           bool ProjectDatasetsOnCPU = false,
                           const ProjectFacts *Facts = nullptr,
                           bool AssumeModuleStateOnCpu = false);
  ~DeviceInference();
  DeviceInference(const DeviceInference &) = delete;
  DeviceInference &operator=(const DeviceInference &) = delete;

  /// The device of the tensor that the expression \p E evaluates to.
  DeviceKind tensorDevice(const Expr *E) { return tensorDevice(E, 0); }
  /// The device of the tensors of the list \p E, all on one device: the
  /// elements of a braced list written there, the pieces of 'x.chunk(2)',
  /// the tensors of a local vector (TensorLists::elementSources); Unknown
  /// otherwise.
  DeviceKind tensorListDevice(const Expr *E) { return tensorListDevice(E, 0); }

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
  /// globals (DeviceWrites::singleValue).
  const Expr *singleValue(const VarDecl &Var) override {
    return Writes.singleValue(Var);
  }

  /// The dataset type of torch::data whose example (or stacked batch) \p E
  /// holds: a variable set from 'dataset.get_batch(i)' or 'dataset.get(i)',
  /// the variable of a range-based for over a data loader, '*loader->begin()';
  /// a null type when it is not known (DataPipelines::exampleDataset).
  QualType exampleDataset(const Expr *E) override {
    return Data.exampleDataset(E);
  }

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

  /// The components, for tests and for checks that ask one of them directly.
  DeviceWrites &writes() { return Writes; }
  DeviceConditions &conditions() { return Guards; }
  ModuleDevices &modules() { return Modules; }
  DataPipelines &data() { return Data; }
  CallerDevices &callers() { return Sites; }
  /// The project facts read, if any.
  const ProjectFacts *projectFacts() const override { return Facts; }
  /// Whether the module state of project modules is assumed on the CPU.
  bool assumesModuleStateOnCpu() const override {
    return AssumeModuleStateOnCpu;
  }

  /// The queries of the components (DeviceQueries), at the depth they were
  /// asked at.
  DeviceKind tensorDevice(const Expr *E, unsigned Depth) override;
  DeviceKind targetDevice(const Expr *E, unsigned Depth) override;

private:
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
  /// The device of tensor element \p Index of the std::pair or std::tuple
  /// \p E: a braced list, a construction, 'std::make_pair'/'make_tuple', a
  /// local pair never written, or the join of the returns of a (non-virtual)
  /// function of the translation unit; Unknown otherwise.
  DeviceKind tupleElementDevice(const Expr *E, unsigned Index, unsigned Depth);
  /// The device that the function \p Callee, defined in this translation
  /// unit (not virtual, not a library's), returns: the join of its returns,
  /// its parameters taking what parameterDevice gives; Unknown otherwise.
  DeviceKind definedReturnDevice(const FunctionDecl &Callee, unsigned Depth);
  /// The device of the private tensor member \p Field read in a member of
  /// its class: the join of the values it is given (DeviceWrites,
  /// privateMemberValues); Unknown when not all of them are seen.
  DeviceKind privateMemberDevice(const FieldDecl &Field, unsigned Depth);
  /// The device of a structured binding of a pair or tuple by value:
  /// tupleElementDevice of its initializer.
  DeviceKind bindingDevice(const BindingDecl &Binding, unsigned Depth);
  /// The device of a list of tensors (at::TensorList and the like) handed
  /// to an operation that needs them on one device: combineInputs of its
  /// elements' sources (TensorLists::elementSources), else Unknown.
  DeviceKind tensorListDevice(const Expr *E, unsigned Depth);
  /// The device of one element of the list \p List ('parts[i]' of 'parts =
  /// x.chunk(2)'), whichever it is: joinAlternatives of its elements'
  /// sources (TensorLists::elementSources), else Unknown.
  DeviceKind listElementDevice(const Expr *List, unsigned Depth);
  /// The variable whose device every element of the list \p List shares
  /// (deviceOrigin of each of its elements' sources); null when there is
  /// none.
  const VarDecl *listElementOrigin(const Expr *List, unsigned Depth);
  /// The device of an element-wise (TensorIterator) operation on the tensors
  /// \p Operands: combineInputs, and CPU when one operand is on the CPU with
  /// rank >= 1 (no other device can be combined with it).
  DeviceKind elementwiseDevice(llvm::ArrayRef<const Expr *> Operands,
                               unsigned Depth);
  /// The device of a tensor member: a parameter or buffer of a module
  /// ('linear->weight'), the data or target of a torch::data::Example.
  DeviceKind memberDevice(const MemberExpr &Member, unsigned Depth);
  /// The device a parameter receives: CPU in a kernel registered for the CPU
  /// dispatch key, the device the project facts give it, the join of the
  /// arguments at every call of a function private to its file, else Unknown.
  DeviceKind parameterDevice(const ParmVarDecl &Param, unsigned Depth);
  /// The device that the project facts say \p Call of one of the project's
  /// functions returns: a device, or the join of its arguments for the
  /// parameters the result shares its device with; std::nullopt when they say
  /// nothing.
  std::optional<DeviceKind> projectReturnDevice(const CallExpr &Call,
                                                unsigned Depth);
  const VarDecl *deviceOrigin(const Expr *E, unsigned Depth);
  const VarDecl *targetOrigin(const Expr *E, unsigned Depth);

  ASTContext &Context;
  const ProjectFacts *const Facts;
  const bool AssumeModuleStateOnCpu;
  DeviceWrites Writes;
  HostDereferences HostReads;
  DeviceConditions Guards;
  ModuleDevices Modules;
  DataPipelines Data;
  CallerDevices Sites;
  TensorLists Lists;
  /// Cached variable results. A variable being analysed maps to Unspecified,
  /// so that 'x = x + 1' does not change what is known about 'x'.
  llvm::DenseMap<const VarDecl *, DeviceKind> VariableCache;
  /// Cached reachingDevice results per read; a read being analysed maps to
  /// Unspecified, as in VariableCache.
  llvm::DenseMap<const DeclRefExpr *, DeviceKind> ReachingCache;
  /// Cached definedReturnDevice results; a function being analysed maps to
  /// Unspecified.
  llvm::DenseMap<const FunctionDecl *, DeviceKind> ReturnCache;
  /// Cached privateMemberDevice results; a member being analysed maps to
  /// Unspecified.
  llvm::DenseMap<const FieldDecl *, DeviceKind> MemberCache;
  /// The CFG and statement order of each function that reachingDevice asked.
  llvm::DenseMap<const FunctionDecl *, std::unique_ptr<ReachingWrites>>
      FunctionFlows;
};

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_DEVICEINFERENCE_H
