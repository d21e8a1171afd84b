"""TFLite models into the memopt dialect (read with the ``tflite`` flatbuffer bindings).

The flatbuffer is first read into plain Python records (:class:`_Subgraph`, :class:`_Op`,
:class:`_Tensor`) in one guarded pass, so a truncated or corrupt file is one clean error; the
emission then walks subgraph 0 in its execution order (TFLite's operator order).

Mapping (names and symbols as in :mod:`memopt.importers.common`):

* tensors backed by a non-empty buffer → ``memopt.global`` (off-chip);
* dynamic dimensions (``-1`` in a tensor's ``shape_signature``; the file's shape holds a
  placeholder there): every dynamic graph input needs ``--input-shape``, refused all at once
  otherwise; the sizes it gives every tensor come from TFLite's runtime
  (:mod:`memopt.importers.tflite_shapes`). A static input's ``--input-shape`` may only restate it;
* ``RESHAPE``/``SQUEEZE``/``EXPAND_DIMS`` → ``memopt.view``; elementwise ops and activations →
  ``inplace`` hint; ``DEQUANTIZE``/``DENSIFY`` of weights stay ops that write the arena (that is
  what TFLite and TFLite Micro do at run time);
* ``IF`` → ``memopt.if``: each branch subgraph is inlined into its region with its inputs bound
  to the ``IF``'s operands (outer values, live until the ``if`` ends);
* ``WHILE`` → ``memopt.loop`` with an unknown trip count (planned as 1, marked
  ``unknown_trip_count``): the body region holds the cond subgraph then the body subgraph, both
  reading the carried values (block arguments), and yields the body's outputs;
* ``CALL_ONCE`` → its init subgraph is inlined where the ``CALL_ONCE`` stands: it runs once,
  before anything else, in the same arena;
* resource variables (``VAR_HANDLE`` + ``READ_VARIABLE``/``ASSIGN_VARIABLE``, pymicro-wakeword's
  streaming state) → one ``memopt.global @<shared_name> {variable}`` each, typed by the value
  assigned to it: persistent state lives outside the planned arena (TFLite Micro keeps it in the
  arena's persistent tail, not in the planned head); ``READ_VARIABLE`` writes an arena tensor,
  ``ASSIGN_VARIABLE`` is an op without results;
* ``CUSTOM`` ops → ``kind`` = their custom code; every other op → ``kind`` = the builtin name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import UnitAttr

from .common import Key, ModelImportError, ModuleBuilder, format_shape, num_elements, read_model_file
from .costs import conv_macs, elementwise, matmul_macs
from .tflite_shapes import runtime_shapes
from .windows import TFLITE_CONV, TFLITE_POOL, TFLITE_RESHAPING, pad_attributes, tflite_reshaping, tflite_window

VIEW_OPS = frozenset({"RESHAPE", "SQUEEZE", "EXPAND_DIMS"})
INPLACE_OPS = frozenset({
    "ABS", "ADD", "CAST", "CEIL", "COS", "DEQUANTIZE", "DIV", "ELU", "EXP", "FLOOR", "GELU",
    "HARD_SWISH", "LEAKY_RELU", "LOG", "LOGICAL_AND", "LOGICAL_NOT", "LOGICAL_OR", "LOGISTIC",
    "MAXIMUM", "MINIMUM", "MUL", "NEG", "POW", "PRELU", "QUANTIZE", "RELU", "RELU6", "RELU_0_TO_1",
    "RELU_N1_TO_1", "ROUND", "RSQRT", "SIGN", "SIN", "SQRT", "SQUARE", "SQUARED_DIFFERENCE", "SUB",
    "TANH",
})
"""TFLite builtin ops whose output may overwrite input 0 (result 0, same shape and byte size).
Source: TFLite's element-wise unary and binary kernels (those its arena planner may share an
input's buffer with, ``kTfLiteInplaceOpInput0Shared``), kept only where output element ``i``
reads input element ``i`` alone. ``SOFTMAX``/``LOG_SOFTMAX`` read a whole row and are left out."""
_DTYPES = {
    0: "f32", 1: "f16", 2: "i32", 3: "ui8", 4: "i64", 6: "i1", 7: "i16", 9: "i8", 10: "f64",
    12: "ui64", 15: "ui32", 16: "ui16", 17: "i4", 18: "bf16",
}
_RESOURCE = 13


@dataclass
class _Tensor:
    name: str
    shape: tuple[int, ...]
    dtype: int
    constant: bool
    variable: bool
    signature: tuple[int, ...] = ()  # the shape with -1 for each dynamic dimension (or empty)

    @property
    def dynamic(self) -> bool:
        return any(d < 0 for d in self.signature)


@dataclass
class _Op:
    kind: str
    inputs: list[int]
    outputs: list[int]
    options: dict[str, object] = field(default_factory=dict)


@dataclass
class _Subgraph:
    name: str
    tensors: list[_Tensor]
    inputs: list[int]
    outputs: list[int]
    ops: list[_Op]


def _read(data: bytes) -> list[_Subgraph]:
    """The model's subgraphs as plain records (raises ModelImportError on any corruption)."""
    if len(data) < 8 or data[4:8] != b"TFL3":
        raise ModelImportError("not a TFLite model (no TFL3 flatbuffer identifier)")
    try:
        return _parse(data)
    except ModelImportError:
        raise
    except Exception as e:  # flatbuffers reads out of bounds as IndexError/struct.error...
        raise ModelImportError(f"malformed TFLite flatbuffer (truncated or corrupt): {type(e).__name__}: {e}") from None


