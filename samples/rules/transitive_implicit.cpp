// torch-sync-transitive, calls not written as calls: constructors,
// destructors, user-defined conversions and stored callables whose bodies
// synchronize.
//
// One rule_* function per call the check reports (a constructor that reads a
// value, the constructor of a class whose member's constructor reads one,
// 'new' and a temporary of that class; the destructor of a device buffer
// that calls cudaFree, at the end of its scope, as a member's, by 'delete'
// and of a temporary; a destructor that reads a value; a conversion to
// double that reads one, implicit and by cast; a lambda called through a
// std::function, and a functor) and one exempt_* function per sync-free twin
// it must stay silent on (a constructor that keeps the value on the device, a
// buffer freed in stream order with cudaFreeAsync, a conversion to a tensor,
// a std::function that keeps the value on the device).
//
// A destructor at the end of a scope runs at the scope's closing brace: that
// is the line the GPU sees the call on (g++ -g puts it there), and the line
// the check reports. Every call that may synchronize is on a line of its own.
// Device memory for the cudaFree rules is allocated (cudaMalloc) in the
// constructor, before the queued work. It calls the CUDA runtime, so it needs
// a CUDA build of LibTorch and a GPU; without one, main returns at once.
#include <torch/torch.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <iostream>
#include <utility>
#include <vector>

