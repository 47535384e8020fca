// torch-sync-transitive follows the calls a function makes without writing
// them: constructors (of variables, members and bases, 'new' and
// temporaries), destructors (at the end of a scope, of temporaries, by
// 'delete', of members and bases), user-defined conversions (implicit and by
// cast), and lambdas called later through a variable or a std::function.
// Each has a sync-free twin.
//
// REQUIRES: cuda-headers
// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t %s -- \
// RUN:   %libtorch_flags %cuda_flags %libtorch_cuda_flags

#include <ATen/core/Tensor.h>
#include <ATen/ops/ones.h>
#include <cuda_runtime_api.h>
#include <functional>

at::Tensor onDevice() { return at::ones({4}, at::kCUDA); }

// 1. Constructors.
struct MeanReader {
  double mean;
  explicit MeanReader(const at::Tensor &values) : mean(values.item<double>()) {}
};
struct Holder {
  MeanReader reader;
  explicit Holder(const at::Tensor &values) : reader(values) {}
  // CHECK-MESSAGES: :[[@LINE-1]]:47: warning: 'MeanReader::MeanReader' (the constructor of the member 'reader') calls 'item' in its body, which blocks the host
  // CHECK-MESSAGES: :22:63: note: 'item' synchronizes here
};
struct Derived : MeanReader {
  explicit Derived(const at::Tensor &values) : MeanReader(values) {}
  // CHECK-MESSAGES: :[[@LINE-1]]:48: warning: 'MeanReader::MeanReader' (the constructor of the base 'MeanReader') calls 'item' in its body, which blocks the host
  // CHECK-MESSAGES: :22:63: note: 'item' synchronizes here
};
// Its implicit constructor constructs the member from its default initializer.
struct Composite {
  MeanReader reader{onDevice()};
};
// Its implicit constructor reads the loss in a member's default initializer.
struct FirstLoss {
  double loss = onDevice().item<double>();
};
struct Stateless {
  at::Tensor scale = at::ones({1}, at::kCUDA);
};
struct LazyModel {
  at::Tensor weight;
  LazyModel() : weight(at::ones({4}, at::kCUDA)) {}
};

double constructors() {
  at::Tensor values = onDevice();
  MeanReader reader(values);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'MeanReader::MeanReader' (the constructor of 'reader') calls 'item' in its body, which blocks the host
  // CHECK-MESSAGES: :22:63: note: 'item' synchronizes here
  Holder holder(values);
  // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'Holder::Holder' (the constructor of 'holder') calls 'MeanReader::MeanReader' in its body, which blocks the host
  // CHECK-MESSAGES: :26:47: note: 'MeanReader::MeanReader' (the constructor of the member 'reader') synchronizes here
  // CHECK-MESSAGES: :22:63: note: 'item' synchronizes here, 2 calls deep
  Derived derived(values);
  // CHECK-MESSAGES: :[[@LINE-1]]:11: warning: 'Derived::Derived' (the constructor of 'derived') calls 'MeanReader::MeanReader' in its body, which blocks the host
  // CHECK-MESSAGES: :31:48: note: 'MeanReader::MeanReader' (the constructor of the base 'MeanReader') synchronizes here
  // CHECK-MESSAGES: :22:63: note: 'item' synchronizes here, 2 calls deep
  Composite composite;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'Composite::Composite' (the constructor of 'composite') calls 'MeanReader::MeanReader' in its body, which blocks the host
  // CHECK-MESSAGES: :36:8: note: 'MeanReader::MeanReader' (the constructor of the member 'reader') synchronizes here
  // CHECK-MESSAGES: :22:63: note: 'item' synchronizes here, 2 calls deep
  FirstLoss first;
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'FirstLoss::FirstLoss' (the constructor of 'first') calls 'item' in its body, which blocks the host
  // CHECK-MESSAGES: :41:28: note: 'item' synchronizes here
  MeanReader *owned = new MeanReader(values);
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'MeanReader::MeanReader' (the constructor run by 'new') calls 'item' in its body, which blocks the host
  // CHECK-MESSAGES: :22:63: note: 'item' synchronizes here
  double total = reader.mean + holder.reader.mean + derived.mean + owned->mean +
                 composite.reader.mean + first.loss;
  total += MeanReader(values).mean;
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'MeanReader::MeanReader' (the constructor of a temporary) calls 'item' in its body, which blocks the host
  // CHECK-MESSAGES: :22:63: note: 'item' synchronizes here
  delete owned;
  return total;
}

double constructorTwins() {
  at::Tensor host = at::ones({4});
  MeanReader reader(host);
  Holder holder(host);
  LazyModel model;
  Stateless stateless;
  return reader.mean + holder.reader.mean;
}

// 2. Destructors. A variable's is reported at the closing brace of its
// scope, where the GPU sees it (g++ -g puts the call there on every way out),
// with a note at the declaration; one warning per brace.
struct DeviceBuffer {
  float *data = nullptr;
  DeviceBuffer() { cudaMalloc(reinterpret_cast<void **>(&data), 64); }
  ~DeviceBuffer() { cudaFree(data); }
};
struct StreamBuffer {
  float *data = nullptr;
  cudaStream_t stream = nullptr;
  StreamBuffer() { cudaMallocAsync(reinterpret_cast<void **>(&data), 64, stream); }
  ~StreamBuffer() { cudaFreeAsync(data, stream); }
};
struct LossLogger {
  at::Tensor total;
  double *sink;
  ~LossLogger() { *sink = total.item<double>(); }
};
struct Workspace {
  DeviceBuffer buffer;
};
struct StreamWorkspace {
  StreamBuffer buffer;
};

