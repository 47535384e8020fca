"""Hand-written census inputs for the overloads that the OpInfo samples and the schema inputs do not fit: losses
with class targets, embedding bags with offsets, grid samplers with grids in [-1, 1], CTC losses with CUDA and
CPU lengths, sparse COO inputs, pooling and padding with the ranks they need, and the backward kernels built
from a forward call's outputs.

CASES maps an overload's name ("aten::nll_loss_forward") to a builder. cases_for() finds the builder of an
overload, or of its functional twin for an out= overload ("aten::nll_loss_forward.output" uses the builder of
"aten::nll_loss_forward"; census.py adds the out tensors). A builder takes an Inputs (the device's tensor
factory) and returns [(condition, args, kwargs)]: the condition names what the case varies ("weight present",
"lengths: CUDA tensors"), so that the verdict can be given per condition. Builders run on the device the census
measures on; a builder that raises, or a case that the operator refuses, is recorded and skipped.
"""

CASES = {}


class Inputs:
    """Tensors on one device, seeded so that the cases are the same on every run."""

    def __init__(self, torch, device):
        self.torch = torch
        self.dev = device
        self.gen = torch.Generator().manual_seed(0)

    def f(self, *shape, dtype=None):
        """Normal floats (CPU generator, moved to the device)."""
        t = self.torch.randn(shape, generator=self.gen, dtype=dtype or self.torch.float32)
        return t.to(self.dev)

    def u(self, *shape, lo=0.0, hi=1.0):
        """Uniform floats in [lo, hi)."""
        return (self.torch.rand(shape, generator=self.gen) * (hi - lo) + lo).to(self.dev)

    def long(self, hi, *shape, lo=0, device=None):
        """int64 in [lo, hi), on the device (or device)."""
        t = self.torch.randint(lo, hi, shape, generator=self.gen, dtype=self.torch.int64)
        return t.to(device or self.dev)

    def mask(self, *shape, device=None):
        """A boolean mask with some elements set."""
        t = self.torch.rand(shape, generator=self.gen) > 0.5
        t.view(-1)[0] = True
        return t.to(device or self.dev)

    def cpu(self, t):
        return t.cpu()


def case(*names):
    """Registers a builder under each name."""
    def register(fn):
        for n in names:
            CASES[n] = fn
        return fn
    return register


OUT_SUFFIXES = ("out", "output", "grad_input", "values", "result")


def cases_for(qualified, has_out):
    """The builder of an overload, or of its functional twin when the overload is an out= one, or None."""
    if qualified in CASES:
        return CASES[qualified]
    if not has_out:
        return None
    base, _, overload = qualified.partition(".")
    if overload in OUT_SUFFIXES or not overload:
        return CASES.get(base)
    if overload.endswith("_out"):
        return CASES.get(f"{base}.{overload[:-4]}") or CASES.get(base)
    return None


# ------------------------------------------------------------------------------------------------------------
# Losses.

@case("aten::nll_loss", "aten::nll_loss_nd")
def nll_loss(x):
    logp = x.f(8, 5).log_softmax(1)
    target = x.long(5, 8)
    ignored = target.clone()
    ignored[0] = -100
    return [("weight absent, reduction mean", [logp, target], {}),
            ("weight present", [logp, target, x.u(5, lo=0.5)], {}),
            ("reduction none", [logp, target, None, 0], {}),
            ("reduction sum, a target equal to ignore_index", [logp, ignored, None, 2, -100], {})]


@case("aten::nll_loss_forward")
def nll_loss_forward(x):
    logp = x.f(8, 5).log_softmax(1)
    target = x.long(5, 8)
    return [("weight absent, reduction mean", [logp, target, None, 1, -100], {}),
            ("weight present", [logp, target, x.u(5, lo=0.5), 1, -100], {}),
            ("reduction none", [logp, target, None, 0, -100], {}),
            ("1-D input", [logp[0], target[0], None, 1, -100], {})]


@case("aten::nll_loss_backward")
def nll_loss_backward(x):
    logp = x.f(8, 5).log_softmax(1)
    target = x.long(5, 8)
    total = x.torch.tensor(8.0, device=x.dev)
    return [("weight absent, reduction mean", [x.f(), logp, target, None, 1, -100, total], {}),
            ("weight present", [x.f(), logp, target, x.u(5, lo=0.5), 1, -100, total], {}),
            ("reduction none", [x.f(8), logp, target, None, 0, -100, total], {})]


@case("aten::nll_loss2d", "aten::nll_loss2d_forward")
def nll_loss2d(x):
    logp = x.f(2, 5, 4, 4).log_softmax(1)
    target = x.long(5, 2, 4, 4)
    return [("weight absent, reduction mean", [logp, target, None, 1, -100], {}),
            ("weight present", [logp, target, x.u(5, lo=0.5), 1, -100], {}),
            ("reduction none", [logp, target, None, 0, -100], {})]


