// Mock of torch/csrc/api/include/torch/nn/module.h.
#pragma once
#include <memory>
#include <string>
#include <torch/types.h>
#include <vector>

namespace torch::nn {
template <typename Contained> class ModuleHolder;

class Module : public std::enable_shared_from_this<Module> {
public:
  explicit Module(std::string name);
  Module();
  Module(const Module &) = default;
  Module &operator=(const Module &) = default;
  Module(Module &&) noexcept = default;
  Module &operator=(Module &&) noexcept = default;
  virtual ~Module() = default;

  const std::string &name() const noexcept;
  std::vector<Tensor> parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  virtual void train(bool on = true);
  void eval();
  virtual bool is_training() const noexcept;
  virtual void to(torch::Device device, torch::Dtype dtype, bool non_blocking = false);
  virtual void to(torch::Dtype dtype, bool non_blocking = false);
  virtual void to(torch::Device device, bool non_blocking = false);
  virtual void zero_grad(bool set_to_none = true);

  Tensor &register_parameter(std::string name, Tensor tensor, bool requires_grad = true);
  Tensor &register_buffer(std::string name, Tensor tensor);
  template <typename ModuleType>
  std::shared_ptr<ModuleType> register_module(std::string name,
                                              std::shared_ptr<ModuleType> module);
};
} // namespace torch::nn
