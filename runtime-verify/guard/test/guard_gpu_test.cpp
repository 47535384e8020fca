// The guard on a GPU: it catches each kind of sync the checker knows, passes each sync-free twin, counts only
// the guarded thread, honours allowances and warm-up, names the user's line, and falls back to the sync debug
// mode when CUPTI is held. Needs a CUDA device and a CUDA build of LibTorch; without a device every test
// skips with the reason. Run by runtime-verify/guard/run-gpu.sh, whose results are committed
// (runtime-verify/guard/results/).
//
// Each case prints the guard's description of what it saw ("guard-saw: ..."), so the log shows the real
// messages.
#include "torch_sync/gtest.h"

#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <torch/torch.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

namespace {

using torch_sync::DeviceSync;

// Runs fn warmups times, then once guarded; prints and returns the syncs seen.
std::vector<DeviceSync> guarded(const std::function<void()> &fn, const char *what, int warmups = 1) {
  for (int i = 0; i < warmups; ++i)
    fn();
  torch_sync::SyncScope scope;
  fn();
  std::vector<DeviceSync> syncs = scope.stop();
  std::cout << "guard-saw: " << what << ": " << torch_sync::unallowed(syncs).size() << " sync(s)\n"
            << torch_sync::formatSyncs(syncs);
  return syncs;
}

std::string here(int line) { return std::string("guard_gpu_test.cpp:") + std::to_string(line); }

class GuardOnGpu : public ::testing::Test {
protected:
  void SetUp() override {
    if (!torch::cuda::is_available())
      GTEST_SKIP() << "no CUDA device";
    torch::manual_seed(0);
    x = torch::randn({1 << 16}, torch::kCUDA);
  }
  torch::Tensor x;
};

// ---- Each kind of sync, and its sync-free twin ------------------------------------------------------------

TEST_F(GuardOnGpu, ItemIsOneSyncAtTheUsersLine) {
  // clang-format off: the sync's line is the line of __LINE__.
  int line = __LINE__; auto syncs = guarded([&] { (void)x.sum().item<float>(); }, "item");
  // clang-format on
  ASSERT_EQ(syncs.size(), 1u);
  EXPECT_EQ(syncs[0].api.rfind("cudaStreamSynchronize", 0), 0u) << syncs[0].api;
  EXPECT_EQ(syncs[0].copyKind, "DtoH");
  EXPECT_EQ(syncs[0].bytes, 4u);
  EXPECT_EQ(syncs[0].atenOperator, "aten::item");
  EXPECT_NE(syncs[0].location.find(here(line)), std::string::npos) << syncs[0].location;
  EXPECT_DEVICE_SYNCS((void)x.sum().item<float>(), 1);
}

TEST_F(GuardOnGpu, ReductionWithoutReadIsSyncFree) { EXPECT_NO_DEVICE_SYNC((void)x.sum()); }

TEST_F(GuardOnGpu, PrintingACudaTensorSyncs) {
  std::ostringstream out;
  auto syncs = guarded([&] { out << x.slice(0, 0, 4); }, "print");
  EXPECT_GE(torch_sync::unallowed(syncs).size(), 1u);
}

TEST_F(GuardOnGpu, PrintingTheShapeIsSyncFree) {
  std::ostringstream out;
  EXPECT_NO_DEVICE_SYNC(out << x.sizes());
}

TEST_F(GuardOnGpu, CpuCopyIsOneSync) {
  auto syncs = guarded([&] { (void)x.cpu(); }, "cpu");
  ASSERT_EQ(syncs.size(), 1u);
  EXPECT_EQ(syncs[0].copyKind, "DtoH");
  EXPECT_EQ(syncs[0].bytes, 4u << 16);
  EXPECT_DEVICE_SYNCS((void)x.cpu(), 1);
}

TEST_F(GuardOnGpu, NonBlockingCopyIntoPinnedMemoryIsSyncFree) {
  torch::Tensor pinned = torch::empty(x.sizes(), torch::TensorOptions().pinned_memory(true));
  EXPECT_NO_DEVICE_SYNC(pinned.copy_(x, /*non_blocking=*/true));
}

TEST_F(GuardOnGpu, BlockingUploadFromPageableMemorySyncs) {
  torch::Tensor host = torch::randn({1 << 16});
  auto syncs = guarded([&] { (void)host.to(torch::kCUDA); }, "blocking H2D");
  ASSERT_EQ(syncs.size(), 1u);
  EXPECT_EQ(syncs[0].copyKind, "HtoD");
  EXPECT_DEVICE_SYNCS((void)host.to(torch::kCUDA), 1);
}

TEST_F(GuardOnGpu, NonBlockingUploadFromPinnedMemoryIsSyncFree) {
  torch::Tensor pinned = torch::randn({1 << 16}).pin_memory();
  EXPECT_NO_DEVICE_SYNC((void)pinned.to(torch::kCUDA, /*non_blocking=*/true));
}

TEST_F(GuardOnGpu, BooleanMaskIndexSyncs) {
  auto syncs = guarded([&] { (void)x.index({x > 0}); }, "mask index");
  EXPECT_GE(torch_sync::unallowed(syncs).size(), 1u);
}

TEST_F(GuardOnGpu, MaskedWhereIsSyncFree) { EXPECT_NO_DEVICE_SYNC((void)torch::where(x > 0, x, 0.0)); }

TEST_F(GuardOnGpu, NonzeroIsOneSync) {
  auto syncs = guarded([&] { (void)torch::nonzero(x); }, "nonzero");
  ASSERT_EQ(syncs.size(), 1u);
  EXPECT_EQ(syncs[0].atenOperator, "aten::nonzero");
}

TEST_F(GuardOnGpu, NonzeroStaticIsSyncFree) { EXPECT_NO_DEVICE_SYNC((void)at::nonzero_static(x, 16)); }

TEST_F(GuardOnGpu, UniqueDimSyncs) {
  torch::Tensor rows =
      torch::randint(0, 3, {64, 2}, torch::TensorOptions().device(torch::kCUDA).dtype(torch::kLong));
  auto syncs = guarded([&] { (void)torch::unique_dim(rows, 0); }, "unique_dim");
  EXPECT_GE(torch_sync::unallowed(syncs).size(), 1u);
}

TEST_F(GuardOnGpu, SortIsSyncFree) { EXPECT_NO_DEVICE_SYNC((void)torch::sort(x)); }

TEST_F(GuardOnGpu, DeviceSynchronizeIsOneSync) {
  auto syncs = guarded([] { torch::cuda::synchronize(); }, "device synchronize");
  ASSERT_EQ(syncs.size(), 1u);
  EXPECT_EQ(syncs[0].api.rfind("cudaDeviceSynchronize", 0), 0u) << syncs[0].api;
}

TEST_F(GuardOnGpu, StreamSynchronizeIsOneSync) {
  EXPECT_DEVICE_SYNCS(c10::cuda::getCurrentCUDAStream().synchronize(), 1);
}

TEST_F(GuardOnGpu, StreamQueryIsSyncFree) {
  EXPECT_NO_DEVICE_SYNC((void)c10::cuda::getCurrentCUDAStream().query());
}

TEST_F(GuardOnGpu, EventSynchronizeIsOneSync) {
  at::cuda::CUDAEvent event;
  event.record();
  auto syncs = guarded([&] { event.synchronize(); }, "event synchronize");
  ASSERT_EQ(syncs.size(), 1u);
  EXPECT_EQ(syncs[0].api.rfind("cudaEventSynchronize", 0), 0u) << syncs[0].api;
}

TEST_F(GuardOnGpu, EventQueryIsSyncFree) {
  at::cuda::CUDAEvent event;
  event.record();
  EXPECT_NO_DEVICE_SYNC((void)event.query());
}

TEST_F(GuardOnGpu, CudaFreeIsOneSync) {
  void *memory = nullptr;
  ASSERT_EQ(cudaMalloc(&memory, 1 << 20), cudaSuccess);
  // No warm-up: a second cudaFree of the same pointer would be an error.
  torch_sync::testing::SyncExpectation freed([&] { cudaFree(memory); }, 1, "cudaFree(memory)", /*warmups=*/0);
  EXPECT_TRUE(freed.passed()) << freed.message();
}

TEST_F(GuardOnGpu, StreamOrderedFreeIsSyncFree) {
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
  torch_sync::testing::SyncExpectation freed(
      [&] {
        void *memory = nullptr;
        cudaMallocAsync(&memory, 1 << 20, stream);
        cudaFreeAsync(memory, stream);
      },
      0, "cudaMallocAsync + cudaFreeAsync");
  EXPECT_TRUE(freed.passed()) << freed.message();
}

TEST_F(GuardOnGpu, CudaMemcpyToTheHostIsOneSyncWithItsBytes) {
  std::vector<float> host(1024);
  // clang-format off: the sync's line is the line of __LINE__.
  int line = __LINE__; auto syncs = guarded([&] { cudaMemcpy(host.data(), x.data_ptr(), 4096, cudaMemcpyDeviceToHost); }, "cudaMemcpy");
  // clang-format on
  ASSERT_EQ(syncs.size(), 1u);
  EXPECT_EQ(syncs[0].api, "cudaMemcpy");
  EXPECT_EQ(syncs[0].bytes, 4096u);
  EXPECT_EQ(syncs[0].hostMemory, "pageable");
  EXPECT_EQ(syncs[0].atenOperator, "");
  EXPECT_NE(syncs[0].location.find(here(line)), std::string::npos) << syncs[0].location;
}

TEST_F(GuardOnGpu, DeviceToDeviceMemcpyAsyncIsSyncFree) {
  torch::Tensor y = torch::empty_like(x);
  cudaStream_t stream = c10::cuda::getCurrentCUDAStream().stream();
  EXPECT_NO_DEVICE_SYNC(cudaMemcpyAsync(y.data_ptr(), x.data_ptr(), 4096, cudaMemcpyDeviceToDevice, stream));
}

// ---- Threads ----------------------------------------------------------------------------------------------

TEST_F(GuardOnGpu, AnotherThreadsSyncsAreNotCounted) {
  torch::Tensor y = x.clone();
  EXPECT_NO_DEVICE_SYNC({
    std::thread other([&] { (void)y.sum().item<float>(); });
    other.join();
  });
}

TEST_F(GuardOnGpu, TheGuardedThreadIsCountedWhileAnotherSyncs) {
  torch::Tensor y = x.clone();
  std::atomic<bool> stop{false};
  std::atomic<int> otherSyncs{0};
  std::thread other([&] {
    while (!stop) {
      (void)y.sum().item<float>();
      ++otherSyncs;
    }
  });
  while (otherSyncs < 3) // the other thread is syncing while the guarded run goes on
    std::this_thread::yield();
  auto syncs = guarded([&] { (void)x.sum().item<float>(); }, "item while another thread syncs", 0);
  stop = true;
  other.join();
  EXPECT_EQ(syncs.size(), 1u);
  std::cout << "guard-saw: the other thread synced " << otherSyncs << " times meanwhile\n";
}

TEST_F(GuardOnGpu, OtherThreadsRunUnaffectedWhileAScopeIsOpen) {
  // The other thread opens its own scope while the main thread's is open: each sees its own syncs only.
  torch::Tensor y = x.clone();
  std::vector<DeviceSync> otherSaw;
  torch_sync::SyncScope mine;
  std::thread other([&] {
    torch_sync::SyncScope theirs;
    (void)y.sum().item<float>();
    (void)y.sum().item<float>();
    otherSaw = theirs.stop();
  });
  other.join();
  (void)x.sum().item<float>();
  EXPECT_EQ(mine.stop().size(), 1u);
  EXPECT_EQ(otherSaw.size(), 2u);
}

// ---- Allowances -------------------------------------------------------------------------------------------

TEST_F(GuardOnGpu, AnAllowedSyncIsListedNotCounted) {
  auto syncs = guarded(
      [&] {
        torch_sync::AllowDeviceSyncs allow("loss logged once per epoch");
        (void)x.sum().item<float>();
      },
      "allowed item");
  ASSERT_EQ(syncs.size(), 1u);
  EXPECT_EQ(syncs[0].allowedBecause, "loss logged once per epoch");
  EXPECT_NO_DEVICE_SYNC({
    torch_sync::AllowDeviceSyncs allow("loss logged once per epoch");
    (void)x.sum().item<float>();
  });
}

TEST_F(GuardOnGpu, AnAllowanceEndsWithItsScope) {
  EXPECT_DEVICE_SYNCS(
      {
        {
          torch_sync::AllowDeviceSyncs allow("first read intended");
          (void)x.sum().item<float>();
        }
        (void)x.sum().item<float>();
      },
      1);
}

TEST_F(GuardOnGpu, AScopeOpenedInsideAnAllowanceIsStrict) {
  torch_sync::SyncScope outer;
  torch_sync::AllowDeviceSyncs allow("the outer code may sync");
  EXPECT_DEVICE_SYNCS((void)x.sum().item<float>(), 1);
  EXPECT_TRUE(torch_sync::unallowed(outer.stop()).empty());
}

TEST_F(GuardOnGpu, AnAllowanceNeedsAReason) {
  torch_sync::SyncScope scope;
  EXPECT_THROW(torch_sync::AllowDeviceSyncs(""), std::invalid_argument);
}

// ---- Warm-up ----------------------------------------------------------------------------------------------

TEST_F(GuardOnGpu, WarmUpRunsExcludeFirstCallSetUp) {
  // A statement that syncs on its first run only, as first-call set-up does.
  auto firstCallOnly = [] {
    static bool initialized = false;
    if (!initialized) {
      cudaDeviceSynchronize();
      initialized = true;
    }
  };
  torch_sync::testing::SyncExpectation cold(firstCallOnly, 0, "first call", /*warmups=*/0);
  EXPECT_FALSE(cold.passed()) << "the first run's sync was not seen";
  torch_sync::testing::SyncExpectation warm(firstCallOnly, 0, "second call", /*warmups=*/1);
  EXPECT_TRUE(warm.passed()) << warm.message();
}

// First calls of library-backed operators on a fresh thread (which gets its own cuBLAS, cuSOLVER and cuDNN
// handles): report what the cold run syncs, and check that the warmed-up run does not.
TEST_F(GuardOnGpu, FirstCallSetUpOnAFreshThreadIsWhatWarmUpExcludes) {
  torch::Tensor a = torch::randn({256, 256}, torch::kCUDA);
  torch::Tensor image = torch::randn({1, 3, 32, 32}, torch::kCUDA);
  torch::Tensor filter = torch::randn({8, 3, 3, 3}, torch::kCUDA);
  struct Case {
    const char *name;
    std::function<void()> run;
  };
  std::vector<Case> cases{
      {"matrix product (cuBLAS)", [&] { (void)torch::mm(a, a); }},
      {"pinned host allocation",
       [] { (void)torch::empty({1 << 20}, torch::TensorOptions().pinned_memory(true)); }},
      {"convolution (cuDNN)", [&] { (void)torch::conv2d(image, filter); }},
      {"FFT (cuFFT plan)", [&] { (void)torch::fft::fft(a); }},
      // linalg_cholesky_ex: linalg_cholesky itself reads its error code on the host at every call.
      {"Cholesky (cuSOLVER)",
       [&] { (void)torch::linalg_cholesky_ex(torch::mm(a, a.t()) + 256 * torch::eye(256, a.options())); }},
  };
  std::thread fresh([&] {
    for (const Case &c : cases) {
      std::vector<DeviceSync> cold = guarded(c.run, (std::string("cold: ") + c.name).c_str(), 0);
      std::vector<DeviceSync> warm = guarded(c.run, (std::string("warm: ") + c.name).c_str(), 0);
      std::cout << "guard-saw: first call of " << c.name << " on a fresh thread: " << cold.size()
                << " sync(s); the next call: " << warm.size() << "\n";
      EXPECT_TRUE(torch_sync::unallowed(warm).empty()) << c.name << ":\n" << torch_sync::formatSyncs(warm);
    }
  });
  fresh.join();
}

// ---- The GoogleTest assertions report failures ------------------------------------------------------------

torch::Tensor globalTensor; // EXPECT_NONFATAL_FAILURE's statement cannot use locals

TEST_F(GuardOnGpu, ExpectNoDeviceSyncFailsWithTheLineAndTheOperator) {
  globalTensor = x;
  EXPECT_NONFATAL_FAILURE(EXPECT_NO_DEVICE_SYNC((void)globalTensor.sum().item<float>()),
                          "in aten::item, at ");
  EXPECT_NONFATAL_FAILURE(EXPECT_NO_DEVICE_SYNC((void)globalTensor.sum().item<float>()),
                          "guard_gpu_test.cpp:");
  EXPECT_NONFATAL_FAILURE(EXPECT_DEVICE_SYNCS((void)globalTensor.sum(), 1), "Actual: 0 device syncs");
  globalTensor = torch::Tensor();
}

TEST_F(GuardOnGpu, AssertNoDeviceSyncIsFatal) {
  globalTensor = x;
  EXPECT_FATAL_FAILURE(ASSERT_NO_DEVICE_SYNC((void)globalTensor.cpu()), "1 device sync");
  globalTensor = torch::Tensor();
}

TEST_F(GuardOnGpu, ScopedNoDeviceSyncReportsAtItsLine) {
  globalTensor = x;
  (void)globalTensor.cpu(); // warm-up
  EXPECT_NONFATAL_FAILURE(
      {
        torch_sync::testing::ScopedNoDeviceSync guard;
        (void)globalTensor.cpu();
      },
      "cudaStreamSynchronize");
  globalTensor = torch::Tensor();
}

// ---- CUPTI held by another tool ---------------------------------------------------------------------------

void CUPTIAPI otherTool(void *, CUpti_CallbackDomain, CUpti_CallbackId, const void *) {}

TEST_F(GuardOnGpu, WhenCuptiIsHeldItFallsBackToTheSyncDebugModeAndSaysSo) {
  CUpti_SubscriberHandle other = nullptr;
  ASSERT_EQ(cuptiSubscribe(&other, reinterpret_cast<CUpti_CallbackFunc>(otherTool), nullptr), CUPTI_SUCCESS);
  torch_sync::GuardStatus status = torch_sync::guardStatus();
  std::cout << "guard-saw: status with CUPTI held: " << status.backend << ": " << status.reason << "\n";
  EXPECT_EQ(status.backend, "sync debug mode");
  EXPECT_NE(status.reason.find("CUPTI is held by another subscriber"), std::string::npos) << status.reason;
  auto item = guarded([&] { (void)x.sum().item<float>(); }, "item, sync debug mode fallback");
  EXPECT_EQ(item.size(), 1u);
  if (!item.empty()) {
    EXPECT_EQ(item[0].api.rfind("sync debug mode: ", 0), 0u) << item[0].api;
  }
  // What the fallback cannot see (docs/guard.md): a CUDA call that does not go through c10's wrappers.
  auto device = guarded([] { cudaDeviceSynchronize(); }, "cudaDeviceSynchronize, sync debug mode fallback");
  EXPECT_TRUE(device.empty()) << "the sync debug mode saw a raw cudaDeviceSynchronize: update docs/guard.md";
  (void)guarded([] { torch::cuda::synchronize(); }, "torch::cuda::synchronize, sync debug mode fallback");
  cuptiUnsubscribe(other);
  EXPECT_EQ(torch_sync::guardStatus().backend, "CUPTI");
}

} // namespace
