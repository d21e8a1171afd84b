"""ONNX models into the memopt dialect.

Shapes come from ``onnx.shape_inference.infer_shapes(..., data_prop=True)`` after the graph
inputs got their static shapes (from the model or ``--input-shape``). Whatever it leaves
unknown — typically inside ``If`` branches, whose outer-scope inputs it does not see as
constants — is completed by *concrete propagation*: the node is run once with
``onnx.reference`` on zeros of its input shapes, with the real values of every input that can
be constant-folded (initializers, ``Constant``, ``Shape`` of a static tensor, and small chains
of those), so shape arithmetic such as ``Shape → Gather → Concat → Reshape`` resolves exactly.
Data-dependent output sizes (``NonZero``...) get the size they have on zero inputs.

Mapping (see :mod:`memopt.importers.common` for names and symbols):

* initializers and ``Constant`` outputs → ``memopt.global`` (off-chip), graph inputs that are
  also initializers are weights, not arguments;
* ``Reshape``/``Flatten``/``Squeeze``/``Unsqueeze``/``Identity`` → ``memopt.view``;
* elementwise ops and activations → ``memopt.compute`` with ``inplace = [0]`` when result 0
  has the byte size of operand 0;
* ``If`` → ``memopt.if``; ``Loop`` → ``memopt.loop`` carrying the loop-carried values and one
  accumulator per scan output (made before the loop by ``Loop.scan_output_init`` and written in
  the body by ``Loop.scan_output_write``, in place); the body's iteration number and condition
  are made by ``Loop.iteration_num`` / ``Loop.condition`` at the top of the body. The trip count
  is the constant ``M`` input when there is one, else 1 marked ``unknown_trip_count``;
* ``Scan`` → ``memopt.loop`` with the sequence length as trip count, each per-iteration slice a
  ``memopt.view`` of the (outer, hence live for the whole loop) scan input;
* any other op, known or not, → ``memopt.compute`` with ``kind`` = its ``op_type``.
"""

from __future__ import annotations

import re

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute

from .common import ModelImportError, ModuleBuilder, format_shape, nbytes, num_elements
from .windows import ONNX_CONV, ONNX_POOL, ONNX_RESHAPING, onnx_reshaping, onnx_window, pad_attributes
from .costs import conv_macs, elementwise, matmul_macs

if TYPE_CHECKING:  # onnx is imported where a model is read (an optional dependency)
    from onnx import GraphProto, NodeProto, TensorProto

VIEW_OPS = frozenset({"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"})
INPLACE_OPS = frozenset({
    "Abs", "Acos", "Acosh", "Add", "And", "Asin", "Asinh", "Atan", "Atanh", "BatchNormalization",
    "BitShift", "Ceil", "Celu", "Clip", "Cos", "Cosh", "Div", "Dropout", "Elu", "Erf", "Exp",
    "Floor", "Gelu", "HardSigmoid", "HardSwish", "LeakyRelu", "Log", "Max", "Mean", "Min", "Mish",
    "Mod", "Mul", "Neg", "Not", "Or", "Pow", "PRelu", "QuantizeLinear", "Reciprocal", "Relu", "Round",
    "Selu", "Shrink", "Sigmoid", "Sign", "Sin", "Sinh", "Softplus", "Softsign", "Sqrt", "Sub", "Sum",
    "Tan", "Tanh", "ThresholdedRelu", "Xor", "Cast",
})
"""ONNX ops whose output may overwrite input 0 (result 0 only, same shape and byte size: see
:meth:`memopt.importers.common.ModuleBuilder.compute`). Source: ONNX Runtime's CPU kernels that
declare ``MayInplace(0, 0)`` — the element-wise unary and binary ops — kept only where output
element ``i`` reads input element ``i`` alone (broadcast operands other than input 0 allowed).
Left out on purpose although some runtimes run them in place: ``LRN`` (reads neighbouring
channels), ``Softmax``/``LogSoftmax``, ``LayerNormalization``/``InstanceNormalization`` (read
a whole axis): a kernel writing element by element would read inputs it already overwrote."""

_DTYPES = {
    1: "f32", 2: "ui8", 3: "i8", 4: "ui16", 5: "i16", 6: "i32", 7: "i64", 9: "i1", 10: "f16",
    11: "f64", 12: "ui32", 13: "ui64", 16: "bf16",
    17: "i8", 18: "i8", 19: "i8", 20: "i8",  # float8 variants: one byte each
    21: "ui4", 22: "i4",
}
_NP_DTYPES = {
    "f32": np.float32, "ui8": np.uint8, "i8": np.int8, "ui16": np.uint16, "i16": np.int16,
    "i32": np.int32, "i64": np.int64, "i1": np.bool_, "f16": np.float16, "f64": np.float64,
    "ui32": np.uint32, "ui64": np.uint64,
}
_FOLD_LIMIT = 1 << 16
"""Largest tensor (elements) that concrete propagation keeps the values of."""


