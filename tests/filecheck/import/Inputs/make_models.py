"""Writes the small models the import FileCheck tests read (built with onnx.helper; the sine
model is copied out of the installed tflite-micro package). Usage: make_models.py OUTDIR"""

import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP, helper, numpy_helper


def save(graph, path, opset=17):
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), path)


def zeros(name, shape, dtype=np.float32):
    return numpy_helper.from_array(np.zeros(shape, dtype), name)


def conv(out):
    nodes = [
        helper.make_node("Conv", ["image:0", "conv/w", "conv/b"], ["conv/out:0"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv/out:0"], ["relu_1"]),
        helper.make_node("Flatten", ["relu_1"], ["flat"]),
        helper.make_node("Gemm", ["flat", "fc/w"], ["logits"], transB=1),
    ]
    g = helper.make_graph(
        nodes, "conv",
        [helper.make_tensor_value_info("image:0", TP.FLOAT, ["batch", 3, 4, 4])],
        [helper.make_tensor_value_info("logits", TP.FLOAT, None)],
        [zeros("conv/w", (8, 3, 3, 3)), zeros("conv/b", (8,)), zeros("fc/w", (10, 128))],
    )
    save(g, os.path.join(out, "conv.onnx"))


def branch(name, nodes, out):
    return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(out, TP.FLOAT, None)])


def control_flow(out):
    inner = helper.make_node(
        "If", ["c2"], ["e_out"],
        then_branch=branch("inner_then", [helper.make_node("Mul", ["x", "pre"], ["it"])], "it"),
        else_branch=branch("inner_else", [helper.make_node("Sub", ["pre", "x"], ["ie"])], "ie"))
    outer = helper.make_node(
        "If", ["c"], ["mid"],
        then_branch=branch("then", [helper.make_node("Tile", ["x", "reps"], ["big"]),
                                    helper.make_node("Reshape", ["big", "s44"], ["big2"]),
                                    helper.make_node("ReduceMax", ["big2"], ["t_out"], axes=[0], keepdims=0)], "t_out"),
        else_branch=branch("else", [inner], "e_out"))
    body = helper.make_graph(
        [helper.make_node("Identity", ["cin"], ["cout"]),
         helper.make_node("Add", ["acc", "mid"], ["acc2"]),
         helper.make_node("Neg", ["acc2"], ["elem"])],
        "body",
        [helper.make_tensor_value_info("i", TP.INT64, []), helper.make_tensor_value_info("cin", TP.BOOL, []),
         helper.make_tensor_value_info("acc", TP.FLOAT, [4])],
        [helper.make_tensor_value_info("cout", TP.BOOL, []), helper.make_tensor_value_info("acc2", TP.FLOAT, [4]),
         helper.make_tensor_value_info("elem", TP.FLOAT, [4])])
    nodes = [helper.make_node("Relu", ["x"], ["pre"]), outer,
             helper.make_node("Loop", ["trips", "", "pre"], ["final", "all"], body=body),
             helper.make_node("Add", ["final", "pre"], ["y"])]
    g = helper.make_graph(
        nodes, "cf",
        [helper.make_tensor_value_info("x", TP.FLOAT, [4]), helper.make_tensor_value_info("c", TP.BOOL, []),
         helper.make_tensor_value_info("c2", TP.BOOL, [])],
        [helper.make_tensor_value_info("y", TP.FLOAT, [4]), helper.make_tensor_value_info("all", TP.FLOAT, None)],
        [numpy_helper.from_array(np.array([4], np.int64), "reps"),
         numpy_helper.from_array(np.array([4, 4], np.int64), "s44"),
         numpy_helper.from_array(np.array([0], np.int64), "ax0"),
         numpy_helper.from_array(np.array(5, np.int64), "trips")])
    save(g, os.path.join(out, "control_flow.onnx"))


def static_if(out):
    # cond = (Size(x) == 4): known once x's shape is given. The then branch runs for 4
    # elements; the else branch (Reshape to 3 rows) cannot even be shaped for them.
    nodes = [helper.make_node("Size", ["x"], ["sz"]),
             helper.make_node("Equal", ["sz", "four"], ["c"]),
             helper.make_node("If", ["c"], ["y"],
                              then_branch=branch("then", [helper.make_node("Neg", ["x"], ["t_out"])], "t_out"),
                              else_branch=branch("else", [helper.make_node("Reshape", ["x", "rows3"], ["e_out"])], "e_out")),
             helper.make_node("Relu", ["y"], ["z"])]
    g = helper.make_graph(
        nodes, "static_if", [helper.make_tensor_value_info("x", TP.FLOAT, ["n"])],
        [helper.make_tensor_value_info("z", TP.FLOAT, None)],
        [numpy_helper.from_array(np.array(4, np.int64), "four"),
         numpy_helper.from_array(np.array([3, -1], np.int64), "rows3")])
    save(g, os.path.join(out, "static_if.onnx"))


def bad(out):
    data = open(os.path.join(out, "conv.onnx"), "rb").read()
    open(os.path.join(out, "truncated.onnx"), "wb").write(data[: len(data) // 2])
    open(os.path.join(out, "garbage.onnx"), "wb").write(b"\x07\xff\xfe not a model \x00" * 8)
    open(os.path.join(out, "garbage.tflite"), "wb").write(b"\x00\x00\x00\x00TFL3" + b"\xff" * 32)


def sine(out):
    import tflite_micro

    src = os.path.join(os.path.dirname(tflite_micro.__file__), "python", "tflite_micro", "sine_float.tflite")
    shutil.copy(src, os.path.join(out, "sine.tflite"))


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    conv(out)
    control_flow(out)
    static_if(out)
    bad(out)
    sine(out)
