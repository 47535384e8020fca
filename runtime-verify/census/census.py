#!/usr/bin/env python3
"""The operator census: runs every ATen operator overload that has a CUDA kernel (and the composite ones,
which run on CUDA through their decompositions) on CUDA inputs and records whether the host blocked.

Inputs come from PyTorch's own OpInfo sample inputs where an OpInfo names the operator, and are generated
from the schema otherwise. Each case is called once to warm up (first-call set-up such as handle creation or
the first pinned allocation is not counted), then measured once with three signals:
  host_wait  a GPU sleep kernel is queued first; the host waited if the call returned only after it ended
  cupti      the CUDA runtime and driver calls the call made (cupti_counter.cpp), with copy bytes
  sdm        warnings of PyTorch's sync debug mode ("called a synchronizing CUDA operation")
A case synchronizes when the host waited, or the call made a synchronizing CUDA call, or the debug mode
warned. Results are written as JSON lines, one per overload, and summarize.py turns them into the table.

Besides the OpInfo and schema inputs, hand-written inputs (handwritten_inputs.py) are tried first, and the
first measured case is varied in the arguments that can decide (variation.py); each case records the
condition it varies ("condition"), so that summarize.py gives a verdict per condition.

Usage (on the GPU machine, with torch 2.11):
  census.py --lib build/libcupti_counter.so --out results.jsonl [--workers 4] [--only REGEX] [--limit N]
A worker that crashes or hangs (a device-side assert, a kernel that never ends) is restarted after the
overload it was running, which is recorded as "crashed" or "hung".

Without a GPU, the inputs can be built and called without measuring (no CUPTI, one process):
  census.py --list-cases --device cpu --out cases.jsonl [--only REGEX]
"""
import argparse
import ctypes
import json
import os
import re
import subprocess
import sys
import time
import traceback
import warnings

import handwritten_inputs
import variation

SLEEP_MS = 10.0       # the GPU sleep queued before each measured call
LONG_SLEEP_MS = 100.0  # re-measure with this when a slow host call looks like a wait
MAX_CASES = 4          # measured cases per overload
MAX_ATTEMPTS = 16      # candidate cases tried per overload
MAX_HANDWRITTEN = 12   # hand-written cases measured per overload
MAX_VARIED = 4         # varied cases measured per overload (of up to 2 * MAX_VARIED tried)
HANG_SECONDS = 30      # a worker that records nothing for this long is killed

# CUDA calls that make the host wait: the facts' one list (checker/facts/sync-facts.yaml, cuda_waits, generated
# into python/torch_sync/cuda_waits.py), measured by frontend_census on the H200 (results/frontend.jsonl): cudaFree,
# cudaFreeHost and cudaHostUnregister waited; cudaMalloc, cudaHostAlloc, cudaHostRegister and cudaMemset on device
# memory did not. *Async forms are excluded below.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "python"))
from torch_sync import cuda_waits  # noqa: E402


def sync_calls(calls, copies):
    """The synchronizing CUDA calls among calls ({name: count}): waits, synchronous copies except device to
    device, frees and host registration."""
    out = {}
    dtod_only = {c["api"] for c in copies if c["kind"] == "DtoD"} - {c["api"] for c in copies if c["kind"] != "DtoD"}
    for name, n in calls.items():
        kind = cuda_waits.wait_kind(name)
        if kind in (None, "never") or cuda_waits.is_async(name):
            continue
        if kind == "copy" and (name in dtod_only or "DtoD" in name):
            continue
        out[name] = n
    return out


def mechanism(calls, copies, sdm, waited):
    """A short text: the synchronizing calls, the bytes copied back, and hidden waits."""
    parts = [f"{name} x{n}" for name, n in sorted(sync_calls(calls, copies).items())]
    dtoh = [c for c in copies if c["kind"] == "DtoH"]
    if dtoh:
        total = sum(c["bytes"] for c in dtoh)
        hosts = sorted({c["host"] or "unknown" for c in dtoh})
        parts.append(f"DtoH {total} B in {len(dtoh)} copies ({'/'.join(hosts)})")
    htod = [c for c in copies if c["kind"] == "HtoD"]
    if htod:
        hosts = sorted({c["host"] or "unknown" for c in htod})
        parts.append(f"HtoD {sum(c['bytes'] for c in htod)} B in {len(htod)} copies ({'/'.join(hosts)})")
    if waited and not sync_calls(calls, copies):
        parts.append("host waited with no synchronizing call (pageable copy or implicit wait)")
    if sdm:
        parts.append(f"sync debug mode warned x{sdm}")
    return "; ".join(parts)


