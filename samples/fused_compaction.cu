// Keeping the confident rows of a dense detector's output, and using them in
// the next step: a compaction by a boolean mask whose count the next step
// needs, as the score filter before non-maximum suppression does (and the
// range filter of point-cloud code, the active-site gather of sparse code).
//
// Each step decodes one candidate row per anchor, (x1, y1, x2, y2, score),
// from a detection head (a matrix product and a few elementwise kernels),
// keeps the rows whose score passes a threshold, and computes what the next
// stage needs from the kept rows: their number, their mean area and their
// score-weighted mean box (keptStatistics).
//
// One rule_* function per call the checker reports, and one exempt_* function
// per sync-free twin:
// - rule_keep_with_mask_index: 'detections.index({confident})' sizes the kept
//   rows with the number of true mask elements, read from the device;
// - rule_keep_with_nonzero: 'confident.nonzero()' does the same to size the
//   row indices, which index_select then gathers;
// - exempt_keep_as_weight: no compaction; the mask zeroes the rows it drops,
//   and the count stays on the device (enough when the next step reduces);
// - exempt_keep_with_cumsum: the kept rows packed at the front of a buffer of
//   the input's size, each at its running count (cumsum, index_copy_), and the
//   count on the device: a fixed-size compaction in ATen, about ten kernels;
// - exempt_keep_with_fused_kernel: the same fixed-size compaction in one CUDA
//   kernel that writes the count into a device tensor (compactConfident).
// The rule_* functions return the statistics; the exempt_* functions return
// the rows and the count for keptStatistics. main checks that all five agree.
// runtime-verify/fused_benchmark.cu includes this file (with
// TORCH_SYNC_SAMPLE_NO_MAIN) and measures the forms in a loop;
// docs/fused-kernels.md gives the figures.
//
// Every call that may synchronize is on a line of its own. The results stay
// on the device until the one intended copy at the end of main.
//
// It runs only on a CUDA device: without one, main says so and exits with 0.
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <vector>