void destructors(double *sink) {
  {
    DeviceBuffer buffer;
    cudaMemset(buffer.data, 0, 64);
  }
    // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'DeviceBuffer::~DeviceBuffer' (the destructor of 'buffer', run at its scope's end) calls 'cudaFree' in its body, which blocks the host
    // CHECK-MESSAGES: :[[@LINE-2]]:3: note: consider a variant that keeps the value on the device, or calling it outside the hot path
    // CHECK-MESSAGES: :120:18: note: 'buffer' is destroyed at the end of its scope by 'DeviceBuffer::~DeviceBuffer'
    // CHECK-MESSAGES: :98:21: note: 'cudaFree' synchronizes here
  {
    LossLogger logger{onDevice(), sink};
  }
    // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'LossLogger::~LossLogger' (the destructor of 'logger', run at its scope's end) calls 'item' in its body, which blocks the host
    // CHECK-MESSAGES: :128:16: note: 'logger' is destroyed at the end of its scope by 'LossLogger::~LossLogger'
    // CHECK-MESSAGES: :109:33: note: 'item' synchronizes here
  Workspace workspace;
  DeviceBuffer *owned = new DeviceBuffer;
  delete owned;
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'DeviceBuffer::~DeviceBuffer' (the destructor run by 'delete') calls 'cudaFree' in its body, which blocks the host
  // CHECK-MESSAGES: :98:21: note: 'cudaFree' synchronizes here
  cudaMemset(DeviceBuffer().data, 0, 64);
  // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'DeviceBuffer::~DeviceBuffer' (the destructor of a temporary, run at the end of the full-expression) calls 'cudaFree' in its body, which blocks the host
  // CHECK-MESSAGES: :98:21: note: 'cudaFree' synchronizes here
}
  // CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'Workspace::~Workspace' (the destructor of 'workspace', run at its scope's end) calls 'DeviceBuffer::~DeviceBuffer' in its body, which blocks the host
  // CHECK-MESSAGES: :133:13: note: 'workspace' is destroyed at the end of its scope by 'Workspace::~Workspace'
  // CHECK-MESSAGES: :111:8: note: 'DeviceBuffer::~DeviceBuffer' (the destructor of the member 'buffer') synchronizes here
  // CHECK-MESSAGES: :98:21: note: 'cudaFree' synchronizes here, 2 calls deep

// On every way out of the scope, the destructor runs at its closing brace.
void earlyReturn(bool skip) {
  DeviceBuffer buffer;
  if (skip)
    return;
  cudaMemset(buffer.data, 0, 64);
}
  // CHECK-MESSAGES: :[[@LINE-1]]:1: warning: 'DeviceBuffer::~DeviceBuffer' (the destructor of 'buffer', run at its scope's end) calls 'cudaFree' in its body, which blocks the host
  // CHECK-MESSAGES: :[[@LINE-2]]:1: note: consider a variant that keeps the value on the device, or calling it outside the hot path
  // CHECK-MESSAGES: :149:16: note: 'buffer' is destroyed at the end of its scope by 'DeviceBuffer::~DeviceBuffer'
  // CHECK-MESSAGES: :98:21: note: 'cudaFree' synchronizes here

void destructorTwins() {
  StreamBuffer buffer;
  StreamWorkspace workspace;
  StreamBuffer *owned = new StreamBuffer;
  delete owned;
}

// 3. Conversions.
struct DeviceScalar {
  at::Tensor value;
  operator double() const { return value.item<double>(); }
};
struct HostScalar {
  double value;
  operator double() const { return value; }
};

double conversions() {
  DeviceScalar scalar{onDevice()};
  double implicit = scalar;
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'DeviceScalar::operator double' (the conversion to 'double') calls 'item' in its body, which blocks the host
  // CHECK-MESSAGES: :169:42: note: 'item' synchronizes here
  double cast = static_cast<double>(scalar);
  // CHECK-MESSAGES: :[[@LINE-1]]:37: warning: 'DeviceScalar::operator double' (the conversion to 'double') calls 'item' in its body, which blocks the host
  // CHECK-MESSAGES: :169:42: note: 'item' synchronizes here
  HostScalar host{1.0};
  double twin = host;
  return implicit + cast + twin;
}

// 4. Lambdas stored and called later; functors.
struct SumReader {
  double operator()(const at::Tensor &values) const {
    return values.sum().item<double>();
  }
};

double storedCallables() {
  at::Tensor values = onDevice();
  auto read = [&values] { return values.item<double>(); };
  std::function<double()> stored = [&values] { return values.item<double>(); };
  std::function<at::Tensor()> keep = [&values] { return values.sum(); };
  // Assigned again: which callable runs is not known where it is called.
  std::function<double()> swapped = [&values] { return values.item<double>(); };
  swapped = [] { return 0.0; };
  SumReader reader;
  double total = read();
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'lambda in storedCallables' calls 'item' in its body, which blocks the host
  // CHECK-MESSAGES: :198:41: note: 'item' synchronizes here
  total += stored();
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'lambda in storedCallables' (the lambda stored in 'stored') calls 'item' in its body, which blocks the host
  // CHECK-MESSAGES: :199:62: note: 'item' synchronizes here
  total += reader(values);
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'SumReader::operator()' calls 'item' in its body, which blocks the host
  // CHECK-MESSAGES: :192:25: note: 'item' synchronizes here
  total += reader(at::ones({4}));
  keep();
  total += swapped();
  return total;
}
