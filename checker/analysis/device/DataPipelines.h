//===--- DataPipelines.h - the devices of torch::data examples ------------===//
//
// Where the examples of a torch::data pipeline come from and what device they
// have: the dataset or data loader an example was taken from (a range-based
// for over a loader, '*loader->begin()', 'dataset.get_batch(i)'), the
// expression that built that dataset, and whether its data went last through
// a Normalize transform (CPU tensors: torch/data/transforms/tensor.h). Which
// dataset types yield CPU examples is LibTorchApi.h's datasetYieldsCpu.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_DATAPIPELINES_H
#define TORCH_SYNC_DATAPIPELINES_H

#include "libtorch/DeviceLattice.h"
#include "clang/AST/Type.h"

namespace clang {
class ASTContext;
class Expr;
class MemberExpr;
namespace tidy::torch_sync {

class DeviceWrites;
class ProjectFacts;

/// The torch::data pipelines of one translation unit. \p Writes gives the
/// single values of local variables; with \p ProjectDatasetsOnCPU (option
/// ProjectDatasetsOnCPU) the examples of the project's own datasets count as
/// made on the CPU.
class DataPipelines {
public:
  /// With \p Facts, a project dataset whose 'get' the project facts found
  /// to return CPU examples (ProjectModules.h) counts as made on the CPU.
  DataPipelines(ASTContext &Context, DeviceWrites &Writes,
                bool ProjectDatasetsOnCPU, const ProjectFacts *Facts)
      : Context(Context), Writes(Writes),
        ProjectDatasetsOnCPU(ProjectDatasetsOnCPU), Facts(Facts) {}

  /// The device of \p Member, the 'data' or 'target' of a
  /// torch::data::Example: CPU when its dataset makes its examples on the
  /// CPU, or for 'data' after a Normalize transform built in the pipeline;
  /// Unknown otherwise, and for a member of any other class.
  DeviceKind exampleMemberDevice(const MemberExpr &Member);

  /// The object that the torch::data example \p E was taken from: the data
  /// loader ('*loader' of a range-based for, 'loader->' of
  /// '*loader->begin()'), with \p IsLoader set, or the dataset of
  /// 'dataset.get_batch(i)'; null when not known.
  const Expr *exampleSource(const Expr *E, bool &IsLoader);

  /// The dataset type of torch::data whose example (or stacked batch) \p E
  /// holds (from exampleSource); a null type when it is not known.
  QualType exampleDataset(const Expr *E);

  /// The expression that built the dataset that \p E (a dataset, a data
  /// loader, or a pointer to one) holds, through 'std::move', local variables
  /// never assigned, and 'torch::data::make_data_loader(dataset, ...)'; null
  /// when not seen.
  const Expr *datasetConstruction(const Expr *E);

  /// Whether the data of the examples from \p Source (an exampleSource) went
  /// last through a Normalize transform built there, then only Stack: the
  /// transform subtracts and divides by CPU tensors of rank >= 1
  /// (torch/data/transforms/tensor.h), so that the data is on the CPU (or
  /// the program fails), whatever the dataset made.
  bool dataNormalizedOnCpu(const Expr *Source);

private:
  ASTContext &Context;
  DeviceWrites &Writes;
  const bool ProjectDatasetsOnCPU;
  const ProjectFacts *const Facts;
};

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_DATAPIPELINES_H
