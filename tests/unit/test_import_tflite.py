"""TFLite importer: tiny flatbuffers built here with the ``tflite`` package's builders, plus the
sine model shipped inside ``tflite-micro``. No network."""

from __future__ import annotations

import os

import flatbuffers
import pytest
import tflite
from tflite.BuiltinOperator import BuiltinOperator
from tflite.BuiltinOptions import BuiltinOptions
from xdsl.context import Context
from xdsl.dialects import func

from memopt.dialects.memopt import ComputeOp, GetGlobalOp, GlobalOp, IfOp, LoopOp, ViewOp
from memopt.importers.api import import_model
from memopt.importers.common import ModelImportError
from memopt.passes.plan_memory import PlanMemoryPass
from memopt.passes.verify_plan import VerifyPlanPass
from memopt.tools.importer import main as import_main

F32, I32, BOOL, I8, RES = 0, 2, 6, 9, 13


def build_tflite(path, subgraphs, n_const_bytes=None, payloads=None):
    """Write a TFLite model. ``subgraphs``: list of dicts with ``tensors`` =
    [(name, shape, dtype, is_constant[, shape_signature])], ``inputs``, ``outputs`` and ``ops`` =
    [(builtin name, inputs, outputs, options)] where options is None or
    ("if", then, else) / ("while", cond, body) / ("call_once", init) / ("var", shared_name).
    ``payloads``: a constant tensor's bytes by name (default: four zero bytes)."""
    b = flatbuffers.Builder(1024)
    codes: list[str] = []
    for sg in subgraphs:
        for op in sg["ops"]:
            if op[0] not in codes:
                codes.append(op[0])
    # buffers: 0 = empty sentinel, one per constant tensor
    const_payloads = []
    for sg in subgraphs:
        for t in sg["tensors"]:
            if t[3]:
                const_payloads.append((payloads or {}).get(t[0], bytes(4)))

    def ivec(start, values):
        start(b, len(values))
        for v in reversed(values):
            b.PrependInt32(v)
        return b.EndVector()

    def options(opt):
        kind = opt[0]
        if kind == "if":
            tflite.IfOptionsStart(b)
            tflite.IfOptionsAddThenSubgraphIndex(b, opt[1])
            tflite.IfOptionsAddElseSubgraphIndex(b, opt[2])
            return BuiltinOptions.IfOptions, tflite.IfOptionsEnd(b)
        if kind == "while":
            tflite.WhileOptionsStart(b)
            tflite.WhileOptionsAddCondSubgraphIndex(b, opt[1])
            tflite.WhileOptionsAddBodySubgraphIndex(b, opt[2])
            return BuiltinOptions.WhileOptions, tflite.WhileOptionsEnd(b)
        if kind == "call_once":
            tflite.CallOnceOptionsStart(b)
            tflite.CallOnceOptionsAddInitSubgraphIndex(b, opt[1])
            return BuiltinOptions.CallOnceOptions, tflite.CallOnceOptionsEnd(b)
        if kind == "var":
            s = b.CreateString(opt[1])
            tflite.VarHandleOptionsStart(b)
            tflite.VarHandleOptionsAddSharedName(b, s)
            return BuiltinOptions.VarHandleOptions, tflite.VarHandleOptionsEnd(b)
        raise ValueError(kind)

    buf_index = 1
    sg_offsets = []
    for sg in subgraphs:
        t_offsets = []
        for name, shape, dtype, const, *signature in sg["tensors"]:
            n = b.CreateString(name)
            shp = ivec(tflite.TensorStartShapeVector, list(shape))
            sig = ivec(tflite.TensorStartShapeSignatureVector, list(signature[0])) if signature else None
            tflite.TensorStart(b)
            tflite.TensorAddShape(b, shp)
            if sig is not None:
                tflite.TensorAddShapeSignature(b, sig)
            tflite.TensorAddType(b, dtype)
            tflite.TensorAddName(b, n)
            if const:
                tflite.TensorAddBuffer(b, buf_index)
                buf_index += 1
            t_offsets.append(tflite.TensorEnd(b))
        op_offsets = []
        for kind, ins, outs, opt in sg["ops"]:
            iv = ivec(tflite.OperatorStartInputsVector, ins)
            ov = ivec(tflite.OperatorStartOutputsVector, outs)
            o_type = o_off = None
            if opt is not None:
                o_type, o_off = options(opt)
            tflite.OperatorStart(b)
            tflite.OperatorAddOpcodeIndex(b, codes.index(kind))
            tflite.OperatorAddInputs(b, iv)
            tflite.OperatorAddOutputs(b, ov)
            if o_type is not None:
                tflite.OperatorAddBuiltinOptionsType(b, o_type)
                tflite.OperatorAddBuiltinOptions(b, o_off)
            op_offsets.append(tflite.OperatorEnd(b))
        tflite.SubGraphStartTensorsVector(b, len(t_offsets))
        for o in reversed(t_offsets):
            b.PrependUOffsetTRelative(o)
        tv = b.EndVector()
        tflite.SubGraphStartOperatorsVector(b, len(op_offsets))
        for o in reversed(op_offsets):
            b.PrependUOffsetTRelative(o)
        opv = b.EndVector()
        iv = ivec(tflite.SubGraphStartInputsVector, sg["inputs"])
        ov = ivec(tflite.SubGraphStartOutputsVector, sg["outputs"])
        tflite.SubGraphStart(b)
        tflite.SubGraphAddTensors(b, tv)
        tflite.SubGraphAddOperators(b, opv)
        tflite.SubGraphAddInputs(b, iv)
        tflite.SubGraphAddOutputs(b, ov)
        sg_offsets.append(tflite.SubGraphEnd(b))
    code_offsets = []
    for c in codes:
        code = getattr(BuiltinOperator, c)
        tflite.OperatorCodeStart(b)
        tflite.OperatorCodeAddBuiltinCode(b, code)
        tflite.OperatorCodeAddDeprecatedBuiltinCode(b, min(code, 127))
        tflite.OperatorCodeAddVersion(b, 1)
        code_offsets.append(tflite.OperatorCodeEnd(b))
    buffer_offsets = []
    for payload in [b""] + const_payloads:
        data = None
        if payload:
            b.StartVector(1, len(payload), 1)
            for byte in reversed(payload):
                b.PrependUint8(byte)
            data = b.EndVector()
        tflite.BufferStart(b)
        if data is not None:
            tflite.BufferAddData(b, data)
        buffer_offsets.append(tflite.BufferEnd(b))

    def table_vec(start, offs):
        start(b, len(offs))
        for o in reversed(offs):
            b.PrependUOffsetTRelative(o)
        return b.EndVector()

    sgv = table_vec(tflite.ModelStartSubgraphsVector, sg_offsets)
    cv = table_vec(tflite.ModelStartOperatorCodesVector, code_offsets)
    bv = table_vec(tflite.ModelStartBuffersVector, buffer_offsets)
    tflite.ModelStart(b)
    tflite.ModelAddVersion(b, 3)
    tflite.ModelAddSubgraphs(b, sgv)
    tflite.ModelAddOperatorCodes(b, cv)
    tflite.ModelAddBuffers(b, bv)
    b.Finish(tflite.ModelEnd(b), file_identifier=b"TFL3")
    with open(path, "wb") as f:
        f.write(b.Output())
    return path


