//===--- SyncFacts.h - the table of synchronizing LibTorch calls ----------===//
//
// One table of facts that every torch-sync check reads: which LibTorch
// declaration blocks the host, what it does, where PyTorch does it, and what to
// write instead; the ATen overloads that the GPU census measured to block the
// host; and the API name lists the inferences rely on. The table is text, in
// checker/facts/ (sync-facts.yaml, census-aten.tsv, census-frontend.tsv),
// turned into C++ at build time by checker/facts/generate_facts.py, which also
// checks it; test/checks/facts-resolve.test and test/docs/ check the names
// against the LibTorch headers and the documentation against the table.
//
//===----------------------------------------------------------------------===//

#ifndef TORCH_SYNC_SYNCFACTS_H
#define TORCH_SYNC_SYNCFACTS_H

#include "clang/AST/Type.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace clang {
class FunctionDecl;
namespace tidy::torch_sync {

/// The check that reports a fact.
// The categories of sync-facts.yaml ('categories': one check each,
// torch-sync-<name>), generated into SyncCategories.inc.
enum class SyncCategory {
#define TORCH_SYNC_CATEGORY(Enumerator, Name, What) Enumerator,
#include "SyncCategories.inc"
#undef TORCH_SYNC_CATEGORY
};

/// Every category, in the table's order.
inline constexpr SyncCategory AllSyncCategories[] = {
#define TORCH_SYNC_CATEGORY(Enumerator, Name, What) SyncCategory::Enumerator,
#include "SyncCategories.inc"
#undef TORCH_SYNC_CATEGORY
};

/// One synchronizing LibTorch call.
/// What a Thrust algorithm's fact covers (sync-facts.yaml 'thrust'): one that
/// copies a value or an iterator to the host (with every CUDA execution
/// policy), or one that only launches work (it waits for its stream with a
/// synchronous policy, not with 'thrust::cuda::par_nosync'), or a search
/// whose one-value form returns to the host and whose vector form (into an
/// output range) launches ('thrust::lower_bound').
enum class ThrustKind { None, ReturnsToHost, Launches, Searches };

struct SyncFact {
  SyncCategory Category;
  /// Member function name of at::Tensor or at::TensorBase ("item"), or empty.
  llvm::StringRef Method;
  /// Fully qualified free function name ("::at::equal"), or the qualified
  /// name of a member of a class other than at::Tensor
  /// ("::c10::cuda::CUDAStream::synchronize"), or empty.
  llvm::StringRef Function;
  /// What the call does, phrased to follow the call's name in a diagnostic
  /// ("copies a tensor element to the host").
  llvm::StringRef Effect;
  /// The sync-free alternative, phrased to follow "consider ".
  llvm::StringRef Alternative;
  /// Where the synchronization happens, as a path in the pytorch/pytorch tree
  /// (for the CUDA runtime and driver APIs, the CUDA reference).
  llvm::StringRef Source;
  /// For a call that syncs only in the overload that takes a tensor for this
  /// parameter ("value" of masked_fill_): the parameter's name; the check
  /// then looks at that argument's device. Empty for the other facts.
  llvm::StringRef TensorValueParameter = "";
  /// The LibTorch versions whose headers declare the name ("1.13, 2.11").
  llvm::StringRef Versions = "";
  /// The census-frontend.tsv row that measured the call, or empty.
  llvm::StringRef Measured = "";
  /// Whether a null pointer argument makes the call a no-op that does not
  /// wait ('cudaFree(nullptr)').
  bool NullPointerIsNoOp = false;
  /// The alternative where the call runs on every iteration of a loop (one
  /// bulk copy before the loop), or empty: Alternative then serves.
  llvm::StringRef LoopAlternative = "";
  /// For a Thrust algorithm, what it does with a CUDA policy; None otherwise.
  ThrustKind Thrust = ThrustKind::None;
  /// Whether the call is an asynchronous CUDA copy ('cudaMemcpyAsync'), which
  /// waits only from the device into pageable host memory (ExplicitWaits.cpp).
  bool AsyncCopy = false;
};

/// An ATen overload that the census (runtime-verify/census) measured to block
/// the host on CUDA, in one C++ spelling, reported by the check of Category
/// when no fact names that spelling.
struct MeasuredSync {
  /// The overload ("aten::linalg_eig.out").
  llvm::StringRef Overload;
  /// The C++ name: of a function of namespace at (or torch), or of a Tensor
  /// method ("linalg_eig_out").
  llvm::StringRef CppName;
  /// Whether it is the Tensor method spelling (the receiver is 'self').
  bool Method;
  /// The parameters' kinds in C++ order, comma-separated, as parameterKind()
  /// gives them ("T,T,T"; the receiver of a method is not a parameter).
  llvm::StringRef Kinds;
  SyncCategory Category;
  /// What the call does ("reads values from the device on the host").
  llvm::StringRef Effect;
  llvm::StringRef Alternative;
  /// The mechanism as measured ("cudaStreamSynchronize x1; DtoH 1 B ...").
  llvm::StringRef Mechanism;
  /// The mechanism in words, for a note ("1 stream wait, 1 B copied to the
  /// host").
  llvm::StringRef MechanismSummary;
  /// Measured cases that synchronized, of those run ("4/4").
  llvm::StringRef Cases;
  /// Whether the mechanism waits for all work queued on the device (a
  /// cudaDeviceSynchronize, cudaFree or synchronous cudaMemcpy), not only for
  /// the current stream's; generate_facts.py reads it from Mechanism.
  bool DeviceWide;
};

/// A kernel launch that a capture fact covers (sync-facts.yaml 'launch').
enum class CaptureLaunch {
  None,
  /// '<<<grid, block>>>' without a stream, or with stream 0: the legacy
  /// default stream.
  LegacyStream,
};

/// A call that a CUDA stream capture refuses without making the host wait
/// (sync-facts.yaml 'capture_facts'), for torch-sync-graph-capture.
struct CaptureFact {
  /// The qualified name ("::cudaMalloc"), or empty for a launch.
  llvm::StringRef Function;
  /// The launch covered, or None for a function.
  CaptureLaunch Launch;
  /// What the call does in a capture, phrased to follow its name.
  llvm::StringRef Effect;
  /// What to write instead, phrased to follow "consider ".
  llvm::StringRef Alternative;
  /// Where the rule is written (the CUDA Programming Guide's section).
  llvm::StringRef Source;
  /// Whether a capture in relaxed mode permits the call.
  bool RelaxedModeAllows;
  /// The GPU measurement, or "to be measured: <sample function>".
  llvm::StringRef Measured;
};

/// How the code uses what a sync reads from the device or uploads to it, where
/// the use picks the advice (sync-facts.yaml 'advice_by_use', which names
/// these enumerators; analysis/ReadUse.h tells the use).
enum class ValueUse {
  Unused,         ///< nothing reads what the copy to the host made
  HostValue,      ///< the tensor read was made here from values the host holds
  Count,          ///< the value read counts a mask's true elements
  Size,           ///< the value read sizes an allocation, a tensor or a loop
  Accumulated,    ///< the value read is added up on the host, per iteration
  RepeatedUpload, ///< one of several small uploads, or one per iteration
  StagingWait,    ///< a wait that guards an asynchronous upload's host buffer
  ResultWait,     ///< a wait for an asynchronous copy to the host
};

/// The sync-free alternative for \p Use (sync-facts.yaml 'advice_by_use'),
/// phrased to follow "consider ".
llvm::StringRef useAlternative(ValueUse Use);

/// The API name lists of sync-facts.yaml (api_lists).
enum class ApiList {
#include "SyncFactsApiLists.inc"
};

/// All facts, in table order. The storage is static.
llvm::ArrayRef<SyncFact> syncFacts();

/// The census's reported overloads, in table order. The storage is static.
llvm::ArrayRef<MeasuredSync> measuredSyncs();

/// The names of \p List, in table order.
llvm::ArrayRef<llvm::StringRef> apiList(ApiList List);

/// Whether \p Name is one of \p List's names.
bool isInApiList(ApiList List, llvm::StringRef Name);

/// Tensor method names of the facts in \p Category (for hasAnyName).
std::vector<llvm::StringRef> methodNames(SyncCategory Category);

/// Qualified free function names of the facts in \p Category.
std::vector<llvm::StringRef> functionNames(SyncCategory Category);

/// Whether \p QualifiedName, a fact's function name ("::cudaMemcpy"), names a
/// function of the global namespace: the CUDA runtime and driver APIs.
bool isGlobalName(llvm::StringRef QualifiedName);

/// The qualified names a call of a fact in \p Category may resolve to: the
/// facts' names, and for CUDA API functions the names the CUDA headers declare
/// them under ('::cuMemcpyDtoH_v2', '::cudaMemcpy_ptds'; api list
/// cuda_api_name_suffixes), and Thrust's and CUB's without the leading '::'
/// ('thrust::reduce'), which hasAnyName matches under a wrapping namespace
/// too. For hasAnyName.
std::vector<std::string> declaredFunctionNames(SyncCategory Category);

/// The kind of a parameter type, as the census table writes an ATen schema
/// type: "T" (Tensor), "T?", "T[]", "T?[]", "S" (Scalar), "S?", "i" (an
/// integer or SymInt), "i?", "f", "f?", "b", "b?", "i[]", "i[]?", "dt"
/// (ScalarType), "dt?", "opts" (TensorOptions), "o" (anything else).
std::string parameterKind(QualType Type);

/// The fact in \p Category for the called declaration \p Callee (a Tensor
/// method by its name, any other function or member by its qualified name,
/// a CUDA API function also under its suffixed names), or null when there is
/// none.
const SyncFact *findSyncFact(SyncCategory Category, const FunctionDecl &Callee);

/// The fact of any category for \p Callee, or null.
const SyncFact *findAnySyncFact(const FunctionDecl &Callee);

/// The census overload that \p Callee spells (a Tensor method, or a function
/// of namespace at or torch, whose name and parameter kinds match), when the
/// census measured it to block the host and no fact names the callee; null
/// otherwise.
const MeasuredSync *findMeasuredSync(const FunctionDecl &Callee);

/// The calls a graph capture refuses (sync-facts.yaml 'capture_facts'), in
/// table order. The storage is static.
llvm::ArrayRef<CaptureFact> captureFacts();

/// The capture fact naming \p Callee (by its qualified name, a CUDA API
/// function also under its suffixed names), or null.
const CaptureFact *findCaptureFact(const FunctionDecl &Callee);

/// The capture fact of the launch \p Launch, or null.
const CaptureFact *findCaptureLaunchFact(CaptureLaunch Launch);

/// Whether \p Callee's qualified name, or for a CUDA API function its
/// documented name ('::cuStreamBeginCapture' of 'cuStreamBeginCapture_v2'),
/// is one of \p List's names.
bool isApiListFunction(ApiList List, const FunctionDecl &Callee);

} // namespace tidy::torch_sync
} // namespace clang

#endif // TORCH_SYNC_SYNCFACTS_H
