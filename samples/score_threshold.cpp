// Keeping the confident detections of a detector's output.
//
// Sync pattern: selecting the detections whose score passes a threshold with a
// boolean mask (scores.index({scores > t}), masked_select) gives a result whose
// size only the device knows, so each selection reads the number of true mask
// elements to the host: two reads per image.
// Sync-free twin: a fixed-shape result for the whole batch. Rejected scores are
// masked out with masked_fill, top-k picks at most kMaxDetections per image, and
// the rows past the confident detections are zeroed with a validity mask.
#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <tuple>
#include <vector>

namespace {

constexpr double kScoreThreshold = 0.9;
constexpr int64_t kMaxDetections = 64;

// Both return images x kMaxDetections x 5: rows of (x1, y1, x2, y2, score),
// best score first, zero past the last confident detection.

// Sync pattern: a boolean-mask selection of the scores and of the boxes, per image.
torch::Tensor keepConfidentPerImage(const torch::Tensor &boxes,
                                    const torch::Tensor &scores) {
  std::vector<torch::Tensor> detections;
  for (int64_t image = 0; image < scores.size(0); ++image) {
    auto imageScores = scores[image];
    auto imageBoxes = boxes[image];
    auto confident = imageScores > kScoreThreshold;
    auto keptScores = imageScores.index({confident});
    auto keptBoxes = imageBoxes.masked_select(confident.unsqueeze(1)).view({-1, 4});
    int64_t count = std::min(kMaxDetections, keptScores.size(0));
    auto best = keptScores.topk(count);
    auto rows = torch::cat({keptBoxes.index_select(0, std::get<1>(best)),
                            std::get<0>(best).unsqueeze(1)},
                           1);
    detections.push_back(torch::constant_pad_nd(rows, {0, 0, 0, kMaxDetections - count}));
  }
  return torch::stack(detections);
}

// Sync-free twin: every shape is known before the kernels run.
torch::Tensor keepConfidentFixedShape(const torch::Tensor &boxes,
                                      const torch::Tensor &scores) {
  auto rejected = (scores > kScoreThreshold).logical_not();
  // Scores are probabilities: -1 ranks every rejected detection last.
  auto best = scores.masked_fill(rejected, -1.0).topk(kMaxDetections, /*dim=*/1);
  auto bestScores = std::get<0>(best);
  auto bestBoxes = boxes.gather(1, std::get<1>(best).unsqueeze(2).expand({-1, -1, 4}));
  auto valid = bestScores > kScoreThreshold;
  auto rows = torch::cat({bestBoxes, bestScores.unsqueeze(2)}, 2);
  return rows.masked_fill(valid.logical_not().unsqueeze(2), 0.0);
}

} // namespace

int main() {
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  auto options = torch::TensorOptions().device(device);
  const int64_t images = 32, candidates = 1000;
  auto corners = torch::rand({images, candidates, 2}, options) * 100;
  auto sizes = 1 + 20 * torch::rand({images, candidates, 2}, options);
  auto boxes = torch::cat({corners, corners + sizes}, 2);
  // Shifted logits: from no confident detection in the first image to more
  // than kMaxDetections in the last.
  auto shift = torch::linspace(-2, 1, images, options).unsqueeze(1);
  auto scores = torch::sigmoid(torch::randn({images, candidates}, options) + shift);

  auto perImage = keepConfidentPerImage(boxes, scores);
  auto fixedShape = keepConfidentFixedShape(boxes, scores);
  // One copy of each result to the host, at the end: intended syncs.
  auto perImageOnHost = perImage.cpu();
  auto fixedShapeOnHost = fixedShape.cpu();
  bool same = torch::equal(perImageOnHost, fixedShapeOnHost);
  std::cout << "same detections: " << (same ? "yes" : "no") << "\n";
  return same ? 0 : 1;
}