def ops_of(module, cls):
    return [op for op in module.walk() if isinstance(op, cls)]


def plan_rows(module, tmp_path):
    csv = tmp_path / "plan.csv"
    PlanMemoryPass(alignment=1, export=str(csv)).apply(Context(), module)
    VerifyPlanPass().apply(Context(), module)
    rows = {}
    for line in csv.read_text().splitlines()[1:]:
        name, lo, hi, size, off = line.split(",")
        rows[name] = (int(lo), int(hi), int(size), int(off))
    return rows


# --------------------------------------------------------------------------- plain graphs


def test_sine_model_shipped_by_tflite_micro(tmp_path):
    tflm = pytest.importorskip("tflite_micro")
    pytest.importorskip("ai_edge_litert")
    path = os.path.join(os.path.dirname(tflm.__file__), "python", "tflite_micro", "sine_float.tflite")
    with pytest.raises(ModelImportError, match="'serving_default_dense_input:0' \\?x1;"):
        import_model(path)  # its batch dimension is dynamic
    r = import_model(path, {"serving_default_dense_input:0": (1, 1)})
    comps = ops_of(r.module, ComputeOp)
    assert [c.kind.data for c in comps] == ["FULLY_CONNECTED"] * 3
    # FC cost = output elements x reduction length (the weight's last dimension)
    for c in comps:
        w = c.inputs[1].type.get_shape()
        out = c.outputs[0].type.get_shape()
        assert c.cost.value.data == out[0] * out[1] * w[-1]
    # weights and biases are off-chip globals, read through get_global
    assert len(ops_of(r.module, GlobalOp)) == 6
    assert all(isinstance(c.inputs[1].owner, GetGlobalOp) for c in comps)
    f = ops_of(r.module, func.FuncOp)[0]
    assert [str(t) for t in f.function_type.inputs.data] == ["tensor<1x1xf32>"]
    rows = plan_rows(r.module, tmp_path)
    assert sum(1 for _ in rows) == 4  # argument + three activations
    batched = import_model(path, {"serving_default_dense_input:0": (8, 1)})
    assert [c.outputs[0].type.get_shape() for c in ops_of(batched.module, ComputeOp)] == [(8, 16), (8, 16), (8, 1)]