# ----------------------------------------------------------------------------------------------------------
# Enumeration (parent and worker alike).

def enumerate_overloads(torch):
    """Every aten overload with a CUDA kernel or a composite kernel, as (qualified name, kernel kind)."""
    has = torch._C._dispatch_has_kernel_for_dispatch_key
    result = []
    for name in sorted(torch._C._dispatch_get_all_op_names()):
        if not name.startswith("aten::"):
            continue
        if has(name, "CUDA"):
            kind = "cuda"
        elif has(name, "CompositeImplicitAutograd"):
            kind = "composite-implicit"
        elif has(name, "CompositeExplicitAutograd") or has(name, "CompositeExplicitAutogradNonFunctional"):
            kind = "composite-explicit"
        else:
            continue
        result.append((name, kind))
    return result


def schema_types(schema_text):
    """{argument name: type} from a schema's text ("aten::f(Tensor self, int[2] k=[1, 1], *, Tensor(a!) out)"),
    each type as the text writes it without alias annotations or array sizes ("Tensor", "int[]", "Tensor?").
    str() of the Python type objects writes other names ("Optional[Tensor]", "List[int]", "number")."""
    start = schema_text.index("(")
    depth, end = 0, len(schema_text)
    for i in range(start, len(schema_text)):
        depth += schema_text[i] == "("
        depth -= schema_text[i] == ")"
        if depth == 0:
            end = i
            break
    parts, depth, cur = [], 0, ""
    for ch in schema_text[start + 1:end]:
        depth += ch in "(["
        depth -= ch in ")]"
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    types = {}
    for part in parts:
        if not part or part == "*":
            continue
        type_, _, name = part.split("=")[0].strip().rpartition(" ")
        types[name] = re.sub(r"\[[0-9]+\]", "[]", re.sub(r"\([^)]*\)", "", type_))
    return types


def schema_type(schema, arg):
    return schema_types(str(schema)).get(arg.name, "")


def resolve(torch, qualified):
    base, _, overload = qualified[len("aten::"):].partition(".")
    packet = getattr(torch.ops.aten, base)
    return base, overload or "default", getattr(packet, overload or "default")


# ----------------------------------------------------------------------------------------------------------
# The worker.

class Counter:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.tsc_error.restype = ctypes.c_char_p
        self.ok = self.lib.tsc_start() == 0
        self.error = "" if self.ok else self.lib.tsc_error().decode()
        self.buffer = ctypes.create_string_buffer(1 << 16)

    def reset(self):
        self.lib.tsc_reset()

    def read(self):
        self.lib.tsc_pause()
        need = self.lib.tsc_read(self.buffer, len(self.buffer))
        if need:
            self.buffer = ctypes.create_string_buffer(need)
            self.lib.tsc_read(self.buffer, len(self.buffer))
        return json.loads(self.buffer.value.decode())


def describe(value, torch):
    if isinstance(value, torch.Tensor):
        dtype = str(value.dtype).replace("torch.", "")
        dev = "" if value.is_cuda else f" {value.device.type}"
        return f"T{list(value.shape)}{dtype}{dev}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(describe(v, torch) for v in value[:4])
        return f"[{inner}{', ...' if len(value) > 4 else ''}]"
    if isinstance(value, float):
        return f"{value:g}"
    return repr(value)[:40]


# Python-level names that OpInfo samples give for an int parameter of the aten schema.
ENUM_INTS = {"reduction": {"none": 0, "mean": 1, "sum": 2},
             "mode": {"sum": 0, "mean": 1, "max": 2},
             "interpolation_mode": {"bilinear": 0, "nearest": 1, "bicubic": 2},
             "padding_mode": {"zeros": 0, "border": 1, "reflection": 2}}
# Parameters that take int64 indices in [0, 2), valid for every schema input's dimensions.
INDEX_NAMES = {"index", "indices", "offsets", "input_lengths", "target_lengths", "lengths", "offset2bag",
               "bag_size", "maximum_indices", "max_indices"}
# Operators whose 'target' holds class indices (the input's shape without its class dimension). Other losses
# (mse_loss, huber_loss, binary_cross_entropy, ...) take a target of the input's shape and dtype.
CLASS_TARGET_OPERATORS = ("nll_loss", "cross_entropy", "multi_margin_loss")


def is_class_target_operator(schema):
    """Whether the operator of `schema` (its base name, without a leading '_': 'nll_loss2d_backward') begins
    with one of CLASS_TARGET_OPERATORS; 'binary_cross_entropy' does not."""
    base = str(schema).split("(")[0].split("::")[-1].split(".")[0].lstrip("_")
    return base.startswith(CLASS_TARGET_OPERATORS)


