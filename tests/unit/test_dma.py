"""insert-dma, report-latency and verify-plan's DMA checks on generated programs.

Programs are random nestings of ops (0-2 weights, some through views), ``if``s and loops, so
the properties below are exercised on straight-line code, branches of different sizes, nested
control flow and loop bodies alike.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import builtin

from memopt.diagnostics import LocatedParser, MemoptError
from memopt.dialects.plan_attr_names import ONCHIP_SIZE_ATTR, PLAN_ATTR
from memopt.dialects.memopt import ComputeOp, DmaBufferOp, DmaStartOp, DmaWaitOp, byte_size
from memopt.passes.dma_layout import layout_after_arena
from memopt.passes.dma_profile import global_size, offchip_profile, op_profile, weight_uses
from memopt.passes.dma_regions import cut_function, regions
from memopt.passes.dma_safety import check_dma_safety
from memopt.passes.insert_dma import InsertDmaPass, stage_layout
from memopt.passes.plan_memory import PlanMemoryPass
from memopt.passes.report_latency import function_latency, region_timing
from memopt.passes.verify_plan import VerifyPlanPass
from memopt.planning.latency import Target, choose_pipelined, pingpong_items, simulate
from memopt.dialects.context import make_context as _make_context

ACT = "tensor<64xi8>"


def generate(seed: int) -> str:
    """A random well-formed program (see module docstring)."""
    rng = random.Random(seed)
    globals_: list[str] = []
    counter = [0]

    def fresh(p: str) -> str:
        counter[0] += 1
        return f"{p}{counter[0]}"

    def weight(lines: list[str], ind: str) -> str:
        n = rng.choice([16, 64, 256, 1024, 4096, 16384])
        g = fresh("w")
        if rng.random() < 0.25:
            globals_.append(f"  memopt.global @{g} : tensor<{2 * n}xi8>")
            v = fresh("g")
            lines.append(f"{ind}%{v} = memopt.get_global @{g} : tensor<{2 * n}xi8>")
            u = fresh("v")
            lines.append(f"{ind}%{u} = memopt.view %{v}[offset {n}] : tensor<{2 * n}xi8> -> tensor<{n}xi8>")
            return f"%{u}:tensor<{n}xi8>"
        globals_.append(f"  memopt.global @{g} : tensor<{n}xi8>")
        v = fresh("g")
        lines.append(f"{ind}%{v} = memopt.get_global @{g} : tensor<{n}xi8>")
        return f"%{v}:tensor<{n}xi8>"

    def block(x: str, ind: str, depth: int) -> tuple[list[str], str]:
        lines: list[str] = []
        for _ in range(rng.randint(0 if depth else 1, 4)):
            r = rng.random()
            if r < 0.15 and depth < 2:
                c = fresh("r")
                then, t = block(x, ind + "  ", depth + 1)
                other, e = block(x, ind + "  ", depth + 1)
                lines.append(f"{ind}%{c} = memopt.if %c : tensor<i1> -> ({ACT}) {{")
                lines += then + [f"{ind}  memopt.yield {t} : {ACT}", f"{ind}}} else {{"]
                lines += other + [f"{ind}  memopt.yield {e} : {ACT}", f"{ind}}}"]
                x = f"%{c}"
            elif r < 0.25 and depth < 2:
                lp, a = fresh("l"), fresh("acc")
                body, b = block(f"%{a}", ind + "  ", depth + 1)
                lines.append(f"{ind}%{lp} = memopt.loop {rng.randint(1, 4)} iter_args(%{a} = {x}) : {ACT} {{")
                lines += body + [f"{ind}  memopt.yield {b} : {ACT}", f"{ind}}}"]
                x = f"%{lp}"
            else:
                ws = [weight(lines, ind) for _ in range(rng.choice([0, 1, 1, 1, 2]))]
                vals = [x] + [w.split(":")[0] for w in ws]
                types = [ACT] + [w.split(":")[1] for w in ws]
                y = fresh("y")
                cost = rng.choice([64, 4096, 100_000, 2_000_000])
                lines.append(
                    f'{ind}%{y} = memopt.compute "op"({", ".join(vals)}) {{cost = {cost} : i64}} '
                    f': ({", ".join(types)}) -> {ACT}'
                )
                x = f"%{y}"
        return lines, x

    body, out = block("%x", "    ", 0)
    return "\n".join(
        ["builtin.module {", *globals_, f"  func.func @main(%x: {ACT}, %c: tensor<i1>) -> {ACT} {{", *body,
         f"    func.return {out} : {ACT}", "  }", "}"]
    )


def parse(text: str) -> builtin.ModuleOp:
    module = LocatedParser(_make_context(), text, "gen").parse_module()
    module.verify()
    return module


def run(module: builtin.ModuleOp, *passes) -> builtin.ModuleOp:
    ctx = _make_context()
    for p in passes:
        p.apply(ctx, module)
        module.verify()
    return module


def main_func(module):
    return next(op for op in module.walk() if getattr(op, "sym_name", None) is not None and op.name == "func.func")


seeds = st.integers(0, 10**6)


@settings(max_examples=40, deadline=None)
@given(seeds, st.sampled_from([2, 3, 4]))
def test_schedule_is_the_model_and_parity_alternates(seed, n):
    """Op k of a Region uses @alloc{k % n}; the emitted order is the model's schedule."""
    text = generate(seed)
    before = parse(text)
    f0 = main_func(before)
    # What the model decides per Region, from the untouched IR.
    expected = {}
    for r in regions(cut_function(f0, "@main")):
        ops = [o for o in r.ops if isinstance(o, ComputeOp)]
        profiles = [offchip_profile(o) for o in ops]
        expected[r.name] = (profiles, choose_pipelined(profiles, Target(), "always", None, n))
    module = run(parse(text), InsertDmaPass(mode="always", buffers=n))
    f = main_func(module)
    # no compute op reads off-chip any more (unused get_globals/views stay: the arena
    # numbering counts them)
    assert all(u.on_chip for o in f.walk() if isinstance(o, ComputeOp) for u in weight_uses(o))
    sizes = {f"alloc{j}": 0 for j in range(n)}
    for r in regions(cut_function(f, "@main")):
        profiles, mask = expected[r.name]
        # The emitted order is exactly the model's schedule.
        assert region_timing(r, Target()).pingpong == simulate(pingpong_items(profiles, mask, n), Target())
        k = 0
        for o in r.ops:
            if not isinstance(o, ComputeOp):
                continue
            uses = weight_uses(o)
            assert all(u.on_chip for u in uses)
            if not uses:
                continue
            dsts = {u.chain[-1].token.owner.dst.root_reference.data for u in uses}
            assert dsts == {f"alloc{k % n}"}
            _, span = stage_layout(list(op_profile(o).weights), 16)
            sizes[f"alloc{k % n}"] = max(sizes[f"alloc{k % n}"], span)
            k += 1
    bufs = {b.sym_name.data: b.size.value.data for b in module.walk() if isinstance(b, DmaBufferOp)}
    assert bufs == {k: v for k, v in sizes.items() if k in bufs}
    assert set(bufs) == {k for k, v in sizes.items() if v > 0} or not any(sizes.values())


