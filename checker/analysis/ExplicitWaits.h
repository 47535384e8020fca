//===--- ExplicitWaits.h - when a CUDA call or Thrust algorithm waits -----===//
//
// torch-sync-explicit's argument conditions. The CUDA runtime and driver
// functions and Thrust's algorithms in the facts table wait for the device
// unless their arguments say otherwise: a free of a null pointer frees
// nothing, an asynchronous copy waits only into pageable host memory
// (HostMemoryKind.h), a device-to-device 'cudaMemcpy' does not wait for the
// host, and a Thrust algorithm waits only under a CUDA execution policy that
// synchronizes (ThrustPolicy.h). CallSync asks them of each such call.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_EXPLICITWAITS_H
#define TORCH_SYNC_EXPLICITWAITS_H

namespace clang {
class ASTContext;
class CallExpr;
namespace tidy::torch_sync {
class DeviceInference;
struct SyncFact;

/// The fact to report the call \p Call under, where \p Fact, an explicit
/// wait's fact (SyncCategory::Explicit) of its callee, names it: \p Fact
/// itself, or, for the vector form of a Thrust search (which only launches),
/// the first fact of a Thrust algorithm that only launches, whose effect and
/// alternative every such algorithm shares. Null when the arguments make the
/// call sync-free: a free of a null pointer (Fact.NullPointerIsNoOp); an
/// asynchronous copy (Fact.AsyncCopy) whose target is not pageable host
/// memory or whose source is not the device; a Thrust algorithm under a host
/// or unknown policy, or under 'par_nosync' when it returns nothing to the
/// host; a CUDA API copy of kind 'cudaMemcpyDeviceToDevice'.
const SyncFact *explicitWaitFact(const CallExpr &Call, const SyncFact &Fact,
                                 DeviceInference &Devices, ASTContext &Context);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_EXPLICITWAITS_H
