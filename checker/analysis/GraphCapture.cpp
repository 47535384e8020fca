//===--- GraphCapture.cpp - where a CUDA graph capture may be open --------===//

#include "analysis/GraphCapture.h"
#include "analysis/ImplicitCalls.h"
#include "analysis/RunCondition.h"
#include "facts/SyncFacts.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Analysis/CFG.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace clang::tidy::torch_sync {

namespace {

using CaptureState = llvm::SmallVector<OpenCapture, 2>;

/// The key of the object or stream \p E names, relative to \p Within:
/// '$this', '$p<index>' for a parameter, 'l<decl>' for a local variable,
/// 'v<decl>' for another variable, '<key>.m<field>' for a member, 'e:<text>'
/// for any other expression (a call that returns the stream).
std::string keyOf(const Expr *E, const FunctionDecl &Within,
                  const ASTContext &Context) {
  if (!E)
    return "";
  E = E->IgnoreUnlessSpelledInSource();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *Decl = Ref->getDecl();
    if (const auto *Param = dyn_cast<ParmVarDecl>(Decl))
      if (Param->getDeclContext() == &Within)
        return "$p" + llvm::utostr(Param->getFunctionScopeIndex());
    const auto *Var = dyn_cast<VarDecl>(Decl);
    std::string Id =
        llvm::utohexstr(reinterpret_cast<uintptr_t>(Decl->getCanonicalDecl()));
    return (Var && Var->hasLocalStorage() ? "l" : "v") + Id;
  }
  if (isa<CXXThisExpr>(E))
    return "$this";
  if (const auto *Member = dyn_cast<MemberExpr>(E))
    return keyOf(Member->getBase(), Within, Context) + ".m" +
           llvm::utohexstr(reinterpret_cast<uintptr_t>(
               Member->getMemberDecl()->getCanonicalDecl()));
  // '*graph' and '&graph' name the graph itself.
  if (const auto *Unary = dyn_cast<UnaryOperator>(E))
    if (Unary->getOpcode() == UO_Deref || Unary->getOpcode() == UO_AddrOf)
      return keyOf(Unary->getSubExpr(), Within, Context);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  E->printPretty(OS, nullptr, Context.getPrintingPolicy());
  return "e:" + Text;
}

/// The object a member call is made on and the arguments given to the
/// callee's parameters, in their order.
struct CallOperands {
  const Expr *Object = nullptr;
  llvm::SmallVector<const Expr *, 4> Arguments;
};

CallOperands operandsOf(const CallExpr &Call) {
  CallOperands Operands;
  llvm::ArrayRef<const Expr *> Args(Call.getArgs(), Call.getNumArgs());
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call)) {
    Operands.Object = Member->getImplicitObjectArgument();
  } else if (isa<CXXOperatorCallExpr>(Call) &&
             isa_and_nonnull<CXXMethodDecl>(Call.getDirectCallee()) &&
             !Args.empty()) {
    // A member operator's first argument is its object.
    Operands.Object = Args.front();
    Args = Args.drop_front();
  }
  Operands.Arguments.append(Args.begin(), Args.end());
  return Operands;
}

/// The named enumerator that \p E refers to (a capture mode or status), or
/// null.
const EnumConstantDecl *enumeratorOf(const Expr *E) {
  const auto *Ref =
      E ? dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()) : nullptr;
  const auto *Enumerator =
      Ref ? dyn_cast<EnumConstantDecl>(Ref->getDecl()) : nullptr;
  return Enumerator && Enumerator->getIdentifier() ? Enumerator : nullptr;
}

/// Whether the capture mode argument \p Mode names a relaxed mode (api list
/// relaxed_capture_modes); the default, global, is not.
bool isRelaxedMode(const Expr *Mode) {
  const EnumConstantDecl *Enumerator = enumeratorOf(Mode);
  return Enumerator &&
         isInApiList(ApiList::RelaxedCaptureModes, Enumerator->getName());
}