def test_chain_names_sizes_views_inplace(tmp_path):
    path = build_tflite(tmp_path / "chain.tflite", [{
        "tensors": [
            ("in/x:0", (1, 8), F32, False),      # 0
            ("w", (4, 8), F32, True),            # 1
            ("fc", (1, 4), F32, False),          # 2
            ("relu", (1, 4), F32, False),        # 3
            ("shape", (1,), I32, True),          # 4
            ("flat", (4,), F32, False),          # 5
            ("q", (4,), I8, False),              # 6
        ],
        "inputs": [0], "outputs": [6],
        "ops": [
            ("FULLY_CONNECTED", [0, 1, -1], [2], None),
            ("RELU", [2], [3], None),
            ("RESHAPE", [3, 4], [5], None),
            ("QUANTIZE", [5], [6], None),
        ],
    }])
    r = import_model(str(path))
    text = str(r.module)
    assert '%in.x.0: tensor<1x8xf32> {memopt.name = "in/x:0"}' in text
    relu = [c for c in ops_of(r.module, ComputeOp) if c.kind.data == "RELU"][0]
    assert relu.inplace_indices() == (0,)
    quant = [c for c in ops_of(r.module, ComputeOp) if c.kind.data == "QUANTIZE"][0]
    assert quant.inplace_indices() == (-1,)  # 16 bytes of f32 -> 4 bytes of i8: not the same size
    (view,) = ops_of(r.module, ViewOp)
    assert view.source is relu.outputs[0]
    rows = plan_rows(r.module, tmp_path)
    assert rows["q"][2] == 4 and rows["fc"][2] == 16 and rows["in/x:0"][2] == 32  # the model's name, not %in.x.0
    assert "flat" not in rows  # a view has no storage of its own
    # the view keeps relu's buffer alive until QUANTIZE reads it
    assert rows["relu"][1] == rows["q"][0] + 1


