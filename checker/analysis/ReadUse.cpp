//===--- ReadUse.cpp - how the code uses what a sync reads or uploads -----===//

#include "analysis/ReadUse.h"
#include "analysis/HostValueSink.h"
#include "libtorch/DeviceTypes.h"
#include "libtorch/LibTorchApi.h"
#include "support/EnclosingContext.h"
#include "support/ValueWalk.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <algorithm>

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {

//===-- What kind of call ------------------------------------------------===//

/// The direction a CUDA runtime or driver copy names: its 'cudaMemcpyKind'
/// argument, or the 'HtoD' / 'DtoH' in a driver copy's name.
CopyDirection memcpyDirection(const CallExpr &Call) {
  StringRef Name = identifierOf(Call.getDirectCallee());
  if (Name.starts_with("cuMemcpy")) {
    if (Name.contains("HtoD"))
      return CopyDirection::HostToDevice;
    if (Name.contains("DtoH"))
      return CopyDirection::DeviceToHost;
    return CopyDirection::Unknown;
  }
  if (!Name.starts_with("cudaMemcpy"))
    return CopyDirection::None;
  for (const Expr *Arg : Call.arguments()) {
    const auto *Ref = dyn_cast<DeclRefExpr>(Arg->IgnoreParenImpCasts());
    const auto *Kind =
        Ref ? dyn_cast<EnumConstantDecl>(Ref->getDecl()) : nullptr;
    if (!Kind)
      continue;
    if (identifierOf(Kind) == "cudaMemcpyHostToDevice")
      return CopyDirection::HostToDevice;
    if (Kind->getName() == "cudaMemcpyDeviceToHost")
      return CopyDirection::DeviceToHost;
    if (Kind->getName() == "cudaMemcpyDeviceToDevice" ||
        Kind->getName() == "cudaMemcpyHostToHost")
      return CopyDirection::None;
  }
  // 'cudaMemcpyDefault', or a kind that is not a constant.
  return CopyDirection::Unknown;
}

/// Whether \p Call is an asynchronous CUDA copy ('cudaMemcpyAsync',
/// 'cuMemcpyHtoDAsync').
bool isAsyncMemcpy(const CallExpr &Call) {
  StringRef Name = identifierOf(Call.getDirectCallee());
  return (Name.starts_with("cudaMemcpy") || Name.starts_with("cuMemcpy")) &&
         Name.contains("Async");
}

/// Whether \p Sync is a blocking upload: a tensor copy to the device, a
/// 'torch::tensor' on the device, a host-to-device 'cudaMemcpy'.
bool isUpload(const CallExpr &Call, const CallSync &Sync) {
  if (Sync.Direction == CopyDirection::HostToDevice)
    return true;
  if (!Sync.Fact)
    return false;
  if (Sync.Fact->Function == "::torch::tensor" ||
      Sync.Fact->Function == "::at::tensor")
    return true;
  return Sync.Category == SyncCategory::Explicit &&
         memcpyDirection(Call) == CopyDirection::HostToDevice;
}

/// Whether \p Sync waits for the device, a stream or an event.
bool isWait(const CallSync &Sync) {
  return Sync.Category == SyncCategory::Explicit &&
         StringRef(Sync.Name).contains_insensitive("synchronize");
}

/// Whether \p Sync reads one value ('item()', 'at::_local_scalar_dense').
bool isValueRead(const CallSync &Sync) {
  return Sync.Fact && (Sync.Fact->Method == "item" ||
                       Sync.Fact->Function == "::at::_local_scalar_dense");
}

/// Whether \p Sync copies a tensor to the host and returns the copy ('cpu()',
/// 'to(kCPU)'; not 'copy_', whose copy is its receiver).
bool isCopyToHost(const CallSync &Sync) {
  return Sync.Fact && Sync.Category == SyncCategory::DeviceToHost &&
         (Sync.Fact->Method == "cpu" ||
          (Sync.Fact->Method == "to" &&
           Sync.Direction == CopyDirection::DeviceToHost));
}

//===-- The values read --------------------------------------------------===//

/// The host values read out of the copy \p Copy to the host: the end of a
/// chain of calls, subscripts and dereferences on it that gives a number
/// ('.data_ptr<int64_t>()[0]', '[-1].item<int64_t>()', '*...data_ptr<T>()'),
/// also through a local variable that holds the copy or its pointer.
void collectScalarReads(const Expr &Copy, const Stmt &Body, ASTContext &Context,
                        unsigned Depth,
                        llvm::SmallVectorImpl<const Expr *> &Reads) {
  const Expr *E = &Copy;
  for (unsigned Steps = 0; Steps < 32; ++Steps) {
    DynTypedNode Parent = parentOf(DynTypedNode::create(*E), Context);
    const auto *P = Parent.get<Expr>();
    if (P && (wrapsValue(P) || isa<MemberExpr>(P))) {
      E = P;
      continue;
    }
    // A member call on the value ('.data_ptr<T>()', '.item()') is reached
    // through its MemberExpr; an operator[] or a subscript takes it as its
    // first operand; '*p' dereferences it.
    if (const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(P)) {
      if (Call->getCallee() == E) {
        E = P;
        continue;
      }
    }
    if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(P)) {
      if (Op->getNumArgs() >= 1 && Op->getArg(0) == E &&
          (Op->getOperator() == OO_Subscript || Op->getOperator() == OO_Star)) {
        E = P;
        continue;
      }
    }
    if (const auto *Subscript = dyn_cast_or_null<ArraySubscriptExpr>(P)) {
      if (Subscript->getBase() == E) {
        E = P;
        continue;
      }
    }
    if (const auto *Unary = dyn_cast_or_null<UnaryOperator>(P)) {
      if (Unary->getOpcode() == UO_Deref) {
        E = P;
        continue;
      }
    }
    QualType Type = E->getType().getNonReferenceType();
    if (Type->isArithmeticType() || libraryRecordName(Type) == "Scalar") {
      Reads.push_back(E);
      return;
    }
    // 'auto host = t.cpu();', 'int64_t *p = t.cpu().data_ptr<int64_t>();':
    // the reads go through the variable.
    if (const auto *Var = Parent.get<VarDecl>())
      if (Var->hasLocalStorage() && Depth < MaxValueDepth)
        for (const DeclRefExpr *Ref : referencesTo(*Var, Body, Context))
          collectScalarReads(*Ref, Body, Context, Depth + 1, Reads);
    return;
  }
}

