// frontend_census: the C++ half of the census. Measures the public LibTorch C++ functions whose bodies are
// compiled into libtorch (optimizer steps, serialization, nn modules, Module::to, at::tensor), the CUDA
// runtime and driver calls that may synchronize implicitly, and Thrust's algorithms (thrust_cases.cu), with
// the same signals as census.py: a GPU sleep queued first (did the host wait for it?), the CUDA calls made
// (cupti_counter.cpp), and the sync debug mode.
//
// Usage: frontend_census OUT.jsonl     (one JSON object per measured function)
// Each function is called once to warm up, then measured once; set-up and tear-down are not measured.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/Sleep.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/util/Exception.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <torch/script.h>
#include <torch/torch.h>

#include "symbol_cases.h"
#include "thrust_cases.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
// CUDA 13 no longer declares the one-dimensional array copies (deprecated since 10.1); its runtime still has
// them, and code written for older releases calls them.
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                              cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                     size_t count, cudaMemcpyKind kind, cudaStream_t stream);
int tsc_start(void);
void tsc_reset(void);
void tsc_pause(void);
int tsc_read(char *, int);
const char *tsc_error(void);
}

namespace {

struct Entry {
  std::string group, function, arguments;
  std::function<void()> call;
  std::function<void()> setup = [] {};
  std::function<void()> teardown = [] {};
  // Runs after the GPU sleep is queued, unmeasured (an event recorded behind the sleep).
  std::function<void()> afterSleep = [] {};
};

class SdmCounter : public c10::WarningHandler {
public:
  void process(const c10::Warning &w) override {
    if (w.msg().find("synchronizing CUDA operation") != std::string::npos)
      ++count;
  }
  int count = 0;
};

double cyclesPerMs = 1.0e6;

void calibrate() {
  c10::cuda::device_synchronize();
  double best = 1e9;
  for (int i = 0; i < 3; ++i) {
    at::cuda::CUDAEvent start(cudaEventDefault), end(cudaEventDefault);
    auto stream = at::cuda::getCurrentCUDAStream();
    start.record(stream);
    at::cuda::sleep(10000000);
    end.record(stream);
    end.synchronize();
    best = std::min<double>(best, start.elapsed_time(end));
  }
  cyclesPerMs = 1.0e7 / best;
}

std::string escape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string measure(const Entry &e, double sleepMs) {
  c10::cuda::device_synchronize();
  SdmCounter sdm;
  std::string seen, error;
  double hostMs = 0;
  bool done = false;
  {
    c10::WarningUtils::WarningHandlerGuard guard(&sdm);
    c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_WARN);
    at::cuda::sleep(static_cast<int64_t>(sleepMs * cyclesPerMs));
    at::cuda::CUDAEvent event;
    event.record(at::cuda::getCurrentCUDAStream());
    e.afterSleep();
    tsc_reset();
    auto t0 = std::chrono::steady_clock::now();
    try {
      e.call();
    } catch (const std::exception &ex) {
      error = ex.what();
    }
    auto t1 = std::chrono::steady_clock::now();
    tsc_pause();
    std::vector<char> buffer(1 << 16);
    if (int need = tsc_read(buffer.data(), static_cast<int>(buffer.size()))) {
      buffer.resize(need);
      tsc_read(buffer.data(), need);
    }
    seen = buffer.data();
    done = event.query();
    hostMs = std::chrono::duration<double, std::milli>(t1 - t0).count();
    c10::cuda::warning_state().set_sync_debug_mode(c10::cuda::SyncDebugMode::L_DISABLED);
  }
  c10::cuda::device_synchronize();
  bool waited = done && hostMs >= 0.8 * sleepMs;
  std::ostringstream line;
  line << "{\"group\": \"" << e.group << "\", \"function\": \"" << escape(e.function)
       << "\", \"arguments\": \"" << escape(e.arguments) << "\", \"waited\": " << (waited ? "true" : "false")
       << ", \"host_ms\": " << hostMs << ", \"sleep_ms\": " << sleepMs << ", \"sdm\": " << sdm.count
       << ", \"seen\": " << seen;
  if (!error.empty())
    line << ", \"error\": \"" << escape(error.substr(0, 300)) << "\"";
  line << "}";
  return line.str();
}

