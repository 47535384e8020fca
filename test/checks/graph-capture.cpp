// REQUIRES: cuda-headers
// SMOKE: torch-sync-graph-capture's CFG analysis on this release's AST (capture regions, RAII scopes, destructors)
// OLDER-LIBTORCH: at::cuda::CUDAGraph of both releases (the LIBTORCH2 lines: 1.13's capture_begin has no mode), the CPU build's CUDA stand-in
// RUN: %check_torch_sync --checks=-*,torch-sync-graph-capture --temp %t \
// RUN:   --check-suffix=,%if libtorch-1.x %{LIBTORCH1%} %else %{LIBTORCH2%} %s -- \
// RUN:   %libtorch_flags %cuda_flags %libtorch_cuda_flags
// LoopsOnly does not apply: a capture fails outside loops too.
// RUN: %torch_sync_tidy --checks=-*,torch-sync-graph-capture --config="{CheckOptions: {LoopsOnly: true}}" %s -- \
// RUN:   %libtorch_flags %cuda_flags %libtorch_cuda_flags 2>&1 | %FileCheck --check-prefix=LOOPS %s
// Invalid code: a compiler error, no crash.
// RUN: %not %torch_sync_tidy --checks=-*,torch-sync-graph-capture %s -- -DBROKEN \
// RUN:   %libtorch_flags %cuda_flags %libtorch_cuda_flags 2>&1 | %FileCheck --check-prefix=BROKEN %s
// BROKEN: error: unknown type name 'MissingType'
// BROKEN: error: unknown type name 'MissingType'
// BROKEN-NOT: Stack dump

#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <ATen/TensorIndexing.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/nonzero.h>
#include <ATen/ops/zeros.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <torch/version.h>
#if TORCH_VERSION_MAJOR >= 2
#include <c10/cuda/CUDAGraphsC10Utils.h>
#endif

using at::cuda::CUDAGraph;

// Direct syncs between capture_begin and capture_end, and their twins: the
// same calls before the capture begins and after it ends.
void positiveDirectSyncs(CUDAGraph &graph, const at::Tensor &t,
                         const at::Tensor &mask) {
  float before = t.item<float>();
  graph.capture_begin();
  float v = t.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'item' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-2]], which fails at run time (operation not permitted when stream is capturing) [torch-sync-graph-capture]
  // CHECK-MESSAGES: :[[@LINE-2]]:15: note: consider keeping the value on the device, or moving the call before the capture begins or after it ends
  // CHECK-MESSAGES: :[[@LINE-4]]:9: note: the capture begins here
  // LOOPS: graph-capture.cpp:[[@LINE-4]]:15: warning: 'item' synchronizes with the device inside the CUDA graph capture
  at::Tensor idx = at::nonzero(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'at::nonzero' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-7]]
  at::Tensor picked = t.index({mask.gt(0)});
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'index' synchronizes with the device inside the CUDA graph capture
  at::Tensor host = t.cpu();
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'cpu' synchronizes with the device inside the CUDA graph capture
  at::Tensor doubled = t.mul(2);
  graph.capture_end();
  float after = t.item<float>();
}

// A tensor provably on the CPU: its item() does not touch the GPU.
void negativeHostTensor(CUDAGraph &graph) {
  at::Tensor host = at::zeros({1});
  graph.capture_begin();
  float v = host.item<float>();
  graph.capture_end();
}

// The project's helpers: one that syncs, reported where it is called inside
// the capture with a note at its sync; one that does not.
float readLoss(const at::Tensor &loss) { return loss.item<float>(); }
at::Tensor scale(const at::Tensor &t) { return t.mul(2); }