@case("aten::nll_loss2d_backward")
def nll_loss2d_backward(x):
    logp = x.f(2, 5, 4, 4).log_softmax(1)
    target = x.long(5, 2, 4, 4)
    total = x.torch.tensor(32.0, device=x.dev)
    return [("weight absent, reduction mean", [x.f(), logp, target, None, 1, -100, total], {}),
            ("reduction none", [x.f(2, 4, 4), logp, target, None, 0, -100, total], {})]


@case("aten::cross_entropy_loss")
def cross_entropy_loss(x):
    logits = x.f(8, 5)
    target = x.long(5, 8)
    probs = x.u(8, 5).softmax(1)
    return [("target: class indices", [logits, target], {}),
            ("target: class indices, weight present", [logits, target, x.u(5, lo=0.5)], {}),
            ("target: class probabilities", [logits, probs], {}),
            ("target: class indices, label_smoothing 0.1", [logits, target, None, 1, -100, 0.1], {}),
            ("target: class indices, 4-D input", [x.f(2, 5, 4, 4), x.long(5, 2, 4, 4)], {})]


@case("aten::multilabel_margin_loss_forward", "aten::multilabel_margin_loss")
def multilabel_margin_loss(x):
    target = x.long(4, 3, 4)
    target[:, 2:] = -1
    return [("reduction mean", [x.f(3, 4), target, 1], {}), ("reduction none", [x.f(3, 4), target, 0], {})]


@case("aten::multilabel_margin_loss_backward")
def multilabel_margin_loss_backward(x):
    target = x.long(4, 3, 4)
    target[:, 2:] = -1
    self = x.f(3, 4)
    _, is_target = x.torch.ops.aten.multilabel_margin_loss_forward(self, target, 1)
    return [("reduction mean", [x.f(), self, target, 1, is_target], {})]


@case("aten::multi_margin_loss_backward")
def multi_margin_loss_backward(x):
    return [("weight absent", [x.f(), x.f(3, 4), x.long(4, 3), 1, 1.0, None, 1], {}),
            ("weight present", [x.f(), x.f(3, 4), x.long(4, 3), 1, 1.0, x.u(4, lo=0.5), 1], {})]


# CTC: log-probs [T, N, C], targets padded [N, S] or concatenated, lengths as host lists, CUDA or CPU tensors.
def _ctc(x):
    T, N, C, S = 12, 3, 5, 4
    logp = x.f(T, N, C).log_softmax(2)
    targets = x.long(C, N, S, lo=1)
    return logp, targets, [T] * N, [S, 3, 2]


@case("aten::ctc_loss.IntList", "aten::_ctc_loss")
def ctc_loss_lists(x):
    logp, targets, il, tl = _ctc(x)
    return [("lengths: host lists", [logp, targets, il, tl], {}),
            ("lengths: host lists, blank 4", [logp, targets.clamp(0, 3), il, tl, 4], {})]


@case("aten::ctc_loss.Tensor", "aten::_ctc_loss.Tensor")
def ctc_loss_tensors(x):
    torch = x.torch
    logp, targets, il, tl = _ctc(x)
    il_t, tl_t = torch.tensor(il), torch.tensor(tl)
    return [("lengths: CUDA tensors", [logp, targets, il_t.to(x.dev), tl_t.to(x.dev)], {}),
            ("lengths: CPU tensors", [logp, targets, il_t, tl_t], {}),
            ("lengths: CUDA tensors, concatenated targets",
             [logp, torch.cat([targets[i, :n] for i, n in enumerate(tl)]), il_t.to(x.dev), tl_t.to(x.dev)], {})]


@case("aten::_ctc_loss_backward", "aten::_ctc_loss_backward.Tensor")
def ctc_loss_backward(x):
    torch = x.torch
    logp, targets, il, tl = _ctc(x)
    nll, alpha = torch.ops.aten._ctc_loss(logp, targets, il, tl)
    grad = x.f(3)
    il_t, tl_t = torch.tensor(il), torch.tensor(tl)
    return [("lengths: host lists", [grad, logp, targets, il, tl, nll, alpha, 0], {}),
            ("lengths: CUDA tensors", [grad, logp, targets, il_t.to(x.dev), tl_t.to(x.dev), nll, alpha, 0], {}),
            ("lengths: CPU tensors", [grad, logp, targets, il_t, tl_t, nll, alpha, 0], {})]


@case("aten::_cudnn_ctc_loss", "aten::_cudnn_ctc_loss.Tensor")
def cudnn_ctc_loss(x):
    torch = x.torch
    logp, targets, il, tl = _ctc(x)
    flat = torch.cat([targets[i, :n] for i, n in enumerate(tl)]).int().cpu()
    return [("lengths: host lists, int32 targets on the CPU", [logp, flat, il, tl, 0, True, False], {}),
            ("lengths: CUDA int32 tensors", [logp, flat.to(x.dev), torch.tensor(il, dtype=torch.int32, device=x.dev),
                                             torch.tensor(tl, dtype=torch.int32, device=x.dev), 0, True, False], {})]


