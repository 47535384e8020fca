//===--- TorchSyncTidyModule.cpp - the torch-sync clang-tidy module -------===//
//
// Registers the torch-sync-* checks, in alphabetical order.
//
//===----------------------------------------------------------------------===//

#include "checks/BooleanMaskCheck.h"
#include "checks/DeviceIndexCheck.h"
#include "checks/DeviceToHostCheck.h"
#include "checks/DynamicShapeCheck.h"
#include "checks/ExplicitSyncCheck.h"
#include "checks/GraphCaptureCheck.h"
#include "checks/ItemCheck.h"
#include "checks/PrintCheck.h"
#include "checks/ProjectFactsCheck.h"
#include "checks/TransitiveSyncCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "llvm/Config/llvm-config.h"
#if LLVM_VERSION_MAJOR < 22
// LLVM 22 moved the registry into ClangTidyModule.h and deprecated this header.
#include "clang-tidy/ClangTidyModuleRegistry.h"
#endif

namespace clang::tidy::torch_sync {

class TorchSyncModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &CheckFactories) override {
    CheckFactories.registerCheck<BooleanMaskCheck>("torch-sync-boolean-mask");
    CheckFactories.registerCheck<DeviceIndexCheck>("torch-sync-device-index");
    CheckFactories.registerCheck<DeviceToHostCheck>(
        "torch-sync-device-to-host");
    CheckFactories.registerCheck<DynamicShapeCheck>("torch-sync-dynamic-shape");
    CheckFactories.registerCheck<ExplicitSyncCheck>("torch-sync-explicit");
    CheckFactories.registerCheck<GraphCaptureCheck>("torch-sync-graph-capture");
    CheckFactories.registerCheck<ItemCheck>("torch-sync-item");
    CheckFactories.registerCheck<PrintCheck>("torch-sync-print");
    CheckFactories.registerCheck<ProjectFactsCheck>("torch-sync-project-facts");
    CheckFactories.registerCheck<TransitiveSyncCheck>("torch-sync-transitive");
  }
};

namespace {
ClangTidyModuleRegistry::Add<TorchSyncModule>
    Registration("torch-sync-module",
                 "Finds host-device synchronizations in LibTorch code.");
} // namespace

} // namespace clang::tidy::torch_sync