@settings(max_examples=25, deadline=None)
@given(seeds, st.sampled_from(["always", "auto"]), st.sampled_from([2, 3, 5]))
def test_either_order_verifies_and_agrees(seed, mode, n):
    text = generate(seed)
    a = run(parse(text), InsertDmaPass(mode=mode, buffers=n), PlanMemoryPass(), VerifyPlanPass())
    b = run(parse(text), PlanMemoryPass(), InsertDmaPass(mode=mode, buffers=n), VerifyPlanPass())
    # DMA ops take no step in the arena's lifetime analysis, so the planner sees the same
    # problem in both orders: the same IR up to the order of attributes on skipped ops.
    def norm(m):
        return str(m).replace(", memopt.dma_skipped", "").replace("memopt.dma_skipped, ", "")

    assert norm(a) == norm(b)
    assert str(a).count("memopt.dma_skipped") == str(b).count("memopt.dma_skipped")
    for m in (a, b):
        bufs = [o for o in m.walk() if isinstance(o, DmaBufferOp)]
        if not bufs:
            assert ONCHIP_SIZE_ATTR not in m.attributes
            continue
        arena = main_func(m).attributes[PLAN_ATTR].arena_size.data
        offsets, end = layout_after_arena(arena, [b.size.value.data for b in bufs], 16)
        assert [b.attributes["memopt.onchip_offset"].value.data for b in bufs] == offsets
        assert m.attributes[ONCHIP_SIZE_ATTR].value.data == end


