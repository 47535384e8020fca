// torch-sync-graph-capture, rule by rule: calls that make a CUDA graph capture
// fail at run time, in inference code that captures its forward pass once and
// replays it.
//
// One rule_* function per call that fails the capture it is made in (item(),
// torch::nonzero, indexing with a boolean mask, cpu(), to(kCPU), printing a
// CUDA tensor, a project helper that calls item(), an item() inside an RAII
// capture scope, cudaStreamSynchronize and a synchronous cudaMemcpy between
// cudaStreamBeginCapture and cudaStreamEndCapture, a kernel launched on the
// legacy default stream, cudaMalloc) and one exempt_* function per twin that
// captures and replays (the value kept on the device, torch::where,
// masked_fill, the copies and the print after the replay, a helper that keeps
// its value on the device, a capture scope with device work only, the
// synchronize after the graph's launch, a copy on the capturing stream, the
// kernel on the capturing stream, the allocation before the capture).
//
// The captures follow PyTorch's recipe: on a side stream from the pool (never
// the default stream: capture_begin refuses it), after a warm-up of the same
// forward pass on that stream (cuBLAS creates its handle and workspace on first
// use, which a capture must not do), into a memory pool of the graph's own
// (at::cuda::graph_pool_handle), in the global capture mode (capture_begin's
// default), which forbids calls such as cudaMalloc while any capture is under
// way. Pool streams are created with cudaStreamNonBlocking, so work on the
// legacy default stream does not touch their captures: the legacy-stream launch
// and the synchronous cudaMemcpy are made while a blocking stream
// (cudaStreamCreate) captures, where CUDA forbids any use of the legacy stream.
//
// A failing call does not end the run: the rule function catches what it
// throws (C10_CUDA_CHECK's c10::Error, or the std::runtime_error of the raw
// CUDA calls' check()), and endFailedCapture / endFailedRawCapture end the
// capture as PyTorch would (capture_end, whose cudaStreamEndCapture reports the
// invalidated capture, cudaErrorStreamCaptureInvalidated, and throws before it
// gives back the memory pool), make sure the stream has left capture mode, give
// the pool back (the CUDA caching allocator's and the host allocator's
// endAllocateToPool and releasePool, which capture_end did not reach), and clear
// the runtime's last error (capture errors are not sticky). main checks after
// each function that no capture is left open and no error pending, and stops
// with status 3 otherwise, so that no later function runs in a broken state.
//
// Every call that fails a capture is on a line of its own. Host values go to a
// volatile sink; tensor results stay on the device until main returns. Device
// buffers are never freed (cudaFree waits for the device): the process ends.
//
// It runs only on a CUDA device: without one, main says so and exits with 0.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/torch.h>
#include <torch/version.h>

#if TORCH_VERSION_MAJOR * 100 + TORCH_VERSION_MINOR >= 211 // 2.11 and later
#include <ATen/core/CachingHostAllocator.h>
#endif

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int kThreadsPerBlock = 256;

// Host values read by the samples; volatile, so that no read is optimized
// away.
volatile double hostSink = 0;

// Tensor results, kept on the device until main returns and never read.
std::vector<torch::Tensor> deviceResults;
void keep(torch::Tensor result) { deviceResults.push_back(std::move(result)); }

// scores[i] *= factor.
__global__ void scaleScores(float *scores, float factor, int64_t count) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < count)
    scores[i] *= factor;
}

unsigned blocksFor(int64_t count) {
  return static_cast<unsigned>((count + kThreadsPerBlock - 1) / kThreadsPerBlock);
}

// A raw CUDA call's error as an exception, as project code checks them.
void check(cudaError_t error, const char *what) {
  if (error != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(error));
}

// The model: two linear layers that score each row of a batch.
struct Scorer {
  torch::Tensor w1, b1, w2;
  torch::Tensor forward(const torch::Tensor &batch) const {
    return torch::relu(batch.matmul(w1) + b1).matmul(w2).squeeze(-1);
  }
};

