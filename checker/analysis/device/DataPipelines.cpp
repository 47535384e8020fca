//===--- DataPipelines.cpp - the devices of torch::data examples ----------===//

#include "analysis/device/DataPipelines.h"
#include "analysis/device/DeviceWrites.h"
#include "libtorch/DeviceTypes.h"
#include "libtorch/LibTorchApi.h"
#include "project/ProjectFacts.h"
#include "project/ProjectModules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang::ast_matchers;

namespace clang::tidy::torch_sync {

DeviceKind DataPipelines::exampleMemberDevice(const MemberExpr &Member) {
  const auto *Field = dyn_cast<FieldDecl>(Member.getMemberDecl());
  // 'batch.data', 'example.target' of a torch::data::Example from a dataset
  // whose examples are made on the CPU; 'batch.data' after a Normalize
  // transform of any dataset.
  const auto *Example =
      Field ? dyn_cast<CXXRecordDecl>(Field->getParent()) : nullptr;
  if (!isNamedClass(Example, "Example", {"torch", "data"}))
    return DeviceKind::Unknown;
  auto ProjectDatasetOnCpu = [&](const CXXRecordDecl &Dataset) {
    if (ProjectDatasetsOnCPU)
      return true;
    std::string Key = projectModuleKey(Dataset, DatasetGetFact);
    const ProjectFacts::ReturnDevice *Returns =
        Facts && !Key.empty() ? Facts->returnDevice(Key) : nullptr;
    return Returns && Returns->Device == DeviceKind::CPU;
  };
  if (datasetYieldsCpu(exampleDataset(Member.getBase()), ProjectDatasetOnCpu))
    return DeviceKind::CPU;
  bool IsLoader = false;
  const Expr *Source = exampleSource(Member.getBase(), IsLoader);
  return Field->getName() == "data" && Source && dataNormalizedOnCpu(Source)
             ? DeviceKind::CPU
             : DeviceKind::Unknown;
}

const Expr *DataPipelines::exampleSource(const Expr *E, bool &IsLoader) {
  IsLoader = false;
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = strip(E);
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      if (!Var)
        return nullptr;
      // 'for (auto &batch : *loader)': the loader.
      const auto *Function =
          dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod());
      if (Function && Function->getBody())
        for (const BoundNodes &Nodes :
             match(findAll(cxxForRangeStmt(hasLoopVariable(equalsNode(Var)))
                               .bind("for")),
                   *Function->getBody(), Context))
          if (const Expr *Range =
                  Nodes.getNodeAs<CXXForRangeStmt>("for")->getRangeInit()) {
            IsLoader = true;
            return Range;
          }
      E = Writes.singleValue(*Var);
      continue;
    }
    // '*loader->begin()'.
    if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E)) {
      const auto *Begin =
          Operator->getOperator() == OO_Star
              ? dyn_cast<CXXMemberCallExpr>(strip(Operator->getArg(0)))
              : nullptr;
      const CXXMethodDecl *Method = Begin ? Begin->getMethodDecl() : nullptr;
      if (!Method || !Method->getIdentifier() || Method->getName() != "begin")
        return nullptr;
      IsLoader = true;
      return Begin->getImplicitObjectArgument();
    }
    // 'dataset.get_batch(i)', 'dataset.get(i)'.
    const auto *Member = dyn_cast<CXXMemberCallExpr>(E);
    const CXXMethodDecl *Method = Member ? Member->getMethodDecl() : nullptr;
    if (!Method || !Method->getIdentifier() ||
        (Method->getName() != "get_batch" && Method->getName() != "get"))
      return nullptr;
    return Member->getImplicitObjectArgument();
  }
  return nullptr;
}

QualType DataPipelines::exampleDataset(const Expr *E) {
  bool IsLoader = false;
  const Expr *Source = exampleSource(E, IsLoader);
  if (!Source)
    return QualType();
  return IsLoader ? loaderDataset(Source->getType())
                  : strip(Source)->getType().getNonReferenceType();
}

