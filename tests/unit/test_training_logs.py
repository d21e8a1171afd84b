"""Eager training-iteration logs (planning/training_logs.py): what a real PyTorch log has — in-place
ops, multi-output ops, views, arguments, autograd's schedule — checked on the logs themselves, and
their printed programs parsed, traced back to the same graph, planned and proven by execution."""

from __future__ import annotations

from functools import lru_cache

import pytest
from xdsl.dialects import func
from xdsl.parser import Parser

from memopt.api import context
from memopt.dialects.memopt import ComputeOp
from memopt.executor import check_function
from memopt.passes.plan_memory import PlanMemoryPass
from memopt.passes.remat_trace import remat_graph
from memopt.planning.remat import RematGraph, RematOp, live_peak
from memopt.planning.training_logs import LOGS, SMALL, TrainingLog, logs_to_mlir

ARCHS = sorted(LOGS)


@lru_cache(maxsize=None)
def log(arch: str, seed: int = 0, small: bool = False) -> TrainingLog:
    return LOGS[arch](seed, **(SMALL[arch] if small else {}))


def producers(g: RematGraph) -> dict[int, int]:
    return {t: k for k, op in enumerate(g.ops) for t in op.outputs}


def last_reads(g: RematGraph) -> dict[int, int]:
    return {t: k for k, op in enumerate(g.ops) for t in op.inputs}


def parse(text: str):
    ctx = context()
    m = Parser(ctx, text).parse_module()
    m.verify()
    return ctx, m, next(o for o in m.body.block.ops if isinstance(o, func.FuncOp))


# ------------------------------------------------------------------------------ the logs


@pytest.mark.parametrize("arch", ARCHS)
def test_default_logs_are_a_few_hundred_ops_in_a_valid_schedule(arch: str) -> None:
    for seed in range(3):
        g = log(arch, seed)
        assert isinstance(g, TrainingLog) and g.arch == arch
        assert 150 <= len(g.ops) <= 1500, (arch, seed, len(g.ops))
        assert g.inputs == tuple(range(len(g.inputs)))  # arguments first, then results in op order
        seen = set(g.inputs)
        for op in g.ops:
            assert set(op.inputs) <= seen, op.name  # topological
            assert not set(op.outputs) & seen  # every tensor written once
            seen.update(op.outputs)
        assert seen == set(range(len(g.sizes)))
        assert all(s > 0 for s in g.sizes) and all(s % 4 == 0 or s == 1 for s in g.sizes)
        assert 0 < g.forward_ops < len(g.ops) and live_peak(g) > 0


@pytest.mark.parametrize("arch", ARCHS)
def test_same_seed_same_log_other_seeds_other_logs(arch: str) -> None:
    assert LOGS[arch](3) == log(arch, 3)
    logs = [log(arch, s) for s in range(4)]
    assert len({(g.sizes, tuple(op.cost for op in g.ops)) for g in logs}) == 4
    assert len({g.kinds[:4] for g in logs}) == 1  # same kind of network
    assert LOGS[arch](0, **SMALL[arch]).knobs == tuple(SMALL[arch].items())  # a given knob wins


@pytest.mark.parametrize("arch", ARCHS)
def test_backward_reads_forward_activations_long_after(arch: str) -> None:
    g = log(arch)
    prod = producers(g)
    fwd = {t for k in range(g.forward_ops) for t in g.ops[k].outputs}
    saved = {t for op in g.ops[g.forward_ops:] for t in op.inputs if t in fwd}
    assert saved  # the backward reads what the forward saved
    assert all(prod[t] < g.forward_ops for t in saved)
    last = last_reads(g)
    assert max(last[t] - prod[t] for t in saved) >= 100  # read hundreds of ops later
    assert g.kinds[g.forward_ops] == "ones_like"  # the loss gradient seeds the backward
    assert g.kinds[g.forward_ops - 1].startswith("nll_loss")


