// The guard's GPU-free logic: the counting rule (sync_counting.h), allowances and nested scopes
// (scope_ledger.h), the report text (guard.h), and the runtime core's blocking rules and frame classification
// (../../core/cuda_call.h, stack_trace.h). Runs without CUDA.
#include "scope_ledger.h"
#include "sync_counting.h"

#include "cuda_call.h"
#include "stack_trace.h"
#include "torch_sync/guard.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

using namespace torch_sync;
using namespace torch_sync::guard_detail;
using runtime::Blocking;
using runtime::CopyKind;
using runtime::CudaCall;
using runtime::MemoryType;

int stream = 0; // an address to stand for a stream
const void *kStream = &stream;

CallRecord copy(Blocking blocks, std::uint64_t caller, const void *on = kStream) {
  return CallRecord{"cudaMemcpyAsync", blocks, true, on, caller};
}
CallRecord streamSync(std::uint64_t caller, const void *on = kStream) {
  return CallRecord{"cudaStreamSynchronize", Blocking::Yes, false, on, caller};
}

TEST(SyncCounting, CopyThenStreamSynchronizeOfOneCallerIsOneSync) {
  // at::cuda::memcpy_and_sync, as item() and nonzero make it.
  auto groups = groupSyncs({copy(Blocking::No, 7), streamSync(7)});
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].waitingCall, 1u);
  EXPECT_EQ(groups[0].copyCall, 0);
}

TEST(SyncCounting, AWaitingCopyThenItsSynchronizeIsStillOne) {
  EXPECT_EQ(groupSyncs({copy(Blocking::Yes, 7), streamSync(7)}).size(), 1u);
}

TEST(SyncCounting, ALoopOfPairsCountsEachPair) {
  auto groups = groupSyncs({copy(Blocking::No, 7), streamSync(7), copy(Blocking::No, 7), streamSync(7),
                            copy(Blocking::No, 7), streamSync(7)});
  EXPECT_EQ(groups.size(), 3u);
}

TEST(SyncCounting, ANonWaitingCopyAloneIsNoSync) { EXPECT_TRUE(groupSyncs({copy(Blocking::No, 7)}).empty()); }

TEST(SyncCounting, AWaitingCopyAloneIsOneSync) {
  auto groups = groupSyncs({copy(Blocking::Yes, 7)});
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].copyCall, -1);
}

TEST(SyncCounting, SynchronizesFromAnotherCallerOrStreamAreNotMerged) {
  int other = 0;
  EXPECT_EQ(groupSyncs({copy(Blocking::Yes, 7), streamSync(8)}).size(), 2u);
  EXPECT_EQ(groupSyncs({copy(Blocking::Yes, 7), streamSync(7, &other)}).size(), 2u);
  // A pinned copy waited for by another function's synchronize: the copy itself did not wait.
  EXPECT_EQ(groupSyncs({copy(Blocking::No, 7), streamSync(8)}).size(), 1u);
}

TEST(SyncCounting, ADeviceWideSynchronizeEndsAPairWhateverTheStream) {
  int other = 0;
  auto groups = groupSyncs(
      {copy(Blocking::No, 7, &other), CallRecord{"cudaDeviceSynchronize", Blocking::Yes, false, nullptr, 7}});
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].copyCall, 0);
}

TEST(SyncCounting, AnEventSynchronizeDoesNotEndAPair) {
  // The event's stream is unknown: the copy and the wait stay apart.
  auto groups = groupSyncs(
      {copy(Blocking::Yes, 7), CallRecord{"cudaEventSynchronize", Blocking::Yes, false, nullptr, 7}});
  EXPECT_EQ(groups.size(), 2u);
}

TEST(SyncCounting, UnknownBlockingCountsAndIsMarked) {
  auto groups = groupSyncs({CallRecord{"cudaMemcpy", Blocking::Unknown, true, nullptr, 1}});
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_TRUE(groups[0].mayWait);
}

TEST(SyncCounting, NonWaitingCallsAreNotSyncs) {
  EXPECT_TRUE(groupSyncs({CallRecord{"cudaFree", Blocking::No, false, nullptr, 1}}).empty());
}

TEST(ScopeLedger, EveryOpenScopeSeesACall) {
  ScopeLedger ledger;
  std::size_t outerId = ledger.openScope();
  ledger.record(0);
  std::size_t innerId = ledger.openScope();
  ledger.record(1);
  auto inner = ledger.closeScope(innerId);
  ledger.record(2);
  auto outer = ledger.closeScope(outerId);
  ASSERT_EQ(inner.size(), 1u);
  EXPECT_EQ(inner[0].call, 1u);
  ASSERT_EQ(outer.size(), 3u);
  EXPECT_EQ(outer[2].call, 2u);
  EXPECT_EQ(ledger.openScopes(), 0u);
}