const Expr *DataPipelines::datasetConstruction(const Expr *E) {
  for (unsigned Depth = 0; E && Depth < 12; ++Depth) {
    E = strip(E);
    // '*loader', 'loader->': the object that a std::unique_ptr holds.
    if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(E)) {
      if ((Operator->getOperator() != OO_Star &&
           Operator->getOperator() != OO_Arrow) ||
          Operator->getNumArgs() != 1)
        return nullptr;
      E = Operator->getArg(0);
      continue;
    }
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      const auto *Function =
          Var ? dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod())
              : nullptr;
      if (!Function || !Function->getBody() || isa<ParmVarDecl>(Var) ||
          !Var->hasLocalStorage() || !Var->getInit() ||
          Var->getType()->isReferenceType())
        return nullptr;
      // Never assigned, reset or swapped; moving it into a data loader (its
      // last use: a moved-from dataset holds nothing) is no escape.
      for (const BoundNodes &Nodes :
           match(writesToVariable(*Var), *Function->getBody(), Context)) {
        const auto *Escape = Nodes.getNodeAs<CallExpr>("escape");
        const FunctionDecl *Callee =
            Escape ? Escape->getDirectCallee() : nullptr;
        if (!Callee || !Callee->getIdentifier() ||
            Callee->getName() != "move" || !isInNamespace(Callee, {"std"}))
          return nullptr;
      }
      if (!match(findAll(cxxMemberCallExpr(
                     on(refersTo(*Var)),
                     callee(cxxMethodDecl(hasAnyName("reset", "release"))))),
                 *Function->getBody(), Context)
               .empty())
        return nullptr;
      E = Var->getInit();
      continue;
    }
    const auto *Call = dyn_cast<CallExpr>(E);
    const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
    if (!Callee || !Callee->getIdentifier())
      return nullptr;
    // 'std::move(dataset)', 'torch::data::make_data_loader(dataset, ...)'.
    if ((Callee->getName() == "move" && isInNamespace(Callee, {"std"})) ||
        (Callee->getName() == "make_data_loader" &&
         isInNamespace(Callee, {"torch", "data"}))) {
      if (Call->getNumArgs() == 0)
        return nullptr;
      E = Call->getArg(0);
      continue;
    }
    return E; // the dataset built here: 'MNIST(path).map(...)'
  }
  return nullptr;
}

bool DataPipelines::dataNormalizedOnCpu(const Expr *Source) {
  const Expr *E = datasetConstruction(Source);
  for (unsigned Depth = 0; E && Depth < 16; ++Depth) {
    // 'source.map(transform)'.
    const auto *Map = dyn_cast<CXXMemberCallExpr>(strip(E));
    const CXXMethodDecl *Method = Map ? Map->getMethodDecl() : nullptr;
    if (!Method || !Method->getIdentifier() || Method->getName() != "map" ||
        Map->getNumArgs() != 1)
      return false;
    const Expr *Transform = strip(Map->getArg(0));
    const CXXRecordDecl *Record =
        Transform->getType().getNonReferenceType()->getAsCXXRecordDecl();
    // Stack keeps the device (torch::stack).
    if (isNamedClass(Record, "Stack", {"torch", "data", "transforms"})) {
      E = Map->getImplicitObjectArgument();
      continue;
    }
    // A Normalize built here holds the CPU tensors its constructor made;
    // one taken from a variable may have had them replaced.
    const auto *Construct = dyn_cast<CXXConstructExpr>(Transform);
    return isNamedClass(Record, "Normalize", {"torch", "data", "transforms"}) &&
           Construct &&
           llvm::none_of(Construct->arguments(), [&](const Expr *Arg) {
             return mayHandOverDevice(*Arg, Context);
           });
  }
  return false;
}

} // namespace clang::tidy::torch_sync