/// The capture status that \p E names (api lists capture_status_none and
/// capture_status_active): 0 for none, 1 for active, nullopt for anything
/// else.
std::optional<unsigned> captureStatusOf(const Expr *E) {
  const EnumConstantDecl *Enumerator = enumeratorOf(E);
  if (!Enumerator)
    return std::nullopt;
  std::string Name = Enumerator->getQualifiedNameAsString();
  if (isInApiList(ApiList::CaptureStatusNone, Name))
    return 0;
  if (isInApiList(ApiList::CaptureStatusActive, Name))
    return 1;
  return std::nullopt;
}

/// How many bool variables and functions returning a status test
/// uncapturedSuccessor follows, one into the next.
constexpr unsigned MaxStatusTestDepth = 3;

/// The local variables declared in a CFG block with no capture begun or
/// ended in the block since: a status test that one holds still says what
/// it said at its initialisation.
using SteadyVariables = llvm::SmallPtrSet<const VarDecl *, 4>;

/// The expression that the function \p Callee returns when its body ends in
/// its only return statement ('bool capturing(s) { ...; return status ==
/// cudaStreamCaptureStatusActive; }'); null otherwise, or when the body is
/// not in this translation unit.
const Expr *soleReturnValue(const FunctionDecl &Callee) {
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Callee.getBody());
  const auto *Return =
      Body ? dyn_cast_or_null<ReturnStmt>(Body->body_back()) : nullptr;
  if (!Return || !Return->getRetValue())
    return nullptr;
  // One return in the body (a lambda's too count: then none is taken).
  bool OnlyReturn =
      ast_matchers::match(
          ast_matchers::findAll(ast_matchers::returnStmt().bind("return")),
          *Body, Callee.getASTContext())
          .size() == 1;
  return OnlyReturn ? Return->getRetValue() : nullptr;
}

/// The function whose body a call of \p Callee runs, when the call cannot
/// reach an override: a function that is not virtual, or a virtual one that
/// is final or of a final class. Null otherwise.
const FunctionDecl *calledDefinition(const FunctionDecl &Callee) {
  if (const auto *Method = dyn_cast<CXXMethodDecl>(&Callee))
    if (Method->isVirtual() && !Method->hasAttr<FinalAttr>() &&
        !Method->getParent()->hasAttr<FinalAttr>())
      return nullptr;
  const FunctionDecl *Definition = nullptr;
  return Callee.hasBody(Definition) ? Definition : nullptr;
}

/// How many bools holding a status test one function's analysis asks
/// ExprMutationAnalyzer about.
constexpr unsigned MaxWriteAnalyses = 16;

/// What uncapturedSuccessor reads a status test with: the block's steady
/// variables, and the variables known to be written again or not (a cache:
/// a block may be visited several times, and each answer walks a body).
struct StatusTestScope {
  const SteadyVariables &Steady;
  llvm::DenseMap<const VarDecl *, bool> &WrittenAgain;
  ASTContext &Context;
};

/// Whether the local variable \p Var may get another value than its
/// initialiser's in the body of the function that declares it (clang's
/// ExprMutationAnalyzer: assignments, non-const references and pointers
/// taken, lambdas capturing it by reference).
bool mayBeWrittenAgain(const VarDecl &Var, const StatusTestScope &Scope) {
  auto It = Scope.WrittenAgain.find(&Var);
  if (It != Scope.WrittenAgain.end())
    return It->second;
  // Each answer walks the declaring body: past a few per function, a bool
  // counts as written (its branch stays in the capture).
  if (Scope.WrittenAgain.size() >= MaxWriteAnalyses)
    return true;
  const auto *Owner =
      dyn_cast_or_null<FunctionDecl>(Var.getParentFunctionOrMethod());
  const Stmt *Body = Owner ? Owner->getBody() : nullptr;
  bool Written =
      !Body || ExprMutationAnalyzer(*Body, Scope.Context).isMutated(&Var);
  Scope.WrittenAgain[&Var] = Written;
  return Written;
}