@pytest.mark.parametrize("arch", ARCHS)
def test_inplace_outputs_take_an_input_that_dies_there(arch: str) -> None:
    g = log(arch)
    last = last_reads(g)
    n_inplace = 0
    for k, op in enumerate(g.ops):
        assert bool(op.inplace) == g.kinds[k].endswith("_"), g.kinds[k]
        for j, (y, x) in enumerate(zip(op.outputs, op.inplace or ())):
            if x < 0:
                continue
            n_inplace += 1
            assert x in op.inputs and x in g.operands[k]  # read directly, not through a view
            assert g.sizes[y] <= g.sizes[x]
            assert last[x] == k and x not in g.outputs  # its value dies at this op
            assert g.operands[k][g.inplace_operands(k)[j]] == x
    assert n_inplace > 0
    kinds = set(g.kinds)
    assert "sgd_" in kinds and "add_" in kinds
    if arch in ("resnet", "densenet", "inception", "unet"):
        prod = producers(g)
        relus = [k for k, kd in enumerate(g.kinds) if kd == "relu_"]
        assert relus and all(g.kinds[prod[g.ops[k].inputs[0]]] in ("native_batch_norm", "add_") for k in relus)
    if arch == "transformer":
        assert "masked_fill_" in kinds


@pytest.mark.parametrize("arch", ARCHS)
def test_every_parameter_is_updated_in_place_once_and_returned(arch: str) -> None:
    g = log(arch)
    prod = producers(g)
    sgd = {g.ops[k].inputs[0]: k for k, kd in enumerate(g.kinds) if kd == "sgd_"}
    assert set(sgd) == set(g.params) and len(sgd) == g.kinds.count("sgd_")
    for p, k in sgd.items():
        op = g.ops[k]
        assert op.inplace == (p,)
        grad = op.inputs[1]
        assert prod[grad] >= g.forward_ops and prod[grad] < k  # a gradient of the backward
        assert max(i for i, o in enumerate(g.ops) if p in o.inputs) == k  # nothing reads it later
    loss = [t for t in g.outputs if g.kinds[prod[t]].startswith("nll_loss")]
    assert len(loss) == 1 and g.sizes[loss[0]] == 4
    assert set(g.outputs) == {g.ops[k].outputs[0] for k in sgd.values()} | set(loss)


@pytest.mark.parametrize("arch", ARCHS)
def test_arguments_include_a_one_byte_scalar_labels_and_no_recomputable_tensor(arch: str) -> None:
    g = log(arch)
    prod = producers(g)
    assert not set(g.inputs) & set(prod)  # arguments: nothing computes them
    assert any(g.sizes[t] == 1 and g.dtypes[t] == "i8" for t in g.inputs)
    assert "labels" in {g.names[t] for t in g.inputs}
    assert set(g.params) < set(g.inputs)
    data = [t for t in g.inputs if t not in g.params and g.sizes[t] > 1]
    assert data  # the input batch (or token ids), labels, state


@pytest.mark.parametrize("arch", ARCHS)
def test_multi_output_ops_and_what_their_backward_reads(arch: str) -> None:
    g = log(arch)
    multi = [k for k, op in enumerate(g.ops) if len(op.outputs) > 1]
    assert multi
    norm = "native_layer_norm" if arch == "transformer" else "native_batch_norm"
    if arch != "lstm":
        norms = [k for k, kd in enumerate(g.kinds) if kd == norm]
        assert norms
        for k in norms:
            y, mean, inv = g.ops[k].outputs
            assert g.sizes[mean] == g.sizes[inv] and g.sizes[mean] * 8 <= g.sizes[y]
            if arch != "transformer":
                c = g.shapes[y][1]
                assert g.sizes[mean] == 4 * c  # channels x 4 bytes
        for k, kd in enumerate(g.kinds):
            if kd == norm + "_backward":
                x, w, mean, inv = g.operands[k][1:]
                fk = producers(g)[mean]
                assert g.ops[fk].inputs[:2] == (g.root(x), w) and g.ops[fk].outputs[1:] == (mean, inv)
    else:
        cells = [k for k, kd in enumerate(g.kinds) if kd == "_thnn_fused_lstm_cell"]
        assert cells and all(len(g.ops[k].outputs) == 3 for k in cells)  # h, c, saved gates
        ws = {g.ops[k].outputs[2] for k in cells}
        assert all(any(w in op.inputs for op in g.ops[g.forward_ops:]) for w in ws)