TEST(ScopeLedger, ScopesCloseByIdInAnyOrder) {
  ScopeLedger ledger;
  std::size_t a = ledger.openScope();
  ledger.record(0);
  std::size_t b = ledger.openScope();
  ledger.record(1);
  auto seenByA = ledger.closeScope(a); // the outer one first
  ledger.record(2);
  auto seenByB = ledger.closeScope(b);
  ASSERT_EQ(seenByA.size(), 2u);
  ASSERT_EQ(seenByB.size(), 2u);
  EXPECT_EQ(seenByB[0].call, 1u);
  EXPECT_EQ(seenByB[1].call, 2u);
  EXPECT_TRUE(ledger.closeScope(a).empty()) << "closing twice gives nothing";
}

TEST(ScopeLedger, AnAllowanceCoversTheScopesOpenWhenItWasMade) {
  ScopeLedger ledger;
  std::size_t outerId = ledger.openScope();
  std::size_t allowance = ledger.openAllowance("logging once per epoch");
  ledger.record(0);
  std::size_t innerId = ledger.openScope(); // opened inside the allowance: strict again
  ledger.record(1);
  auto inner = ledger.closeScope(innerId);
  ledger.closeAllowance(allowance);
  ledger.record(2);
  auto outer = ledger.closeScope(outerId);
  ASSERT_EQ(inner.size(), 1u);
  EXPECT_EQ(inner[0].allowedBecause, "");
  ASSERT_EQ(outer.size(), 3u);
  EXPECT_EQ(outer[0].allowedBecause, "logging once per epoch");
  EXPECT_EQ(outer[1].allowedBecause, "logging once per epoch");
  EXPECT_EQ(outer[2].allowedBecause, "");
}

TEST(ScopeLedger, AnAllowanceThatOutlivesItsScopeDoesNotCoverTheNextScope) {
  ScopeLedger ledger;
  std::size_t first = ledger.openScope();
  std::size_t allowance = ledger.openAllowance("reason");
  ledger.closeScope(first);
  std::size_t second = ledger.openScope(); // at the same depth as the first, but opened after the allowance
  ledger.record(0);
  auto seen = ledger.closeScope(second);
  ledger.closeAllowance(allowance);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].allowedBecause, "");
}

TEST(ScopeLedger, TheNewestAllowanceGivesTheReasonAndAllowancesCloseById) {
  ScopeLedger ledger;
  std::size_t scope = ledger.openScope();
  std::size_t outer = ledger.openAllowance("outer reason");
  std::size_t inner = ledger.openAllowance("inner reason");
  ledger.record(0);
  ledger.closeAllowance(inner);
  ledger.record(1);
  std::size_t again = ledger.openAllowance("again");
  ledger.closeAllowance(outer); // out of order
  ledger.record(2);
  ledger.closeAllowance(again);
  ledger.record(3);
  auto seen = ledger.closeScope(scope);
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].allowedBecause, "inner reason");
  EXPECT_EQ(seen[1].allowedBecause, "outer reason");
  EXPECT_EQ(seen[2].allowedBecause, "again");
  EXPECT_EQ(seen[3].allowedBecause, "");
}

TEST(ScopeLedger, AnAllowanceNeedsAReason) {
  ScopeLedger ledger;
  ledger.openScope();
  EXPECT_THROW(ledger.openAllowance(""), std::invalid_argument);
  EXPECT_THROW(ledger.openAllowance("  \t"), std::invalid_argument);
}

DeviceSync itemSync() {
  DeviceSync sync;
  sync.api = "cudaStreamSynchronize";
  sync.copyApi = "cudaMemcpyAsync";
  sync.copyKind = "DtoH";
  sync.hostMemory = "pinned";
  sync.bytes = 4;
  sync.atenOperator = "aten::item";
  sync.location = "test/model_test.cpp:42";
  sync.function = "ModelTest_Forward_Test::TestBody()";
  return sync;
}

