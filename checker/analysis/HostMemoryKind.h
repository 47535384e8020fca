//===--- HostMemoryKind.h - what memory does a pointer point to? ----------===//
//
// The one question an asynchronous CUDA copy raises about its host side: is
// the buffer pageable (the copy from the device then returns only once the
// data is on the host, after the work queued before it) or pinned (the copy
// is queued and returns at once)? Answered from the code of the copy's
// function: where the pointer comes from (a std::vector's 'data()', a
// variable's address or a stack array, 'new', 'malloc', 'cudaMallocHost',
// 'cudaHostAlloc', 'cuMemAllocHost', a CPU tensor's 'data_ptr()'), through
// local pointer variables whose every value is seen, and whether the memory
// was registered with 'cudaHostRegister' before the copy. Anything else is
// Unknown, which the checks leave unreported.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_HOSTMEMORYKIND_H
#define TORCH_SYNC_HOSTMEMORYKIND_H

#include "analysis/device/DeviceInference.h"

namespace clang {
class ASTContext;
class Expr;
namespace tidy::torch_sync {

/// The memory a pointer points to.
enum class MemoryKind {
  /// Host memory that the CUDA driver must stage: the stack, the heap of
  /// 'new' and 'malloc', a std::vector's buffer, a CPU tensor not pinned.
  Pageable,
  /// Page-locked host memory: 'cudaMallocHost', 'cudaHostAlloc',
  /// 'cuMemAllocHost', 'cuMemHostAlloc', memory registered with
  /// 'cudaHostRegister' (or 'cuMemHostRegister') before, a pinned tensor.
  Pinned,
  /// Device memory: 'cudaMalloc', 'cudaMallocAsync', 'cuMemAlloc', a CUDA
  /// tensor's data.
  Device,
  /// Not known.
  Unknown,
};

/// The kind of memory that the pointer \p Pointer (of any pointer type, or a
/// CUdeviceptr made from one) points to where it is evaluated, as far as its
/// function shows. \p Devices answers where a tensor lives and what a tensor
/// variable holds.
MemoryKind hostMemoryKind(const Expr &Pointer, DeviceInference &Devices,
                          ASTContext &Context);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_HOSTMEMORYKIND_H
