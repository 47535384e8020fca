// No LibTorch header: nothing to precompile.
int plain(int x) { return x + 1; }
