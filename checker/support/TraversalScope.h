//===--- TraversalScope.h - the parent map over the user's code only ------===//
//
// clang's parent map (ParentMapContext: ASTContext::getParents, and through
// it the hasParent, hasAncestor and forFunction matchers and clang-tidy's
// ExprSequence) is built, at its first use, over the AST's traversal scope.
// clang-tidy leaves that scope at the whole translation unit, so one finding
// in a file that includes <torch/torch.h> builds a parent map of every
// declaration in LibTorch's headers: on bench/torch_tu.cpp it took the run's
// peak memory from 805 MB (stock clang-tidy's) to 1,250 MB
// (llvm/llvm-project#129808 is the upstream report of that map's growth
// since LLVM 19).
//
// The checks never ask for parents inside system headers: they report and
// analyse only the user's code, and with SkipLibraryHeaders LibTorch's
// headers are system headers. So, before the matchers run, the scope is set
// to the translation unit's top-level declarations outside system headers,
// as clangd sets it to the main file's. Above a node of the user's code the
// parents are then the same as in the whole-unit map.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_TRAVERSALSCOPE_H
#define TORCH_SYNC_TRAVERSALSCOPE_H

namespace clang {
class ASTContext;
} // namespace clang

namespace clang::tidy::torch_sync {

/// When the traversal scope of \p Context is the whole translation unit,
/// sets it to the unit's top-level declarations that are not located in a
/// system header (a declaration without a location is kept) and returns
/// true. Returns false, changing nothing, when the scope is limited already
/// (clangd limits it to the main file's declarations). Call it before the
/// matchers traverse the unit (from a match of the TranslationUnitDecl): the
/// traversal reads the scope once, at its start.
bool limitTraversalScopeToUserCode(ASTContext &Context);

/// Sets the traversal scope of \p Context back to the whole translation unit
/// (after limitTraversalScopeToUserCode returned true, once the matchers are
/// done with the unit).
void restoreWholeTraversalScope(ASTContext &Context);

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_TRAVERSALSCOPE_H
