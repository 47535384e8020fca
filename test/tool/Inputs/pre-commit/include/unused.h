#pragma once

inline int unused() { return 1; }
