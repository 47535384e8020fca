#include <ATen/core/Tensor.h>

double first_value(const at::Tensor& t) { return t.item<double>(); }

// A declaration the build would find elsewhere: here it does not parse.
int count(const at::Tensor& t) { return undeclared_helper(t); }
