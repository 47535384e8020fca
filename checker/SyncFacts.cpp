//===--- SyncFacts.cpp - the table of synchronizing LibTorch calls ---------===//

#include "SyncFacts.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"

namespace clang::tidy::torch_sync {

namespace {

constexpr llvm::StringLiteral KeepOnDevice =
    "keeping the value on the device ('at::where', 'clamp', "
    "'at::_assert_async') or reading it once, outside the hot path";

// torch-sync-explicit: what the explicit waits wait for, and the ways around
// them in each API.
constexpr llvm::StringLiteral WaitsForDevice =
    "explicitly waits for all work queued on the device";
constexpr llvm::StringLiteral WaitsForStream =
    "explicitly waits for the work queued on the stream";
constexpr llvm::StringLiteral WaitsForEvent =
    "explicitly waits for the work recorded in the event";
constexpr llvm::StringLiteral CopiesSynchronously = "copies synchronously";
constexpr llvm::StringLiteral RuntimeInsteadOfDeviceWait =
    "waiting only where the host reads results, polling an event "
    "('cudaEventQuery'), or 'cudaStreamWaitEvent' to order streams on the GPU";
constexpr llvm::StringLiteral RuntimeInsteadOfStreamWait =
    "polling an event recorded on the stream ('cudaEventQuery'), or "
    "'cudaStreamWaitEvent' for a wait on the GPU";
constexpr llvm::StringLiteral RuntimeInsteadOfEventWait =
    "polling the event ('cudaEventQuery'), or 'cudaStreamWaitEvent' for a "
    "wait on the GPU";
constexpr llvm::StringLiteral DriverInsteadOfStreamWait =
    "polling an event recorded on the stream ('cuEventQuery'), or "
    "'cuStreamWaitEvent' for a wait on the GPU";
constexpr llvm::StringLiteral TorchInsteadOfDeviceWait =
    "waiting only where the host reads results, polling an "
    "'at::cuda::CUDAEvent' ('query()'), or 'event.block(stream)' to order "
    "streams on the GPU";
constexpr llvm::StringLiteral TorchInsteadOfStreamWait =
    "polling the stream ('stream.query()') or an 'at::cuda::CUDAEvent' "
    "recorded on it, or 'event.block(other_stream)' for a wait on the GPU";
constexpr llvm::StringLiteral RuntimeApiSource =
    "CUDA Runtime API reference and its 'API synchronization behavior'";
constexpr llvm::StringLiteral DriverApiSource =
    "CUDA Driver API reference and its 'API synchronization behavior'";

// torch-sync-dynamic-shape: the effects and alternatives that several
// spellings share.
constexpr llvm::StringLiteral NonzeroFixedSize =
    "a fixed-size formulation ('at::where(cond, x, 0)', the mask as a "
    "weight) or 'nonzero_static' (LibTorch 2.1+) with a known bound";
constexpr llvm::StringLiteral UniqueEffect =
    "reads the number of unique elements from the device to size its output";
constexpr llvm::StringLiteral UniqueDimEffect =
    "reads the number of unique slices from the device to size its output";
constexpr llvm::StringLiteral UniqueFixedSize =
    "a fixed-size formulation when the K possible values are known "
    "('at::zeros({K}).index_fill_(0, t, 1)' marks those present)";
constexpr llvm::StringLiteral OneHotEffect =
    "without 'num_classes' reads the largest class index from the device to "
    "size its output";
constexpr llvm::StringLiteral OneHotFixedSize =
    "passing the number of classes ('one_hot(t, num_classes)')";

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
    // The tensor-value overloads read the value on the host; their Scalar
    // twins do not.
    {SyncCategory::Item, "masked_fill_", "",
     "with a tensor value reads the value on the host",
     "a host scalar value, or 'at::where(mask, value, t)'",
     "aten/src/ATen/native/cuda/Indexing.cu", "value"},
    {SyncCategory::Item, "masked_fill", "",
     "with a tensor value reads the value on the host",
     "a host scalar value, or 'at::where(mask, value, t)'",
     "aten/src/ATen/native/cuda/Indexing.cu", "value"},
    {SyncCategory::Item, "index_fill_", "",
     "with a tensor value reads the value on the host",
     "the overload taking a host scalar value",
     "aten/src/ATen/native/TensorAdvancedIndexing.cpp", "value"},
    {SyncCategory::Item, "index_fill", "",
     "with a tensor value reads the value on the host",
     "the overload taking a host scalar value",
     "aten/src/ATen/native/TensorAdvancedIndexing.cpp", "value"},
    {SyncCategory::Item, "fill_", "",
     "with a device tensor value reads the value on the host",
     "a value on the same device as the tensor, or a host scalar",
     "aten/src/ATen/native/Fill.cpp", "value"},