void positiveHelper(CUDAGraph &graph, const at::Tensor &t) {
  graph.capture_begin();
  float loss = readLoss(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'readLoss' calls 'item' in its body, which synchronizes inside the CUDA graph capture begun at line [[@LINE-2]]; the capture fails at run time (operation not permitted when stream is capturing) [torch-sync-graph-capture]
  // CHECK-MESSAGES: :[[@LINE-7]]:54: note: 'item' synchronizes here
  at::Tensor scaled = scale(t);
  graph.capture_end();
  float outside = readLoss(t);
}

// A function that is never called from a capture region.
float negativeNoCapture(const at::Tensor &t) { return t.item<float>(); }

// A capture the code may or may not have begun: reported.
void positiveBranch(CUDAGraph &graph, const at::Tensor &t, bool capture) {
  if (capture)
    graph.capture_begin();
  float v = t.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'item' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-2]]
  if (capture)
    graph.capture_end();
}

// One capture per iteration: the read after capture_end is outside.
void negativeLoop(CUDAGraph &graph, const at::Tensor &t, int n) {
  for (int i = 0; i < n; ++i) {
    graph.capture_begin();
    at::Tensor y = t.mul(2);
    graph.capture_end();
    float v = t.item<float>();
  }
}

// Another graph's end does not end this one's capture.
void positiveOtherGraph(CUDAGraph &graph, CUDAGraph &other,
                        const at::Tensor &t) {
  graph.capture_begin();
  other.capture_end();
  float v = t.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'item' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-3]]
  graph.capture_end();
}

// An end without a begin in the function: what runs before it is not known
// to be captured, and is not reported.
void negativeEndOnly(CUDAGraph &graph, const at::Tensor &t) {
  float v = t.item<float>();
  graph.capture_end();
}

// A begin without an end in the function: the capture stays open to the end.
void positiveBeginOnly(CUDAGraph &graph, const at::Tensor &t) {
  graph.capture_begin();
  float v = t.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'item' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-2]]
}

// A capture scope in RAII: the constructor begins, the destructor ends.
class CaptureScope {
public:
  explicit CaptureScope(CUDAGraph &graph) : graph_(graph) {
    graph_.capture_begin();
  }
  ~CaptureScope() { graph_.capture_end(); }

private:
  CUDAGraph &graph_;
};

void positiveScope(CUDAGraph &graph, const at::Tensor &t) {
  float before = t.item<float>();
  {
    CaptureScope scope(graph);
    float v = t.item<float>();
    // CHECK-MESSAGES: :[[@LINE-1]]:17: warning: 'item' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-2]]
    // CHECK-MESSAGES: :[[@LINE-3]]:18: note: the capture begins here
  }
  float after = t.item<float>();
}

// A recorder whose member functions begin and end the capture of its graph.
class Recorder {
public:
  void beginCapture() { graph_.capture_begin(); }
  void endCapture() { graph_.capture_end(); }

private:
  CUDAGraph graph_;
};

void positiveRecorder(Recorder &recorder, const at::Tensor &t) {
  recorder.beginCapture();
  float v = t.item<float>();
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'item' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-2]]
  recorder.endCapture();
  float after = t.item<float>();
}

// Free functions given the graph.
void beginOn(CUDAGraph &graph) { graph.capture_begin(); }
void endOn(CUDAGraph &graph) { graph.capture_end(); }

void positiveFreeHelpers(CUDAGraph &graph, const at::Tensor &t) {
  beginOn(graph);
  at::Tensor idx = at::nonzero(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'at::nonzero' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-2]]
  endOn(graph);
  at::Tensor after = at::nonzero(t);
}