@settings(max_examples=25, deadline=None)
@given(seeds, st.sampled_from([2, 3, 4]))
def test_auto_is_never_slower_than_serial(seed, n):
    text = generate(seed)
    module = run(parse(text), InsertDmaPass(mode="auto", buffers=n))
    rows, total = function_latency(main_func(module), Target())
    for row in rows:
        assert row.timing.pingpong <= row.timing.serial
    assert total.pingpong <= total.serial
    always_rows, always_total = function_latency(main_func(run(parse(text), InsertDmaPass(mode="always", buffers=n))), Target())
    assert total.pingpong <= always_total.pingpong


@settings(max_examples=25, deadline=None)
@given(seeds, st.sampled_from([2, 3, 4]), st.data())
def test_a_misplaced_dma_start_is_caught(seed, n, data):
    """Hoisting any dma_start above the previous op of its Region that reads its buffer breaks
    the schedule, and the checker says so (a test that can fail: the unmutated IR passes),
    with two staging buffers as with n (a start issued as soon as its buffer is free is safe,
    one op earlier is not)."""
    module = run(parse(generate(seed)), InsertDmaPass(mode="always", buffers=n))
    f = main_func(module)
    check_dma_safety(f)
    def span(start: DmaStartOp) -> tuple[int, int]:
        return start.offset.value.data, start.offset.value.data + global_size(start)

    def clobbers(s: DmaStartOp, reader: ComputeOp) -> bool:
        lo, hi = span(s)
        for u in weight_uses(reader):
            other = u.chain[-1].token.owner
            a = other.offset.value.data + u.offset  # the bytes the operand (a view) reads
            b = a + byte_size(reader.operands[u.operand].type)
            if u.on_chip and other.dst == s.dst and a < hi and lo < b:
                return True
        return False

    candidates = []
    for s in (o for o in f.walk() if isinstance(o, DmaStartOp)):
        block = s.parent_block()
        prev = s.prev_op
        while prev is not None:
            if isinstance(prev, ComputeOp) and clobbers(s, prev):
                candidates.append((s, prev, block))
                break
            prev = prev.prev_op
    if not candidates:
        return
    s, reader, block = data.draw(st.sampled_from(candidates))
    s.detach()
    block.insert_op_before(s, reader)
    with pytest.raises(MemoptError):
        check_dma_safety(f)


def test_op_without_weights_and_loop_body_regions():
    text = generate(7)
    module = run(parse(text), InsertDmaPass(mode="always"))
    names = [r.name for r in regions(cut_function(main_func(module), "@main"))]
    assert names[0] == "@main/0" and len(names) == len(set(names))
    for r in regions(cut_function(main_func(module), "@main")):
        for o in r.ops:
            if isinstance(o, DmaWaitOp):
                # no transfer crosses a Region boundary
                assert o.token.owner in r.ops


# ------------------------------------------------------------------ ring=BYTES|auto


def _ring_option(seed: int, data) -> int | str:
    """``auto`` or a ring size between the largest weight set and unlimited look-ahead."""
    from memopt.planning.ring import unlimited_ring, weight_span

    f = main_func(parse(generate(seed)))
    spans, full = [16], 16
    for r in regions(cut_function(f, "@main")):
        profiles = [offchip_profile(o) for o in r.ops if isinstance(o, ComputeOp)]
        mask = [bool(p.weights) for p in profiles]
        spans += [weight_span(p, 16) for p in profiles if p.weights]
        full = max(full, unlimited_ring(profiles, mask, 16))
    return data.draw(st.one_of(st.just("auto"), st.integers(max(spans), max(full, max(spans)))))