    // Linear algebra that checks its result for errors on the host.
    {SyncCategory::Item, "inverse", "::at::inverse",
     "checks its result for errors on the host (it reads the 'info' tensor)",
     "'at::linalg_inv_ex' and checking 'info' on the device, or later",
     "aten/src/ATen/native/BatchLinearAlgebra.cpp"},
    {SyncCategory::Item, "", "::at::linalg_inv",
     "checks its result for errors on the host (it reads the 'info' tensor)",
     "'at::linalg_inv_ex' and checking 'info' on the device, or later",
     "aten/src/ATen/native/BatchLinearAlgebra.cpp"},
    {SyncCategory::Item, "", "::torch::linalg::inv",
     "checks its result for errors on the host (it reads the 'info' tensor)",
     "'torch::linalg_inv_ex' and checking 'info' on the device, or later",
     "aten/src/ATen/native/BatchLinearAlgebra.cpp"},
    {SyncCategory::Item, "cholesky", "::at::cholesky",
     "checks its result for errors on the host (it reads the 'info' tensor)",
     "'at::linalg_cholesky_ex' and checking 'info' on the device, or later",
     "aten/src/ATen/native/BatchLinearAlgebra.cpp"},
    {SyncCategory::Item, "", "::at::linalg_cholesky",
     "checks its result for errors on the host (it reads the 'info' tensor)",
     "'at::linalg_cholesky_ex' and checking 'info' on the device, or later",
     "aten/src/ATen/native/BatchLinearAlgebra.cpp"},
    {SyncCategory::Item, "", "::torch::linalg::cholesky",
     "checks its result for errors on the host (it reads the 'info' tensor)",
     "'torch::linalg_cholesky_ex' and checking 'info' on the device, or "
     "later",
     "aten/src/ATen/native/BatchLinearAlgebra.cpp"},
    {SyncCategory::Item, "", "::at::linalg_solve",
     "checks its result for errors on the host (it reads the 'info' tensor)",
     "'at::linalg_solve_ex' and checking 'info' on the device, or later",
     "aten/src/ATen/native/BatchLinearAlgebra.cpp"},
    {SyncCategory::Item, "", "::torch::linalg::solve",
     "checks its result for errors on the host (it reads the 'info' tensor)",
     "'torch::linalg_solve_ex' and checking 'info' on the device, or later",
     "aten/src/ATen/native/BatchLinearAlgebra.cpp"},
    {SyncCategory::Item, "", "::torch::linalg::lu_factor",
     "checks its result for errors on the host (it reads the 'info' tensor)",
     "'torch::linalg_lu_factor_ex' and checking 'info' on the device, or "
     "later",
     "aten/src/ATen/native/BatchLinearAlgebra.cpp"},
    {SyncCategory::Item, "", "::at::linalg_lu_factor",
     "checks its result for errors on the host (it reads the 'info' tensor)",
     "'at::linalg_lu_factor_ex' and checking 'info' on the device, or later",
     "aten/src/ATen/native/BatchLinearAlgebra.cpp"},

