//===--- EnclosingContext.h - where a statement runs in its function ------===//
//
// Questions about the code around a statement, answered from the AST's parent
// map (clang's ParentMapContext) rather than from what an earlier match saw:
// the function (or lambda) whose body holds it, and whether it runs on every
// iteration of a loop of that function. The checks ask them for the call they
// report: the loop decides the advice and the LoopsOnly option, the function
// the shape reads (DeviceValueFlow) that the advice depends on.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_ENCLOSINGCONTEXT_H
#define TORCH_SYNC_ENCLOSINGCONTEXT_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/ASTTypeTraits.h"
#include "clang/AST/ParentMapContext.h"

namespace clang::tidy::torch_sync {

/// Walks up the parents of \p Node (the first parent where there are several,
/// as in a template instantiation's shared nodes). \p Visit gets each
/// (parent, child) pair and returns true to stop. Stops by itself at the
/// translation unit, or after 256 levels (a guard against a cyclic map).
template <typename Callback>
void forEachAncestor(DynTypedNode Node, ASTContext &Context, Callback Visit) {
  for (unsigned Depth = 0; Depth < 256; ++Depth) {
    DynTypedNodeList Parents = Context.getParents(Node);
    if (Parents.empty())
      return;
    DynTypedNode Parent = Parents[0];
    if (Visit(Parent, Node))
      return;
    Node = Parent;
  }
}

/// The innermost function definition whose body holds \p S: a lambda's call
/// operator for a statement in a lambda's body. Null outside any function
/// (a global's initializer) or when the parent map does not reach one.
const FunctionDecl *enclosingFunction(const Stmt &S, ASTContext &Context);

/// Whether \p S runs on every iteration of a loop of its own function: it is
/// in the body, condition or increment of a 'for', 'while' or 'do' loop, or
/// in the body of a range-based 'for' (not in a for-init or a range-init,
/// which run once), with no function or lambda boundary in between (a lambda
/// defined in a loop runs when it is called). 'do { ... } while (0)', the
/// shape of statement-like macros such as C10_CUDA_CHECK, is no loop.
bool runsOnEveryLoopIteration(const Stmt &S, ASTContext &Context);

/// The innermost loop on whose every iteration \p S runs, as
/// runsOnEveryLoopIteration() decides; null when there is none.
const Stmt *perIterationLoop(const Stmt &S, ASTContext &Context);

/// The optional whose 'value_or' takes a value computed by \p E: the
/// receiver 'opt' when \p E is its argument or part of it
/// ('opt.value_or(t.item<int64_t>())', of std::optional or c10::optional),
/// whose argument runs whether or not the optional holds a value. Null
/// otherwise.
const Expr *optionalWithDefaultFrom(const Expr &E, ASTContext &Context);

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_ENCLOSINGCONTEXT_H