class Worker:
    def __init__(self, torch, counter, device="cuda"):
        self.torch = torch
        self.counter = counter
        self.device = device
        self.dry = counter is None  # build and call the cases, measure nothing
        self.vary = True
        self.cycles_per_ms = None if self.dry else self.calibrate()
        self.opinfos = self.load_opinfos()

    def sync(self):
        """Waits for the device (nothing to wait for on the CPU)."""
        if self.device != "cpu":
            self.torch.cuda.synchronize()

    def calibrate(self):
        torch = self.torch
        torch.cuda.synchronize()
        best = None
        for _ in range(3):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            torch.cuda._sleep(10_000_000)
            end.record()
            end.synchronize()
            ms = start.elapsed_time(end)
            best = ms if best is None else min(best, ms)
        return 10_000_000 / best

    def load_opinfos(self):
        """OpInfos by the aten base names they may call."""
        index = {}
        try:
            from torch.testing._internal.common_methods_invocations import op_db
        except Exception as e:  # noqa: BLE001 - report and go on with schema inputs only
            print(f"census: OpInfo database not available ({e}); schema inputs only", file=sys.stderr)
            return index
        for op in op_db:
            names = {op.name.replace(".", "_"), getattr(op, "aten_name", None) or "",
                     op.name.split(".")[-1]}
            for n in names:
                if n:
                    index.setdefault(n, []).append(op)
        return index

    # --- one measured call --------------------------------------------------------------------------------
    def measure(self, fn, sleep_ms):
        torch = self.torch
        torch.cuda.synchronize()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            torch.cuda.set_sync_debug_mode("warn")
            try:
                torch.cuda._sleep(int(sleep_ms * self.cycles_per_ms))
                event = torch.cuda.Event()
                event.record()
                # Other processes share the GPU, so the sleep's length is not known: the host waited when the
                # sleep was still running as the call began and had ended when it returned.
                pending = not event.query()
                self.counter.reset()
                t0 = time.perf_counter()
                fn()
                t1 = time.perf_counter()
                seen = self.counter.read()
                done = pending and event.query()
            finally:
                torch.cuda.set_sync_debug_mode(0)
        torch.cuda.synchronize()
        sdm = sum(1 for w in caught if "synchronizing CUDA operation" in str(w.message))
        host_ms = (t1 - t0) * 1000
        return {"waited": bool(done), "host_ms": round(host_ms, 3),
                "sdm": sdm, "calls": seen["calls"], "copies": seen["copies"]}

    def run_case(self, fn):
        """Warm up, then measure. Raises what the call raises."""
        fn()
        if self.dry:
            return {"waited": False, "host_ms": 0, "sdm": 0, "calls": {}, "copies": [], "sync": False,
                    "mechanism": "", "dry": True}
        self.torch.cuda.synchronize()
        m = self.measure(fn, SLEEP_MS)
        syncs = sync_calls(m["calls"], m["copies"])
        if m["waited"] and not syncs and not m["sdm"]:
            # A slow host call looks like a wait; a longer sleep tells them apart.
            m2 = self.measure(fn, LONG_SLEEP_MS)
            m["waited"] = m2["waited"]
            m["remeasured_host_ms"] = m2["host_ms"]
        m["sync"] = bool(m["waited"] or syncs or m["sdm"])
        m["mechanism"] = mechanism(m["calls"], m["copies"], m["sdm"], m["waited"])
        return m

    # --- candidate inputs ---------------------------------------------------------------------------------
    def opinfo_cases(self, base, overload, schema):
        """(description, thunk) for each OpInfo sample of the operator, first supported dtype."""
        torch = self.torch
        stem = base[:-1] if base.endswith("_") and not base.startswith("_") else base
        ops = self.opinfos.get(stem, []) or self.opinfos.get(base, [])
        inplace = base.endswith("_")
        out_names = [a.name for a in schema.arguments if a.is_out]
        for op in ops[:2]:
            try:
                dtypes = op.supported_dtypes(self.device)
            except Exception:  # noqa: BLE001
                continue
            dtype = next((d for d in (torch.float32, torch.int64, torch.bool, torch.float64) if d in dtypes),
                         next(iter(dtypes), None))
            if dtype is None:
                continue
            try:
                samples = list(op.sample_inputs(self.device, dtype, requires_grad=False))[:6]
            except Exception:  # noqa: BLE001
                continue
            for s in samples:
                args = [s.input, *s.args]
                kwargs = self.enum_ints(schema, dict(s.kwargs))
                desc = ", ".join([describe(a, torch) for a in args] +
                                 [f"{k}={describe(v, torch)}" for k, v in kwargs.items()])
                yield f"opinfo {op.name}: {desc}", args, kwargs, out_names, inplace

    def schema_cases(self, schema):
        torch = self.torch
        dev = self.device
        variants = [("f32[4,4]", lambda: torch.randn(4, 4, device=dev)),
                    ("f32[4]", lambda: torch.randn(4, device=dev)),
                    ("f32[2,3,4,4]", lambda: torch.randn(2, 3, 4, 4, device=dev)),
                    ("i64[4]", lambda: torch.zeros(4, dtype=torch.int64, device=dev)),
                    ("bool[4,4]", lambda: torch.rand(4, 4, device=dev) > 0.5),
                    ("f32[]", lambda: torch.randn((), device=dev)),
                    ("f32[2,3,8]", lambda: torch.randn(2, 3, 8, device=dev)),
                    ("f32[1,2,4,4,4]", lambda: torch.randn(1, 2, 4, 4, 4, device=dev))]
        for label, make in variants:
            args, kwargs, ok = [], {}, True
            for a in schema.arguments:
                if a.is_out:
                    continue
                t = schema_type(schema, a)
                if a.has_default_value() and not t.startswith("Tensor"):
                    continue
                if t in ("Tensor?",) and a.has_default_value():
                    continue
                value = self.value_for(a.name, t, make, schema)
                if value is _NO_VALUE:
                    ok = False
                    break
                if a.kwarg_only:
                    kwargs[a.name] = value
                else:
                    args.append(value)
            if not ok:
                return
            out_names = [a.name for a in schema.arguments if a.is_out]
            desc = ", ".join([describe(a, torch) for a in args] +
                             [f"{k}={describe(v, torch)}" for k, v in kwargs.items()])
            yield f"schema {label}: {desc}", args, kwargs, out_names, False

    def value_for(self, name, t, make, schema=None):
        torch = self.torch
        dev = self.device
        if t == "Tensor?[]":
            # An index list: a long index that fits any first dimension, or a mask the shape of the input.
            sample = make()
            if sample.dtype == torch.bool:
                return [sample]
            return [torch.zeros(1, dtype=torch.int64, device=dev)]
        if t.startswith("Tensor") and t.endswith("[]"):
            return [make(), make()]
        if t.startswith("Tensor") and name in INDEX_NAMES:
            # int64 indices in [0, 2): valid positions along any dimension of the inputs (all at least 2 long).
            sample = make()
            return torch.randint(0, 2, sample.shape, dtype=torch.int64, device=dev)
        if t.startswith("Tensor") and name == "target" and is_class_target_operator(schema):
            # A class target: the input's shape without its class dimension (1), classes in [0, C).
            sample = make()
            if sample.dim() == 0:
                return torch.zeros((), dtype=torch.int64, device=dev)
            classes = sample.shape[1] if sample.dim() > 1 else sample.shape[0]
            shape = sample.shape[:1] + sample.shape[2:] if sample.dim() > 1 else ()
            return torch.randint(0, classes, shape, dtype=torch.int64, device=dev)
        if t.startswith("Tensor") and name == "mask":
            return make() != 0 if make().dtype != torch.bool else make()
        if t.startswith("Tensor"):
            return make()
        if t == "bool[]" and schema is not None:
            m = re.search(rf"bool\[(\d+)\]\??\s+{re.escape(name)}\b", str(schema))
            return [True] * int(m.group(1)) if m else [True]
        if t in ("Scalar[]", "float[]"):
            return [0.5, 0.5]
        if t == "str" and name == "reduce":
            return "sum" if "scatter_reduce" in str(schema) or "index_reduce" in str(schema) else "add"
        if t == "Stream" and dev != "cpu":
            return torch.cuda.current_stream()
        if t in ("int", "SymInt", "int?", "SymInt?"):
            return 0 if "dim" in name else 2
        if t in ("int[]", "SymInt[]", "int[1]", "int[2]", "int[3]", "SymInt[1]", "SymInt[2]", "int[]?", "SymInt[]?",
                 "int[1]?"):
            return [0] if "dim" in name else [4, 4]
        if t in ("float", "float?"):
            return 0.5
        if t in ("Scalar", "Scalar?"):
            return 1
        if t in ("bool", "bool?"):
            return False
        if t in ("ScalarType", "ScalarType?"):
            return torch.float32
        if t in ("Device", "Device?"):
            return torch.device(dev)
        if t in ("Layout", "Layout?"):
            return torch.strided
        if t in ("MemoryFormat?", "Generator?", "str?", "Dimname?"):
            return None
        return _NO_VALUE

    # --- one overload -------------------------------------------------------------------------------------
    def census(self, qualified, kernel):
        torch = self.torch
        record = {"overload": qualified, "kernel": kernel, "cases": [], "errors": []}
        try:
            base, overload, op = resolve(torch, qualified)
        except Exception as e:  # noqa: BLE001
            record["errors"].append(f"not resolvable from Python: {e}"[:200])
            return record
        schema = op._schema
        self.op, self.schema = op, schema
        record["schema"] = str(schema)
        out_names = [a.name for a in schema.arguments if a.is_out]
        inplace = base.endswith("_")
        self.attempts = 0
        seen_desc = set()
        # Hand-written inputs first: their own cap, their own conditions.
        self.run_cases(record, self.handwritten_cases(qualified, schema, out_names, inplace), seen_desc,
                       len(record["cases"]) + MAX_HANDWRITTEN, MAX_ATTEMPTS)
        n_hand = len(record["cases"])
        sources = [self.opinfo_cases(base, overload, schema), self.schema_cases(schema)]
        for source in sources:
            self.run_cases(record, source, seen_desc, max(MAX_CASES, n_hand + 1), MAX_ATTEMPTS)
        # Then the first measured case, varied in each argument that can decide.
        measured = [c for c in record["cases"] if "_inputs" in c]
        # Not for backward kernels, whose arguments are tied to a forward call's (a saved input, its statistics):
        # their CPU kernels crashed on the varied ones, and users do not call them.
        if measured and self.vary and "backward" not in base:
            args, kwargs = measured[min(n_hand, len(measured) - 1)]["_inputs"]
            varied = self.varied_cases(schema, args, kwargs, out_names, inplace)
            self.run_cases(record, varied, seen_desc, len(record["cases"]) + MAX_VARIED,
                           self.attempts + 2 * MAX_VARIED)
        for c in record["cases"]:
            c.pop("_inputs", None)
        return record

    def handwritten_cases(self, qualified, schema, out_names, inplace):
        """(description, args, kwargs, out_names, inplace, condition) of handwritten_inputs.py."""
        builder = handwritten_inputs.cases_for(qualified, bool(out_names))
        if builder is None:
            return
        built = builder(handwritten_inputs.Inputs(self.torch, self.device))
        for condition, args, kwargs in built:
            desc = ", ".join([describe(a, self.torch) for a in args] +
                             [f"{k}={describe(v, self.torch)}" for k, v in kwargs.items()])
            yield f"hand-written ({condition}): {desc}", args, kwargs, out_names, inplace, condition

    def varied_cases(self, schema, args, kwargs, out_names, inplace):
        """The cases of variation.py from one measured case."""
        types = schema_types(str(schema))
        for condition, vargs, vkwargs in variation.variations(self.torch, schema, types, args, kwargs, self.device):
            desc = ", ".join([describe(a, self.torch) for a in vargs] +
                             [f"{k}={describe(v, self.torch)}" for k, v in vkwargs.items()])
            yield f"varied ({condition}): {desc}", vargs, vkwargs, out_names, inplace, condition

    def enum_ints(self, schema, kwargs):
        """kwargs with the Python names of int enums ('mean' for reduction) as the schema's ints."""
        types = schema_types(str(schema))
        out = dict(kwargs)
        for k, v in kwargs.items():
            if isinstance(v, str) and k in ENUM_INTS and types.get(k) in ("int", "int?") and v in ENUM_INTS[k]:
                out[k] = ENUM_INTS[k][v]
        return out

    def run_cases(self, record, source, seen_desc, max_cases, max_attempts):
        """Binds and measures the cases of source into record until max_cases are measured or max_attempts
        tried; returns False after a fatal CUDA error (record['fatal'] is then set)."""
        op, schema = self.op, self.schema
        if record.get("fatal"):
            return False
        while True:
            try:
                item = next(source, None)
            except Exception as e:  # noqa: BLE001 - a builder that fails is recorded like a refused input
                if len(record["errors"]) < 3:
                    record["errors"].append(f"building inputs -> {type(e).__name__}: {str(e)[:120]}")
                return True
            if item is None:
                return True
            desc, args, kwargs, out_names, inplace = item[:5]
            condition = item[5] if len(item) > 5 else ""
            if len(record["cases"]) >= max_cases or self.attempts >= max_attempts:
                return True
            if desc in seen_desc:
                continue
            seen_desc.add(desc)
            self.attempts += 1
            try:
                try:
                    fn = self.bind(op, schema, args, kwargs, out_names, inplace)
                except (RuntimeError, TypeError):
                    # OpInfo samples pass Python lists and numbers where an overload takes tensors
                    # (ctc_loss's lengths, linspace's bounds): the same values as CUDA tensors.
                    coerced = self.coerce(schema, args, kwargs)
                    if coerced is None:
                        raise
                    args, kwargs = coerced
                    desc += " (lists and numbers as CUDA tensors)"
                    fn = self.bind(op, schema, args, kwargs, out_names, inplace)
                m = self.run_case(fn)
            except Exception as e:  # noqa: BLE001 - the op refused these inputs
                msg = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:160]
                if re.search(r"CUDA error|device-side assert|illegal memory access|unspecified launch", msg):
                    record["errors"].append(msg)
                    record["fatal"] = True
                    return False
                if len(record["errors"]) < 3:
                    record["errors"].append(f"{desc[:100]} -> {msg}")
                continue
            m["case"] = desc[:300]
            m["condition"] = condition
            m["_inputs"] = (args, kwargs)
            record["cases"].append(m)

    def coerce(self, schema, args, kwargs):
        """args and kwargs with each list of numbers or number given for a Tensor parameter made a CUDA
        tensor, or None when nothing changes."""
        torch = self.torch

        def as_tensor(value):
            if isinstance(value, bool):
                return None
            if isinstance(value, (int, float)):
                return torch.tensor(value, device=self.device)
            if isinstance(value, (list, tuple)) and value and all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
                return torch.tensor(list(value), device=self.device)
            return None

        positional = [a for a in schema.arguments if not a.kwarg_only]
        new_args, new_kwargs, changed = list(args), dict(kwargs), False
        for i, value in enumerate(args):
            if i < len(positional) and schema_type(schema, positional[i]).startswith("Tensor") and \
                    not schema_type(schema, positional[i]).endswith("[]"):
                t = as_tensor(value)
                if t is not None:
                    new_args[i], changed = t, True
        by_name = {a.name: a for a in schema.arguments}
        for name, value in kwargs.items():
            a = by_name.get(name)
            type_ = schema_type(schema, a) if a is not None else ""
            if type_.startswith("Tensor") and not type_.endswith("[]"):
                t = as_tensor(value)
                if t is not None:
                    new_kwargs[name], changed = t, True
        return (new_args, new_kwargs) if changed else None

    def bind(self, op, schema, args, kwargs, out_names, inplace):
        """A thunk calling op on fresh copies of the inputs (in-place ops must not drift across calls)."""
        torch = self.torch
        # A tensor given for a number (a Scalar, float or int parameter) is read with item() by Python's argument
        # parser before the operator runs: that sync is the binding's, not the operator's, and C++ callers never
        # make it. Such a case is not measured.
        positional = [a for a in schema.arguments if not a.kwarg_only]
        by_name = {a.name: a for a in schema.arguments}
        pairs = [(positional[i] if i < len(positional) else None, v) for i, v in enumerate(args)]
        pairs += [(by_name.get(k), v) for k, v in kwargs.items()]
        for a, v in pairs:
            if a is not None and isinstance(v, torch.Tensor) and not schema_type(schema, a).startswith("Tensor"):
                raise TypeError(f"a tensor for the {schema_type(schema, a)} parameter '{a.name}'")

        def fresh(v):
            if isinstance(v, torch.Tensor):
                return v.clone() if inplace else v
            if isinstance(v, list):
                return [fresh(x) for x in v]
            return v

        outs = {}
        if out_names:
            # Out tensors shaped like the functional result, or empty ones the op may resize.
            functional = None
            base = schema.name.split("::")[1]
            packet = getattr(torch.ops.aten, base)
            for name in packet.overloads():
                cand = getattr(packet, name)
                if not any(a.is_out for a in cand._schema.arguments):
                    try:
                        functional = cand(*args, **kwargs)
                        break
                    except Exception:  # noqa: BLE001
                        continue
            results = functional if isinstance(functional, (tuple, list)) else [functional]
            for i, name in enumerate(out_names):
                r = results[i] if i < len(results) else None
                outs[name] = torch.empty_like(r) if isinstance(r, torch.Tensor) else torch.empty(0, device=self.device)

        def call():
            return op(*[fresh(a) for a in args], **{k: fresh(v) for k, v in kwargs.items()}, **outs)

        # Fail here, not in the measurement, when the inputs do not fit.
        call()
        self.sync()
        return call