    // torch-sync-device-index: an index, bound or size that lives on the
    // device is read on the host before the op can run.
    {SyncCategory::DeviceIndex, "item", "",
     "reads a value from the device that sizes, slices or indexes a tensor "
     "(a dynamic shape)",
     "keeping the index on the device ('index_select', 'gather', a "
     "1-element long tensor as index) or keeping sizes and offsets on the host",
     "aten/src/ATen/native/cuda/CUDAScalar.cu"},
    {SyncCategory::DeviceIndex, "narrow", "::at::narrow",
     "with a tensor start reads the start from the device",
     "'index_select(dim, start + at::arange(length, start.options()))', or a "
     "host start",
     "aten/src/ATen/native/TensorShape.cpp"},
    {SyncCategory::DeviceIndex, "index", "",
     "with a 0-dim tensor index reads the index from the device",
     "a 1-element index tensor ('index({idx.reshape({1})})', then "
     "'squeeze(0)'), 'index_select', or a host integer",
     "aten/src/ATen/TensorIndexing.h"},
    {SyncCategory::DeviceIndex, "index_put_", "",
     "with a 0-dim tensor index reads the index from the device",
     "a 1-element index tensor ('index_put_({idx.reshape({1})}, value)'), "
     "'index_copy_', or a host integer",
     "aten/src/ATen/TensorIndexing.h"},
    {SyncCategory::DeviceIndex, "operator[]", "",
     "with a tensor index reads the index from the device",
     "'index_select', or 'index({idx})' with a 1-element long tensor",
     "aten/src/ATen/templates/TensorBody.h"},

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
    {SyncCategory::DeviceToHost, "", "::torch::nn::Module::to",
     "copies every parameter and buffer of the module between host and "
     "device (one blocking copy each)",
     "moving the model once at start-up, before work is queued on the "
     "device, where the wait costs nothing",
     "torch/csrc/api/src/nn/module.cpp, aten/src/ATen/native/cuda/Copy.cu"},
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
     "with a boolean mask turns the mask into indices, which reads their "
     "number from the device",
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

