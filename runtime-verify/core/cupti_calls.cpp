// See cupti_calls.h.
#include "cupti_calls.h"

#include <cuda_runtime_api.h>
#include <cupti.h> // also the generated_*_meta.h parameter structs

#include <cuda.h>

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace torch_sync::runtime {
namespace {

// Per-thread state. All of it is trivially destructible: CUDA calls made while a thread or the process
// tears down (LibTorch's handle pools free memory from static destructors) still reach the callback, and a
// destroyed std::string written there corrupts the heap.
constexpr int kMaxDepth = 16;
// Each subscription's number: a thread whose depths were counted under an earlier subscription (a call that
// began before the subscription ended) starts again from zero.
std::atomic<unsigned> currentGeneration{0};
struct ThreadState {
  unsigned generation = 0;
  int suspended = 0;    // ScopedCoreCall depth
  int runtimeDepth = 0; // enabled runtime calls in progress
  int driverDepth = 0;  // enabled driver calls in progress outside runtime calls
  // With capture errors watched (CudaCallClient::onCaptureError): every runtime call in progress, and every
  // driver call in progress outside runtime calls.
  int anyRuntimeDepth = 0;
  int anyDriverDepth = 0;
  CudaCall runtimeCalls[kMaxDepth];
  CudaCall driverCalls[kMaxDepth];
};
thread_local ThreadState threadState;

// The stream captures begun and not ended, counted by subscriptions that watch capture errors.
std::atomic<int> openCaptures{0};
// The stream captures begun, ended or not.
std::atomic<int> begunCaptures{0};

// A subscription's client and the callback ids it wants delivered (all of them enabled when it watches
// capture errors, so the wanted ones must be told apart). Never freed (see start()).
struct Subscriber {
  CudaCallClient client;
  std::vector<bool> runtimeWanted, driverWanted; // indexed by callback id
  bool wants(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) const {
    const std::vector<bool> &wanted = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? runtimeWanted : driverWanted;
    return cbid < wanted.size() && wanted[cbid];
  }
};

void describeRuntimeMemcpy(CudaCall &call, const void *dst, const void *src, int kind, std::uint64_t bytes) {
  MemoryType dstMemory = dst ? memoryTypeOf(dst) : MemoryType::Device; // nullptr: a symbol, on the device
  MemoryType srcMemory = src ? memoryTypeOf(src) : MemoryType::Device;
  call.bytes = bytes;
  switch (kind) {
  case cudaMemcpyHostToHost:
    call.copy = CopyKind::HostToHost;
    break;
  case cudaMemcpyHostToDevice:
    call.copy = CopyKind::HostToDevice;
    break;
  case cudaMemcpyDeviceToHost:
    call.copy = CopyKind::DeviceToHost;
    break;
  case cudaMemcpyDeviceToDevice:
    call.copy = CopyKind::DeviceToDevice;
    break;
  default: // cudaMemcpyDefault: the pointers say
    call.copy = copyKindBetween(srcMemory, dstMemory);
    break;
  }
  if (call.copy == CopyKind::HostToDevice)
    call.hostMemory = srcMemory;
  else if (call.copy == CopyKind::DeviceToHost)
    call.hostMemory = dstMemory;
}

CudaCall describeRuntimeCall(CUpti_CallbackId cbid, const CUpti_CallbackData &info) {
  CudaCall call;
  call.api = info.functionName;
  switch (cbid) {
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000: {
    const auto *p = static_cast<const cudaMemcpy_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, p->dst, p->src, p->kind, p->count);
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000: {
    const auto *p = static_cast<const cudaMemcpyAsync_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, p->dst, p->src, p->kind, p->count);
    call.stream = p->stream;
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000: {
    const auto *p = static_cast<const cudaMemcpy2D_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, p->dst, p->src, p->kind, std::uint64_t(p->width) * p->height);
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000: {
    const auto *p = static_cast<const cudaMemcpy2DAsync_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, p->dst, p->src, p->kind, std::uint64_t(p->width) * p->height);
    call.stream = p->stream;
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_ptds_v7000: {
    const cudaMemcpy3DParms *c = static_cast<const cudaMemcpy3D_v3020_params *>(info.functionParams)->p;
    if (c)
      describeRuntimeMemcpy(call, c->dstPtr.ptr, c->srcPtr.ptr, c->kind, 0);
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_ptsz_v7000: {
    const auto *p = static_cast<const cudaMemcpy3DAsync_v3020_params *>(info.functionParams);
    if (p->p)
      describeRuntimeMemcpy(call, p->p->dstPtr.ptr, p->p->srcPtr.ptr, p->p->kind, 0);
    call.stream = p->stream;
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_ptds_v7000: {
    const auto *p = static_cast<const cudaMemcpyToSymbol_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, nullptr, p->src,
                          p->kind == cudaMemcpyDefault ? cudaMemcpyHostToDevice : p->kind, p->count);
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_ptsz_v7000: {
    const auto *p = static_cast<const cudaMemcpyToSymbolAsync_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, nullptr, p->src,
                          p->kind == cudaMemcpyDefault ? cudaMemcpyHostToDevice : p->kind, p->count);
    call.stream = p->stream;
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_ptds_v7000: {
    const auto *p = static_cast<const cudaMemcpyFromSymbol_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, p->dst, nullptr,
                          p->kind == cudaMemcpyDefault ? cudaMemcpyDeviceToHost : p->kind, p->count);
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_ptsz_v7000: {
    const auto *p = static_cast<const cudaMemcpyFromSymbolAsync_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, p->dst, nullptr,
                          p->kind == cudaMemcpyDefault ? cudaMemcpyDeviceToHost : p->kind, p->count);
    call.stream = p->stream;
    break;
  }
  // The copies between host memory and a CUDA array (on the device: nullptr), and between arrays.
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToArray_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToArray_ptds_v7000: {
    const auto *p = static_cast<const cudaMemcpyToArray_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, nullptr, p->src, p->kind, p->count);
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DToArray_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DToArray_ptds_v7000: {
    const auto *p = static_cast<const cudaMemcpy2DToArray_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, nullptr, p->src, p->kind, std::uint64_t(p->width) * p->height);
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromArray_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromArray_ptds_v7000: {
    const auto *p = static_cast<const cudaMemcpyFromArray_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, p->dst, nullptr, p->kind, p->count);
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DFromArray_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DFromArray_ptds_v7000: {
    const auto *p = static_cast<const cudaMemcpy2DFromArray_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, p->dst, nullptr, p->kind, std::uint64_t(p->width) * p->height);
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToArrayAsync_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToArrayAsync_ptsz_v7000: {
    const auto *p = static_cast<const cudaMemcpyToArrayAsync_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, nullptr, p->src, p->kind, p->count);
    call.stream = p->stream;
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DToArrayAsync_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DToArrayAsync_ptsz_v7000: {
    const auto *p = static_cast<const cudaMemcpy2DToArrayAsync_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, nullptr, p->src, p->kind, std::uint64_t(p->width) * p->height);
    call.stream = p->stream;
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromArrayAsync_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromArrayAsync_ptsz_v7000: {
    const auto *p = static_cast<const cudaMemcpyFromArrayAsync_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, p->dst, nullptr, p->kind, p->count);
    call.stream = p->stream;
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DFromArrayAsync_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DFromArrayAsync_ptsz_v7000: {
    const auto *p = static_cast<const cudaMemcpy2DFromArrayAsync_v3020_params *>(info.functionParams);
    describeRuntimeMemcpy(call, p->dst, nullptr, p->kind, std::uint64_t(p->width) * p->height);
    call.stream = p->stream;
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyArrayToArray_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyArrayToArray_ptds_v7000:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DArrayToArray_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DArrayToArray_ptds_v7000:
    call.copy = CopyKind::DeviceToDevice;
    break;
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000:
    call.copy = CopyKind::DeviceToDevice;
    call.bytes = static_cast<const cudaMemcpyPeer_v4000_params *>(info.functionParams)->count;
    break;
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000: {
    const auto *p = static_cast<const cudaMemcpyPeerAsync_v4000_params *>(info.functionParams);
    call.copy = CopyKind::DeviceToDevice;
    call.bytes = p->count;
    call.stream = p->stream;
    break;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
    call.stream = static_cast<const cudaStreamSynchronize_v3020_params *>(info.functionParams)->stream;
    break;
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
  case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000:
    call.stream = static_cast<const cudaMemsetAsync_v3020_params *>(info.functionParams)->stream;
    break;
  case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:
    // cudaFree(nullptr) does nothing (CUDA libraries call it to create the context).
    call.nullPointer = !static_cast<const cudaFree_v3020_params *>(info.functionParams)->devPtr;
    break;
  case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020:
    call.nullPointer = !static_cast<const cudaFreeHost_v3020_params *>(info.functionParams)->ptr;
    break;
  default:
    break;
  }
  return call;
}

CopyKind driverCopyKind(std::string_view name) {
  if (name.find("HtoD") != std::string_view::npos || name.find("HtoA") != std::string_view::npos)
    return CopyKind::HostToDevice;
  if (name.find("DtoH") != std::string_view::npos || name.find("AtoH") != std::string_view::npos)
    return CopyKind::DeviceToHost;
  if (name.find("Peer") != std::string_view::npos || name.find("DtoD") != std::string_view::npos ||
      name.find("DtoA") != std::string_view::npos || name.find("AtoD") != std::string_view::npos ||
      name.find("AtoA") != std::string_view::npos)
    return CopyKind::DeviceToDevice;
  return CopyKind::None;
}

// Direction and host memory of a driver copy: from the name (cuMemcpyDtoH), or, for the unified forms
// (cuMemcpy, cuMemcpy2D, cuMemcpy3D), from the pointers' memory types.
CudaCall describeDriverCall(CUpti_CallbackId cbid, const CUpti_CallbackData &info) {
  CudaCall call;
  call.api = info.functionName;
  call.driver = true;
  call.copy = driverCopyKind(info.functionName);
  auto between = [&](MemoryType src, MemoryType dst) {
    call.copy = copyKindBetween(src, dst);
    call.hostMemory = call.copy == CopyKind::HostToDevice   ? src
                      : call.copy == CopyKind::DeviceToHost ? dst
                                                            : MemoryType::Unknown;
  };
  auto fromDescriptor = [&](CUmemorytype srcType, const void *srcHost, CUmemorytype dstType,
                            const void *dstHost) {
    between(srcType == CU_MEMORYTYPE_HOST ? memoryTypeOf(srcHost) : MemoryType::Device,
            dstType == CU_MEMORYTYPE_HOST ? memoryTypeOf(dstHost) : MemoryType::Device);
  };
  switch (cbid) {
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds: {
    const auto *p = static_cast<const cuMemcpy_params *>(info.functionParams);
    between(memoryTypeOf(reinterpret_cast<const void *>(p->src)),
            memoryTypeOf(reinterpret_cast<const void *>(p->dst)));
    call.bytes = p->ByteCount;
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz: {
    const auto *p = static_cast<const cuMemcpyAsync_params *>(info.functionParams);
    between(memoryTypeOf(reinterpret_cast<const void *>(p->src)),
            memoryTypeOf(reinterpret_cast<const void *>(p->dst)));
    call.bytes = p->ByteCount;
    call.stream = p->hStream;
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds: {
    const auto *p = static_cast<const cuMemcpyDtoH_v2_params *>(info.functionParams);
    call.hostMemory = memoryTypeOf(p->dstHost);
    call.bytes = p->ByteCount;
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz: {
    const auto *p = static_cast<const cuMemcpyDtoHAsync_v2_params *>(info.functionParams);
    call.hostMemory = memoryTypeOf(p->dstHost);
    call.bytes = p->ByteCount;
    call.stream = p->hStream;
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds: {
    const auto *p = static_cast<const cuMemcpyHtoD_v2_params *>(info.functionParams);
    call.hostMemory = memoryTypeOf(p->srcHost);
    call.bytes = p->ByteCount;
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz: {
    const auto *p = static_cast<const cuMemcpyHtoDAsync_v2_params *>(info.functionParams);
    call.hostMemory = memoryTypeOf(p->srcHost);
    call.bytes = p->ByteCount;
    call.stream = p->hStream;
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2_ptds: {
    const CUDA_MEMCPY2D *c = static_cast<const cuMemcpy2D_v2_params *>(info.functionParams)->pCopy;
    if (c) {
      fromDescriptor(c->srcMemoryType, c->srcHost, c->dstMemoryType, c->dstHost);
      call.bytes = std::uint64_t(c->WidthInBytes) * c->Height;
    }
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2_ptds: {
    const CUDA_MEMCPY3D *c = static_cast<const cuMemcpy3D_v2_params *>(info.functionParams)->pCopy;
    if (c)
      fromDescriptor(c->srcMemoryType, c->srcHost, c->dstMemoryType, c->dstHost);
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
  case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
    call.stream = static_cast<const cuStreamSynchronize_params *>(info.functionParams)->hStream;
    break;
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2_ptsz: {
    const auto *p = static_cast<const cuMemcpy2DAsync_v2_params *>(info.functionParams);
    if (p->pCopy) {
      fromDescriptor(p->pCopy->srcMemoryType, p->pCopy->srcHost, p->pCopy->dstMemoryType, p->pCopy->dstHost);
      call.bytes = std::uint64_t(p->pCopy->WidthInBytes) * p->pCopy->Height;
    }
    call.stream = p->hStream;
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2:
  case CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2_ptsz: {
    const auto *p = static_cast<const cuMemcpy3DAsync_v2_params *>(info.functionParams);
    if (p->pCopy)
      fromDescriptor(p->pCopy->srcMemoryType, p->pCopy->srcHost, p->pCopy->dstMemoryType, p->pCopy->dstHost);
    call.stream = p->hStream;
    break;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
    call.nullPointer = !static_cast<const cuMemFree_v2_params *>(info.functionParams)->dptr;
    break;
  default:
    break;
  }
  return call;
}

void onRuntimeCall(const CudaCallClient &client, CUpti_CallbackId cbid, const CUpti_CallbackData &info) {
  ThreadState &t = threadState;
  if (info.callbackSite == CUPTI_API_ENTER) {
    int depth = t.runtimeDepth++;
    // Only the outermost enabled runtime call is delivered (cudaMemcpy2D does not call cudaMemcpy, but be
    // safe).
    if (depth >= kMaxDepth || !info.functionName)
      return;
    t.runtimeCalls[depth] = describeRuntimeCall(cbid, info);
    if (depth == 0 && client.onEnter)
      client.onEnter(t.runtimeCalls[depth]);
    return;
  }
  if (t.runtimeDepth <= 0) // the call began before the subscription
    return;
  int depth = --t.runtimeDepth;
  if (depth == 0 && client.onExit && info.functionName)
    client.onExit(t.runtimeCalls[0]);
}

void onDriverCall(const CudaCallClient &client, CUpti_CallbackId cbid, const CUpti_CallbackData &info) {
  ThreadState &t = threadState;
  // A driver call made inside a runtime call is the runtime call's business.
  if (t.runtimeDepth > 0)
    return;
  if (info.callbackSite == CUPTI_API_ENTER) {
    int depth = t.driverDepth++;
    if (depth >= kMaxDepth || !info.functionName)
      return;
    t.driverCalls[depth] = describeDriverCall(cbid, info);
    if (depth == 0 && client.onEnter)
      client.onEnter(t.driverCalls[depth]);
    return;
  }
  if (t.driverDepth <= 0) // the call began before the subscription
    return;
  int depth = --t.driverDepth;
  if (depth == 0 && client.onExit && info.functionName)
    client.onExit(t.driverCalls[0]);
}

// The return value of a runtime (cudaError_t) or driver (CUresult) call, at its exit.
int returnValueOf(bool runtime, const CUpti_CallbackData &info) {
  if (!info.functionReturnValue)
    return 0;
  return runtime ? static_cast<int>(*static_cast<const cudaError_t *>(info.functionReturnValue))
                 : static_cast<int>(*static_cast<const CUresult *>(info.functionReturnValue));
}

// Capture errors and open captures: at the exit of each outermost call (a runtime call, or a driver call made
// outside runtime calls; a driver call inside a runtime call fails with it, and the runtime call is
// reported).
void watchCaptures(const CudaCallClient &client, bool runtime, const CUpti_CallbackData &info) {
  ThreadState &t = threadState;
  if (!runtime && t.anyRuntimeDepth > 0)
    return;
  int &depth = runtime ? t.anyRuntimeDepth : t.anyDriverDepth;
  if (info.callbackSite == CUPTI_API_ENTER) {
    ++depth;
    return;
  }
  if (depth <= 0 || --depth > 0 || !info.functionName) // began before the subscription, or not outermost
    return;
  std::string_view api = info.functionName;
  int result = returnValueOf(runtime, info);
  if (result == 0 && beginsCapture(api)) {
    begunCaptures.fetch_add(1, std::memory_order_relaxed);
    openCaptures.fetch_add(1, std::memory_order_relaxed);
  }
  // An end that succeeded, or that found its capture invalidated: either way the stream left capture mode.
  if ((result == 0 || isCaptureConsequence(result)) && endsCapture(api) &&
      openCaptures.load(std::memory_order_relaxed) > 0)
    openCaptures.fetch_sub(1, std::memory_order_relaxed);
  if (result == 0 || !captureErrorName(result) || returnsNoFailure(api))
    return;
  CudaCall call;
  call.api = info.functionName;
  call.driver = !runtime;
  client.onCaptureError(call, result);
}

void CUPTIAPI onCallback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                         const void *data) {
  ThreadState &t = threadState;
  if (t.suspended > 0)
    return;
  const auto &subscriber = *static_cast<const Subscriber *>(userdata);
  const CudaCallClient &client = subscriber.client;
  if (client.wantsThread && !client.wantsThread() && t.runtimeDepth == 0 && t.driverDepth == 0 &&
      t.anyRuntimeDepth == 0 && t.anyDriverDepth == 0)
    return; // not watched, and no call of this thread is in progress whose exit would need its depth
  if (unsigned generation = currentGeneration.load(std::memory_order_relaxed); t.generation != generation) {
    t.generation = generation;
    t.runtimeDepth = t.driverDepth = t.anyRuntimeDepth = t.anyDriverDepth = 0;
  }
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API)
    return;
  const auto &info = *static_cast<const CUpti_CallbackData *>(data);
  // Runtime calls are counted before the wanted ones are handled (a wanted driver call inside any runtime
  // call is then seen as such by both), and left after.
  bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  bool watchesCaptures = client.onCaptureError != nullptr;
  if (watchesCaptures && info.callbackSite == CUPTI_API_ENTER)
    watchCaptures(client, runtime, info);
  if (subscriber.wants(domain, cbid)) {
    if (runtime)
      onRuntimeCall(client, cbid, info);
    else
      onDriverCall(client, cbid, info);
  }
  if (watchesCaptures && info.callbackSite == CUPTI_API_EXIT)
    watchCaptures(client, runtime, info);
}

std::string cuptiError(const char *what, CUptiResult result) {
  const char *text = nullptr;
  cuptiGetResultString(result, &text);
  return std::string(what) + " failed: " + (text ? text : "unknown CUPTI error");
}

struct CallbackId {
  CUpti_CallbackDomain domain;
  uint32_t cbid;
};

// The callback ids whose API names the client wants: asked of CUPTI once per client function (a scan of
// about 1300 names), since the guard subscribes again for each outermost scope.
const std::vector<CallbackId> &wantedCallbacks(const CudaCallClient &client) {
  static std::mutex mutex;
  static auto *cache = new std::map<bool (*)(std::string_view), std::vector<CallbackId>>;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = cache->try_emplace(client.wantsApi);
  if (!inserted || !client.wantsApi)
    return it->second;
  struct Domain {
    CUpti_CallbackDomain domain;
    uint32_t size;
  };
  for (Domain d : {Domain{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE},
                   Domain{CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE}})
    for (uint32_t cbid = 1; cbid < d.size; ++cbid) {
      const char *name = nullptr;
      if (cuptiGetCallbackName(d.domain, cbid, &name) == CUPTI_SUCCESS && name && client.wantsApi(name))
        it->second.push_back(CallbackId{d.domain, cbid});
    }
  return it->second;
}

} // namespace

std::unique_ptr<CuptiSubscription> CuptiSubscription::start(const CudaCallClient &client,
                                                            std::string &error) {
  // A copy per subscription, never freed: a callback of an ended subscription may still be running on another
  // thread, and a failed start must not change what a live subscription's callbacks read.
  auto *stored = new Subscriber{client, std::vector<bool>(CUPTI_RUNTIME_TRACE_CBID_SIZE),
                                std::vector<bool>(CUPTI_DRIVER_TRACE_CBID_SIZE)};
  for (const CallbackId &id : wantedCallbacks(client))
    (id.domain == CUPTI_CB_DOMAIN_RUNTIME_API ? stored->runtimeWanted : stored->driverWanted)[id.cbid] = true;
  CUpti_SubscriberHandle handle = nullptr;
  CUptiResult result;
#ifdef CUpti_SubscriberParams_STRUCT_SIZE
  char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "torch-sync";
  params.oldSubscriberName = holder;
  params.oldSubscriberSize = sizeof(holder) - 1;
  result = cuptiSubscribe_v2(&handle, reinterpret_cast<CUpti_CallbackFunc>(onCallback), stored, &params);
#else
  const char *holder = "";
  result = cuptiSubscribe(&handle, reinterpret_cast<CUpti_CallbackFunc>(onCallback), stored);
#endif
  if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    error =
        std::string("CUPTI is held by another subscriber") +
        (*holder ? std::string(" (") + holder + ")" : "") +
        ": a profiler (Nsight Systems, LibTorch's profiler, Kineto) or another tool uses it in this process";
    return nullptr;
  }
  if (result != CUPTI_SUCCESS) {
    error = cuptiError("cuptiSubscribe", result);
    return nullptr;
  }
  currentGeneration.fetch_add(1, std::memory_order_relaxed);
  std::unique_ptr<CuptiSubscription> subscription(new CuptiSubscription);
  subscription->subscriber_ = handle;
  for (const CallbackId &id : wantedCallbacks(client)) {
    if (CUptiResult r = cuptiEnableCallback(1, handle, id.domain, id.cbid); r != CUPTI_SUCCESS) {
      error = cuptiError("cuptiEnableCallback", r);
      return nullptr; // the destructor unsubscribes
    }
    ++subscription->enabled_;
  }
  if (subscription->enabled_ == 0) {
    error = "CUPTI knows none of the CUDA calls asked for (cuptiGetCallbackName found no match)";
    return nullptr;
  }
  // Capture errors can come from any call: every callback of both domains (the wanted ones told apart above).
  if (client.onCaptureError)
    for (CUpti_CallbackDomain domain : {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API})
      if (CUptiResult r = cuptiEnableDomain(1, handle, domain); r != CUPTI_SUCCESS) {
        error = cuptiError("cuptiEnableDomain", r);
        return nullptr;
      }
  return subscription;
}

CuptiSubscription::~CuptiSubscription() {
  if (subscriber_)
    cuptiUnsubscribe(static_cast<CUpti_SubscriberHandle>(subscriber_));
}

int capturesUnderway() { return openCaptures.load(std::memory_order_relaxed); }

int capturesBegun() { return begunCaptures.load(std::memory_order_relaxed); }

ScopedCoreCall::ScopedCoreCall() { ++threadState.suspended; }
ScopedCoreCall::~ScopedCoreCall() { --threadState.suspended; }

MemoryType memoryTypeOf(const void *ptr) {
  // The query is no part of the program: a capture it observes must not see it (nor fail on it).
  if (capturesUnderway() > 0)
    return MemoryType::Unknown;
  ScopedCoreCall own;
  // Never touch the runtime's last-error slot while it holds an error that the program may still read.
  if (cudaPeekAtLastError() != cudaSuccess)
    return MemoryType::Unknown;
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
    (void)cudaGetLastError();
    return MemoryType::Unknown;
  }
  switch (attributes.type) {
  case cudaMemoryTypeUnregistered:
    return MemoryType::Pageable;
  case cudaMemoryTypeHost:
    return MemoryType::Pinned;
  case cudaMemoryTypeDevice:
    return MemoryType::Device;
  case cudaMemoryTypeManaged:
    return MemoryType::Managed;
  }
  return MemoryType::Unknown;
}

} // namespace torch_sync::runtime
