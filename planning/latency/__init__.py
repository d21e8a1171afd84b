"""IR-free latency model of ping-pong DMA of weights (the LUNA control-flow paper, Algorithm 3).

Why a model at all: whether double buffering pays off depends on how long each op computes
versus how long its weights take to arrive. The insertion pass uses this module to decide what
to pipeline (``mode=auto``), the report pass and ``bench/dma.py`` use it to say how well the
schedule overlaps, and all three must agree, so the arithmetic lives here, once, without xDSL.

The machine (:class:`Target`): one compute core doing ``macs_per_cycle`` MACs per cycle, one DMA
channel that moves ``dma_bytes_per_cycle`` after a start-up ``dma_latency``, transfers served in
issue order. An op's compute time is ``c = ceil(macs / macs_per_cycle)``; one transfer of ``b``
bytes takes ``latency + ceil(b / bandwidth)``; an op's DMA time ``d`` is the sum over its weights.

* **serial** — the op reads its weights from off-chip memory itself, then computes:
  ``T_serial = sum(c_i + d_i)``.
* **ping-pong** — what :func:`pingpong_items` emits (the exact op order ``insert-dma`` writes):
  the first pipelined op's loads start at the Region's beginning; before pipelined op ``k``
  computes, the core waits for its loads and then issues the loads of op ``k+1`` into the other
  buffer, so they overlap op ``k``'s compute. Every asynchronous transfer costs the core
  ``dma_issue`` cycles (programming the descriptor, the completion handshake); that overhead is
  why pipelining can lose on small ops. :func:`simulate` plays the schedule out.
* **bound** — ``T_lb = max(sum(c) + d_first, sum(d) + c_last)``: the first op cannot start
  before its weights arrive, the last cannot start before every transfer is done.
* **efficiency** — ``eta = (T_serial - T) / (T_serial - T_lb)``: the share of the possible
  overlap a schedule achieves (``None`` when there is nothing to overlap).

Modules: ``target.py`` (the machine and its description files), ``schedule.py`` (ops, schedule
items and the ping-pong schedule), ``simulator.py`` (plays a schedule out), ``timing.py`` (the
figures above), ``policy.py`` (which ops to pipeline).
"""

from .policy import MODES, choose_pipelined
from .schedule import Item, OpProfile, Run, Start, Wait, check_buffers, pingpong_items
from .simulator import Event, simulate
from .target import TARGET_KEYS, LatencyError, Target, load_target, parse_target
from .timing import Timing, efficiency, lower_bound_time, region_timing, serial_time

__all__ = [
    "Event", "Item", "LatencyError", "check_buffers", "MODES", "OpProfile", "Run", "Start", "TARGET_KEYS", "Target", "Timing",
    "Wait", "choose_pipelined", "efficiency", "load_target", "lower_bound_time", "parse_target",
    "pingpong_items", "region_timing", "serial_time", "simulate",
]