// The warm-up PyTorch asks for before a capture: the forward pass a few times
// on the capture's stream, ordered after the work queued on the current stream
// and before what follows on it by events, which the host does not wait for.
void warmUp(const Scorer &scorer, const torch::Tensor &batch, const at::cuda::CUDAStream &side) {
  at::cuda::CUDAEvent ready;
  ready.record(at::cuda::getCurrentCUDAStream());
  ready.block(side);
  {
    at::cuda::CUDAStreamGuard guard(side);
    for (int i = 0; i < 3; ++i)
      keep(scorer.forward(batch));
  }
  at::cuda::CUDAEvent done;
  done.record(side);
  done.block(at::cuda::getCurrentCUDAStream());
}

// Gives back the memory pool of a capture whose capture_end threw before it did
// (capture_end ends the allocators' recording to the pool only after
// cudaStreamEndCapture succeeded; the graph's destructor releases the pool only
// after a capture that ended). When capture_end did end it, endAllocateToPool
// throws ("not currently recording") and nothing is released twice. Written for
// LibTorch 2.11 (the pools of the CUDA caching allocator and of the host
// allocator); older releases manage capture pools otherwise and keep them.
void releaseCapturePool([[maybe_unused]] at::cuda::MempoolId_t pool) {
#if TORCH_VERSION_MAJOR * 100 + TORCH_VERSION_MINOR >= 211 // 2.11 and later
  c10::DeviceIndex device = c10::cuda::current_device();
  try {
    c10::cuda::CUDACachingAllocator::endAllocateToPool(device, pool);
    c10::cuda::CUDACachingAllocator::releasePool(device, pool);
  } catch (const std::exception &) {
  }
  try {
    at::getHostAllocator(at::kCUDA)->end_allocate_to_pool(pool);
    at::getHostAllocator(at::kCUDA)->release_pool(pool);
  } catch (const std::exception &) {
  }
#endif
}

// Ends a capture into graph on stream after a call inside it threw: capture_end
// if the stream still captures (it reports the invalidated capture and throws),
// cudaStreamEndCapture if it captures even then, the pool given back, the
// runtime's last error cleared.
void endFailedCapture(at::cuda::CUDAGraph &graph, const at::cuda::CUDAStream &stream,
                      at::cuda::MempoolId_t pool, const char *function) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream.stream(), &status) == cudaSuccess &&
      status != cudaStreamCaptureStatusNone) {
    at::cuda::CUDAStreamGuard guard(stream);
    try {
      graph.capture_end();
    } catch (const std::exception &) {
    }
  }
  status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream.stream(), &status) == cudaSuccess &&
      status != cudaStreamCaptureStatusNone) {
    cudaGraph_t partial = nullptr;
    if (cudaStreamEndCapture(stream.stream(), &partial) == cudaSuccess && partial)
      cudaGraphDestroy(partial);
  }
  releaseCapturePool(pool);
  (void)cudaGetLastError();
  std::cout << "graph_capture: " << function << ": the capture failed\n";
}

// The same for a capture begun with cudaStreamBeginCapture.
void endFailedRawCapture(cudaStream_t stream, const char *function) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
    cudaGraph_t partial = nullptr;
    if (cudaStreamEndCapture(stream, &partial) == cudaSuccess && partial)
      cudaGraphDestroy(partial);
  }
  (void)cudaGetLastError();
  std::cout << "graph_capture: " << function << ": the capture failed\n";
}