//===-- What the value is read from ---------------------------------------===//

/// The tensor methods that select, reshape, convert or reduce their receiver:
/// what their result holds comes from it.
bool isDerivingMethod(StringRef Name) {
  return llvm::is_contained({"to",
                             "cpu",
                             "cuda",
                             "contiguous",
                             "clone",
                             "detach",
                             "long",
                             "int",
                             "float",
                             "double",
                             "index",
                             "select",
                             "narrow",
                             "slice",
                             "squeeze",
                             "view",
                             "reshape",
                             "flatten",
                             "sum",
                             "max",
                             "min",
                             "amax",
                             "amin",
                             "cumsum",
                             "item",
                             "data_ptr",
                             "const_data_ptr",
                             "mutable_data_ptr",
                             "pin_memory"},
                            Name);
}

/// The receiver of a member call or an operator[] on a tensor, through
/// implicit nodes; null for anything else.
const Expr *tensorReceiver(const Expr *E, StringRef &Name) {
  E = E ? E->IgnoreParenImpCasts() : nullptr;
  if (const auto *Member = dyn_cast_or_null<CXXMemberCallExpr>(E)) {
    Name = identifierOf(Member->getMethodDecl());
    return Member->getImplicitObjectArgument();
  }
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(E))
    if (Op->getOperator() == OO_Subscript && Op->getNumArgs() >= 1) {
      Name = "operator[]";
      return Op->getArg(0);
    }
  return nullptr;
}

