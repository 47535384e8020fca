//===--- DeviceInferenceTest.cpp - unit tests of the device inference -----===//
//
// Each test parses a snippet against Inputs/mock-torch.h (no LibTorch) and
// asserts what DeviceInference or one of its components answers for an
// expression or declaration found by name. The argument of the N-th call to
// 'sink' is the expression under test.
//
//===----------------------------------------------------------------------===//

#include "analysis/device/DeviceInference.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

using namespace clang;
using namespace clang::ast_matchers;
using namespace clang::tidy::torch_sync;

namespace {

constexpr DeviceKind Unknown = DeviceKind::Unknown;
constexpr DeviceKind CPU = DeviceKind::CPU;
constexpr DeviceKind CUDA = DeviceKind::CUDA;
constexpr DeviceKind Unspecified = DeviceKind::Unspecified;

/// A snippet parsed with the mock header, and the lookups the tests use.
class Snippet {
public:
  explicit Snippet(const std::string &Code) {
    std::vector<std::string> Args = {"-std=c++17", "-fsyntax-only", "-isystem",
                                     TORCH_SYNC_UNIT_INPUTS};
    Unit =
        tooling::buildASTFromCodeWithArgs("#include \"mock-torch.h\"\n"
                                          "void sink(const at::Tensor &);\n" +
                                              Code,
                                          Args, "input.cc");
    EXPECT_TRUE(Unit) << "the snippet does not parse";
    EXPECT_FALSE(Unit->getDiagnostics().hasErrorOccurred())
        << "the snippet has errors:\n"
        << Code;
    Devices = std::make_unique<DeviceInference>(context());
  }

  ASTContext &context() { return Unit->getASTContext(); }
  DeviceInference &devices() { return *Devices; }

  /// The argument of the \p Index-th call to 'sink', in source order.
  const Expr *sinkArg(unsigned Index) {
    auto Found = match(translationUnitDecl(forEachDescendant(
                           callExpr(callee(functionDecl(hasName("sink"))),
                                    hasArgument(0, expr().bind("arg"))))),
                       *context().getTranslationUnitDecl(), context());
    std::vector<const Expr *> Args;
    for (const BoundNodes &Nodes : Found)
      Args.push_back(Nodes.getNodeAs<Expr>("arg"));
    std::sort(Args.begin(), Args.end(), [&](const Expr *A, const Expr *B) {
      return context().getSourceManager().isBeforeInTranslationUnit(
          A->getBeginLoc(), B->getBeginLoc());
    });
    EXPECT_LT(Index, Args.size()) << "no sink call " << Index;
    return Index < Args.size() ? Args[Index] : nullptr;
  }

  /// The device of the argument of the \p Index-th call to 'sink'.
  DeviceKind sinkDevice(unsigned Index) {
    const Expr *Arg = sinkArg(Index);
    return Arg ? Devices->tensorDevice(Arg) : Unknown;
  }

  /// The variable (or parameter) named \p Name in the main file.
  const VarDecl *var(StringRef Name) {
    auto Found = match(
        findAll(varDecl(hasName(Name), isExpansionInMainFile()).bind("var")),
        *context().getTranslationUnitDecl(), context());
    EXPECT_EQ(Found.size(), 1u) << "variable " << Name.str();
    return Found.empty() ? nullptr : Found[0].getNodeAs<VarDecl>("var");
  }

  /// The function named \p Name in the main file (its definition if any).
  const FunctionDecl *function(StringRef Name) {
    auto Found =
        match(findAll(functionDecl(hasName(Name), isDefinition()).bind("f")),
              *context().getTranslationUnitDecl(), context());
    EXPECT_FALSE(Found.empty()) << "function " << Name.str();
    return Found.empty() ? nullptr : Found[0].getNodeAs<FunctionDecl>("f");
  }

private:
  std::unique_ptr<ASTUnit> Unit;
  std::unique_ptr<DeviceInference> Devices;
};

const char *name(DeviceKind Kind) {
  switch (Kind) {
  case Unknown:
    return "Unknown";
  case CPU:
    return "CPU";
  case CUDA:
    return "CUDA";
  case Unspecified:
    return "Unspecified";
  }
  return "?";
}

} // namespace

namespace clang::tidy::torch_sync {
void PrintTo(DeviceKind Kind, std::ostream *Out) { *Out << name(Kind); }
} // namespace clang::tidy::torch_sync

// --- DeviceLattice ----------------------------------------------------------