// Instantiates a captured graph, launches it on stream and lets it go (a graph
// still running is freed when it completes); the host does not wait.
void launchOnce(cudaGraph_t graph, cudaStream_t stream) {
  cudaGraphExec_t exec = nullptr;
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
  check(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
  check(cudaGraphDestroy(graph), "cudaGraphDestroy");
}

// The project's helper: reads the best score on the host.
float topScore(const torch::Tensor &scores) {
  return scores.max().item<float>();
}

// Its twin: the best score stays on the device.
torch::Tensor topScoreOnDevice(const torch::Tensor &scores) { return scores.max(); }

// A capture scope: the constructor makes stream current and begins capturing
// into graph; the destructor ends the capture. A capture that fails inside the
// scope fails again at capture_end, in the destructor, which must not throw: it
// ends the failed capture and says so through failed.
class GraphCaptureScope {
public:
  GraphCaptureScope(at::cuda::CUDAGraph &graph, const at::cuda::CUDAStream &stream,
                    at::cuda::MempoolId_t pool, bool &failed)
      : graph_(graph), stream_(stream), pool_(pool), failed_(failed), guard_(stream) {
    graph_.capture_begin(pool_);
  }
  ~GraphCaptureScope() {
    try {
      graph_.capture_end();
    } catch (const std::exception &) {
      failed_ = true;
      endFailedCapture(graph_, stream_, pool_, "GraphCaptureScope");
    }
  }
  GraphCaptureScope(const GraphCaptureScope &) = delete;
  GraphCaptureScope &operator=(const GraphCaptureScope &) = delete;

private:
  at::cuda::CUDAGraph &graph_;
  at::cuda::CUDAStream stream_;
  at::cuda::MempoolId_t pool_;
  bool &failed_;
  at::cuda::CUDAStreamGuard guard_;
};

// ---- item() and its twin ------------------------------------------------------

void rule_item_in_capture(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  try {
    at::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin(pool);
    torch::Tensor scores = scorer.forward(batch);
    hostSink = scores.max().item<float>();
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, side, pool, "rule_item_in_capture");
    return;
  }
  graph.replay();
}

void exempt_value_kept_on_device(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  torch::Tensor normalized;
  try {
    at::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin(pool);
    torch::Tensor scores = scorer.forward(batch);
    torch::Tensor top = scores.max();
    normalized = scores / top;
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, side, pool, "exempt_value_kept_on_device");
    return;
  }
  graph.replay();
  keep(normalized);
}

// ---- torch::nonzero and its twin ----------------------------------------------

void rule_nonzero_in_capture(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  try {
    at::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin(pool);
    torch::Tensor scores = scorer.forward(batch);
    torch::Tensor positive = torch::nonzero(scores > 0);
    keep(positive);
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, side, pool, "rule_nonzero_in_capture");
    return;
  }
  graph.replay();
}

void exempt_where_in_capture(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  torch::Tensor positive;
  try {
    at::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin(pool);
    torch::Tensor scores = scorer.forward(batch);
    positive = torch::where(scores > 0, scores, torch::zeros_like(scores));
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, side, pool, "exempt_where_in_capture");
    return;
  }
  graph.replay();
  keep(positive);
}

// ---- Boolean mask indexing and its twin ----------------------------------------

void rule_boolean_mask_in_capture(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  try {
    at::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin(pool);
    torch::Tensor scores = scorer.forward(batch);
    torch::Tensor kept = scores.index({scores > 0});
    keep(kept);
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, side, pool, "rule_boolean_mask_in_capture");
    return;
  }
  graph.replay();
}

void exempt_masked_fill_in_capture(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  torch::Tensor kept;
  try {
    at::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin(pool);
    torch::Tensor scores = scorer.forward(batch);
    kept = scores.masked_fill(scores <= 0, 0);
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, side, pool, "exempt_masked_fill_in_capture");
    return;
  }
  graph.replay();
  keep(kept);
}

// ---- Copies to the host and their twins: the copy after the replay -------------

void rule_cpu_in_capture(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  try {
    at::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin(pool);
    torch::Tensor scores = scorer.forward(batch);
    torch::Tensor onHost = scores.cpu();
    hostSink = onHost.data_ptr<float>()[0];
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, side, pool, "rule_cpu_in_capture");
    return;
  }
  graph.replay();
}

void exempt_cpu_after_replay(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  torch::Tensor scores;
  try {
    at::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin(pool);
    scores = scorer.forward(batch);
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, side, pool, "exempt_cpu_after_replay");
    return;
  }
  graph.replay();
  torch::Tensor onHost = scores.cpu();
  hostSink = onHost.data_ptr<float>()[0];
}

void rule_to_cpu_in_capture(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  try {
    at::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin(pool);
    torch::Tensor scores = scorer.forward(batch);
    torch::Tensor onHost = scores.to(torch::kCPU);
    hostSink = onHost.data_ptr<float>()[0];
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, side, pool, "rule_to_cpu_in_capture");
    return;
  }
  graph.replay();
}

