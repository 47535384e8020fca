// Header sets differ: index_put_ with a mask and a host scalar blocks on 1.x
// only (the LIBTORCH1 prefix).
// RUN: %check_torch_sync --checks=-*,torch-sync-transitive --temp %t \
// RUN:   %if libtorch-1.x %{--check-suffix=,LIBTORCH1%} %s -- %libtorch_flags
// OLDER-LIBTORCH: the LIBTORCH1 line (index_put_ with a mask and a host scalar blocks on 1.x only)
// A helper whose sync depends on its arguments is judged as the direct
// checks judge the call (CallSync.h): a boolean-mask index, a 0-dim tensor
// index, 'repeat_interleave' without 'output_size', 'histc' without a range,
// 'one_hot' without 'num_classes', one-argument 'where', a tensor 'value',
// a copy to the host, 'narrow' with a tensor start and formatting a tensor
// count; each twin, whose arguments make the same call sync-free (or whose
// formatting builds a failure's message), does not.
#include <ATen/TensorIndexing.h>
#include <ATen/TensorOperators.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/histc.h>
#include <ATen/ops/one_hot.h>
#include <ATen/ops/repeat_interleave.h>
#include <ATen/ops/where.h>
#include <torch/version.h>
#include <ATen/core/Formatting.h>
#include <c10/util/StringUtil.h>
#include <iostream>
#include <stdexcept>

using at::indexing::Slice;

at::Tensor keepPositive(const at::Tensor &t) { return t.index({t > 0}); }
at::Tensor keepFirst(const at::Tensor &t) { return t.index({Slice(0, 2)}); }
at::Tensor pickLargest(const at::Tensor &t) { return t[t.argmax()]; }
at::Tensor pickFirst(const at::Tensor &t) { return t[0]; }
void clearWithTensor(at::Tensor &t, const at::Tensor &v) { t.index_put_({t < 0}, v); }
void clearWithScalar(at::Tensor &t) { t.index_put_({t < 0}, 0.0); }
at::Tensor expand(const at::Tensor &t, const at::Tensor &r) { return at::repeat_interleave(t, r); }
at::Tensor expandSized(const at::Tensor &t, const at::Tensor &r, int64_t n) {
  return at::repeat_interleave(t, r, 0, n);
}
at::Tensor histOf(const at::Tensor &t) { return at::histc(t); }
at::Tensor histOfRange(const at::Tensor &t) { return at::histc(t, 10, 0, 1); }
at::Tensor encode(const at::Tensor &t) { return at::one_hot(t); }
at::Tensor encodeSized(const at::Tensor &t) { return at::one_hot(t, 10); }
at::Tensor positions(const at::Tensor &t) { return at::where(t > 0)[0]; }
at::Tensor choose(const at::Tensor &t) { return at::where(t > 0, t, -t); }
void fillFrom(at::Tensor &t, const at::Tensor &v) { t.masked_fill_(t < 0, v); }
void fillZero(at::Tensor &t) { t.masked_fill_(t < 0, 0.0); }
at::Tensor toHost(const at::Tensor &t) { return t.to(at::kCPU); }
at::Tensor toFloat(const at::Tensor &t) { return t.to(at::kFloat); }
at::Tensor window(const at::Tensor &t, const at::Tensor &s) { return t.narrow(0, s, 2); }
at::Tensor windowAt(const at::Tensor &t) { return t.narrow(0, 1, 2); }
void show(const at::Tensor &t) { std::cout << t; }
void fail(const at::Tensor &t) { throw std::runtime_error(c10::str("bad ", t)); }

void callers(at::Tensor &t, const at::Tensor &v) {
  keepPositive(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'keepPositive' calls 'index' in its body, which blocks the host
  // CHECK-MESSAGES: :28:57: note: 'index' synchronizes here
  keepFirst(t);
  pickLargest(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'pickLargest' calls 'operator[]' in its body
  pickFirst(t);
  clearWithTensor(t, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'clearWithTensor' calls 'index_put_' in its body
  clearWithScalar(t);
  // CHECK-MESSAGES-LIBTORCH1: :[[@LINE-1]]:3: warning: 'clearWithScalar' calls 'index_put_' in its body
  expand(t, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'expand' calls 'at::repeat_interleave' in its body
  expandSized(t, v, 8);
  histOf(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'histOf' calls 'at::histc' in its body
  histOfRange(t);
  encode(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'encode' calls 'at::one_hot' in its body
  encodeSized(t);
  positions(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'positions' calls 'at::where' in its body
  choose(t);
  fillFrom(t, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'fillFrom' calls 'masked_fill_' in its body
  fillZero(t);
  toHost(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'toHost' calls 'to' in its body
  toFloat(t);
  window(t, v);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'window' calls 'narrow' in its body
  windowAt(t);
  show(t);
  // CHECK-MESSAGES: :[[@LINE-1]]:3: warning: 'show' calls 'operator<<' in its body
  fail(t);
}
