//===--- SyncSummary.cpp - the syncs a call of a function reaches ---------===//

#include "analysis/SyncSummary.h"
#include "support/CcclNamespaces.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "llvm/Support/Path.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

namespace {
constexpr llvm::StringLiteral CallId = "call";

/// Functions whose bodies are not followed: ATen and c10 (their syncs, where
/// there are any, are the direct facts of the other checks), the tensor
/// classes, std and libcu++'s 'cuda::std'; Thrust and CUB however a project
/// wraps their namespace ('dgl::thrust', CcclNamespaces.h), whose waits depend
/// on the execution policy at run time (a 'par_nosync' policy skips the
/// 'cudaStreamSynchronize' in their bodies), so that only the Thrust facts,
/// which read the policy, decide.
bool isOpaqueLibrary(const FunctionDecl &Function) {
  if (ccclNamespaceOf(Function) || isInLibcudacxxStd(Function))
    return true;
  const DeclContext *Context = Function.getDeclContext();
  const NamespaceDecl *Outermost = nullptr;
  for (; Context; Context = Context->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(Context))
      Outermost = NS;
  if (!Outermost || !Outermost->getIdentifier())
    return false;
  StringRef Name = Outermost->getName();
  return Name == "at" || Name == "c10" || Name == "caffe2" || Name == "std";
}

/// The argument \p Site passes for parameter \p Index of \p Callee, or null:
/// an operator call of a member ('functor(x)', a lambda's call, also through
/// a std::function) passes the object first; a construction passes its
/// arguments; a destructor none.
const Expr *argumentFor(const CallSite &Site, const FunctionDecl &Callee,
                        unsigned Index) {
  if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(Site.Anchor)) {
    if (Site.Kind != CallSite::Construction || Index >= Construct->getNumArgs())
      return nullptr;
    return Construct->getArg(Index);
  }
  const auto *Call = dyn_cast_or_null<CallExpr>(Site.Anchor);
  if (!Call)
    return nullptr;
  unsigned Offset = 0;
  if (const auto *Method = dyn_cast<CXXMethodDecl>(&Callee))
    if (isa<CXXOperatorCallExpr>(Call) && Method->isInstance())
      Offset = 1;
  if (Index + Offset >= Call->getNumArgs())
    return nullptr;
  return Call->getArg(Index + Offset);
}

/// The order in which ways to a sync are preferred: unguarded first, then
/// the shallowest.
bool isBetter(const SyncPath &A, const SyncPath &B) {
  if ((A.Guard == nullptr) != (B.Guard == nullptr))
    return A.Guard == nullptr;
  return A.Levels < B.Levels;
}
} // namespace

/// A function's summary and its state in Tarjan's visit.
struct SyncSummaries::Node {
  const FunctionDecl *Function = nullptr;
  /// The syncs in the body itself, and the followed calls.
  llvm::SmallVector<Entry, 2> Own;
  llvm::SmallVector<Edge, 4> Calls;
  /// The shallowest way for each (source, guarded) pair.
  llvm::SmallVector<Entry, 4> Summary;
  unsigned Index = 0, Low = 0;
  bool Visited = false, OnStack = false;
};

SyncSummaries::SyncSummaries(ASTContext &Context, DeviceInference &Devices,
                             Options Opts)
    : Context(Context), Devices(Devices), Opts(std::move(Opts)) {}

SyncSummaries::~SyncSummaries() = default;

const FunctionDecl *
SyncSummaries::followedDefinition(const FunctionDecl &Callee) const {
  if (isOpaqueLibrary(Callee) || isSyncDeclaration(Callee) ||
      (Opts.IsIntended && Opts.IsIntended(Callee)))
    return nullptr;
  // The declaration called may come before the definition, or be a member
  // declared in its class and defined out of line: the translation unit is
  // complete when the checks run.
  const FunctionDecl *Definition = Callee.getDefinition();
  if (!Definition || !Definition->getBody() || Definition->isDependentContext())
    return nullptr;
  return Definition;
}

SyncSummaries::Node &SyncSummaries::node(const FunctionDecl &Definition) {
  std::unique_ptr<Node> &Slot = Nodes[&Definition];
  if (!Slot) {
    Slot = std::make_unique<Node>();
    Slot->Function = &Definition;
  }
  return *Slot;
}

const RunCondition *SyncSummaries::keep(std::optional<RunCondition> Guard) {
  if (!Guard)
    return nullptr;
  Guards.push_back(std::move(*Guard));
  return &Guards.back();
}