def _dtype(elem_type: int, what: str) -> str:
    try:
        return _DTYPES[elem_type]
    except KeyError:
        import onnx

        name = onnx.TensorProto.DataType.Name(elem_type) if elem_type in onnx.TensorProto.DataType.values() else str(elem_type)
        raise ModelImportError(f"{what}: unsupported element type {name}") from None


@dataclass
class _Types:
    """Static (shape, dtype) of every value found so far, plus the foldable values."""

    shape: dict[str, tuple[int, ...]] = field(default_factory=dict)
    elem: dict[str, int] = field(default_factory=dict)
    values: dict[str, np.ndarray | None] = field(default_factory=dict)
    producer: dict[str, NodeProto] = field(default_factory=dict)
    initializers: dict[str, TensorProto] = field(default_factory=dict)
    constants: set[str] = field(default_factory=set)


def _static(vi) -> tuple[tuple[int, ...] | None, int | None]:
    t = vi.type
    if not t.HasField("tensor_type"):
        return None, None
    tt = t.tensor_type
    elem = tt.elem_type or None
    if not tt.HasField("shape"):
        return None, elem
    dims = []
    for d in tt.shape.dim:
        if not d.HasField("dim_value") or d.dim_value < 0:
            return None, elem
        dims.append(d.dim_value)
    return tuple(dims), elem