/// Whether \p E is made on the host from host values and moved to the device
/// ('torch::tensor(v).to(kCUDA)', 'torch::from_blob(p, n).cuda()',
/// 'torch::full({1}, n, options)'), here or in a local variable that nothing
/// changes after its initialisation.
bool isMadeFromHostValues(const Expr *E, const Stmt &Body, ASTContext &Context,
                          unsigned Depth) {
  for (unsigned Steps = 0; E && Steps < 16; ++Steps) {
    E = strip(E);
    if (!E)
      return false;
    StringRef Name;
    if (const Expr *Receiver = tensorReceiver(E, Name)) {
      if (Name != "operator[]" && !isDerivingMethod(Name))
        return false;
      E = Receiver;
      continue;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      if (!Callee)
        return false;
      std::string Qualified = "::" + Callee->getQualifiedNameAsString();
      return llvm::is_contained({"::torch::tensor", "::at::tensor",
                                 "::torch::from_blob", "::at::from_blob",
                                 "::torch::full", "::at::full"},
                                Qualified);
    }
    const VarDecl *Var = localVariable(E);
    if (!Var || !Var->getInit() || Depth >= MaxValueDepth)
      return false;
    // Nothing may write the variable, nor change its tensor in place.
    for (const DeclRefExpr *Ref : referencesTo(*Var, Body, Context)) {
      DynTypedNode Parent = parentOf(DynTypedNode::create(*Ref), Context);
      while (Parent.get<Expr>() && wrapsValue(Parent.get<Expr>()))
        Parent = parentOf(Parent, Context);
      if (const auto *Member = Parent.get<MemberExpr>())
        if (identifierOf(Member->getMemberDecl()).ends_with("_"))
          return false;
      if (const auto *Op = Parent.get<CXXOperatorCallExpr>())
        if (Op->isAssignmentOp() && Op->getArg(0)->IgnoreParenImpCasts() == Ref)
          return false;
      if (const auto *Binary = Parent.get<BinaryOperator>())
        if (Binary->isAssignmentOp())
          return false;
    }
    return isMadeFromHostValues(Var->getInit(), Body, Context, Depth + 1);
  }
  return false;
}

/// Whether \p E is a boolean mask: a comparison, an op that makes a mask
/// (api list mask_results), a conversion to bool, or a local variable
/// initialised with one.
bool isMask(const Expr *E, unsigned Depth = 0) {
  E = strip(E);
  if (!E || Depth > MaxValueDepth)
    return false;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E))
    return isComparisonOperator(Op->getOperator()) ||
           Op->getOperator() == OO_Exclaim;
  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    StringRef Name = identifierOf(Call->getDirectCallee());
    if (isInApiList(ApiList::MaskResults, Name) || Name == "bool")
      return true;
    // 'x.to(torch::kBool)'.
    if (Name == "to" && Call->getNumArgs() >= 1)
      if (const auto *Ref =
              dyn_cast<DeclRefExpr>(Call->getArg(0)->IgnoreParenImpCasts()))
        return identifierOf(Ref->getDecl()) == "kBool" ||
               identifierOf(Ref->getDecl()) == "Bool";
    return false;
  }
  const VarDecl *Var = localVariable(E);
  return Var && Var->getInit() && isMask(Var->getInit(), Depth + 1);
}