SyncSummaries::Source SyncSummaries::sourceOf(const Expr *Tensor,
                                              const FunctionDecl &Function) {
  if (!Tensor)
    return {Source::Unknown};
  DeviceKind Device = Devices.tensorDevice(Tensor);
  if (Device == DeviceKind::CPU)
    return {Source::Host};
  if (Device == DeviceKind::CUDA)
    return {Source::Device};
  // A tensor that provably shares the device of a parameter of this
  // function: decided at each call.
  if (const auto *Param =
          dyn_cast_or_null<ParmVarDecl>(Devices.deviceOrigin(Tensor)))
    if (Param->getDeclContext() == &Function)
      return {Source::Parameter, Param->getFunctionScopeIndex()};
  return {Source::Unknown};
}

llvm::SmallVector<SyncSummaries::Source, 4>
SyncSummaries::argumentSources(const CallSite &Call, const FunctionDecl &Callee,
                               const FunctionDecl *Caller) {
  llvm::SmallVector<Source, 4> Sources;
  for (const ParmVarDecl *Param : Callee.parameters()) {
    const Expr *Arg = argumentFor(Call, Callee, Param->getFunctionScopeIndex());
    if (!Arg || !isTensorType(Param->getType())) {
      Sources.push_back({Source::Unknown});
      continue;
    }
    Source From = Caller ? sourceOf(Arg, *Caller) : Source{Source::Unknown};
    if (!Caller) {
      // At the reported call: only the device of the argument there counts.
      DeviceKind Device = Devices.tensorDevice(Arg);
      From = Device == DeviceKind::CPU    ? Source{Source::Host}
             : Device == DeviceKind::CUDA ? Source{Source::Device}
                                          : Source{Source::Unknown};
    }
    Sources.push_back(From);
  }
  return Sources;
}

void SyncSummaries::readBody(Node &N) {
  const FunctionDecl &Function = *N.Function;
  const Stmt *Body = Function.getBody();
  if (!Body)
    return;
  readWrittenCalls(N, *Body);
  // A constructor's initializers, written or implied by a member's default
  // initializer ('double first = loss.item<double>();'), run before its body.
  if (const auto *Constructor = dyn_cast<CXXConstructorDecl>(&Function))
    for (const CXXCtorInitializer *Init : Constructor->inits())
      if (Init->getInit())
        readWrittenCalls(N, *Init->getInit());
  for (const CallSite &Site : implicitCalls(Function, Context))
    addEdge(N, Site, Body);
}

void SyncSummaries::addEdge(Node &N, const CallSite &Site, const Stmt *Body) {
  const FunctionDecl *Definition =
      Site.Callee ? followedDefinition(*Site.Callee) : nullptr;
  if (!Definition)
    return;
  RunConditionResult Guard;
  if (Site.Anchor)
    Guard = findRunCondition(*Site.Anchor, Context, Opts.Branches, Body);
  if (Guard.Never)
    return;
  N.Calls.push_back({Site, Definition,
                     argumentSources(Site, *Definition, N.Function),
                     keep(Guard.Guard)});
}

void SyncSummaries::readWrittenCalls(Node &N, const Stmt &Root) {
  const FunctionDecl &Function = *N.Function;
  const Stmt *Body = Function.getBody();
  for (const BoundNodes &Nodes :
       match(findAll(callExpr().bind(CallId)), Root, Context)) {
    const auto *Call = Nodes.getNodeAs<CallExpr>(CallId);
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee)
      continue;
    if (isSyncDeclaration(*Callee)) {
      // A fact's call is a sync or nothing; it is never followed.
      std::optional<CallSync> Sync =
          findCallSync(*Call, Devices, Context, Opts.Rules);
      if (!Sync)
        continue;
      RunConditionResult Guard =
          findRunCondition(*Call, Context, Opts.Branches, Body);
      if (Guard.Never || runsOnlyWithUnsetOption(*Call, *Body))
        continue;
      Source From = Sync->Device == DeviceKind::CUDA
                        ? Source{Source::Device}
                        : sourceOf(Sync->Data, Function);
      // The sync's device: provably CUDA, or else that of its data.
      if (From.Kind == Source::Device && Sync->Device != DeviceKind::CUDA)
        From = {Source::Unknown};
      if (From.Kind == Source::Host)
        continue;
      SyncPath Path;
      Path.Levels = 1;
      Path.Through = writtenCallSite(*Call, Context);
      Path.Sync = Call;
      Path.SyncName = Sync->Name;
      Path.Guard = keep(Guard.Guard);
      N.Own.push_back({From, std::move(Path)});
      continue;
    }
    addEdge(N, writtenCallSite(*Call, Context), Body);
  }
}

