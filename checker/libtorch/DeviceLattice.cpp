//===--- DeviceLattice.cpp - the values of the device inference -----------===//

#include "libtorch/DeviceLattice.h"
#include "clang/AST/Decl.h"

namespace clang::tidy::torch_sync {

DeviceKind combineInputs(DeviceKind A, DeviceKind B) {
  if (A == DeviceKind::Unspecified)
    return B;
  if (B == DeviceKind::Unspecified)
    return A;
  if (A == DeviceKind::CUDA || B == DeviceKind::CUDA)
    return DeviceKind::CUDA;
  if (A == DeviceKind::CPU && B == DeviceKind::CPU)
    return DeviceKind::CPU;
  return DeviceKind::Unknown;
}

DeviceKind joinAlternatives(DeviceKind A, DeviceKind B) {
  if (A == DeviceKind::Unspecified)
    return B;
  if (B == DeviceKind::Unspecified)
    return A;
  return A == B ? A : DeviceKind::Unknown;
}

DeviceKind deviceFromString(llvm::StringRef Spec) {
  if (Spec == "cpu")
    return DeviceKind::CPU;
  if (Spec == "cuda" || Spec.starts_with("cuda:"))
    return DeviceKind::CUDA;
  return DeviceKind::Unknown;
}

DeviceKind deviceFromEnumerator(const EnumConstantDecl &Enumerator) {
  if (Enumerator.getName() == "CPU")
    return DeviceKind::CPU;
  if (Enumerator.getName() == "CUDA")
    return DeviceKind::CUDA;
  return DeviceKind::Unknown;
}

} // namespace clang::tidy::torch_sync
