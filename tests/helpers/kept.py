"""Lowered programs the tests simulate, kept as the passes left them.

A test lowers a program (text in, text out, as the tool works) and then
simulates it. Parsing the printed kernel back cost about a third of such a
test (a tiled GEMM kernel is thousands of ops, and xDSL parses some 6,000 a
second), in several hundred tests. `rewrite_kept` keeps the module it
printed, and `parsed` hands it out instead of parsing the same text again:
what is simulated is exactly what was printed. Whether the printed text
reads back as the same IR is checked on its own, once per kernel form
(`reads_back`, in tests/reduce/test_kernel_round_trip.py and beside the
tests of a form). A text the test edited (a barrier
taken out) is not kept, and is parsed."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from xsplit.api import parse_module, print_module, rewrite_module
from xsplit.dialects import make_context

_KEPT: dict[str, ModuleOp] = {}
_LIMIT = 4


def rewrite_kept(source: str, pipeline: str) -> str:
    """`xsplit.api.rewrite`, keeping the module behind the text for `parsed`."""
    module = rewrite_module(parse_module(source), pipeline)
    text = print_module(module)
    if len(_KEPT) >= _LIMIT:
        _KEPT.pop(next(iter(_KEPT)))
    _KEPT[text] = module
    return text


def parsed(text: str, filename: str = "<string>") -> ModuleOp:
    """The module `rewrite_kept` printed as `text`, handed out once (the
    caller may change it), or `text` parsed."""
    kept = _KEPT.pop(text, None)
    return kept if kept is not None else parse_module(text, filename, make_context())


def reads_back(text: str) -> None:
    """`text` parses, verifies and prints as the same text, line for line."""
    again = print_module(parse_module(text, "kernel.mlir", make_context()))
    assert again == text, next(
        (f"line {i + 1}: {a!r} reads back as {b!r}"
         for i, (a, b) in enumerate(zip(text.splitlines(), again.splitlines())) if a != b),
        "the line counts differ",
    )  # fmt: skip


def barriers_taken_out(module: ModuleOp) -> list[ModuleOp]:
    """For each `gpu.barrier` of `module`, in the order the text prints them,
    a copy of the module without it: what deleting the barrier's line from
    the printed text and parsing the rest gives, without the parse."""
    count = sum(op.name == "gpu.barrier" for op in module.walk())
    copies = []
    for i in range(count):
        copy = module.clone()
        barrier = [op for op in copy.walk() if op.name == "gpu.barrier"][i]
        barrier.detach()
        barrier.erase()
        copies.append(copy)
    return copies
