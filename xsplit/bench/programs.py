"""The programs the benchmarks compile, built as IR with xDSL's builders and
printed, not written as MLIR text: a shape or an element type is a number
given to a builder, never spliced into op text.

- `matmul`: `C + A . B`, the entry point `@mm` that `read_machine_code`
  and the own kernel's machine-code tests lower.
- `zero_init_matmul`: `A . B` from a zero-filled init, the product the
  calibration times on IREE's data-tiled code.
- `doubling_map`: `x + x` elementwise, the calibration's streaming probe.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    FloatAttr,
    FunctionType,
    ModuleOp,
    TensorType,
    f32,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.parser import Parser

from xsplit.dialects import make_context
from xsplit.reader import print_module


def element_type(name: str) -> Attribute:
    """An element type from its MLIR spelling (`f16`, `bf16`, `f32`)."""
    return Parser(make_context(), name).parse_type()


def _function(
    name: str,
    arguments: Sequence[tuple[str, Attribute]],
    result: Attribute,
    body: Callable[[Block], tuple[list[Operation], SSAValue]],
) -> func.FuncOp:
    """`func.func @name` of named arguments whose ops `body` makes and
    returns with the value the function returns."""
    block = Block(arg_types=[t for _, t in arguments])
    for arg, (arg_name, _) in zip(block.args, arguments):
        arg.name_hint = arg_name
    ops, returned = body(block)
    block.add_ops([*ops, func.ReturnOp(returned)])
    return func.FuncOp(name, FunctionType.from_lists([t for _, t in arguments], [result]), Region(block))


def _named(op: Operation, name: str) -> Operation:
    op.results[0].name_hint = name
    return op


def _text(function: func.FuncOp) -> str:
    return print_module(ModuleOp([function]))


def matmul(m: int, n: int, k: int, element: str) -> str:
    """`@mm(A: m x k, B: k x n, C: m x n f32) = C + A . B`, A and B of
    `element`."""
    a, b = TensorType(element_type(element), [m, k]), TensorType(element_type(element), [k, n])
    c = TensorType(f32, [m, n])

    def body(block: Block) -> tuple[list[Operation], SSAValue]:
        product = _named(linalg.MatmulOp(list(block.args[:2]), [block.args[2]], [c]), "x")
        return [product], product.results[0]

    return _text(_function("mm", [("a", a), ("b", b), ("c", c)], c, body))


def zero_init_matmul(n: int) -> str:
    """`@main(A, B: n x n f32) = A . B`, accumulated from a zero-filled init."""
    t = TensorType(f32, [n, n])

    def body(block: Block) -> tuple[list[Operation], SSAValue]:
        zero = _named(arith.ConstantOp(FloatAttr(0.0, f32)), "z")
        empty = _named(tensor.EmptyOp([], t), "e")
        fill = _named(linalg.FillOp([zero.results[0]], [empty.results[0]], [t]), "f")
        product = _named(linalg.MatmulOp(list(block.args), [fill.results[0]], [t]), "r")
        return [zero, empty, fill, product], product.results[0]

    return _text(_function("main", [("a", t), ("b", t)], t, body))


def doubling_map(size: int) -> str:
    """`@main(x: size f32) = x + x`, one element in and one out at a time."""
    t = TensorType(f32, [size])
    identity = AffineMapAttr(AffineMap.identity(1))

    def body(block: Block) -> tuple[list[Operation], SSAValue]:
        empty = _named(tensor.EmptyOp([], t), "e")
        element = Block(arg_types=[f32, f32])
        element.args[0].name_hint, element.args[1].name_hint = "v", "o"
        doubled = _named(arith.AddfOp(element.args[0], element.args[0]), "w")
        element.add_ops([doubled, linalg.YieldOp(doubled.results[0])])
        doubling = _named(
            linalg.GenericOp(
                [block.args[0]],
                [empty.results[0]],
                Region(element),
                [identity, identity],
                [IteratorTypeAttr.parallel()],
                [t],
            ),
            "r",
        )
        return [empty, doubling], doubling.results[0]

    return _text(_function("main", [("x", t)], t, body))
