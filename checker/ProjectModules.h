//===--- ProjectModules.h - facts about the project's torch::nn modules ---===//
//
// What the project pass records about a module class of the project (one
// that derives from torch::nn::Module), so that a translation unit that only
// uses the module knows where its state lives: whether its constructors
// create every parameter, buffer and submodule on the CPU, and whether its
// 'forward' returns a CPU tensor when its inputs and its state are on the
// CPU. docs/project-facts.md gives the keys these facts are filed under.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_PROJECTMODULES_H
#define TORCH_SYNC_PROJECTMODULES_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace clang {
class ASTContext;
class CXXConstructorDecl;
class CXXMethodDecl;
class CXXRecordDecl;
namespace tidy::torch_sync {

class DeviceInference;

/// The fact of a constructor of a project module (projectModuleKey).
constexpr llvm::StringRef ModuleConstructionFact = "(construction)";
/// The fact of a project module's forward (projectModuleKey).
constexpr llvm::StringRef ModuleForwardFact = "forward";
/// The fact of a project dataset's 'get': CPU when every example it returns
/// is built from CPU tensors (projectModuleKey).
constexpr llvm::StringRef DatasetGetFact = "get";

/// The key of fact \p Fact about the project module or dataset class
/// \p Module in the project facts: "class <qualified name>::<Fact>". Empty for
/// a class without external linkage (its name may mean another class in another
/// file), a local class or a template pattern.
std::string projectModuleKey(const CXXRecordDecl &Module, llvm::StringRef Fact);

/// The one 'forward' that \p Module declares; null when it declares none,
/// several, or a template.
const CXXMethodDecl *moduleForward(const CXXRecordDecl &Module);

/// Whether the constructor \p Constructor of a project module creates all of
/// the module's state on the CPU: its bases are torch::nn::Module (or
/// Cloneable), each member that may carry a device is a LibTorch leaf module
/// built without a tensor or module argument, a Sequential or ModuleList of
/// such, an empty holder, or a tensor that
/// \p Devices finds on the CPU, and its body only registers such members
/// ('register_module', 'register_parameter', 'register_buffer', alone or
/// assigned to a member). Any other statement makes it false.
bool constructsOnCpu(const CXXConstructorDecl &Constructor,
                     DeviceInference &Devices);

/// Whether every example that the dataset method \p Get returns is a
/// torch::data::Example built from tensors that \p Devices finds on the CPU.
bool returnsCpuExamples(const CXXMethodDecl &Get, DeviceInference &Devices,
                        ASTContext &Context);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_PROJECTMODULES_H