# ------------------------------------------------------------------------------------------------------------
# Embeddings.

def _bag(x):
    return x.f(10, 3), x.long(10, 8), x.torch.tensor([0, 3, 5], device=x.dev)


@case("aten::embedding_bag", "aten::embedding_bag.padding_idx", "aten::_embedding_bag",
      "aten::_embedding_bag_forward_only")
def embedding_bag(x):
    weight, indices, offsets = _bag(x)
    psw = x.u(8)
    flags = [False, 0, False]  # scale_grad_by_freq, mode, sparse
    return [("mode sum", [weight, indices, offsets, *flags], {}),
            ("mode mean", [weight, indices, offsets, False, 1, False], {}),
            ("mode max", [weight, indices, offsets, False, 2, False], {}),
            ("mode sum, per_sample_weights present", [weight, indices, offsets, *flags, psw], {}),
            ("mode sum, include_last_offset", [weight, indices, x.torch.tensor([0, 3, 8], device=x.dev), *flags,
                                               None, True], {})]


def _bag_forward(x, mode):
    weight, indices, offsets = _bag(x)
    out, offset2bag, bag_size, max_idx = x.torch.ops.aten._embedding_bag(weight, indices, offsets, False, mode)
    return weight, indices, offsets, out, offset2bag, bag_size, max_idx


@case("aten::_embedding_bag_backward")
def embedding_bag_backward(x):
    cases = []
    for mode, name in ((0, "mode sum"), (1, "mode mean"), (2, "mode max")):
        weight, indices, offsets, out, o2b, bag_size, max_idx = _bag_forward(x, mode)
        cases.append((name, [x.f(*out.shape), indices, offsets, o2b, bag_size, max_idx, 10, False, mode, False,
                             None], {}))
    return cases


@case("aten::_embedding_bag_dense_backward")
def embedding_bag_dense_backward(x):
    cases = []
    for mode, name in ((0, "mode sum"), (2, "mode max")):
        weight, indices, offsets, out, o2b, bag_size, max_idx = _bag_forward(x, mode)
        cases.append((name, [x.f(*out.shape), indices, o2b, bag_size, max_idx, 10, False, mode, None], {}))
    return cases


@case("aten::_embedding_bag_per_sample_weights_backward")
def embedding_bag_psw_backward(x):
    weight, indices, offsets, out, o2b, bag_size, max_idx = _bag_forward(x, 0)
    return [("mode sum", [x.f(*out.shape), weight, indices, offsets, o2b, 0], {})]


@case("aten::embedding_dense_backward")
def embedding_dense_backward(x):
    indices = x.long(10, 8)
    return [("scale_grad_by_freq false", [x.f(8, 3), indices, 10, -1, False], {}),
            ("scale_grad_by_freq true", [x.f(8, 3), indices, 10, -1, True], {}),
            ("padding_idx 0", [x.f(8, 3), indices, 10, 0, False], {})]


@case("aten::embedding_renorm_")
def embedding_renorm(x):
    return [("max_norm 1", [x.f(10, 3), x.long(10, 8), 1.0, 2.0], {})]


# ------------------------------------------------------------------------------------------------------------
# Grid samplers: grids in [-1, 1].

@case("aten::grid_sampler", "aten::grid_sampler_2d")
def grid_sampler_2d(x):
    inp, grid = x.f(2, 3, 8, 8), x.u(2, 5, 6, 2, lo=-1, hi=1)
    return [("bilinear, zeros padding", [inp, grid, 0, 0, False], {}),
            ("nearest, border padding, align_corners", [inp, grid, 1, 1, True], {}),
            ("bicubic, reflection padding", [inp, grid, 2, 2, False], {})]


@case("aten::cudnn_grid_sampler")
def cudnn_grid_sampler(x):
    return [("bilinear", [x.f(2, 3, 8, 8), x.u(2, 5, 6, 2, lo=-1, hi=1)], {})]


@case("aten::grid_sampler_3d")
def grid_sampler_3d(x):
    inp, grid = x.f(2, 3, 4, 4, 4), x.u(2, 3, 3, 3, 3, lo=-1, hi=1)
    return [("bilinear, zeros padding", [inp, grid, 0, 0, False], {}),
            ("nearest, border padding", [inp, grid, 1, 1, True], {})]


@case("aten::grid_sampler_2d_backward")
def grid_sampler_2d_backward(x):
    inp, grid = x.f(2, 3, 8, 8), x.u(2, 5, 6, 2, lo=-1, hi=1)
    return [("bilinear, both gradients", [x.f(2, 3, 5, 6), inp, grid, 0, 0, False, [True, True]], {}),
            ("bilinear, grid gradient only", [x.f(2, 3, 5, 6), inp, grid, 0, 0, False, [False, True]], {})]