TEST(Report, DescribesTheCallTheCopyTheOperatorAndTheLine) {
  EXPECT_EQ(describe(itemSync()),
            "cudaStreamSynchronize after a 4-byte DtoH cudaMemcpyAsync into pinned memory, in aten::item, at "
            "test/model_test.cpp:42 (in ModelTest_Forward_Test::TestBody())");
  DeviceSync free;
  free.api = "cudaFree";
  free.location = "ext.cu:9";
  EXPECT_EQ(describe(free), "cudaFree, at ext.cu:9");
  DeviceSync upload;
  upload.api = upload.copyApi = "cudaMemcpy";
  upload.copyKind = "HtoD";
  upload.hostMemory = "pageable";
  upload.bytes = 1024;
  upload.libTorchEntry = "at::Tensor::to(...)";
  EXPECT_EQ(describe(upload),
            "cudaMemcpy, a 1024-byte HtoD copy from pageable memory, in at::Tensor::to(...)");
}

TEST(Report, CountsOnlyUnallowedSyncs) {
  DeviceSync allowed = itemSync();
  allowed.allowedBecause = "metric logged once per epoch";
  std::vector<DeviceSync> syncs{itemSync(), allowed};
  EXPECT_EQ(unallowed(syncs).size(), 1u);
  EXPECT_TRUE(checkSyncCount(syncs, 1, "model.forward(x)", 1).passed);
  SyncCountCheck none = checkSyncCount(syncs, 0, "model.forward(x)", 1);
  EXPECT_FALSE(none.passed);
  EXPECT_EQ(
      none.message,
      "Expected: no device sync in `model.forward(x)` (guarded run after 1 warm-up run)\n"
      "  Actual: 1 device sync (and 1 allowed):\n"
      "  1. cudaStreamSynchronize after a 4-byte DtoH cudaMemcpyAsync into pinned memory, in aten::item, at "
      "test/model_test.cpp:42 (in ModelTest_Forward_Test::TestBody())\n"
      "  2. cudaStreamSynchronize after a 4-byte DtoH cudaMemcpyAsync into pinned memory, in aten::item, at "
      "test/model_test.cpp:42 (in ModelTest_Forward_Test::TestBody()) [allowed: metric logged once per "
      "epoch]\n");
}

TEST(Report, SaysWhatWasExpectedWhenFewerSyncsCame) {
  SyncCountCheck check = checkSyncCount({}, 2, "step()", 0);
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.message, "Expected: 2 device syncs in `step()`\n  Actual: 0 device syncs\n");
}

CudaCall call(const char *api, CopyKind copy = CopyKind::None, MemoryType host = MemoryType::Unknown) {
  CudaCall c;
  c.api = api;
  c.copy = copy;
  c.hostMemory = host;
  return c;
}

TEST(CoreBlocking, DocumentedAndMeasuredRules) {
  EXPECT_EQ(runtime::blocking(call("cudaStreamSynchronize")), Blocking::Yes);
  EXPECT_EQ(runtime::blocking(call("cuCtxSynchronize")), Blocking::Yes);
  EXPECT_EQ(runtime::blocking(call("cudaMemcpy", CopyKind::DeviceToHost, MemoryType::Pinned)), Blocking::Yes);
  EXPECT_EQ(runtime::blocking(call("cudaMemcpy", CopyKind::DeviceToDevice)), Blocking::No);
  EXPECT_EQ(runtime::blocking(call("cudaMemcpyAsync", CopyKind::DeviceToHost, MemoryType::Pageable)),
            Blocking::Yes);
  // Measured on the GPU (checker/facts/census-frontend.tsv): a pageable upload did not wait.
  EXPECT_EQ(runtime::blocking(call("cudaMemcpyAsync", CopyKind::HostToDevice, MemoryType::Pageable)),
            Blocking::No);
  EXPECT_EQ(runtime::blocking(call("cudaMemcpyAsync", CopyKind::DeviceToHost, MemoryType::Pinned)),
            Blocking::No);
  EXPECT_EQ(runtime::blocking(call("cudaMemcpyAsync", CopyKind::DeviceToHost)), Blocking::Unknown);
  EXPECT_EQ(runtime::blocking(call("cudaFree")), Blocking::Yes);
  CudaCall nullFree = call("cudaFree");
  nullFree.nullPointer = true;
  EXPECT_EQ(runtime::blocking(nullFree), Blocking::No);
  EXPECT_EQ(runtime::blocking(call("cudaFreeAsync")), Blocking::No);
  EXPECT_EQ(runtime::blocking(call("cudaHostUnregister")), Blocking::Yes);
  EXPECT_EQ(runtime::blocking(call("cudaMalloc")), Blocking::No);
}

