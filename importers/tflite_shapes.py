"""The static shapes of a TFLite model with dynamic dimensions, from TFLite's own runtime.

A TFLite file stores a placeholder shape (``1`` for each dynamic dimension) beside the
``shape_signature`` that marks the dimension dynamic (``-1``); the placeholders say nothing about
the sizes a given input shape gives. TFLite itself computes them op by op when an input is
resized (``ResizeInputTensor``, then each kernel's ``Prepare`` and, for outputs whose shape
depends on a value, ``Eval``). Rather than restate the shape rules of every builtin op, memopt
asks the runtime: the interpreter of ``ai-edge-litert`` (or the older ``tflite-runtime``) is
resized to the user's input shapes and run once on zeros, and every tensor of the main subgraph
reports its shape (the tensors of control-flow subgraphs too, where the runtime lists them:
as the run on zeros left them).
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator

import numpy as np

from .common import ModelImportError, format_shape

INSTALL_HINT = "pip install ai-edge-litert"


def _interpreter_class():
    """TFLite's Python interpreter, from whichever runtime package is installed (or None)."""
    try:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType
    except ImportError:
        try:
            from tflite_runtime.interpreter import Interpreter, OpResolverType
        except ImportError:
            return None, None
    return Interpreter, OpResolverType


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """The runtime's C++ logging writes to file descriptor 2 ("INFO: Created TensorFlow Lite
    ... delegate"): a tool's standard error carries memopt's own diagnostics only."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def runtime_shapes(
    data: bytes, input_shapes: dict[int, tuple[int, ...]], n_subgraphs: int,
) -> dict[tuple[int, int], tuple[int, ...]]:
    """The shape of every tensor the runtime lists, by (subgraph, tensor index), once the inputs
    of subgraph 0 given by index have the given shapes (raises ModelImportError when no runtime
    is installed or it refuses the model)."""
    interpreter_class, resolver = _interpreter_class()
    if interpreter_class is None:
        raise ModelImportError(
            "the model has dynamic dimensions, whose sizes for the given --input-shape only TFLite's "
            f"runtime computes, and no TFLite runtime is installed: {INSTALL_HINT}"
        )
    try:
        with _quiet_stderr():
            it = interpreter_class(
                model_content=data, experimental_preserve_all_tensors=True,
                experimental_op_resolver_type=resolver.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
            )
            for index, shape in input_shapes.items():
                it.resize_tensor_input(index, list(shape), strict=True)
            it.allocate_tensors()
            for d in it.get_input_details():
                it.set_tensor(d["index"], np.zeros(tuple(int(x) for x in d["shape"]), d["dtype"]))
            it.invoke()
            shapes = _tensor_shapes(it, n_subgraphs)
    except ModelImportError:
        raise
    except Exception as e:  # noqa: BLE001 - the runtime's refusal, reported as the model's
        given = ", ".join(format_shape(s) for s in input_shapes.values())
        raise ModelImportError(
            f"TFLite's runtime cannot run the model at input shape {given}: {' '.join(str(e).split())[:300]}"
        ) from None
    return shapes


def _tensor_shapes(it, n_subgraphs: int) -> dict[tuple[int, int], tuple[int, ...]]:
    """Every listed tensor's shape; a runtime without per-subgraph listing gives subgraph 0."""
    shapes: dict[tuple[int, int], tuple[int, ...]] = {}
    for s in range(n_subgraphs):
        try:
            details = it.get_tensor_details(subgraph_index=s)
        except TypeError:  # tflite-runtime: the main subgraph only
            if s:
                break
            details = it.get_tensor_details()
        except ValueError:  # a subgraph the runtime does not list
            continue
        for d in details:
            shapes[(s, int(d["index"]))] = tuple(int(x) for x in d["shape"])
    return shapes


__all__ = ["INSTALL_HINT", "runtime_shapes"]