/// Which successor of a branch on \p Condition runs while no capture is
/// under way: 0 (the true branch) for 'status == None' or 'status !=
/// Active', 1 for 'status != None' or 'status == Active', negated by '!';
/// also through a bool variable of \p Steady whose initialiser is such a
/// test and that nothing writes again ('const bool capturing = status !=
/// None; if (!capturing)'), and through a call of a function that returns
/// one (soleReturnValue, calledDefinition). nullopt when the condition is no
/// such test.
std::optional<unsigned> uncapturedSuccessor(const Expr *Condition,
                                            const StatusTestScope &Scope,
                                            unsigned Depth = 0) {
  Condition = Condition->IgnoreParenImpCasts();
  if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(Condition))
    Condition = Cleanups->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *Not = dyn_cast<UnaryOperator>(Condition);
      Not && Not->getOpcode() == UO_LNot) {
    std::optional<unsigned> Inner =
        uncapturedSuccessor(Not->getSubExpr(), Scope, Depth);
    return Inner ? std::optional<unsigned>(1 - *Inner) : std::nullopt;
  }
  if (Depth < MaxStatusTestDepth) {
    // A bool variable that holds a status test taken in this block, with no
    // capture begun or ended since: its initialiser decides, unless the
    // variable may be given another value.
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Condition)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      if (!Var || !Scope.Steady.contains(Var) || !Var->getInit())
        return std::nullopt;
      std::optional<unsigned> Held =
          uncapturedSuccessor(Var->getInit(), Scope, Depth + 1);
      return Held && !mayBeWrittenAgain(*Var, Scope) ? Held : std::nullopt;
    }
    // A function that returns a status test, such as 'is_capturing(stream)':
    // what it returns decides (its own locals are its business).
    if (const auto *Call = dyn_cast<CallExpr>(Condition)) {
      const FunctionDecl *Callee = Call->getDirectCallee();
      const FunctionDecl *Definition =
          Callee ? calledDefinition(*Callee) : nullptr;
      const Expr *Returned =
          Definition ? soleReturnValue(*Definition) : nullptr;
      if (!Returned)
        return std::nullopt;
      // The callee's locals are not the block's.
      const SteadyVariables None;
      return uncapturedSuccessor(
          Returned, StatusTestScope{None, Scope.WrittenAgain, Scope.Context},
          Depth + 1);
    }
  }
  const auto *Compare = dyn_cast<BinaryOperator>(Condition);
  if (!Compare || !Compare->isEqualityOp())
    return std::nullopt;
  std::optional<unsigned> Status = captureStatusOf(Compare->getRHS());
  if (!Status)
    Status = captureStatusOf(Compare->getLHS());
  if (!Status)
    return std::nullopt;
  // None: the true branch of '==' is uncaptured; Active: its false branch.
  bool Equal = Compare->getOpcode() == BO_EQ;
  return (*Status == 0) == Equal ? 0 : 1;
}

/// Which successor of \p Block runs while no capture is under way, when the
/// block ends in a two-way branch on a capture status test
/// (uncapturedSuccessor, in \p Scope); nullopt otherwise. Of a chain of '&&'
/// or '||' the block's own operand is tested: the last operand that the edge
/// depends on (the earlier ones lead to it only when they allowed it).
std::optional<unsigned> uncapturedBranch(const CFGBlock &Block,
                                         const StatusTestScope &Scope) {
  const Stmt *Terminator = Block.getTerminatorStmt();
  // A switch's successors are its cases, not a true and a false branch.
  if (Block.succ_size() != 2 || !Terminator || isa<SwitchStmt>(Terminator))
    return std::nullopt;
  const Expr *Condition = Block.getLastCondition();
  return Condition ? uncapturedSuccessor(Condition, Scope) : std::nullopt;
}

