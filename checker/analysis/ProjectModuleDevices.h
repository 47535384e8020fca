//===--- ProjectModuleDevices.h - project modules on the CPU --------------===//
//
// What the project pass records about a module class of the project (one
// that derives from torch::nn::Module), so that a translation unit that only
// uses the module knows where its state lives: whether its constructors
// create every parameter, buffer and submodule on the CPU, and whether a
// dataset's 'get' returns CPU examples. Filed under the keys of
// ProjectModules.h; docs/project-facts.md.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_PROJECTMODULEDEVICES_H
#define TORCH_SYNC_PROJECTMODULEDEVICES_H

namespace clang {
class ASTContext;
class CXXConstructorDecl;
class CXXMethodDecl;
namespace tidy::torch_sync {

class DeviceInference;

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

#endif // TORCH_SYNC_PROJECTMODULEDEVICES_H