TEST(DeviceLattice, CombineInputsTable) {
  const DeviceKind All[] = {Unknown, CPU, CUDA, Unspecified};
  // Rows and columns in the order of All.
  const DeviceKind Expected[4][4] = {
      {Unknown, Unknown, CUDA, Unknown},
      {Unknown, CPU, CUDA, CPU},
      {CUDA, CUDA, CUDA, CUDA},
      {Unknown, CPU, CUDA, Unspecified},
  };
  for (unsigned I = 0; I < 4; ++I)
    for (unsigned J = 0; J < 4; ++J)
      EXPECT_EQ(combineInputs(All[I], All[J]), Expected[I][J])
          << name(All[I]) << " with " << name(All[J]);
}

TEST(DeviceLattice, JoinAlternativesTable) {
  const DeviceKind All[] = {Unknown, CPU, CUDA, Unspecified};
  const DeviceKind Expected[4][4] = {
      {Unknown, Unknown, Unknown, Unknown},
      {Unknown, CPU, Unknown, CPU},
      {Unknown, Unknown, CUDA, CUDA},
      {Unknown, CPU, CUDA, Unspecified},
  };
  for (unsigned I = 0; I < 4; ++I)
    for (unsigned J = 0; J < 4; ++J)
      EXPECT_EQ(joinAlternatives(All[I], All[J]), Expected[I][J])
          << name(All[I]) << " or " << name(All[J]);
}

TEST(DeviceLattice, DeviceFromString) {
  EXPECT_EQ(deviceFromString("cpu"), CPU);
  EXPECT_EQ(deviceFromString("cuda"), CUDA);
  EXPECT_EQ(deviceFromString("cuda:1"), CUDA);
  EXPECT_EQ(deviceFromString("mps"), Unknown);
  EXPECT_EQ(deviceFromString("CPU"), Unknown);
}

TEST(DeviceLattice, DeviceFromEnumerator) {
  Snippet S("int x;");
  auto Found =
      match(findAll(enumConstantDecl(
                        hasAncestor(enumDecl(hasName("::c10::DeviceType"))))
                        .bind("e")),
            *S.context().getTranslationUnitDecl(), S.context());
  ASSERT_EQ(Found.size(), 2u);
  for (const BoundNodes &Nodes : Found) {
    const auto *E = Nodes.getNodeAs<EnumConstantDecl>("e");
    EXPECT_EQ(deviceFromEnumerator(*E), E->getName() == "CPU" ? CPU : CUDA);
  }
}

// --- DeviceInference: factories, transfers, devices named --------------------

TEST(DeviceInference, FactoriesAndTransfers) {
  Snippet S(R"cpp(
    void f(at::Tensor p) {
      sink(torch::zeros(2));
      sink(at::ones(2, at::kCUDA));
      sink(torch::randn(2, c10::Device("cuda:0")));
      sink(p);
      sink(p.cpu());
      sink(torch::zeros(2).cuda());
      sink(p.to(at::kCPU));
      sink(torch::zeros(2) + p.cuda());
      sink(torch::zeros(2).abs());
    }
  )cpp");
  EXPECT_EQ(S.sinkDevice(0), CPU);
  EXPECT_EQ(S.sinkDevice(1), CUDA);
  EXPECT_EQ(S.sinkDevice(2), CUDA);
  EXPECT_EQ(S.sinkDevice(3), Unknown);
  EXPECT_EQ(S.sinkDevice(4), CPU);
  EXPECT_EQ(S.sinkDevice(5), CUDA);
  EXPECT_EQ(S.sinkDevice(6), CPU);
  EXPECT_EQ(S.sinkDevice(7), CUDA);
  EXPECT_EQ(S.sinkDevice(8), CPU);
}

TEST(DeviceInference, CoLocationThroughOneDevice) {
  Snippet S(R"cpp(
    void f(c10::Device dev, c10::Device other) {
      at::Tensor a = torch::zeros(2, dev);
      at::Tensor b = torch::ones(2, dev);
      at::Tensor c = torch::ones(2, other);
      sink(a);
      sink(b);
      sink(c);
      sink(a + b);
    }
  )cpp");
  const VarDecl *Dev = S.var("dev");
  ASSERT_NE(Dev, nullptr);
  EXPECT_EQ(S.devices().targetOrigin(S.sinkArg(0)), Dev);
  EXPECT_EQ(S.devices().targetOrigin(S.sinkArg(1)), Dev);
  EXPECT_EQ(S.devices().targetOrigin(S.sinkArg(2)), S.var("other"));
  EXPECT_EQ(S.devices().deviceOrigin(S.sinkArg(3)), Dev);
  // Neither device is known.
  EXPECT_EQ(S.sinkDevice(0), Unknown);
}

