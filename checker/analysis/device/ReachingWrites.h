//===--- ReachingWrites.h - which writes of a variable reach a use --------===//
//
// A reaching-definitions query over clang's CFG of one function, for one local
// variable at a time: which of the variable's writes (its declaration, the
// assignments to it) the value read at a use may come from. The device
// inference asks it where a variable is assigned more than once, so that
// 'x = x.cpu(); x.item();' reads the copy, not every value 'x' ever held.
// Statement order inside a CFG block comes from clang-tidy's ExprSequence
// (the sequencing rules that bugprone-use-after-move relies on).
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_REACHINGWRITES_H
#define TORCH_SYNC_REACHINGWRITES_H

#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <memory>
#include <optional>

namespace clang {
class ASTContext;
class CFG;
class CFGBlock;
namespace tidy::utils {
class ExprSequence;
class StmtToBlockMap;
} // namespace tidy::utils

namespace tidy::torch_sync {

/// The CFG of one function body and the order of its statements, built once.
class ReachingWrites {
public:
  /// Builds the CFG of \p Function's body (as bugprone-use-after-move does:
  /// implicit and temporary destructors included). A body whose CFG cannot
  /// be built answers every query with std::nullopt.
  ReachingWrites(const FunctionDecl &Function, ASTContext &Context);
  ~ReachingWrites();

  /// The writes among \p Writes (the variable's DeclStmt and the assignment
  /// expressions to it, as the caller found them) that may give the value
  /// read at \p Use; a null entry stands for the value the variable has on
  /// entry to the function (a parameter's argument). std::nullopt when it
  /// cannot be told: \p Use or a write is inside a lambda or not in the CFG,
  /// or two writes in one block are not ordered.
  std::optional<llvm::SmallVector<const Stmt *, 4>>
  reaching(llvm::ArrayRef<const Stmt *> Writes, const Stmt &Use);

private:
  const CFGBlock *blockOf(const Stmt &S) const;
  /// The write of \p InBlock that runs last in its block; null when the
  /// order is not known.
  const Stmt *lastWrite(llvm::ArrayRef<const Stmt *> InBlock) const;

  ASTContext &Context;
  const Stmt *Body;
  std::unique_ptr<CFG> Graph;
  std::unique_ptr<utils::ExprSequence> Sequence;
  std::unique_ptr<utils::StmtToBlockMap> Blocks;
};

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_REACHINGWRITES_H
