#include "net.h"

NetImpl::NetImpl() : fc1(torch::nn::LinearOptions(4, 8)), fc2(8, 2) {
  register_module("fc1", fc1);
  register_module("fc2", fc2);
}

torch::Tensor NetImpl::forward(torch::Tensor x) {
  auto h = torch::relu(fc1->forward(x));
  return fc2->forward(h);
}

OnDeviceImpl::OnDeviceImpl() {
  offset = register_buffer("offset", torch::ones({2}, torch::kCUDA));
}

torch::Tensor OnDeviceImpl::forward(torch::Tensor x) { return x + offset; }

Points::Points() : points_(torch::rand({16, 4})) {}

torch::data::Example<> Points::get(size_t index) {
  return {points_[index], points_[index].sum()};
}

torch::optional<size_t> Points::size() const { return 16; }

StackImpl::StackImpl()
    : layers(torch::nn::Linear(4, 4), torch::nn::ReLU(), torch::nn::Linear(4, 2)) {
  register_module("layers", layers);
  scale = register_parameter("scale", torch::ones({1}));
}

torch::Tensor StackImpl::forward(torch::Tensor x) { return layers->forward(x) * scale; }
