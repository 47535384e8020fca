#pragma once
#include <proj/stream.h>
