// OLDER-LIBTORCH: torch::nn's modules and torch::save as each release declares them
// RUN: %check_torch_sync --checks=-*,torch-sync-device-to-host --temp %t %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-device-to-host --temp %t-known --check-suffix=KNOWN \
// RUN:   --config="{CheckOptions: {ReportUnknownDevice: false}}" %s -- %libtorch_flags

// torch::nn::Module::to(Device) copies every parameter and buffer; the GPU
// suite saw one pageable host-to-device copy and one stream synchronize per
// parameter (samples/training_loop_logging.cpp).
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/serialize.h>

void positiveModuleMoves(torch::Device device) {
  torch::nn::Linear model(4, 2);
  model->to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'torch::nn::Module::to' makes one blocking copy per parameter and buffer between host and device and waits for the current stream [torch-sync-device-to-host]
  // CHECK-MESSAGES: :[[@LINE-2]]:10: note: consider moving the model once at start-up, before work is queued on the device, where the wait costs nothing
  // CHECK-MESSAGES-KNOWN: :[[@LINE-3]]:10: warning: 'torch::nn::Module::to' makes one blocking copy per parameter
  model->to(device, torch::kHalf);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'torch::nn::Module::to' makes one blocking copy per parameter
  for (int step = 0; step < 3; ++step) {
    model->to(torch::Device(torch::kCUDA, 0), /*non_blocking=*/false);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'torch::nn::Module::to' makes one blocking copy per parameter and buffer between host and device and waits for the current stream
    // CHECK-MESSAGES: :[[@LINE-2]]:12: note: consider
    // CHECK-MESSAGES: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
    // CHECK-MESSAGES-KNOWN: :[[@LINE-4]]:12: warning: 'torch::nn::Module::to' makes one blocking copy per parameter
  }
}

// Negative cases: a dtype conversion stays on the module's device, a move to
// the CPU of a module built there copies nothing, a non-blocking move is
// left alone (as for tensors), and a tensor's own 'to' is another rule's.
void negativeModuleMoves() {
  torch::nn::Linear model(4, 2);
  model->to(torch::kHalf);
  model->to(torch::kCPU);
  model->to(torch::kCUDA, /*non_blocking=*/true);
}

// torch::save of a module copies each parameter on the device to the host
// (census-frontend.tsv: 'torch::save | a CUDA torch::nn::Linear(64, 64)'):
// reported unless the module is known to be on the CPU.
void positiveModuleSaves(torch::nn::Sequential given, std::ostream &out) {
  torch::nn::Sequential moved{torch::nn::Linear(4, 4), torch::nn::ReLU()};
  moved->to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'torch::nn::Module::to' makes one blocking copy per parameter
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:10: warning: 'torch::nn::Module::to' makes one blocking copy per parameter
  torch::save(moved, out);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'torch::save' copies each device tensor it saves to the host
  torch::save(given, out);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'torch::save' copies each device tensor it saves to the host
  // A holder variable given to the container shares its module, which can
  // still be moved through that variable.
  torch::nn::Linear shared(4, 4);
  torch::nn::Sequential sharing{shared};
  shared->to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'torch::nn::Module::to' makes one blocking copy per parameter
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:11: warning: 'torch::nn::Module::to' makes one blocking copy per parameter
  torch::save(sharing, out);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'torch::save' copies each device tensor it saves to the host
}

// Negative cases: a leaf module or a Sequential built in place from leaf
// modules (pytorch-cpp's pytorch_basics), a ModuleList of them or an empty
// Sequential is on the CPU;
// a load after the save does not reach back to it.
void negativeModuleSaves(std::ostream &out, std::istream &in) {
  torch::nn::Sequential model{
      torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 16, 3).stride(2)),
      torch::nn::ReLU()};
  torch::save(model, out);
  torch::load(model, in);
  torch::nn::Linear leaf(4, 2);
  torch::save(leaf, out);
  torch::nn::ModuleList list{torch::nn::Linear(2, 2), torch::nn::Dropout(0.5)};
  torch::save(list, out);
  torch::nn::Sequential none;
  torch::save(none, out);
}

// torch::save of a list of tensors: a local vector filled with host copies,
// or a braced list of host tensors, is written without a copy; a vector of
// tensors from elsewhere may hold device tensors.
void listSaves(const std::vector<at::Tensor> &items, std::ostream &out) {
  std::vector<at::Tensor> host;
  for (const at::Tensor &t : items)
    host.push_back(t.to(torch::kCPU));
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'to' copies the tensor to the host and waits for the current stream
  // CHECK-MESSAGES: :{{[0-9]+}}:{{[0-9]+}}: note: the call runs on every iteration of this loop
  torch::save(host, out);
  at::Tensor counts = torch::tensor(std::vector<float>{1.0f, 2.0f});
  torch::save({counts}, out);
  torch::save(items, out);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'torch::save' copies each device tensor it saves to the host
}
