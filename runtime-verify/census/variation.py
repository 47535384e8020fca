"""Argument variation: from one case that an overload accepted, the cases that change one argument that can decide
whether it synchronizes, each with the condition it varies.

  index kind      a Tensor?[] index list: int64 or bool mask, on the device or on the CPU ('indices: bool mask on
                  CUDA'); a 'values' tensor becomes a 0-dim one, which broadcasts to any selection
  optional        a Tensor? argument given in the case: absent ('weight absent'); one not given: a tensor of the
                  second dimension of the first input ('weight present')
  0-dim device    a 0-dim tensor argument other than the first: on the other device ('value: 0-dim on the CPU')
  size            every tensor argument shaped like the first: empty ('size: empty') or with a last dimension
                  of 2048 ('size: large'); only when no other tensor argument (but 0-dim ones) and no lengths
                  argument keeps its shape, which kernels trust
  range           histc-style 'min' and 'max' numbers: both 0 (read from the data) or -3 and 3 ('range: given');
                  a 'range' list: absent or [-3, 3]
  count           'num_classes' / 'minlength' / 'output_size' integers: absent or given

variations() yields (condition, args, kwargs); census.py binds and measures each as it does the other cases.
"""

LARGE_LAST_DIM = 2048
MAX_LARGE_ELEMENTS = 1 << 22


def _slots(schema, args, kwargs):
    """{argument name: ('pos', index) or ('kw', name)} for the values given in args and kwargs."""
    positional = [a for a in schema.arguments if not a.kwarg_only and not a.is_out]
    slots = {}
    for i in range(len(args)):
        if i < len(positional):
            slots[positional[i].name] = ("pos", i)
    for k in kwargs:
        slots[k] = ("kw", k)
    return slots


def _get(slots, args, kwargs, name):
    where = slots.get(name)
    if where is None:
        return None
    return args[where[1]] if where[0] == "pos" else kwargs[where[1]]


def _with(schema, args, kwargs, changes):
    """args and kwargs with changes ({name: value}) applied; a name not given goes to kwargs."""
    slots = _slots(schema, args, kwargs)
    new_args, new_kwargs = list(args), dict(kwargs)
    for name, value in changes.items():
        where = slots.get(name)
        if where is None:
            new_kwargs[name] = value
        elif where[0] == "pos":
            new_args[where[1]] = value
        else:
            new_kwargs[where[1]] = value
    return new_args, new_kwargs


def _other_device(device):
    return "cpu" if device != "cpu" else None


def variations(torch, schema, types, args, kwargs, device):
    """(condition, args, kwargs) for each deciding argument of the schema (types: {name: schema type})."""
    slots = _slots(schema, args, kwargs)
    inputs = [a for a in schema.arguments if not a.is_out]
    first = next((a for a in inputs if types.get(a.name) == "Tensor"), None)
    self_value = _get(slots, args, kwargs, first.name) if first is not None else None
    if not isinstance(self_value, torch.Tensor):
        self_value = None
    dev_name = "CUDA" if device != "cpu" else device
    for a in inputs:
        t = types.get(a.name, "")
        value = _get(slots, args, kwargs, a.name)
        if t == "Tensor?[]" and isinstance(value, list) and self_value is not None and self_value.dim() >= 1:
            yield from _index_kinds(torch, schema, args, kwargs, a.name, value, self_value, device, dev_name)
        elif t == "Tensor?" and a.name in slots and isinstance(value, torch.Tensor):
            yield f"{a.name} absent", *_with(schema, args, kwargs, {a.name: None})
        elif t == "Tensor?" and value is None and self_value is not None and self_value.dim() >= 2:
            present = torch.rand(self_value.shape[1], device=device, dtype=self_value.dtype) \
                if self_value.is_floating_point() else torch.ones(self_value.shape[1], device=device)
            yield f"{a.name} present", *_with(schema, args, kwargs, {a.name: present})
        elif t == "Tensor" and isinstance(value, torch.Tensor) and value.dim() == 0 and a is not first:
            other = "cpu" if value.device.type != "cpu" else device
            if other != value.device.type:
                where = "the CPU" if other == "cpu" else dev_name
                yield f"{a.name}: 0-dim on {where}", *_with(schema, args, kwargs, {a.name: value.to(other)})
    yield from _numbers(schema, types, args, kwargs, slots)
    if self_value is not None and self_value.dim() >= 1:
        yield from _sizes(torch, schema, types, args, kwargs, slots, self_value, device)