def test_transpose_reads_its_constant_perm_and_fuses_into_a_channel_shuffle(tmp_path):
    """TFLite's TRANSPOSE takes its perm as a constant input: the importer reads it into the
    ``perm`` attribute (as ONNX's Transpose has it), so a reshape/transpose/reshape channel
    shuffle fuses; a perm that is not a permutation of the input's axes stays an input."""
    import numpy as np

    from memopt.passes.tile_shuffle import fuse_channel_shuffles

    def model(name, perm):
        return build_tflite(tmp_path / name, [{
            "tensors": [
                ("x", (1, 4, 4, 6), F32, False),      # 0
                ("split", (5,), I32, True),           # 1
                ("mid", (1, 4, 4, 2, 3), F32, False),  # 2
                ("perm", (5,), I32, True),            # 3
                ("t", (1, 4, 4, 3, 2), F32, False),   # 4
                ("merge", (4,), I32, True),           # 5
                ("y", (1, 4, 4, 6), F32, False),      # 6
            ],
            "inputs": [0], "outputs": [6],
            "ops": [
                ("RESHAPE", [0, 1], [2], None),
                ("TRANSPOSE", [2, 3], [4], None),
                ("RESHAPE", [4, 5], [6], None),
            ],
        }], payloads={"split": np.array([1, 4, 4, 2, 3], np.int32).tobytes(),
                      "perm": np.array(perm, np.int32).tobytes(),
                      "merge": np.array([1, 4, 4, 6], np.int32).tobytes()})

    r = import_model(str(model("shuffle.tflite", [0, 1, 2, 4, 3])))
    (t,) = [c for c in ops_of(r.module, ComputeOp) if c.kind.data == "TRANSPOSE"]
    assert len(t.inputs) == 1 and list(t.attributes["perm"].get_values()) == [0, 1, 2, 4, 3]
    f = ops_of(r.module, func.FuncOp)[0]
    assert fuse_channel_shuffles(f) == 1
    (shuffle,) = ops_of(r.module, ComputeOp)
    assert shuffle.kind.data == "channel_shuffle" and shuffle.attributes["layout"].data == "NHWC"
    assert shuffle.attributes["groups"].value.data == 2

    r = import_model(str(model("bad.tflite", [0, 1, 2, 4, 9])))
    (t,) = [c for c in ops_of(r.module, ComputeOp) if c.kind.data == "TRANSPOSE"]
    assert len(t.inputs) == 2 and "perm" not in t.attributes


# --------------------------------------------------------------------------- control flow


def _if_model(tmp_path):
    # main: c = GREATER(x, k); y = IF(c, x) then: big = x*x (1x64 tmp) else: identity
    return build_tflite(tmp_path / "if.tflite", [
        {
            "tensors": [("x", (1, 16), F32, False), ("k", (1, 16), F32, True),
                        ("c", (), BOOL, False), ("y", (1, 16), F32, False)],
            "inputs": [0], "outputs": [3],
            "ops": [("GREATER", [0, 1], [2], None), ("IF", [2, 0], [3], ("if", 1, 2))],
        },
        {   # then: tmp = x*x ; out = tmp + x
            "tensors": [("a", (1, 16), F32, False), ("tmp", (1, 16), F32, False), ("out", (1, 16), F32, False)],
            "inputs": [0], "outputs": [2],
            "ops": [("MUL", [0, 0], [1], None), ("ADD", [1, 0], [2], None)],
        },
        {   # else: return the input unchanged
            "tensors": [("a", (1, 16), F32, False)],
            "inputs": [0], "outputs": [0], "ops": [],
        },
    ])


def test_if_subgraphs_become_regions_reading_outer_values(tmp_path):
    r = import_model(str(_if_model(tmp_path)))
    (if_op,) = ops_of(r.module, IfOp)
    then_ops = [op.name for op in if_op.then_region.block.ops]
    assert then_ops == ["memopt.compute", "memopt.compute", "memopt.yield"]
    x = ops_of(r.module, func.FuncOp)[0].body.block.args[0]
    mul = next(iter(if_op.then_region.block.ops))
    assert mul.operands[0] is x  # the branch input is the outer value itself
    assert if_op.else_region.block.last_op.operands[0] is x
    rows = plan_rows(r.module, tmp_path)
    # x is read inside the branch: it must live until the if ends (>= the if result's start)
    assert rows["x"][1] > rows["tmp"][1] - 1


