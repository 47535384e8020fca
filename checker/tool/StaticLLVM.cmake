# TORCH_SYNC_STATIC_LLVM: link torch-sync-tidy and torch-sync-clangd against LLVM's and Clang's static
# archives, so that they need neither libLLVM.so nor libclang-cpp.so at run time (the wheel, pyproject.toml).
#
# Debian's LLVM packages ship every component as a static archive (libLLVM<Component>.a, libclang<Lib>.a),
# but their exported CMake targets link the shared libraries: each Clang target names the target LLVM (the
# libLLVM.so dylib) and $<LINK_ONLY:clang-cpp>. This file rewrites those link interfaces on the imported
# targets, once, before anything links them:
#   LLVM                     -> torchSyncStaticLLVM, an interface target listing the static LLVM components
#   clang-cpp                -> torchSyncStaticClang, an interface target listing Clang's static archives
#   clangdRemoteIndex        -> dropped: clangd's remote index needs gRPC; StaticLinkShims.cpp gives the
#                               "remote index not built" client that LLVM builds without gRPC use
#   libz3.so (LLVMSupport)   -> dropped: Z3 is only the static analyzer's optional cross-check;
#                               StaticLinkShims.cpp gives LLVM's "built without Z3" CreateZ3Solver
#   ZLIB, zstd               -> their static archives (zlib1g-dev, libzstd-dev)
#   an LLVM component not installed or left out below -> dropped
# and links libstdc++ statically, so that the executables need only glibc (libc, libm) and libgcc_s at run
# time.
# The -load plugin is unaffected: it links nothing and resolves against the clang-tidy that loads it.

# The imported targets among TARGETS that are static archives installed here (LLVM's CMake package names
# some that other packages ship), less those whose name matches EXCLUDE, in OUT.
function(torch_sync_installed_archives out targets exclude)
  set(archives "")
  foreach(lib IN LISTS targets)
    if(NOT TARGET ${lib} OR lib MATCHES "${exclude}")
      continue()
    endif()
    get_target_property(type ${lib} TYPE)
    get_target_property(location ${lib} LOCATION)
    if(type STREQUAL "STATIC_LIBRARY" AND location AND EXISTS "${location}")
      list(APPEND archives ${lib})
    endif()
  endforeach()
  set(${out} "${archives}" PARENT_SCOPE)
endfunction()

# LLVM's components, less those whose archives pull in libraries the tools never need (line editing,
# libffi's interpreter, libxml2's manifest tool, libpfm's benchmarks, libcurl's debuginfod, Polly, BOLT), so
# that nothing drags those libraries in.
torch_sync_installed_archives(torch_sync_static_llvm "${LLVM_AVAILABLE_LIBS}"
  "^(LLVMLineEditor|LLVMInterpreter|LLVMWindowsManifest|LLVMExegesis.*|LLVMFuzzerCLI|LLVMDebuginfod|Polly|LLVMPolly|LLVMBOLT.*)$")
if(NOT "LLVMSupport" IN_LIST torch_sync_static_llvm)
  message(FATAL_ERROR "torch-sync: TORCH_SYNC_STATIC_LLVM needs LLVM's static archives (libLLVMSupport.a "
                      "and the others); they were not found with ${LLVM_DIR} (Debian: llvm-${LLVM_VERSION_MAJOR}-dev)")
endif()
# Clang's archives, for the same reason: Debian's Clang targets name clang-cpp instead of the Clang
# libraries they use (clangIncludeCleaner does not name clangToolingInclusionsStdlib, for one).
# clangd's remote index (gRPC) is left out: see the header; so are clangd's tweaks, which
# torch-sync-clangd links as a whole archive (checker/CMakeLists.txt).
torch_sync_installed_archives(torch_sync_static_clang "${CLANG_EXPORTED_TARGETS}"
  "^(clangdRemote.*|clangd.*Proto|clangDaemonTweaks)$")
