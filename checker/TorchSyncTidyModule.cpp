//===--- TorchSyncTidyModule.cpp - the torch-sync clang-tidy module -------===//
//
// Registers the torch-sync-* checks, in alphabetical order.
//
//===----------------------------------------------------------------------===//

#include "BooleanMaskCheck.h"
#include "DeviceIndexCheck.h"
#include "DeviceToHostCheck.h"
#include "DynamicShapeCheck.h"
#include "ExplicitSyncCheck.h"
#include "ItemCheck.h"
#include "PrintCheck.h"
#include "ProjectFactsCheck.h"
#include "TransitiveSyncCheck.h"
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
