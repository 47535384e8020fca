//===--- ProjectModuleDevices.cpp - project modules on the CPU ------------===//

#include "analysis/ProjectModuleDevices.h"
#include "analysis/device/DeviceInference.h"
#include "libtorch/DeviceTypes.h"
#include "libtorch/LibTorchApi.h"
#include "project/ProjectModules.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::torch_sync {

namespace {

/// Whether \p E builds a module holder whose module is on the CPU: a module
/// of LibTorch that ModuleDevices::moduleDevice finds on the CPU (a leaf
/// module without a tensor or module argument, a Sequential of such), or an
/// empty holder ('Linear fc{nullptr}').
bool isCpuModuleConstruction(const Expr *E, DeviceInference &Devices) {
  const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(strip(E));
  const CXXRecordDecl *Module =
      Construct ? heldModule(Construct->getType()) : nullptr;
  // Another project module's state is that module's own fact, which this
  // pass is computing.
  if (!Module || isProjectModule(*Module))
    return false;
  if (Construct->getNumArgs() == 1 &&
      Construct->getArg(0)->getType()->isNullPtrType())
    return true;
  return Devices.modules().moduleDevice(Construct, /*Depth=*/0) ==
         DeviceKind::CPU;
}

/// Whether \p E names a member of the class under construction.
bool isOwnMember(const Expr *E, const CXXRecordDecl &Class) {
  const auto *Member = dyn_cast_or_null<MemberExpr>(strip(E));
  return Member && isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts()) &&
         isa<FieldDecl>(Member->getMemberDecl()) &&
         cast<FieldDecl>(Member->getMemberDecl())->getParent() == &Class;
}

/// Whether the value \p E given to a member or a registration keeps the
/// module's state on the CPU.
bool isCpuState(const Expr *E, const CXXRecordDecl &Class,
                DeviceInference &Devices) {
  if (!mayCarryDevice(E->getType()))
    return true;
  if (isOwnMember(E, Class))
    return true; // checked at its initializer
  if (heldModule(E->getType()))
    return isCpuModuleConstruction(E, Devices);
  return isTensorType(E->getType()) &&
         Devices.tensorDevice(E) == DeviceKind::CPU;
}

/// Whether \p S is 'register_X(name, value)' on this, or 'member =
/// register_X(...)', 'member = Leaf(options)', with CPU values.
bool isCpuRegistration(const Stmt *S, const CXXRecordDecl &Class,
                       DeviceInference &Devices) {
  const auto *E = dyn_cast_or_null<Expr>(S);
  if (!E)
    return false;
  E = E->IgnoreImplicit();
  if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(E)) {
    if (Assign->getOperator() != OO_Equal || Assign->getNumArgs() != 2 ||
        !isOwnMember(Assign->getArg(0), Class))
      return false;
    const Expr *Value = Assign->getArg(1)->IgnoreImplicit();
    return isa<CXXMemberCallExpr>(Value)
               ? isCpuRegistration(Value, Class, Devices)
               : isCpuState(Assign->getArg(1), Class, Devices);
  }
  const auto *Call = dyn_cast<CXXMemberCallExpr>(E);
  const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
  if (!Method || !Method->getIdentifier() ||
      !isa<CXXThisExpr>(
          Call->getImplicitObjectArgument()->IgnoreParenImpCasts()))
    return false;
  StringRef Name = Method->getName();
  if (Name != "register_module" && Name != "register_parameter" &&
      Name != "register_buffer")
    return false;
  return llvm::all_of(Call->arguments(), [&](const Expr *Arg) {
    return isCpuState(Arg, Class, Devices);
  });
}

} // namespace

bool returnsCpuExamples(const CXXMethodDecl &Get, DeviceInference &Devices,
                        ASTContext &Context) {
  if (!Get.getBody())
    return false;
  unsigned Returns = 0;
  for (const Expr *Returned : returnValues(Get, Context)) {
    const Expr *Value = strip(Returned);
    ++Returns;
    // 'return {data, target};', 'return Example<>(data, target);'
    llvm::ArrayRef<const Expr *> Parts;
    if (const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(Value))
      Parts = llvm::ArrayRef(Construct->getArgs(), Construct->getNumArgs());
    else if (const auto *List = dyn_cast_or_null<InitListExpr>(Value))
      Parts = llvm::ArrayRef(List->getInits(), List->getNumInits());
    const auto *Record =
        Value ? Value->getType()->getAsCXXRecordDecl() : nullptr;
    if (!isNamedClass(Record, "Example", {"torch", "data"}) || Parts.empty())
      return false;
    for (const Expr *Part : Parts)
      if (mayCarryDevice(Part->getType()) &&
          (!isTensorType(Part->getType()) ||
           Devices.tensorDevice(Part) != DeviceKind::CPU))
        return false;
  }
  return Returns > 0;
}

bool constructsOnCpu(const CXXConstructorDecl &Constructor,
                     DeviceInference &Devices) {
  const CXXRecordDecl &Class = *Constructor.getParent();
  // The state of a base other than torch::nn::Module's is not seen.
  for (const CXXBaseSpecifier &Base : Class.bases()) {
    const CXXRecordDecl *Record = Base.getType()->getAsCXXRecordDecl();
    if (!isNamedClass(Record, "Module", {"torch", "nn"}) &&
        !isNamedClass(Record, "Cloneable", {"torch", "nn"}))
      return false;
  }
  for (const FieldDecl *Field : Class.fields()) {
    if (!mayCarryDevice(Field->getType()))
      continue;
    const Expr *Init = nullptr;
    for (const CXXCtorInitializer *Initializer : Constructor.inits())
      if (Initializer->getMember() == Field)
        Init = Initializer->getInit();
    if (const auto *Default = dyn_cast_or_null<CXXDefaultInitExpr>(Init))
      Init = Default->getExpr();
    const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(
        Init ? Init->IgnoreImplicit() : nullptr);
    // A tensor left undefined, a leaf module built by its default constructor.
    if (!Init || (Construct && Construct->getNumArgs() == 0)) {
      const CXXRecordDecl *Module = heldModule(Field->getType());
      if (!isTensorType(Field->getType()) &&
          !(Module &&
            (isLibraryLeafModule(*Module) || isLibraryModuleSequence(*Module))))
        return false;
      continue;
    }
    if (!isCpuState(Init, Class, Devices))
      return false;
  }
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Constructor.getBody());
  if (!Body)
    return false;
  return llvm::all_of(Body->body(), [&](const Stmt *S) {
    return isCpuRegistration(S, Class, Devices);
  });
}

} // namespace clang::tidy::torch_sync