// The runtime API: the capture of a stream, ended on the same stream.
void positiveRuntime(cudaStream_t stream, cudaStream_t other, void *dst,
                     cudaEvent_t event) {
  cudaGraph_t graph;
  void *buffer = nullptr;
  cudaMalloc(&buffer, 256);
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  cudaMalloc(&buffer, 256);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMalloc' inside the CUDA graph capture begun at line [[@LINE-2]] allocates device memory, which a stream capture refuses outside relaxed mode; the capture fails at run time [torch-sync-graph-capture]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider allocating before the capture begins, or 'cudaMallocAsync' on the capturing stream
  cudaMallocAsync(&buffer, 256, stream);
  cudaMemset(dst, 0, 256);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMemset' inside the CUDA graph capture begun at line [[@LINE-6]] queues the fill on the legacy default stream
  cudaMemsetAsync(dst, 0, 256, stream);
  cudaStreamQuery(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaStreamQuery' inside the CUDA graph capture begun at line [[@LINE-9]] queries a stream
  cudaEventQuery(event);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaEventQuery' inside the CUDA graph capture begun at line [[@LINE-11]] queries an event
  cudaStreamSynchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaStreamSynchronize' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-13]]
  // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider removing the wait from the captured code, or moving it before the capture begins or after it ends
  cudaStreamEndCapture(other, &graph);
  cudaDeviceSynchronize();
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaDeviceSynchronize' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-17]]
  cudaStreamEndCapture(stream, &graph);
  cudaStreamSynchronize(stream);
  cudaMemset(dst, 0, 256);
}

// Helpers that make a call a capture refuses: reported where they are
// called in the capture. A lazy allocation under a flag is left out: a
// warm-up before the capture has made it.
void *allocScratch(size_t bytes) {
  void *p = nullptr;
  cudaMalloc(&p, bytes);
  return p;
}
void *allocTwice(size_t bytes) { return allocScratch(bytes); }
void *workspace = nullptr;
void ensureWorkspace() {
  if (!workspace)
    cudaMalloc(&workspace, 1 << 20);
}

void positiveRefusedInHelper(cudaStream_t stream) {
  cudaGraph_t graph;
  void *before = allocScratch(256);
  ensureWorkspace();
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  void *scratch = allocScratch(256);
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'allocScratch' calls 'cudaMalloc' in its body, which a capture refuses, inside the CUDA graph capture begun at line [[@LINE-2]]; the capture fails at run time [torch-sync-graph-capture]
  // CHECK-MESSAGES: :[[@LINE-2]]:19: note: consider allocating before the capture begins, or 'cudaMallocAsync' on the capturing stream
  void *deeper = allocTwice(256);
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'allocTwice' calls 'cudaMalloc' in its body, 2 calls deep, which a capture refuses, inside the CUDA graph capture begun at line [[@LINE-5]]
  ensureWorkspace();
  cudaStreamEndCapture(stream, &graph);
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed);
  void *relaxed = allocScratch(256);
  cudaStreamEndCapture(stream, &graph);
}

// Relaxed mode permits allocations and event queries, not a stream query.
void positiveRelaxed(cudaStream_t stream, cudaEvent_t event) {
  cudaGraph_t graph;
  void *buffer = nullptr;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed);
  cudaMalloc(&buffer, 256);
  cudaEventQuery(event);
  cudaStreamQuery(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaStreamQuery' inside the CUDA graph capture begun at line [[@LINE-4]]
  cudaStreamEndCapture(stream, &graph);
}

// A capture into an existing graph (cudaStreamBeginCaptureToGraph, CUDA 12.3 and
// later): the same capture of the stream, its mode the last argument.
void positiveCaptureToGraph(cudaStream_t stream, cudaGraph_t into) {
  cudaGraph_t graph;
  void *buffer = nullptr;
  cudaStreamBeginCaptureToGraph(stream, into, nullptr, nullptr, 0,
                                cudaStreamCaptureModeGlobal);
  cudaMalloc(&buffer, 256);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaMalloc' inside the CUDA graph capture begun at line [[@LINE-3]] allocates device memory
  cudaStreamEndCapture(stream, &graph);
  cudaMalloc(&buffer, 256);
  cudaStreamBeginCaptureToGraph(stream, into, nullptr, nullptr, 0,
                                cudaStreamCaptureModeRelaxed);
  cudaMalloc(&buffer, 256);
  cudaStreamEndCapture(stream, &graph);
}

