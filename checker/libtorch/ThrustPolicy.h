//===--- ThrustPolicy.h - where a Thrust algorithm call runs --------------===//
//
// Thrust (CCCL) picks the system an algorithm runs on from its execution
// policy argument ('thrust::device', 'thrust::cuda::par.on(s)',
// 'thrust::host', ...) or, without one, from its iterators' system
// ('thrust::device_ptr' and device_vector's iterators are the CUDA system's,
// raw pointers the host's). With a CUDA policy, an algorithm waits for its
// stream before it returns unless the policy is 'thrust::cuda::par_nosync'
// (runtime-verify/census/thrust_cases.cu measured both).
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_THRUSTPOLICY_H
#define TORCH_SYNC_THRUSTPOLICY_H

#include "clang/AST/Expr.h"

namespace clang::tidy::torch_sync {

enum class ThrustPolicy {
  /// Neither a policy nor iterators whose system is known (a fancy iterator,
  /// a dependent type): the call is not reported.
  Unknown,
  /// A host system: 'thrust::host', 'thrust::seq', the cpp, omp and tbb
  /// systems, raw pointers and other host iterators without a policy.
  Host,
  /// The CUDA system with a synchronous policy: 'thrust::device',
  /// 'thrust::cuda::par' (and '.on(stream)'), or device iterators without a
  /// policy.
  CudaSynchronous,
  /// The CUDA system with 'thrust::cuda::par_nosync' (and '.on(stream)').
  CudaNoSync,
};

/// The system and policy that the Thrust algorithm call \p Call runs with,
/// from the type of its first argument.
ThrustPolicy thrustPolicy(const CallExpr &Call);

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_THRUSTPOLICY_H