bool SyncSummaries::evaluate(Node &N) {
  llvm::SmallVector<Entry, 4> Summary;
  auto Merge = [&](Entry Candidate) {
    for (Entry &Existing : Summary)
      if (Existing.From == Candidate.From &&
          (Existing.Path.Guard == nullptr) ==
              (Candidate.Path.Guard == nullptr)) {
        if (Candidate.Path.Levels < Existing.Path.Levels)
          Existing = std::move(Candidate);
        return;
      }
    Summary.push_back(std::move(Candidate));
  };
  for (const Entry &Own : N.Own)
    Merge(Own);
  for (const Edge &Call : N.Calls) {
    const auto Found = Nodes.find(Call.Callee);
    if (Found == Nodes.end())
      continue;
    for (const Entry &Inner : Found->second->Summary) {
      Source From = Inner.From;
      if (From.Kind == Source::Parameter)
        From = From.Index < Call.Arguments.size() ? Call.Arguments[From.Index]
                                                  : Source{Source::Unknown};
      if (From.Kind == Source::Host)
        continue;
      SyncPath Path = Inner.Path;
      Path.Levels += 1;
      if (Opts.MaxDepth && Path.Levels > Opts.MaxDepth)
        continue;
      Path.Through = Call.Call;
      if (Call.Guard)
        Path.Guard = Call.Guard;
      Merge({From, std::move(Path)});
    }
  }
  bool Changed = Summary.size() != N.Summary.size();
  for (size_t I = 0; !Changed && I < Summary.size(); ++I)
    Changed = !(Summary[I].From == N.Summary[I].From) ||
              Summary[I].Path.Levels != N.Summary[I].Path.Levels ||
              (Summary[I].Path.Guard == nullptr) !=
                  (N.Summary[I].Path.Guard == nullptr);
  N.Summary = std::move(Summary);
  return Changed;
}

void SyncSummaries::visit(Node &N) {
  N.Visited = true;
  N.Index = N.Low = NextIndex++;
  Stack.push_back(&N);
  N.OnStack = true;
  readBody(N);
  bool SelfCall = false;
  for (const Edge &Call : N.Calls) {
    Node &Callee = node(*Call.Callee);
    SelfCall |= &Callee == &N;
    if (!Callee.Visited) {
      visit(Callee);
      N.Low = std::min(N.Low, Callee.Low);
    } else if (Callee.OnStack) {
      N.Low = std::min(N.Low, Callee.Index);
    }
  }
  if (N.Low != N.Index)
    return;
  // N is the root of a strongly connected component: the functions above it
  // on the stack call one another. Their summaries are computed together,
  // until none changes (each way only gets shallower, so this ends).
  llvm::SmallVector<Node *, 4> Component;
  Node *Member = nullptr;
  do {
    Member = Stack.back();
    Stack.pop_back();
    Member->OnStack = false;
    Component.push_back(Member);
  } while (Member != &N);
  if (Component.size() == 1 && !SelfCall) {
    evaluate(N);
    return;
  }
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (Node *M : Component)
      Changed |= evaluate(*M);
  }
}

std::optional<SyncPath>
SyncSummaries::reachedSync(const CallSite &Call, const FunctionDecl &Definition,
                           bool UnknownDevice) {
  Node &N = node(Definition);
  if (!N.Visited)
    visit(N);
  llvm::SmallVector<Source, 4> Arguments =
      argumentSources(Call, Definition, /*Caller=*/nullptr);
  const Entry *Best = nullptr;
  bool BestKnown = false;
  for (const Entry &Candidate : N.Summary) {
    Source From = Candidate.From;
    if (From.Kind == Source::Parameter)
      From = From.Index < Arguments.size() ? Arguments[From.Index]
                                           : Source{Source::Unknown};
    if (From.Kind == Source::Host ||
        (From.Kind == Source::Unknown && !UnknownDevice))
      continue;
    bool Known = From.Kind == Source::Device;
    if (!Best || isBetter(Candidate.Path, Best->Path) ||
        (!isBetter(Best->Path, Candidate.Path) && Known && !BestKnown)) {
      Best = &Candidate;
      BestKnown = Known;
    }
  }
  if (!Best)
    return std::nullopt;
  return Best->Path;
}

