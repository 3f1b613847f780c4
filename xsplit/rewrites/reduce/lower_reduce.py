"""`lower-reduce{stage=atomic|lds|subgroup deterministic=false|true target=NAME}`:
a reduction along one axis becomes a distributed kernel, in rocMLIR's stages.

The input is rocMLIR's: a kernel whose body is a memref `rock.reduce` of one
argument into another; or a function in destination-passing form: tensor arguments, a
`rock.reduce` or a one-dimension `linalg.reduce` (sum or max, f32) whose init
is an argument, and results that are the reduction (and, for a reduction
`fuse-reduction` fused with its GEMM, the GEMM's result when it has other
users) returned in the order of the arguments they update. The output is the
same function on memrefs, returning nothing, with `gpu.known_block_size` and
`gpu.known_grid_size`; `export-dispatch` turns it back into a tensor function
of the same signature, and `xsplit simulate` runs it.

The reduction is cut into work items: an output element `e` and a chunk `c`
of the axis. The block-level loop over work items is an `scf.forall` on
`#gpu.block<x>` that `distribute` turns into SPMD code (exact, guarded or
cyclic, as it proves). Per stage (rocMLIR's RFC, seed 004):

- `atomic`: each thread owns a work item, reduces its chunk in a register and
  adds it to the output with `memref.atomic_rmw addf` (`maxnumf` for max).
  With one thread per block this is workgroup-level code, which llvm-cpu runs.
- `lds`: a block owns a work item; each thread reduces a strided part of the
  chunk, then a tree in workgroup memory, a `gpu.barrier` between levels,
  and thread 0 issues one atomic.
- `subgroup`: each subgroup reduces its lanes' values in registers
  (`gpu.subgroup_reduce` on gfx942, which becomes DPP; a `gpu.shuffle xor`
  butterfly on NVIDIA, where the former does not legalize), then, when the
  block holds more than one subgroup (RFC case 3.2), their partials meet in
  workgroup memory; one atomic per block.
- `deterministic=true`: the same, but no floating-point atomic: each work
  item's partial goes to `partials[c, e]`, and a second kernel combines them
  into the output in the fixed order c = 0, 1, ... The function becomes a host
  function that allocates the partials and calls both kernels.

With no `stage`, the target model picks one and says why in a remark. Block
size, subgroup width and the machine's processors come from the target table;
a `rock.reduce`'s `blockSize` and `gridSize`, or the `block`/`grid` options,
override them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import Float32Type, MemRefType, NoneAttr, TensorType
from xdsl.ir import Operation, SSAValue

from xsplit import attr_names
from xsplit.analysis.contraction import gemm_operand_dims
from xsplit.diagnostics import XsplitError, collect_remarks, remark
from xsplit.dialects.rock import ReduceOp as RockReduceOp
from xsplit.rewrites.dsl import Match, Option, Pass, Pattern, Remark, where
from xsplit.rewrites.dsl.builders import IRBuilder
from xsplit.target.targets import Target
from xsplit.target.targets import target as find_target

STAGES = ("auto", "atomic", "lds", "subgroup")

FUSED = attr_names.FUSED_PRODUCER


# ---------------------------------------------------------------------------
# What is reduced
# ---------------------------------------------------------------------------


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
class Reduction:
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


def _combiner(body_ops: Sequence[Operation]) -> str | None:
    names = [o.name for o in body_ops]
    if len(names) != 2 or names[1] != "linalg.yield":
        return None
    if names[0] == "arith.addf":
        return "sum"
    if names[0] in ("arith.maximumf", "arith.maxnumf"):
        return "max"
    return None


def _static_f32(t) -> bool:
    return isinstance(t, TensorType) and t.has_static_shape() and isinstance(
        t.element_type, Float32Type
    )


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
    if not all(_static_f32(v.type) for v in (a, b, init)):
        return "the GEMM is not on static f32 tensors"
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


def analyze(op: Operation) -> Reduction | str:
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
        method = _combiner(list(op.regions[0].block.ops))
        if method is None:
            return "its combiner is not one add or max"
        axis, keepdim = int(dims[0]), False
        source, init = op.operands[0], op.operands[1]
        block = grid = None
    else:
        return "it is not a reduction"
    if not (_static_f32(source.type) and _static_f32(init.type)):
        return "it is not on static f32 tensors"
    args = list(fn.args)
    if not all(_static_f32(a.type) for a in args):
        return "the function's arguments are not all static f32 tensors"
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
    return Reduction(
        fn, op, method, list(source.type.get_shape()), axis, src,  # type: ignore[union-attr]
        args.index(init), keepdim, [list(a.type.get_shape()) for a in args], block, grid,  # type: ignore[union-attr]
    )  # fmt: skip


def _static_f32_memref(t) -> bool:
    return isinstance(t, MemRefType) and t.has_static_shape() and isinstance(
        t.element_type, Float32Type
    ) and isinstance(t.layout, NoneAttr) and isinstance(t.memory_space, NoneAttr)


def _analyze_memref(op: RockReduceOp, fn: func.FuncOp) -> Reduction | str:
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
    return Reduction(
        fn, op, op.method.value, list(op.input.type.get_shape()), op.axis.value.data,  # type: ignore[union-attr]
        args.index(op.input), args.index(op.init), True,
        [list(a.type.get_shape()) for a in args],  # type: ignore[union-attr]
        op.block_size.value.data if op.block_size is not None else None,
        op.grid_size.value.data if op.grid_size is not None else None,
    )  # fmt: skip


# ---------------------------------------------------------------------------
# The plan: stage, block, grid, chunks
# ---------------------------------------------------------------------------


@dataclass
class Plan:
    stage: str
    deterministic: bool
    target: Target
    block: int
    subgroup: int
    chunk: int
    """Axis elements per work item."""
    chunks: int
    items: int
    grid: int
    why: str = ""

    @property
    def subgroups(self) -> int:
        return max(1, self.block // self.subgroup)


def choose_stage(red: Reduction, tgt: Target) -> tuple[str, str]:
    if not tgt.is_gpu:
        return "atomic", (
            f"{tgt.name} runs workgroup-level code only (one thread per workgroup), so each "
            "workgroup reduces its chunk serially and adds it with one atomic"
        )
    width = tgt.subgroup_size
    if red.extent < width:
        return "atomic", (
            f"the axis has {red.extent} elements, fewer than a subgroup of {width}: a tree "
            "would leave lanes idle, so each thread adds its chunk with an atomic"
        )
    waves = tgt.waves_per_block
    how = "DPP (gpu.subgroup_reduce)" if tgt.name == "gfx942" else "a shuffle butterfly"
    lds = (
        f"{waves} subgroups per block, so their partials meet in workgroup memory (case 3.2)"
        if waves > 1
        else "one subgroup per block, so no workgroup memory step (case 3.1)"
    )
    return "subgroup", (
        f"subgroups of {width} lanes reduce in registers with {how}; {lds}; then one "
        "atomic per block"
    )


def plan(red: Reduction, m: Match | None, options: dict | None = None) -> Plan:
    opts = dict(m.options) if m is not None else dict(options or {})
    for key, default in (("block", 0), ("grid", 0), ("chunk", 0), ("stage", "auto"), ("deterministic", False)):
        opts.setdefault(key, default)
    tgt = find_target(opts["target"])
    stage, why = opts["stage"], ""
    if stage == "auto":
        stage, why = choose_stage(red, tgt)
    if stage != "atomic" and not tgt.is_gpu:
        raise XsplitError(
            f"lower-reduce: stage={stage} is thread-level code; {tgt.name} runs workgroup-level "
            "code only (use stage=atomic)",
            red.op,
        )
    width = tgt.subgroup_size if tgt.is_gpu else 1
    block = opts["block"] or red.block or (tgt.subgroup_size * tgt.waves_per_block)
    if not tgt.is_gpu:
        block = 1
    if stage in ("lds", "subgroup") and (block & (block - 1) or block < width):
        raise XsplitError(
            f"lower-reduce: stage={stage} needs a power-of-two block of at least {width} "
            f"threads, got {block}",
            red.op,
        )
    extent = red.extent
    if stage == "atomic":
        # A thread's serial chunk: long enough to amortize its atomic, short
        # enough to leave work for every thread of the machine.
        chunk = min(extent, max(1, opts["chunk"] or 16))
    else:
        chunk = min(extent, block * max(1, opts["chunk"] or 4))
    chunks = -(-extent // chunk)
    work = red.elements * chunks
    items = -(-work // block) if stage == "atomic" else work
    cap = opts["grid"] or red.grid or tgt.processors * 8
    grid = max(1, min(items, cap))
    return Plan(stage, opts["deterministic"], tgt, block, width, chunk, chunks, items, grid, why)


# ---------------------------------------------------------------------------
# Kernel text
# ---------------------------------------------------------------------------

_WG = "#gpu.address_space<workgroup>"


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


def _memref(shape: Sequence[int], space: str = "") -> str:
    dims = "x".join(str(s) for s in shape)
    return f"memref<{dims}xf32{', ' + space if space else ''}>"


IDENTITY = {"sum": "0.000000e+00", "max": "0xFF800000"}
COMBINE = {"sum": "arith.addf", "max": "arith.maxnumf"}
ATOMIC = {"sum": "addf", "max": "maxnumf"}
SUBGROUP = {"sum": "add", "max": "maxnumf"}


class KernelWriter:
    """Writes the kernels of one reduction as MLIR text."""

    def __init__(self, red: Reduction, p: Plan):
        self.red, self.p = red, p
        self.e = Emitter()
        self.arg_names = [f"%arg{i}" for i in range(len(red.arg_shapes))]
        hints = [a.name_hint for a in red.fn.args]
        self.arg_names = [f"%{h}" if h else n for h, n in zip(hints, self.arg_names)]

    # Index arithmetic -----------------------------------------------------

    def delinearize(self, e: str) -> list[str]:
        """The non-axis coordinates of output element `e`, row-major."""
        red, em = self.red, self.e
        dims = [d for d in range(len(red.shape)) if d != red.axis]
        coords: dict[int, str] = {}
        stride = 1
        for d in reversed(dims):
            size = red.shape[d]
            q = em.op(f"arith.divui {e}, {em.c(stride)} : index") if stride != 1 else e
            coords[d] = em.op(f"arith.remui {q}, {em.c(size)} : index") if d != dims[0] else q
            stride *= size
        return [coords[d] for d in dims]

    def full_index(self, coords: list[str], k: str) -> list[str]:
        out = list(coords)
        out.insert(self.red.axis, k)
        return out

    def out_index(self, coords: list[str]) -> list[str]:
        if self.red.keepdim:
            return self.full_index(coords, self.e.c(0))
        return coords

    def value(self, idx: list[str]) -> str:
        """The reduced tensor's element at `idx`: a load, or the GEMM's dot product."""
        red, em = self.red, self.e
        src = red.source
        if isinstance(src, int):
            t = _memref(red.arg_shapes[src])
            return em.op(f"memref.load {self.arg_names[src]}[{', '.join(idx)}] : {t}")
        if isinstance(src, Product):
            factors = []
            for arg, dims in zip(src.inputs, src.dims):
                t = _memref(red.arg_shapes[arg])
                at = ", ".join(idx[d] for d in dims)
                factors.append(em.op(f"memref.load {self.arg_names[arg]}[{at}] : {t}"))
            value = factors[0]
            for f in factors[1:]:
                value = em.op(f"arith.mulf {value}, {f} : f32")
            return value
        loops: dict[int, str] = dict(zip(src.out_dims, idx))
        if src.init_arg is not None:
            t = _memref(red.arg_shapes[src.init_arg])
            init = em.op(f"memref.load {self.arg_names[src.init_arg]}[{', '.join(idx)}] : {t}")
        else:
            init = em.cf(src.init_const or "0.0")
        acc, kk, result = em.fresh("acc"), em.fresh("k"), em.fresh("dot")
        em.emit(
            f"{result} = scf.for {kk} = {em.c(0)} to {em.c(src.k)} step {em.c(1)} "
            f"iter_args({acc} = {init}) -> (f32) {{"
        )
        em.indent += 1
        ta, tb = _memref(red.arg_shapes[src.a]), _memref(red.arg_shapes[src.b])
        loops[src.k_dim] = kk
        a_idx = ", ".join(loops[d] for d in src.a_dims)
        b_idx = ", ".join(loops[d] for d in src.b_dims)
        av = em.op(f"memref.load {self.arg_names[src.a]}[{a_idx}] : {ta}")
        bv = em.op(f"memref.load {self.arg_names[src.b]}[{b_idx}] : {tb}")
        prod = em.op(f"arith.mulf {av}, {bv} : f32")
        nxt = em.op(f"arith.addf {acc}, {prod} : f32")
        em.emit(f"scf.yield {nxt} : f32")
        em.indent -= 1
        em.emit("}")
        if src.store:
            assert src.init_arg is not None
            t = _memref(red.arg_shapes[src.init_arg])
            em.emit(f"memref.store {result}, {self.arg_names[src.init_arg]}[{', '.join(idx)}] : {t}")
        return result

    def serial(self, coords: list[str], lo: str, hi: str, step: str) -> str:
        """The combination of the reduced values over the axis from `lo` to `hi`."""
        em = self.e
        acc, k, res = em.fresh("acc"), em.fresh("k"), em.fresh("part")
        em.emit(
            f"{res} = scf.for {k} = {lo} to {hi} step {step} "
            f"iter_args({acc} = {em.cf(IDENTITY[self.red.method])}) -> (f32) {{"
        )
        em.indent += 1
        v = self.value(self.full_index(coords, k))
        nxt = em.op(f"{COMBINE[self.red.method]} {acc}, {v} : f32")
        em.emit(f"scf.yield {nxt} : f32")
        em.indent -= 1
        em.emit("}")
        return res

    def finish(self, value: str, coords: list[str], c: str, e: str) -> None:
        """The work item's partial: an atomic into the output, or a store into the partials."""
        em, red = self.e, self.red
        if self.p.deterministic:
            em.emit(f"memref.store {value}, %partials[{c}, {e}] : {self.partials_type}")
        else:
            t = _memref(red.arg_shapes[red.out])
            idx = ", ".join(self.out_index(coords))
            em.op(f"memref.atomic_rmw {ATOMIC[red.method]} {value}, {self.arg_names[red.out]}[{idx}] : (f32, {t}) -> f32", "old")

    @property
    def partials_type(self) -> str:
        return _memref([self.p.chunks, self.red.elements])

    def if_(self, cond: str) -> None:
        self.e.emit(f"scf.if {cond} {{")
        self.e.indent += 1

    def end(self) -> None:
        self.e.indent -= 1
        self.e.emit("}")

    # Kernels --------------------------------------------------------------

    def item_bounds(self, w: str) -> tuple[str, str, list[str], str, str]:
        """Chunk, element, coordinates and axis range of work item `w`."""
        em, red, p = self.e, self.red, self.p
        c = em.op(f"arith.divui {w}, {em.c(red.elements)} : index", "chunk")
        e = em.op(f"arith.remui {w}, {em.c(red.elements)} : index", "elem")
        coords = self.delinearize(e)
        lo = em.op(f"arith.muli {c}, {em.c(p.chunk)} : index", "lo")
        hi0 = em.op(f"arith.addi {lo}, {em.c(p.chunk)} : index")
        hi = em.op(f"arith.minui {hi0}, {em.c(red.extent)} : index", "hi")
        return c, e, coords, lo, hi

    def partial_kernel(self) -> str:
        em, red, p = self.e, self.red, self.p
        gpu = p.target.is_gpu
        em.emit(f"scf.forall (%w) in ({p.items}) {{")
        em.indent += 1
        if p.stage != "atomic" and p.grid < p.items:
            # A block runs several work items: the next one's stores into
            # workgroup memory must wait for this one's reads.
            em.emit("gpu.barrier")
        tid = em.op("gpu.thread_id x", "tid") if gpu else None
        if p.stage == "atomic":
            if gpu:
                base = em.op(f"arith.muli %w, {em.c(p.block)} : index")
                item = em.op(f"arith.addi {base}, {tid} : index", "item")
            else:
                item = "%w"
            total = red.elements * p.chunks
            guard = em.op(f"arith.cmpi ult, {item}, {em.c(total)} : index", "in")
            if gpu and total % p.block == 0:
                guard = None
            if guard:
                self.if_(guard)
            c, e, coords, lo, hi = self.item_bounds(item)
            part = self.serial(coords, lo, hi, em.c(1))
            self.finish(part, coords, c, e)
            if guard:
                self.end()
        else:
            assert tid is not None
            c, e, coords, lo, hi = self.item_bounds("%w")
            start = em.op(f"arith.addi {lo}, {tid} : index")
            part = self.serial(coords, start, hi, em.c(p.block))
            if p.stage == "lds":
                total = self.tree(part, tid)
            else:
                total = self.subgroups(part, tid)
            is0 = em.op(f"arith.cmpi eq, {tid}, {em.c(0)} : index", "first")
            self.if_(is0)
            self.finish(total() if callable(total) else total, coords, c, e)
            self.end()
        em.indent -= 1
        em.emit("} {mapping = [#gpu.block<x>]}")
        return "\n".join(em.lines)

    def tree(self, part: str, tid: str):
        em, p, red = self.e, self.p, self.red
        t = _memref([p.block], _WG)
        em.emit(f"memref.store {part}, %lds[{tid}] : {t}")
        s = p.block // 2
        while s >= 1:
            em.emit("gpu.barrier")
            cond = em.op(f"arith.cmpi ult, {tid}, {em.c(s)} : index")
            self.if_(cond)
            other = em.op(f"arith.addi {tid}, {em.c(s)} : index")
            x = em.op(f"memref.load %lds[{tid}] : {t}")
            y = em.op(f"memref.load %lds[{other}] : {t}")
            z = em.op(f"{COMBINE[red.method]} {x}, {y} : f32")
            em.emit(f"memref.store {z}, %lds[{tid}] : {t}")
            self.end()
            s //= 2
        # Thread 0 wrote lds[0] last itself: no barrier before it reads it.
        return lambda: em.op(f"memref.load %lds[{em.c(0)}] : {t}", "total")

    def subgroups(self, part: str, tid: str):
        em, p, red = self.e, self.p, self.red
        if p.target.name == "gfx942":
            sg = em.op(
                f"gpu.subgroup_reduce {SUBGROUP[red.method]} {part} cluster(size = {p.subgroup}) "
                ": (f32) -> f32",
                "sg",
            )
        else:
            sg, off = part, p.subgroup // 2
            while off >= 1:
                sh, ok = em.fresh("sh"), em.fresh("ok")
                em.emit(
                    f"{sh}, {ok} = gpu.shuffle xor {sg}, {em.ci32(off)}, {em.ci32(p.subgroup)} : f32"
                )
                sg = em.op(f"{COMBINE[red.method]} {sg}, {sh} : f32", "sg")
                off //= 2
        if p.subgroups == 1:
            return sg
        t = _memref([p.subgroups], _WG)
        lane = em.op(f"arith.remui {tid}, {em.c(p.subgroup)} : index", "lane")
        sgid = em.op(f"arith.divui {tid}, {em.c(p.subgroup)} : index", "sgid")
        lead = em.op(f"arith.cmpi eq, {lane}, {em.c(0)} : index")
        self.if_(lead)
        em.emit(f"memref.store {sg}, %lds[{sgid}] : {t}")
        self.end()
        em.emit("gpu.barrier")

        def total() -> str:
            acc, i, res = em.fresh("acc"), em.fresh("s"), em.fresh("total")
            em.emit(
                f"{res} = scf.for {i} = {em.c(0)} to {em.c(p.subgroups)} step {em.c(1)} "
                f"iter_args({acc} = {em.cf(IDENTITY[red.method])}) -> (f32) {{"
            )
            em.indent += 1
            x = em.op(f"memref.load %lds[{i}] : {t}")
            nxt = em.op(f"{COMBINE[red.method]} {acc}, {x} : f32")
            em.emit(f"scf.yield {nxt} : f32")
            em.indent -= 1
            em.emit("}")
            return res

        return total

    def merge_kernel(self) -> str:
        """Partials to the output in the fixed order c = 0, 1, ...: one thread per element."""
        em, red, p = self.e, self.red, self.p
        gpu = p.target.is_gpu
        per = p.block if gpu else 1
        em.emit(f"scf.forall (%w) in ({-(-red.elements // per)}) {{")
        em.indent += 1
        if gpu:
            tid = em.op("gpu.thread_id x", "tid")
            base = em.op(f"arith.muli %w, {em.c(per)} : index")
            e = em.op(f"arith.addi {base}, {tid} : index", "elem")
        else:
            e = "%w"
        guard = em.op(f"arith.cmpi ult, {e}, {em.c(red.elements)} : index", "in")
        self.if_(guard)
        coords = self.delinearize(e)
        t = _memref(red.arg_shapes[red.out])
        out = f"{self.arg_names[red.out]}[{', '.join(self.out_index(coords))}]"
        init = em.op(f"memref.load {out} : {t}")
        acc, c, res = em.fresh("acc"), em.fresh("c"), em.fresh("merged")
        em.emit(
            f"{res} = scf.for {c} = {em.c(0)} to {em.c(p.chunks)} step {em.c(1)} "
            f"iter_args({acc} = {init}) -> (f32) {{"
        )
        em.indent += 1
        x = em.op(f"memref.load %partials[{c}, {e}] : {self.partials_type}")
        nxt = em.op(f"{COMBINE[red.method]} {acc}, {x} : f32")
        em.emit(f"scf.yield {nxt} : f32")
        em.indent -= 1
        em.emit("}")
        em.emit(f"memref.store {res}, {out} : {t}")
        self.end()
        em.indent -= 1
        em.emit("} {mapping = [#gpu.block<x>]}")
        return "\n".join(em.lines)


