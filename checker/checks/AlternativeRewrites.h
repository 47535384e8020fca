//===--- AlternativeRewrites.h - edits into a sync-free alternative -------===//
//
// The mechanical rewrites of a synchronizing call into its sync-free
// alternative. Each changes what the program does (a host-side error check
// becomes a device-side one, the host runs ahead of a copy), so the checks
// offer them as a note's fix-it: applied by clang-tidy --fix-notes and by an
// editor's code action, never by --fix.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_ALTERNATIVEREWRITES_H
#define TORCH_SYNC_ALTERNATIVEREWRITES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/Diagnostic.h"
#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::torch_sync {

/// A rewrite and the note that offers it: the note says what the edit does
/// and what it changes.
struct AlternativeRewrite {
  std::string Note;
  std::vector<FixItHint> Fixes;
};

/// 'at::linalg_inv(A)', 'torch::linalg_inv(A)', 'torch::linalg::inv(A)',
/// 'at::inverse(A)' or 'A.inverse()' (\p Call, of \p Callee) to
/// 'std::get<0>(at::linalg_inv_ex(A))': the inverse without the host's check
/// of 'info'. std::nullopt for another callee, or a call written in a macro.
std::optional<AlternativeRewrite> linalgInvExRewrite(const CallExpr &Call,
                                                     const FunctionDecl &Callee,
                                                     ASTContext &Context);

/// 'TORCH_CHECK(x.item<bool>(), ...)', 'TORCH_CHECK(x.item().toBool(), ...)'
/// or 'TORCH_CHECK(x.is_nonzero(), ...)' (\p Read is the 'item' or
/// 'is_nonzero' call) to 'at::_assert_async(x)', which checks on the device:
/// a failure surfaces at a later synchronization, without the message.
/// std::nullopt unless the macro's condition is exactly that read.
std::optional<AlternativeRewrite> assertAsyncRewrite(const CallExpr &Read,
                                                     ASTContext &Context);

/// A host-to-device 't.to(...)' (\p Copy) with ', /*non_blocking=*/true'
/// added after its written arguments (when 'non_blocking' is the next
/// parameter of the overload), or 't.cuda()' as
/// 't.to(at::kCUDA, /*non_blocking=*/true)': the host no longer waits for
/// the upload from pinned memory, and must not change the source until the
/// copy has run. std::nullopt otherwise.
std::optional<AlternativeRewrite>
nonBlockingUploadRewrite(const CXXMemberCallExpr &Copy, ASTContext &Context);

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_ALTERNATIVEREWRITES_H
