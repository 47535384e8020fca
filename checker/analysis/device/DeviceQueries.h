//===--- DeviceQueries.h - what the inference's components ask it ---------===//
//
// The face that DeviceInference shows its components (CallerDevices,
// DeviceConditions, ModuleDevices, RankInference): the queries they recurse
// through, at the depth they were asked at. A component holds a
// DeviceQueries &, never the inference itself, so that it includes this file
// and not DeviceInference.h: includes run down, from the inference to its
// components.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_DEVICEQUERIES_H
#define TORCH_SYNC_DEVICEQUERIES_H

#include "libtorch/DeviceLattice.h"
#include "clang/AST/Type.h"

namespace clang {
class Expr;
class VarDecl;
namespace tidy::torch_sync {

class ProjectFacts;

/// The depth-bounded queries of the device inference (DeviceInference.h has
/// their meaning). \p Depth counts the steps of the recursion that led to the
/// query; the inference answers Unknown beyond its bound.
class DeviceQueries {
public:
  virtual ~DeviceQueries() = default;

  /// The device of the tensor that \p E evaluates to.
  virtual DeviceKind tensorDevice(const Expr *E, unsigned Depth) = 0;
  /// The device that \p E (a Device, DeviceType, TensorOptions, optional
  /// Device or dtype) names; Unspecified when it names none.
  virtual DeviceKind targetDevice(const Expr *E, unsigned Depth) = 0;
  /// The only value of local variable \p Var, or null.
  virtual const Expr *singleValue(const VarDecl &Var) = 0;
  /// The torch::data dataset type whose example \p E holds, or a null type.
  virtual QualType exampleDataset(const Expr *E) = 0;
  /// The project facts read, if any.
  virtual const ProjectFacts *projectFacts() const = 0;
  /// Whether the module state of project modules is assumed on the CPU.
  virtual bool assumesModuleStateOnCpu() const = 0;
};

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_DEVICEQUERIES_H
