//===--- ReachingWrites.cpp - which writes of a variable reach a use ------===//

#include "analysis/device/ReachingWrites.h"
#include "clang-tidy/utils/ExprSequence.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace clang::tidy::torch_sync {

namespace {
/// Whether \p Ancestor is \p S or one of the statements that contain it,
/// below \p Root; sets \p InLambda when a lambda, block or local class lies
/// on the way up (its body runs where it is called, not where it is written).
bool isWithin(const Stmt &S, const Stmt *Ancestor, const Stmt *Root,
              ASTContext &Context, bool &InLambda) {
  DynTypedNode Node = DynTypedNode::create(S);
  for (unsigned Steps = 0; Steps < 256; ++Steps) {
    const auto *Current = Node.get<Stmt>();
    if (Current && Current == Ancestor)
      return true;
    if (Current && Current == Root)
      return false;
    // A lambda's body is reached through its call operator, a local class's
    // members through the class.
    if ((isa_and_nonnull<LambdaExpr>(Current) && Current != &S) ||
        isa_and_nonnull<FunctionDecl, CXXRecordDecl, BlockDecl, CapturedDecl>(
            Node.get<Decl>()))
      InLambda = true;
    auto Parents = Context.getParents(Node);
    if (Parents.empty())
      return false;
    Node = Parents[0];
  }
  return false;
}
} // namespace

ReachingWrites::ReachingWrites(const FunctionDecl &Function,
                               ASTContext &Context)
    : Context(Context), Body(Function.getBody()) {
  if (!Body)
    return;
  CFG::BuildOptions Options;
  Options.AddImplicitDtors = true;
  Options.AddTemporaryDtors = true;
  Graph = CFG::buildCFG(nullptr, const_cast<Stmt *>(Body), &Context, Options);
  if (!Graph)
    return;
  Sequence = std::make_unique<utils::ExprSequence>(Graph.get(), Body, &Context);
  Blocks = std::make_unique<utils::StmtToBlockMap>(Graph.get(), &Context);
}

ReachingWrites::~ReachingWrites() = default;

const CFGBlock *ReachingWrites::blockOf(const Stmt &S) const {
  return Blocks ? Blocks->blockContainingStmt(&S) : nullptr;
}

const Stmt *
ReachingWrites::lastWrite(llvm::ArrayRef<const Stmt *> InBlock) const {
  for (const Stmt *Candidate : InBlock) {
    bool Last = llvm::all_of(InBlock, [&](const Stmt *Other) {
      return Other == Candidate || Sequence->inSequence(Other, Candidate);
    });
    if (Last)
      return Candidate;
  }
  return nullptr;
}

std::optional<llvm::SmallVector<const Stmt *, 4>>
ReachingWrites::reaching(llvm::ArrayRef<const Stmt *> Writes, const Stmt &Use) {
  if (!Graph)
    return std::nullopt;
  bool InLambda = false;
  isWithin(Use, nullptr, Body, Context, InLambda);
  const CFGBlock *UseBlock = blockOf(Use);
  if (InLambda || !UseBlock)
    return std::nullopt;

  // The writes of each block; a write inside a lambda runs where the lambda
  // is called, which the CFG does not say.
  llvm::DenseMap<const CFGBlock *, llvm::SmallVector<const Stmt *, 2>> ByBlock;
  llvm::SmallVector<const Stmt *, 2> BeforeUse;
  for (const Stmt *Write : Writes) {
    bool WriteInLambda = false;
    bool Contains = isWithin(Use, Write, Body, Context, WriteInLambda);
    isWithin(*Write, nullptr, Body, Context, WriteInLambda);
    const CFGBlock *Block = blockOf(*Write);
    if (WriteInLambda || !Block)
      return std::nullopt;
    ByBlock[Block].push_back(Write);
    if (Block != UseBlock || Contains)
      continue; // 'x = f(x)' assigns after it reads 'x'.
    if (Sequence->inSequence(Write, &Use))
      BeforeUse.push_back(Write);
    else if (!Sequence->inSequence(&Use, Write))
      return std::nullopt; // unsequenced in one block
  }

  llvm::SmallVector<const Stmt *, 4> Result;
  if (!BeforeUse.empty()) {
    const Stmt *Last = lastWrite(BeforeUse);
    if (!Last)
      return std::nullopt;
    Result.push_back(Last);
    return Result;
  }
  // Walk back from the use's block; each path ends at the last write of the
  // first block on it that writes, or at the function's entry.
  llvm::SmallPtrSet<const CFGBlock *, 16> Visited;
  llvm::SmallVector<const CFGBlock *, 16> Work;
  auto PushPredecessors = [&](const CFGBlock &Block) {
    for (const CFGBlock::AdjacentBlock &Pred : Block.preds())
      if (const CFGBlock *Reachable = Pred.getReachableBlock())
        Work.push_back(Reachable);
  };
  PushPredecessors(*UseBlock);
  bool ReachesEntry = false;
  while (!Work.empty()) {
    const CFGBlock *Block = Work.pop_back_val();
    if (!Visited.insert(Block).second)
      continue;
    auto Found = ByBlock.find(Block);
    if (Found != ByBlock.end()) {
      const Stmt *Last = lastWrite(Found->second);
      if (!Last)
        return std::nullopt;
      if (!llvm::is_contained(Result, Last))
        Result.push_back(Last);
      continue;
    }
    if (Block == &Graph->getEntry())
      ReachesEntry = true;
    PushPredecessors(*Block);
  }
  if (ReachesEntry)
    Result.push_back(nullptr);
  return Result;
}

} // namespace clang::tidy::torch_sync