// --- DeviceWrites -----------------------------------------------------------

TEST(DeviceWrites, NeverWrittenAndSingleValue) {
  Snippet S(R"cpp(
    void f() {
      at::Tensor a = torch::zeros(2);
      at::Tensor c = torch::ones(2);
      c = c.cuda();
      sink(a);
      sink(c);
    }
  )cpp");
  DeviceWrites &Writes = S.devices().writes();
  const VarDecl *A = S.var("a"), *C = S.var("c");
  ASSERT_TRUE(A && C);
  EXPECT_TRUE(Writes.isNeverWritten(*A));
  EXPECT_EQ(Writes.singleValue(*A), A->getInit());
  EXPECT_FALSE(Writes.isNeverWritten(*C));
  EXPECT_EQ(Writes.singleValue(*C), nullptr);
  auto Found = Writes.writesOf(*C, *S.function("f")->getBody());
  ASSERT_TRUE(Found.has_value());
  EXPECT_EQ(Found->Statements.size(), 2u); // the declaration, the assignment
  EXPECT_EQ(S.sinkDevice(0), CPU);
  // The reaching write at the read is 'c = c.cuda()'.
  EXPECT_EQ(S.sinkDevice(1), CUDA);
}

TEST(DeviceWrites, EscapeThroughNonConstReference) {
  Snippet S(R"cpp(
    void replace(at::Tensor &t);
    void look(const at::Tensor &t);
    void f() {
      at::Tensor b = torch::zeros(2);
      at::Tensor k = torch::zeros(2);
      replace(b);
      look(k);
      sink(b);
      sink(k);
    }
  )cpp");
  DeviceWrites &Writes = S.devices().writes();
  const VarDecl *B = S.var("b"), *K = S.var("k");
  ASSERT_TRUE(B && K);
  EXPECT_FALSE(Writes.isNeverWritten(*B));
  EXPECT_EQ(Writes.singleValue(*B), nullptr);
  EXPECT_FALSE(Writes.writesOf(*B, *S.function("f")->getBody()).has_value());
  EXPECT_TRUE(Writes.isNeverWritten(*K));
  EXPECT_EQ(S.sinkDevice(0), Unknown);
  EXPECT_EQ(S.sinkDevice(1), CPU);
}

// --- DeviceConditions --------------------------------------------------------

TEST(DeviceConditions, TorchCheckGuardsTheRestOfTheBlock) {
  Snippet S(R"cpp(
    void f(at::Tensor t, at::Tensor u) {
      sink(t);
      TORCH_CHECK(t.is_cpu(), "t must be on the CPU");
      sink(t);
      TORCH_CHECK(!u.is_cuda());
      sink(u);
    }
  )cpp");
  EXPECT_EQ(S.sinkDevice(0), Unknown);
  EXPECT_EQ(S.sinkDevice(1), CPU);
  EXPECT_EQ(S.sinkDevice(2), CPU);
  const VarDecl *T = S.var("t");
  ASSERT_NE(T, nullptr);
  EXPECT_EQ(S.devices().conditions().guardedDevice(*T, *S.sinkArg(1)), CPU);
  EXPECT_EQ(S.devices().conditions().deviceFacts(*S.function("f")).size(), 2u);
}

TEST(DeviceConditions, DeviceBranch) {
  Snippet S(R"cpp(
    void f(at::Tensor t) {
      if (t.device().is_cpu()) {
        sink(t);
      } else {
        sink(t);
      }
      if (t.device() == at::kCUDA)
        sink(t);
      sink(t);
    }
  )cpp");
  EXPECT_EQ(S.sinkDevice(0), CPU);
  EXPECT_EQ(S.sinkDevice(1), Unknown); // not CPU: any other device
  EXPECT_EQ(S.sinkDevice(2), CUDA);
  EXPECT_EQ(S.sinkDevice(3), Unknown);
}

TEST(DeviceConditions, GuardBeforeLabelHoldsAfterIt) {
  Snippet S(R"cpp(
    void f(at::Tensor t, int n) {
      TORCH_CHECK(t.is_cpu());
    again:
      sink(t);
      if (--n > 0)
        goto again;
    }
    void g(at::Tensor t, bool skip) {
      if (skip)
        goto use;
      TORCH_CHECK(t.is_cpu());
    use:
      sink(t);
    }
  )cpp");
  // Every path to the use passes the guard.
  EXPECT_EQ(S.sinkDevice(0), CPU);
  // The goto skips the guard.
  EXPECT_EQ(S.sinkDevice(1), Unknown);
}

