//===--- ProjectFacts.h - device facts about a whole project --------------===//
//
// The project facts file: for each function of the project, the device its
// tensor parameters receive at every call in the project and the device it
// returns, solved by scripts/merge-project-facts.py from the fragments that
// torch-sync-project-facts writes per translation unit. The device inference
// reads it (option ProjectFactsFile) so that a CPU implementation reached only
// through a dispatch branch or a CPU kernel registration in another file is
// known to see CPU tensors. docs/project-facts.md describes the format.
//
// A facts file is used whole or not at all: one from another version of the
// tool, another configuration of the inference, a tree changed since it was
// collected, or one that does not parse is ignored with one reason.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_PROJECTFACTS_H
#define TORCH_SYNC_PROJECTFACTS_H

#include "libtorch/DeviceLattice.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace llvm::json {
class Object;
class Value;
} // namespace llvm::json

namespace clang {
class ASTContext;
class FileManager;
class FunctionDecl;
namespace tidy::torch_sync {

/// The format version of fragments and facts files that this tool writes and
/// reads (docs/project-facts.md).
constexpr int ProjectFactsFormatVersion = 1;

/// The tool that writes and reads the facts, as recorded in them:
/// "torch-sync <version> (LLVM <major>)".
llvm::StringRef projectFactsToolVersion();

/// A fingerprint (hex MD5) of the options that change what the device
/// inference concludes, as the collection and the reading checks see them.
std::string inferenceFingerprint(bool ProjectDatasetsOnCPU,
                                 llvm::StringRef LibTorchHeaderRegex,
                                 llvm::StringRef ThirdPartyHeaderRegex);

/// The name of \p Function in the facts: its qualified name and parameter
/// types, 'ns::f(const at::Tensor &, long)', the same in every translation
/// unit; prefixed with the absolute path of its file when it has internal
/// linkage. Instantiations of a template share the template's name. Empty for
/// the functions whose calls the project cannot all show: members (a library
/// template may call 'forward' or 'operator()'), operators, 'main', functions
/// local to another function, templates with a parameter pack.
std::string projectFunctionKey(const FunctionDecl &Function,
                               const ASTContext &Context);

/// \p Path made absolute against the working directory of \p Files (that of
/// the compile command) with '.' and '..' removed, as the facts name files.
std::string absoluteSourcePath(llvm::StringRef Path, const FileManager &Files);

/// The MD5 of \p Data, in lower-case hex.
std::string md5Hex(llvm::StringRef Data);

/// Writes \p Value as JSON to DIRECTORY/<md5Hex(MainFile)>.json (the file of
/// one translation unit: a facts fragment, the questions of a recording run),
/// creating the folder, through a temporary file renamed into place so that a
/// reader never sees half a file. Returns "" or, when it could not, the path
/// and the error.
std::string writeUnitJson(llvm::StringRef Directory, llvm::StringRef MainFile,
                          const llvm::json::Value &Value);

/// The device facts of a project, read from a facts file that passed every
/// check. Immutable; shared by the checks of a run.
class ProjectFacts {
public:
  /// What a function returns: the join of Device (Unspecified when no return
  /// names a device) and the devices of the arguments for Parameters.
  struct ReturnDevice {
    DeviceKind Device = DeviceKind::Unspecified;
    llvm::SmallVector<unsigned, 1> Parameters;
  };

  /// The facts in \p Path, read once per run (again when the file changes),
  /// or null with \p Problem set to why they cannot be used: the file cannot
  /// be read or is malformed, it comes from another format or tool version,
  /// its configuration fingerprint is not \p Fingerprint, or a source it was
  /// collected from changed (size and time, then MD5).
  static std::shared_ptr<const ProjectFacts>
  load(llvm::StringRef Path, llvm::StringRef Fingerprint, std::string &Problem);

  /// Whether the translation unit of main file \p MainFile (absolute) was
  /// part of the collection.
  bool coversTranslationUnit(llvm::StringRef MainFile) const {
    return TranslationUnits.contains(MainFile);
  }
  /// The device that tensor parameter \p Index of function \p Key receives
  /// in the project; std::nullopt when the facts say nothing about it.
  std::optional<DeviceKind> parameterDevice(llvm::StringRef Key,
                                            unsigned Index) const;
  /// What function \p Key returns; null when the facts say nothing.
  const ReturnDevice *returnDevice(llvm::StringRef Key) const;

  /// The empty facts of a run whose facts are not known yet (a scan that
  /// collects them and analyses in one pass): they answer every question as
  /// no facts would, and record it. One per process, shared by the checks.
  static std::shared_ptr<ProjectFacts> recorder();
  /// Whether these are the recorder's facts.
  bool isRecorder() const { return Recording; }
  /// The questions recorded since clearRecordedQueries(), sorted: for each,
  /// {"function": KEY, "parameter": INDEX} or {"function": KEY, "returns":
  /// true}. With the merged facts they tell whether the pass's findings stand
  /// (scripts/scan_report.py): they do when the facts answer none of them.
  llvm::json::Array recordedQueries() const;
  void clearRecordedQueries() const { Queries.clear(); }

private:
  /// A source the facts were collected from, as it was then.
  struct SourceStamp {
    std::string Path;
    uint64_t Size;
    int64_t Time;       ///< modification time, ns since the epoch
    std::string Digest; ///< MD5, hex
  };
  /// Whether every source is unchanged: the same size and modification time,
  /// or else the same MD5; \p Problem names the first that is not.
  bool sourcesUnchanged(std::string &Problem) const;

  struct Function {
    llvm::SmallVector<std::pair<unsigned, DeviceKind>, 2> Parameters;
    std::optional<ReturnDevice> Returns;
  };
  llvm::StringSet<> TranslationUnits;
  llvm::StringMap<Function> Functions;
  std::vector<SourceStamp> Sources;
  bool Recording = false;
  /// The recorder's questions: a function key and a parameter index, or -1
  /// for its return.
  mutable std::set<std::pair<std::string, int>> Queries;

  /// Reading a facts file, whole or not at all: the facts of the JSON text
  /// \p Text, or null with \p Problem set.
  static std::shared_ptr<ProjectFacts> parse(llvm::StringRef Text,
                                             llvm::StringRef Fingerprint,
                                             std::string &Problem);
  /// Reads the stamps of the sources the facts were collected from.
  static bool parseSources(const llvm::json::Object &Sources, ProjectFacts &Out,
                           std::string &Problem);
  static bool parseFunction(llvm::StringRef Key, const llvm::json::Value &Value,
                            Function &Out, std::string &Problem);
};

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_PROJECTFACTS_H
