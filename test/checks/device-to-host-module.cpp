// RUN: %check_torch_sync --checks=-*,torch-sync-device-to-host --temp %t %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-device-to-host --temp %t-known --check-suffix=KNOWN \
// RUN:   --config="{CheckOptions: {ReportUnknownDevice: false}}" %s -- %libtorch_flags

// torch::nn::Module::to(Device) copies every parameter and buffer; the GPU
// suite saw one pageable host-to-device copy and one stream synchronize per
// parameter (samples/training_loop_logging.cpp).
#include <torch/nn/modules/linear.h>

void positiveModuleMoves(torch::Device device) {
  torch::nn::Linear model(4, 2);
  model->to(torch::kCUDA);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'torch::nn::Module::to' copies every parameter and buffer of the module between host and device (one blocking copy each) and waits for the current stream's queued work; consider moving the model once at start-up, before work is queued on the device, where the wait costs nothing [torch-sync-device-to-host]
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:10: warning: 'torch::nn::Module::to' copies every parameter
  model->to(device, torch::kHalf);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'torch::nn::Module::to' copies every parameter
  for (int step = 0; step < 3; ++step) {
    model->to(torch::Device(torch::kCUDA, 0), /*non_blocking=*/false);
    // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'torch::nn::Module::to' copies every parameter and buffer of the module between host and device (one blocking copy each) and waits for the current stream's queued work, on every loop iteration;
    // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:12: warning: 'torch::nn::Module::to' copies every parameter
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
