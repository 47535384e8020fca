//===--- ProjectFactsCheck.h - torch-sync-project-facts -------------------===//

#ifndef TORCH_SYNC_PROJECTFACTSCHECK_H
#define TORCH_SYNC_PROJECTFACTSCHECK_H

#include "checks/SyncCheckBase.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include <string>
#include <vector>

namespace clang::tidy::torch_sync {

/// Collects the device facts of one translation unit for the project facts
/// file: the device of each tensor argument at every call of a project
/// function, the registrations and other uses that let unseen code call one,
/// and the device that each function returns. It writes them as one fragment
/// into OutputDirectory and emits no warning; scripts/merge-project-facts.py
/// joins the fragments into the file that option ProjectFactsFile names.
///
/// For the user-facing documentation see docs/project-facts.md.
class ProjectFactsCheck : public SyncCheckBase {
public:
  /// Reads OutputDirectory (where fragments go; empty, the default, turns the
  /// check off) besides the shared options.
  ProjectFactsCheck(StringRef Name, ClangTidyContext *Context);
  void storeOptions(ClangTidyOptions::OptionMap &Opts) override;
  /// The check runs only where it has somewhere to write: with an empty
  /// OutputDirectory it registers nothing, so that enabling 'torch-sync-*'
  /// costs nothing.
  bool isLanguageVersionSupported(const LangOptions &LangOpts) const override {
    return LangOpts.CPlusPlus && !OutputDirectory.empty();
  }
  void onStartOfTranslationUnit() override;
  /// Writes the fragment of the translation unit.
  void onEndOfTranslationUnit() override;

protected:
  void registerSyncMatchers(ast_matchers::MatchFinder *Finder) override;
  void checkSync(const ast_matchers::MatchFinder::MatchResult &Result) override;
  /// The collection sees the translation unit alone.
  bool readsProjectFacts() const override { return false; }

private:
  /// A reference to a project function other than as the callee of a call.
  struct Reference {
    const DeclRefExpr *Ref;
    const FunctionDecl *Function;
  };

  /// Records a direct call of a project function with its tensor arguments.
  void recordCall(const CallExpr &Call, const FunctionDecl &Callee,
                  ASTContext &Context);
  /// Records a registration with 'torch::Library' ('m.impl', 'm.def') inside
  /// \p Registrar: a kernel for the CPU or CUDA dispatch key becomes a call
  /// with CPU (CUDA) tensors; any other leaves the kernel's address escaping.
  void recordRegistration(const CXXMemberCallExpr &Registration,
                          const FunctionDecl &Registrar, ASTContext &Context);
  /// Records the device that a return statement of \p Function gives.
  void recordReturn(const Expr &Value, const FunctionDecl &Function,
                    ASTContext &Context);
  /// Appends a call record: \p Arguments maps tensor parameter indices to
  /// terms; \p Via says how the callee is reached ("call", "cpu-kernel",
  /// "cuda-kernel", "address").
  void addCall(std::string Callee, StringRef Via, SourceLocation Site,
               llvm::json::Object Arguments, ASTContext &Context);
  /// The fragment of the translation unit, as JSON.
  /// Records what a constructor or the forward of a project module gives
  /// (ProjectModules.h) under "returns".
  void recordModuleMember(const CXXMethodDecl &Method, ASTContext &Context);
  llvm::json::Value fragment(ASTContext &Context) const;
  /// Records the escaped functions' unknown calls and writes the fragment
  /// of the translation unit (at its end).
  void writeUnitFacts();
  /// Writes \p Fragment into OutputDirectory, atomically; a failure is a
  /// configuration diagnostic.
  void write(const llvm::json::Value &Fragment, StringRef MainFile);

  const std::string OutputDirectory;
  ASTContext *Context = nullptr;
  llvm::json::Array Calls;
  llvm::StringSet<> CallsSeen;
  llvm::json::Object Returns;
  /// The inference that assumes the state and inputs of project modules on
  /// the CPU, for their forwards; rebuilt per translation unit.
  std::unique_ptr<DeviceInference> Hypothesis;
  const ASTContext *HypothesisContext = nullptr;
  llvm::SmallPtrSet<const DeclRefExpr *, 32> Callees;
  llvm::SmallPtrSet<const DeclRefExpr *, 8> Registered;
  std::vector<Reference> References;
};

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_PROJECTFACTSCHECK_H
