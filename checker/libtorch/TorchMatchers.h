//===--- TorchMatchers.h - AST matchers for LibTorch declarations ---------===//

#ifndef TORCH_SYNC_TORCHMATCHERS_H
#define TORCH_SYNC_TORCHMATCHERS_H

#include "libtorch/DeviceTypes.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Regex.h"
#include <memory>
#include <vector>

namespace clang::tidy::torch_sync {

/// Matches at::Tensor and at::TensorBase, through typedefs (torch::Tensor),
/// references and cv-qualifiers.
AST_MATCHER(QualType, isTorchTensor) { return isTensorType(Node); }

/// Matches a member function of at::Tensor or at::TensorBase named one of
/// \p Names.
inline auto tensorMethod(std::vector<llvm::StringRef> Names) {
  using namespace ast_matchers;
  return cxxMethodDecl(
      hasAnyName(Names),
      ofClass(cxxRecordDecl(hasAnyName("::at::Tensor", "::at::TensorBase"))));
}

/// Matches a named declaration whose bare name ("linalg_eig", no scope) is in
/// \p Names: one hash lookup, where hasAnyName compares each name.
AST_MATCHER_P(NamedDecl, hasNameInSet, std::shared_ptr<llvm::StringSet<>>,
              Names) {
  return Node.getIdentifier() && Names->contains(Node.getName());
}

/// Matches a function whose qualified name ("ns::f", no leading "::")
/// matches one of the regular expressions in \p Patterns (a partial match
/// unless the pattern is anchored).
AST_MATCHER_P(FunctionDecl, qualifiedNameMatchesAny,
              std::shared_ptr<std::vector<llvm::Regex>>, Patterns) {
  std::string Name = Node.getQualifiedNameAsString();
  for (const llvm::Regex &Pattern : *Patterns)
    if (Pattern.match(Name))
      return true;
  return false;
}

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_TORCHMATCHERS_H