def _parse(data: bytes) -> list[_Subgraph]:
    import tflite

    reader = _Reader(tflite.Model.GetRootAsModel(data, 0))
    subgraphs = [reader.subgraph(s) for s in range(reader.model.SubgraphsLength())]
    if not subgraphs:
        raise ModelImportError("malformed TFLite flatbuffer: the model has no subgraph")
    return subgraphs


class _Reader:
    """A TFLite flatbuffer read subgraph by subgraph: its tensors, its ops with their options."""

    def __init__(self, model) -> None:
        from tflite.BuiltinOperator import BuiltinOperator

        self.model = model
        self.n_buffers = model.BuffersLength()
        op_names = {v: k for k, v in vars(BuiltinOperator).items() if not k.startswith("_")}
        self.kinds = []
        for i in range(model.OperatorCodesLength()):
            c = model.OperatorCodes(i)
            code = max(c.BuiltinCode(), c.DeprecatedBuiltinCode())
            if code == BuiltinOperator.CUSTOM:
                custom = c.CustomCode()
                self.kinds.append(custom.decode("utf-8", "replace") if custom else "CUSTOM")
            else:
                self.kinds.append(op_names.get(code, f"BUILTIN_{code}"))

    def has_data(self, b: int) -> bool:
        if b <= 0 or b >= self.n_buffers:
            return False
        buf = self.model.Buffers(b)
        return buf.DataLength() > 0 or buf.Size() > 0

    def constant_ints(self, t) -> list[int] | None:
        """The values of a small constant int32/int64 tensor (a PAD's paddings, a TRANSPOSE's
        perm), or None."""
        b = t.Buffer()
        if not self.has_data(b) or t.Type() not in (2, 4):
            return None
        raw = self.model.Buffers(b).DataAsNumpy()
        if isinstance(raw, int):
            return None
        import numpy as np

        vals = np.frombuffer(raw.tobytes(), dtype=np.int32 if t.Type() == 2 else np.int64)
        return [int(v) for v in vals] if vals.size <= 64 else None

    def subgraph(self, s: int) -> _Subgraph:
        g = self.model.Subgraphs(s)
        tensors = [self.tensor(g, s, i) for i in range(g.TensorsLength())]
        ops = [self.op(g, s, o, tensors) for o in range(g.OperatorsLength())]
        gin = [int(x) for x in g.InputsAsNumpy()] if g.InputsLength() else []
        gout = [int(x) for x in g.OutputsAsNumpy()] if g.OutputsLength() else []
        # A tensor nobody writes that is not an input is constant too (e.g. an empty shape
        # operand whose buffer holds no bytes), unless it is a variable or a resource.
        written = set(gin) | {x for op in ops for x in op.outputs}
        for i, t in enumerate(tensors):
            if i not in written and not t.variable and t.dtype != _RESOURCE:
                t.constant = True
        gname = g.Name()
        return _Subgraph(gname.decode("utf-8", "replace") if gname else f"subgraph{s}", tensors, gin, gout, ops)

    def tensor(self, g, s: int, i: int) -> _Tensor:
        t = g.Tensors(i)
        shape = t.ShapeAsNumpy()
        shape = tuple(int(d) for d in shape) if not isinstance(shape, int) else ()
        signature = tuple(int(d) for d in t.ShapeSignatureAsNumpy()) if t.ShapeSignatureLength() else ()
        name = t.Name()
        return _Tensor(
            name.decode("utf-8", "replace") if name else f"sg{s}.t{i}",
            shape, t.Type(), self.has_data(t.Buffer()), bool(t.IsVariable()),
            signature if len(signature) == len(shape) else (),
        )

    def op(self, g, s: int, o: int, tensors: list[_Tensor]) -> _Op:
        op = g.Operators(o)
        idx = op.OpcodeIndex()
        if not 0 <= idx < len(self.kinds):
            raise ModelImportError(f"operator {o} of subgraph {s} has an invalid opcode index {idx}")
        kind = self.kinds[idx]
        ins = [int(x) for x in op.InputsAsNumpy()] if op.InputsLength() else []
        outs = [int(x) for x in op.OutputsAsNumpy()] if op.OutputsLength() else []
        for x in ins + outs:
            if x >= len(tensors) or x < -1:
                raise ModelImportError(f"operator {o} ({kind}) of subgraph {s} names tensor {x}, which does not exist")
        opts = _options(op)
        if kind in ("PAD", "PADV2") and len(ins) > 1 and ins[1] >= 0:
            paddings = self.constant_ints(g.Tensors(ins[1]))
            if paddings is not None and len(paddings) % 2 == 0:
                opts["pads"] = paddings[0::2] + paddings[1::2]  # [[b, e], ...] -> begins, then ends
        if kind == "TRANSPOSE" and len(ins) == 2 and min(ins) >= 0:
            perm = self.constant_ints(g.Tensors(ins[1]))
            if perm is not None and sorted(perm) == list(range(len(tensors[ins[0]].shape))):
                opts["perm"] = perm
        return _Op(kind, ins, outs, opts)