// A guard by the capture status: a branch where the status says no capture
// is under way (cudaStreamIsCapturing's, the driver's) runs outside it.
void negativeGuardedByStatus(cudaStream_t stream, CUstream driverStream) {
  cudaGraph_t graph;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  cudaStreamCaptureStatus status;
  cudaStreamIsCapturing(stream, &status);
  if (status == cudaStreamCaptureStatusNone)
    cudaStreamSynchronize(stream);
  if (status != cudaStreamCaptureStatusActive)
    cudaStreamSynchronize(stream);
  if (cudaStreamCaptureStatusActive == status) {
    cudaStreamQuery(stream);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'cudaStreamQuery' inside the CUDA graph capture begun at line [[@LINE-9]]
  } else {
    cudaStreamSynchronize(stream);
  }
  if (!(status != cudaStreamCaptureStatusNone))
    cudaStreamSynchronize(stream);
  CUstreamCaptureStatus driverStatus;
  cuStreamIsCapturing(driverStream, &driverStatus);
  if (driverStatus == CU_STREAM_CAPTURE_STATUS_NONE)
    cudaStreamSynchronize(stream);
  // After the guards the capture may be open again.
  cudaStreamSynchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cudaStreamSynchronize' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-21]]
  cudaStreamEndCapture(stream, &graph);
}

// Status tests in chains, conditional expressions and loops: the branch that
// the status test alone leads to is outside the capture; one that another
// operand also leads to is not.
void guardedByStatusInChains(cudaStream_t stream, bool flag, float *host,
                             const float *device) {
  cudaGraph_t graph;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  cudaStreamCaptureStatus status;
  if (cudaStreamIsCapturing(stream, &status) == cudaSuccess &&
      status == cudaStreamCaptureStatusNone)
    cudaStreamSynchronize(stream);
  if (flag || status == cudaStreamCaptureStatusNone)
    cudaStreamSynchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-7]]
  cudaError_t waited = status == cudaStreamCaptureStatusNone
                           ? cudaStreamSynchronize(stream)
                           : cudaSuccess;
  while (status != cudaStreamCaptureStatusActive) {
    cudaMemcpy(host, device, 4, cudaMemcpyDeviceToHost);
    cudaStreamIsCapturing(stream, &status);
  }
  switch (status == cudaStreamCaptureStatusNone) {
  case 1:
    cudaStreamSynchronize(stream);
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-18]]
    break;
  default:
    break;
  }
  cudaStreamEndCapture(stream, &graph);
}

// A status test held in a bool variable, or returned by the project's own
// function: the branch where it says no capture is under way is outside the
// capture. A variable written after its initialisation, or taken before a
// capture began, a function with another return, and a virtual function
// (an override may answer otherwise) decide nothing.
bool isCapturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status;
  cudaStreamIsCapturing(stream, &status);
  return status == cudaStreamCaptureStatusActive;
}
bool isCapturingOrFailed(cudaStream_t stream) {
  cudaStreamCaptureStatus status;
  if (cudaStreamIsCapturing(stream, &status) != cudaSuccess)
    return true;
  return status == cudaStreamCaptureStatusActive;
}
struct CaptureProbe {
  cudaStream_t stream;
  bool idle() const { return !isCapturing(stream); }
};
struct VirtualCaptureProbe {
  explicit VirtualCaptureProbe(cudaStream_t stream) : stream(stream) {}
  virtual ~VirtualCaptureProbe() = default;
  virtual bool idle() const { return !isCapturing(stream); }
  cudaStream_t stream;
};
void guardedByStatusWrappers(cudaStream_t stream, bool flag) {
  cudaGraph_t graph;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  cudaStreamCaptureStatus status;
  cudaStreamIsCapturing(stream, &status);
  const bool capturing = status != cudaStreamCaptureStatusNone;
  if (!capturing)
    cudaStreamSynchronize(stream);
  if (!isCapturing(stream))
    cudaStreamSynchronize(stream);
  if (CaptureProbe{stream}.idle())
    cudaStreamSynchronize(stream);
  bool uncaptured = status == cudaStreamCaptureStatusNone;
  uncaptured = uncaptured || flag;
  if (uncaptured)
    cudaStreamSynchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-14]]
  if (!isCapturingOrFailed(stream))
    cudaStreamSynchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-17]]
  if (VirtualCaptureProbe(stream).idle())
    cudaStreamSynchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-20]]
  bool idle = status == cudaStreamCaptureStatusNone;
  auto reset = [&] { idle = true; };
  reset();
  if (idle)
    cudaStreamSynchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-26]]
  cudaStreamEndCapture(stream, &graph);
}
void statusTakenBeforeTheCapture(cudaStream_t stream) {
  cudaGraph_t graph;
  const bool idle = !isCapturing(stream);
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  if (idle)
    cudaStreamSynchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-3]]
  cudaStreamEndCapture(stream, &graph);
  const bool wasCapturing = isCapturing(stream);
  if (!wasCapturing)
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  if (!wasCapturing)
    cudaStreamSynchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-3]]
  if (!wasCapturing)
    cudaStreamEndCapture(stream, &graph);
}

