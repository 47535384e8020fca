#pragma once
// The project's own header: never a library header.
inline int ownCode(int x) {
  if (x)
    return 1;
  return 0;
}