@case("aten::grid_sampler_3d_backward")
def grid_sampler_3d_backward(x):
    inp, grid = x.f(2, 3, 4, 4, 4), x.u(2, 3, 3, 3, 3, lo=-1, hi=1)
    return [("bilinear, both gradients", [x.f(2, 3, 3, 3, 3), inp, grid, 0, 0, False, [True, True]], {})]


@case("aten::affine_grid_generator")
def affine_grid(x):
    return [("2-D", [x.f(2, 2, 3), [2, 3, 8, 8], False], {})]


@case("aten::cudnn_affine_grid_generator")
def cudnn_affine_grid(x):
    return [("2-D", [x.f(2, 2, 3), 2, 3, 8, 8], {})]


# ------------------------------------------------------------------------------------------------------------
# Sparse COO.

def _coo(x, coalesced):
    torch = x.torch
    i = torch.tensor([[0, 0, 1, 2], [1, 1, 2, 0]])
    v = torch.tensor([1.0, 2.0, 3.0, 4.0])
    s = torch.sparse_coo_tensor(i, v, (3, 3)).to(x.dev)
    return s.coalesce() if coalesced else s


@case("aten::coalesce", "aten::_coalesce")
def coalesce(x):
    return [("uncoalesced sparse COO with duplicates", [_coo(x, False)], {}),
            ("sparse COO already coalesced", [_coo(x, True)], {})]


@case("aten::_coalesced", "aten::_coalesced_")
def coalesced_flag(x):
    return [("sparse COO, flag set", [_coo(x, False), True], {})]


@case("aten::_validate_compressed_sparse_indices")
def validate_compressed(x):
    torch = x.torch
    return [("CSR 2 x 2", [True, torch.tensor([0, 1, 2], device=x.dev), torch.tensor([0, 1], device=x.dev), 2, 2, 2],
             {})]


@case("aten::sparse_mask", "aten::_sparse_mask_projection")
def sparse_mask(x):
    return [("dense self, COO mask", [x.f(3, 3), _coo(x, True)], {})]


# ------------------------------------------------------------------------------------------------------------
# Sampling and in-place random.

@case("aten::multinomial")
def multinomial(x):
    return [("1 sample, without replacement", [x.u(4, 10, lo=0.1), 1], {}),
            ("5 samples, without replacement", [x.u(4, 10, lo=0.1), 5, False], {}),
            ("5 samples, with replacement", [x.u(4, 10, lo=0.1), 5, True], {}),
            ("large: 100000 categories, 64 samples with replacement", [x.u(2, 100000, lo=0.1), 64, True], {})]


@case("aten::bernoulli_.Tensor")
def bernoulli_tensor(x):
    return [("p a tensor", [x.f(4, 4), x.u(4, 4)], {})]


@case("aten::poisson")
def poisson(x):
    return [("rates in [0.5, 5)", [x.u(4, 4, lo=0.5, hi=5)], {})]


@case("aten::random_.from")
def random_from(x):
    return [("from 0 to 10", [x.f(4, 4), 0, 10], {}), ("from 0, to absent", [x.f(4, 4), 0, None], {})]


@case("aten::normal.float_Tensor")
def normal_float_tensor(x):
    return [("std a tensor", [0.0, x.u(4, 4, lo=0.5)], {})]


# ------------------------------------------------------------------------------------------------------------
# Histograms and indexing: the arguments that decide.

@case("aten::histc")
def histc(x):
    data = x.f(4096)
    return [("range absent (min = max = 0: read from the data)", [data, 100], {}),
            ("range given (min -3, max 3)", [data, 100, -3, 3], {}),
            ("range absent, empty input", [x.f(0), 100], {})]


def _index_cases(x, self_shape):
    rows = self_shape[0]
    idx = x.long(rows, 3)
    mask = x.mask(rows)
    return [("indices: int64 on CUDA", idx), ("indices: int64 on the CPU", idx.cpu()),
            ("indices: bool mask on CUDA", mask), ("indices: bool mask on the CPU", mask.cpu())]


@case("aten::index.Tensor")
def index(x):
    self = x.f(8, 8)
    return [(cond, [self, [i]], {}) for cond, i in _index_cases(x, (8, 8))]


@case("aten::index_put_", "aten::index_put", "aten::_index_put_impl_", "aten::_index_put_impl")
def index_put(x):
    torch = x.torch
    cases = []
    for accumulate in (False, True):
        for cond, i in _index_cases(x, (8, 8)):
            values = x.f(3, 8) if i.dtype == torch.int64 else x.f(8)
            cases.append((f"{cond}, accumulate {str(accumulate).lower()}", [x.f(8, 8), [i], values, accumulate], {}))
    return cases


@case("aten::masked_select")
def masked_select(x):
    return [("mask on CUDA", [x.f(8, 8), x.mask(8, 8)], {}), ("empty input", [x.f(0, 8), x.mask(0, 8)], {})]


