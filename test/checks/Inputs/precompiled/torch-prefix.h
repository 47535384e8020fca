// The prefix header of a LibTorch project: what CMake's
// target_precompile_headers(... <torch/torch.h>) precompiles.
#pragma once
#include <torch/torch.h>