namespace {

// A detection row: x1, y1, x2, y2, score.
constexpr int64_t kColumns = 5;
constexpr int64_t kScoreColumn = 4;
// keptStatistics' result: number, mean area, score-weighted x1, y1, x2, y2.
constexpr int64_t kStatistics = 6;
// The detection head's features per anchor.
constexpr int64_t kFeatures = 64;

constexpr int kWarpSize = 32;
constexpr int kThreadsPerBlock = 256;
constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;

// The detection head: features per anchor, the weights that turn them into
// four box offsets and a score logit, and the anchors (cx, cy, w, h).
struct DetectionHead {
  torch::Tensor features; // rows x kFeatures
  torch::Tensor weights;  // kFeatures x kColumns
  torch::Tensor anchors;  // rows x 4
};

// A head of `rows` anchors. The features are standard normal and the score
// column of the weights has unit norm, so each row's score logit is standard
// normal: the fraction of rows kept at a threshold t is 1 - Phi(logit(t)).
DetectionHead makeDetectionHead(int64_t rows, const torch::Device &device) {
  auto options = torch::TensorOptions().device(device);
  DetectionHead head;
  head.features = torch::randn({rows, kFeatures}, options);
  auto weights = torch::randn({kFeatures, kColumns}, options);
  head.weights = weights / weights.pow(2).sum(0, /*keepdim=*/true).sqrt();
  auto centers = torch::rand({rows, 2}, options) * 1000;
  auto sizes = torch::rand({rows, 2}, options) * 56 + 8;
  head.anchors = torch::cat({centers, sizes}, 1);
  return head;
}

// The work before the compaction: one candidate row per anchor.
torch::Tensor decodeDetections(const DetectionHead &head) {
  auto raw = torch::mm(head.features, head.weights);
  auto centers = head.anchors.narrow(1, 0, 2) + 0.1 * raw.narrow(1, 0, 2);
  auto sizes = head.anchors.narrow(1, 2, 2) * torch::exp(0.1 * raw.narrow(1, 2, 2));
  auto scores = torch::sigmoid(raw.narrow(1, kScoreColumn, 1));
  return torch::cat({centers - 0.5 * sizes, centers + 0.5 * sizes, scores}, 1);
}

// The next step, on the kept rows followed by any number of zero rows (which
// add nothing): their number (`count`, a 0-dim tensor on the device), their
// mean area and their score-weighted mean box, as one kStatistics-element
// tensor on the device.
torch::Tensor keptStatistics(const torch::Tensor &rows, const torch::Tensor &count) {
  auto boxes = rows.narrow(1, 0, 4);
  auto scores = rows.select(1, kScoreColumn);
  auto areas = (boxes.select(1, 2) - boxes.select(1, 0)) * (boxes.select(1, 3) - boxes.select(1, 1));
  auto number = count.to(rows.scalar_type()).reshape({1});
  auto meanArea = areas.sum().reshape({1}) / number.clamp_min(1);
  auto weightedBox = (boxes * scores.unsqueeze(1)).sum(0) / scores.sum().clamp_min(1e-12);
  return torch::cat({number, meanArea, weightedBox});
}

// The statistics of the compacted rows, whose number the host knows.
torch::Tensor statisticsOfKnownCount(const torch::Tensor &kept) {
  const int64_t count = kept.size(0);
  if (count == 0)
    return torch::zeros({kStatistics}, kept.options());
  return keptStatistics(kept, torch::full({}, static_cast<double>(count), kept.options()));
}

// A fixed-size compaction: the kept rows first, zero rows after them, and
// the number of kept rows as a 0-dim tensor on the device.
struct Compacted {
  torch::Tensor rows;
  torch::Tensor count;
};

// Checks on metadata only: nothing here reads the device.
void checkDetections(const torch::Tensor &detections) {
  TORCH_CHECK(detections.is_cuda(), "detections must be a CUDA tensor");
  TORCH_CHECK(detections.scalar_type() == torch::kFloat, "detections must be float32");
  TORCH_CHECK(detections.dim() == 2 && detections.size(1) == kColumns && detections.is_contiguous(),
              "detections must be a contiguous rows x 5 matrix");
  TORCH_CHECK(detections.size(0) > 0 && detections.size(0) <= std::numeric_limits<int>::max(),
              "detections must have between 1 and INT_MAX rows");
}

unsigned blocksFor(int64_t rows) {
  return static_cast<unsigned>((rows + kThreadsPerBlock - 1) / kThreadsPerBlock);
}

// Copies the rows whose score is above `threshold` to the front of `packed`
// and adds their number to `*count` (both zeroed by the caller); a NaN score
// is not kept, as with the mask `scores > threshold`. Each warp counts its
// kept rows with a ballot, the block's first thread reserves the block's run
// of output rows with one atomicAdd, and each kept row goes to its place in
// that run. Within a block the kept rows keep their order; the blocks' runs
// follow the order in which the blocks reached the counter, so rows of
// different blocks may change places. Launched with kThreadsPerBlock threads.
__global__ void compactConfident(const float *__restrict__ detections, int64_t rows, float threshold,
                                 float *__restrict__ packed, int *__restrict__ count) {
  __shared__ int warpOffsets[kWarpsPerBlock];
  __shared__ int blockBase;
  const int64_t row = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  const bool keep = row < rows && detections[row * kColumns + kScoreColumn] > threshold;
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned warp = threadIdx.x / kWarpSize;
  const unsigned kept = __ballot_sync(0xffffffffu, keep);
  if (lane == 0)
    warpOffsets[warp] = __popc(kept);
  __syncthreads();
  if (threadIdx.x == 0) {
    int total = 0;
    for (int w = 0; w < kWarpsPerBlock; ++w) {
      const int inWarp = warpOffsets[w];
      warpOffsets[w] = total;
      total += inWarp;
    }
    blockBase = total > 0 ? atomicAdd(count, total) : 0;
  }
  __syncthreads();
  if (keep) {
    const int64_t slot = blockBase + warpOffsets[warp] + __popc(kept & ((1u << lane) - 1u));
    for (int64_t column = 0; column < kColumns; ++column)
      packed[slot * kColumns + column] = detections[row * kColumns + column];
  }
}

// Sync pattern: a boolean-mask index; the host needs the count to size the
// kept rows, and the next step uses it.
torch::Tensor rule_keep_with_mask_index(const torch::Tensor &detections, float threshold) {
  auto confident = detections.select(1, kScoreColumn) > threshold;
  auto kept = detections.index({confident});
  return statisticsOfKnownCount(kept);
}

// Sync pattern: nonzero, then a gather of the rows it names.
torch::Tensor rule_keep_with_nonzero(const torch::Tensor &detections, float threshold) {
  auto confident = detections.select(1, kScoreColumn) > threshold;
  auto indices = confident.nonzero().squeeze(1);
  auto kept = detections.index_select(0, indices);
  return statisticsOfKnownCount(kept);
}

// Sync-free twin without compaction: the dropped rows zeroed in place, the
// count on the device.
Compacted exempt_keep_as_weight(const torch::Tensor &detections, float threshold) {
  auto confident = detections.select(1, kScoreColumn) > threshold;
  auto rows = detections.masked_fill(confident.logical_not().unsqueeze(1), 0.0);
  return {rows, confident.sum()};
}

// Sync-free twin in ATen: each kept row written at its running count into a
// buffer of the input's size (and one spare row, where the dropped rows go).
Compacted exempt_keep_with_cumsum(const torch::Tensor &detections, float threshold) {
  const int64_t rows = detections.size(0);
  auto confident = detections.select(1, kScoreColumn) > threshold;
  auto running = confident.to(torch::kLong).cumsum(0);
  auto slots = (running - 1).masked_fill(confident.logical_not(), rows);
  auto packed = torch::zeros({rows + 1, kColumns}, detections.options());
  packed.index_copy_(0, slots, detections);
  return {packed.narrow(0, 0, rows), running[rows - 1]};
}

// Sync-free twin as a CUDA kernel: one launch, the count on the device.
Compacted exempt_keep_with_fused_kernel(const torch::Tensor &detections, float threshold) {
  checkDetections(detections);
  const int64_t rows = detections.size(0);
  auto packed = torch::zeros_like(detections);
  auto count = torch::zeros({}, detections.options().dtype(torch::kInt));
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  compactConfident<<<blocksFor(rows), kThreadsPerBlock, 0, stream>>>(
      detections.data_ptr<float>(), rows, threshold, packed.data_ptr<float>(), count.data_ptr<int>());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return {packed, count};
}

} // namespace

