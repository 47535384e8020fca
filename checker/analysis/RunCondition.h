//===--- RunCondition.h - the flag a sync runs under ----------------------===//
//
// Whether a call in a function body runs only under a flag: inside an 'if'
// (or a '?:', '&&', '||') whose condition is a plain variable, parameter or
// member, or is written as a macro's argument and tests no tensor, as in
// '#define CHECK(A, debug) A; if (debug) cudaDeviceSynchronize();'; or inside
// a preprocessor conditional written in the function ('#ifdef DEBUG_SYNC').
// Such a sync is most often a debugging aid, and the diagnostics say under
// what it runs. A branch that a constant condition never takes ('if (false)',
// a constexpr flag) never runs at all.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_RUNCONDITION_H
#define TORCH_SYNC_RUNCONDITION_H

#include "clang/Basic/SourceLocation.h"
#include "clang/Lex/PPCallbacks.h"
#include <optional>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class SourceManager;
class Stmt;
namespace tidy::torch_sync {

/// A condition that a call runs under.
struct RunCondition {
  /// The condition: of the 'if', or the preprocessor directive.
  SourceLocation Loc;
  /// What must hold, phrased to follow the call ("only when 'debug' is true",
  /// "only in builds that define 'DEBUG_SYNC'").
  std::string Description;
};

/// Records the branches of the preprocessor conditionals of a translation
/// unit that were compiled ('#if', '#ifdef', '#ifndef', '#elif', '#else'),
/// with the condition each needs. Registered as a PPCallbacks; the
/// Preprocessor owns it, the check keeps a pointer.
class ConditionalBranches : public PPCallbacks {
public:
  explicit ConditionalBranches(const SourceManager &SM) : SM(SM) {}

  /// The innermost compiled branch around \p Loc (its expansion) that lies
  /// strictly inside the range \p Within, or null.
  const RunCondition *branchAround(SourceLocation Loc,
                                   SourceRange Within) const;

  void If(SourceLocation Loc, SourceRange ConditionRange,
          ConditionValueKind ConditionValue) override;
  void Elif(SourceLocation Loc, SourceRange ConditionRange,
            ConditionValueKind ConditionValue, SourceLocation IfLoc) override;
  void Ifdef(SourceLocation Loc, const Token &MacroNameTok,
             const MacroDefinition &MD) override;
  void Ifndef(SourceLocation Loc, const Token &MacroNameTok,
              const MacroDefinition &MD) override;
  void Else(SourceLocation Loc, SourceLocation IfLoc) override;
  void Endif(SourceLocation Loc, SourceLocation IfLoc) override;

private:
  /// A compiled branch: from its directive to the next one of its
  /// conditional, in one file.
  struct Branch {
    FileID File;
    unsigned Begin = 0, End = 0;
    RunCondition Guard;
  };
  /// A conditional being read: the branch that began last, and what its
  /// '#else' would need (empty when it has an '#elif', or for a condition
  /// not worth naming).
  struct Open {
    /// In a system header, where nothing is reported: not recorded.
    bool Ignored = false;
    SourceLocation BranchBegin;
    std::optional<RunCondition> Taken;
    std::string ElseDescription;
  };
  /// Begins a conditional at \p Loc; whether it is recorded.
  bool openConditional(SourceLocation Loc);
  /// Opens the branch of '#ifdef NAME' (\p WhenDefined) or '#ifndef NAME',
  /// described by whether the build defines NAME, and its '#else'.
  void openMacroTest(SourceLocation Loc, const Token &MacroNameTok,
                     bool WhenDefined);
  void openBranch(SourceLocation Loc, std::optional<std::string> Description);
  void closeBranch(SourceLocation Loc);

  const SourceManager &SM;
  std::vector<Open> Stack;
  std::vector<Branch> Branches;
};

/// How a call runs in its function.
struct RunConditionResult {
  /// Never: a constant condition never takes its branch.
  bool Never = false;
  /// The innermost flag or preprocessor branch it runs under, or none.
  std::optional<RunCondition> Guard;
};

/// Under which flag, if any, the call \p Call runs: the innermost 'if',
/// '?:', '&&' or '||' whose condition is a flag (see the file comment)
/// between it and \p Body, else the preprocessor branch around it inside
/// \p Body (\p Branches, when known). Without \p Body, up to the function or
/// lambda that holds the call.
RunConditionResult findRunCondition(const Stmt &Call, ASTContext &Context,
                                    const ConditionalBranches *Branches,
                                    const Stmt *Body = nullptr);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_RUNCONDITION_H