TEST(DeviceConditions, Helpers) {
  Snippet S(R"cpp(
    void f(at::Tensor t) {
      if (t.is_cuda()) { c10::detail::torchCheckFail("no"); }
      if (t.is_cuda()) { sink(t); }
    }
  )cpp");
  auto Ifs = match(findAll(ifStmt().bind("if")), *S.function("f")->getBody(),
                   S.context());
  ASSERT_EQ(Ifs.size(), 2u);
  const auto *First = Ifs[0].getNodeAs<IfStmt>("if");
  const auto *Second = Ifs[1].getNodeAs<IfStmt>("if");
  if (S.context().getSourceManager().isBeforeInTranslationUnit(
          Second->getBeginLoc(), First->getBeginLoc()))
    std::swap(First, Second);
  EXPECT_TRUE(neverFallsThrough(First->getThen(), S.context()));
  EXPECT_FALSE(neverFallsThrough(Second->getThen(), S.context()));
  llvm::SmallVector<DeviceTest, 2> Tests;
  collectDeviceTests(First->getCond(), /*Truth=*/false, S.devices(), Tests);
  ASSERT_EQ(Tests.size(), 1u);
  EXPECT_EQ(Tests[0].first, S.var("t"));
  EXPECT_EQ(Tests[0].second, CPU);
  EXPECT_EQ(testedTensor(S.sinkArg(0)), S.var("t"));
}

// --- ModuleDevices ----------------------------------------------------------

TEST(ModuleDevices, ModuleMadeLocally) {
  Snippet S(R"cpp(
    void share(torch::nn::Linear &m);
    void f() {
      torch::nn::Linear kept(2, 3);
      sink(kept->weight);
      sink(kept->forward(torch::zeros(2)));
      torch::nn::Linear moved(2, 3);
      moved->to(at::kCPU);
      sink(moved->weight);
      torch::nn::Linear away(2, 3);
      away->to(at::kCUDA);
      sink(away->weight);
      torch::nn::Linear shared(2, 3);
      share(shared);
      sink(shared->weight);
    }
  )cpp");
  EXPECT_EQ(S.sinkDevice(0), CPU);
  EXPECT_EQ(S.sinkDevice(1), CPU);
  EXPECT_EQ(S.sinkDevice(2), CPU);
  // Moved: the uses before the move see the CPU, the later ones CUDA.
  EXPECT_EQ(S.sinkDevice(3), Unknown);
  EXPECT_EQ(S.sinkDevice(4), Unknown);
  ModuleDevices &Modules = S.devices().modules();
  EXPECT_EQ(Modules.moduleVariableDevice(*S.var("kept"), 0), CPU);
  EXPECT_EQ(Modules.moduleVariableDevice(*S.var("shared"), 0), Unknown);
}

// --- CallerDevices ----------------------------------------------------------

TEST(CallerDevices, FilePrivateFunctionCalledWithCpuTensors) {
  Snippet S(R"cpp(
    static void helper(at::Tensor t) { sink(t); }
    static void mixed(at::Tensor t) { sink(t); }
    void exported(at::Tensor t) { sink(t); }
    void caller(at::Tensor p) {
      helper(torch::zeros(2));
      helper(p.cpu());
      mixed(torch::zeros(2));
      mixed(p);
      exported(torch::zeros(2));
    }
  )cpp");
  EXPECT_EQ(S.sinkDevice(0), CPU);
  EXPECT_EQ(S.sinkDevice(1), Unknown);
  // Not private to the file: its callers may be elsewhere.
  EXPECT_EQ(S.sinkDevice(2), Unknown);
  CallerDevices &Sites = S.devices().callers();
  EXPECT_TRUE(Sites.isFilePrivate(*S.function("helper")));
  EXPECT_FALSE(Sites.isFilePrivate(*S.function("exported")));
  const CallerDevices::CallSites *Calls =
      Sites.privateCallSites(*S.function("helper"));
  ASSERT_NE(Calls, nullptr);
  EXPECT_EQ(Calls->Calls.size(), 2u);
  EXPECT_FALSE(Sites.isCpuKernel(*S.function("helper")));
}

TEST(CallerDevices, CpuRegistrationName) {
  EXPECT_TRUE(isCpuRegistrationName("TORCH_LIBRARY_IMPL_init_myops_CPU_7"));
  EXPECT_FALSE(isCpuRegistrationName("TORCH_LIBRARY_IMPL_init_myops_CUDA_7"));
  EXPECT_FALSE(isCpuRegistrationName("helper_CPU_7"));
}