// The driver's capture into an existing graph, its mode the last argument.
void positiveDriverCaptureToGraph(CUstream stream, CUgraph into) {
  CUdeviceptr buffer;
  cuStreamBeginCaptureToGraph(stream, into, nullptr, nullptr, 0,
                              CU_STREAM_CAPTURE_MODE_GLOBAL);
  cuMemAlloc(&buffer, 256);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuMemAlloc' inside the CUDA graph capture begun at line [[@LINE-3]] allocates device memory
  CUgraph graph;
  cuStreamEndCapture(stream, &graph);
  cuStreamBeginCaptureToGraph(stream, into, nullptr, nullptr, 0,
                              CU_STREAM_CAPTURE_MODE_RELAXED);
  cuMemAlloc(&buffer, 256);
  cuStreamEndCapture(stream, &graph);
}

#if TORCH_VERSION_MAJOR >= 2
// LibTorch's capture status of the current stream.
void negativeGuardedByLibTorchStatus(at::cuda::CUDAGraph &graph,
                                     const at::Tensor &t) {
  graph.capture_begin();
  if (c10::cuda::currentStreamCaptureStatusMayInitCtx() ==
      c10::cuda::CaptureStatus::None)
    double value = t.item<double>();
  graph.capture_end();
}
#endif

// CUDAGraph's capture mode (LibTorch 2.x: 1.13's capture_begin takes none):
// relaxed permits the allocation, the default (global) mode does not.
#if TORCH_VERSION_MAJOR >= 2
void positiveGraphCaptureModes(CUDAGraph &graph) {
  void *buffer = nullptr;
  graph.capture_begin({0, 0}, cudaStreamCaptureModeRelaxed);
  cudaMalloc(&buffer, 256);
  graph.capture_end();
  graph.capture_begin({0, 0});
  cudaMalloc(&buffer, 256);
  // CHECK-MESSAGES-LIBTORCH2: :[[@LINE-1]]:3: warning: 'cudaMalloc' inside the CUDA graph capture begun at line [[@LINE-2]] allocates device memory
  graph.capture_end();
}
#endif

// LibTorch's stream: the capture on 'getCurrentCUDAStream()' spelt the same
// way at both ends.
void positiveTorchStream(const at::Tensor &t) {
  cudaGraph_t graph;
  cudaStreamBeginCapture(c10::cuda::getCurrentCUDAStream(),
                         cudaStreamCaptureModeThreadLocal);
  c10::cuda::getCurrentCUDAStream().query();
  // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: 'query' inside the CUDA graph capture begun at line [[@LINE-3]] queries the stream with cudaStreamQuery
  c10::cuda::getCurrentCUDAStream().synchronize();
  // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: 'c10::cuda::CUDAStream::synchronize' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-5]]
  cudaStreamEndCapture(c10::cuda::getCurrentCUDAStream(), &graph);
  c10::cuda::getCurrentCUDAStream().synchronize();
}

// LibTorch's event (c10::cuda::CUDAEvent from 2.0 on, at::cuda::CUDAEvent
// before): query() in a capture, and after it.
void positiveTorchEvent(CUDAGraph &graph, at::cuda::CUDAEvent &event) {
  graph.capture_begin();
  bool done = event.query();
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'query' inside the CUDA graph capture begun at line [[@LINE-2]] queries the event with cudaEventQuery
  graph.capture_end();
  bool after = event.query();
}