@pytest.mark.parametrize("arch", ARCHS)
def test_views_of_activations_and_of_arguments(arch: str) -> None:
    g = log(arch)
    n = len(g.sizes)
    args = set(g.inputs)
    of_args = [j for j in range(len(g.views)) if g.root(n + j) in args]
    of_acts = [j for j in range(len(g.views)) if g.root(n + j) not in args]
    assert of_args and of_acts
    for j, v in enumerate(g.views):
        assert v.offset >= 0 and v.offset + v.size <= g.value_size(v.source)
        assert v.source < n + j  # a view of an earlier value
    read_through = {v for ops in g.operands[g.forward_ops:] for v in ops if v >= n}
    fwd_view_roots = {g.root(n + j) for j in of_acts if g.views[j].before < g.forward_ops}
    assert read_through  # the backward reads through views (a transposed operand, a gradient's slice)
    if arch != "unet":  # its only forward view (flattened logits) is not saved: log_softmax saves its output
        # the backward reads, through views, activations the forward viewed (a flattened input of fc)
        assert any(g.root(v) in fwd_view_roots for v in read_through)
    if arch in ("transformer", "lstm", "densenet"):
        assert any(v.offset > 0 for v in g.views)  # slices (chunk, unbind, cat's gradient)


# ------------------------------------------------------------------------------ as IR


def _same_graph(traced: RematGraph, g: TrainingLog) -> None:
    assert traced.sizes == g.sizes
    assert traced.inputs == g.inputs and traced.outputs == g.outputs
    assert [op.cost for op in traced.ops] == [op.cost for op in g.ops]
    assert [op.inputs for op in traced.ops] == [op.inputs for op in g.ops]
    assert [op.outputs for op in traced.ops] == [op.outputs for op in g.ops]
    if any(op.inplace for op in traced.ops):  # the tracer reads the inplace hint
        assert [op.inplace for op in traced.ops] == [op.inplace for op in g.ops]


@pytest.mark.parametrize("arch", ARCHS)
def test_printed_small_log_traces_back_plans_and_is_proven(arch: str) -> None:
    g = log(arch, 1, small=True)
    text = logs_to_mlir(g, numeric=True)  # SSA names as converted logs have them (readable: below)
    ctx, m, f = parse(text)
    assert "%arg0" in text and "%0 = " in text
    _same_graph(remat_graph(f).graph, g)
    # multi-result ops print as '%a, %b = ...', views with their offsets, inplace by operand index
    assert any(len(op.results) == 3 for op in f.body.block.ops if isinstance(op, ComputeOp))
    PlanMemoryPass().apply(ctx, m)
    check_function(m, f)  # what memopt-run --check does: planned against unplanned execution
    offsets = {r: off for op in f.body.block.ops if "memopt.offsets" in op.attributes
               for r, off in zip(op.results, op.attributes["memopt.offsets"].get_values())}
    taken = [op for op in f.body.block.ops if isinstance(op, ComputeOp)
             and any(j >= 0 and offsets.get(op.inputs[j]) == offsets.get(op.outputs[r])
                     for r, j in enumerate(op.inplace_indices()))]
    assert taken  # the plan does put some in-place results over their input


def test_a_default_log_prints_with_readable_names_and_traces_back() -> None:
    g = log("unet", 0)
    text = logs_to_mlir(g)
    assert "%arg0" not in text and "%inc.conv1.weight: tensor<" in text
    _, _, f = parse(text)
    _same_graph(remat_graph(f).graph, g)


def test_logs_to_mlir_prints_a_plain_remat_graph() -> None:
    g = RematGraph((4, 1, 8, 8), (RematOp("mix", 3.0, (0, 1), (2,)), RematOp("relu_", 2.0, (2,), (3,), inplace=(2,))),
                   inputs=(0, 1), outputs=(3,))
    text = logs_to_mlir(g)
    assert "tensor<1xi8>" in text and "inplace = array<i64: 0>" in text
    _, _, f = parse(text)
    _same_graph(remat_graph(f).graph, TrainingLog(g.sizes, g.ops, g.inputs, g.outputs))