@settings(max_examples=30, deadline=None)
@given(seeds, st.sampled_from(["always", "auto"]), st.data())
def test_ring_schedule_is_the_model_and_verifies(seed, mode, data):
    """insert-dma{ring}: one @ring buffer, the emitted order is exactly the model's ring
    schedule (ring_items), verify-plan accepts it in either pass order and both agree, auto
    is never slower than serial, and no transfer crosses a Region boundary."""
    from memopt.planning.ring import ring_items

    ring = _ring_option(seed, data)
    text = generate(seed)
    module = run(parse(text), InsertDmaPass(mode=mode, ring=ring))
    f = main_func(module)
    bufs = {b.sym_name.data: b.size.value.data for b in module.walk() if isinstance(b, DmaBufferOp)}
    assert set(bufs) <= {"ring"}
    if isinstance(ring, int) and bufs:
        assert bufs["ring"] == ring
    for r in regions(cut_function(f, "@main")):
        ops = [o for o in r.ops if isinstance(o, ComputeOp)]
        profiles = [op_profile(o) for o in ops]
        mask = [all(u.on_chip for u in weight_uses(o)) and bool(weight_uses(o)) for o in ops]
        if bufs:
            expected = simulate(ring_items(profiles, mask, bufs["ring"]), Target())
            assert region_timing(r, Target()).pingpong == expected
        for o in r.ops:
            if isinstance(o, DmaWaitOp):
                assert o.token.owner in r.ops
    rows, total = function_latency(f, Target())
    if mode == "auto":
        assert total.pingpong <= total.serial and all(row.timing.pingpong <= row.timing.serial for row in rows)
    a = run(parse(text), InsertDmaPass(mode=mode, ring=ring), PlanMemoryPass(), VerifyPlanPass())
    b = run(parse(text), PlanMemoryPass(), InsertDmaPass(mode=mode, ring=ring), VerifyPlanPass())

    def norm(m):
        return str(m).replace(", memopt.dma_skipped", "").replace("memopt.dma_skipped, ", "")

    assert norm(a) == norm(b)


@settings(max_examples=25, deadline=None)
@given(seeds, st.data())
def test_a_misplaced_ring_dma_start_is_caught(seed, data):
    """Hoisting a ring dma_start above the last earlier op reading any byte it overwrites is
    reported by verify-plan's byte-precise check (the unmutated schedule passes)."""
    ring = _ring_option(seed, data)
    module = run(parse(generate(seed)), InsertDmaPass(mode="always", ring=ring))
    f = main_func(module)
    check_dma_safety(f)
    candidates = []
    for s in (o for o in f.walk() if isinstance(o, DmaStartOp)):
        lo, hi = s.offset.value.data, s.offset.value.data + global_size(s)
        prev = s.prev_op
        while prev is not None:
            if isinstance(prev, ComputeOp) and any(
                u.on_chip and u.chain[-1].token.owner.dst == s.dst
                and (a := u.chain[-1].token.owner.offset.value.data + u.offset) < hi
                and lo < a + byte_size(prev.operands[u.operand].type)
                for u in weight_uses(prev)
            ):
                candidates.append((s, prev))
                break
            prev = prev.prev_op
    if not candidates:
        return
    s, reader = data.draw(st.sampled_from(candidates))
    block = s.parent_block()
    s.detach()
    block.insert_op_before(s, reader)
    with pytest.raises(MemoptError):
        check_dma_safety(f)


def _largest_span(text: str) -> int:
    from memopt.passes.dma_profile import largest_weight_set

    return max(largest_weight_set(main_func(parse(text))), 16)


@pytest.mark.parametrize("seed", [3, 7, 11, 19, 23, 42])
@pytest.mark.parametrize("ring", ["auto", "tight"])
def test_ring_programs_execute_identically(seed, ring):
    """memopt-run's check: ring-scheduled programs, planned, compute what the unplanned ones do
    (both DMA landing models), so the ring's reuse of bytes never clobbers live weights. "tight":
    a ring as small as the largest weight set, so that most loads wrap and overwrite others."""
    from memopt.executor import check_module

    text = generate(seed)
    size = _largest_span(text) if ring == "tight" else ring
    module = run(parse(text), InsertDmaPass(mode="always", ring=size), PlanMemoryPass(), VerifyPlanPass())
    assert "memopt.dma_start" in str(module)
    assert check_module(module, seed=0)
