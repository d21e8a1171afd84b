"""The arenas plan-memory marks on upstream IR, found in one place (dialects/upstream_attrs.py):
what the plan reader and the executor both take as a function's arenas."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.parser import Parser

from memopt.api import PlanMemoryPass, context
from memopt.dialects.upstream_attrs import arena_arg_index, is_arena_argument, is_marked_arena, plan_arenas
from memopt.executor.memref_arena import is_arena_alloc, is_arena_arg

PROGRAM = """
func.func @f(%x: memref<16xi8>) -> memref<16xi8> {
  %a = memref.alloc() : memref<16xi8>
  %b = memref.alloc() : memref<16xi8>
  linalg.copy ins(%x : memref<16xi8>) outs(%a : memref<16xi8>)
  linalg.copy ins(%a : memref<16xi8>) outs(%b : memref<16xi8>)
  memref.dealloc %a : memref<16xi8>
  return %b : memref<16xi8>
}
"""


def planned(arena: str) -> func.FuncOp:
    ctx = context()
    module = Parser(ctx, PROGRAM).parse_module()
    PlanMemoryPass(arena=arena).apply(ctx, module)
    f = next(op for op in module.body.block.ops if isinstance(op, func.FuncOp))
    return f


def test_an_arena_alloc_is_the_one_arena_and_the_executor_sees_it():
    f = planned("alloc")
    arenas = plan_arenas(f)
    assert len(arenas) == 1 and arena_arg_index(f) is None
    assert is_marked_arena(arenas[0].owner) and is_arena_alloc(arenas[0].owner)
    assert not any(is_arena_argument(a) for a in f.body.blocks[0].args)


def test_an_arena_argument_is_the_one_arena_and_the_executor_sees_it():
    f = planned("arg")
    k = arena_arg_index(f)
    assert k is not None
    arg = f.body.blocks[0].args[k]
    assert plan_arenas(f) == [arg]
    assert is_arena_argument(arg) and is_arena_arg(arg)
    assert not is_arena_argument(f.body.blocks[0].args[0])


def test_an_unplanned_function_has_no_arena():
    ctx = context()
    module = Parser(ctx, PROGRAM).parse_module()
    f = next(op for op in module.body.block.ops if isinstance(op, func.FuncOp))
    assert plan_arenas(f) == [] and arena_arg_index(f) is None