def test_while_becomes_loop_with_cond_and_body(tmp_path):
    path = build_tflite(tmp_path / "while.tflite", [
        {
            "tensors": [("x", (4,), F32, False), ("y", (4,), F32, False)],
            "inputs": [0], "outputs": [1],
            "ops": [("WHILE", [0], [1], ("while", 1, 2))],
        },
        {   # cond: s = SUM-ish (LESS against constant)
            "tensors": [("v", (4,), F32, False), ("lim", (4,), F32, True), ("ok", (4,), BOOL, False)],
            "inputs": [0], "outputs": [2],
            "ops": [("LESS", [0, 1], [2], None)],
        },
        {   # body: v2 = v + v
            "tensors": [("v", (4,), F32, False), ("v2", (4,), F32, False)],
            "inputs": [0], "outputs": [1],
            "ops": [("ADD", [0, 0], [1], None)],
        },
    ])
    r = import_model(str(path))
    (loop,) = ops_of(r.module, LoopOp)
    assert "unknown_trip_count" in loop.attributes and loop.trip_count.value.data == 1
    kinds = [op.kind.data for op in loop.body.block.ops if isinstance(op, ComputeOp)]
    assert kinds == ["LESS", "ADD"]
    arg = loop.body.block.args[0]
    assert all(op.operands[0] is arg for op in loop.body.block.ops if isinstance(op, ComputeOp))
    plan_rows(r.module, tmp_path)


def test_call_once_and_resource_variables(tmp_path):
    path = build_tflite(tmp_path / "state.tflite", [
        {
            "tensors": [("x", (1, 4), I8, False), ("h", (), RES, False), ("s", (1, 4), I8, False),
                        ("y", (1, 4), I8, False)],
            "inputs": [0], "outputs": [3],
            "ops": [
                ("CALL_ONCE", [], [], ("call_once", 1)),
                ("VAR_HANDLE", [], [1], ("var", "stream_state")),
                ("READ_VARIABLE", [1], [2], None),
                ("ADD", [0, 2], [3], None),
                ("ASSIGN_VARIABLE", [1, 3], [], None),
            ],
        },
        {
            "tensors": [("h0", (), RES, False), ("zeros", (1, 4), I8, True)],
            "inputs": [], "outputs": [],
            "ops": [("VAR_HANDLE", [], [0], ("var", "stream_state")), ("ASSIGN_VARIABLE", [0, 1], [], None)],
        },
    ])
    r = import_model(str(path))
    var = [g for g in ops_of(r.module, GlobalOp) if g.sym_name.data == "stream_state"]
    assert len(var) == 1 and "variable" in var[0].attributes
    assert str(var[0].type) == "tensor<1x4xi8>"
    kinds = [c.kind.data for c in ops_of(r.module, ComputeOp)]
    # the init subgraph is inlined first, then the main ops in order
    assert kinds == ["ASSIGN_VARIABLE", "READ_VARIABLE", "ADD", "ASSIGN_VARIABLE"]
    rows = plan_rows(r.module, tmp_path)
    assert "stream_state" not in rows  # persistent state is off the arena


# --------------------------------------------------------------------------- errors