@case("aten::_masked_softmax")
def masked_softmax(x):
    return [("mask the input's shape, dim 2", [x.f(2, 4, 8), x.mask(2, 4, 8), 2], {}),
            ("mask type 1 (key padding)", [x.f(2, 4, 8, 8), x.mask(2, 8), 3, 1], {})]


@case("aten::_masked_softmax_backward")
def masked_softmax_backward(x):
    return [("dim 2", [x.f(2, 4, 8), x.f(2, 4, 8).softmax(2), x.mask(2, 4, 8), 2], {})]


@case("aten::_masked_scale")
def masked_scale(x):
    return [("uint8 mask", [x.f(4, 4), x.mask(4, 4).to(x.torch.uint8), 2.0], {})]


@case("aten::scatter.value_reduce", "aten::scatter_.value_reduce")
def scatter_value_reduce(x):
    return [("reduce add", [x.f(4, 4), 0, x.long(4, 2, 4), 1.0], {"reduce": "add"}),
            ("reduce multiply", [x.f(4, 4), 0, x.long(4, 2, 4), 2.0], {"reduce": "multiply"})]


@case("aten::roll")
def roll(x):
    return [("one dim", [x.f(4, 4), [1], [0]], {}), ("flattened", [x.f(4, 4), [3]], {})]


@case("aten::clamp", "aten::clamp_")
def clamp(x):
    return [("min and max", [x.f(4, 4), -0.5, 0.5], {}), ("min only", [x.f(4, 4), -0.5], {}),
            ("max only", [x.f(4, 4), None, 0.5], {})]


@case("aten::_amp_update_scale_", "aten::_amp_update_scale")
def amp_update_scale(x):
    torch = x.torch
    scale = torch.ones(1, device=x.dev)
    tracker = torch.zeros(1, dtype=torch.int32, device=x.dev)
    return [("found_inf 0", [scale, tracker, torch.zeros(1, device=x.dev), 2.0, 0.5, 2000], {}),
            ("found_inf 1", [scale, tracker, torch.ones(1, device=x.dev), 2.0, 0.5, 2000], {})]


@case("aten::_assert_async.msg")
def assert_async(x):
    return [("a true condition", [x.torch.tensor(True, device=x.dev), "census"], {})]


# ------------------------------------------------------------------------------------------------------------
# Pooling, unpooling, padding, upsampling: the ranks they need.

@case("aten::_adaptive_avg_pool3d")
def adaptive_avg_pool3d(x):
    return [("output 2", [x.f(1, 2, 4, 4, 4), [2, 2, 2]], {})]


@case("aten::max_pool3d_with_indices")
def max_pool3d(x):
    return [("kernel 2", [x.f(1, 2, 4, 4, 4), [2, 2, 2]], {})]


@case("aten::adaptive_max_pool3d")
def adaptive_max_pool3d(x):
    return [("output 2", [x.f(1, 2, 4, 4, 4), [2, 2, 2]], {})]


@case("aten::fractional_max_pool2d")
def fractional_max_pool2d(x):
    return [("kernel 2, output 4", [x.f(1, 2, 8, 8), [2, 2], [4, 4], x.u(1, 2, 2)], {})]


@case("aten::fractional_max_pool3d")
def fractional_max_pool3d(x):
    return [("kernel 2, output 4", [x.f(1, 2, 8, 8, 8), [2, 2, 2], [4, 4, 4], x.u(1, 2, 3)], {})]


@case("aten::max_unpool2d")
def max_unpool2d(x):
    out, idx = x.torch.ops.aten.max_pool2d_with_indices(x.f(1, 2, 4, 4), [2, 2], [2, 2])
    return [("indices of max_pool2d", [out, idx, [4, 4]], {})]


@case("aten::max_unpool3d")
def max_unpool3d(x):
    out, idx = x.torch.ops.aten.max_pool3d_with_indices(x.f(1, 2, 4, 4, 4), [2, 2, 2], [2, 2, 2])
    return [("indices of max_pool3d", [out, idx, [4, 4, 4], [2, 2, 2], [0, 0, 0]], {})]


@case("aten::max_pool2d_with_indices_backward")
def max_pool2d_backward(x):
    inp = x.f(1, 2, 4, 4)
    out, idx = x.torch.ops.aten.max_pool2d_with_indices(inp, [2, 2], [2, 2])
    return [("kernel 2", [x.f(*out.shape), inp, [2, 2], [2, 2], [0, 0], [1, 1], False, idx], {})]


@case("aten::max_pool3d_with_indices_backward")
def max_pool3d_backward(x):
    inp = x.f(1, 2, 4, 4, 4)
    out, idx = x.torch.ops.aten.max_pool3d_with_indices(inp, [2, 2, 2], [2, 2, 2])
    return [("kernel 2", [x.f(*out.shape), inp, [2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1], False, idx], {})]


@case("aten::adaptive_max_pool2d_backward")
def adaptive_max_pool2d_backward(x):
    inp = x.f(1, 2, 4, 4)
    out, idx = x.torch.ops.aten.adaptive_max_pool2d(inp, [2, 2])
    return [("output 2", [x.f(*out.shape), inp, idx], {})]