_NO_VALUE = object()


def worker_main(args):
    import torch
    counter = Counter(args.lib)
    if not counter.ok:
        print(f"census: CUPTI unavailable: {counter.error}", file=sys.stderr)
        sys.exit(2)
    w = Worker(torch, counter)
    w.vary = not args.no_variation
    # A check of the measurement itself: item syncs, add does not.
    x = torch.randn(4, device="cuda")
    item = w.run_case(lambda: torch.ops.aten._local_scalar_dense.default(x[0]))
    add = w.run_case(lambda: torch.ops.aten.add.Tensor(x, x))
    if not (item["sync"] and item["waited"]) or add["sync"]:
        print(f"census: the measurement fails its own check (item: {item}, add: {add})", file=sys.stderr)
        sys.exit(3)
    todo = [line.split("\t") for line in open(args.ops).read().splitlines() if line]
    with open(args.results, "a") as out:
        for qualified, kernel in todo:
            with open(args.results + ".current", "w") as cur:
                cur.write(qualified)
            try:
                rec = w.census(qualified, kernel)
            except Exception as e:  # noqa: BLE001
                rec = {"overload": qualified, "kernel": kernel, "cases": [],
                       "errors": [f"census error: {e}"[:200]], "trace": traceback.format_exc()[-400:]}
            out.write(json.dumps(rec) + "\n")
            out.flush()
            if rec.get("fatal"):
                sys.exit(4)  # the CUDA context is unusable: the parent starts a new worker


