// OLDER-LIBTORCH: the view methods and the functions that cut a tensor into pieces as each release declares them
// RUN: %check_torch_sync --checks=-*,torch-sync-item,torch-sync-device-to-host --temp %t %s -- %libtorch_flags
// RUN: %check_torch_sync --checks=-*,torch-sync-item,torch-sync-device-to-host --temp %t-known --check-suffix=KNOWN \
// RUN:   --config="{CheckOptions: {ReportUnknownDevice: false}}" %s -- %libtorch_flags
//
// Views and pieces keep their tensor's device: a view ('view', 'select',
// 'narrow', 'x[0]', 'x.index({Slice(0, 2)})'...) is on the device of the
// tensor it views, and so is each piece of 'chunk', 'split', 'unbind' and the
// others that return a std::vector of tensors, read as 'parts[0]',
// 'parts.at(1)', 'parts.front()', in a range-based for, or from a function
// that returns such a vector. So 'item()' and 'cpu()' of a piece of a CUDA
// tensor are reported even when only known devices are (the KNOWN run), and
// 'item()' of a piece of a CPU tensor, 'cpu()' of it and 'to()' of a piece to
// the device its tensor is on are not.

#include <ATen/core/Tensor.h>
#include <ATen/ops/chunk.h>
#include <ATen/ops/narrow.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/split.h>
#include <ATen/ops/unbind.h>
#include <torch/types.h>
#include <tuple>
#include <vector>

using torch::indexing::Slice;

void use(float value);
void use(const at::Tensor &tensor);

// --- The views that tensor methods and operators return.