def _options(op) -> dict[str, object]:
    """The builtin options of ``op`` that the import reads (control flow's subgraphs, windows'
    padding, strides and activation, resize, block size, LRN, variable handles)."""
    import tflite
    from tflite.BuiltinOptions import BuiltinOptions

    table = op.BuiltinOptions()
    if table is None:
        return {}
    t = op.BuiltinOptionsType()
    if t == BuiltinOptions.IfOptions:
        o = tflite.IfOptions()
        o.Init(table.Bytes, table.Pos)
        return {"then": o.ThenSubgraphIndex(), "else": o.ElseSubgraphIndex()}
    if t == BuiltinOptions.WhileOptions:
        o = tflite.WhileOptions()
        o.Init(table.Bytes, table.Pos)
        return {"cond": o.CondSubgraphIndex(), "body": o.BodySubgraphIndex()}
    if t == BuiltinOptions.CallOnceOptions:
        o = tflite.CallOnceOptions()
        o.Init(table.Bytes, table.Pos)
        return {"init": o.InitSubgraphIndex()}
    if t in (BuiltinOptions.Conv2DOptions, BuiltinOptions.DepthwiseConv2DOptions):
        o = tflite.Conv2DOptions() if t == BuiltinOptions.Conv2DOptions else tflite.DepthwiseConv2DOptions()
        o.Init(table.Bytes, table.Pos)
        return {"padding": o.Padding(), "stride": (o.StrideH(), o.StrideW()),
                "dilation": (o.DilationHFactor() or 1, o.DilationWFactor() or 1),
                "activation": o.FusedActivationFunction()}
    if t == BuiltinOptions.Pool2DOptions:
        o = tflite.Pool2DOptions()
        o.Init(table.Bytes, table.Pos)
        return {"padding": o.Padding(), "stride": (o.StrideH(), o.StrideW()),
                "filter": (o.FilterHeight(), o.FilterWidth()), "activation": o.FusedActivationFunction()}
    if t in (BuiltinOptions.ResizeBilinearOptions, BuiltinOptions.ResizeNearestNeighborOptions):
        o = tflite.ResizeBilinearOptions() if t == BuiltinOptions.ResizeBilinearOptions else \
            tflite.ResizeNearestNeighborOptions()
        o.Init(table.Bytes, table.Pos)
        return {"align_corners": bool(o.AlignCorners()), "half_pixel_centers": bool(o.HalfPixelCenters())}
    if t in (BuiltinOptions.DepthToSpaceOptions, BuiltinOptions.SpaceToDepthOptions):
        o = tflite.DepthToSpaceOptions() if t == BuiltinOptions.DepthToSpaceOptions else tflite.SpaceToDepthOptions()
        o.Init(table.Bytes, table.Pos)
        return {"block_size": o.BlockSize()}
    if t == BuiltinOptions.LocalResponseNormalizationOptions:
        o = tflite.LocalResponseNormalizationOptions()
        o.Init(table.Bytes, table.Pos)
        return {"radius": o.Radius(), "bias": o.Bias(), "alpha": o.Alpha(), "beta": o.Beta()}
    if t == BuiltinOptions.VarHandleOptions:
        o = tflite.VarHandleOptions()
        o.Init(table.Bytes, table.Pos)
        c, s = o.Container(), o.SharedName()
        return {"container": (c or b"").decode(), "shared_name": (s or b"").decode()}
    return {}