def _function(name: str, params: list[str], body: str, consts: list[str], attrs: str, allocs: list[str]) -> str:
    head = f"func.func @{name}({', '.join(params)})"
    if attrs:
        head += f" attributes {{{attrs}}}"
    inner = "\n".join(consts + [f"    {a}" for a in allocs] + [body, "    func.return"])
    return f"{head} {{\n{inner}\n}}"


def kernels_text(red: Reduction, p: Plan) -> str:
    """The module text of the lowered reduction (before distribution)."""
    name = red.fn.sym_name.data
    params = [
        f"{n}: {_memref(s)}"
        for n, s in zip(KernelWriter(red, p).arg_names, red.arg_shapes)
    ]
    launch_block = p.block if p.target.is_gpu else 1

    def sizes(grid: int) -> str:
        return (
            f"gpu.known_block_size = array<i32: {launch_block}, 1, 1>, "
            f"gpu.known_grid_size = array<i32: {grid}, 1, 1>"
        )

    w = KernelWriter(red, p)
    w.e.indent = 2
    body = w.partial_kernel()
    allocs = []
    if p.stage == "lds":
        allocs.append(f"%lds = memref.alloc() : {_memref([p.block], _WG)}")
    elif p.stage == "subgroup" and p.subgroups > 1:
        allocs.append(f"%lds = memref.alloc() : {_memref([p.subgroups], _WG)}")
    consts = w.e.constants()
    if not p.deterministic:
        return _function(name, params, body, consts, sizes(p.grid), allocs)
    parts = w.partials_type
    first = _function(
        f"{name}_partials", [*params, f"%partials: {parts}"], body, consts, sizes(p.grid), allocs
    )
    m = KernelWriter(red, p)
    merge_body = m.merge_kernel()
    per = p.block if p.target.is_gpu else 1
    merge_items = -(-red.elements // per)
    out_name = m.arg_names[red.out]
    out_param = f"{out_name}: {_memref(red.arg_shapes[red.out])}"
    second = _function(
        f"{name}_merge",
        [f"%partials: {parts}", out_param],
        merge_body,
        m.e.constants(),
        sizes(min(merge_items, p.target.processors * 8)),
        [],
    )
    arg_list = ", ".join(m.arg_names)
    types = ", ".join(_memref(s) for s in red.arg_shapes)
    host = "\n".join(
        [
            f"func.func @{name}({', '.join(params)}) attributes {{{attr_names.HOST}}} {{",
            f"  %partials = memref.alloc() : {parts}",
            f"  func.call @{name}_partials({arg_list}, %partials) : ({types}, {parts}) -> ()",
            f"  func.call @{name}_merge(%partials, {out_name}) : ({parts}, {_memref(red.arg_shapes[red.out])}) -> ()",
            "  memref.dealloc %partials : " + parts,
            "  func.return",
            "}",
        ]
    )
    return "\n".join([host, first, second])


# ---------------------------------------------------------------------------
# The pass
# ---------------------------------------------------------------------------


def describe(p: Plan, red: Reduction) -> str:
    how = {
        "atomic": f"{p.items} blocks of {p.block} threads; each thread reduces {p.chunk} "
        "elements of the axis serially",
        "lds": f"{p.items} work items of {p.chunk} axis elements, a tree over {p.block} threads "
        "in workgroup memory",
        "subgroup": f"{p.items} work items of {p.chunk} axis elements, {p.subgroups} subgroups "
        f"of {p.subgroup} lanes per block",
    }[p.stage]
    tail = (
        f"partials to a {p.chunks}x{red.elements} buffer, then a fixed-order merge kernel"
        if p.deterministic
        else f"{'maxnumf' if red.method == 'max' else 'addf'} atomics into the output"
    )
    chosen = f" (chosen for {p.target.name}: {p.why})" if p.why else ""
    return f"lower-reduce: stage {p.stage}{chosen}: {how}; grid {p.grid}; {tail}"


def _lowerable(m: Match) -> bool | str:
    red = analyze(m.root)
    if isinstance(red, str):
        return red
    m.captures["red"] = red
    return True


def _not_lowerable(m: Match) -> bool | str:
    red = analyze(m.root)
    if isinstance(red, str):
        m.captures["why"] = red
        return True
    return "it is lowerable"


def _lower(m: Match, ir: IRBuilder) -> Sequence[SSAValue] | None:
    red: Reduction = m["red"]
    p = plan(red, m)
    remark(red.op, describe(p, red))
    replace_function(red, p)
    return None


def replace_function(red: Reduction, p: Plan) -> None:
    """Replaces the reduction's function with its kernels, distributed."""
    from xsplit.dialects import make_context
    from xsplit.pipeline import build_pipeline, run_passes
    from xsplit.reader import parse_module

    text = kernels_text(red, p)
    ctx = make_context()
    try:
        module = parse_module(text, "<lower-reduce>", ctx)
    except XsplitError as e:  # a bug in the writer, never the user's input
        raise XsplitError(f"lower-reduce: internal error: {e.message}", red.op) from None
    with collect_remarks() as said:
        run_passes(module, build_pipeline("distribute"), ctx)
    for line in said:  # distribute's choice, said at the reduction rather than in generated text
        remark(red.op, "lower-reduce: " + line.split(" remark: ", 1)[-1])
    fn = red.fn
    new_ops = list(module.body.block.ops)
    for op in new_ops:
        op.detach()
        if isinstance(op, func.FuncOp) and op.sym_name.data == fn.sym_name.data:
            pass
        assert fn.parent is not None
        fn.parent.insert_op_before(op, fn)
    fn.detach()
    fn.erase()


def lower_split(op: Operation, chunk: int, merge: str, target_name: str) -> None:
    """`split-k{merge=...}`: the linalg reduction `op` (a matmul, say) seen as a
    reduction along K in chunks of `chunk`, each work item's partial merged
    inside the split kernel: with atomics, or (`deterministic`) into a
    partials buffer that a fixed-order kernel merges."""
    from xsplit.analysis.reduction import match_reduction

    fn = op.parent_op()
    r = match_reduction(op)
    if isinstance(r, str) or not isinstance(fn, func.FuncOp):
        raise XsplitError(f"split-k: merge={merge} cannot lower this op", op)
    why = _split_lowerable(op, fn, r)
    if why is not None:
        raise XsplitError(f"split-k: merge={merge} needs {why}", op)
    args = list(fn.args)
    loops = [0] * r.num_loops
    for v, m in [*zip(r.inputs, r.input_maps), (r.init, r.output_map)]:
        for p, e in enumerate(m.results):
            loops[e.position] = v.type.get_shape()[p]  # type: ignore[attr-defined,union-attr]
    method = "sum" if r.kind == "add" else "max"
    source = Product([args.index(v) for v in r.inputs], [[e.position for e in m.results] for m in r.input_maps])  # type: ignore[attr-defined]
    red = Reduction(
        fn, op, method, loops, r.reduction_dim, source, args.index(r.init), False,
        [list(a.type.get_shape()) for a in args],  # type: ignore[union-attr]
    )  # fmt: skip
    tgt = find_target(target_name)
    p = plan(red, None, {"target": tgt.name, "stage": "atomic", "chunk": chunk,
                         "deterministic": merge == "deterministic"})  # fmt: skip
    saved = red.elements * p.chunks * 4
    remark(
        op,
        f"split-k: merge={merge} on {tgt.name}: {p.chunks} chunks of {p.chunk} merged inside the "
        f"split kernel ({p.grid} workgroups of {p.block} threads"
        + (
            f", then a fixed-order merge kernel; partials {saved} bytes)"
            if p.deterministic
            else f"); no partial buffer ({saved} bytes saved) and no merge dispatch)"
        ),
    )
    replace_function(red, p)


def _split_lowerable(op: Operation, fn: func.FuncOp, r) -> str | None:
    from xdsl.ir.affine import AffineDimExpr

    args = list(fn.args)
    if op.parent_block() is not fn.body.block:
        return "the op at the top level of its function"
    if not all(_static_f32(a.type) for a in args):
        return "a function on static f32 tensors"
    if r.init not in args or any(v not in args for v in r.inputs):
        return "its operands and init to be function arguments (destination-passing form)"
    ret = fn.body.block.last_op
    if ret is None or list(ret.operands) != [op.results[0]]:
        return "the function to return only the op's result"
    if any(o not in (op, ret) for o in fn.body.block.ops):
        return "the function to hold only the op"
    if r.kind not in ("add", "max") or len(r.inputs) > 2:
        return "a sum or max of one input or of a product of two"
    maps = [*r.input_maps, r.output_map]
    if not all(isinstance(e, AffineDimExpr) for m in maps for e in m.results):
        return "projected-permutation indexing maps"
    parallel = [d for d in range(r.num_loops) if d != r.reduction_dim]
    if [e.position for e in r.output_map.results] != parallel:  # type: ignore[attr-defined]
        return "an output indexed by its parallel loops in order"
    body = list(op.regions[0].block.ops) if op.regions and op.regions[0].blocks else []
    names = [o.name for o in body]
    expected = (["arith.mulf"] if len(r.inputs) == 2 else []) + [r.combiner.name, "linalg.yield"]
    if body and names != expected:
        return "a body that is the combiner of the accumulator and the product of the inputs"
    return None


def _check_target(name: str) -> str | None:
    if not name:
        return "is required (cpu, sm_80, gfx942, ...)"
    try:
        find_target(name)
    except XsplitError as e:
        return e.message.removeprefix("unknown target ").join(("is unknown: ", ""))
    return None


REDUCTIONS = ("rock.reduce", "linalg.reduce")

LOWER_REDUCE_PATTERN = Pattern(
    name="lower-reduce",
    doc="a reduction along one axis in destination-passing form becomes a distributed kernel",
    root=REDUCTIONS,
    where=where("a standalone or fused reduction in destination-passing form", _lowerable),
    rewrite=_lower,
    options=("stage", "deterministic", "target", "block", "grid", "chunk"),
)

NOT_LOWERED = Remark(
    name="lower-reduce-not-applicable",
    doc="says why a reduction is left as it is",
    root=REDUCTIONS,
    where=where("the reduction cannot be lowered", _not_lowerable),
    message=lambda m: f"lower-reduce: left as it is: {m['why']}",
)

LOWER_REDUCE = Pass(
    "lower-reduce",
    "Lowers reductions along an axis to distributed kernels: atomics, LDS trees or subgroup reductions.",
    [LOWER_REDUCE_PATTERN, NOT_LOWERED],
    (
        Option("stage", str, "auto", "atomic, lds or subgroup; auto: the target's choice", STAGES),
        Option("deterministic", bool, False, "no float atomics: partials, then a fixed-order pass"),
        Option("target", str, "", "cpu, sm_80, sm_90, gfx942 (or cuda, rocm)", check=_check_target),
        Option("block", int, 0, "threads per block (default: the target's)"),
        Option("grid", int, 0, "at most this many blocks (default: 8 per processor)"),
        Option("chunk", int, 0, "axis elements per thread and work item (default: 16, or 4 per thread)"),
    ),
)

__all__ = ["LOWER_REDUCE", "analyze", "lower_split"]