/// Whether \p E, what a value is read from, is a count of true elements: a
/// 'sum' of a mask or a 'count_nonzero', through selections and conversions
/// ('mask.sum().item()', 'at::count_nonzero(m)[0]', 'mask.sum(0).cpu()').
bool isCount(const Expr *E) {
  for (unsigned Steps = 0; E && Steps < 16; ++Steps) {
    E = strip(E);
    if (!E)
      return false;
    const auto *Call = dyn_cast<CallExpr>(E);
    StringRef Name = Call ? identifierOf(Call->getDirectCallee()) : "";
    if (Name == "count_nonzero")
      return true;
    if (Name == "sum" || Name == "nansum") {
      const Expr *Summed = nullptr;
      if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
        Summed = Member->getImplicitObjectArgument();
      else if (Call->getNumArgs() >= 1)
        Summed = Call->getArg(0);
      // 'mask.to(torch::kLong).sum()', 'mask.long().sum()'.
      StringRef Conversion;
      while (const Expr *Inner = tensorReceiver(Summed, Conversion)) {
        if (!llvm::is_contained({"to", "long", "int", "float"}, Conversion))
          break;
        if (isMask(Summed))
          break;
        Summed = Inner;
      }
      return isMask(Summed);
    }
    StringRef Method;
    const Expr *Receiver = tensorReceiver(E, Method);
    if (!Receiver ||
        !llvm::is_contained({"to", "cpu", "cuda", "long", "int", "item",
                             "operator[]", "index", "select", "squeeze",
                             "contiguous", "data_ptr", "const_data_ptr"},
                            Method))
      return false;
    E = Receiver;
  }
  return false;
}

/// Whether the result of \p Call, a 'nonzero', serves only for its size
/// ('t.nonzero().size(0)', or a local variable read only with 'size' or
/// 'numel').
bool onlySized(const CallExpr &Call, const Stmt &Body, ASTContext &Context) {
  auto SizedAt = [&](const Expr &E) {
    DynTypedNode Parent = parentOf(DynTypedNode::create(E), Context);
    while (Parent.get<Expr>() && wrapsValue(Parent.get<Expr>()))
      Parent = parentOf(Parent, Context);
    const auto *Member = Parent.get<MemberExpr>();
    return Member && llvm::is_contained({"size", "numel", "sizes", "sym_size"},
                                        identifierOf(Member->getMemberDecl()));
  };
  if (SizedAt(Call))
    return true;
  DynTypedNode Parent = parentOf(DynTypedNode::create(Call), Context);
  while (Parent.get<Expr>() && wrapsValue(Parent.get<Expr>()))
    Parent = parentOf(Parent, Context);
  const auto *Var = Parent.get<VarDecl>();
  if (!Var || !Var->hasLocalStorage())
    return false;
  auto Refs = referencesTo(*Var, Body, Context);
  return !Refs.empty() && llvm::all_of(Refs, [&](const DeclRefExpr *Ref) {
    return SizedAt(*Ref);
  });
}

//===-- Uploads and waits -------------------------------------------------===//

/// Whether another call than \p Call in the statements of its block uploads.
bool blockHasOtherUpload(const CallExpr &Call, DeviceInference &Devices,
                         ASTContext &Context, const SyncRules &Rules) {
  // The statement of the innermost block that holds the call.
  const CompoundStmt *Block = nullptr;
  forEachAncestor(DynTypedNode::create(Call), Context,
                  [&](const DynTypedNode &Parent, const DynTypedNode &) {
                    if (Parent.get<FunctionDecl>() || Parent.get<LambdaExpr>())
                      return true;
                    Block = Parent.get<CompoundStmt>();
                    return Block != nullptr;
                  });
  if (!Block)
    return false;
  SourceRange Own = Call.getSourceRange();
  const SourceManager &SM = Context.getSourceManager();
  auto Overlaps = [&](SourceRange Other) {
    return !SM.isBeforeInTranslationUnit(Other.getEnd(), Own.getBegin()) &&
           !SM.isBeforeInTranslationUnit(Own.getEnd(), Other.getBegin());
  };
  for (const Stmt *Child : Block->body())
    for (const BoundNodes &Nodes :
         match(findAll(callExpr().bind("call")), *Child, Context)) {
      const auto *Other = Nodes.getNodeAs<CallExpr>("call");
      // The call itself, its arguments' calls, the calls it is part of.
      if (Other == &Call || Overlaps(Other->getSourceRange()))
        continue;
      std::optional<CallSync> Sync =
          findCallSync(*Other, Devices, Context, Rules);
      if (Sync && Sync->Device != DeviceKind::CPU && isUpload(*Other, *Sync))
        return true;
    }
  return false;
}