    // torch-sync-explicit: the host waits for the device because the code
    // asks it to. The CUDA entries name the function as documented; the
    // headers' macros may declare it under a versioned name (cuMemcpyDtoH_v2,
    // cudaMemcpy_ptds), which the check maps back. Their sources are the CUDA
    // 13.0 reference (the comments in cuda_runtime_api.h and cuda.h).
    // Device-to-device copies do not wait for the host (cuMemcpyDtoD,
    // cudaMemcpyPeer), and the *Async copies are not listed.
    {SyncCategory::Explicit, "", "::cudaDeviceSynchronize", WaitsForDevice,
     RuntimeInsteadOfDeviceWait, RuntimeApiSource},
    {SyncCategory::Explicit, "", "::cudaThreadSynchronize", WaitsForDevice,
     RuntimeInsteadOfDeviceWait, RuntimeApiSource},
    {SyncCategory::Explicit, "", "::cudaStreamSynchronize", WaitsForStream,
     RuntimeInsteadOfStreamWait, RuntimeApiSource},
    {SyncCategory::Explicit, "", "::cudaEventSynchronize", WaitsForEvent,
     RuntimeInsteadOfEventWait, RuntimeApiSource},
    {SyncCategory::Explicit, "", "::cudaMemcpy", CopiesSynchronously,
     "'cudaMemcpyAsync' on a stream, with pinned host memory",
     RuntimeApiSource},
    {SyncCategory::Explicit, "", "::cudaMemcpy2D", CopiesSynchronously,
     "'cudaMemcpy2DAsync' on a stream, with pinned host memory",
     RuntimeApiSource},
    {SyncCategory::Explicit, "", "::cudaMemcpy3D", CopiesSynchronously,
     "'cudaMemcpy3DAsync' on a stream, with pinned host memory",
     RuntimeApiSource},
    {SyncCategory::Explicit, "", "::cudaMemcpyToSymbol", CopiesSynchronously,
     "'cudaMemcpyToSymbolAsync' on a stream, with pinned host memory",
     RuntimeApiSource},
    {SyncCategory::Explicit, "", "::cudaMemcpyFromSymbol", CopiesSynchronously,
     "'cudaMemcpyFromSymbolAsync' on a stream, with pinned host memory",
     RuntimeApiSource},
    {SyncCategory::Explicit, "", "::cuCtxSynchronize",
     "explicitly waits for all work queued in the context",
     "waiting only where the host reads results, polling an event "
     "('cuEventQuery'), or 'cuStreamWaitEvent' to order streams on the GPU",
     DriverApiSource},
    {SyncCategory::Explicit, "", "::cuStreamSynchronize", WaitsForStream,
     DriverInsteadOfStreamWait, DriverApiSource},
    {SyncCategory::Explicit, "", "::cuEventSynchronize", WaitsForEvent,
     "polling the event ('cuEventQuery'), or 'cuStreamWaitEvent' for a wait "
     "on the GPU",
     DriverApiSource},
    {SyncCategory::Explicit, "", "::cuMemcpy", CopiesSynchronously,
     "'cuMemcpyAsync' on a stream, with pinned host memory", DriverApiSource},
    {SyncCategory::Explicit, "", "::cuMemcpyDtoH", CopiesSynchronously,
     "'cuMemcpyDtoHAsync' on a stream, into pinned host memory",
     DriverApiSource},
    {SyncCategory::Explicit, "", "::cuMemcpyHtoD", CopiesSynchronously,
     "'cuMemcpyHtoDAsync' on a stream, from pinned host memory",
     DriverApiSource},
    {SyncCategory::Explicit, "", "::cuMemcpy2D", CopiesSynchronously,
     "'cuMemcpy2DAsync' on a stream, with pinned host memory", DriverApiSource},
    {SyncCategory::Explicit, "", "::cuMemcpy3D", CopiesSynchronously,
     "'cuMemcpy3DAsync' on a stream, with pinned host memory", DriverApiSource},
    {SyncCategory::Explicit, "", "::torch::cuda::synchronize", WaitsForDevice,
     TorchInsteadOfDeviceWait,
     "torch/csrc/api/src/cuda.cpp, c10/cuda/CUDAFunctions.cpp"},
    {SyncCategory::Explicit, "", "::c10::cuda::device_synchronize",
     WaitsForDevice, TorchInsteadOfDeviceWait, "c10/cuda/CUDAFunctions.cpp"},
    {SyncCategory::Explicit, "", "::c10::cuda::stream_synchronize",
     WaitsForStream, TorchInsteadOfStreamWait, "c10/cuda/CUDAFunctions.h"},
    {SyncCategory::Explicit, "", "::c10::cuda::CUDAStream::synchronize",
     WaitsForStream, TorchInsteadOfStreamWait, "c10/cuda/CUDAStream.h"},
    {SyncCategory::Explicit, "", "::at::cuda::CUDAEvent::synchronize",
     WaitsForEvent,
     "polling the event ('event.query()'), or 'event.block(stream)' for a "
     "wait on the GPU",
     "aten/src/ATen/cuda/CUDAEvent.h"},
    {SyncCategory::Explicit, "", "::c10::cuda::memcpy_and_sync",
     "copies, then explicitly waits for the stream",
     "'cudaMemcpyAsync' with pinned host memory, read after an event",
     "c10/cuda/CUDAFunctions.h"},
    {SyncCategory::Explicit, "",
     "::c10::cuda::CUDACachingAllocator::emptyCache",
     "returns the cached device memory to CUDA ('cudaFree' synchronizes the "
     "device)",
     "not calling it in loops: the caching allocator reuses freed blocks "
     "without a sync",
     "c10/cuda/CUDACachingAllocator.cpp"},