/// Whether \p Key names something of its function's own: a local variable,
/// which no caller can name (a summary leaves it out).
bool isLocalKey(llvm::StringRef Key) { return Key.starts_with("l"); }

/// Whether the kernel launch \p Launch goes to the legacy default stream.
bool launchesOnLegacyStream(const CUDAKernelCallExpr &Launch,
                            const ASTContext &Context) {
  if (Context.getLangOpts().GPUDefaultStream ==
      LangOptions::GPUDefaultStreamKind::PerThread)
    return false;
  const CallExpr *Config = Launch.getConfig();
  if (!Config)
    return false;
  // __cudaPushCallConfiguration(grid, block, shared memory, stream).
  if (Config->getNumArgs() < 4)
    return true;
  const Expr *Stream = Config->getArg(3);
  if (isa<CXXDefaultArgExpr>(Stream))
    return true;
  return Stream->IgnoreParenImpCasts()->isNullPointerConstant(
      const_cast<ASTContext &>(Context), Expr::NPC_ValueDependentIsNotNull);
}

} // namespace

const CaptureFact *refusingFact(const CallExpr &Call,
                                const ASTContext &Context) {
  if (const auto *Launch = dyn_cast<CUDAKernelCallExpr>(&Call))
    return launchesOnLegacyStream(*Launch, Context)
               ? findCaptureLaunchFact(CaptureLaunch::LegacyStream)
               : nullptr;
  const FunctionDecl *Callee = Call.getDirectCallee();
  return Callee ? findCaptureFact(*Callee) : nullptr;
}

struct CaptureRegions::Summary {
  /// The captures left open at the function's end (Begin unused).
  llvm::SmallVector<OpenCapture, 1> Opens;
  /// The captures ended without being begun in the function.
  llvm::SmallVector<std::string, 1> Closes;
  bool empty() const { return Opens.empty() && Closes.empty(); }
};

/// The analysis of one function's CFG.
struct CaptureRegions::Analysis {
  Analysis(CaptureRegions &Regions, const FunctionDecl &Function)
      : Regions(Regions), Function(Function), Context(Regions.Context) {}

  /// Builds the CFG and computes the state at each block's entry; false when
  /// there is no CFG.
  bool run() {
    if (isInvalidCode(Function) || Function.isDependentContext() ||
        !Function.getBody())
      return false;
    CFG::BuildOptions Options;
    Options.AddImplicitDtors = true;
    Options.setAllAlwaysAdd();
    Graph = CFG::buildCFG(&Function, const_cast<Stmt *>(Function.getBody()),
                          &Context, Options);
    if (!Graph)
      return false;
    findConstructedVariables();
    Entry[&Graph->getEntry()];
    llvm::SmallVector<const CFGBlock *, 16> Work{&Graph->getEntry()};
    while (!Work.empty()) {
      const CFGBlock *Block = Work.pop_back_val();
      CaptureState State = Entry[Block];
      SteadyVariables Steady;
      for (const CFGElement &Element : *Block) {
        if (transfer(Element, State, /*Unmatched=*/nullptr))
          Steady.clear();
        if (auto Statement = Element.getAs<CFGStmt>())
          if (const auto *Decls = dyn_cast<DeclStmt>(Statement->getStmt()))
            for (const Decl *D : Decls->decls())
              if (const auto *Var = dyn_cast<VarDecl>(D))
                Steady.insert(Var);
      }
      // A branch on the capture status: no capture is open on the branch
      // where the status says none is under way.
      std::optional<unsigned> Uncaptured =
          uncapturedBranch(*Block, {Steady, WrittenAgain, Context});
      const CaptureState NoCapture;
      for (auto [Index, Next] : llvm::enumerate(Block->succs())) {
        if (!Next)
          continue;
        const CaptureState &Out =
            Uncaptured && *Uncaptured == Index ? NoCapture : State;
        bool Seen = Entry.count(Next);
        if (merge(Entry[Next], Out) || !Seen)
          Work.push_back(Next);
      }
    }
    return true;
  }