torch::Tensor cudaParam() {
  auto p = torch::randn({64, 64}, torch::kCUDA).requires_grad_();
  p.mutable_grad() = torch::randn({64, 64}, torch::kCUDA);
  return p;
}

template <typename Optimizer, typename Options>
Entry optimizerEntry(const std::string &name, Options options) {
  auto param = std::make_shared<torch::Tensor>(cudaParam());
  auto opt = std::make_shared<Optimizer>(std::vector<torch::Tensor>{*param}, options);
  return {"optim", "torch::optim::" + name + "::step", "one CUDA parameter 64x64 with a gradient",
          [opt] { opt->step(); }};
}

template <typename M, typename... A>
Entry moduleEntry(const std::string &name, const std::string &args, M module,
                  std::function<torch::Tensor()> input) {
  module->to(torch::kCUDA);
  auto x = std::make_shared<torch::Tensor>(input());
  return {"nn", "torch::nn::" + name + "::forward", args, [module, x] mutable { (void)module->forward(*x); }};
}

std::vector<Entry> entries() {
  std::vector<Entry> list;
  auto cuda = torch::TensorOptions().device(torch::kCUDA);

  // Optimizers: every torch::optim optimizer's step on a CUDA parameter.
  list.push_back(optimizerEntry<torch::optim::SGD>("SGD", torch::optim::SGDOptions(0.1)));
  list.push_back(optimizerEntry<torch::optim::SGD>("SGD", torch::optim::SGDOptions(0.1).momentum(0.9)));
  list.back().arguments += ", momentum 0.9";
  list.push_back(optimizerEntry<torch::optim::Adam>("Adam", torch::optim::AdamOptions(1e-3)));
  list.push_back(optimizerEntry<torch::optim::Adam>("Adam", torch::optim::AdamOptions(1e-3).amsgrad(true)));
  list.back().arguments += ", amsgrad";
  list.push_back(optimizerEntry<torch::optim::AdamW>("AdamW", torch::optim::AdamWOptions(1e-3)));
  list.push_back(optimizerEntry<torch::optim::Adagrad>("Adagrad", torch::optim::AdagradOptions(0.1)));
  list.push_back(optimizerEntry<torch::optim::RMSprop>("RMSprop", torch::optim::RMSpropOptions(0.01)));
  {
    auto param = std::make_shared<torch::Tensor>(torch::randn({16}, cuda).requires_grad_());
    auto opt = std::make_shared<torch::optim::LBFGS>(std::vector<torch::Tensor>{*param},
                                                     torch::optim::LBFGSOptions(0.1).max_iter(4));
    auto closure = [param, opt] mutable {
      opt->zero_grad();
      auto loss = (*param * *param).sum();
      loss.backward();
      return loss;
    };
    list.push_back({"optim", "torch::optim::LBFGS::step", "one CUDA parameter of 16, max_iter 4",
                    [opt, closure] mutable { opt->step(closure); }});
  }

  // Serialization.
  {
    auto t = std::make_shared<torch::Tensor>(torch::randn({256}, cuda));
    list.push_back({"serialize", "torch::save", "a CUDA tensor of 256 floats, to a stream", [t] mutable {
                      std::ostringstream os;
                      torch::save(*t, os);
                    }});
    list.push_back({"serialize", "torch::pickle_save", "a CUDA tensor of 256 floats",
                    [t] mutable { (void)torch::pickle_save(*t); }});
    auto bytes = std::make_shared<std::string>();
    {
      std::ostringstream os;
      torch::save(*t, os);
      *bytes = os.str();
    }
    list.push_back({"serialize", "torch::load", "a CUDA tensor saved to a stream", [bytes] mutable {
                      std::istringstream is(*bytes);
                      torch::Tensor u;
                      torch::load(u, is);
                    }});
    auto pickled = std::make_shared<std::vector<char>>(torch::pickle_save(*t));
    list.push_back({"serialize", "torch::pickle_load", "a pickled CUDA tensor",
                    [pickled] mutable { (void)torch::pickle_load(*pickled); }});
    auto model = torch::nn::Linear(64, 64);
    model->to(torch::kCUDA);
    list.push_back(
        {"serialize", "torch::save", "a CUDA torch::nn::Linear(64, 64), to a stream", [model] mutable {
           std::ostringstream os;
           torch::save(model, os);
         }});
  }

  // Modules whose forward is compiled into libtorch.
  auto img = [] mutable { return torch::randn({2, 3, 16, 16}, torch::kCUDA); };
  auto seq = [] mutable { return torch::randn({5, 2, 8}, torch::kCUDA); };
  list.push_back(moduleEntry("Linear", "input [8, 64]", torch::nn::Linear(64, 32),
                             [] mutable { return torch::randn({8, 64}, torch::kCUDA); }));
  list.push_back(moduleEntry("Conv2d", "input [2, 3, 16, 16]", torch::nn::Conv2d(3, 4, 3), img));
  list.push_back(
      moduleEntry("BatchNorm2d", "input [2, 3, 16, 16], training", torch::nn::BatchNorm2d(3), img));
  list.push_back(moduleEntry("LayerNorm", "input [2, 3, 16, 16]",
                             torch::nn::LayerNorm(torch::nn::LayerNormOptions({16})), img));
  list.push_back(moduleEntry("Embedding", "indices [4, 5]", torch::nn::Embedding(10, 8), [] mutable {
    return torch::zeros({4, 5}, torch::dtype(torch::kLong).device(torch::kCUDA));
  }));
  list.push_back(moduleEntry("EmbeddingBag", "indices [4, 5]", torch::nn::EmbeddingBag(10, 8), [] mutable {
    return torch::zeros({4, 5}, torch::dtype(torch::kLong).device(torch::kCUDA));
  }));
  list.push_back(moduleEntry("Dropout", "input [2, 3, 16, 16]", torch::nn::Dropout(0.5), img));
  list.push_back(moduleEntry("MaxPool2d", "input [2, 3, 16, 16]", torch::nn::MaxPool2d(2), img));
  list.push_back(
      moduleEntry("AdaptiveAvgPool2d", "input [2, 3, 16, 16]", torch::nn::AdaptiveAvgPool2d(4), img));
  list.push_back(moduleEntry(
      "Upsample", "input [2, 3, 16, 16], scale 2",
      torch::nn::Upsample(torch::nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2})), img));
  {
    auto lstm = torch::nn::LSTM(8, 16);
    lstm->to(torch::kCUDA);
    auto x = std::make_shared<torch::Tensor>(seq());
    list.push_back({"nn", "torch::nn::LSTM::forward", "input [5, 2, 8]",
                    [lstm, x] mutable { (void)lstm->forward(*x); }});
    auto gru = torch::nn::GRU(8, 16);
    gru->to(torch::kCUDA);
    list.push_back(
        {"nn", "torch::nn::GRU::forward", "input [5, 2, 8]", [gru, x] mutable { (void)gru->forward(*x); }});
    auto rnn = torch::nn::RNN(8, 16);
    rnn->to(torch::kCUDA);
    list.push_back(
        {"nn", "torch::nn::RNN::forward", "input [5, 2, 8]", [rnn, x] mutable { (void)rnn->forward(*x); }});
    auto mha = torch::nn::MultiheadAttention(8, 2);
    mha->to(torch::kCUDA);
    list.push_back({"nn", "torch::nn::MultiheadAttention::forward", "query/key/value [5, 2, 8]",
                    [mha, x] mutable { (void)mha->forward(*x, *x, *x); }});
    auto layer = torch::nn::TransformerEncoderLayer(torch::nn::TransformerEncoderLayerOptions(8, 2));
    layer->to(torch::kCUDA);
    list.push_back({"nn", "torch::nn::TransformerEncoderLayer::forward", "input [5, 2, 8]",
                    [layer, x] mutable { (void)layer->forward(*x); }});
  }
  {
    auto ce = torch::nn::CrossEntropyLoss();
    auto logits = std::make_shared<torch::Tensor>(torch::randn({8, 5}, torch::kCUDA));
    auto target =
        std::make_shared<torch::Tensor>(torch::zeros({8}, torch::dtype(torch::kLong).device(torch::kCUDA)));
    list.push_back({"nn", "torch::nn::CrossEntropyLoss::forward", "logits [8, 5], CUDA targets",
                    [ce, logits, target] mutable { (void)ce->forward(*logits, *target); }});
    auto ctc = torch::nn::CTCLoss();
    auto lp = std::make_shared<torch::Tensor>(torch::randn({10, 2, 5}, torch::kCUDA).log_softmax(2));
    auto tg =
        std::make_shared<torch::Tensor>(torch::ones({2, 3}, torch::dtype(torch::kLong).device(torch::kCUDA)));
    auto il = std::make_shared<torch::Tensor>(
        torch::full({2}, 10, torch::dtype(torch::kLong).device(torch::kCUDA)));
    auto tl =
        std::make_shared<torch::Tensor>(torch::full({2}, 3, torch::dtype(torch::kLong).device(torch::kCUDA)));
    list.push_back({"nn", "torch::nn::CTCLoss::forward", "CUDA log-probs [10, 2, 5], CUDA length tensors",
                    [ctc, lp, tg, il, tl] mutable { (void)ctc->forward(*lp, *tg, *il, *tl); }});
  }
  {
    auto x = std::make_shared<torch::Tensor>(torch::randn({5, 2, 8}, torch::kCUDA));
    auto lengths = std::make_shared<torch::Tensor>(torch::tensor({5, 3}, torch::kLong).to(torch::kCUDA));
    list.push_back(
        {"nn", "torch::nn::utils::rnn::pack_padded_sequence", "CUDA input, CUDA lengths",
         [x, lengths] mutable { (void)torch::nn::utils::rnn::pack_padded_sequence(*x, *lengths); }});
    auto cpuLengths = std::make_shared<torch::Tensor>(torch::tensor({5, 3}, torch::kLong));
    list.push_back(
        {"nn", "torch::nn::utils::rnn::pack_padded_sequence", "CUDA input, CPU lengths",
         [x, cpuLengths] mutable { (void)torch::nn::utils::rnn::pack_padded_sequence(*x, *cpuLengths); }});
    auto params = std::make_shared<std::vector<torch::Tensor>>(std::vector<torch::Tensor>{cudaParam()});
    list.push_back({"nn", "torch::nn::utils::clip_grad_norm_", "one CUDA parameter",
                    [params] mutable { (void)torch::nn::utils::clip_grad_norm_(*params, 1.0); }});
  }

  // Moving modules.
  {
    auto m = std::make_shared<torch::jit::Module>("m");
    list.push_back({"module", "torch::jit::Module::to", "a module with one CPU parameter [64], to CUDA",
                    [m] mutable { m->to(torch::kCUDA); },
                    [m] mutable {
                      *m = torch::jit::Module("m");
                      m->register_parameter("w", torch::randn({64}), false);
                    }});
    auto lin = torch::nn::Linear(64, 64);
    list.push_back({"module", "torch::nn::Module::to", "Linear(64, 64) from CPU to CUDA",
                    [lin] mutable { lin->to(torch::kCUDA); }, [lin] mutable { lin->to(torch::kCPU); }});
    auto linCuda = torch::nn::Linear(64, 64);
    linCuda->to(torch::kCUDA);
    list.push_back({"module", "torch::nn::Module::to", "Linear(64, 64) already on CUDA, to CUDA",
                    [linCuda] mutable { linCuda->to(torch::kCUDA); }});
  }

  // Tensor factories from host data.
  list.push_back({"factory", "at::tensor", "a list of 3 floats, CUDA options",
                  [cuda] mutable { (void)at::tensor({1.0f, 2.0f, 3.0f}, cuda); }});
  list.push_back({"factory", "torch::tensor", "a list of 3 floats, CUDA options",
                  [cuda] mutable { (void)torch::tensor({1.0f, 2.0f, 3.0f}, cuda); }});
  list.push_back(
      {"factory", "at::tensor", "one float, CUDA options", [cuda] mutable { (void)at::tensor(1.0f, cuda); }});
  list.push_back({"factory", "torch::tensor", "one float, CUDA options",
                  [cuda] mutable { (void)torch::tensor(1.0f, cuda); }});
  list.push_back({"factory", "torch::from_blob(...).to", "host array of 3 floats to CUDA", [] mutable {
                    static float data[3] = {1, 2, 3};
                    (void)torch::from_blob(data, {3}).to(torch::kCUDA);
                  }});

  // LibTorch's explicit waits, under their 2.x names.
  list.push_back({"explicit", "torch::cuda::synchronize", "", [] mutable { torch::cuda::synchronize(); }});
  list.push_back({"explicit", "c10::cuda::CUDAStream::synchronize", "the current stream",
                  [] mutable { at::cuda::getCurrentCUDAStream().synchronize(); }});
  {
    auto ev = std::make_shared<at::cuda::CUDAEvent>();
    auto record = [ev] { ev->record(at::cuda::getCurrentCUDAStream()); };
    list.push_back({"explicit", "c10::cuda::CUDAEvent::synchronize",
                    "an event recorded after the queued work", [ev] mutable { ev->synchronize(); }});
    list.back().afterSleep = record;
    list.push_back({"explicit", "c10::cuda::CUDAEvent::query", "an event recorded after the queued work",
                    [ev] mutable { (void)ev->query(); }});
    list.back().afterSleep = record;
    auto rawEvent = std::make_shared<cudaEvent_t>();
    cudaEventCreateWithFlags(rawEvent.get(), cudaEventDisableTiming);
    list.push_back({"cuda-runtime", "cudaEventSynchronize", "an event recorded after the queued work",
                    [rawEvent] mutable { cudaEventSynchronize(*rawEvent); }});
    list.back().afterSleep = [rawEvent] {
      cudaEventRecord(*rawEvent, at::cuda::getCurrentCUDAStream().stream());
    };
  }
  list.push_back({"explicit", "c10::cuda::CUDACachingAllocator::emptyCache", "one freed 64 MiB block cached",
                  [] mutable { c10::cuda::CUDACachingAllocator::emptyCache(); },
                  [] mutable { (void)torch::empty({16 << 20}, torch::kCUDA); }});
  list.push_back({"explicit", "c10::cuda::CUDACachingAllocator::emptyCache", "nothing cached",
                  [] mutable { c10::cuda::CUDACachingAllocator::emptyCache(); },
                  [] mutable { c10::cuda::CUDACachingAllocator::emptyCache(); }});

  // The CUDA runtime and driver: implicit synchronization.
  auto ptr = std::make_shared<void *>(nullptr);
  auto host = std::make_shared<std::vector<char>>(1 << 20);
  auto stream = [] mutable { return at::cuda::getCurrentCUDAStream().stream(); };
  list.push_back({"cuda-runtime", "cudaFree", "a 1 MiB device allocation", [ptr] mutable { cudaFree(*ptr); },
                  [ptr] mutable { cudaMalloc(ptr.get(), 1 << 20); }});
  list.push_back({"cuda-runtime", "cudaMalloc", "1 MiB", [ptr] mutable { cudaMalloc(ptr.get(), 1 << 20); },
                  [] mutable {},
                  [ptr] mutable {
                    c10::cuda::device_synchronize();
                    cudaFree(*ptr);
                  }});
  list.push_back({"cuda-runtime", "cudaMallocAsync", "1 MiB on the current stream",
                  [ptr, stream] mutable { cudaMallocAsync(ptr.get(), 1 << 20, stream()); }, [] mutable {},
                  [ptr, stream] mutable { cudaFreeAsync(*ptr, stream()); }});
  list.push_back({"cuda-runtime", "cudaFreeAsync", "1 MiB on the current stream",
                  [ptr, stream] mutable { cudaFreeAsync(*ptr, stream()); },
                  [ptr, stream] mutable { cudaMallocAsync(ptr.get(), 1 << 20, stream()); }});
  list.push_back({"cuda-runtime", "cudaMallocHost", "1 MiB pinned",
                  [ptr] mutable { cudaMallocHost(ptr.get(), 1 << 20); }, [] mutable {},
                  [ptr] mutable {
                    c10::cuda::device_synchronize();
                    cudaFreeHost(*ptr);
                  }});
  list.push_back({"cuda-runtime", "cudaHostAlloc", "1 MiB pinned",
                  [ptr] mutable { cudaHostAlloc(ptr.get(), 1 << 20, cudaHostAllocDefault); }, [] mutable {},
                  [ptr] mutable {
                    c10::cuda::device_synchronize();
                    cudaFreeHost(*ptr);
                  }});
  list.push_back({"cuda-runtime", "cudaFreeHost", "1 MiB pinned", [ptr] mutable { cudaFreeHost(*ptr); },
                  [ptr] mutable { cudaMallocHost(ptr.get(), 1 << 20); }});
  list.push_back({"cuda-runtime", "cudaHostRegister", "1 MiB of pageable memory",
                  [host] mutable { cudaHostRegister(host->data(), host->size(), cudaHostRegisterDefault); },
                  [] mutable {},
                  [host] mutable {
                    c10::cuda::device_synchronize();
                    cudaHostUnregister(host->data());
                  }});
  list.push_back({"cuda-runtime", "cudaHostUnregister", "1 MiB of registered memory",
                  [host] mutable { cudaHostUnregister(host->data()); },
                  [host] mutable { cudaHostRegister(host->data(), host->size(), cudaHostRegisterDefault); }});
  auto dev = std::make_shared<void *>(nullptr);
  auto dev2 = std::make_shared<void *>(nullptr);
  auto pinned = std::make_shared<void *>(nullptr);
  cudaMalloc(dev.get(), 1 << 20);
  cudaMalloc(dev2.get(), 1 << 20);
  cudaMallocHost(pinned.get(), 1 << 20);
  list.push_back({"cuda-runtime", "cudaMemset", "1 MiB of device memory",
                  [dev] mutable { cudaMemset(*dev, 0, 1 << 20); }});
  list.push_back({"cuda-runtime", "cudaMemsetAsync", "1 MiB of device memory, current stream",
                  [dev, stream] mutable { cudaMemsetAsync(*dev, 0, 1 << 20, stream()); }});
  list.push_back({"cuda-runtime", "cudaMemcpy", "DtoD 1 MiB",
                  [dev, dev2] mutable { cudaMemcpy(*dev2, *dev, 1 << 20, cudaMemcpyDeviceToDevice); }});
  list.push_back({"cuda-runtime", "cudaMemcpy", "DtoH 1 MiB into pageable memory",
                  [dev, host] mutable { cudaMemcpy(host->data(), *dev, 1 << 20, cudaMemcpyDeviceToHost); }});
  list.push_back(
      {"cuda-runtime", "cudaMemcpyAsync", "DtoH 1 MiB into pageable memory", [dev, host, stream] mutable {
         cudaMemcpyAsync(host->data(), *dev, 1 << 20, cudaMemcpyDeviceToHost, stream());
       }});
  list.push_back(
      {"cuda-runtime", "cudaMemcpyAsync", "DtoH 1 MiB into pinned memory", [dev, pinned, stream] mutable {
         cudaMemcpyAsync(*pinned, *dev, 1 << 20, cudaMemcpyDeviceToHost, stream());
       }});
  list.push_back(
      {"cuda-runtime", "cudaMemcpyAsync", "HtoD 1 MiB from pageable memory", [dev, host, stream] mutable {
         cudaMemcpyAsync(*dev, host->data(), 1 << 20, cudaMemcpyHostToDevice, stream());
       }});
  list.push_back(
      {"cuda-runtime", "cudaMemcpyAsync", "HtoD 1 MiB from pinned memory", [dev, pinned, stream] mutable {
         cudaMemcpyAsync(*dev, *pinned, 1 << 20, cudaMemcpyHostToDevice, stream());
       }});
  list.push_back({"cuda-runtime", "cudaMemcpyAsync", "DtoD 1 MiB", [dev, dev2, stream] mutable {
                    cudaMemcpyAsync(*dev2, *dev, 1 << 20, cudaMemcpyDeviceToDevice, stream());
                  }});
  // The other asynchronous copies to the host, into pageable memory and into pinned memory, and the copies
  // between host memory and a CUDA array (1024 rows of 1 KiB).
  list.push_back({"cuda-runtime", "cudaMemcpyAsync", "Default kind, device to 1 MiB of pageable memory",
                  [dev, host, stream] mutable {
                    cudaMemcpyAsync(host->data(), *dev, 1 << 20, cudaMemcpyDefault, stream());
                  }});
  list.push_back(
      {"cuda-runtime", "cudaMemcpy2DAsync", "DtoH 1 MiB into pageable memory", [dev, host, stream] mutable {
         cudaMemcpy2DAsync(host->data(), 1024, *dev, 1024, 1024, 1024, cudaMemcpyDeviceToHost, stream());
       }});
  list.push_back(
      {"cuda-runtime", "cudaMemcpy2DAsync", "DtoH 1 MiB into pinned memory", [dev, pinned, stream] mutable {
         cudaMemcpy2DAsync(*pinned, 1024, *dev, 1024, 1024, 1024, cudaMemcpyDeviceToHost, stream());
       }});
  auto array = std::make_shared<cudaArray_t>(nullptr);
  auto array2 = std::make_shared<cudaArray_t>(nullptr);
  cudaChannelFormatDesc channel = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaMallocArray(array.get(), &channel, 256, 1024);
  cudaMallocArray(array2.get(), &channel, 256, 1024);
  list.push_back({"cuda-runtime", "cudaMemcpy2DToArray", "1 MiB from pageable memory", [array, host] mutable {
                    cudaMemcpy2DToArray(*array, 0, 0, host->data(), 1024, 1024, 1024, cudaMemcpyHostToDevice);
                  }});
  list.push_back(
      {"cuda-runtime", "cudaMemcpy2DFromArray", "1 MiB into pageable memory", [array, host] mutable {
         cudaMemcpy2DFromArray(host->data(), 1024, *array, 0, 0, 1024, 1024, cudaMemcpyDeviceToHost);
       }});
  list.push_back({"cuda-runtime", "cudaMemcpy2DArrayToArray", "1 MiB", [array, array2] mutable {
                    cudaMemcpy2DArrayToArray(*array2, 0, 0, *array, 0, 0, 1024, 1024);
                  }});
  list.push_back({"cuda-runtime", "cudaMemcpyToArray", "1 MiB from pageable memory", [array, host] mutable {
                    cudaMemcpyToArray(*array, 0, 0, host->data(), 1 << 20, cudaMemcpyHostToDevice);
                  }});
  list.push_back({"cuda-runtime", "cudaMemcpyFromArray", "1 MiB into pageable memory", [array, host] mutable {
                    cudaMemcpyFromArray(host->data(), *array, 0, 0, 1 << 20, cudaMemcpyDeviceToHost);
                  }});
  list.push_back({"cuda-runtime", "cudaMemcpy2DFromArrayAsync", "1 MiB into pageable memory, current stream",
                  [array, host, stream] mutable {
                    cudaMemcpy2DFromArrayAsync(host->data(), 1024, *array, 0, 0, 1024, 1024,
                                               cudaMemcpyDeviceToHost, stream());
                  }});
  list.push_back({"cuda-runtime", "cudaMemcpy2DFromArrayAsync", "1 MiB into pinned memory, current stream",
                  [array, pinned, stream] mutable {
                    cudaMemcpy2DFromArrayAsync(*pinned, 1024, *array, 0, 0, 1024, 1024,
                                               cudaMemcpyDeviceToHost, stream());
                  }});
  list.push_back({"cuda-runtime", "cudaMemcpyFromArrayAsync", "1 MiB into pageable memory, current stream",
                  [array, host, stream] mutable {
                    cudaMemcpyFromArrayAsync(host->data(), *array, 0, 0, 1 << 20, cudaMemcpyDeviceToHost,
                                             stream());
                  }});
  list.push_back({"cuda-runtime", "cudaStreamQuery", "the current stream",
                  [stream] mutable { (void)cudaStreamQuery(stream()); }});
  list.push_back({"cuda-runtime", "cudaDeviceSynchronize", "", [] mutable { cudaDeviceSynchronize(); }});
  list.push_back({"cuda-runtime", "cudaStreamSynchronize", "the current stream",
                  [stream] mutable { cudaStreamSynchronize(stream()); }});
  auto dptr = std::make_shared<CUdeviceptr>(0);
  list.push_back({"cuda-driver", "cuMemFree", "a 1 MiB device allocation",
                  [dptr] mutable { cuMemFree(*dptr); }, [dptr] mutable { cuMemAlloc(dptr.get(), 1 << 20); }});
  list.push_back({"cuda-driver", "cuMemAlloc", "1 MiB", [dptr] mutable { cuMemAlloc(dptr.get(), 1 << 20); },
                  [] mutable {},
                  [dptr] mutable {
                    c10::cuda::device_synchronize();
                    cuMemFree(*dptr);
                  }});
  list.push_back({"cuda-driver", "cuMemsetD8", "1 MiB of device memory",
                  [dev] mutable { cuMemsetD8(reinterpret_cast<CUdeviceptr>(*dev), 0, 1 << 20); }});
  list.push_back({"cuda-driver", "cuMemcpyDtoH", "1 MiB into pageable memory", [dev, host] mutable {
                    cuMemcpyDtoH(host->data(), reinterpret_cast<CUdeviceptr>(*dev), 1 << 20);
                  }});
  list.push_back({"cuda-driver", "cuMemcpyHtoDAsync", "1 MiB from pageable memory, current stream",
                  [dev, host, stream] mutable {
                    cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(*dev), host->data(), 1 << 20, stream());
                  }});
  list.push_back({"cuda-driver", "cuMemcpyDtoHAsync", "1 MiB into pageable memory, current stream",
                  [dev, host, stream] mutable {
                    cuMemcpyDtoHAsync(host->data(), reinterpret_cast<CUdeviceptr>(*dev), 1 << 20, stream());
                  }});
  list.push_back({"cuda-driver", "cuMemcpyDtoHAsync", "1 MiB into pinned memory, current stream",
                  [dev, pinned, stream] mutable {
                    cuMemcpyDtoHAsync(*pinned, reinterpret_cast<CUdeviceptr>(*dev), 1 << 20, stream());
                  }});
  list.push_back({"cuda-driver", "cuMemcpyAsync", "DtoH 1 MiB into pageable memory, current stream",
                  [dev, host, stream] mutable {
                    cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(host->data()),
                                  reinterpret_cast<CUdeviceptr>(*dev), 1 << 20, stream());
                  }});
  // Copies from a __device__ symbol (symbol_cases.cu).
  for (SourceCase &c : symbolCases(host->data(), *pinned))
    list.push_back({"cuda-runtime", c.function, c.arguments, c.call});
  // Thrust's algorithms (thrust_cases.cu).
  for (ThrustCase &c : thrustCases())
    list.push_back({"thrust", c.function, c.arguments, c.call});
  return list;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: frontend_census OUT.jsonl\n");
    return 2;
  }
  if (!torch::cuda::is_available()) {
    std::fprintf(stderr, "frontend_census: no CUDA device\n");
    return 77;
  }
  (void)torch::ones({1}, torch::kCUDA); // create the context before CUPTI subscribes
  if (tsc_start() != 0) {
    std::fprintf(stderr, "frontend_census: CUPTI unavailable: %s\n", tsc_error());
    return 2;
  }
  calibrate();
  std::ofstream out(argv[1]);
  for (Entry &e : entries()) {
    try {
      e.setup();
      e.call(); // warm-up
      e.teardown();
      e.setup();
      std::string line = measure(e, 5.0);
      // A slow host call can look like a wait: a long sleep tells them apart.
      if (line.find("\"waited\": true") != std::string::npos) {
        e.teardown();
        e.setup();
        std::string confirm = measure(e, 100.0);
        out << confirm << "\n";
      } else {
        out << line << "\n";
      }
      e.teardown();
    } catch (const std::exception &ex) {
      out << "{\"group\": \"" << e.group << "\", \"function\": \"" << escape(e.function)
          << "\", \"arguments\": \"" << escape(e.arguments) << "\", \"error\": \""
          << escape(std::string(ex.what()).substr(0, 300)) << "\"}\n";
    }
    out.flush();
  }
  return 0;
}