def list_cases_main(args):
    """Builds and calls every case of the selected overloads on --device, measuring nothing: one JSON line per
    overload with its cases (description, condition) and errors, and a summary on stdout. A child process does
    the work and is started again after an overload that crashed it (recorded as crashed)."""
    import torch
    overloads = enumerate_overloads(torch)
    if args.only:
        overloads = [o for o in overloads if re.search(args.only, o[0])]
    if args.limit:
        overloads = overloads[:args.limit]
    if args.child:
        w = Worker(torch, None, args.device)
        w.vary = not args.no_variation
        finished = done_overloads(args.out)
        with open(args.out, "a") as out:
            for qualified, kernel in overloads:
                if qualified in finished:
                    continue
                with open(args.out + ".current", "w") as cur:
                    cur.write(qualified)
                try:
                    rec = w.census(qualified, kernel)
                except Exception as e:  # noqa: BLE001
                    rec = {"overload": qualified, "kernel": kernel, "cases": [],
                           "errors": [f"census error: {e}"[:200]]}
                rec["cases"] = [{"case": c["case"], "condition": c.get("condition", "")} for c in rec["cases"]]
                out.write(json.dumps(rec) + "\n")
                out.flush()
        return
    open(args.out, "w").close()
    kernels = dict(overloads)
    while True:
        rc = subprocess.call([sys.executable, __file__, *sys.argv[1:], "--child"])
        if rc == 0:
            break
        current = open(args.out + ".current").read().strip() if os.path.exists(args.out + ".current") else ""
        if not current or current in done_overloads(args.out):
            sys.exit(rc)
        with open(args.out, "a") as out:
            out.write(json.dumps({"overload": current, "kernel": kernels.get(current, ""), "cases": [],
                                  "errors": [f"crashed (exit {rc})"]}) + "\n")
    with open(args.out) as f:
        records = [json.loads(line) for line in f if line.strip()]
    print(json.dumps({"device": args.device, "overloads": len(records),
                      "with_a_case": sum(1 for r in records if r["cases"]),
                      "crashed": sum(1 for r in records if r["errors"][:1] and r["errors"][0].startswith("crashed"))}))


