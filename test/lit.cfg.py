# lit configuration of the torch-sync tests. The build's tools come from
# lit.site.cfg.py, which CMake generates in the build tree.
import os
import shlex

import lit.formats

config.name = "torch-sync"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".cpp", ".cu", ".test"]
# advice-corpus/: the snippets that test/tool/advice-replay.test analyses, not tests of their own.
config.excludes = ["Inputs", "CMakeLists.txt", "README.md", "advice-corpus"]
config.test_source_root = os.path.dirname(__file__)

# The caches of the tools under test (the scan's results, the shared precompiled LibTorch
# headers) default to ${XDG_CACHE_HOME:-$HOME/.cache}/torch-sync: a test that does not name its
# own folder writes into the build tree, never into the user's home.
config.environment["XDG_CACHE_HOME"] = os.path.join(config.test_exec_root, "cache")

# The LibTorch header set of this suite: CMake generates one suite per set
# (Debian's LibTorch 1.13 and the 2.x headers of a torch wheel). A set that was
# not configured fails every test rather than skipping it.
if not getattr(config, "libtorch_version", None):
    lit_config.fatal("this lit.site.cfg.py predates the LibTorch header sets; "
                     "re-run CMake on the build directory")
if not config.libtorch_include:
    lit_config.fatal(
        "the LibTorch %s headers are not configured: run scripts/fetch-libtorch-headers.sh "
        "and configure with -DTORCH_SYNC_LIBTORCH2_INCLUDE=<the directory it prints>"
        % config.libtorch_version)
# Features libtorch-<M.m> and libtorch-<M>.x, for the lines whose expectations
# differ where the LibTorch API or behaviour does. A test for one set only
# (REQUIRES: libtorch-2.x) is not registered for the others (CMakeLists.txt).
config.available_features.add("libtorch-" + config.libtorch_version)
config.available_features.add("libtorch-" + config.libtorch_version.split(".")[0] + ".x")

# Compiler flags for sources that include the LibTorch headers: the narrowest
# header a test needs keeps it fast (<torch/torch.h> costs ~10 s to parse).
# C++17 is what both header sets need. /usr/include is a system directory
# already; naming it again with -isystem would break the C++ library's
# #include_next.
# lit --param include_style=I names them with -I instead, as
# torch.utils.cpp_extension builds do (SkipLibraryHeaders must then keep every
# finding and add none).
include_style = lit_config.params.get("include_style", "isystem")
if include_style not in ("isystem", "I"):
    lit_config.fatal("include_style must be 'isystem' or 'I', not %r" % include_style)
include_opt = "-isystem" if include_style == "isystem" else "-I"
libtorch_flags = ["-std=c++17"]
if os.path.realpath(config.libtorch_include) != "/usr/include":
    libtorch_flags += [include_opt, config.libtorch_include]
libtorch_flags += [include_opt, config.libtorch_api_include]
# A mock of LibTorch's headers (checks/Inputs/mock-libtorch, its README), for the check tests
# of the analysis itself, where the real headers' parse (1 to 10 s a run) adds nothing: a test
# that names %mock_libtorch_flags and no %libtorch_* substitution or libtorch-* feature runs
# once (CMakeLists.txt), not once per header set. Its two folders mirror the real layout.
mock_libtorch = os.path.join(config.test_source_root, "checks", "Inputs", "mock-libtorch")
mock_libtorch_flags = ["-std=c++17", include_opt, mock_libtorch,
                       include_opt, os.path.join(mock_libtorch, "torch", "csrc", "api", "include")]

# The test runner, on the stock clang-tidy of this LLVM release with the plugin.
runner = [
    config.python,
    os.path.join(config.test_source_root, "check_torch_sync.py"),
    "--tidy", config.clang_tidy,
    "--load", config.plugin,
    "--filecheck", config.filecheck,
    "--compiler", config.clangxx,
]
# The runs of the check tests share precompiled LibTorch headers (python/torch_sync/torch_pch.py), one per
# distinct set of flags and first LibTorch header, kept in the suite's build folder: a run then
# parses the test's own code only. lit --param pch=off parses the headers in every run.
if lit_config.params.get("pch", "on") != "off":
    runner += ["--pch-dir", os.path.join(config.test_exec_root, "pch")]
config.substitutions.append(
    ("%check_torch_sync", " ".join(shlex.quote(a) for a in runner)))