namespace {

// Host values read by the samples; volatile, so that no read is optimized
// away.
volatile double hostSink = 0;

// Tensor results, kept on the device until main returns and never read.
std::vector<torch::Tensor> deviceResults;
void keep(torch::Tensor result) { deviceResults.push_back(std::move(result)); }

constexpr size_t kBytes = 1024;

// Four floats on the given device.
torch::Tensor floatValues(torch::Device device) {
  return torch::arange(
      4, torch::TensorOptions().device(device).dtype(torch::kFloat));
}

// Queues a kernel on the current stream, for the waits to wait for.
void queueWork(torch::Device device) {
  keep(torch::zeros({256}, torch::TensorOptions().device(device)).add_(1));
}

//===-- 1. Constructors ---------------------------------------------------===//

// Reads the mean on the host when constructed.
struct MeanReader {
  double mean;
  explicit MeanReader(const torch::Tensor &values)
      : mean(values.mean().item<double>()) {}
};

// Its member's constructor reads the mean.
struct MeanReport {
  MeanReader reader;
  explicit MeanReport(const torch::Tensor &values) : reader(values) {}
};

// Twin of MeanReader: keeps the mean on the device.
struct MeanKeeper {
  torch::Tensor mean;
  explicit MeanKeeper(const torch::Tensor &values) : mean(values.mean()) {}
};

void rule_constructor_reading_item(torch::Device device) {
  auto values = floatValues(device);
  MeanReader reader(values);
  hostSink = reader.mean;
}

void rule_member_constructor_reading_item(torch::Device device) {
  auto values = floatValues(device);
  MeanReport report(values);
  hostSink = report.reader.mean;
}

void rule_new_reading_item(torch::Device device) {
  auto values = floatValues(device);
  auto *reader = new MeanReader(values);
  hostSink = reader->mean;
  delete reader;
}

void rule_temporary_reading_item(torch::Device device) {
  auto values = floatValues(device);
  hostSink = MeanReader(values).mean;
}

// Twin of rule_constructor_reading_item: the mean stays on the device.
void exempt_constructor_keeping_value_on_device(torch::Device device) {
  auto values = floatValues(device);
  MeanKeeper keeper(values);
  keep(keeper.mean);
}

//===-- 2. Destructors ----------------------------------------------------===//

// Device memory, freed with cudaFree (which waits for the device).
struct DeviceBuffer {
  void *data = nullptr;
  DeviceBuffer() { (void)cudaMalloc(&data, kBytes); }
  ~DeviceBuffer() { (void)cudaFree(data); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
};

// A class whose member is a DeviceBuffer: its implicit destructor frees it.
struct Workspace {
  DeviceBuffer buffer;
};

// Twin of DeviceBuffer: stream-ordered memory, freed on the GPU.
struct StreamBuffer {
  cudaStream_t stream = nullptr;
  void *data = nullptr;
  StreamBuffer() { (void)cudaMallocAsync(&data, kBytes, stream); }
  ~StreamBuffer() { (void)cudaFreeAsync(data, stream); }
  StreamBuffer(const StreamBuffer &) = delete;
  StreamBuffer &operator=(const StreamBuffer &) = delete;
};

// Reads a total on the host when destroyed.
struct TotalLogger {
  torch::Tensor total;
  ~TotalLogger() { hostSink = total.sum().item<double>(); }
};

void rule_destructor_freeing_device_memory(torch::Device device) {
  DeviceBuffer buffer;
  queueWork(device);
}

void rule_member_destructor_freeing_device_memory(torch::Device device) {
  Workspace workspace;
  queueWork(device);
}

void rule_delete_freeing_device_memory(torch::Device device) {
  auto *buffer = new DeviceBuffer;
  queueWork(device);
  delete buffer;
}

void rule_temporary_destructor_freeing_device_memory(torch::Device device) {
  queueWork(device);
  hostSink = DeviceBuffer().data != nullptr;
}

void rule_destructor_reading_item(torch::Device device) {
  TotalLogger logger{floatValues(device)};
}

// Twin of rule_destructor_freeing_device_memory: cudaFreeAsync frees in
// stream order.
void exempt_destructor_freeing_in_stream_order(torch::Device device) {
  StreamBuffer buffer;
  queueWork(device);
}

//===-- 3. Conversions ----------------------------------------------------===//

// Converts to double by reading the mean on the host.
struct DeviceMean {
  torch::Tensor values;
  operator double() const { return values.mean().item<double>(); }
};

// Twin of DeviceMean: converts to a tensor on the device.
struct DeviceMeanTensor {
  torch::Tensor values;
  operator torch::Tensor() const { return values.mean(); }
};

void rule_conversion_reading_item(torch::Device device) {
  DeviceMean mean{floatValues(device)};
  double value = mean;
  hostSink = value;
}

void rule_cast_reading_item(torch::Device device) {
  DeviceMean mean{floatValues(device)};
  hostSink = static_cast<double>(mean);
}

// Twin of rule_conversion_reading_item: the conversion keeps the value on the
// device.
void exempt_conversion_keeping_value_on_device(torch::Device device) {
  DeviceMeanTensor mean{floatValues(device)};
  torch::Tensor value = mean;
  keep(value);
}

//===-- 4. Stored callables -----------------------------------------------===//

// A functor that reads the sum on the host.
struct SumReader {
  double operator()(const torch::Tensor &values) const {
    return values.sum().item<double>();
  }
};

void rule_std_function_reading_item(torch::Device device) {
  auto values = floatValues(device);
  std::function<double()> read = [&values] {
    return values.sum().item<double>();
  };
  hostSink = read();
}

void rule_functor_reading_item(torch::Device device) {
  auto values = floatValues(device);
  SumReader read;
  hostSink = read(values);
}

// Twin of rule_std_function_reading_item: the lambda keeps the sum on the
// device.
void exempt_std_function_keeping_value_on_device(torch::Device device) {
  auto values = floatValues(device);
  std::function<torch::Tensor()> sum = [&values] { return values.sum(); };
  keep(sum());
}

} // namespace

int main() {
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA
                                                   : torch::kCPU);
  if (!device.is_cuda()) {
    std::cout << "transitive_implicit: no CUDA device, nothing to run\n";
    return 0;
  }
  rule_constructor_reading_item(device);
  rule_member_constructor_reading_item(device);
  rule_new_reading_item(device);
  rule_temporary_reading_item(device);
  exempt_constructor_keeping_value_on_device(device);
  rule_destructor_freeing_device_memory(device);
  rule_member_destructor_freeing_device_memory(device);
  rule_delete_freeing_device_memory(device);
  rule_temporary_destructor_freeing_device_memory(device);
  rule_destructor_reading_item(device);
  exempt_destructor_freeing_in_stream_order(device);
  rule_conversion_reading_item(device);
  rule_cast_reading_item(device);
  exempt_conversion_keeping_value_on_device(device);
  rule_std_function_reading_item(device);
  rule_functor_reading_item(device);
  exempt_std_function_keeping_value_on_device(device);
  deviceResults.clear();
  return 0;
}
