#!/usr/bin/env python3
"""Writes DIR/compile_commands.json for the sources of clangd-real-headers.test.

Usage: write_db.py DIR CXX_FLAGS PYTHON_INCLUDE CUDA_FLAGS
  CXX_FLAGS       the LibTorch flags of every source
  PYTHON_INCLUDE  Python's include folder, for ext.cpp (<torch/extension.h>)
  CUDA_FLAGS      the flags that make scale.cu a CUDA translation unit
"""
import json
import os
import shlex
import sys

folder, cxx, python_include, cuda = sys.argv[1:5]
cxx = shlex.split(cxx)
# What torch.utils.cpp_extension passes: the module name, and the define that lets
# <torch/extension.h> through; Python's headers come before pybind11's.
extension = ["-DTORCH_EXTENSION_NAME=ext", "-DTORCH_API_INCLUDE_EXTENSION_H",
             "-isystem", python_include]
# What LibTorch's CMake and cpp_extension pass to nvcc: without them c10::Half's
# operators are ambiguous with CUDA's __half ones.
half = ["-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
        "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__"]
units = {"train.cpp": cxx, "ext.cpp": cxx + extension,
         "scale.cu": shlex.split(cuda) + half + cxx}
entries = [{"directory": folder, "file": os.path.join(folder, name),
            "arguments": ["clang++", *flags, "-c", os.path.join(folder, name)]}
           for name, flags in units.items()]
with open(os.path.join(folder, "compile_commands.json"), "w") as f:
    json.dump(entries, f, indent=1)
