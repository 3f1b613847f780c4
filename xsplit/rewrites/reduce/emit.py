"""MLIR text for `lower-reduce`'s kernel writers: a line emitter with fresh
names and hoisted constants, and the combiner tables, shared by the per-thread
writer (kernel_writer.py) and the tiled GEMM writer (tiled_gemm.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

WORKGROUP = "#gpu.address_space<workgroup>"

IDENTITY = {"sum": "0.000000e+00", "max": "0xFF800000"}
COMBINE = {"sum": "arith.addf", "max": "arith.maxnumf"}
ATOMIC = {"sum": "addf", "max": "maxnumf"}
SUBGROUP = {"sum": "add", "max": "maxnumf"}


@dataclass
class Emitter:
    lines: list[str] = field(default_factory=list)
    consts: dict[str, str] = field(default_factory=dict)
    n: int = 0
    indent: int = 2

    def fresh(self, hint: str = "v") -> str:
        self.n += 1
        return f"%{hint}{self.n}"

    def emit(self, line: str) -> None:
        self.lines.append("  " * self.indent + line)

    def c(self, value: int) -> str:
        key = f"{value} : index"
        if key not in self.consts:
            self.consts[key] = f"%c{value}" if value >= 0 else f"%cm{-value}"
        return self.consts[key]

    def cf(self, text: str) -> str:
        key = f"{text} : f32"
        if key not in self.consts:
            self.consts[key] = f"%cst{len(self.consts)}"
        return self.consts[key]

    def ci32(self, value: int) -> str:
        key = f"{value} : i32"
        if key not in self.consts:
            self.consts[key] = f"%i{value}"
        return self.consts[key]

    def op(self, text: str, hint: str = "v") -> str:
        name = self.fresh(hint)
        self.emit(f"{name} = {text}")
        return name

    def constants(self) -> list[str]:
        return [f"    {name} = arith.constant {value}" for value, name in self.consts.items()]


def memref_type(shape: Sequence[int], space: str = "", element: str = "f32") -> str:
    dims = "x".join(str(s) for s in shape)
    return f"memref<{dims}x{element}{', ' + space if space else ''}>"


def function_text(
    name: str, params: list[str], body: str, consts: list[str], attrs: str, allocs: list[str]
) -> str:
    head = f"func.func @{name}({', '.join(params)})"
    if attrs:
        head += f" attributes {{{attrs}}}"
    inner = "\n".join(consts + [f"    {a}" for a in allocs] + [body, "    func.return"])
    return f"{head} {{\n{inner}\n}}"


def host_text(
    name: str,
    arg_names: list[str],
    arg_shapes: list[list[int]],
    out: int,
    partials: str,
    elements: Sequence[str] = (),
) -> str:
    """The deterministic form's host function: allocate the partials, run the
    partials kernel, then the merge kernel, in that order."""
    import xsplit.attr_names as attr_names

    elements = list(elements) or ["f32"] * len(arg_shapes)
    types_of = [memref_type(s, element=t) for s, t in zip(arg_shapes, elements)]
    params = ", ".join(f"{n}: {t}" for n, t in zip(arg_names, types_of))
    types = ", ".join(types_of)
    out_type = types_of[out]
    return "\n".join(
        [
            f"func.func @{name}({params}) attributes {{{attr_names.HOST}}} {{",
            f"  %partials = memref.alloc() : {partials}",
            f"  func.call @{name}_partials({', '.join(arg_names)}, %partials) : ({types}, {partials}) -> ()",
            f"  func.call @{name}_merge(%partials, {arg_names[out]}) : ({partials}, {out_type}) -> ()",
            "  memref.dealloc %partials : " + partials,
            "  func.return",
            "}",
        ]
    )
