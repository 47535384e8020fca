// No CUDA, directly or through a header.
#include "plain.h"

int plain() { return kPlain; }