@case("aten::adaptive_max_pool3d_backward")
def adaptive_max_pool3d_backward(x):
    inp = x.f(1, 2, 4, 4, 4)
    out, idx = x.torch.ops.aten.adaptive_max_pool3d(inp, [2, 2, 2])
    return [("output 2", [x.f(*out.shape), inp, idx], {})]


@case("aten::avg_pool2d_backward")
def avg_pool2d_backward(x):
    return [("kernel 2", [x.f(1, 2, 2, 2), x.f(1, 2, 4, 4), [2, 2], [2, 2], [0, 0], False, True, None], {})]


@case("aten::avg_pool3d_backward")
def avg_pool3d_backward(x):
    return [("kernel 2", [x.f(1, 2, 2, 2, 2), x.f(1, 2, 4, 4, 4), [2, 2, 2], [2, 2, 2], [0, 0, 0], False, True,
                          None], {})]


@case("aten::fractional_max_pool2d_backward")
def fractional_max_pool2d_backward(x):
    inp = x.f(1, 2, 8, 8)
    out, idx = x.torch.ops.aten.fractional_max_pool2d(inp, [2, 2], [4, 4], x.u(1, 2, 2))
    return [("kernel 2, output 4", [x.f(*out.shape), inp, [2, 2], [4, 4], idx], {})]


@case("aten::fractional_max_pool3d_backward")
def fractional_max_pool3d_backward(x):
    inp = x.f(1, 2, 8, 8, 8)
    out, idx = x.torch.ops.aten.fractional_max_pool3d(inp, [2, 2, 2], [4, 4, 4], x.u(1, 2, 3))
    return [("kernel 2, output 4", [x.f(*out.shape), inp, [2, 2, 2], [4, 4, 4], idx], {})]


def _pad(rank):
    shape = {1: (1, 2, 8), 2: (1, 2, 8, 8), 3: (1, 2, 4, 4, 4)}[rank]
    return shape, [1] * (2 * rank)


for _rank in (1, 2, 3):
    for _kind in ("reflection", "replication"):
        def _forward(x, rank=_rank):
            shape, pad = _pad(rank)
            return [(f"{rank}-D padding 1", [x.f(*shape), pad], {})]

        def _backward(x, rank=_rank):
            shape, pad = _pad(rank)
            out = [shape[0], shape[1]] + [s + 2 for s in shape[2:]]
            return [(f"{rank}-D padding 1", [x.f(*out), x.f(*shape), pad], {})]
        CASES[f"aten::{_kind}_pad{_rank}d"] = _forward
        CASES[f"aten::{_kind}_pad{_rank}d_backward"] = _backward


def _upsample(x, name, rank, extra):
    shape = {1: (1, 2, 8), 2: (1, 2, 8, 8), 3: (1, 2, 4, 4, 4)}[rank]
    out = [2 * s for s in shape[2:]]
    return [(f"{rank}-D, scale 2", [x.f(*shape), out, *extra], {})]


def _upsample_backward(x, rank, extra):
    shape = {1: (1, 2, 8), 2: (1, 2, 8, 8), 3: (1, 2, 4, 4, 4)}[rank]
    out = [2 * s for s in shape[2:]]
    return [(f"{rank}-D, scale 2", [x.f(*shape[:2], *out), out, list(shape), *extra], {})]


for _name, _rank, _extra in (("upsample_nearest1d", 1, []), ("_upsample_nearest_exact1d", 1, []),
                             ("upsample_linear1d", 1, [False]), ("upsample_nearest2d", 2, []),
                             ("_upsample_nearest_exact2d", 2, []), ("upsample_bilinear2d", 2, [False]),
                             ("upsample_bicubic2d", 2, [False]), ("_upsample_bilinear2d_aa", 2, [False]),
                             ("_upsample_bicubic2d_aa", 2, [False]), ("upsample_nearest3d", 3, []),
                             ("_upsample_nearest_exact3d", 3, []), ("upsample_trilinear3d", 3, [False])):
    CASES[f"aten::{_name}"] = (lambda x, n=_name, r=_rank, e=_extra: _upsample(x, n, r, e))
    CASES[f"aten::{_name}_backward"] = (lambda x, r=_rank, e=_extra: _upsample_backward(x, r, e))


@case("aten::col2im")
def col2im(x):
    return [("kernel 2 over 4 x 4", [x.f(1, 4, 9), [4, 4], [2, 2], [1, 1], [0, 0], [1, 1]], {})]


# ------------------------------------------------------------------------------------------------------------
# Convolutions and normalization.

@case("aten::_slow_conv2d_forward")
def slow_conv2d(x):
    return [("kernel 3", [x.f(1, 2, 6, 6), x.f(3, 2, 3, 3), [3, 3], None, [1, 1], [0, 0]], {}),
            ("kernel 3, bias present", [x.f(1, 2, 6, 6), x.f(3, 2, 3, 3), [3, 3], x.f(3), [1, 1], [0, 0]], {})]


