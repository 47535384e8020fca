// capture_throws: the recorder's observation of a capture that fails by an exception rather than by a CUDA
// call. LibTorch refuses some calls inside a stream capture with its own check (copy_ between a CUDA and a
// pageable CPU tensor: "Cannot copy between CPU and CUDA tensors during CUDA graph capture unless the CPU
// tensor is pinned"), a c10::Error thrown before any CUDA call, which CUPTI never sees. The recorder defines
// __cxa_throw (cxa_throw.cpp), which the C++ runtime calls for every throw expression, and passes each throw
// on to the real one (dlsym RTLD_NEXT). A program's executable exports it to the shared libraries it links
// (GNU ld exports a definition that a linked shared library refers to), so LibTorch's throws reach it too.
//
// The first exception thrown while a stream capture is under way (runtime::capturesUnderway) and before any
// CUDA call failed that capture is a "capture_failure" event: its "kind" "exception", its "api" the
// exception's type (e.g. "c10::Error"), its "error" the first line of what(), its "capture" "cause". The
// exceptions a failed CUDA call leads to (C10_CUDA_CHECK's) are not recorded again. Captures are counted per
// process: an exception thrown on any thread while a capture is under way counts, and so would one that is
// thrown and caught inside a capture that then succeeds (no sample does).
//
// This header includes nothing but <typeinfo>: cxa_throw.cpp, which includes it, must see no throw
// expression before its definition of __cxa_throw (see there).
#pragma once

#include <typeinfo>

namespace torch_sync::recorder {

// "ok" when the program's throws reach the recorder's __cxa_throw; otherwise a sentence saying which
// definition they reach instead (a static libstdc++, a library loaded before the program with its own).
// Static storage.
const char *captureThrowsStatus();

// Marks the capture under way as failed by a CUDA call (the recorder's onCaptureError): exceptions thrown
// later while it is under way are that failure's consequences and are not recorded.
void noteCaptureFailed();

// Called by __cxa_throw for each throw, before it is passed on: records it when it fails the capture under
// way (header comment). object is the exception, type its dynamic type.
void recordThrowInCapture(void *object, const std::type_info &type);

// The C++ runtime's own __cxa_throw (the next definition after the executable's), or nullptr when there is
// none.
using CxaThrowFunction = void (*)(void *, std::type_info *, void (*)(void *));
CxaThrowFunction nextCxaThrow();

} // namespace torch_sync::recorder