def test_bad_files_give_one_line_errors(tmp_path, capsys):
    good = _if_model(tmp_path)
    data = good.read_bytes()
    trunc = tmp_path / "trunc.tflite"
    trunc.write_bytes(data[: len(data) // 3])
    garbage = tmp_path / "garbage.tflite"
    garbage.write_bytes(b"\x00" * 4 + b"TFL3" + b"\xff" * 40)
    notflite = tmp_path / "text.tflite"
    notflite.write_text("hello")
    for path, msg in [
        (trunc, "malformed TFLite flatbuffer"),
        (garbage, "malformed TFLite flatbuffer"),
        (notflite, "not a TFLite model"),
        (tmp_path / "missing.tflite", "no such file"),
    ]:
        assert import_main([str(path)]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"memopt-import: error: {path}: {msg}"), err
        assert err.count("\n") == 1


def test_input_shape_must_match_static_tflite_shapes(tmp_path):
    path = str(_if_model(tmp_path))
    with pytest.raises(ModelImportError, match="input 'x' has the static shape 1x16"):
        import_model(path, {"x": (2, 16)})
    with pytest.raises(ModelImportError, match="not a graph input"):
        import_model(path, {"nope": (1,)})
    assert import_model(path, {"x": (1, 16)}).ops > 0


# --------------------------------------------------------------------------- dynamic dimensions


def _dynamic_model(tmp_path):
    """x: ?x4 and y: 2x? (signatures with -1; the file's shapes hold placeholders 1);
    r = RELU(x); s = ADD(r, x) ?x4; t = EXP(y) 2x?."""
    return build_tflite(tmp_path / "dyn.tflite", [{
        "tensors": [("x", (1, 4), F32, False, (-1, 4)), ("r", (1, 4), F32, False, (-1, 4)),
                    ("s", (1, 4), F32, False, (-1, 4)), ("y", (2, 1), F32, False, (2, -1)),
                    ("t", (2, 1), F32, False, (2, -1))],
        "inputs": [0, 3], "outputs": [2, 4],
        "ops": [("RELU", [0], [1], None), ("ADD", [1, 0], [2], None), ("EXP", [3], [4], None)],
    }])


def test_dynamic_inputs_are_refused_together_with_the_flags_that_fix_them(tmp_path, capsys):
    path = str(_dynamic_model(tmp_path))
    with pytest.raises(ModelImportError) as e:
        import_model(path, {"y": (2, 3)})
    assert "'x' ?x4" in str(e.value) and "'y'" not in str(e.value)
    assert import_main([path]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "graph inputs with dynamic dimensions (? in their shape): 'x' ?x4; 'y' 2x?;" in err
    assert err.rstrip().endswith("--input-shape x=1x4 --input-shape y=2x1")
    with pytest.raises(ModelImportError, match=r"input 'x' has the shape \?x4 \(\? is dynamic\)"):
        import_model(path, {"x": (3, 5), "y": (2, 1)})
    with pytest.raises(ModelImportError, match="no names; give each dynamic input its shape with --input-shape"):
        import_model(path, {"x": (3, 4), "y": (2, 1)}, dims={"batch": 1})


def test_dynamic_input_shapes_size_every_tensor_by_the_tflite_runtime(tmp_path):
    pytest.importorskip("ai_edge_litert")
    path = str(_dynamic_model(tmp_path))
    r = import_model(path, {"x": (3, 4), "y": (2, 5)})
    text = str(r.module)
    assert "%x: tensor<3x4xf32>" in text and "%y: tensor<2x5xf32>" in text
    assert "-> (tensor<3x4xf32>" in text and "tensor<2x5xf32> {memopt.name = \"t\"}" in text
    rows = plan_rows(r.module, tmp_path)
    assert rows["r"][2] == 48 and rows["t"][2] == 40  # sized by the given shapes, not the placeholders
    # the flag's placeholders are themselves accepted
    assert "tensor<1x4xf32>" in str(import_model(path, {"x": (1, 4), "y": (2, 1)}).module)


def test_dynamic_shapes_without_a_runtime_say_what_to_install(tmp_path, monkeypatch):
    import memopt.importers.tflite_shapes as shapes

    monkeypatch.setattr(shapes, "_interpreter_class", lambda: (None, None))
    with pytest.raises(ModelImportError, match="no TFLite runtime is installed: pip install ai-edge-litert"):
        import_model(str(_dynamic_model(tmp_path)), {"x": (3, 4), "y": (2, 5)})
