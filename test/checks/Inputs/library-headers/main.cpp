#include <ATen/library.h>
#include <cutlass/library.h>
#include <project/own.h>
int main() { return libraryCode(1) + detailCode(2) + ownCode(3); }
