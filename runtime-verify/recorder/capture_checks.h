// capture_checks: the recorder's observation of a capture that LibTorch refuses by its own check rather than
// by a CUDA call. Some calls inside a stream capture fail a TORCH_CHECK before any CUDA call (copy_ between a
// CUDA and a pageable CPU tensor: "Cannot copy between CPU and CUDA tensors during CUDA graph capture unless
// the CPU tensor is pinned"), which throws a c10::Error that CUPTI never sees. TORCH_CHECK reports a failure
// by calling c10::detail::torchCheckFail, a function of libc10 that LibTorch's other libraries call through
// the dynamic linker; the recorder defines it too (torch_check_fail.cpp), and a program's executable exports
// that definition to the shared libraries it links (GNU ld exports a definition that a linked shared library
// refers to), so that their calls reach it first. It records the failure and passes the call on to libc10's
// definition (dlsym RTLD_NEXT), which throws as before.
//
// The first check that fails while a stream capture is under way (runtime::capturesUnderway) and before any
// CUDA call failed that capture is a "capture_failure" event: its "kind" "exception", its "api"
// "TORCH_CHECK", its "error" the first line of the check's message, its "capture" "cause". Captures are
// counted per process: a check that fails on any thread while a capture is under way counts (a C10_CUDA_CHECK
// of an error that is no capture error, an out-of-memory inside the capture, is recorded so too), and so
// would one whose c10::Error is caught inside a capture that then succeeds (no sample does). A
// TORCH_INTERNAL_ASSERT without a message goes through torchCheckFail and is recorded alike; other exceptions
// (a TORCH_INTERNAL_ASSERT with one, a C10_THROW_ERROR, the program's own throw) are not observed.
#pragma once

#include <string_view>

namespace torch_sync::recorder {

// "ok" when LibTorch's failed checks reach the recorder's c10::detail::torchCheckFail, both overloads;
// otherwise a sentence saying why not (no libc10 definition to pass them on to, or the lookup finds another
// definition first).
// Static storage.
const char *captureChecksStatus();

// Marks the capture under way as failed by a CUDA call (the recorder's onCaptureError): checks that fail
// later while it is under way are that failure's consequences and are not recorded.
void noteCaptureFailed();

// Called by the recorder's torchCheckFail for each failed check, before it is passed on: records it when it
// fails the capture under way (header comment). message is the check's message.
void recordCheckFailure(std::string_view message);

} // namespace torch_sync::recorder
