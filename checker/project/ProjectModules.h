//===--- ProjectModules.h - facts about the project's torch::nn modules ---===//
//
// The keys under which the project pass files what it records about a module
// or dataset class of the project (ProjectModuleDevices.h says what), and the
// module's 'forward'. docs/project-facts.md gives the keys.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_PROJECTMODULES_H
#define TORCH_SYNC_PROJECTMODULES_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace clang {
class CXXMethodDecl;
class CXXRecordDecl;
namespace tidy::torch_sync {

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

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_PROJECTMODULES_H
