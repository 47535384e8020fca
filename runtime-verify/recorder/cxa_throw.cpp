// The recorder's __cxa_throw (capture_throws.h): every throw expression of the process, the executable's
// own and, through its export, the shared libraries', passed on to the C++ runtime's __cxa_throw unchanged
// once capture_throws has seen it.
//
// Its own file, with the fewest includes: g++ declares __cxa_throw implicitly at the first throw expression
// it parses (inline functions of <memory>, <string> and others have some), with void * for the type
// parameter, and a definition with <cxxabi.h>'s signature after that does not compile.
#include <cxxabi.h>

#include "capture_throws.h"

#include <cstdio>
#include <cstdlib>

extern "C" __attribute__((visibility("default"))) void __cxa_throw(void *object, std::type_info *type,
                                                                   void (*destroy)(void *)) {
  if (type)
    torch_sync::recorder::recordThrowInCapture(object, *type);
  const torch_sync::recorder::CxaThrowFunction next = torch_sync::recorder::nextCxaThrow();
  if (!next) {
    std::fputs("sync_recorder: no __cxa_throw to pass a throw on to\n", stderr);
    std::abort();
  }
  next(object, type, destroy);
  __builtin_unreachable();
}