bool SyncSummaries::runsOnlyWithUnsetOption(const CallExpr &Sync,
                                            const Stmt &Body) {
  // 'if (this->options.X() == c10::nullopt) { ... Sync ... }'.
  auto NulloptType = qualType(hasUnqualifiedDesugaredType(
      recordType(hasDeclaration(namedDecl(hasName("nullopt_t"))))));
  auto UnsetTest = cxxOperatorCallExpr(
      hasOverloadedOperatorName("=="),
      hasArgument(
          0, ignoringImplicit(cxxMemberCallExpr(
                 argumentCountIs(0), callee(cxxMethodDecl().bind("getter")),
                 on(memberExpr(member(fieldDecl(hasName("options")))))))),
      hasArgument(1, expr(hasType(NulloptType))));
  auto Inside =
      anyOf(equalsNode(&Sync), hasDescendant(stmt(equalsNode(&Sync))));
  for (const BoundNodes &Nodes :
       match(findAll(ifStmt(hasCondition(UnsetTest), hasThen(stmt(Inside)))),
             Body, Context)) {
    const auto *Getter = Nodes.getNodeAs<CXXMethodDecl>("getter");
    if (!Getter->getIdentifier())
      continue;
    // TORCH_ARG(T, X) stores the option in the member 'X_' (torch/arg.h).
    const FieldDecl *Field = nullptr;
    for (const FieldDecl *Candidate : Getter->getParent()->fields())
      if (Candidate->getIdentifier() &&
          Candidate->getName() == (Getter->getName() + "_").str())
        Field = Candidate;
    // The default must be set: an initializer that is a number
    // ('TORCH_ARG(c10::optional<double>, momentum) = 0.1').
    const Expr *Default = Field ? Field->getInClassInitializer() : nullptr;
    if (!Default ||
        !Default->IgnoreUnlessSpelledInSource()
             ->getType()
             ->isArithmeticType() ||
        mayUnsetOption(*Field))
      continue;
    return true;
  }
  return false;
}

bool SyncSummaries::mayUnsetOption(const FieldDecl &Field) {
  auto Cached = OptionsMaybeUnset.find(&Field);
  if (Cached != OptionsMaybeUnset.end())
    return Cached->second;
  StringRef Name = Field.getName().drop_back(); // 'momentum_' -> 'momentum'
  auto Accessor =
      cxxMemberCallExpr(
          callee(cxxMethodDecl(hasName(Name),
                               ofClass(equalsNode(Field.getParent())))))
          .bind("call");
  bool MayUnset = false;
  for (const Decl *D : Context.getTranslationUnitDecl()->decls()) {
    if (MayUnset)
      break;
    if (Opts.IsInLibraryHeader && Opts.IsInLibraryHeader(D->getLocation()))
      continue;
    for (const BoundNodes &Nodes :
         match(decl(forEachDescendant(Accessor)), *D, Context)) {
      const auto *Call = Nodes.getNodeAs<CXXMemberCallExpr>("call");
      // 'options.momentum(0.01)' sets a value; 'momentum(c10::nullopt)', an
      // optional, or the getter's reference may unset it.
      if (Call->getNumArgs() == 1 && Call->getArg(0)
                                         ->IgnoreUnlessSpelledInSource()
                                         ->getType()
                                         ->isArithmeticType())
        continue;
      MayUnset = true;
      break;
    }
  }
  OptionsMaybeUnset[&Field] = MayUnset;
  return MayUnset;
}

bool isLambdaCallOperator(const FunctionDecl &Function) {
  const auto *Method = dyn_cast<CXXMethodDecl>(&Function);
  return Method && Method->getParent()->isLambda();
}

std::string diagnosticFunctionName(const FunctionDecl &Function,
                                   const SourceManager &SM) {
  if (!isLambdaCallOperator(Function))
    return Function.getQualifiedNameAsString();
  for (const DeclContext *Context =
           cast<CXXMethodDecl>(Function).getParent()->getDeclContext();
       Context; Context = Context->getParent())
    if (const auto *Enclosing = dyn_cast<FunctionDecl>(Context))
      if (!isLambdaCallOperator(*Enclosing))
        return "lambda in " + Enclosing->getQualifiedNameAsString();
  PresumedLoc Place =
      SM.getPresumedLoc(SM.getExpansionLoc(Function.getLocation()));
  if (Place.isInvalid())
    return "lambda";
  return ("lambda at " + llvm::sys::path::filename(Place.getFilename()) + ":" +
          llvm::Twine(Place.getLine()))
      .str();
}

} // namespace clang::tidy::torch_sync
