"""What `lower-reduce` lowers: a reduction along one axis (`rock.reduce`, or
a `linalg.reduce` in destination-passing form), with the GEMM producer
`fuse-reduction` marked for fusion, read off the IR into a
`ReductionToLower`, or the reason it cannot be."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import Float16Type, Float32Type, MemRefType, NoneAttr, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr

import xsplit.attr_names as attr_names
from xsplit.analysis.contraction import gemm_operand_dims
from xsplit.dialects.rock import ReduceOp as RockReduceOp

FUSED = attr_names.FUSED_PRODUCER


@dataclass
class Gemm:
    """A contraction producing the reduced values: over its loops,
    C[out] = init + sum_k A[a] * B[b], each index a list of loop dimensions."""

    a: int
    b: int
    init_arg: int | None
    """The argument holding the GEMM's init, or None for a constant fill."""
    init_const: str | None
    store: bool
    """Whether the GEMM's result is returned: then its init argument is written."""
    a_dims: list[int]
    b_dims: list[int]
    out_dims: list[int]
    k_dim: int
    k: int
    """The contraction's extent."""


@dataclass
class Product:
    """The reduced values are a product of arguments over a loop nest (a
    matmul seen as a reduction along K): each indexed by its loop positions."""

    inputs: list[int]
    dims: list[list[int]]


@dataclass
class ReductionToLower:
    fn: func.FuncOp
    op: Operation
    method: str
    shape: list[int]
    """The reduced tensor's shape."""
    axis: int
    source: int | Gemm | Product
    """The argument holding the reduced tensor, the GEMM computing it, or a product of arguments."""
    out: int
    keepdim: bool
    arg_shapes: list[list[int]]
    block: int | None = None
    grid: int | None = None
    arg_elements: list[str] = field(default_factory=list)
    """Each argument's element type (`f32`, or `f16` for a GEMM operand whose
    products accumulate in f32); empty means all f32."""

    def element(self, arg: int) -> str:
        return self.arg_elements[arg] if self.arg_elements else "f32"

    @property
    def extent(self) -> int:
        return self.shape[self.axis]

    @property
    def elements(self) -> int:
        n = 1
        for d, s in enumerate(self.shape):
            if d != self.axis:
                n *= s
        return n


def combiner_of(body_ops: Sequence[Operation]) -> str | None:
    """`sum` or `max` for a reduction body that is one add or max, else None."""
    names = [o.name for o in body_ops]
    if len(names) != 2 or names[1] != "linalg.yield":
        return None
    if names[0] == "arith.addf":
        return "sum"
    if names[0] in ("arith.maximumf", "arith.maxnumf"):
        return "max"
    return None


def is_static_f32(t) -> bool:
    return isinstance(t, TensorType) and t.has_static_shape() and isinstance(
        t.element_type, Float32Type
    )


def is_static_f16_or_f32(t) -> bool:
    return isinstance(t, TensorType) and t.has_static_shape() and isinstance(
        t.element_type, Float32Type | Float16Type
    )


def _element_name(t) -> str:
    return "f16" if isinstance(t.element_type, Float16Type) else "f32"


def generic_reduction(op: Operation) -> tuple[str, int, bool] | str:
    """A `linalg.generic` that reduces one input along one loop, as IREE
    imports ONNX's ReduceSum/ReduceMax: (method, axis of the input, whether the
    output keeps the reduced dimension as size 1), or why it is not one."""
    if op.name != "linalg.generic":
        return "it is not a reduction"
    if len(op.operands) != 2 or len(op.results) != 1:
        return "the generic does not reduce one input into one output"
    kinds = [str(t.data) for t in op.iterator_types.data]  # type: ignore[attr-defined]
    reductions = [d for d, k in enumerate(kinds) if "reduction" in k]
    if len(reductions) != 1:
        return "the generic does not reduce exactly one loop"
    in_map, out_map = (m.data for m in op.indexing_maps.data)  # type: ignore[attr-defined]
    if [getattr(e, "position", None) for e in in_map.results] != list(range(len(kinds))):
        return "the generic's input is not indexed by its loops in order"
    loop = reductions[0]
    kept: list[int | None] = []
    for e in out_map.results:
        if isinstance(e, AffineDimExpr):
            kept.append(e.position)
        elif isinstance(e, AffineConstantExpr) and e.value == 0:
            kept.append(None)
        else:
            return "the generic's output map is not its parallel loops (and a 0 for a kept dimension)"
    keepdim = None in kept
    expected = [None if d == loop else d for d in range(len(kinds))] if keepdim else [
        d for d in range(len(kinds)) if d != loop
    ]
    if kept != expected:
        return "the generic's output map is not its parallel loops (and a 0 for a kept dimension)"
    method = combiner_of(list(op.regions[0].block.ops))
    block = op.regions[0].block
    combine = block.first_op
    if method is None or combine is None or set(combine.operands) != set(block.args):
        return "its combiner is not one add or max of the element and the accumulator"
    return method, loop, keepdim