def _signature_text(t: _Tensor) -> str:
    return "x".join("?" if d < 0 else str(d) for d in t.signature) or "a scalar"


def _dtype(t: _Tensor) -> str:
    try:
        return _DTYPES[t.dtype]
    except KeyError:
        from tflite.TensorType import TensorType

        names = {v: k for k, v in vars(TensorType).items() if not k.startswith("_")}
        raise ModelImportError(
            f"tensor '{t.name}': unsupported element type {names.get(t.dtype, t.dtype)}"
        ) from None


class TfliteReader:
    """Emits a TFLite model through a :class:`ModuleBuilder` (see module docstring)."""

    def __init__(self, path: str, input_shapes: dict[str, tuple[int, ...]]):
        data = read_model_file(path)
        self.sgs = _read(data)
        self.instances = 0
        given = self._given_shapes(input_shapes)
        if any(t.dynamic for g in self.sgs for t in g.tensors):
            self._apply(runtime_shapes(data, given, len(self.sgs)))
        self.var_of_handle, self.var_types = self._variables()

    def _given_shapes(self, input_shapes: dict[str, tuple[int, ...]]) -> dict[int, tuple[int, ...]]:
        """The ``--input-shape`` of every dynamic graph input, by tensor index: a shape must keep
        the input's rank and static dimensions, a static input's may only restate it, and the
        dynamic inputs left without one are refused together, with the flags that fix them."""
        main = self.sgs[0]
        names = [main.tensors[i].name for i in main.inputs]
        for name in input_shapes:
            if name not in names:
                raise ModelImportError(
                    f"--input-shape names '{name}', which is not a graph input (inputs: {', '.join(names)})"
                )
        given: dict[int, tuple[int, ...]] = {}
        missing: list[_Tensor] = []
        for i in main.inputs:
            t = main.tensors[i]
            shape = input_shapes.get(t.name)
            if shape is None:
                if t.dynamic:
                    missing.append(t)
                continue
            shape = tuple(shape)
            if not t.dynamic:
                if shape != t.shape:
                    raise ModelImportError(
                        f"--input-shape {t.name}={format_shape(shape)}: input '{t.name}' has the static "
                        f"shape {format_shape(t.shape)}"
                    )
                continue
            fixed = len(shape) == len(t.signature) and all(d < 0 or d == x for d, x in zip(t.signature, shape))
            if not fixed:
                raise ModelImportError(
                    f"--input-shape {t.name}={format_shape(shape)}: input '{t.name}' has the shape "
                    f"{_signature_text(t)} (? is dynamic)"
                )
            given[i] = shape
        if missing:
            what = "; ".join(f"'{t.name}' {_signature_text(t)}" for t in missing)
            fix = "".join(f" --input-shape {t.name}={format_shape(t.shape)}" for t in missing)
            raise ModelImportError(
                f"graph inputs with dynamic dimensions (? in their shape): {what}; make them static with "
                f"(the values are placeholders: use yours):{fix}"
            )
        return given

    def _apply(self, shapes: dict[tuple[int, int], tuple[int, ...]]) -> None:
        """Give every tensor the runtime's shape; a dynamic tensor the runtime did not size is
        refused (its placeholder would plan a wrong size silently)."""
        for s, g in enumerate(self.sgs):
            for i, t in enumerate(g.tensors):
                shape = shapes.get((s, i))
                if shape is not None and (len(shape) == len(t.shape) or t.dynamic):
                    t.shape = shape
                elif t.dynamic:
                    raise ModelImportError(
                        f"tensor '{t.name}' of subgraph '{g.name}' has dynamic dimensions "
                        f"{_signature_text(t)} that TFLite's runtime did not size"
                    )

    def _variables(self):
        """shared_name of every VAR_HANDLE output, and the tensor assigned to each variable."""
        var_of_handle: dict[tuple[int, int], str] = {}
        for s, g in enumerate(self.sgs):
            for op in g.ops:
                if op.kind == "VAR_HANDLE" and op.outputs:
                    name = str(op.options.get("shared_name") or "") or g.tensors[op.outputs[0]].name
                    var_of_handle[(s, op.outputs[0])] = name
        var_types: dict[str, _Tensor] = {}
        for s, g in enumerate(self.sgs):
            for op in g.ops:
                if op.kind == "ASSIGN_VARIABLE" and len(op.inputs) > 1:
                    name = var_of_handle.get((s, op.inputs[0]))
                    if name is not None:
                        var_types.setdefault(name, g.tensors[op.inputs[1]])
        return var_of_handle, var_types

    # ------------------------------------------------------------------ emission
    def build(self, b: ModuleBuilder):
        main = self.sgs[0]
        inst = self._new_instance()
        inputs = [self._key(b, inst, 0, i) for i in main.inputs]
        with b.function(inputs):
            outs = self._emit_subgraph(b, 0, inst, {})
            return b.finish(outs)

    def _new_instance(self) -> int:
        self.instances += 1
        return self.instances - 1

    def _key(self, b: ModuleBuilder, inst: int, s: int, i: int) -> Key:
        """The builder key of tensor ``i`` of subgraph ``s`` in instance ``inst`` (constants and
        variables are shared by all instances)."""
        t = self.sgs[s].tensors[i]
        handle = self.var_of_handle.get((s, i))
        key: Key
        if handle is not None:
            key = ("var", handle)
            if key not in b.decls:
                v = self.var_types.get(handle)
                if v is None:
                    b.declare(key, handle, (0,), "i8")
                else:
                    b.declare(key, handle, v.shape, _dtype(v))
                b.add_global(key, {"variable": UnitAttr()})
            return key
        if t.constant or t.variable:
            key = ("const", s, i)
            if key not in b.decls:
                b.declare(key, t.name, t.shape, _dtype(t))
                b.add_global(key, {"variable": UnitAttr()} if t.variable and not t.constant else None)
            return key
        key = (inst, s, i)
        if key not in b.decls:
            if t.dtype == _RESOURCE:
                raise ModelImportError(f"resource tensor '{t.name}' is not produced by a VAR_HANDLE")
            b.declare(key, t.name, t.shape, _dtype(t))
        return key

    def _emit_subgraph(self, b: ModuleBuilder, s: int, inst: int, bound: dict[int, Key]) -> list[Key]:
        """Emit subgraph ``s``'s ops into the current block; ``bound`` maps its input tensors to
        outer keys. Returns the keys of its outputs."""
        g = self.sgs[s]

        def key(i: int) -> Key:
            return bound[i] if i in bound else self._key(b, inst, s, i)

        for op in g.ops:
            ins = [key(i) for i in op.inputs if i >= 0]
            outs = [key(i) for i in op.outputs if i >= 0]
            self._emit_op(b, s, op, ins, outs)
        return [key(i) for i in g.outputs]

    def _subgraph_index(self, op: _Op, what: str) -> int:
        idx = op.options.get(what)
        if not isinstance(idx, int) or not 0 <= idx < len(self.sgs):
            raise ModelImportError(f"{op.kind} refers to subgraph {idx}, which does not exist")
        return idx

    def _bind(self, s: int, values: list[Key]) -> dict[int, Key]:
        g = self.sgs[s]
        if len(values) != len(g.inputs):
            raise ModelImportError(
                f"subgraph '{g.name}' takes {len(g.inputs)} inputs but is given {len(values)}"
            )
        return dict(zip(g.inputs, values))

    def _emit_op(self, b: ModuleBuilder, s: int, op: _Op, ins: list[Key], outs: list[Key]) -> None:
        kind = op.kind
        if kind == "VAR_HANDLE":
            return  # the handle is the variable's memopt.global, read where used
        if kind == "CALL_ONCE":
            init = self._subgraph_index(op, "init")
            self._emit_subgraph(b, init, self._new_instance(), {})
            return
        if kind == "IF":
            then_s, else_s = self._subgraph_index(op, "then"), self._subgraph_index(op, "else")

            def branch(sub: int):
                return lambda: self._emit_subgraph(b, sub, self._new_instance(), self._bind(sub, ins[1:]))

            b.if_(ins[0], outs, [branch(then_s), branch(else_s)])
            return
        if kind == "WHILE":
            cond_s, body_s = self._subgraph_index(op, "cond"), self._subgraph_index(op, "body")
            inst = self._new_instance()
            body_g = self.sgs[body_s]
            if len(body_g.inputs) != len(ins):
                raise ModelImportError(f"WHILE body '{body_g.name}' takes {len(body_g.inputs)} inputs, given {len(ins)}")
            args = [self._key(b, inst, body_s, i) for i in body_g.inputs]

            def body():
                self._emit_subgraph(b, cond_s, self._new_instance(), self._bind(cond_s, args))
                return self._emit_subgraph(b, body_s, inst, dict(zip(body_g.inputs, args)))

            b.loop(None, ins, args, body, outs)
            return
        if kind in VIEW_OPS and len(ins) >= 1 and len(outs) == 1 and all(b.is_global(k) for k in ins[1:]):
            b.view(kind, ins[0], outs[0])
            return
        if kind == "TRANSPOSE" and "perm" in op.options:
            ins = ins[:1]  # the constant perm is its attribute (as ONNX's Transpose has it)
        b.compute(kind, ins, outs, cost=self._cost(b, kind, ins, outs), inplace=kind in INPLACE_OPS,
                  attributes=self._window(b, op, ins, outs))

    @staticmethod
    def _window(b: ModuleBuilder, op: _Op, ins: list[Key], outs: list[Key]):
        """A conv / depthwise / pooling op's window, a constant pad's paddings, a resize's,
        depth-to-space's, LRN's parameters or a constant transpose's perm (:mod:`memopt.importers.windows`)."""
        if op.kind in ("PAD", "PADV2") and "pads" in op.options and ins:
            if len(op.options["pads"]) == 2 * len(b.decl(ins[0]).shape):  # type: ignore[arg-type]
                return pad_attributes(op.options["pads"])  # type: ignore[arg-type]
            return None
        if op.kind in TFLITE_RESHAPING and ins and outs:
            return tflite_reshaping(op.kind, op.options) or None
        if op.kind not in TFLITE_CONV | TFLITE_POOL or not ins or not outs:
            return None
        w = b.decl(ins[1]).shape if len(ins) > 1 else None
        return tflite_window(op.kind, op.options, b.decl(ins[0]).shape, w, b.decl(outs[0]).shape) or None

    @staticmethod
    def _cost(b: ModuleBuilder, kind: str, ins: list[Key], outs: list[Key]) -> int:
        shapes_in = [b.decl(k).shape for k in ins]
        shapes_out = [b.decl(k).shape for k in outs]
        out0 = shapes_out[0] if shapes_out else ()
        if kind in ("CONV_2D", "CONV_3D") and len(shapes_in) > 1 and shapes_in[1]:
            return conv_macs(out0, num_elements(shapes_in[1][1:]))
        if kind == "DEPTHWISE_CONV_2D" and len(shapes_in) > 1 and len(shapes_in[1]) == 4:
            return conv_macs(out0, shapes_in[1][1] * shapes_in[1][2])
        if kind == "TRANSPOSE_CONV" and len(shapes_in) > 2 and len(shapes_in[1]) == 4:
            w = shapes_in[1]
            return conv_macs(shapes_in[2], w[0] * w[1] * w[2])
        if kind == "FULLY_CONNECTED" and len(shapes_in) > 1 and shapes_in[1]:
            return matmul_macs(out0, shapes_in[1][-1])
        if kind == "BATCH_MATMUL" and shapes_in and shapes_in[0]:
            return matmul_macs(out0, shapes_in[0][-1])
        return elementwise(shapes_out, shapes_in[0] if shapes_in else None)


def import_tflite(path: str, input_shapes: dict[str, tuple[int, ...]] | None = None):
    """Import a TFLite model file; returns ``(module, builder)``."""
    reader = TfliteReader(path, dict(input_shapes or {}))
    b = ModuleBuilder()
    module = reader.build(b)
    return module, b


__all__ = ["INPLACE_OPS", "TfliteReader", "VIEW_OPS", "import_tflite"]
