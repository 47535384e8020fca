//===--- LibTorchApi.h - what the checks know about LibTorch's classes ----===//
//
// Facts about LibTorch's C++ frontend that the device inference relies on,
// each from a LibTorch header or source named at its definition: the modules
// that torch::nn::ModuleHolder types hold, the datasets and data loaders of
// torch::data, the outputs of ATen's out= functions and the forwarding
// wrappers of modules and autograd functions.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_LIBTORCHAPI_H
#define TORCH_SYNC_LIBTORCHAPI_H

#include "clang/AST/Type.h"
#include "clang/Basic/OperatorKinds.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

namespace clang {
class CXXRecordDecl;
class Decl;
class ParmVarDecl;
namespace tidy::torch_sync {

/// Whether \p D is declared in the namespace \p Path ({"torch", "nn"}) or in
/// a namespace nested in it, \p Path starting at the top level.
bool isInNamespace(const Decl *D, llvm::ArrayRef<llvm::StringRef> Path);

/// Whether \p Record is the class \p Name of namespace \p Path (or a
/// specialization of the class template \p Name).
bool isNamedClass(const CXXRecordDecl *Record, llvm::StringRef Name,
                  llvm::ArrayRef<llvm::StringRef> Path);

/// The module class that a torch::nn::ModuleHolder type holds (LinearImpl for
/// torch::nn::Linear, the user's NetImpl for TORCH_MODULE(Net)), through
/// references and derived classes; null for any other type.
const CXXRecordDecl *heldModule(QualType T);

/// Whether \p Module is one of LibTorch's own modules (a class of torch::nn)
/// other than the containers and wrappers that run modules or functions given
/// to them (Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict,
/// Functional: api list container_modules). Such a module creates its
/// parameters and buffers on the CPU when it is constructed (its reset() in
/// torch/csrc/api/src/nn/modules/*.cpp allocates them without a device, unless
/// an option hands it a tensor), and its forward() computes from its inputs,
/// parameters and buffers only.
bool isLibraryLeafModule(const CXXRecordDecl &Module);

/// Whether \p Module is torch::nn's Sequential or ModuleList (api list
/// module_sequences): a container whose state is only the modules given to
/// its constructor.
bool isLibraryModuleSequence(const CXXRecordDecl &Module);

/// Whether \p Module is a module class of the project: it derives from
/// torch::nn::Module and is not in namespace torch.
bool isProjectModule(const CXXRecordDecl &Module);

/// Whether \p T may hold or refer to a tensor, and so carry a device into a
/// module it is given to: a tensor, a list or optional of tensors, a module
/// or module holder, a torch::nn::AnyModule, a shared_ptr, or nullptr.
bool mayCarryDevice(QualType T);

/// The dataset that a data loader type of torch::data (StatelessDataLoader,
/// StatefulDataLoader, DataLoaderBase: api list data_loader_classes) iterates
/// over, through references and pointers to it; a null type for any other
/// type.
QualType loaderDataset(QualType Loader);

/// Whether the examples of dataset type \p Dataset are made on the CPU:
/// LibTorch's MNIST (torch/csrc/api/src/data/datasets/mnist.cpp reads the
/// files into CPU tensors) through MapDatasets whose transforms are
/// Normalize (torch/data/transforms/tensor.h: arithmetic with CPU mean and
/// stddev tensors) and Stack (torch/data/transforms/stack.h: torch::stack).
/// A project's own dataset (a class derived from
/// torch::data::datasets::BatchDataset outside namespace torch) counts only
/// when \p ProjectDatasetOnCpu says so of it (the option
/// ProjectDatasetsOnCPU, or the project facts); the lambda transforms, which
/// may move the tensors anywhere, never do.
bool datasetYieldsCpu(
    QualType Dataset,
    llvm::function_ref<bool(const CXXRecordDecl &)> ProjectDatasetOnCpu);

/// Whether \p Record is a dataset class of the project: derived from
/// torch::data::datasets::BatchDataset, outside namespace torch.
bool isProjectDatasetClass(const CXXRecordDecl &Record);

/// Whether the examples of dataset type \p Dataset are stacked batches: its
/// outermost MapDataset applies Stack, which returns torch::stack of the
/// examples, a tensor of rank >= 1 (torch/data/transforms/stack.h).
bool datasetStacksBatches(QualType Dataset);

/// Whether \p Param is an output of an ATen out= function ('out' of
/// 'at::add_out(out, self, other)', the non-const tensor references of a
/// function of namespace at or torch named '*_out' or '*_outf'). Such a
/// function writes values into the tensor and never changes its device
/// (structured kernels and resize_output reject or keep an output's device:
/// aten/src/ATen/native/Resize.cpp, aten/src/ATen/TensorIterator.cpp).
bool isAtenOutParameter(const ParmVarDecl &Param);

/// Whether \p Param is a forwarding reference of a LibTorch wrapper whose
/// target takes its own copy of the argument, so that the caller's variable
/// cannot be replaced through it: 'ModuleHolder::operator()(Args&&...)'
/// (torch/nn/pimpl.h) and 'Function<T>::apply(Args&&...)'
/// (torch/csrc/autograd/custom_function.h) when every 'forward' they reach
/// takes that argument by value or const reference; 'AnyModule::forward' and
/// 'SequentialImpl::forward', which copy their arguments into AnyValues
/// (torch/nn/modules/container/any.h).
bool isForwardedAsCopy(const ParmVarDecl &Param);

/// Whether \p Param is a parameter of a constructor or member of
/// c10::TensorOptions: its forwarding references ('TensorOptions(T &&device)',
/// 'device(Args &&...)') copy the device into the options
/// (c10/core/TensorOptions.h) and never change the argument.
bool isTensorOptionsParameter(const ParmVarDecl &Param);

/// Whether \p Kind is a comparison operator ('==', '!=', '<', '>', '<=',
/// '>='): on tensors, an element-wise comparison that makes a bool mask
/// (aten/src/ATen/TensorOperators.h).
bool isComparisonOperator(OverloadedOperatorKind Kind);

/// Whether \p Kind is one of ATen's binary operators that are element-wise
/// TensorIterator operations (aten/src/ATen/TensorOperators.h): arithmetic
/// ('+', '-', '*', '/', '%'), bitwise ('&', '|', '^') and the comparisons.
bool isElementwiseOperator(OverloadedOperatorKind Kind);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_LIBTORCHAPI_H
