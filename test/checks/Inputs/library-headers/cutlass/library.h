#pragma once
// A stand-in for a third-party header (ThirdPartyHeaderRegex), which includes
// a file from a folder that matches no pattern, relative to itself.
#include "../helpers/detail.h"