def _index_kinds(torch, schema, args, kwargs, name, value, self_value, device, dev_name):
    """The index list as int64 and as a bool mask over the first dimension, on the device and on the CPU."""
    rows = self_value.shape[0]
    idx = torch.arange(min(rows, 3), dtype=torch.int64)
    mask = torch.zeros(rows, dtype=torch.bool)
    mask[::2] = True
    changes = {}
    if "values" in {a.name for a in schema.arguments}:
        changes["values"] = torch.ones((), dtype=self_value.dtype, device=device)
    for label, index in (("int64", idx), ("bool mask", mask)):
        for where, dev in ((dev_name, device), ("the CPU", "cpu")):
            yield f"indices: {label} on {where}", *_with(schema, args, kwargs, dict(changes, **{name: [index.to(dev)]}))


def _numbers(schema, types, args, kwargs, slots):
    """The histc-style range and the optional counts, given and not."""
    names = {a.name for a in schema.arguments}
    if {"min", "max"} <= names and types.get("min") in ("Scalar", "float") and types.get("max") == types.get("min"):
        yield "range: absent (min = max = 0)", *_with(schema, args, kwargs, {"min": 0, "max": 0})
        yield "range: given (min -3, max 3)", *_with(schema, args, kwargs, {"min": -3, "max": 3})
    if types.get("range") == "float[]?":
        yield "range: absent", *_with(schema, args, kwargs, {"range": None})
        yield "range: given", *_with(schema, args, kwargs, {"range": [-3.0, 3.0]})
    for count in ("num_classes", "minlength", "output_size"):
        if types.get(count) in ("int", "int?", "SymInt", "SymInt?"):
            given = _get(slots, args, kwargs, count)
            if given in (None, -1, 0):
                yield f"{count} given", *_with(schema, args, kwargs, {count: 16})
            else:
                default = None if types[count].endswith("?") else (-1 if count == "num_classes" else 0)
                yield f"{count} absent", *_with(schema, args, kwargs, {count: default})


def _sizes(torch, schema, types, args, kwargs, slots, self_value, device):
    """Every tensor argument shaped like the first: empty, and large."""
    shape = list(self_value.shape)
    same = [a.name for a in schema.arguments if not a.is_out and types.get(a.name) in ("Tensor", "Tensor?")
            and isinstance(_get(slots, args, kwargs, a.name), torch.Tensor)
            and list(_get(slots, args, kwargs, a.name).shape) == shape]
    # Only when every other tensor argument follows (or is 0-dim): a kernel that trusts the shapes of its other
    # arguments (a backward's saved input, indices, lengths) reads out of bounds on a resized first input (the
    # CPU kernels of the padding and normalization backwards crashed), and none when a lengths argument keeps
    # pointing into it.
    others = [_get(slots, args, kwargs, a.name) for a in schema.arguments if not a.is_out and a.name not in same]
    if any(isinstance(v, torch.Tensor) and v.dim() > 0 for v in others) or any(
            isinstance(v, list) and any(isinstance(x, torch.Tensor) for x in v) for v in others) or any(
            "length" in a.name for a in schema.arguments):
        return
    large_last = max(LARGE_LAST_DIM, shape[-1])
    n_large = large_last
    for s in shape[:-1]:
        n_large *= s
    for label, new_shape in (("size: empty", [0] + shape[1:]),
                             (f"size: large (last dimension {large_last})", shape[:-1] + [large_last])):
        if label.startswith("size: large") and (n_large > MAX_LARGE_ELEMENTS or shape[-1] >= LARGE_LAST_DIM):
            continue
        changes = {}
        for name in same:
            old = _get(slots, args, kwargs, name)
            if old.is_floating_point() or old.is_complex():
                new = torch.randn(new_shape, dtype=old.dtype, device=old.device)
            elif old.dtype == torch.bool:
                new = torch.rand(new_shape, device=old.device) > 0.5
            else:
                new = torch.zeros(new_shape, dtype=old.dtype, device=old.device)
            changes[name] = new
        yield label, *_with(schema, args, kwargs, changes)
