#include <torch/torch.h>

// Its constructor makes every parameter on the CPU; its forward computes
// from its input and parameters only.
class NetImpl : public torch::nn::Module {
public:
  NetImpl();
  torch::Tensor forward(torch::Tensor x);
  torch::nn::Linear fc1;
  torch::nn::Linear fc2;
};
TORCH_MODULE(Net);

// Its constructor registers a buffer on a CUDA device.
class OnDeviceImpl : public torch::nn::Module {
public:
  OnDeviceImpl();
  torch::Tensor forward(torch::Tensor x);
  torch::Tensor offset;
};
TORCH_MODULE(OnDevice);

// Its constructor builds a Sequential of leaf modules and a CPU parameter.
class StackImpl : public torch::nn::Module {
public:
  StackImpl();
  torch::Tensor forward(torch::Tensor x);
  torch::nn::Sequential layers;
  torch::Tensor scale;
};
TORCH_MODULE(Stack);

// A dataset whose examples come from a member its constructor fills.
class Points : public torch::data::datasets::Dataset<Points> {
public:
  Points();
  torch::data::Example<> get(size_t index) override;
  torch::optional<size_t> size() const override;

private:
  torch::Tensor points_;
};
