"""The IR checks every tool runs on the program it reads, each error located at its op.

xDSL's verification stops at the module with an unlocated message, and does not check what a
plan relies on: that every use follows its definition, that every size fits in 64 bits.
:func:`verify_located` verifies op by op (innermost first, each error located at the op) and
then checks type sizes, dominance and the block structure.
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import MemRefType, ModuleOp, TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import DiagnosticException

from memopt.planning.numbers import INT64_MAX

from .errors import MemoptError
from .isolation import linear_isolation
from .walk import walk, walk_regions_first
from .wording import clear_wording, exception_message


def check_dominance(module: ModuleOp) -> None:
    """Reject SSA uses that do not follow their definition (xDSL does not check dominance).

    Every value used by an op must be defined earlier in the same block or in an enclosing
    block (block arguments of an enclosing block count as defined at its start). A plan built
    on an IR that breaks this would silently drop the early use from the value's lifetime.
    A use in another block of a multi-block region (cf branches) is CFG dominance: not checked
    here. One walk with the values in scope, so deep nesting costs no more than its ops.
    """
    in_scope: set[SSAValue] = set()
    current: dict[Region, Block] = {}  # the block of each enclosing region the walk is inside
    stack: list[tuple[str, Operation | Block]] = [("op", module)]
    while stack:
        what, item = stack.pop()
        if what == "op":
            assert isinstance(item, Operation)
            _check_operands(item, in_scope, current)
            stack.append(("results", item))
            stack.extend(("enter", block) for region in reversed(item.regions) for block in reversed(region.blocks))
        elif what == "results":  # after an op's regions: its results come into scope
            assert isinstance(item, Operation)
            in_scope.update(item.results)
        elif what == "enter":
            assert isinstance(item, Block) and item.parent is not None  # a block of an op's region
            current[item.parent] = item
            in_scope.update(item.args)
            stack.append(("leave", item))
            stack.extend(("op", op) for op in reversed(list(item.ops)))
        else:  # leaving a block: its values go out of scope
            assert isinstance(item, Block) and item.parent is not None
            in_scope.difference_update(item.args)
            in_scope.difference_update(r for op in item.ops for r in op.results)
            if current.get(item.parent) is item:
                del current[item.parent]


def _check_operands(user: Operation, in_scope: set[SSAValue], current: dict[Region, Block]) -> None:
    for value in user.operands:
        if value in in_scope:
            continue
        home: Block | None
        if isinstance(value, BlockArgument):
            home = value.block
        elif isinstance(value, OpResult):
            home = value.op.parent_block()
        else:
            continue
        region = home.parent if home is not None else None
        inside = current.get(region) if region is not None else None
        if inside is not None and inside is not home:
            continue  # a use in another block of a multi-block region: CFG dominance
        name = f"value '%{value.name_hint}'" if value.name_hint else "a value"
        if inside is None:
            raise MemoptError(f"{name} is used outside the region that defines it", user)
        raise MemoptError(f"{name} is used before it is defined", user)


def check_type_sizes(module: ModuleOp) -> None:
    """Reject shaped types (tensor, memref) whose byte size does not fit a signed 64-bit integer:
    every size downstream is an ``int64``; a larger one would overflow in numpy or wrap in an
    ``i64`` attribute. Located at the op that defines the value."""
    def check(t, op: Operation) -> None:
        if not isinstance(t, TensorType | MemRefType):
            return
        n = 1
        for d in t.get_shape():
            if d < 0:
                return  # dynamic: left to the passes that care
            n *= d
        bits = getattr(t.element_type, "bitwidth", 8) or 8
        if n * -(-bits // 8) > INT64_MAX:
            raise MemoptError(f"type {t} holds {n} elements, beyond the 64-bit byte range", op)

    for op in walk(module):
        for r in op.results:
            check(r.type, op)
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    check(a.type, op)


def _redefinition(table: Operation, msg: str) -> Operation | None:
    """For a symbol table's 'Redefinition of symbol "X"': the second definition of X (where the
    error is), else None."""
    m = re.search(r'Redefinition of symbol "([^"]+)"', msg)
    if m is None:
        return None
    seen = 0
    for region in table.regions:
        for block in region.blocks:
            for op in block.ops:
                sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
                if getattr(sym, "data", None) == m.group(1):
                    seen += 1
                    if seen == 2:
                        return op
    return None


def verify_located(module: ModuleOp) -> None:
    """Verify ``module`` op by op (innermost first) and raise a MemoptError located at
    the first op that fails to verify."""
    with linear_isolation():
        _verify_ops(module)
    check_type_sizes(module)
    check_dominance(module)
    check_structure(module)


def _verify_ops(module: ModuleOp) -> None:
    for op in walk_regions_first(module):
        try:
            op.verify(verify_nested_ops=False)
        except (DiagnosticException, ValueError, TypeError) as e:
            name = op.name
            msg = exception_message(e)
            prefix = "Operation does not verify: "
            if msg.startswith(prefix):
                msg = msg[len(prefix) :]
            if msg.startswith(f"'{name}' "):
                msg = msg[len(name) + 3 :]
            msg = clear_wording(msg)
            raise MemoptError(f"'{name}' op {msg}", _redefinition(op, msg) or op) from e


def check_structure(module: ModuleOp) -> None:
    """The block/region invariants that only xDSL's nested verification checks (parent
    pointers, an empty block where a terminator is expected), without verifying every op a
    second time: ``module.verify()`` re-runs each op's verifier, which doubled the cost of
    verification on large programs."""
    for op in walk(module):
        for region in op.regions:
            for block in region.blocks:
                if block.parent is not region:
                    raise MemoptError("parent pointer of block does not refer to containing region", op)
                if block.first_op is None:
                    if len(region.blocks) == 1 and not op.has_trait(NoTerminator):
                        raise MemoptError(
                            f"'{op.name}' op contains an empty block in a single-block region "
                            "that expects at least a terminator", op)
                    continue
                for inner in block.ops:
                    if inner.parent is not block:
                        raise MemoptError("parent pointer of operation does not refer to containing block", inner)


__all__ = ["check_dominance", "check_structure", "check_type_sizes", "verify_located"]
