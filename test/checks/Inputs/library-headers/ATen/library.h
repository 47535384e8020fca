#pragma once
// A stand-in for a LibTorch header (its path matches LibTorchHeaderRegex).
inline int libraryCode(int x) {
  if (x)
    return 1;
  return 0;
}
