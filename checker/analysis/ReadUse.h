//===--- ReadUse.h - how the code uses what a sync reads or uploads -------===//
//
// The advice of a finding follows the shape of the use (sync-facts.yaml
// 'advice_by_use'): a value read from the device that sizes something is
// better passed in, a count better taken on the device into pinned memory, a
// value the host already holds better not read back; several small uploads
// want one staging buffer, and a wait that only guards an upload's host buffer
// goes with that buffer. This file tells which shape the use of a
// synchronizing call has; the checks pick the text from the facts.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_READUSE_H
#define TORCH_SYNC_READUSE_H

#include "analysis/CallSync.h"
#include "facts/SyncFacts.h"
#include <optional>

namespace clang {
class ASTContext;
class CallExpr;
namespace tidy::torch_sync {

/// How the code around \p Call, a synchronizing call that \p Sync describes,
/// uses what the call reads from the device, uploads to it, or waits for; the
/// first that applies, in this order:
///   Unused          the call copies to the host, and nothing reads the
///                   copy: the statement drops the tensor, or it initialises
///                   a local variable that no code names; a device-to-host
///                   'cudaMemcpy' into a local variable ('&n', 'v.data()')
///                   that no code names after it;
///   HostValue       the call reads ('item()', a copy to the host, a
///                   device-to-host 'cudaMemcpy') from a tensor that this
///                   function made from host values ('torch::tensor(v)',
///                   'from_blob', 'full') and moved to the device, and did not
///                   change since;
///   Accumulated     the value read, on every iteration of a loop, is added
///                   up on the host ('total += v', 'flags |= v');
///   Count           the value read is a 'sum' of a mask or a
///                   'count_nonzero', or the call is a 'nonzero' whose result
///                   serves only for its size;
///   Size            the value read ('item()', '.cpu().data_ptr<T>()[i]',
///                   '.cpu().item()', a local variable that a device-to-host
///                   'cudaMemcpy' writes), directly, through arithmetic or
///                   through local variables initialised or assigned with it,
///                   sizes a tensor factory or a shape method, 'resize' or
///                   'reserve', a 'std::vector', an allocation ('malloc',
///                   'cudaMalloc', 'new[]') or a copy, bounds a slice,
///                   'narrow' or a loop, or configures a kernel launch;
///   RepeatedUpload  the call uploads ('torch::tensor', a copy to the device,
///                   a host-to-device 'cudaMemcpy') on every iteration of a
///                   loop, or beside another upload in the statements of its
///                   block;
///   ResultWait      the call waits (for the device, a stream or an event)
///                   after an asynchronous copy to the host in its function;
///   StagingWait     the call waits in a function that uploads from host
///                   memory asynchronously and copies nothing to the host
///                   before the wait.
/// std::nullopt when none applies: the fact's own alternative serves.
/// \p Devices and \p Rules decide whether other calls of the block upload.
std::optional<ValueUse> valueUse(const CallExpr &Call, const CallSync &Sync,
                                 DeviceInference &Devices, ASTContext &Context,
                                 const SyncRules &Rules);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_READUSE_H