def _gemm(producer: Operation, fn: func.FuncOp, results: list[SSAValue]) -> Gemm | str:
    args = list(fn.args)
    dims = gemm_operand_dims(producer)
    if isinstance(dims, str):
        return dims
    a_dims, b_dims, out_dims, k_dim = dims
    a, b = producer.operands[0], producer.operands[1]
    init = producer.operands[2]
    if a not in args or b not in args:
        return "the GEMM's operands are not function arguments"
    if not (all(is_static_f16_or_f32(v.type) for v in (a, b)) and is_static_f32(init.type)):
        return "the GEMM is not on static f32 (or f16 operands into f32) tensors"
    init_arg = args.index(init) if init in args else None
    init_const = None
    if init_arg is None:
        fill = init.owner
        if not (
            isinstance(fill, Operation)
            and fill.name == "linalg.fill"
            and fill.operands[0].owner is not None
            and getattr(fill.operands[0].owner, "name", "") == "arith.constant"
        ):
            return "the GEMM's init is neither an argument nor a constant fill"
        value = fill.operands[0].owner.properties["value"]  # type: ignore[union-attr]
        init_const = f"{float(value.value.data):e}"  # type: ignore[union-attr]
    store = producer.results[0] in results
    if store and init_arg is None:
        return "the GEMM's result is returned but its init is not an argument to write it into"
    k = a.type.get_shape()[a_dims.index(k_dim)]  # type: ignore[union-attr]
    return Gemm(
        args.index(a), args.index(b), init_arg, init_const, store, a_dims, b_dims, out_dims,
        k_dim, k,
    )  # fmt: skip


def analyze(op: Operation) -> ReductionToLower | str:
    """The reduction `op` as a kernel problem, or why it is not one."""
    fn = op.parent_op()
    if not isinstance(fn, func.FuncOp) or op.parent_block() is not fn.body.block:
        return "it is not at the top level of a function"
    if isinstance(op, RockReduceOp):
        if op.on_memrefs:
            return _analyze_memref(op, fn)
        method, axis, keepdim = op.method.value, op.axis.value.data, True
        source, init = op.input, op.init
        block = op.block_size.value.data if op.block_size is not None else None
        grid = op.grid_size.value.data if op.grid_size is not None else None
    elif op.name == "linalg.reduce":
        dims = op.properties["dimensions"].get_values()  # type: ignore[union-attr]
        if len(op.operands) != 2 or len(dims) != 1:
            return "it reduces more than one operand or dimension"
        method = combiner_of(list(op.regions[0].block.ops))
        if method is None:
            return "its combiner is not one add or max"
        axis, keepdim = int(dims[0]), False
        source, init = op.operands[0], op.operands[1]
        block = grid = None
    elif op.name == "linalg.generic":
        found = generic_reduction(op)
        if isinstance(found, str):
            return found
        method, axis, keepdim = found
        source, init = op.operands[0], op.operands[1]
        block = grid = None
    else:
        return "it is not a reduction"
    if not (is_static_f32(source.type) and is_static_f32(init.type)):
        return "it is not on static f32 tensors"
    args = list(fn.args)
    if not all(is_static_f16_or_f32(a.type) for a in args):
        return "the function's arguments are not all static f32 (or f16) tensors"
    if init not in args:
        return "its init is not a function argument (destination-passing form)"
    ret = fn.body.block.last_op
    assert ret is not None
    results = list(ret.operands)
    fused = FUSED in op.attributes
    if source in args:
        src: int | Gemm = args.index(source)
    elif fused and isinstance(source.owner, Operation):
        gemm = _gemm(source.owner, fn, results)
        if isinstance(gemm, str):
            return gemm
        src = gemm
    else:
        return "its input is not a function argument (run fuse-reduction to fuse its producer)"
    # Every result must be what the kernel writes into an argument, in argument order.
    written: list[tuple[int, SSAValue]] = [(args.index(init), op.results[0])]
    if isinstance(src, Gemm) and src.store:
        assert src.init_arg is not None
        written.append((src.init_arg, source))
    written.sort(key=lambda w: w[0])
    if results != [v for _, v in written]:
        return "the function does not return exactly what it writes into its arguments, in argument order"
    allowed = {op, ret}
    if isinstance(src, Gemm):
        allowed.add(source.owner)  # type: ignore[arg-type]
        fill = source.owner.operands[2].owner  # type: ignore[union-attr]
        if src.init_arg is None and isinstance(fill, Operation):
            allowed.add(fill)
            allowed.add(fill.operands[0].owner)  # type: ignore[arg-type]
            allowed.add(fill.operands[1].owner)  # type: ignore[arg-type]
    extra = [o for o in fn.body.block.ops if o not in allowed]
    if extra:
        return f"the function also computes other things ('{extra[0].name}')"
    if any(_element_name(a.type) != "f32" for a in args) and not isinstance(src, Gemm):
        return "an f16 argument that is not a GEMM operand"
    return ReductionToLower(
        fn, op, method, list(source.type.get_shape()), axis, src,  # type: ignore[union-attr]
        args.index(init), keepdim, [list(a.type.get_shape()) for a in args], block, grid,  # type: ignore[union-attr]
        [_element_name(a.type) for a in args],
    )  # fmt: skip