/// Whether \p Copy, a tensor copy with 'non_blocking' true, runs from the
/// host to the device (\p ToHost false) or from the device to the host.
bool isNonBlockingTensorCopy(const CXXMemberCallExpr &Copy, bool ToHost,
                             DeviceInference &Devices) {
  StringRef Name = identifierOf(Copy.getMethodDecl());
  if (!llvm::is_contained({"to", "cuda", "cpu", "copy_"}, Name) ||
      Devices.nonBlockingArgument(Copy) != true)
    return false;
  const Expr *Receiver = Copy.getImplicitObjectArgument();
  if (Name == "copy_") {
    if (Copy.getNumArgs() < 1)
      return false;
    DeviceKind Target = Devices.tensorDevice(Receiver);
    DeviceKind Source = Devices.tensorDevice(Copy.getArg(0));
    return ToHost ? Target == DeviceKind::CPU && Source != DeviceKind::CPU
                  : Source == DeviceKind::CPU && Target != DeviceKind::CPU;
  }
  DeviceKind Target = Name == "cpu"    ? DeviceKind::CPU
                      : Name == "cuda" ? DeviceKind::CUDA
                                       : Devices.transferTarget(Copy);
  DeviceKind Source = Devices.tensorDevice(Receiver);
  return ToHost ? Target == DeviceKind::CPU && Source != DeviceKind::CPU
                : Target == DeviceKind::CUDA && Source != DeviceKind::CUDA;
}

/// What the wait \p Wait waits for: a copy to the host (ResultWait) where an
/// asynchronous one comes before it in its function; else the host buffer of
/// an upload (StagingWait) where the function uploads from host memory
/// asynchronously.
std::optional<ValueUse> waitShape(const CallExpr &Wait, const Stmt &Body,
                                  DeviceInference &Devices,
                                  ASTContext &Context) {
  const SourceManager &SM = Context.getSourceManager();
  bool Uploads = false;
  for (const BoundNodes &Nodes :
       match(findAll(callExpr().bind("call")), Body, Context)) {
    const auto *Call = Nodes.getNodeAs<CallExpr>("call");
    bool ToHost = false, ToDevice = false;
    if (isAsyncMemcpy(*Call)) {
      CopyDirection Direction = memcpyDirection(*Call);
      ToDevice = Direction == CopyDirection::HostToDevice;
      ToHost = Direction == CopyDirection::DeviceToHost ||
               Direction == CopyDirection::Unknown;
    } else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
      ToDevice = isNonBlockingTensorCopy(*Member, /*ToHost=*/false, Devices);
      ToHost = isNonBlockingTensorCopy(*Member, /*ToHost=*/true, Devices);
    }
    if (ToHost &&
        SM.isBeforeInTranslationUnit(Call->getBeginLoc(), Wait.getBeginLoc()))
      return ValueUse::ResultWait;
    Uploads = Uploads || ToDevice;
  }
  if (Uploads)
    return ValueUse::StagingWait;
  return std::nullopt;
}

/// Whether nothing reads the result of \p Copy: the statement drops it, or it
/// initialises a local variable that no code names.
bool isUnusedResult(const Expr &Copy, const Stmt &Body, ASTContext &Context) {
  DynTypedNode Parent = parentOf(DynTypedNode::create(Copy), Context);
  while (true) {
    const auto *P = Parent.get<Expr>();
    const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(P);
    if (!P || !(wrapsValue(P) ||
                (Construct && Construct->getNumArgs() == 1 &&
                 Construct->getConstructor()->isCopyOrMoveConstructor())))
      break;
    Parent = parentOf(Parent, Context);
  }
  if (Parent.get<CompoundStmt>())
    return true;
  const auto *Var = Parent.get<VarDecl>();
  return Var && Var->hasLocalStorage() &&
         referencesTo(*Var, Body, Context).empty();
}

} // namespace

