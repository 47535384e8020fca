//===--- LibraryHeaders.h - LibTorch's headers parsed as system headers ---===//
//
// The pre-filter that keeps every matcher out of LibTorch's and other
// libraries' headers when a build names them with -I rather than -isystem
// (torch.utils.cpp_extension and setup.py builds do): each header whose path
// matches one of the given patterns is marked a system header as it is
// entered, as '#pragma GCC system_header' on its first line would mark it.
// clang-tidy (LLVM 21 and newer) then matches no declaration inside it, for
// the torch-sync checks and for every other check of the same run, and shows
// no diagnostic located in it unless --system-headers is given. Line numbers
// are unchanged.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_LIBRARYHEADERS_H
#define TORCH_SYNC_LIBRARYHEADERS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace clang {
class Preprocessor;
} // namespace clang

namespace clang::tidy::torch_sync {

/// Registers, on \p PP, a preprocessor callback that marks every header whose
/// path matches one of the regular expressions \p Patterns (empty or invalid
/// ones are ignored: the caller reports them) as a system header when it is
/// entered. The main file is never marked, nor a file that
/// is already a system header. Call it before the preprocessor enters the
/// main file (a check's registerPPCallbacks). Marking a file twice (several
/// checks registering the callback) has no further effect.
void markLibraryHeadersAsSystem(Preprocessor &PP,
                                llvm::ArrayRef<llvm::StringRef> Patterns);

} // namespace clang::tidy::torch_sync

#endif // TORCH_SYNC_LIBRARYHEADERS_H
