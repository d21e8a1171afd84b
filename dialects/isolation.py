"""The IsolatedFromAbove check in time linear in the region's size, whatever its depth.

xDSL's ``IsolatedFromAbove.verify`` asks, for every operand of every op inside ``func.func``,
whether the operand's owner lies inside the function by climbing its parent chain: one climb per
use, as long as the use's nesting depth — quadratic on deeply nested control flow (3,000 nested
``if``s spend most of their verification there). This check collects the nodes defined inside the
op in one walk and tests each operand's owner against that set; an owner outside the set (an
error, or a value of a nested isolated op) takes xDSL's own climb, so the verdict and its message
are xDSL's. ``linear_isolation()`` puts the check in place for the duration of a verification.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.ir import Operation, Region
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import VerifyException


def verify_isolated(trait: IsolatedFromAbove, op: Operation) -> None:
    """Raise xDSL's VerifyException if an op in ``op``'s regions (outside nested isolated ops)
    uses a value defined outside ``op`` or by ``op`` itself."""
    del trait  # the check has no parameters
    inside: set[int] = set()
    regions: list[Region] = list(op.regions)
    users: list[Operation] = []
    while regions:
        region = regions.pop()
        for block in region.blocks:
            inside.add(id(block))
            for child in block.ops:
                inside.add(id(child))
                users.append(child)
                if not child.has_trait(IsolatedFromAbove):
                    regions.extend(child.regions)
    for child in users:
        for operand in child.operands:
            owner = operand.owner
            if id(owner) in inside:
                continue
            if not op.is_ancestor(owner) or owner is op:
                raise VerifyException(
                    f"Operation using value defined out of its IsolatedFromAbove parent: {child}")


@contextmanager
def linear_isolation() -> Iterator[None]:
    """Within the block, ``IsolatedFromAbove`` verifies with ``verify_isolated``."""
    saved = IsolatedFromAbove.verify
    IsolatedFromAbove.verify = verify_isolated  # type: ignore[method-assign, assignment]
    try:
        yield
    finally:
        IsolatedFromAbove.verify = saved  # type: ignore[method-assign]