// The driver API (declared as cuStreamBeginCapture_v2).
void positiveDriver(CUstream stream) {
  CUgraph graph;
  cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL);
  cuStreamSynchronize(stream);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuStreamSynchronize' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-2]]
  cuStreamEndCapture(stream, &graph);
  cuStreamSynchronize(stream);
}

// The driver's allocation (declared as cuMemAlloc_v2), refused outside
// relaxed mode.
void positiveDriverAlloc(CUstream stream, CUdeviceptr *buffer) {
  CUgraph graph;
  cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  cuMemAlloc(buffer, 256);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'cuMemAlloc' inside the CUDA graph capture begun at line [[@LINE-2]] allocates device memory
  cuStreamEndCapture(stream, &graph);
  cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED);
  cuMemAlloc(buffer, 256);
  cuStreamEndCapture(stream, &graph);
}

// Macros: the capture's bounds and the sync written through them.
#define CAPTURED(graph, statement)                                             \
  do {                                                                         \
    (graph).capture_begin();                                                   \
    statement;                                                                 \
    (graph).capture_end();                                                     \
  } while (0)
#define READ(t) (t).item<float>()

void positiveMacros(CUDAGraph &graph, const at::Tensor &t) {
  float v = 0;
  CAPTURED(graph, v = READ(t));
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'item' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-1]]
  v = READ(t);
}

// Templates: reported once for all instantiations.
template <typename T> T readIn(CUDAGraph &graph, const at::Tensor &t) {
  graph.capture_begin();
  T v = t.item<T>();
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'item' synchronizes with the device inside the CUDA graph capture begun at line [[@LINE-2]]
  graph.capture_end();
  return v;
}
float instantiations(CUDAGraph &graph, const at::Tensor &t) {
  return readIn<float>(graph, t) + readIn<double>(graph, t);
}

// Code in an inactive preprocessor branch is not compiled.
void negativeInactiveBranch(CUDAGraph &graph, const at::Tensor &t) {
  graph.capture_begin();
#if 0
  float v = t.item<float>();
#endif
  graph.capture_end();
}

// Calls not written as calls, and lambdas: a constructor and a destructor
// that sync, a lambda called inside the capture.
struct Reader {
  explicit Reader(const at::Tensor &t) : value(t.item<float>()) {}
  float value;
};
struct SyncOnExit {
  at::Tensor t;
  ~SyncOnExit() { t.item<float>(); }
};

void positiveImplicitCalls(CUDAGraph &graph, const at::Tensor &t) {
  graph.capture_begin();
  Reader reader(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'Reader::Reader' calls 'item' in its body, which synchronizes inside the CUDA graph capture begun at line [[@LINE-2]]
  {
    SyncOnExit guard{t};
  }
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'SyncOnExit::~SyncOnExit' calls 'item' in its body, which synchronizes inside the CUDA graph capture begun at line [[@LINE-6]]
  auto read = [&] { return t.item<float>(); };
  float v = read();
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'lambda in positiveImplicitCalls' calls 'item' in its body, which synchronizes inside the CUDA graph capture begun at line [[@LINE-9]]
  graph.capture_end();
  Reader after(t);
}

#ifdef BROKEN
struct BrokenScope {
  explicit BrokenScope(CUDAGraph &graph) : graph_(graph) {
    graph_.capture_begin();
  }
  ~BrokenScope() { graph_.capture_end(); }
  CUDAGraph &graph_;
  MissingType member_;
};
void broken(CUDAGraph &graph, const at::Tensor &t) {
  BrokenScope scope(graph);
  float v = t.item<float>();
}
void brokenBody(CUDAGraph &graph, const at::Tensor &t) {
  graph.capture_begin();
  MissingType local = t.item<float>();
  undeclaredHelper(local);
  graph.capture_end();
}
#endif