    // torch-sync-dynamic-shape: the output size depends on tensor values, so
    // the host reads a count from the device before it allocates the output.
    // The argument conditions (output_size, a histc range, num_classes, the
    // one-argument where) are checked in DynamicShapeCheck.cpp.
    {SyncCategory::DynamicShape, "nonzero", "::at::nonzero",
     "reads the number of nonzero elements from the device to size its "
     "output",
     NonzeroFixedSize, "aten/src/ATen/native/cuda/Nonzero.cu"},
    {SyncCategory::DynamicShape, "argwhere", "::at::argwhere",
     "reads the number of nonzero elements from the device to size its "
     "output",
     NonzeroFixedSize,
     "aten/src/ATen/native/TensorAdvancedIndexing.cpp, "
     "aten/src/ATen/native/cuda/Nonzero.cu"},
    {SyncCategory::DynamicShape, "nonzero_numpy", "::at::nonzero_numpy",
     "reads the number of nonzero elements from the device to size its "
     "outputs",
     NonzeroFixedSize,
     "aten/src/ATen/native/TensorAdvancedIndexing.cpp, "
     "aten/src/ATen/native/cuda/Nonzero.cu"},
    {SyncCategory::DynamicShape, "", "::at::where",
     "with one argument reads the number of true elements from the device "
     "to size its outputs",
     "the three-argument 'at::where(cond, x, 0)', which keeps the shape, or "
     "'nonzero_static' (LibTorch 2.1+) with a known bound",
     "aten/src/ATen/native/TensorCompare.cpp, "
     "aten/src/ATen/native/cuda/Nonzero.cu"},
    {SyncCategory::DynamicShape, "", "::at::_unique", UniqueEffect,
     UniqueFixedSize, "aten/src/ATen/native/cuda/UniqueCub.cu"},
    {SyncCategory::DynamicShape, "", "::at::_unique2", UniqueEffect,
     UniqueFixedSize, "aten/src/ATen/native/cuda/UniqueCub.cu"},
    {SyncCategory::DynamicShape, "", "::at::unique_consecutive", UniqueEffect,
     UniqueFixedSize,
     "aten/src/ATen/native/cuda/UniqueCub.cu, "
     "aten/src/ATen/native/cuda/Unique.cu"},
    {SyncCategory::DynamicShape, "", "::at::unique_dim", UniqueDimEffect,
     UniqueFixedSize, "aten/src/ATen/native/cuda/Unique.cu"},
    {SyncCategory::DynamicShape, "", "::at::unique_dim_consecutive",
     UniqueDimEffect, UniqueFixedSize, "aten/src/ATen/native/cuda/Unique.cu"},
    {SyncCategory::DynamicShape, "repeat_interleave", "::at::repeat_interleave",
     "without 'output_size' reads the sum of the repeats from the device to "
     "size its output",
     "passing the total as 'output_size' ('repeat_interleave(repeats, dim, "
     "total)') when the host knows it",
     "aten/src/ATen/native/Repeat.h, aten/src/ATen/native/Repeat.cpp"},
    {SyncCategory::DynamicShape, "bincount", "::at::bincount",
     "reads the largest value from the device to size its output",
     "'at::zeros({K}, t.options()).index_add_(0, t, at::ones_like(t))' (or "
     "'scatter_add_') with a known number of bins K",
     "aten/src/ATen/native/cuda/SummaryOps.cu"},
    {SyncCategory::DynamicShape, "histc", "::at::histc",
     "without a range reads the minimum and maximum from the device to place "
     "its bins",
     "an explicit range ('histc(t, bins, lo, hi)' with lo != hi)",
     "aten/src/ATen/native/cuda/SummaryOps.cu"},
    {SyncCategory::DynamicShape, "", "::at::one_hot", OneHotEffect,
     OneHotFixedSize, "aten/src/ATen/native/Onehot.cpp"},
    {SyncCategory::DynamicShape, "", "::torch::nn::functional::one_hot",
     OneHotEffect, OneHotFixedSize,
     "torch/csrc/api/include/torch/nn/functional/embedding.h, "
     "aten/src/ATen/native/Onehot.cpp"},
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
  const auto *Method = dyn_cast<CXXMethodDecl>(&Callee);
  if (Method && isTensorClass(Method->getParent())) {
    // Operators have no identifier: "operator[]".
    std::string Name = Method->getNameAsString();
    for (const SyncFact &F : Facts)
      if (F.Category == Category && F.Method == Name)
        return &F;
    return nullptr;
  }
  // A member of another class is named by its qualified name, like a free
  // function ("::c10::cuda::CUDAStream::synchronize").
  std::string Qualified = "::" + Callee.getQualifiedNameAsString();
  for (const SyncFact &F : Facts)
    if (F.Category == Category && F.Function == Qualified)
      return &F;
  return nullptr;
}

} // namespace clang::tidy::torch_sync
