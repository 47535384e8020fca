// Packing sequences of different lengths into one tensor, without padding.
//
// Sync pattern: the lengths are taken from the padding mask, on the device, so
// slicing out each sequence reads its length to the host with item(), and the
// sequence id of each packed token comes from repeat_interleave without
// output_size, which reads the total length. A milder form copies the lengths
// to the host with .cpu(), once per batch.
// Sync-free twin: the data loader knows the lengths on the host before the
// batch is on the device; they are kept as a host vector to slice the
// sequences, and their sum gives repeat_interleave its output_size.
#include <torch/torch.h>

#include <cstdint>
#include <iostream>
#include <vector>

namespace {

struct PaddedBatch {
  torch::Tensor tokens;         // sequences x maxLength x features, zero past each sequence's end
  torch::Tensor mask;           // sequences x maxLength, true where a token is
  std::vector<int64_t> lengths; // the lengths as the loader produced them, on the host
};

PaddedBatch makeBatch(int64_t firstSequence, int64_t sequences, int64_t maxLength,
                      int64_t features, const torch::Device &device) {
  PaddedBatch batch;
  for (int64_t s = firstSequence; s < firstSequence + sequences; ++s)
    batch.lengths.push_back(1 + s * 37 % maxLength);
  // The same lengths, computed on the device: making the inputs copies nothing.
  auto longOptions = torch::TensorOptions().device(device).dtype(torch::kLong);
  auto lengths = torch::arange(firstSequence, firstSequence + sequences, longOptions)
                     .mul(37)
                     .remainder(maxLength)
                     .add(1);
  batch.mask = torch::arange(maxLength, longOptions).unsqueeze(0) < lengths.unsqueeze(1);
  batch.tokens = torch::randn({sequences, maxLength, features}, torch::TensorOptions().device(device)) *
                 batch.mask.unsqueeze(2);
  return batch;
}

// Sums each sequence's packed tokens: a stand-in for a layer that consumes
// packed sequences.
torch::Tensor poolPacked(const torch::Tensor &packed, const torch::Tensor &sequenceIds,
                         int64_t sequences) {
  return torch::zeros({sequences, packed.size(1)}, packed.options()).index_add_(0, sequenceIds, packed);
}

// Sync pattern: one item() per sequence, and a repeat_interleave that reads the
// total length.
torch::Tensor poolReadingEachLength(const std::vector<PaddedBatch> &batches) {
  std::vector<torch::Tensor> pooled;
  for (const auto &batch : batches) {
    auto lengths = batch.mask.sum(1);
    std::vector<torch::Tensor> sequences;
    for (int64_t s = 0; s < lengths.size(0); ++s) {
      int64_t length = lengths[s].item<int64_t>();
      sequences.push_back(batch.tokens[s].narrow(0, 0, length));
    }
    auto packed = torch::cat(sequences);
    auto sequenceIds = torch::arange(lengths.size(0), lengths.options()).repeat_interleave(lengths);
    pooled.push_back(poolPacked(packed, sequenceIds, lengths.size(0)));
  }
  return torch::stack(pooled);
}

// Sync pattern, milder: one copy of the lengths to the host per batch.
torch::Tensor poolCopyingLengths(const std::vector<PaddedBatch> &batches) {
  std::vector<torch::Tensor> pooled;
  for (const auto &batch : batches) {
    auto lengths = batch.mask.sum(1);
    auto hostLengths = lengths.cpu();
    auto lengthOf = hostLengths.accessor<int64_t, 1>();
    std::vector<torch::Tensor> sequences;
    int64_t total = 0;
    for (int64_t s = 0; s < lengths.size(0); ++s) {
      sequences.push_back(batch.tokens[s].narrow(0, 0, lengthOf[s]));
      total += lengthOf[s];
    }
    auto packed = torch::cat(sequences);
    auto sequenceIds = torch::arange(lengths.size(0), lengths.options())
                           .repeat_interleave(lengths, /*dim=*/0, /*output_size=*/total);
    pooled.push_back(poolPacked(packed, sequenceIds, lengths.size(0)));
  }
  return torch::stack(pooled);
}

// Sync-free twin: the loader's host lengths slice the sequences and size the
// sequence ids.
torch::Tensor poolWithHostLengths(const std::vector<PaddedBatch> &batches) {
  std::vector<torch::Tensor> pooled;
  for (const auto &batch : batches) {
    auto lengths = batch.mask.sum(1);
    std::vector<torch::Tensor> sequences;
    int64_t total = 0;
    for (int64_t s = 0; s < lengths.size(0); ++s) {
      sequences.push_back(batch.tokens[s].narrow(0, 0, batch.lengths[s]));
      total += batch.lengths[s];
    }
    auto packed = torch::cat(sequences);
    auto sequenceIds = torch::arange(lengths.size(0), lengths.options())
                           .repeat_interleave(lengths, /*dim=*/0, /*output_size=*/total);
    pooled.push_back(poolPacked(packed, sequenceIds, lengths.size(0)));
  }
  return torch::stack(pooled);
}

} // namespace

int main() {
  torch::manual_seed(0);
  torch::Device device(torch::cuda::is_available() ? torch::kCUDA : torch::kCPU);
  const int64_t sequences = 64, maxLength = 128, features = 256;
  std::vector<PaddedBatch> batches;
  for (int64_t b = 0; b < 16; ++b)
    batches.push_back(makeBatch(b * sequences, sequences, maxLength, features, device));

  auto readingEachLength = poolReadingEachLength(batches);
  auto copyingLengths = poolCopyingLengths(batches);
  auto hostLengths = poolWithHostLengths(batches);
  // One copy of each result to the host, at the end: intended syncs.
  auto readingEachLengthOnHost = readingEachLength.cpu();
  auto copyingLengthsOnHost = copyingLengths.cpu();
  auto hostLengthsOnHost = hostLengths.cpu();
  // index_add_ sums with atomics on the GPU, in no fixed order: a loose tolerance.
  bool same = torch::allclose(readingEachLengthOnHost, hostLengthsOnHost, 1e-4, 1e-4) &&
              torch::allclose(copyingLengthsOnHost, hostLengthsOnHost, 1e-4, 1e-4);
  std::cout << "same pooled sequences: " << (same ? "yes" : "no") << "\n";
  return same ? 0 : 1;
}
