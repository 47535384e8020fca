#include "net.h"

int main() {
  Net net;
  auto params = net->parameters();
  std::cout << params.size() << params.at(0).sizes() << "\n";
  auto x = torch::randn({3, 4});
  float a = net->forward(x).sum().item<float>();
  float b = net->fc1->bias.sum().item<float>();
  OnDevice onDevice;
  float c = onDevice->forward(x).sum().item<float>();
  Points points;
  auto example = points.get(0);
  float d = example.target.item<float>();
  torch::load(net, "net.pt");
  float e = net->forward(x).sum().item<float>();
  Stack stack;
  float f = stack->scale.sum().item<float>();
  return static_cast<int>(a + b + c + d + e + f);
}