  /// Walks each reached block once more from its entry state: visits the
  /// elements before which a capture may be open (when \p Visit), collects
  /// the ends of captures not begun here.
  void walk(llvm::function_ref<void(const CapturedElement &)> Visit,
            llvm::SmallVectorImpl<std::string> &Unmatched) {
    for (const auto &[Block, BlockEntry] : Entry) {
      CaptureState State = BlockEntry;
      for (const CFGElement &Element : *Block) {
        CaptureState Before = State;
        bool Changes = transfer(Element, State, &Unmatched);
        if (Changes || Before.empty() || !Visit)
          continue;
        CapturedElement Captured;
        Captured.Open.append(Before.begin(), Before.end());
        if (auto Statement = Element.getAs<CFGStmt>()) {
          Captured.Call = dyn_cast<Expr>(Statement->getStmt());
          if (!isa_and_nonnull<CallExpr, CXXConstructExpr>(Captured.Call))
            continue;
        } else if (auto Dtor = Element.getAs<CFGAutomaticObjDtor>()) {
          Captured.Destroyed = Dtor->getVarDecl();
        } else {
          continue;
        }
        Visit(Captured);
      }
    }
  }

  /// The state at the function's end.
  const CaptureState &exitState() { return Entry[&Graph->getExit()]; }

private:
  /// Adds the captures of \p From missing in \p Into; whether any was.
  static bool merge(CaptureState &Into, const CaptureState &From) {
    bool Changed = false;
    for (const OpenCapture &Capture : From)
      if (!llvm::is_contained(Into, Capture)) {
        Into.push_back(Capture);
        Changed = true;
      }
    return Changed;
  }

  /// Maps \p Key, relative to a callee, onto this function at a call with
  /// \p Operands (or on \p ObjectKey's object); empty when it cannot be.
  std::string mapKey(llvm::StringRef Key, const std::string &ObjectKey,
                     llvm::ArrayRef<const Expr *> Arguments) {
    if (Key.consume_front("$this"))
      return ObjectKey.empty() ? "" : ObjectKey + Key.str();
    if (Key.consume_front("$p")) {
      unsigned Index = 0;
      if (Key.consumeInteger(10, Index) || Index >= Arguments.size())
        return "";
      return keyOf(Arguments[Index], Function, Context) + Key.str();
    }
    return Key.str();
  }

  /// Applies the summary of \p Callee, called on \p ObjectKey's object with
  /// \p Arguments at \p Site; whether it opens or closes a capture.
  bool apply(const FunctionDecl *Callee, const std::string &ObjectKey,
             llvm::ArrayRef<const Expr *> Arguments, const Expr *Site,
             CaptureState &State,
             llvm::SmallVectorImpl<std::string> *Unmatched) {
    const FunctionDecl *Definition = Callee ? Callee->getDefinition() : nullptr;
    if (!Definition || Definition == &Function ||
        !Regions.IsFollowed(*Definition))
      return false;
    const Summary &Callees = Regions.summary(*Definition);
    for (const std::string &Key : Callees.Closes)
      close(mapKey(Key, ObjectKey, Arguments), State, Unmatched);
    // A destructor (no site) that begins a capture is not followed.
    for (const OpenCapture &Opened : Callees.Opens) {
      if (!Site)
        break;
      std::string Key = mapKey(Opened.Key, ObjectKey, Arguments);
      if (!Key.empty())
        open(OpenCapture{Key, Site, Opened.Relaxed}, State);
    }
    return !Callees.empty();
  }

  static void open(OpenCapture Capture, CaptureState &State) {
    if (!llvm::is_contained(State, Capture))
      State.push_back(std::move(Capture));
  }