std::optional<ValueUse> valueUse(const CallExpr &Call, const CallSync &Sync,
                                 DeviceInference &Devices, ASTContext &Context,
                                 const SyncRules &Rules) {
  const FunctionDecl *Function = enclosingFunction(Call, Context);
  const Stmt *Body = Function ? Function->getBody() : nullptr;
  if (!Body)
    return std::nullopt;

  // The host values read, and the tensor (or device pointer) read from.
  llvm::SmallVector<const Expr *, 4> Reads;
  const Expr *Source = nullptr;
  if (isValueRead(Sync)) {
    Reads.push_back(&Call);
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
      Source = Member->getImplicitObjectArgument();
    else if (Call.getNumArgs() >= 1)
      Source = Call.getArg(0);
  } else if (isCopyToHost(Sync)) {
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
      Source = Member->getImplicitObjectArgument();
    collectScalarReads(Call, *Body, Context, 0, Reads);
  } else if (Sync.Category == SyncCategory::Explicit &&
             memcpyDirection(Call) == CopyDirection::DeviceToHost &&
             Call.getNumArgs() >= 2) {
    // 'cudaMemcpy(&n, device_count, sizeof(n), cudaMemcpyDeviceToHost)':
    // the reads are those of 'n' after the copy.
    // 'cudaMemcpy(host.data(), ...)' copies into a local container.
    const Expr *Target = Call.getArg(0)->IgnoreParenImpCasts();
    if (const auto *Address = dyn_cast<UnaryOperator>(Target))
      if (Address->getOpcode() == UO_AddrOf)
        Target = Address->getSubExpr();
    if (const auto *Data = dyn_cast<CXXMemberCallExpr>(Target))
      if (identifierOf(Data->getMethodDecl()) == "data")
        Target = Data->getImplicitObjectArgument();
    if (const VarDecl *Var = localVariable(Target)) {
      const SourceManager &SM = Context.getSourceManager();
      for (const DeclRefExpr *Ref : referencesTo(*Var, *Body, Context))
        if (SM.isBeforeInTranslationUnit(Call.getEndLoc(), Ref->getBeginLoc()))
          Reads.push_back(Ref);
      // Nothing names the variable after the copy.
      if (Reads.empty())
        return ValueUse::Unused;
    }
    Source = Call.getArg(1);
  } else if (Sync.Category == SyncCategory::DynamicShape && Sync.Fact &&
             (Sync.Fact->Method == "nonzero" ||
              Sync.Fact->Function == "::at::nonzero" ||
              Sync.Fact->Method == "argwhere" ||
              Sync.Fact->Function == "::at::argwhere")) {
    if (onlySized(Call, *Body, Context))
      return ValueUse::Count;
    return std::nullopt;
  }

  if (isCopyToHost(Sync) && Reads.empty() &&
      isUnusedResult(Call, *Body, Context))
    return ValueUse::Unused;
  if (Source || !Reads.empty()) {
    if (Source && isMadeFromHostValues(Source, *Body, Context, 0))
      return ValueUse::HostValue;
    HostValueSink Found = HostValueSink::None;
    for (const Expr *Read : Reads)
      Found = std::max(Found, hostValueSink(*Read, *Body, Context));
    // Added up over a loop's iterations: one reduction on the device serves
    // them all, a count or not.
    if (Found == HostValueSink::Accumulate &&
        runsOnEveryLoopIteration(Call, Context))
      return ValueUse::Accumulated;
    if (Source && isCount(Source))
      return ValueUse::Count;
    if (Found == HostValueSink::Size)
      return ValueUse::Size;
    return std::nullopt;
  }
  if (isUpload(Call, Sync)) {
    if (runsOnEveryLoopIteration(Call, Context) ||
        blockHasOtherUpload(Call, Devices, Context, Rules))
      return ValueUse::RepeatedUpload;
    return std::nullopt;
  }
  if (isWait(Sync))
    return waitShape(Call, *Body, Devices, Context);
  return std::nullopt;
}

} // namespace clang::tidy::torch_sync
