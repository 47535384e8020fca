//===--- DeviceLattice.h - the values of the device inference -------------===//
//
// The lattice that the device inference computes in: what is known about the
// device of a tensor or of a value naming a device (DeviceKind), how the
// devices of an op's inputs combine, how alternatives join, and the devices
// that a device string or a c10::DeviceType enumerator names. Pure functions
// of their arguments; nothing here looks at the AST beyond an enumerator's
// name.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_DEVICELATTICE_H
#define TORCH_SYNC_DEVICELATTICE_H

#include "llvm/ADT/StringRef.h"

namespace clang {
class EnumConstantDecl;
namespace tidy::torch_sync {

/// What is known about a device.
enum class DeviceKind {
  Unknown,     ///< could be any device, CUDA included
  CPU,         ///< provably the host
  CUDA,        ///< provably a CUDA device
  Unspecified, ///< an expression that names no device: a dtype-only
               ///< TensorOptions, an undefined tensor; inherits from context
};

/// Combines the devices of the inputs of an op whose result lives where its
/// inputs live: CUDA if any input is, CPU if all are, else Unknown.
/// Unspecified is the unit (an input that names no device).
DeviceKind combineInputs(DeviceKind A, DeviceKind B);

/// Joins the devices of two values that may reach the same place (the arms of
/// '?:', the assignments to a variable): the same device, or Unknown.
/// Unspecified is the unit (a value still being analysed, an undefined one).
DeviceKind joinAlternatives(DeviceKind A, DeviceKind B);

/// The device that the device string \p Spec names ("cpu", "cuda",
/// "cuda:<n>"), Unknown for any other (c10::Device's string constructor).
DeviceKind deviceFromString(llvm::StringRef Spec);

/// The device that an enumerator of c10::DeviceType names (CPU, CUDA),
/// Unknown for any other.
DeviceKind deviceFromEnumerator(const EnumConstantDecl &Enumerator);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_DEVICELATTICE_H
