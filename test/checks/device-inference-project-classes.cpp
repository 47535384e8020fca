// RUN: %check_torch_sync --checks=-*,torch-sync-item --temp %t %s -- %mock_libtorch_flags
//
// A call of a method of one of the project's classes returns what the
// method's returns give: a private member that every member of the class (all
// defined in this translation unit) gives CPU tensors is on the CPU, and so is
// what is computed from it. A virtual method, a member that may be given any
// tensor, or a module (whose 'to()' moves the tensors it holds) stays unknown.

#include <ATen/core/Tensor.h>
#include <ATen/ops/zeros.h>
#include <torch/nn/module.h>

class Histogram {
public:
  explicit Histogram(int64_t Bins) : Counts(at::zeros({Bins})) {}
  void clear() { Counts = at::zeros({Counts.size(0)}); }
  at::Tensor normalized() const { return Counts / Counts.sum(); }
  at::Tensor counts() const { return Counts; }

private:
  at::Tensor Counts;
};

// Built without a device: its tensors are on the CPU, and so are its results.
float peak(const Histogram &H) { return H.normalized().max().item<float>(); }
float firstCount(const Histogram &H) { return H.counts()[0].item<float>(); }

class Buffer {
public:
  void set(const at::Tensor &Value) { Data = Value; }
  at::Tensor data() const { return Data; }

private:
  at::Tensor Data;
};

// 'set' may give it any tensor.
float head(const Buffer &B) { return B.data()[0].item<float>(); }
// CHECK-MESSAGES: :[[@LINE-1]]:50: warning: 'item' copies a tensor element

class Source {
public:
  Source() : Values(at::zeros({4})) {}
  virtual ~Source() = default;
  virtual at::Tensor values() const { return Values; }

private:
  at::Tensor Values;
};

// Virtual: an override may return anything.
float firstValue(const Source &S) { return S.values()[0].item<float>(); }
// CHECK-MESSAGES: :[[@LINE-1]]:58: warning: 'item' copies a tensor element

struct Net : torch::nn::Module {
  Net() : Weight(register_parameter("weight", at::zeros({4}))) {}
  at::Tensor weight() const { return Weight; }

private:
  at::Tensor Weight;
};

// A module: 'net.to(device)' moves its parameters.
float firstWeight(const Net &N) { return N.weight()[0].item<float>(); }
// CHECK-MESSAGES: :[[@LINE-1]]:56: warning: 'item' copies a tensor element