void exempt_to_cpu_after_replay(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  torch::Tensor scores;
  try {
    at::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin(pool);
    scores = scorer.forward(batch);
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, side, pool, "exempt_to_cpu_after_replay");
    return;
  }
  graph.replay();
  torch::Tensor onHost = scores.to(torch::kCPU);
  hostSink = onHost.data_ptr<float>()[0];
}

// ---- Printing and its twin ---------------------------------------------------

void rule_print_in_capture(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  try {
    at::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin(pool);
    torch::Tensor scores = scorer.forward(batch);
    std::cout << scores.slice(0, 0, 2) << "\n";
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, side, pool, "rule_print_in_capture");
    return;
  }
  graph.replay();
}

void exempt_print_after_replay(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  torch::Tensor scores;
  try {
    at::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin(pool);
    scores = scorer.forward(batch);
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, side, pool, "exempt_print_after_replay");
    return;
  }
  graph.replay();
  std::cout << scores.slice(0, 0, 2) << "\n";
}

// ---- A project helper that calls item(), and its twin ------------------------

void rule_helper_item_in_capture(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  try {
    at::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin(pool);
    torch::Tensor scores = scorer.forward(batch);
    hostSink = topScore(scores);
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, side, pool, "rule_helper_item_in_capture");
    return;
  }
  graph.replay();
}

void exempt_helper_on_device_in_capture(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  torch::Tensor top;
  try {
    at::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin(pool);
    torch::Tensor scores = scorer.forward(batch);
    top = topScoreOnDevice(scores);
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, side, pool, "exempt_helper_on_device_in_capture");
    return;
  }
  graph.replay();
  keep(top);
}

// ---- An RAII capture scope, and its twin ---------------------------------------

void rule_item_in_capture_scope(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  bool failed = false;
  try {
    GraphCaptureScope scope(graph, side, at::cuda::graph_pool_handle(), failed);
    torch::Tensor scores = scorer.forward(batch);
    hostSink = scores.max().item<float>();
  } catch (const std::exception &) {
    failed = true; // the scope's destructor has ended the capture
  }
  if (!failed)
    graph.replay();
}

void exempt_device_work_in_capture_scope(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  bool failed = false;
  torch::Tensor top;
  try {
    GraphCaptureScope scope(graph, side, at::cuda::graph_pool_handle(), failed);
    torch::Tensor scores = scorer.forward(batch);
    top = scores.max();
  } catch (const std::exception &) {
    failed = true;
  }
  if (failed)
    return;
  graph.replay();
  keep(top);
}

// ---- cudaStreamBeginCapture / cudaStreamEndCapture (on a blocking stream) -----

void rule_stream_synchronize_in_raw_capture(float *scores, int64_t count, cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  try {
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    scaleScores<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(scores, 0.5f, count);
    check(cudaGetLastError(), "scaleScores");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  } catch (const std::exception &) {
    endFailedRawCapture(stream, "rule_stream_synchronize_in_raw_capture");
    return;
  }
  launchOnce(graph, stream);
}

