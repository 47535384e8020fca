// Filtering overlapping boxes after detection: greedy non-maximum suppression.
//
// Sync pattern: the suppression written as on the host: take the best remaining
// box, read its index with item(), and keep the remaining boxes that overlap it
// little with a boolean mask; two reads from the device per kept box.
// Sync-free twin: the IoU matrix of the boxes in score order and the keep mask
// are built on the device; the greedy pass is one fixed-shape update of the
// mask per box, and the caller reads the result once, at the end.
#include <torch/torch.h>

#include <cstdint>
#include <iostream>
#include <tuple>
#include <vector>

namespace {

constexpr double kIouThreshold = 0.5;

torch::Tensor boxArea(const torch::Tensor &boxes) {
  return (boxes.select(1, 2) - boxes.select(1, 0)) * (boxes.select(1, 3) - boxes.select(1, 1));
}

// Intersection over union of every box of `a` (n x 4) with every box of `b`
// (m x 4), as an n x m tensor.
torch::Tensor pairwiseIou(const torch::Tensor &a, const torch::Tensor &b) {
  auto topLeft = torch::maximum(a.slice(1, 0, 2).unsqueeze(1), b.slice(1, 0, 2).unsqueeze(0));
  auto bottomRight = torch::minimum(a.slice(1, 2, 4).unsqueeze(1), b.slice(1, 2, 4).unsqueeze(0));
  auto extent = (bottomRight - topLeft).clamp_min(0);
  auto intersection = extent.select(2, 0) * extent.select(2, 1);
  return intersection / (boxArea(a).unsqueeze(1) + boxArea(b).unsqueeze(0) - intersection);
}

// Sync pattern: the indices of the kept boxes, best score first, on the host.
std::vector<int64_t> suppressReadingEachBox(const torch::Tensor &boxes,
                                            const torch::Tensor &scores) {
  auto order = std::get<1>(scores.sort(/*dim=*/0, /*descending=*/true));
  std::vector<int64_t> kept;
  while (order.numel() > 0) {
    int64_t best = order[0].item<int64_t>();
    kept.push_back(best);
    auto rest = order.slice(0, 1);
    auto overlaps = pairwiseIou(boxes[best].unsqueeze(0), boxes.index_select(0, rest)).squeeze(0);
    order = rest.index({overlaps <= kIouThreshold});
  }
  return kept;
}

// Sync-free twin: the box indices in score order, -1 where a box is
// suppressed, on the device.
torch::Tensor suppressOnDevice(const torch::Tensor &boxes, const torch::Tensor &scores) {
  auto order = std::get<1>(scores.sort(/*dim=*/0, /*descending=*/true));
  auto sorted = boxes.index_select(0, order);
  const int64_t count = boxes.size(0);
  auto position = torch::arange(count, order.options());
  // suppresses[i][j]: box i, in score order, overlaps the later box j too much.
  auto later = position.unsqueeze(0) > position.unsqueeze(1);
  auto suppresses = (pairwiseIou(sorted, sorted) > kIouThreshold).logical_and(later);
  auto keep = torch::ones({count}, scores.options().dtype(torch::kBool));
  // keep[i] is final when box i's turn comes: every earlier box has had its.
  for (int64_t i = 0; i < count; ++i)
    keep.logical_and_(suppresses[i].logical_and(keep[i]).logical_not());
  return order.masked_fill(keep.logical_not(), -1);
}

} // namespace

int main() {
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  auto options = torch::TensorOptions().device(device);
  const int images = 8;
  const int64_t candidates = 1000;
  std::vector<torch::Tensor> boxes, scores;
  for (int image = 0; image < images; ++image) {
    auto corners = torch::rand({candidates, 2}, options) * 200;
    auto sizes = 10 + 30 * torch::rand({candidates, 2}, options);
    boxes.push_back(torch::cat({corners, corners + sizes}, 1));
    scores.push_back(torch::rand({candidates}, options));
  }

  std::vector<std::vector<int64_t>> keptPerBox;
  for (int image = 0; image < images; ++image)
    keptPerBox.push_back(suppressReadingEachBox(boxes[image], scores[image]));
  std::vector<torch::Tensor> keptOnDevice;
  for (int image = 0; image < images; ++image)
    keptOnDevice.push_back(suppressOnDevice(boxes[image], scores[image]));

  // One copy of the twin's results to the host, at the end: an intended sync.
  auto keptOnHost = torch::stack(keptOnDevice).cpu();
  auto kept = keptOnHost.accessor<int64_t, 2>();
  bool same = true;
  size_t total = 0;
  for (int image = 0; image < images; ++image) {
    std::vector<int64_t> keptByTwin;
    for (int64_t i = 0; i < candidates; ++i)
      if (kept[image][i] >= 0)
        keptByTwin.push_back(kept[image][i]);
    same = same && keptByTwin == keptPerBox[image];
    total += keptByTwin.size();
  }
  std::cout << "kept " << total << " of " << images * candidates << " boxes; same: "
            << (same ? "yes" : "no") << "\n";
  return same ? 0 : 1;
}