def _static_f32_memref(t) -> bool:
    return isinstance(t, MemRefType) and t.has_static_shape() and isinstance(
        t.element_type, Float32Type
    ) and isinstance(t.layout, NoneAttr) and isinstance(t.memory_space, NoneAttr)


def _analyze_memref(op: RockReduceOp, fn: func.FuncOp) -> ReductionToLower | str:
    """rocMLIR's own input: `rock.reduce` on memref arguments, alone in a kernel."""
    args = list(fn.args)
    if not all(_static_f32_memref(a.type) for a in args):
        return "the function's arguments are not all static f32 memrefs"
    if op.input not in args or op.init not in args:
        return "its operands are not function arguments"
    if any(o is not op and o.name != "func.return" for o in fn.body.block.ops):
        return "the function also does other things"
    if fn.function_type.outputs.data:
        return "the function returns values"
    return ReductionToLower(
        fn, op, op.method.value, list(op.input.type.get_shape()), op.axis.value.data,  # type: ignore[union-attr]
        args.index(op.input), args.index(op.init), True,
        [list(a.type.get_shape()) for a in args],  # type: ignore[union-attr]
        op.block_size.value.data if op.block_size is not None else None,
        op.grid_size.value.data if op.grid_size is not None else None,
    )  # fmt: skip


@dataclass
class Loops:
    """The GEMM's loops by role, their extents, and the one reduced."""

    batch: list[int]
    m: int
    n: int
    k: int
    extent: dict[int, int]
    reduced: int

    @property
    def along(self) -> str:
        """'n' (rows are reduced), 'm' (columns) or 'batch'."""
        return "n" if self.reduced == self.n else "m" if self.reduced == self.m else "batch"


def loops_of(red: ReductionToLower) -> Loops | str:
    """A fused GEMM's loops by role (batch, M, N, K) and which is reduced,
    or why the GEMM has no such roles."""
    src = red.source
    if not isinstance(src, Gemm):
        return "the reduced values are not a fused GEMM's"
    a, b, c = set(src.a_dims), set(src.b_dims), set(src.out_dims)
    batch = [d for d in src.out_dims if d in a and d in b]
    ms = [d for d in src.out_dims if d in a and d not in b]
    ns = [d for d in src.out_dims if d in b and d not in a]
    if len(ms) != 1 or len(ns) != 1:
        return "the GEMM has not exactly one M and one N loop"
    if c | {src.k_dim} != a | b:
        return "the GEMM has a loop that is not batch, M, N or K"
    extent: dict[int, int] = {}
    for arg, dims in ((src.a, src.a_dims), (src.b, src.b_dims)):
        for d, size in zip(dims, red.arg_shapes[arg]):
            extent[d] = size
    return Loops(batch, ms[0], ns[0], src.k_dim, extent, src.out_dims[red.axis])
