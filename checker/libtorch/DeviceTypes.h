//===--- DeviceTypes.h - the types and callees the device inference knows -===//
//
// The recognisers that every part of the device inference shares: whether a
// type is at::Tensor, a list of tensors, a value that names a device or one
// that names none; the name of a record or enum of LibTorch's namespaces;
// whether a callee is LibTorch's own; and 'strip', which looks through the
// implicit nodes, parentheses, default arguments and written casts around an
// expression; 'returnValues', the values a function's definition returns. A
// declaration counts as LibTorch's by its namespace (at, c10,
// torch), not by the header it comes from.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_DEVICETYPES_H
#define TORCH_SYNC_DEVICETYPES_H

#include "clang/AST/Type.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace clang {
class ASTContext;
class Decl;
class Expr;
class FunctionDecl;
class InitListExpr;
namespace tidy::torch_sync {

/// How deep the inference follows expressions and variables: deep enough
/// for 'a.cpu().abs().sum()' chains and a few variable hops; the bound keeps
/// pathological code cheap.
constexpr unsigned MaxDeviceDepth = 12;

/// Whether \p T (after references, cv-qualifiers and sugar such as
/// torch::Tensor) is at::Tensor or at::TensorBase.
bool isTensorType(QualType T);

/// Whether \p T is a list of tensors: at::TensorList (ArrayRef<Tensor>),
/// at::ITensorListRef, std::vector<Tensor>, std::initializer_list<Tensor>.
bool isTensorList(QualType T);

/// Whether \p T (after references and cv-qualifiers) is a std::pair or
/// std::tuple.
bool isStdPairOrTuple(QualType T);

/// The namespace \p D sits in directly, when that namespace is a top-level
/// one (at, c10, torch), else empty.
llvm::StringRef topLevelNamespace(const Decl *D);

/// Name of a record type declared directly in namespace 'at', 'c10', 'caffe2'
/// or 'std' ("Tensor", "Device", "optional"), else empty.
llvm::StringRef libraryRecordName(QualType T);

/// Name of an enum type declared in namespace c10 or at ("DeviceType",
/// "ScalarType"), else empty.
llvm::StringRef libraryEnumName(QualType T);

/// Whether \p T only carries a dtype, layout or memory format (or is bool):
/// a value of this type names no device.
bool namesNoDevice(QualType T);

/// Whether a value of type \p T names a device: c10::Device, c10::DeviceType,
/// c10::TensorOptions.
bool namesDeviceValue(QualType T);

/// Whether \p Callee is one of LibTorch's own functions or operators: in
/// namespace at, c10 or torch, or a member of a class there (at::Tensor).
bool isLibraryFunction(const FunctionDecl &Callee);

/// \p E without what is not spelled in the source, parentheses, default
/// arguments ('CXXDefaultArgExpr') and functional casts
/// ('torch::Device("cpu")', 'at::Tensor(t)'); null for null.
const Expr *strip(const Expr *E);

/// The braced list written at a call for a list parameter ('{a, b}' for an
/// at::TensorList, '{mask, Slice()}' for TensorIndex indices), through the
/// implicit ArrayRef / initializer_list construction; null for anything else.
const InitListExpr *bracedList(const Expr *E);

/// The value of each return statement in \p Definition's body, in source
/// order: null for a 'return;'; the returns of lambdas and local classes
/// inside it excluded. Empty when \p Definition has no body.
llvm::SmallVector<const Expr *, 4> returnValues(const FunctionDecl &Definition,
                                                ASTContext &Context);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_DEVICETYPES_H