void exempt_stream_synchronize_after_raw_capture(float *scores, int64_t count, cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  try {
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    scaleScores<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(scores, 0.5f, count);
    check(cudaGetLastError(), "scaleScores");
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  } catch (const std::exception &) {
    endFailedRawCapture(stream, "exempt_stream_synchronize_after_raw_capture");
    return;
  }
  launchOnce(graph, stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

void rule_sync_memcpy_in_raw_capture(float *scores, int64_t count, cudaStream_t stream) {
  std::vector<float> onHost(static_cast<size_t>(count));
  cudaGraph_t graph = nullptr;
  try {
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    scaleScores<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(scores, 0.5f, count);
    check(cudaGetLastError(), "scaleScores");
    check(cudaMemcpy(onHost.data(), scores, count * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  } catch (const std::exception &) {
    endFailedRawCapture(stream, "rule_sync_memcpy_in_raw_capture");
    return;
  }
  launchOnce(graph, stream);
}

void exempt_async_copy_in_raw_capture(float *scores, float *copy, int64_t count, cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  try {
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    scaleScores<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(scores, 0.5f, count);
    check(cudaGetLastError(), "scaleScores");
    check(cudaMemcpyAsync(copy, scores, count * sizeof(float), cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpyAsync");
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  } catch (const std::exception &) {
    endFailedRawCapture(stream, "exempt_async_copy_in_raw_capture");
    return;
  }
  launchOnce(graph, stream);
}

// ---- Calls a capture refuses without waiting: cudaMemset, stream and event queries

void rule_cuda_memset_in_raw_capture(float *scores, int64_t count, cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  try {
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    scaleScores<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(scores, 0.5f, count);
    check(cudaGetLastError(), "scaleScores");
    check(cudaMemset(scores, 0, count * sizeof(float)), "cudaMemset");
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  } catch (const std::exception &) {
    endFailedRawCapture(stream, "rule_cuda_memset_in_raw_capture");
    return;
  }
  launchOnce(graph, stream);
}

void exempt_memset_async_in_raw_capture(float *scores, int64_t count, cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  try {
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    scaleScores<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(scores, 0.5f, count);
    check(cudaGetLastError(), "scaleScores");
    check(cudaMemsetAsync(scores, 0, count * sizeof(float), stream), "cudaMemsetAsync");
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  } catch (const std::exception &) {
    endFailedRawCapture(stream, "exempt_memset_async_in_raw_capture");
    return;
  }
  launchOnce(graph, stream);
}

void rule_cuda_stream_query_in_raw_capture(float *scores, int64_t count, cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  try {
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    scaleScores<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(scores, 0.5f, count);
    check(cudaGetLastError(), "scaleScores");
    cudaError_t done = cudaStreamQuery(stream);
    if (done != cudaSuccess && done != cudaErrorNotReady)
      check(done, "cudaStreamQuery");
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  } catch (const std::exception &) {
    endFailedRawCapture(stream, "rule_cuda_stream_query_in_raw_capture");
    return;
  }
  launchOnce(graph, stream);
}

void exempt_cuda_stream_query_after_raw_capture(float *scores, int64_t count, cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  try {
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    scaleScores<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(scores, 0.5f, count);
    check(cudaGetLastError(), "scaleScores");
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  } catch (const std::exception &) {
    endFailedRawCapture(stream, "exempt_cuda_stream_query_after_raw_capture");
    return;
  }
  launchOnce(graph, stream);
  cudaError_t done = cudaStreamQuery(stream);
  if (done != cudaSuccess && done != cudaErrorNotReady)
    check(done, "cudaStreamQuery");
}

void rule_cuda_event_query_in_raw_capture(float *scores, int64_t count, cudaStream_t stream,
                                          cudaEvent_t event) {
  cudaGraph_t graph = nullptr;
  try {
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    scaleScores<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(scores, 0.5f, count);
    check(cudaGetLastError(), "scaleScores");
    check(cudaEventRecord(event, stream), "cudaEventRecord");
    cudaError_t done = cudaEventQuery(event);
    if (done != cudaSuccess && done != cudaErrorNotReady)
      check(done, "cudaEventQuery");
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  } catch (const std::exception &) {
    endFailedRawCapture(stream, "rule_cuda_event_query_in_raw_capture");
    return;
  }
  launchOnce(graph, stream);
}

void exempt_cuda_event_query_after_raw_capture(float *scores, int64_t count, cudaStream_t stream,
                                               cudaEvent_t event) {
  cudaGraph_t graph = nullptr;
  try {
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
    scaleScores<<<blocksFor(count), kThreadsPerBlock, 0, stream>>>(scores, 0.5f, count);
    check(cudaGetLastError(), "scaleScores");
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  } catch (const std::exception &) {
    endFailedRawCapture(stream, "exempt_cuda_event_query_after_raw_capture");
    return;
  }
  launchOnce(graph, stream);
  check(cudaEventRecord(event, stream), "cudaEventRecord");
  cudaError_t done = cudaEventQuery(event);
  if (done != cudaSuccess && done != cudaErrorNotReady)
    check(done, "cudaEventQuery");
}

// ---- A kernel on the legacy default stream, and its twin ------------------------

void rule_default_stream_kernel_in_capture(const torch::Tensor &scores, cudaStream_t blocking) {
  at::cuda::CUDAStream stream = at::cuda::getStreamFromExternal(blocking, scores.device().index());
  float *values = scores.data_ptr<float>();
  const int64_t count = scores.numel();
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  try {
    at::cuda::CUDAStreamGuard guard(stream);
    graph.capture_begin(pool);
    scaleScores<<<blocksFor(count), kThreadsPerBlock>>>(values, 0.5f, count);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, stream, pool, "rule_default_stream_kernel_in_capture");
    return;
  }
  graph.replay();
}

void exempt_kernel_on_capture_stream(const torch::Tensor &scores, cudaStream_t blocking) {
  at::cuda::CUDAStream stream = at::cuda::getStreamFromExternal(blocking, scores.device().index());
  float *values = scores.data_ptr<float>();
  const int64_t count = scores.numel();
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  try {
    at::cuda::CUDAStreamGuard guard(stream);
    graph.capture_begin(pool);
    scaleScores<<<blocksFor(count), kThreadsPerBlock, 0, stream.stream()>>>(values, 0.5f, count);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, stream, pool, "exempt_kernel_on_capture_stream");
    return;
  }
  graph.replay();
}

// ---- cudaMalloc inside the capture, and its twin --------------------------------

void rule_cuda_malloc_in_capture(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  float *staged = nullptr;
  try {
    at::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin(pool);
    torch::Tensor scores = scorer.forward(batch);
    C10_CUDA_CHECK(cudaMalloc(&staged, scores.numel() * sizeof(float)));
    C10_CUDA_CHECK(cudaMemcpyAsync(staged, scores.data_ptr<float>(), scores.numel() * sizeof(float),
                                   cudaMemcpyDeviceToDevice, side.stream()));
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, side, pool, "rule_cuda_malloc_in_capture");
    return;
  }
  graph.replay();
}

void exempt_cuda_malloc_before_capture(const Scorer &scorer, const torch::Tensor &batch) {
  at::cuda::CUDAStream side = at::cuda::getStreamFromPool();
  warmUp(scorer, batch, side);
  at::cuda::CUDAGraph graph;
  at::cuda::MempoolId_t pool = at::cuda::graph_pool_handle();
  float *staged = nullptr;
  C10_CUDA_CHECK(cudaMalloc(&staged, batch.size(0) * sizeof(float)));
  try {
    at::cuda::CUDAStreamGuard guard(side);
    graph.capture_begin(pool);
    torch::Tensor scores = scorer.forward(batch);
    C10_CUDA_CHECK(cudaMemcpyAsync(staged, scores.data_ptr<float>(), scores.numel() * sizeof(float),
                                   cudaMemcpyDeviceToDevice, side.stream()));
    graph.capture_end();
  } catch (const std::exception &) {
    endFailedCapture(graph, side, pool, "exempt_cuda_malloc_before_capture");
    return;
  }
  graph.replay();
}

// Stops the run when a function left a capture open or an error pending: the
// functions after it would fail for its reasons, not theirs.
void expectCleanState(const char *after, cudaStream_t blocking) {
  cudaError_t pending = cudaGetLastError();
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaError_t queried = cudaStreamIsCapturing(blocking, &status);
  if (pending == cudaSuccess && queried == cudaSuccess && status == cudaStreamCaptureStatusNone)
    return;
  const char *capturing = status == cudaStreamCaptureStatusNone ? "not capturing" : "capturing";
  std::cerr << "graph_capture: after " << after << ": " << cudaGetErrorName(pending)
            << " pending, the blocking stream "
            << (queried == cudaSuccess ? capturing : cudaGetErrorName(queried)) << "; stopping\n";
  std::exit(3);
}

} // namespace

int main() {
  if (!torch::cuda::is_available()) {
    std::cout << "graph_capture: no CUDA device; nothing to run\n";
    return 0;
  }
  torch::manual_seed(0);
  auto options = torch::TensorOptions().device(torch::kCUDA).dtype(torch::kFloat);
  Scorer scorer{torch::randn({64, 128}, options), torch::randn({128}, options),
                torch::randn({128, 1}, options)};
  torch::Tensor batch = torch::randn({32, 64}, options);
  torch::Tensor raw = torch::randn({4096}, options);
  torch::Tensor rawCopy = torch::empty_like(raw);
  // A blocking stream (it synchronizes with the legacy default stream), for the
  // captures in which CUDA forbids the legacy stream's use.
  cudaStream_t blocking = nullptr;
  C10_CUDA_CHECK(cudaStreamCreate(&blocking));

  using Sample = void (*)(const Scorer &, const torch::Tensor &);
  const std::pair<const char *, Sample> samples[] = {
      {"rule_item_in_capture", rule_item_in_capture},
      {"exempt_value_kept_on_device", exempt_value_kept_on_device},
      {"rule_nonzero_in_capture", rule_nonzero_in_capture},
      {"exempt_where_in_capture", exempt_where_in_capture},
      {"rule_boolean_mask_in_capture", rule_boolean_mask_in_capture},
      {"exempt_masked_fill_in_capture", exempt_masked_fill_in_capture},
      {"rule_cpu_in_capture", rule_cpu_in_capture},
      {"exempt_cpu_after_replay", exempt_cpu_after_replay},
      {"rule_to_cpu_in_capture", rule_to_cpu_in_capture},
      {"exempt_to_cpu_after_replay", exempt_to_cpu_after_replay},
      {"rule_print_in_capture", rule_print_in_capture},
      {"exempt_print_after_replay", exempt_print_after_replay},
      {"rule_helper_item_in_capture", rule_helper_item_in_capture},
      {"exempt_helper_on_device_in_capture", exempt_helper_on_device_in_capture},
      {"rule_item_in_capture_scope", rule_item_in_capture_scope},
      {"exempt_device_work_in_capture_scope", exempt_device_work_in_capture_scope},
      {"rule_cuda_malloc_in_capture", rule_cuda_malloc_in_capture},
      {"exempt_cuda_malloc_before_capture", exempt_cuda_malloc_before_capture},
  };
  for (const auto &[name, sample] : samples) {
    sample(scorer, batch);
    expectCleanState(name, blocking);
  }

  float *scores = raw.data_ptr<float>();
  rule_stream_synchronize_in_raw_capture(scores, raw.numel(), blocking);
  expectCleanState("rule_stream_synchronize_in_raw_capture", blocking);
  exempt_stream_synchronize_after_raw_capture(scores, raw.numel(), blocking);
  expectCleanState("exempt_stream_synchronize_after_raw_capture", blocking);
  rule_sync_memcpy_in_raw_capture(scores, raw.numel(), blocking);
  expectCleanState("rule_sync_memcpy_in_raw_capture", blocking);
  exempt_async_copy_in_raw_capture(scores, rawCopy.data_ptr<float>(), raw.numel(), blocking);
  expectCleanState("exempt_async_copy_in_raw_capture", blocking);
  rule_default_stream_kernel_in_capture(raw, blocking);
  expectCleanState("rule_default_stream_kernel_in_capture", blocking);
  exempt_kernel_on_capture_stream(raw, blocking);
  expectCleanState("exempt_kernel_on_capture_stream", blocking);

  rule_cuda_memset_in_raw_capture(scores, raw.numel(), blocking);
  expectCleanState("rule_cuda_memset_in_raw_capture", blocking);
  exempt_memset_async_in_raw_capture(scores, raw.numel(), blocking);
  expectCleanState("exempt_memset_async_in_raw_capture", blocking);
  rule_cuda_stream_query_in_raw_capture(scores, raw.numel(), blocking);
  expectCleanState("rule_cuda_stream_query_in_raw_capture", blocking);
  exempt_cuda_stream_query_after_raw_capture(scores, raw.numel(), blocking);
  expectCleanState("exempt_cuda_stream_query_after_raw_capture", blocking);
  cudaEvent_t event = nullptr;
  C10_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  rule_cuda_event_query_in_raw_capture(scores, raw.numel(), blocking, event);
  expectCleanState("rule_cuda_event_query_in_raw_capture", blocking);
  exempt_cuda_event_query_after_raw_capture(scores, raw.numel(), blocking, event);
  expectCleanState("exempt_cuda_event_query_after_raw_capture", blocking);

  keep(raw);
  keep(rawCopy);
  std::cout << "graph_capture: done\n";
  return 0;
}
