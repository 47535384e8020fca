//===--- LibraryHeaders.cpp - LibTorch's headers parsed as system headers -===//

#include "support/LibraryHeaders.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/HeaderSearch.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Regex.h"
#include <memory>
#include <vector>

namespace clang::tidy::torch_sync {

namespace {

class LibraryHeaderMarker : public PPCallbacks {
public:
  LibraryHeaderMarker(Preprocessor &PP, std::vector<llvm::Regex> Patterns)
      : PP(PP), Patterns(std::move(Patterns)) {}

  void FileChanged(SourceLocation Loc, FileChangeReason Reason,
                   SrcMgr::CharacteristicKind FileType,
                   FileID PrevFID) override {
    // Only the entry of a user header: a system header needs nothing, and
    // leaving a file or a line marker is not an entry.
    if (Reason != EnterFile || FileType != SrcMgr::C_User || Loc.isInvalid())
      return;
    SourceManager &SM = PP.getSourceManager();
    FileID File = SM.getFileID(Loc);
    // The main file is the user's code, whatever its path.
    if (File == SM.getMainFileID() || SM.isInSystemHeader(Loc))
      return;
    OptionalFileEntryRef Entry = SM.getFileEntryRefForID(File);
    // Predefines and command-line buffers have no file.
    if (!Entry)
      return;
    StringRef Path = Entry->getName();
    if (llvm::none_of(Patterns, [&](const llvm::Regex &Pattern) {
          return Pattern.match(Path);
        }))
      return;
    // What '#pragma GCC system_header' does (Preprocessor::
    // HandlePragmaSystemHeader): later lookups of the file, and the files it
    // includes from its own folder, are system headers...
    PP.getHeaderSearchInfo().MarkFileSystemHeader(*Entry);
    // ...and a line marker makes every location of the file one. A marker
    // holds the number of the line after it; at the file's start that is
    // line 2, so that the first line stays line 1.
    PresumedLoc Presumed = SM.getPresumedLoc(Loc);
    if (Presumed.isInvalid())
      return;
    unsigned FilenameID = SM.getLineTableFilenameID(Presumed.getFilename());
    SM.AddLineNote(Loc, Presumed.getLine() + 1, FilenameID,
                   /*IsFileEntry=*/false, /*IsFileExit=*/false,
                   SrcMgr::C_System);
  }

private:
  Preprocessor &PP;
  const std::vector<llvm::Regex> Patterns;
};

} // namespace

void markLibraryHeadersAsSystem(Preprocessor &PP,
                                llvm::ArrayRef<llvm::StringRef> Patterns) {
  std::vector<llvm::Regex> Compiled;
  for (llvm::StringRef Pattern : Patterns) {
    llvm::Regex Regex(Pattern);
    if (!Pattern.empty() && Regex.isValid())
      Compiled.push_back(std::move(Regex));
  }
  if (Compiled.empty())
    return;
  PP.addPPCallbacks(
      std::make_unique<LibraryHeaderMarker>(PP, std::move(Compiled)));
}

} // namespace clang::tidy::torch_sync