  static void close(const std::string &Key, CaptureState &State,
                    llvm::SmallVectorImpl<std::string> *Unmatched) {
    if (Key.empty())
      return;
    auto *Closed = llvm::remove_if(
        State, [&](const OpenCapture &Open) { return Open.Key == Key; });
    if (Closed == State.end() && Unmatched &&
        !llvm::is_contained(*Unmatched, Key))
      Unmatched->push_back(Key);
    State.erase(Closed, State.end());
  }

  /// The key of a capture_begin's or capture_end's capture: the graph's,
  /// else the stream's (the first argument).
  std::string captureKey(const CallExpr &Call) {
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(&Call))
      return keyOf(Member->getImplicitObjectArgument(), Function, Context);
    return Call.getNumArgs() > 0 ? keyOf(Call.getArg(0), Function, Context)
                                 : "";
  }

  /// Applies \p Element to \p State; whether it opens or closes a capture.
  bool transfer(const CFGElement &Element, CaptureState &State,
                llvm::SmallVectorImpl<std::string> *Unmatched) {
    if (auto Dtor = Element.getAs<CFGAutomaticObjDtor>()) {
      const VarDecl *Variable = Dtor->getVarDecl();
      return apply(Dtor->getDestructorDecl(Context), variableKey(*Variable), {},
                   nullptr, State, Unmatched);
    }
    auto Statement = Element.getAs<CFGStmt>();
    if (!Statement)
      return false;
    if (const auto *Construct =
            dyn_cast<CXXConstructExpr>(Statement->getStmt())) {
      const VarDecl *Variable = Constructed.lookup(Construct);
      llvm::SmallVector<const Expr *, 4> Args(Construct->arguments());
      return apply(Construct->getConstructor(),
                   Variable ? variableKey(*Variable) : "", Args, Construct,
                   State, Unmatched);
    }
    const auto *Call = dyn_cast<CallExpr>(Statement->getStmt());
    const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
    if (!Callee)
      return false;
    if (isApiListFunction(ApiList::CaptureBeginFunctions, *Callee)) {
      std::string Key = captureKey(*Call);
      if (!Key.empty())
        // The mode is the last argument of every begin (api list
        // capture_begin_functions), defaulted or written.
        open(OpenCapture{Key, Call,
                         Call->getNumArgs() > 1 &&
                             isRelaxedMode(
                                 Call->getArg(Call->getNumArgs() - 1))},
             State);
      return true;
    }
    if (isApiListFunction(ApiList::CaptureEndFunctions, *Callee)) {
      close(captureKey(*Call), State, Unmatched);
      return true;
    }
    CallOperands Operands = operandsOf(*Call);
    return apply(Callee,
                 Operands.Object ? keyOf(Operands.Object, Function, Context)
                                 : "",
                 Operands.Arguments, Call, State, Unmatched);
  }

  std::string variableKey(const VarDecl &Variable) {
    return (Variable.hasLocalStorage() ? "l" : "v") +
           llvm::utohexstr(
               reinterpret_cast<uintptr_t>(Variable.getCanonicalDecl()));
  }

  /// Maps each construction of a variable in the CFG to the variable.
  void findConstructedVariables() {
    for (const CFGBlock *Block : *Graph)
      for (const CFGElement &Element : *Block)
        if (auto Statement = Element.getAs<CFGStmt>())
          if (const auto *Decls = dyn_cast<DeclStmt>(Statement->getStmt()))
            for (const Decl *D : Decls->decls())
              if (const auto *Var = dyn_cast<VarDecl>(D))
                if (const Expr *Init = Var->getInit())
                  if (const auto *Construct =
                          dyn_cast<CXXConstructExpr>(Init->IgnoreImplicit()))
                    Constructed[Construct] = Var;
  }

  CaptureRegions &Regions;
  const FunctionDecl &Function;
  ASTContext &Context;
  std::unique_ptr<CFG> Graph;
  llvm::DenseMap<const CFGBlock *, CaptureState> Entry;
  llvm::DenseMap<const CXXConstructExpr *, const VarDecl *> Constructed;
  /// Whether each bool that holds a status test may be written again.
  llvm::DenseMap<const VarDecl *, bool> WrittenAgain;
};