#ifndef TORCH_SYNC_SAMPLE_NO_MAIN
int main() {
  if (!torch::cuda::is_available()) {
    std::cout << "fused_compaction: no CUDA device; nothing to run\n";
    return 0;
  }
  torch::manual_seed(0);
  const torch::Device device(torch::kCUDA);
  const DetectionHead head = makeDetectionHead(1 << 16, device);
  // About half the rows, and about one in a hundred (logit(0.911) = 2.33).
  const float thresholds[] = {0.5f, 0.911f};

  // Per form, the statistics of each threshold, on the device.
  std::vector<torch::Tensor> byMask, byNonzero, byWeight, byCumsum, byKernel;
  for (float threshold : thresholds) {
    auto detections = decodeDetections(head);
    byMask.push_back(rule_keep_with_mask_index(detections, threshold));
    byNonzero.push_back(rule_keep_with_nonzero(detections, threshold));
    Compacted weighted = exempt_keep_as_weight(detections, threshold);
    byWeight.push_back(keptStatistics(weighted.rows, weighted.count));
    Compacted packed = exempt_keep_with_cumsum(detections, threshold);
    byCumsum.push_back(keptStatistics(packed.rows, packed.count));
    Compacted fused = exempt_keep_with_fused_kernel(detections, threshold);
    byKernel.push_back(keptStatistics(fused.rows, fused.count));
  }

  // One copy of every result to the host, at the end: the intended sync.
  auto forms = torch::stack({torch::stack(byMask), torch::stack(byNonzero), torch::stack(byWeight),
                             torch::stack(byCumsum), torch::stack(byKernel)});
  auto onHost = forms.cpu();
  // The counts agree exactly; the sums were added in different orders.
  bool same = true;
  for (int64_t form = 1; form < onHost.size(0); ++form) {
    same = same && torch::equal(onHost[form].select(1, 0), onHost[0].select(1, 0));
    same = same && torch::allclose(onHost[form], onHost[0], /*rtol=*/1e-4, /*atol=*/1e-3);
  }
  std::cout << "same statistics in all five forms: " << (same ? "yes" : "no") << "\n";
  return same ? 0 : 1;
}
#endif
