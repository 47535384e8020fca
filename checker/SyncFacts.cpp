//===--- SyncFacts.cpp - the table of synchronizing LibTorch calls ---------===//

#include "SyncFacts.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"

namespace clang::tidy::torch_sync {

namespace {

constexpr llvm::StringLiteral KeepOnDevice =
    "keeping the value on the device ('at::where', 'clamp', "
    "'at::_assert_async') or reading it once, outside the hot path";

// Sources are paths in the pytorch/pytorch tree (torch 1.13 to 2.11).
const SyncFact Facts[] = {
    // torch-sync-item: a value computed on the device is read on the host.
    {SyncCategory::Item, "item", "", "copies a tensor element to the host",
     KeepOnDevice, "aten/src/ATen/native/cuda/CUDAScalar.cu"},
    {SyncCategory::Item, "", "::at::_local_scalar_dense",
     "copies a tensor element to the host", KeepOnDevice,
     "aten/src/ATen/native/cuda/CUDAScalar.cu"},
    {SyncCategory::Item, "is_nonzero", "::at::is_nonzero",
     "reads a tensor element on the host to test it",
     "comparing on the device, or 'at::_assert_async' for a check",
     "aten/src/ATen/native/TensorCompare.cpp"},
    {SyncCategory::Item, "equal", "::at::equal",
     "reads the result of a tensor comparison on the host",
     "'at::eq(a, b).all()', which keeps the result on the device",
     "aten/src/ATen/native/cuda/Equal.cpp"},
    {SyncCategory::Item, "allclose", "::at::allclose",
     "reads the result of a tensor comparison on the host",
     "'at::isclose(a, b).all()', which keeps the result on the device",
     "aten/src/ATen/native/TensorCompare.cpp"},

    // torch-sync-print: formatting a tensor's values copies them to the host.
    {SyncCategory::Print, "", "::at::operator<<",
     "streams a tensor, which copies its values to the host",
     "printing metadata ('sizes()', 'toString()', 'print()') or printing "
     "outside the hot path",
     "aten/src/ATen/core/Formatting.cpp"},
    {SyncCategory::Print, "", "::at::print",
     "prints a tensor, which copies its values to the host",
     "printing metadata ('sizes()', 'toString()', 'print()') or printing "
     "outside the hot path",
     "aten/src/ATen/core/Formatting.cpp"},
    {SyncCategory::Print, "", "::c10::str",
     "formats a tensor into a string, which copies its values to the host",
     "formatting metadata ('sizes()', 'toString()') or formatting outside "
     "the hot path",
     "c10/util/StringUtil.h, aten/src/ATen/core/Formatting.cpp"},

    // torch-sync-device-to-host: copies that the host waits for.
    {SyncCategory::DeviceToHost, "cpu", "",
     "copies the tensor to the host",
     "keeping the computation on the device, or 'to(at::kCPU, "
     "/*non_blocking=*/true)' into pinned memory, read after a later "
     "synchronization",
     "aten/src/ATen/native/cuda/Copy.cu"},
    {SyncCategory::DeviceToHost, "to", "",
     "copies the tensor between host and device",
     "keeping the computation on the device, or a non-blocking copy "
     "('non_blocking=true') from or into pinned memory",
     "aten/src/ATen/native/cuda/Copy.cu"},
    {SyncCategory::DeviceToHost, "cuda", "",
     "copies a host tensor to the device",
     "creating the tensor on the device, or 'pin_memory()' with "
     "'to(device, /*non_blocking=*/true)'",
     "aten/src/ATen/native/cuda/Copy.cu"},
    {SyncCategory::DeviceToHost, "copy_", "",
     "copies between host and device",
     "a pinned host tensor and 'copy_(src, /*non_blocking=*/true)', read "
     "after a later synchronization",
     "aten/src/ATen/native/cuda/Copy.cu"},
    {SyncCategory::DeviceToHost, "", "::torch::tensor",
     "copies a list of host values to the device",
     "building it once outside the hot path, or from device-side ops "
     "('at::arange', 'at::full', 'at::stack')",
     "torch/csrc/api/include/torch/detail/TensorDataContainer.h"},

    // torch-sync-boolean-mask: the size of the result depends on how many
    // mask elements are true, which the host reads from the device.
    {SyncCategory::BooleanMask, "index", "",
     "with a boolean mask reads the number of true elements from the device "
     "to size its result",
     "a fixed-shape form: 'at::where(mask, t, 0)', or 'masked_fill_' on a "
     "copy",
     "aten/src/ATen/native/TensorAdvancedIndexing.cpp, "
     "aten/src/ATen/native/cuda/Nonzero.cu"},
    {SyncCategory::BooleanMask, "index_put_", "",
     "with a boolean mask and a device value turns the mask into indices, "
     "which reads their number from the device",
     "'masked_fill_(mask, value)' with a host scalar, or "
     "'at::where(mask, value, t)'",
     "aten/src/ATen/native/TensorAdvancedIndexingUtils.h, "
     "aten/src/ATen/TensorIndexing.h"},
    {SyncCategory::BooleanMask, "masked_select", "::at::masked_select",
     "reads the number of true mask elements from the device to size its "
     "result",
     "a fixed-shape form: 'at::where(mask, t, 0)', summing or counting with "
     "the mask as a weight",
     "aten/src/ATen/native/cuda/IndexKernel.cu"},
};

bool isTensorClass(const CXXRecordDecl *Record) {
  if (!Record || !Record->getIdentifier())
    return false;
  StringRef Name = Record->getName();
  if (Name != "Tensor" && Name != "TensorBase")
    return false;
  const auto *NS = dyn_cast<NamespaceDecl>(Record->getDeclContext());
  return NS && NS->getName() == "at" &&
         NS->getDeclContext()->getRedeclContext()->isTranslationUnit();
}

} // namespace

llvm::ArrayRef<SyncFact> syncFacts() { return Facts; }

std::vector<llvm::StringRef> methodNames(SyncCategory Category) {
  std::vector<llvm::StringRef> Names;
  for (const SyncFact &F : Facts)
    if (F.Category == Category && !F.Method.empty())
      Names.push_back(F.Method);
  return Names;
}

std::vector<llvm::StringRef> functionNames(SyncCategory Category) {
  std::vector<llvm::StringRef> Names;
  for (const SyncFact &F : Facts)
    if (F.Category == Category && !F.Function.empty())
      Names.push_back(F.Function);
  return Names;
}

const SyncFact *findSyncFact(SyncCategory Category, const FunctionDecl &Callee) {
  if (const auto *Method = dyn_cast<CXXMethodDecl>(&Callee)) {
    if (!Method->getIdentifier() || !isTensorClass(Method->getParent()))
      return nullptr;
    for (const SyncFact &F : Facts)
      if (F.Category == Category && F.Method == Method->getName())
        return &F;
    return nullptr;
  }
  std::string Qualified = "::" + Callee.getQualifiedNameAsString();
  for (const SyncFact &F : Facts)
    if (F.Category == Category && F.Function == Qualified)
      return &F;
  return nullptr;
}

} // namespace clang::tidy::torch_sync