class OnnxReader:
    """Reads one ONNX model; :meth:`build` emits it through a :class:`ModuleBuilder`."""

    def __init__(self, path: str, input_shapes: dict[str, tuple[int, ...]], keep_static_if: bool = False,
                 dims: dict[str, int] | None = None, trip_counts: dict[str, int] | None = None):
        import onnx

        self.path = path
        self.keep_static_if = keep_static_if
        try:
            model = onnx.load(path, load_external_data=False)
        except FileNotFoundError:
            raise ModelImportError("no such file") from None
        except IsADirectoryError:
            raise ModelImportError("is a directory") from None
        except Exception as e:  # protobuf DecodeError and friends
            raise ModelImportError(f"not a valid ONNX model ({type(e).__name__}: {_first_line(e)})") from None
        if not model.HasField("graph") or not model.graph.node and not model.graph.output:
            raise ModelImportError("not a valid ONNX model (no graph)")
        self.model = model
        self.opsets = {o.domain or "ai.onnx": o.version for o in model.opset_import}
        self._apply_input_shapes(input_shapes, dims or {})
        self.trip_counts = dict(trip_counts or {})
        _validate_graph(model.graph, set())
        self.t = _Types()
        self.folded: set[str] = set()
        self.static_if: dict[tuple, GraphProto] = {}
        self.pruned: dict[tuple, tuple[int, str]] = {}
        self.warnings: list[str] = []
        self._infer()

    # ------------------------------------------------------------------ shapes
    def _apply_input_shapes(self, input_shapes: dict[str, tuple[int, ...]], dims: dict[str, int]) -> None:
        """Make every graph input static: ``--input-shape NAME=DIMS`` replaces an input's shape,
        ``--dim SYMBOL=N`` fixes a symbolic dimension by its name wherever it appears (ONNX
        Runtime's free-dimension override by name). What stays symbolic is reported all at once,
        with the flags that would fix it."""
        g = self.model.graph
        inits = {i.name for i in g.initializer}
        names = [i.name for i in g.input if i.name not in inits]
        for name in input_shapes:
            if name not in names:
                raise ModelImportError(
                    f"--input-shape names '{name}', which is not a graph input (inputs: {', '.join(names)})"
                )
        symbols = {d.dim_param for i in g.input for d in i.type.tensor_type.shape.dim if d.dim_param}
        for sym in dims:
            if sym not in symbols:
                known = ", ".join(sorted(symbols)) or "none"
                raise ModelImportError(f"--dim names '{sym}', which is not a symbolic dimension of a graph input (symbols: {known})")
        missing: list[tuple[str, str, list[str]]] = []  # (input, what, shape with ? for the unknown)
        for vi in g.input:
            if vi.name in inits:
                continue
            tt = vi.type.tensor_type
            if not vi.type.HasField("tensor_type"):
                raise ModelImportError(f"graph input '{vi.name}' is not a tensor")
            if vi.name in input_shapes:
                shape = input_shapes[vi.name]
                if tt.HasField("shape") and len(tt.shape.dim) != len(shape):
                    raise ModelImportError(
                        f"--input-shape {vi.name}={format_shape(shape)}: input '{vi.name}' has rank "
                        f"{len(tt.shape.dim)}, not {len(shape)}"
                    )
                tt.shape.Clear()
                for d in shape:
                    tt.shape.dim.add().dim_value = d
                continue
            if not tt.HasField("shape"):
                missing.append((vi.name, "no shape", ["?"]))
                continue
            unknown, shown = [], []
            for k, d in enumerate(tt.shape.dim):
                if d.HasField("dim_value") and d.dim_value >= 0:
                    shown.append(str(d.dim_value))
                elif d.dim_param and d.dim_param in dims:
                    d.dim_value = dims[d.dim_param]  # clears dim_param (a oneof)
                    shown.append(str(d.dim_value))
                else:
                    unknown.append(f"dim {k} '{d.dim_param}'" if d.dim_param else f"dim {k} unknown")
                    shown.append("1")  # a placeholder the flag accepts (the message says to use yours)
            if unknown:
                missing.append((vi.name, ", ".join(unknown), shown))
        if missing:
            what = "; ".join(f"'{n}' ({w})" for n, w, _ in missing)
            syms = sorted({m.group(1) for _, w, _ in missing for m in re.finditer(r"'([^']+)'", w)})
            fix = "".join(f" --dim {s}=1" for s in syms)
            unnamed = [(n, shown) for n, w, shown in missing if "unknown" in w or w == "no shape"]
            fix += "".join(f" --input-shape {n}={'x'.join(shown)}" for n, shown in unnamed)
            raise ModelImportError(
                f"graph inputs with symbolic or unknown dimensions: {what}; make them static with "
                f"(the values are placeholders: use yours):{fix}"
            )

    def _infer(self) -> None:
        import onnx

        try:
            inferred = onnx.shape_inference.infer_shapes(self.model, strict_mode=False, data_prop=True)
        except Exception:  # inference is a help, not a requirement: propagation fills the gaps
            inferred = self.model
        self.graph = inferred.graph
        self._collect(self.graph)
        self._fold_constants(self.graph)
        self._propagate(self.graph)

    def _fold_constants(self, g) -> None:
        """Nodes whose inputs are all constants compute constants (ONNX Runtime folds them when
        it loads the model): their outputs become off-chip symbols as well and the nodes are
        not emitted."""
        t = self.t
        for node in g.node:
            subs = list(_subgraphs(node))
            for g2 in subs:
                self._fold_constants(g2)
            ins = [i for i in node.input if i]
            if (
                subs or not ins or node.op_type.startswith("Random") or node.op_type == "Multinomial"
                or not all(i in t.constants for i in ins)
            ):
                continue
            for o in node.output:
                if o:
                    t.constants.add(o)
                    self.folded.add(o)

    def _collect(self, g) -> None:
        from onnx import numpy_helper

        t = self.t
        for vi in list(g.input) + list(g.output) + list(g.value_info):
            shape, elem = _static(vi)
            if elem is not None:
                t.elem.setdefault(vi.name, elem)
            if shape is not None:
                t.shape[vi.name] = shape
        for init in g.initializer:
            t.shape[init.name] = tuple(init.dims)
            t.elem[init.name] = init.data_type
            t.initializers[init.name] = init
            t.constants.add(init.name)
        for init in g.sparse_initializer:
            t.shape[init.values.name] = tuple(init.dims)
            t.elem[init.values.name] = init.values.data_type
            t.constants.add(init.values.name)
        for node in g.node:
            for o in node.output:
                if o:
                    t.producer[o] = node
            if node.op_type == "Constant" and node.domain in ("", "ai.onnx") and node.output:
                try:
                    value = self._constant_value(node, numpy_helper)
                except Exception:
                    value = None
                if value is not None:
                    t.shape[node.output[0]] = tuple(value.shape)
                    t.elem[node.output[0]] = _np_to_onnx(value.dtype)
                    t.values[node.output[0]] = value if value.size <= _FOLD_LIMIT else None
                t.constants.add(node.output[0])
            for g2 in _subgraphs(node):
                self._collect(g2)

    @staticmethod
    def _constant_value(node, numpy_helper) -> np.ndarray | None:
        for a in node.attribute:
            if a.name == "value":
                return numpy_helper.to_array(a.t)
            if a.name == "value_float":
                return np.array(a.f, dtype=np.float32)
            if a.name == "value_floats":
                return np.array(list(a.floats), dtype=np.float32)
            if a.name == "value_int":
                return np.array(a.i, dtype=np.int64)
            if a.name == "value_ints":
                return np.array(list(a.ints), dtype=np.int64)
            if a.name == "sparse_value":
                return np.zeros(tuple(a.sparse_tensor.dims), dtype=numpy_helper.to_array(a.sparse_tensor.values).dtype)
        return None

    def _value(self, name: str) -> np.ndarray | None:
        """The constant value of ``name`` if it can be folded (small), else None."""
        t = self.t
        if name in t.values:
            return t.values[name]
        t.values[name] = None  # guards against cycles
        shape = t.shape.get(name)
        if shape is not None and num_elements(shape) > _FOLD_LIMIT:
            return None
        val = None
        if name in t.initializers:
            from onnx import numpy_helper

            val = numpy_helper.to_array(t.initializers[name])
        else:
            node = t.producer.get(name)
            if node is not None and not list(_subgraphs(node)):
                if node.op_type == "Shape" and node.input and node.input[0] in t.shape:
                    val = self._run(node, {node.input[0]: np.zeros(t.shape[node.input[0]], np.float32)}).get(name)
                elif node.op_type == "Size" and node.input and node.input[0] in t.shape:
                    val = np.array(num_elements(t.shape[node.input[0]]), dtype=np.int64)
                else:
                    feeds = {}
                    for i in node.input:
                        if not i:
                            continue
                        v = self._value(i)
                        if v is None:
                            break
                        feeds[i] = v
                    else:
                        try:
                            val = self._run(node, feeds).get(name)
                        except ModelImportError:
                            val = None
        t.values[name] = val
        return val

    def _run(self, node, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Run one node with ``onnx.reference`` (the model's opsets)."""
        from onnx import helper
        from onnx.reference import ReferenceEvaluator

        inputs = [helper.make_tensor_value_info(n, _np_to_onnx(v.dtype), v.shape) for n, v in feeds.items()]
        outputs = [helper.make_empty_tensor_value_info(o) for o in node.output if o]
        g = helper.make_graph([node], "fold", inputs, outputs)
        m = helper.make_model(g, opset_imports=list(self.model.opset_import), ir_version=self.model.ir_version)
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")  # zeros through Log/Div are expected, not news
                res = ReferenceEvaluator(m).run(None, feeds)
        except Exception as e:
            raise ModelImportError(
                f"cannot determine the output shapes of node '{node.name or node.output[0]}' "
                f"({node.op_type}): {_first_line(e)}"
            ) from None
        out = {}
        for name, r in zip([o for o in node.output if o], res):
            out[name] = np.asarray(r)
        return out

    def _propagate(self, g) -> None:
        """Complete the static shapes of every value of ``g`` (recursively)."""
        t = self.t
        for node in g.node:
            outs = [o for o in node.output if o]
            op = node.op_type
            if op == "If":
                cond = self._value(node.input[0])
                static = cond is not None and cond.size == 1
                if cond is not None and static and not self.keep_static_if:
                    # A shape test known at import: only the taken branch can run (the other may
                    # not even be shape-correct), so it is inlined in place of the If.
                    taken = _attr_graph(node, "then_branch" if bool(cond.reshape(())) else "else_branch")
                    self.static_if[_node_key(node)] = taken
                    self._propagate(taken)
                    for o, vi in zip(node.output, taken.output):
                        if o and vi.name in t.shape:
                            t.shape[o], t.elem[o] = t.shape[vi.name], t.elem.get(vi.name, 1)
                    continue
                subs = [_attr_graph(node, "then_branch"), _attr_graph(node, "else_branch")]
                errors: list[ModelImportError | None] = []
                for g2 in subs:
                    try:
                        self._propagate(g2)
                        errors.append(None)
                    except ModelImportError as e:
                        errors.append(e)
                taken_k = (0 if bool(cond.reshape(())) else 1) if cond is not None and static else None
                taken_error = errors[taken_k] if taken_k is not None else None
                if taken_error is not None:
                    raise taken_error
                if all(errors):
                    raise errors[0]  # type: ignore[misc]
                if any(errors):
                    # This branch cannot run to completion with the given input shapes (a
                    # traced model's other mode, e.g. silero-vad's 8 kHz branch on a 16 kHz
                    # frame): it is imported as an "unreachable" placeholder, and said so --
                    # as a warning only when the condition is not known to skip it anyway.
                    k = 0 if errors[0] else 1
                    which = ("then", "else")[k]
                    msg = f"{which} branch of If '{node.name or node.output[0]}' cannot run with the given input shapes ({errors[k]})"
                    self.pruned[_node_key(node)] = (k, msg)
                    if taken_k is None:
                        self.warnings.append(msg)
                if taken_k is not None:
                    # Kept static If: its results have the taken branch's shapes; the other
                    # branch's yields are cast to them like any mismatching branch result.
                    subs, errors = [subs[taken_k]], [None]
                branches = [list(g2.output) for g2, err in zip(subs, errors) if err is None]
                for k, o in enumerate(node.output):
                    if not o or o in t.shape:
                        continue
                    cands = [b[k].name for b in branches if k < len(b) and b[k].name in t.shape]
                    if not cands:
                        raise ModelImportError(f"cannot determine the shape of '{o}' (output of If '{node.name}')")
                    best = max(cands, key=lambda n: nbytes(t.shape[n], _dtype(t.elem.get(n, 1), n)))
                    t.shape[o] = t.shape[best]
                    t.elem.setdefault(o, t.elem.get(best, 1))
                continue
            if op == "Loop":
                self._propagate_loop(node)
                continue
            if op == "Scan":
                self._propagate_scan(node)
                continue
            for g2 in _subgraphs(node):
                self._propagate(g2)
            if all(o in t.shape for o in outs):
                continue
            feeds = {}
            for i in node.input:
                if not i:
                    continue
                v = self._value(i)
                if v is None:
                    if i not in t.shape:
                        raise ModelImportError(
                            f"cannot determine the shape of '{i}' (input of node '{node.name or outs[0]}', {op})"
                        )
                    dt = _NP_DTYPES.get(_DTYPES.get(t.elem.get(i, 1), "f32"), np.float32)
                    v = np.zeros(t.shape[i], dtype=dt)
                feeds[i] = v
            res = self._run(node, feeds)
            for o, r in res.items():
                t.shape[o] = tuple(r.shape)
                t.elem[o] = _np_to_onnx(r.dtype)

    def _body_signature(self, body, types: Sequence[tuple[tuple[int, ...], int]]) -> None:
        for vi, (shape, elem) in zip(body.input, types):
            self.t.shape[vi.name] = shape
            self.t.elem[vi.name] = elem

    def _trip_count(self, node) -> int | None:
        """The Loop's trip count: its ``M`` input when known at import, else what
        ``--trip-count`` gives for it (by node name or first output), else None."""
        for key in (node.name, node.output[0] if node.output else None):
            if key and key in self.trip_counts:
                return self.trip_counts[key]
        if node.input and node.input[0]:
            v = self._value(node.input[0])
            if v is not None and v.size == 1:
                return int(v.reshape(()))
        return None

    def _propagate_loop(self, node) -> None:
        t = self.t
        body = _attr_graph(node, "body")
        carried = [i for i in node.input[2:]]
        for i in carried:
            if i not in t.shape:
                raise ModelImportError(f"cannot determine the shape of '{i}' (input of Loop '{node.name}')")
        self._body_signature(body, [((), 7), ((), 9)] + [(t.shape[i], t.elem[i]) for i in carried])
        self._propagate(body)
        trip = self._trip_count(node)
        n = len(carried)
        if trip is None and any(node.output[n:]):
            # Scan outputs stack one slice per iteration: planned for one trip they would be
            # under-allocated, an unsafe plan. Carried values alone do not depend on the count.
            key = node.name or node.output[0]
            raise ModelImportError(
                f"{_node_label(node)} has scan outputs and a trip count known only at run time: its "
                f"buffers' sizes depend on it; give it with --trip-count {key}=N"
            )
        for k, o in enumerate(node.output):
            if not o:
                continue
            if k < n:
                t.shape[o], t.elem[o] = t.shape[carried[k]], t.elem[carried[k]]
            else:
                b = body.output[1 + k].name
                t.shape[o] = (trip if trip is not None else 1,) + t.shape[b]
                t.elem[o] = t.elem[b]

    def _scan_layout(self, node):
        attrs = {a.name: a for a in node.attribute}
        m = attrs["num_scan_inputs"].i
        n_state = len(node.input) - m
        in_axes = list(attrs["scan_input_axes"].ints) if "scan_input_axes" in attrs else [0] * m
        out_axes = list(attrs["scan_output_axes"].ints) if "scan_output_axes" in attrs else None
        return m, n_state, in_axes, out_axes

    def _propagate_scan(self, node) -> None:
        t = self.t
        if self.opsets.get("ai.onnx", 0) < 9:
            raise ModelImportError(f"Scan '{node.name}': opset < 9 (batched Scan) is not supported")
        body = _attr_graph(node, "body")
        m, n_state, in_axes, out_axes = self._scan_layout(node)
        sig = []
        trip = None
        for k, i in enumerate(node.input):
            if i not in t.shape:
                raise ModelImportError(f"cannot determine the shape of '{i}' (input of Scan '{node.name}')")
            shape = t.shape[i]
            if k >= n_state:
                ax = in_axes[k - n_state] % max(1, len(shape))
                trip = shape[ax]
                shape = shape[:ax] + shape[ax + 1:]
            sig.append((shape, t.elem[i]))
        self._body_signature(body, sig)
        self._propagate(body)
        for k, o in enumerate(node.output):
            b = body.output[k].name
            if k < n_state:
                t.shape[o], t.elem[o] = t.shape[b], t.elem[b]
            else:
                s = t.shape[b]
                ax = out_axes[k - n_state] % (len(s) + 1) if out_axes else 0
                t.shape[o] = s[:ax] + (trip or 0,) + s[ax:]
                t.elem[o] = t.elem[b]

    # ------------------------------------------------------------------ emission
    def _declare(self, b: ModuleBuilder, name: str) -> None:
        if name in b.decls:
            return
        if name not in self.t.shape:
            raise ModelImportError(f"cannot determine the shape of '{name}'")
        b.declare(name, name, self.t.shape[name], _dtype(self.t.elem.get(name, 0), f"tensor '{name}'"))

    def build(self, b: ModuleBuilder):
        g = self.graph
        t = self.t
        for name in sorted(t.constants, key=_order_key(g)):
            self._declare(b, name)
            b.add_global(name)
        inputs = [vi.name for vi in g.input if vi.name not in t.constants]
        for name in inputs:
            self._declare(b, name)
        with b.function(inputs):
            self._emit_graph(b, g)
            outputs = [vi.name for vi in g.output]
            for o in outputs:
                self._declare(b, o)
            return b.finish(outputs)

    def _emit_graph(self, b: ModuleBuilder, g) -> None:
        for node in g.node:
            self._emit_node(b, node)

    def _emit_node(self, b: ModuleBuilder, node) -> None:
        op = node.op_type
        outs = [o for o in node.output if o]
        ins = [i for i in node.input if i]
        if op == "Constant" and node.domain in ("", "ai.onnx") or outs and all(o in self.folded for o in outs):
            return  # a memopt.global, read where used
        for o in outs:
            self._declare(b, o)
        if op == "If" and _node_key(node) in self.static_if:
            taken = self.static_if[_node_key(node)]
            self._emit_graph(b, taken)
            for o, vi in zip(node.output, taken.output):
                if o:
                    b.bind(o, b.value(vi.name))
            return
        if op == "If":
            then_g, else_g = _attr_graph(node, "then_branch"), _attr_graph(node, "else_branch")

            def branch(gr):
                def emit():
                    self._emit_graph(b, gr)
                    for vi in gr.output:
                        self._declare(b, vi.name)
                    return [vi.name for vi in gr.output]
                return emit

            branches = [branch(then_g), branch(else_g)]
            attrs: dict[str, Attribute] = {}
            if _node_key(node) in self.pruned:
                k, msg = self.pruned[_node_key(node)]
                keys = [(o, "unreachable") for o in node.output]
                for o, key in zip(node.output, keys):
                    d = b.decl(o)
                    b.declare(key, f"{d.name}.unreachable", d.shape, d.dtype)

                def unreachable():
                    b.compute("unreachable", [], keys, cost=0)
                    return keys

                branches[k] = unreachable
                attrs["unreachable_branch"] = StringAttr(msg)
            b.if_(node.input[0], list(node.output), branches, attributes=attrs)
            return
        if op == "Loop":
            self._emit_loop(b, node)
            return
        if op == "Scan":
            self._emit_scan(b, node)
            return
        if op in VIEW_OPS and len(outs) == 1 and ins and node.domain in ("", "ai.onnx"):
            b.view(op, ins[0], outs[0])
            return
        b.compute(op, ins, outs, cost=self._cost(node), inplace=op in INPLACE_OPS, attributes=self._window(b, node))

    def _window(self, b: ModuleBuilder, node):
        """A Conv / MaxPool / AveragePool's window, a constant Pad's pads, a Resize's,
        DepthToSpace's or LRN's parameters (:mod:`memopt.importers.windows`), or None."""
        if node.domain not in ("", "ai.onnx") or not node.input or not node.output:
            return None
        shape_in, shape_out = b.decl(node.input[0]).shape, b.decl(node.output[0]).shape
        if node.op_type == "Pad":
            mode = next((a.s.decode() for a in node.attribute if a.name == "mode"), "constant")
            pads = next((list(a.ints) for a in node.attribute if a.name == "pads"), None)
            if pads is None and len(node.input) > 1 and node.input[1]:
                value = self._value(node.input[1])
                pads = None if value is None else [int(v) for v in np.asarray(value).reshape(-1)]
            zero = len(node.input) < 3 or not node.input[2]
            if mode == "constant" and zero and pads is not None and len(pads) == 2 * len(shape_in):
                return pad_attributes(pads)
            return None
        if node.op_type in ONNX_RESHAPING:
            return onnx_reshaping(node) or None
        if node.op_type in ONNX_CONV | ONNX_POOL:
            w = b.decl(node.input[1]).shape if len(node.input) > 1 and node.input[1] else None
            return onnx_window(node, shape_in, w, shape_out) or None
        return None

    def _emit_loop(self, b: ModuleBuilder, node) -> None:
        t = self.t
        body = _attr_graph(node, "body")
        carried = list(node.input[2:])
        n = len(carried)
        trip = self._trip_count(node)
        scans = list(node.output[n:])
        body_in = [vi.name for vi in body.input]
        for name in body_in:
            self._declare(b, name)
        inits, args = self._scan_accumulators(b, "Loop", scans)

        def emit():
            b.compute("Loop.iteration_num", [], [body_in[0]], cost=1)
            if len(body_in) > 1:
                b.compute("Loop.condition", [], [body_in[1]], cost=1)
            self._emit_graph(b, body)
            for vi in body.output:
                self._declare(b, vi.name)
            ys = [vi.name for vi in body.output[1:1 + n]]
            for k, o in enumerate(scans):
                elem = body.output[1 + n + k].name
                key_next = (o, "next")
                b.declare(key_next, f"{o}.acc", t.shape[o], _dtype(t.elem[o], o))
                b.compute("Loop.scan_output_write", [args[k], elem], [key_next],
                          cost=num_elements(t.shape[elem]), inplace=True)
                ys.append(key_next)
            return ys

        b.loop(trip, carried + inits, body_in[2:] + args, emit, list(node.output))

    def _scan_accumulators(self, b: ModuleBuilder, kind: str, scans: list[str]) -> tuple[list, list]:
        """Per scan output of a Loop/Scan: an initial buffer (carried in) and the body's
        accumulator argument; returns ``(inits, body args)``."""
        t = self.t
        inits, args = [], []
        for o in scans:
            key_init, key_acc = (o, "init"), (o, "acc")
            b.declare(key_init, f"{o}.init", t.shape[o], _dtype(t.elem[o], o))
            b.declare(key_acc, f"{o}.acc", t.shape[o], _dtype(t.elem[o], o))
            b.compute(f"{kind}.scan_output_init", [], [key_init], cost=0)
            inits.append(key_init)
            args.append(key_acc)
        return inits, args

    def _emit_scan(self, b: ModuleBuilder, node) -> None:
        t = self.t
        body = _attr_graph(node, "body")
        m, n_state, in_axes, out_axes = self._scan_layout(node)
        states = list(node.input[:n_state])
        scan_ins = list(node.input[n_state:])
        trip = None
        for k, i in enumerate(scan_ins):
            trip = t.shape[i][in_axes[k] % max(1, len(t.shape[i]))]
        body_in = [vi.name for vi in body.input]
        for name in body_in:
            self._declare(b, name)
        scans = list(node.output[n_state:])
        inits, args = self._scan_accumulators(b, "Scan", scans)

        def emit():
            for k, i in enumerate(scan_ins):
                b.view("Scan.slice", i, body_in[n_state + k])
            self._emit_graph(b, body)
            for vi in body.output:
                self._declare(b, vi.name)
            ys = [vi.name for vi in body.output[:n_state]]
            for k, o in enumerate(scans):
                elem = body.output[n_state + k].name
                key_next = (o, "next")
                b.declare(key_next, f"{o}.acc", t.shape[o], _dtype(t.elem[o], o))
                b.compute("Scan.scan_output_write", [args[k], elem], [key_next],
                          cost=num_elements(t.shape[elem]), inplace=True)
                ys.append(key_next)
            return ys

        b.loop(trip, states + inits, body_in[:n_state] + args, emit, list(node.output))

    def _cost(self, node) -> int:
        t = self.t
        op = node.op_type
        outs = [t.shape[o] for o in node.output if o and o in t.shape]
        first = outs[0] if outs else ()
        ins = [t.shape.get(i) for i in node.input]
        if op in ("Conv", "ConvInteger", "QLinearConv") and len(ins) > 1:
            w = ins[3] if op == "QLinearConv" else ins[1]
            if w is not None:
                return conv_macs(first, num_elements(w[1:]))
        if op == "ConvTranspose" and len(ins) > 1 and ins[0] is not None and ins[1] is not None:
            return conv_macs(ins[0], num_elements(ins[1][1:]))
        if op in ("MatMul", "MatMulInteger") and ins and ins[0]:
            return matmul_macs(first, ins[0][-1])
        if op == "Gemm" and ins and ins[0] and len(ins[0]) == 2:
            trans_a = any(a.name == "transA" and a.i for a in node.attribute)
            return matmul_macs(first, ins[0][0] if trans_a else ins[0][1])
        return elementwise(outs, ins[0] if ins else None)


def _first_line(e: BaseException) -> str:
    s = str(e).strip().splitlines()
    return s[0] if s else type(e).__name__


def _np_to_onnx(dt) -> int:
    from onnx import helper

    return helper.np_dtype_to_tensor_dtype(np.dtype(dt))


def _node_label(node) -> str:
    return f"{node.op_type} '{node.name or (node.output[0] if node.output else '?')}'"


def _validate_graph(g, outer: set[str]) -> None:
    """Reject models ONNX itself calls invalid, which would otherwise be imported silently
    wrong: a value produced twice (two nodes writing one output, SSA broken), an ``If`` whose
    branches yield a different number of values than the node has outputs, or different
    element types for one output (ONNX requires them equal), a ``Scan`` without
    ``num_scan_inputs``. Recursive over subgraphs, which see the outer scope's names."""
    import onnx

    produced: dict[str, str] = {}
    for name in [i.name for i in g.input] + [i.name for i in g.initializer]:
        produced.setdefault(name, "a graph input")
    for node in g.node:
        for o in node.output:
            if not o:
                continue
            if o in produced and produced[o] != "a graph input":
                raise ModelImportError(f"invalid model: value '{o}' is produced twice (by {produced[o]} and {_node_label(node)})")
            produced[o] = _node_label(node)
        attrs = {a.name: a for a in node.attribute}
        if node.op_type == "If":
            branches = [attrs[k].g for k in ("then_branch", "else_branch") if k in attrs]
            if len(branches) != 2:
                raise ModelImportError(f"invalid model: {_node_label(node)} lacks a then_branch or else_branch")
            counts = [len(b.output) for b in branches]
            if counts[0] != counts[1] or counts[0] != len(node.output):
                raise ModelImportError(
                    f"invalid model: {_node_label(node)} has {len(node.output)} outputs but its branches yield "
                    f"{counts[0]} (then) and {counts[1]} (else)"
                )
            for k, (a, b) in enumerate(zip(branches[0].output, branches[1].output)):
                ea, eb = a.type.tensor_type.elem_type, b.type.tensor_type.elem_type
                if ea and eb and ea != eb:
                    na = onnx.TensorProto.DataType.Name(ea)
                    nb = onnx.TensorProto.DataType.Name(eb)
                    raise ModelImportError(
                        f"invalid model: output {k} of {_node_label(node)} is {na} in the then branch and {nb} in the else branch"
                    )
        if node.op_type == "Scan" and "num_scan_inputs" not in attrs:
            raise ModelImportError(f"invalid model: {_node_label(node)} has no num_scan_inputs attribute (required)")
        for sub in _subgraphs(node):
            _validate_graph(sub, outer | set(produced))


def _node_key(node) -> tuple:
    return (node.name, tuple(node.output))


def _subgraphs(node):
    import onnx

    for a in node.attribute:
        if a.type == onnx.AttributeProto.GRAPH:
            yield a.g
        elif a.type == onnx.AttributeProto.GRAPHS:
            yield from a.graphs


def _attr_graph(node: NodeProto, name: str) -> GraphProto:
    for a in node.attribute:
        if a.name == name:
            return a.g
    raise ModelImportError(f"{node.op_type} '{node.name}' has no '{name}' graph")


def _order_key(g):
    """Constants in order of first appearance (initializers first, then Constant nodes)."""
    order: dict[str, int] = {}

    def visit(gr) -> None:
        for init in gr.initializer:
            order.setdefault(init.name, len(order))
        for init in gr.sparse_initializer:
            order.setdefault(init.values.name, len(order))
        for node in gr.node:
            for o in node.output:
                order.setdefault(o, len(order))
            for g2 in _subgraphs(node):
                visit(g2)

    visit(g)
    return lambda name: (order.get(name, len(order)), name)


def import_onnx(
    path: str, input_shapes: dict[str, tuple[int, ...]] | None = None, *, keep_static_if: bool = False,
    dims: dict[str, int] | None = None, trip_counts: dict[str, int] | None = None,
):
    """Import an ONNX model file; returns ``(module, builder)``.

    ``keep_static_if`` keeps an ``If`` whose condition is known at import (a shape test) as a
    ``memopt.if`` instead of inlining its taken branch, so a model's real control-flow nesting
    reaches the planner (for control-flow benchmarks); the untaken branch, when it cannot run
    with the given input shapes, becomes the ``unreachable`` placeholder."""
    reader = OnnxReader(path, dict(input_shapes or {}), keep_static_if=keep_static_if, dims=dims,
                        trip_counts=trip_counts)
    b = ModuleBuilder()
    module = reader.build(b)
    b.warnings.extend(reader.warnings)
    return module, b


__all__ = ["INPLACE_OPS", "OnnxReader", "VIEW_OPS", "import_onnx"]
