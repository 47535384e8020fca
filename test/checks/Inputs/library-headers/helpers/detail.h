#pragma once
// Reached only through cutlass/library.h.
inline int detailCode(int x) {
  if (x)
    return 1;
  return 0;
}