CaptureRegions::CaptureRegions(
    ASTContext &Context, std::function<bool(const FunctionDecl &)> IsFollowed)
    : Context(Context), IsFollowed(std::move(IsFollowed)) {}

CaptureRegions::~CaptureRegions() = default;

const CaptureRegions::Summary &
CaptureRegions::summary(const FunctionDecl &Definition) {
  auto [It, Inserted] = Summaries.try_emplace(&Definition);
  if (!Inserted)
    return *It->second;
  // Empty while it is computed: a recursive call opens and closes nothing.
  It->second = std::make_unique<Summary>();
  Summary Result;
  Analysis Body(*this, Definition);
  if (Body.run()) {
    llvm::SmallVector<std::string, 2> Unmatched;
    Body.walk(nullptr, Unmatched);
    for (const OpenCapture &Open : Body.exitState())
      if (!isLocalKey(Open.Key))
        Result.Opens.push_back(OpenCapture{Open.Key, nullptr, Open.Relaxed});
    for (const std::string &Key : Unmatched)
      if (!isLocalKey(Key))
        Result.Closes.push_back(Key);
  }
  // The map may have grown: look the entry up again.
  Summary &Stored = *Summaries[&Definition];
  Stored = std::move(Result);
  return Stored;
}

bool CaptureRegions::runsConditionally(const CallExpr &Call, const Stmt &Body) {
  RunConditionResult Condition =
      findRunCondition(Call, Context, /*Branches=*/nullptr, &Body);
  return Condition.Never || Condition.Guard;
}

std::optional<RefusedPath>
CaptureRegions::reachedRefusal(const FunctionDecl &Definition) {
  auto [It, Inserted] = Refusals.try_emplace(&Definition);
  if (!Inserted || !Definition.getBody())
    return It->second;
  std::optional<RefusedPath> Found;
  using namespace ast_matchers;
  auto Calls =
      match(findAll(callExpr().bind("call")), *Definition.getBody(), Context);
  for (const BoundNodes &Nodes : Calls) {
    const auto *Call = Nodes.getNodeAs<CallExpr>("call");
    const CaptureFact *Fact = refusingFact(*Call, Context);
    // A refused call under a flag ('if (!workspace_) cudaMalloc(...)', a
    // lazy allocation that a warm-up before the capture has made) is left
    // out: the helper may skip it in the capture.
    if (Fact && !runsConditionally(*Call, *Definition.getBody())) {
      Found = RefusedPath{Call, Fact, Call, 1};
      break;
    }
  }
  for (const BoundNodes &Nodes : Calls) {
    if (Found)
      break;
    const auto *Call = Nodes.getNodeAs<CallExpr>("call");
    const FunctionDecl *Callee = Call->getDirectCallee();
    const FunctionDecl *Next = Callee ? Callee->getDefinition() : nullptr;
    if (!Next || Next == &Definition || !IsFollowed(*Next) ||
        runsConditionally(*Call, *Definition.getBody()))
      continue;
    if (std::optional<RefusedPath> Deeper = reachedRefusal(*Next))
      Found =
          RefusedPath{Deeper->Refused, Deeper->Fact, Call, Deeper->Levels + 1};
  }
  // The map may have grown: look the entry up again.
  Refusals[&Definition] = Found;
  return Found;
}

void CaptureRegions::forEachCapturedElement(
    const FunctionDecl &Function,
    llvm::function_ref<void(const CapturedElement &)> Visit) {
  Analysis Body(*this, Function);
  if (!Body.run())
    return;
  llvm::SmallVector<std::string, 2> Unmatched;
  Body.walk(Visit, Unmatched);
}

} // namespace clang::tidy::torch_sync