@case("aten::_conv_depthwise2d")
def conv_depthwise2d(x):
    return [("kernel 3", [x.f(1, 2, 6, 6), x.f(2, 1, 3, 3), [3, 3], None, [1, 1], [0, 0], [1, 1]], {})]


@case("aten::conv_depthwise3d")
def conv_depthwise3d(x):
    return [("kernel 3", [x.f(1, 2, 4, 4, 4), x.f(2, 1, 3, 3, 3), [3, 3, 3], None, [1, 1, 1], [0, 0, 0],
                          [1, 1, 1]], {})]


@case("aten::slow_conv_transpose2d")
def slow_conv_transpose2d(x):
    return [("kernel 3", [x.f(1, 2, 4, 4), x.f(2, 3, 3, 3), [3, 3]], {})]


@case("aten::slow_conv_transpose3d")
def slow_conv_transpose3d(x):
    return [("kernel 3", [x.f(1, 2, 3, 3, 3), x.f(2, 3, 3, 3, 3), [3, 3, 3]], {})]


@case("aten::slow_conv_dilated3d")
def slow_conv_dilated3d(x):
    return [("kernel 3, dilation 1", [x.f(1, 2, 5, 5, 5), x.f(3, 2, 3, 3, 3), [3, 3, 3]], {})]


@case("aten::convolution_backward")
def convolution_backward(x):
    return [("2-D, all gradients", [x.f(1, 3, 4, 4), x.f(1, 2, 6, 6), x.f(3, 2, 3, 3), [3], [1, 1], [0, 0], [1, 1],
                                    False, [0, 0], 1, [True, True, True]], {})]


@case("aten::native_group_norm")
def native_group_norm(x):
    return [("2 groups, affine", [x.f(2, 4, 3, 3), x.f(4), x.f(4), 2, 4, 9, 2, 1e-5], {}),
            ("2 groups, weight and bias absent", [x.f(2, 4, 3, 3), None, None, 2, 4, 9, 2, 1e-5], {})]


@case("aten::native_group_norm_backward")
def native_group_norm_backward(x):
    inp, w = x.f(2, 4, 3, 3), x.f(4)
    _, mean, rstd = x.torch.ops.aten.native_group_norm(inp, w, x.f(4), 2, 4, 9, 2, 1e-5)
    return [("all gradients", [x.f(2, 4, 3, 3), inp, mean, rstd, w, 2, 4, 9, 2, [True, True, True]], {})]


@case("aten::native_layer_norm_backward")
def native_layer_norm_backward(x):
    inp, w, b = x.f(4, 8), x.f(8), x.f(8)
    _, mean, rstd = x.torch.ops.aten.native_layer_norm(inp, [8], w, b, 1e-5)
    return [("all gradients", [x.f(4, 8), inp, [8], mean, rstd, w, b, [True, True, True]], {}),
            ("weight and bias absent", [x.f(4, 8), inp, [8], mean, rstd, None, None, [True, False, False]], {})]


@case("aten::_fused_rms_norm_backward")
def fused_rms_norm_backward(x):
    inp, w = x.f(4, 8), x.f(8)
    _, rstd = x.torch.ops.aten._fused_rms_norm(inp, [8], w, 1e-5)
    return [("all gradients", [x.f(4, 8), inp, [8], rstd, w, [True, True]], {})]


@case("aten::_native_batch_norm_legit.no_stats")
def batch_norm_no_stats(x):
    return [("training", [x.f(2, 3, 4, 4), x.f(3), x.f(3), True, 0.1, 1e-5], {})]


@case("aten::native_batch_norm_backward", "aten::batch_norm_backward")
def native_batch_norm_backward(x):
    torch = x.torch
    inp, w = x.f(2, 3, 4, 4), x.f(3)
    rm, rv = torch.zeros(3, device=x.dev), torch.ones(3, device=x.dev)
    _, save_mean, save_invstd = torch.ops.aten.native_batch_norm(inp, w, x.f(3), rm, rv, True, 0.1, 1e-5)
    return [("training", [x.f(2, 3, 4, 4), inp, w, rm, rv, save_mean, save_invstd, True, 1e-5,
                          [True, True, True]], {})]


CASES["aten::batch_norm_backward"] = lambda x: [
    (c, a[:9] + [a[9], x.torch.empty(0, dtype=x.torch.uint8, device=x.dev)], k)
    for c, a, k in native_batch_norm_backward(x)]


@case("aten::batch_norm_gather_stats")
def batch_norm_gather_stats(x):
    torch = x.torch
    return [("2 replicas", [x.f(2, 3, 4), x.f(2, 3), x.u(2, 3, lo=0.5), torch.zeros(3, device=x.dev),
                            torch.ones(3, device=x.dev), 0.1, 1e-5, 8], {})]


