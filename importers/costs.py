"""Compute-cost estimates for imported ops (the ``cost`` attribute read by the DMA latency model).

The estimate is deliberately simple and format-independent: multiply-accumulates for the ops
that dominate run time (convolutions, matrix products), and the number of produced elements for
everything else (elementwise ops, activations, pooling, copies). The readers map their own op
names onto these shapes, so ONNX ``Conv`` and TFLite ``CONV_2D`` get the same figure.
"""

from __future__ import annotations

from collections.abc import Sequence

from .common import num_elements


def conv_macs(out_shape: Sequence[int], macs_per_output: int) -> int:
    """A convolution: every output element needs ``macs_per_output`` MACs
    (``Cin/groups × kernel area``; ``kernel area`` alone for a depthwise convolution)."""
    return num_elements(out_shape) * max(1, macs_per_output)


def matmul_macs(out_shape: Sequence[int], k: int) -> int:
    """A (batched) matrix product or fully connected layer with reduction length ``k``."""
    return num_elements(out_shape) * max(1, k)


def elementwise(out_shapes: Sequence[Sequence[int]], in_shape: Sequence[int] | None = None) -> int:
    """Everything else: one unit per produced element, or per element of the first input when
    that is larger (reductions and pooling read more than they write)."""
    produced = sum(num_elements(s) for s in out_shapes)
    return max(produced, num_elements(in_shape)) if in_shape is not None else produced


__all__ = ["conv_macs", "elementwise", "matmul_macs"]
