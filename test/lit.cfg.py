# lit configuration of the torch-sync tests. The build's tools come from
# lit.site.cfg.py, which CMake generates in the build tree.
import os
import shlex

import lit.formats

config.name = "torch-sync"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".cpp", ".cu", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "README.md"]
config.test_source_root = os.path.dirname(__file__)

# Compiler flags for sources that include the LibTorch headers: the narrowest
# header a test needs keeps it fast (<torch/torch.h> costs ~10 s to parse).
# /usr/include is a system directory already; naming it again with -isystem
# would break the C++ library's #include_next.
libtorch_flags = ["-std=c++17"]
if os.path.realpath(config.libtorch_include) != "/usr/include":
    libtorch_flags += ["-isystem", config.libtorch_include]
libtorch_flags += ["-isystem", config.libtorch_api_include]

# The test runner, on the stock clang-tidy of this LLVM release with the plugin.
runner = [
    config.python,
    os.path.join(config.test_source_root, "check_torch_sync.py"),
    "--tidy", config.clang_tidy,
    "--load", config.plugin,
    "--filecheck", config.filecheck,
    "--compiler", config.clangxx,
]
config.substitutions.append(
    ("%check_torch_sync", " ".join(shlex.quote(a) for a in runner)))
config.substitutions.append(("%libtorch_flags", " ".join(libtorch_flags)))
config.substitutions.append(("%libtorch_include", config.libtorch_include))
config.substitutions.append(("%libtorch_api_include", config.libtorch_api_include))
config.substitutions.append(("%torch_sync_tidy", config.torch_sync_tidy))
config.substitutions.append(("%clang_tidy", config.clang_tidy))
config.substitutions.append(("%plugin", config.plugin))
config.substitutions.append(("%FileCheck", config.filecheck))
config.substitutions.append(("%not", config.not_tool))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%source_root", config.torch_sync_source_root))

config.available_features.add("llvm-" + config.llvm_version_major)
if config.other_clang_tidy:
    config.available_features.add("other-clang-tidy")
    config.substitutions.append(("%other_clang_tidy", config.other_clang_tidy))

# The CUDA toolkit's headers (TORCH_SYNC_CUDA_INCLUDE), for code that calls the
# CUDA runtime and driver APIs; tests that use them say "REQUIRES: cuda-headers".
#   %cuda_flags         include them in C++ code, as system headers.
#   %cuda_source_flags  parse a CUDA source with clang's CUDA front end, host
#                       side only: no device compilation, no CUDA libraries. The
#                       toolkit may be newer than clang knows (CUDA 13 for clang
#                       19 and 22), and CUDA 13 moved thrust and cub to
#                       include/cccl, included as system headers so that their
#                       own waits are not reported.
# The LibTorch CUDA headers (c10/cuda, ATen/cuda) also need the stand-ins in
# checks/Inputs/cuda-stub, which the tests put on the include path themselves.
cuda_include = config.cuda_include
if cuda_include and os.path.isfile(os.path.join(cuda_include, "cuda_runtime_api.h")):
    config.available_features.add("cuda-headers")
    cuda_flags = ["-isystem", cuda_include]
    cuda_source_flags = ["-x", "cuda", "--cuda-host-only",
                         "--cuda-path=" + os.path.dirname(cuda_include),
                         "-nocudalib", "-Wno-unknown-cuda-version"]
    if os.path.isdir(os.path.join(cuda_include, "cccl")):
        cuda_source_flags += ["-isystem", os.path.join(cuda_include, "cccl")]
    config.substitutions.append(("%cuda_flags", " ".join(shlex.quote(a) for a in cuda_flags)))
    config.substitutions.append(
        ("%cuda_source_flags", " ".join(shlex.quote(a) for a in cuda_source_flags)))