@case("aten::batch_norm_gather_stats_with_counts")
def batch_norm_gather_stats_with_counts(x):
    torch = x.torch
    return [("2 replicas", [x.f(2, 3, 4), x.f(2, 3), x.u(2, 3, lo=0.5), torch.zeros(3, device=x.dev),
                            torch.ones(3, device=x.dev), 0.1, 1e-5, torch.full((2,), 8.0, device=x.dev)], {})]


@case("aten::glu_backward")
def glu_backward(x):
    return [("dim 1", [x.f(4, 2), x.f(4, 4), 1], {})]


# ------------------------------------------------------------------------------------------------------------
# Matrix products with a dtype, FFT, quantization.

@case("aten::bmm.dtype")
def bmm_dtype(x):
    bf16 = x.torch.bfloat16
    return [("bfloat16 to float32", [x.f(2, 4, 4, dtype=bf16), x.f(2, 4, 4, dtype=bf16), x.torch.float32], {})]


@case("aten::baddbmm.dtype")
def baddbmm_dtype(x):
    bf16 = x.torch.bfloat16
    return [("bfloat16 to float32", [x.f(2, 4, 4), x.f(2, 4, 4, dtype=bf16), x.f(2, 4, 4, dtype=bf16),
                                     x.torch.float32], {})]


@case("aten::_int_mm")
def int_mm(x):
    i8 = x.torch.int8
    return [("int8 32 x 32", [x.long(5, 32, 32, lo=-4).to(i8), x.long(5, 32, 32, lo=-4).to(i8)], {})]


@case("aten::_fft_c2c")
def fft_c2c(x):
    return [("forward, 1-D", [x.f(8, dtype=x.torch.complex64), [0], 0, True], {})]


@case("aten::_fft_c2r")
def fft_c2r(x):
    return [("last_dim_size 8", [x.f(5, dtype=x.torch.complex64), [0], 0, 8], {})]


@case("aten::quantize_per_tensor")
def quantize_per_tensor(x):
    return [("quint8", [x.f(4, 4), 0.1, 0, x.torch.quint8], {})]


@case("aten::quantize_per_tensor.tensor_qparams")
def quantize_per_tensor_tensor(x):
    torch = x.torch
    return [("CUDA scale and zero point", [x.f(4, 4), torch.tensor(0.1, device=x.dev),
                                           torch.tensor(0, device=x.dev), torch.quint8], {}),
            ("CPU scale and zero point", [x.f(4, 4), torch.tensor(0.1), torch.tensor(0), torch.quint8], {})]


@case("aten::quantize_per_channel")
def quantize_per_channel(x):
    torch = x.torch
    return [("axis 0", [x.f(4, 4), x.u(4, lo=0.05, hi=0.2), torch.zeros(4, dtype=torch.int64, device=x.dev), 0,
                        torch.quint8], {})]


@case("aten::_make_per_tensor_quantized_tensor")
def make_per_tensor_quantized(x):
    return [("uint8", [x.long(255, 4, 4).to(x.torch.uint8), 0.1, 0], {})]


@case("aten::_make_per_channel_quantized_tensor")
def make_per_channel_quantized(x):
    torch = x.torch
    return [("uint8, axis 0", [x.long(255, 4, 4).to(torch.uint8), x.u(4, lo=0.05, hi=0.2),
                               torch.zeros(4, dtype=torch.int64, device=x.dev), 0], {})]


@case("aten::split_with_sizes_copy")
def split_with_sizes_copy(x):
    return [("sizes 1 and 3", [x.f(4, 4), [1, 3]], {})]


@case("aten::record_stream")
def record_stream(x):
    if x.dev == "cpu":
        return []
    return [("the current stream", [x.f(4, 4), x.torch.cuda.current_stream()], {})]


@case("aten::set_.source_Storage")
def set_storage(x):
    return [("another tensor's storage", [x.f(4), x.f(8).untyped_storage()], {})]


# ------------------------------------------------------------------------------------------------------------
# Attention kernels: half precision, [batch, heads, length, head dim].

@case("aten::_scaled_dot_product_flash_attention")
def sdpa_flash(x):
    q, k, v = (x.f(1, 2, 16, 64, dtype=x.torch.float16) for _ in range(3))
    return [("not causal", [q, k, v], {}), ("causal", [q, k, v, 0.0, True], {})]


@case("aten::_scaled_dot_product_cudnn_attention")
def sdpa_cudnn(x):
    q, k, v = (x.f(1, 2, 16, 64, dtype=x.torch.float16) for _ in range(3))
    return [("no bias, not causal", [q, k, v, None, False], {})]


@case("aten::_flash_attention_forward")
def flash_attention_forward(x):
    q, k, v = (x.f(1, 16, 2, 64, dtype=x.torch.float16) for _ in range(3))
    return [("dense batch, no cumulative lengths", [q, k, v, None, None, 16, 16, 0.0, False, False], {})]