void cudaViews() {
  auto x = torch::ones({4, 4}, torch::kCUDA);
  use(x.slice(0, 0, 2).sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:30: warning: 'item' copies a tensor element to the host
  use(x.narrow(0, 1, 2).sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:31: warning: 'item' copies a tensor element to the host
  use(x.view({16}).sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:26: warning: 'item' copies a tensor element to the host
  use(x.reshape({2, 8}).sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:31: warning: 'item' copies a tensor element to the host
  use(x.select(0, 1).sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:28: warning: 'item' copies a tensor element to the host
  use(x.expand({2, 4, 4}).sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:33: warning: 'item' copies a tensor element to the host
  use(x.transpose(0, 1).sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:31: warning: 'item' copies a tensor element to the host
  use(x.permute({1, 0}).sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:31: warning: 'item' copies a tensor element to the host
  use(x.unsqueeze(0).squeeze(0).sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:39: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:39: warning: 'item' copies a tensor element to the host
  use(x.flatten().sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:25: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:25: warning: 'item' copies a tensor element to the host
  use(x.t().sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:19: warning: 'item' copies a tensor element to the host
  use(x.contiguous().sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:28: warning: 'item' copies a tensor element to the host
  use(x.index({0, 1}).item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:23: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:23: warning: 'item' copies a tensor element to the host
  use(x[0][1].item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:15: warning: 'item' copies a tensor element to the host
  use(x.index({Slice(0, 2)}).sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:36: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:36: warning: 'item' copies a tensor element to the host
  use(torch::narrow(x, 0, 0, 2).cpu());
  // CHECK-MESSAGES: :[[@LINE-1]]:33: warning: 'cpu' copies the tensor to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:33: warning: 'cpu' copies the tensor to the host
  use(x[1].cpu());
  // CHECK-MESSAGES: :[[@LINE-1]]:12: warning: 'cpu' copies the tensor to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:12: warning: 'cpu' copies the tensor to the host
}

void hostViews(const at::Tensor &t) {
  auto x = torch::ones({4, 4});
  use(x.slice(0, 0, 2).sum().item<float>());
  use(x.narrow(0, 1, 2).sum().item<float>());
  use(x.view({16}).sum().item<float>());
  use(x.reshape({2, 8}).sum().item<float>());
  use(x.select(0, 1).sum().item<float>());
  use(x.expand({2, 4, 4}).sum().item<float>());
  use(x.transpose(0, 1).sum().item<float>());
  use(x.permute({1, 0}).sum().item<float>());
  use(x.unsqueeze(0).squeeze(0).sum().item<float>());
  use(x.flatten().sum().item<float>());
  use(x.t().sum().item<float>());
  use(x.contiguous().sum().item<float>());
  use(x.index({0, 1}).item<float>());
  use(x[0][1].item<float>());
  use(x.index({Slice(0, 2)}).sum().item<float>());
  use(torch::narrow(x, 0, 0, 2).cpu());
  use(x[1].cpu());
  // To the device the viewed tensor is on: no copy.
  auto y = torch::ones({4, 4}, torch::kCUDA);
  use(y.select(0, 1).to(torch::kCUDA));
  use(y[0].cuda());
  use(t.narrow(0, 0, 2).to(t.device()));
  use(t.index({Slice(0, 2)}).to(t.options()));
}

// --- The pieces of a std::vector that chunk, split and the others return.

void cudaPieces() {
  auto x = torch::ones({4, 4}, torch::kCUDA);
  use(x.chunk(2)[0].sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:27: warning: 'item' copies a tensor element to the host
  use(x.split(2)[1].sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:27: warning: 'item' copies a tensor element to the host
  use(x.split_with_sizes({1, 3})[0].sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:43: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:43: warning: 'item' copies a tensor element to the host
  use(x.tensor_split(2)[1].sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:34: warning: 'item' copies a tensor element to the host
  use(x.unbind()[0].sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:27: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:27: warning: 'item' copies a tensor element to the host
  use(at::chunk(x, 2).back().cpu());
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'cpu' copies the tensor to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:30: warning: 'cpu' copies the tensor to the host
  use(torch::split(x, 2).front().cpu());
  // CHECK-MESSAGES: :[[@LINE-1]]:34: warning: 'cpu' copies the tensor to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:34: warning: 'cpu' copies the tensor to the host
  use(at::unbind(x, 1).at(3).cpu());
  // CHECK-MESSAGES: :[[@LINE-1]]:30: warning: 'cpu' copies the tensor to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:30: warning: 'cpu' copies the tensor to the host
  auto parts = x.chunk(2);
  use(parts[0].sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:22: warning: 'item' copies a tensor element to the host
  use(parts.at(1).cpu());
  // CHECK-MESSAGES: :[[@LINE-1]]:19: warning: 'cpu' copies the tensor to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:19: warning: 'cpu' copies the tensor to the host
  use(parts.front().cpu());
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'cpu' copies the tensor to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:21: warning: 'cpu' copies the tensor to the host
  use(parts.back().sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:26: warning: 'item' copies a tensor element to the host
  for (const auto &part : parts)
    use(part.cpu());
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'cpu' copies the tensor to the host
    // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:14: warning: 'cpu' copies the tensor to the host
  for (auto &part : x.split(3))
    use(part.sum().item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'item' copies a tensor element to the host
    // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:20: warning: 'item' copies a tensor element to the host
  for (auto part : torch::unbind(x))
    use(part.cpu());
    // CHECK-MESSAGES: :[[@LINE-1]]:14: warning: 'cpu' copies the tensor to the host
    // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:14: warning: 'cpu' copies the tensor to the host
}

void hostPieces() {
  auto x = torch::ones({4, 4});
  use(x.chunk(2)[0].sum().item<float>());
  use(x.split(2)[1].sum().item<float>());
  use(x.split_with_sizes({1, 3})[0].sum().item<float>());
  use(x.tensor_split(2)[1].sum().item<float>());
  use(x.unbind()[0].sum().item<float>());
  use(at::chunk(x, 2).back().cpu());
  use(torch::split(x, 2).front().cpu());
  use(at::unbind(x, 1).at(3).cpu());
  auto parts = x.chunk(2);
  use(parts[0].sum().item<float>());
  use(parts.at(1).cpu());
  use(parts.front().cpu());
  use(parts.back().sum().item<float>());
  for (const auto &part : parts)
    use(part.cpu());
  for (auto &part : x.split(3))
    use(part.sum().item<float>());
  for (auto part : torch::unbind(x))
    use(part.cpu());
}

// A piece moved to the device its tensor is on: no copy.
void samePieceDevice(const at::Tensor &t) {
  auto x = torch::ones({4, 4}, torch::kCUDA);
  auto parts = x.chunk(2);
  use(parts[0].to(torch::kCUDA));
  use(parts.at(1).cuda());
  use(x.split(2).front().to(x.device()));
  for (const auto &part : x.unbind())
    use(part.to(torch::kCUDA));
  auto pieces = t.split(2);
  use(pieces[0].to(t.device()));
  use(pieces.back().to(t.options()));
  for (const auto &piece : pieces)
    use(piece.to(t.device()));
  for (auto &piece : t.chunk(3))
    use(piece.to(t.device()));
}

// --- Vectors that a function of the translation unit returns.

static std::vector<at::Tensor> halves(const at::Tensor &x) { return x.chunk(2); }

static std::vector<at::Tensor> deviceColumns(int64_t n) {
  std::vector<at::Tensor> columns;
  for (int64_t i = 0; i < n; ++i)
    columns.push_back(torch::ones({n}, torch::kCUDA));
  return columns;
}

static std::vector<at::Tensor> devicePair(const at::Tensor &a) {
  return {a.cuda(), torch::ones({2}, torch::kCUDA)};
  // CHECK-MESSAGES: :[[@LINE-1]]:13: warning: 'cuda' copies a host tensor to the device
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:13: warning: 'cuda' copies a host tensor to the device
}

void returnedPieces() {
  auto x = torch::ones({4, 4}, torch::kCUDA);
  use(halves(x)[0].sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:26: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:26: warning: 'item' copies a tensor element to the host
  use(deviceColumns(3).back().cpu());
  // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'cpu' copies the tensor to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:31: warning: 'cpu' copies the tensor to the host
  auto pair = devicePair(torch::ones({2}));
  use(pair[1].sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:21: warning: 'item' copies a tensor element to the host
  for (const auto &column : deviceColumns(4))
    use(column.sum().item<float>());
    // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'item' copies a tensor element to the host
    // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:22: warning: 'item' copies a tensor element to the host
}

static std::vector<at::Tensor> hostRows() { return torch::ones({4, 4}).unbind(); }

void returnedHostPieces() {
  auto y = torch::ones({4, 4}, torch::kCUDA);
  use(hostRows()[0].sum().item<float>());
  for (const auto &row : hostRows())
    use(row.cpu());
  use(halves(y)[1].to(torch::kCUDA));
  use(deviceColumns(3).back().cuda());
  for (const auto &column : deviceColumns(4))
    use(column.to(torch::kCUDA));
}

// --- Structured bindings and std::tie of views.

void boundViews() {
  auto x = torch::ones({4, 4}, torch::kCUDA);
  auto c = torch::ones({4, 4});
  auto [a, b] = std::make_tuple(x.t(), c.flatten());
  use(a.sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:15: warning: 'item' copies a tensor element to the host
  use(b.sum().item<float>());
  at::Tensor d, e;
  std::tie(d, e) = std::make_tuple(c.select(0, 0), x.narrow(0, 0, 1));
  use(d.sum().item<float>());
  use(e.sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:15: warning: 'item' copies a tensor element to the host
  // CHECK-MESSAGES-KNOWN: :[[@LINE-2]]:15: warning: 'item' copies a tensor element to the host
}

// --- Pieces that are not followed.

std::vector<at::Tensor> elsewhere(const at::Tensor &x);
void refill(std::vector<at::Tensor> &parts);

void unknownPieces(const at::Tensor &t) {
  auto x = torch::ones({4, 4});
  // An element replaced: any piece may be the other tensor.
  auto parts = x.chunk(2);
  parts[1] = t;
  use(parts[0].sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:22: warning: 'item' copies a tensor element to the host
  // Handed out by non-const reference.
  auto pieces = x.split(2);
  refill(pieces);
  use(pieces.front().sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:28: warning: 'item' copies a tensor element to the host
  // Written through the loop variable.
  auto rows = x.unbind();
  for (auto &row : rows)
    row = t;
  use(rows[0].sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:21: warning: 'item' copies a tensor element to the host
  // A function that is not seen.
  use(elsewhere(x)[0].sum().item<float>());
  // CHECK-MESSAGES: :[[@LINE-1]]:29: warning: 'item' copies a tensor element to the host
  // A piece to the device of another tensor.
  auto other = t.chunk(2);
  use(other[0].to(x.device()));
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'to' copies the tensor to the host
}