def done_overloads(path):
    """The overloads that a results file has a line for."""
    if not os.path.exists(path):
        return set()
    with open(path) as f:
        return {json.loads(line)["overload"] for line in f if line.strip()}


def parent_main(args):
    import torch
    overloads = enumerate_overloads(torch)
    if args.only:
        overloads = [o for o in overloads if re.search(args.only, o[0])]
    if args.limit:
        overloads = overloads[:args.limit]
    meta = {"torch": torch.__version__, "cuda": torch.version.cuda, "gpu": torch.cuda.get_device_name(0),
            "date": time.strftime("%Y-%m-%d"), "overloads": len(overloads),
            "with_cuda_kernel": sum(1 for _, k in overloads if k == "cuda"),
            "composite": sum(1 for _, k in overloads if k != "cuda"),
            "all_aten": sum(1 for n in torch._C._dispatch_get_all_op_names() if n.startswith("aten::"))}
    workdir = args.out + ".work"
    os.makedirs(workdir, exist_ok=True)
    chunks = [overloads[i::args.workers] for i in range(args.workers)]
    procs = []
    for i, chunk in enumerate(chunks):
        procs.append({"i": i, "todo": list(chunk), "proc": None, "results": f"{workdir}/w{i}.jsonl"})
        open(procs[-1]["results"], "w").close()

    def done_names(p):
        with open(p["results"]) as f:
            return [json.loads(line)["overload"] for line in f if line.strip()]

    def start(p):
        finished = set(done_names(p))
        p["todo"] = [o for o in p["todo"] if o[0] not in finished]
        if not p["todo"]:
            p["proc"] = None
            return
        ops_file = f"{workdir}/w{p['i']}.ops"
        with open(ops_file, "w") as f:
            f.writelines(f"{q}\t{k}\n" for q, k in p["todo"])
        p["proc"] = subprocess.Popen([sys.executable, __file__, "--worker", "--lib", args.lib, "--ops", ops_file,
                                      "--results", p["results"]] + (["--no-variation"] if args.no_variation else []),
                                     stdout=subprocess.DEVNULL,
                                     stderr=open(f"{workdir}/w{p['i']}.log", "a"))
        p["last"] = time.time()
        p["count"] = len(finished)

    for p in procs:
        start(p)
    deadline = time.time() + args.time_limit
    while any(p["proc"] for p in procs):
        time.sleep(1)
        for p in procs:
            proc = p["proc"]
            if not proc:
                continue
            n = len(done_names(p))
            if n != p["count"]:
                p["count"], p["last"] = n, time.time()
            rc = proc.poll()
            hung = rc is None and time.time() - p["last"] > HANG_SECONDS
            if rc is None and time.time() > deadline:
                proc.kill()
                proc.wait()
                p["proc"] = None
                continue
            if rc is None and not hung:
                continue
            if hung:
                proc.kill()
                proc.wait()
            if rc in (2, 3):
                print(open(f"{workdir}/w{p['i']}.log").read()[-2000:], file=sys.stderr)
                sys.exit(rc)
            if rc == 0 or rc is None and not hung:
                p["proc"] = None
                continue
            # Crashed (or hung) on the overload it was running; a fatal CUDA error was recorded already.
            marker = p["results"] + ".current"
            current = open(marker).read().strip() if os.path.exists(marker) else ""
            if current and current not in set(done_names(p)):
                with open(p["results"], "a") as f:
                    f.write(json.dumps({"overload": current, "kernel": dict(overloads).get(current, ""), "cases": [],
                                        "errors": ["hung" if hung else f"crashed (exit {rc})"]}) + "\n")
            start(p)
    late = 0
    for p in procs:
        # Overloads that a worker stopped at --time-limit did not reach keep their row, as not run.
        finished = set(done_names(p))
        with open(p["results"], "a") as f:
            for qualified, kernel in p["todo"]:
                if qualified not in finished:
                    late += 1
                    f.write(json.dumps({"overload": qualified, "kernel": kernel, "cases": [],
                                        "errors": ["not reached before --time-limit"]}) + "\n")
    meta["not_reached"] = late
    with open(args.out, "w") as out:
        out.write(json.dumps({"meta": meta}) + "\n")
        for p in procs:
            with open(p["results"]) as f:
                out.writelines(f.readlines())
    print(json.dumps(meta))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", help="path of libcupti_counter.so (not needed with --list-cases)")
    ap.add_argument("--out", help="results file (JSON lines)")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--only", help="regular expression on the qualified overload name")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--time-limit", type=float, default=420, help="seconds before unfinished workers stop")
    ap.add_argument("--list-cases", action="store_true",
                    help="build and call the cases on --device without measuring, in one process, into --out")
    ap.add_argument("--device", default="cuda", help="the device of the inputs with --list-cases (default cuda)")
    ap.add_argument("--no-variation", action="store_true",
                    help="measure the hand-written, OpInfo and schema cases only, without varying their arguments")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--ops", help=argparse.SUPPRESS)
    ap.add_argument("--results", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker_main(args)
    elif args.list_cases:
        if not args.out:
            ap.error("--out is required")
        list_cases_main(args)
    else:
        if not args.out or not args.lib:
            ap.error("--out and --lib are required")
        parent_main(args)


if __name__ == "__main__":
    main()
