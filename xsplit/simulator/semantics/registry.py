"""Which op runs how: op names to their compilers, as xDSL's interpreter
registers one implementation per op (`@impl(arith.AddiOp)`).

A compiler takes the function being compiled (`compiled.Compiled`: value
slots, op indices, the launch, the value helpers) and an op, and returns
the op's closure `run(frame, chunked)`. What the op needs at every
execution (its operands' slots, dtypes, attributes) it decodes once, when
it compiles. The closure keeps no machine: the code is shared by the
machines that run each thread order, and what a run changes (buffers, the
access log, the epoch, allocations) it reaches through `frame.m`. Each
dialect's module in this package registers its ops with `@register`;
importing the package (which importing this module does first) imports
them all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from xdsl.ir import Operation

from xsplit.simulator.errors import SimulationError
from xsplit.simulator.lanes import Frame

Run = Callable[[Frame, bool], None]
"""An op's compiled closure: runs it for the lanes of a frame."""

Compiler = Callable[[Any, Operation], Run]
"""`(compiled, op) -> run`."""

C = TypeVar("C", bound=Compiler)

_COMPILERS: dict[str, Compiler] = {}
_LANE_LOCAL: set[str] = set()


def register(*names: str, lane_local: bool = False) -> Callable[[C], C]:
    """Makes the decorated compiler the semantics of the ops `names`. A name
    registered twice is an error: which one runs must not depend on the order
    the modules happen to load in.

    `lane_local`: the op's closure gives each lane what it would give that
    lane run with any other set of lanes (no lane's result reads another's
    value, numpy rounds it alike in arrays of any length and layout),
    touches memory only through `Machine.access`, called before it writes,
    and keeps state only where `speculation` can save and settle it.
    The machine then runs a chunked stretch of such ops for all its lanes at
    once when no element passes between chunks (`speculation`)."""

    def add(compiler: C) -> C:
        for name in names:
            if name in _COMPILERS:
                raise ValueError(f"the simulator has two semantics for '{name}'")
            _COMPILERS[name] = compiler
            if lane_local:
                _LANE_LOCAL.add(name)
        return compiler

    return add


def is_lane_local(name: str) -> bool:
    """Whether the op `name` was registered `lane_local`."""
    return name in _LANE_LOCAL


def registered() -> frozenset[str]:
    """The names of every op the simulator runs."""
    return frozenset(_COMPILERS)


def compile_op(code: Any, op: Operation) -> Run:
    maker = _COMPILERS.get(op.name)
    if maker is None:
        raise SimulationError(f"the simulator does not run '{op.name}'", op)
    return maker(code, op)