config.substitutions.append(("%libtorch_flags", " ".join(libtorch_flags)))
config.substitutions.append(("%mock_libtorch_flags", " ".join(shlex.quote(a) for a in mock_libtorch_flags)))
config.substitutions.append(("%libtorch_include", config.libtorch_include))
config.substitutions.append(("%libtorch_api_include", config.libtorch_api_include))
config.substitutions.append(("%libtorch_version", config.libtorch_version))
config.substitutions.append(("%torch_sync_tidy", config.torch_sync_tidy))
config.substitutions.append(("%clang_tidy", config.clang_tidy))
config.substitutions.append(("%plugin", config.plugin))
config.substitutions.append(("%FileCheck", config.filecheck))
config.substitutions.append(("%not", config.not_tool))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%source_root", config.torch_sync_source_root))
config.substitutions.append(("%clangxx", config.clangxx))
# torch-sync-trace, the trace analysis tool (docs/trace.md), on the suite's Python.
config.substitutions.append(
    ("%torch_sync_trace", " ".join(shlex.quote(a) for a in [
        config.python, os.path.join(config.torch_sync_source_root, "scripts", "torch-sync-trace")])))

config.available_features.add("llvm-" + config.llvm_version_major)
config.substitutions.append(("%llvm_major", config.llvm_version_major))

# Settings that a lit.site.cfg.py generated before they existed lacks (a build directory that
# CMake has not re-run on since): the tests that use them fail, on a value that says so; the
# other tests still run.
stale_site = "lit.site.cfg.py-predates-this-setting--re-run-cmake"


def site_setting(name):
    return getattr(config, name, None)


# The LLVM release of this build, for tests that configure torch-sync with CMake.
config.substitutions.append(("%llvm_dir", site_setting("llvm_dir") or stale_site))
config.substitutions.append(("%clang_dir", site_setting("clang_dir") or stale_site))
config.substitutions.append(("%cmake", site_setting("cmake") or stale_site))
config.substitutions.append(("%lit", site_setting("lit") or stale_site))

# torch-sync-clangd, built where clangd's libraries are installed. Where CMake skipped it, its
# tests are not skipped: they fail on the missing program, and lit says why it is missing.
if site_setting("torch_sync_clangd"):
    config.available_features.add("torch-sync-clangd")
    config.substitutions.append(("%torch_sync_clangd", config.torch_sync_clangd))
elif site_setting("torch_sync_clangd") is None:
    config.substitutions.append(("%torch_sync_clangd", stale_site))
else:
    lit_config.warning("torch-sync-clangd was not built (%s); the tests that run it fail"
                       % (config.torch_sync_clangd_missing or "CMake skipped it"))
    config.substitutions.append(("%torch_sync_clangd", config.torch_sync_clangd_expected))
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
#                       own waits are not reported. CUDA 13 also removed
#                       texture_fetch_functions.h, which clang 19 still
#                       includes: the empty stand-in in checks/Inputs/cuda-stub
#                       comes after every other include directory.
#   %libtorch_cuda_flags  what the LibTorch CUDA headers (c10/cuda, ATen/cuda)
#                       need besides: a CPU build (Debian's 1.13) lacks the
#                       generated c10/cuda/impl/cuda_cmake_macros.h, whose
#                       stand-in is in checks/Inputs/cuda-stub; a CUDA build
#                       (the 2.x wheel) has it, and needs nothing.
cuda_stub = os.path.join(config.test_source_root, "checks", "Inputs", "cuda-stub")
libtorch_cuda_flags = []
if not os.path.isfile(os.path.join(config.libtorch_include, "c10", "cuda", "impl",
                                   "cuda_cmake_macros.h")):
    libtorch_cuda_flags = ["-isystem", cuda_stub]
config.substitutions.append(
    ("%libtorch_cuda_flags", " ".join(shlex.quote(a) for a in libtorch_cuda_flags)))
cuda_include = config.cuda_include
if cuda_include and os.path.isfile(os.path.join(cuda_include, "cuda_runtime_api.h")):
    config.available_features.add("cuda-headers")
    cuda_flags = ["-isystem", cuda_include]
    cuda_source_flags = ["-x", "cuda", "--cuda-host-only",
                         "--cuda-path=" + os.path.dirname(cuda_include),
                         "-nocudalib", "-Wno-unknown-cuda-version"]
    if os.path.isdir(os.path.join(cuda_include, "cccl")):
        cuda_source_flags += ["-isystem", os.path.join(cuda_include, "cccl")]
    if not os.path.isfile(os.path.join(cuda_include, "texture_fetch_functions.h")):
        cuda_source_flags += ["-idirafter", cuda_stub]
    config.substitutions.append(("%cuda_flags", " ".join(shlex.quote(a) for a in cuda_flags)))
    config.substitutions.append(
        ("%cuda_source_flags", " ".join(shlex.quote(a) for a in cuda_source_flags)))