// The recorder's capture_failure events (../../recorder/sync_recorder.cpp): which return values are stream
// capture errors, which of them only report an earlier failure, and which calls' values are never failures.
TEST(CoreCapture, CaptureErrorsByValue) {
  EXPECT_STREQ(runtime::captureErrorName(900), "cudaErrorStreamCaptureUnsupported");
  EXPECT_STREQ(runtime::captureErrorName(901), "cudaErrorStreamCaptureInvalidated");
  EXPECT_STREQ(runtime::captureErrorName(906), "cudaErrorStreamCaptureImplicit");
  EXPECT_STREQ(runtime::captureErrorName(907), "cudaErrorCapturedEvent");
  EXPECT_STREQ(runtime::captureErrorName(908), "cudaErrorStreamCaptureWrongThread");
  EXPECT_EQ(runtime::captureErrorName(0), nullptr);
  EXPECT_EQ(runtime::captureErrorName(899), nullptr);
  EXPECT_EQ(runtime::captureErrorName(909), nullptr); // cudaErrorTimeout
  EXPECT_TRUE(runtime::isCaptureConsequence(901));
  EXPECT_FALSE(runtime::isCaptureConsequence(900));
  EXPECT_FALSE(runtime::isCaptureConsequence(906));
}

TEST(CoreCapture, CallsAndTheirRoles) {
  for (const char *api :
       {"cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorName", "cudaGetErrorString"})
    EXPECT_TRUE(runtime::returnsNoFailure(api)) << api;
  for (const char *api : {"cudaStreamSynchronize", "cudaMalloc", "cudaLaunchKernel", "cudaStreamEndCapture"})
    EXPECT_FALSE(runtime::returnsNoFailure(api)) << api;
  for (const char *api : {"cudaStreamBeginCapture", "cudaStreamBeginCapture_ptsz",
                          "cudaStreamBeginCaptureToGraph", "cuStreamBeginCapture_v2"})
    EXPECT_TRUE(runtime::beginsCapture(api)) << api;
  EXPECT_FALSE(runtime::beginsCapture("cudaStreamEndCapture"));
  for (const char *api : {"cudaStreamEndCapture", "cudaStreamEndCapture_ptsz", "cuStreamEndCapture"})
    EXPECT_TRUE(runtime::endsCapture(api)) << api;
  EXPECT_FALSE(runtime::endsCapture("cudaStreamIsCapturing"));
}

TEST(CoreBlocking, WatchedApis) {
  for (const char *api : {"cudaDeviceSynchronize", "cudaStreamSynchronize_ptsz", "cudaEventSynchronize",
                          "cudaMemcpyAsync_ptsz", "cuMemcpyDtoH_v2", "cudaFree", "cudaFreeHost",
                          "cuMemFree_v2", "cudaHostUnregister", "cuCtxSynchronize"})
    EXPECT_TRUE(runtime::isWatchedApi(api)) << api;
  for (const char *api : {"cudaLaunchKernel", "cudaFreeAsync", "cuMemFreeAsync", "cudaMalloc",
                          "cudaStreamQuery", "cudaEventQuery", "cudaMemsetAsync"})
    EXPECT_FALSE(runtime::isWatchedApi(api)) << api;
  // The facts' table: cuMemFreeHost and cuMemHostUnregister wait as their runtime twins do.
  EXPECT_TRUE(runtime::isWatchedApi("cuMemFreeHost"));
  EXPECT_TRUE(runtime::isWatchedApi("cuMemHostUnregister"));
  EXPECT_FALSE(runtime::isWatchedApi("cudaStreamSynchronizeX")); // not a version or per-thread form
}

TEST(CoreBlocking, KindsOfWaitFromTheFacts) {
  EXPECT_TRUE(runtime::isSynchronize("cudaEventSynchronize"));
  EXPECT_TRUE(runtime::isEventSynchronize("cuEventSynchronize"));
  EXPECT_FALSE(runtime::isEventSynchronize("cudaStreamSynchronize"));
  EXPECT_TRUE(runtime::isDeviceWideSynchronize("cuCtxSynchronize"));
  EXPECT_TRUE(runtime::isDeviceWideSynchronize("cudaThreadSynchronize"));
  EXPECT_FALSE(runtime::isDeviceWideSynchronize("cudaStreamSynchronize_ptsz"));
  EXPECT_TRUE(runtime::isCopyApi("cudaMemcpy2DAsync"));
  EXPECT_FALSE(runtime::isCopyApi("cudaMemset"));
  // Measured by the host-wait test: the waiting calls and those measured not to wait.
  for (const char *api : {"cudaMalloc", "cudaMemset", "cudaHostAlloc", "cudaHostRegister", "cudaFree"})
    EXPECT_TRUE(runtime::isMeasuredApi(api)) << api;
  EXPECT_FALSE(runtime::isMeasuredApi("cudaLaunchKernel"));
}