add_library(torchSyncStaticClang INTERFACE)
target_link_libraries(torchSyncStaticClang INTERFACE ${torch_sync_static_clang})

add_library(torchSyncStaticLLVM INTERFACE)
target_link_libraries(torchSyncStaticLLVM INTERFACE ${torch_sync_static_llvm})

# The static archives of zlib and zstd, which LLVMSupport uses for compressed debug sections and
# compressed PCH/module files.
foreach(dep z zstd)
  find_library(TORCH_SYNC_STATIC_${dep} NAMES lib${dep}.a)
  if(NOT TORCH_SYNC_STATIC_${dep})
    message(FATAL_ERROR "torch-sync: TORCH_SYNC_STATIC_LLVM needs lib${dep}.a "
                        "(Debian: apt-get install zlib1g-dev libzstd-dev)")
  endif()
endforeach()

# Rewrites the link interface of one imported static target as the header says.
function(torch_sync_make_static target)
  get_target_property(type ${target} TYPE)
  if(NOT type STREQUAL "STATIC_LIBRARY")
    return()
  endif()
  get_target_property(deps ${target} INTERFACE_LINK_LIBRARIES)
  if(NOT deps)
    return()
  endif()
  set(new "")
  foreach(dep IN LISTS deps)
    if(dep STREQUAL "LLVM")
      list(APPEND new torchSyncStaticLLVM)
    elseif(dep STREQUAL "$<LINK_ONLY:clang-cpp>")
      list(APPEND new torchSyncStaticClang)
    elseif(dep STREQUAL "$<LINK_ONLY:clangdRemoteIndex>" OR dep MATCHES "libz3\\.so")
      # Dropped: see the header.
    elseif(TARGET "${dep}" AND NOT dep IN_LIST torch_sync_static_llvm AND dep MATCHES "^(LLVM|Polly)")
      # An LLVM component whose archive is not installed (Polly, which LLVMExtensions names) or one
      # left out above.
    elseif(dep STREQUAL "ZLIB::ZLIB")
      list(APPEND new ${TORCH_SYNC_STATIC_z})
    elseif(dep MATCHES "^zstd::")
      list(APPEND new ${TORCH_SYNC_STATIC_zstd})
    else()
      list(APPEND new "${dep}")
    endif()
  endforeach()
  set_property(TARGET ${target} PROPERTY INTERFACE_LINK_LIBRARIES "${new}")
endfunction()

foreach(target IN LISTS CLANG_EXPORTED_TARGETS torch_sync_static_llvm)
  if(TARGET ${target})
    torch_sync_make_static(${target})
  endif()
endforeach()

# For the executables: the shims, and the C++ runtime linked in.
set(TORCH_SYNC_STATIC_LINK_SHIMS ${CMAKE_CURRENT_LIST_DIR}/StaticLinkShims.cpp)
# --gc-sections drops the archives' unreferenced sections (LLVM builds them with -ffunction-sections).
# The archives name each other in no order a single pass can follow (their link interfaces were written
# for the shared libraries): lld resolves symbols across all of them, whatever their order.
find_program(TORCH_SYNC_LLD NAMES ld.lld-${LLVM_VERSION_MAJOR} ld.lld HINTS ${LLVM_TOOLS_BINARY_DIR})
if(NOT TORCH_SYNC_LLD)
  message(FATAL_ERROR "torch-sync: TORCH_SYNC_STATIC_LLVM links with lld, which was not found "
                      "(Debian: apt-get install lld-${LLVM_VERSION_MAJOR})")
endif()
set(TORCH_SYNC_STATIC_LINK_OPTIONS -static-libstdc++ --ld-path=${TORCH_SYNC_LLD} -Wl,--gc-sections)
message(STATUS "torch-sync: linking the tools statically against ${LLVM_LIBRARY_DIR}'s "
               "${CMAKE_STATIC_LIBRARY_PREFIX}LLVM*/clang* archives")