runtime::Frame frame(const char *module, const char *function, const char *file = "") {
  runtime::Frame f;
  f.module = module;
  f.function = function;
  f.file = file;
  return f;
}

TEST(CoreFrames, ClassifiesByModuleFileAndName) {
  using runtime::FrameOrigin;
  EXPECT_EQ(
      runtime::classifyFrame(frame("/opt/venv/torch/lib/libtorch_cuda.so", "at::native::nonzero_out_cuda")),
      FrameOrigin::LibTorch);
  EXPECT_EQ(runtime::classifyFrame(frame("/usr/local/cuda/lib64/libcudart.so.13", "cudaStreamSynchronize")),
            FrameOrigin::Cuda);
  EXPECT_EQ(runtime::classifyFrame(frame("/lib/x86_64-linux-gnu/libc.so.6", "__libc_start_main")),
            FrameOrigin::System);
  // LibTorch's inline code compiled into the user's program is LibTorch's.
  EXPECT_EQ(runtime::classifyFrame(frame("/build/model_test", "at::Tensor::item<float>() const",
                                         "/opt/venv/torch/include/ATen/core/TensorBody.h")),
            FrameOrigin::LibTorch);
  EXPECT_EQ(runtime::classifyFrame(frame("/build/model_test", "std::function<void ()>::operator()() const",
                                         "/usr/include/c++/12/bits/std_function.h")),
            FrameOrigin::System);
  EXPECT_EQ(
      runtime::classifyFrame(frame("/build/lib/libtorch_sync_guard.so.0", "torch_sync::SyncScope::stop()")),
      FrameOrigin::TorchSync);
  EXPECT_EQ(runtime::classifyFrame(
                frame("/build/model_test", "ModelTest_Forward_Test::TestBody()", "/src/test/model_test.cpp")),
            FrameOrigin::User);
  EXPECT_EQ(runtime::classifyFrame(frame("/build/libmy_extension.so", "myext::forward(at::Tensor)")),
            FrameOrigin::User);
}

TEST(CoreFrames, FindsTheUserFrameTheOperatorAndTheEntry) {
  std::vector<runtime::Frame> stack{
      frame("/usr/local/cuda/lib64/libcudart.so.13", "cudaStreamSynchronize"),
      frame("/torch/lib/libtorch_cuda.so", "at::native::_local_scalar_dense_cuda(at::Tensor const&)"),
      frame("/torch/lib/libtorch_cpu.so", "at::_ops::_local_scalar_dense::call(at::Tensor const&)"),
      frame("/torch/lib/libtorch_cpu.so", "at::_ops::item::call(at::Tensor const&)"),
      frame("/build/t", "float at::Tensor::item<float>() const", "/torch/include/ATen/core/TensorBody.h"),
      frame("/build/t", "T_Item_Test::TestBody()", "/src/t.cpp"),
      frame("/lib/libc.so.6", "__libc_start_main")};
  stack[5].line = 12;
  int user = runtime::firstUserFrame(stack);
  EXPECT_EQ(user, 5);
  EXPECT_EQ(runtime::outermostAtenOperator(stack), "aten::item");
  EXPECT_EQ(runtime::libTorchEntry(stack, user), "float at::Tensor::item<float>() const");
  EXPECT_EQ(runtime::describeLocation(stack[5], "/src"), "t.cpp:12");
  EXPECT_EQ(runtime::describeLocation(stack[0]), "libcudart.so.13 (cudaStreamSynchronize)");
}

TEST(CoreFrames, ReadableFunctionUnwrapsStdFunction) {
  EXPECT_EQ(runtime::readableFunction(
                "std::_Function_handler<void (), (anonymous namespace)::T_Item_Test::TestBody()::"
                "{lambda()#1}>::_M_invoke(std::_Any_data const&)"),
            "(anonymous namespace)::T_Item_Test::TestBody()::{lambda()#1}");
  EXPECT_EQ(runtime::readableFunction("T_Item_Test::TestBody()"), "T_Item_Test::TestBody()");
}

TEST(CoreFrames, SymbolizesThisProgram) {
  // addr2line on this test's own frames: the innermost user frame is in this file.
  runtime::StackTrace stack = runtime::captureStack();
  auto frames = runtime::symbolize({stack});
  ASSERT_EQ(frames.size(), 1u);
  int user = runtime::firstUserFrame(frames[0]);
  ASSERT_GE(user, 0);
  EXPECT_NE(frames[0][static_cast<size_t>(user)].function.find("SymbolizesThisProgram"), std::string::npos)
      << frames[0][static_cast<size_t>(user)].function;
}

} // namespace
