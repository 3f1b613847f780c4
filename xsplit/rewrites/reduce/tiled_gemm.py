"""`lower-reduce`'s fused GEMM + reduction on llvm-cpu, which runs
workgroup-level code only: a workgroup is one thread that loops over its
C tile (the tile table's `FUSED_CPU`: 32x32, no staging, no workgroup
memory, no barriers), each element's dot product straight from memory
(its caches hold the tile's rows of A and B), each row (or column)
combined serially before its one atomic or partial. A reduction along a
batch loop has nothing to combine inside a tile: every element goes out
with its own atomic (or partial). The deterministic form stores partials
`partials[c, e]` (c: the tile along the reduced axis) that a merge kernel
combines in the order c = 0, 1, ... from the output's initial value.

On GPU targets the fused GEMM is xsplit's staged kernel (fused_gemm.py);
this loop nest stays for the CPU until the staged ops have a CPU lowering.
Built op by op with the kernel builder (named_kernel.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from xsplit.rewrites.reduce.named_kernel import (
    ATOMIC,
    IDENTITY,
    host_function,
    memref_of,
    reduction_kernel,
)
from xsplit.rewrites.reduce.plan import Plan
from xsplit.rewrites.reduce.reduced import Gemm, ReductionToLower, loops_of
from xsplit.targets.gemm_tiles import FUSED_CPU, GemmTiles


def applies(red: ReductionToLower, p: Plan) -> str | None:
    """None when the loop nest takes `red` on `p`'s target, else why not."""
    if p.target.is_gpu:
        return f"{p.target.name} takes the staged kernel"
    loops = loops_of(red)
    return loops if isinstance(loops, str) else None


@dataclass
class Axis:
    """M or N of the tile: its loop and sizes, and the SSA values of its
    workgroup's index and offset."""

    name: str
    loop: int
    extent: int
    tile: int
    block: SSAValue | None = None
    base: SSAValue | None = None

    @property
    def ragged(self) -> bool:
        return self.extent % self.tile != 0

    @property
    def tiles(self) -> int:
        return -(-self.extent // self.tile)


_OWN_NAMES = frozenset(
    {
        "tid",
        "tile_n",
        "tile_m",
        "n0",
        "m0",
        "batch",
        "partials",
        "kept",
        "along",
        "row",
        "col",
        "kidx",
        "elem",
        "chunk",
        "wg",
        "wg_rows",
    }
)


def _free(hint: str | None) -> bool:
    """Whether an argument may keep its name: not one the writer gives its
    own values, nor shaped like its fresh names and constants (`%v12`, `%c0`)."""
    return bool(hint) and hint not in _OWN_NAMES and not re.fullmatch(r"[a-z]+\d+", hint or "")


MERGED_PER_WORKGROUP = 64
"""Outputs the merge kernel's one thread per workgroup combines."""


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


class TiledGemm:
    """Builds the kernels of one fused GEMM + reduction: the tiled kernel
    or, with `merge`, the deterministic form's merge kernel."""

    def __init__(
        self, red: ReductionToLower, p: Plan, tiles: GemmTiles | None = None, merge: bool = False
    ):
        loops = loops_of(red)
        assert not isinstance(loops, str), loops
        assert isinstance(red.source, Gemm)
        self.red, self.p, self.src, self.loops = red, p, red.source, loops
        assert not p.target.is_gpu, "GPU targets take the staged kernel"
        self.tiles = tiles or FUSED_CPU
        t = self.tiles
        self.m = Axis("m", loops.m, loops.extent[loops.m], t.tile_m)
        self.n = Axis("n", loops.n, loops.extent[loops.n], t.tile_n)
        hints = [a.name_hint for a in red.fn.args]
        self.names = [h if h and _free(h) else f"arg{i}" for i, h in enumerate(hints)]
        params = [(n, self.arg_type(i)) for i, n in enumerate(self.names)]
        self.e, self.partials, self.values = reduction_kernel(
            params, red.out, self.partials_type, merge, p.deterministic
        )

    # Sizes ----------------------------------------------------------------

    @property
    def along(self) -> str:
        return self.loops.along

    @property
    def reduced_axis(self) -> Axis | None:
        return {"m": self.m, "n": self.n}.get(self.along)

    @property
    def kept_axis(self) -> Axis | None:
        return {"m": self.n, "n": self.m}.get(self.along)

    @property
    def grid(self) -> tuple[int, int, int]:
        batch = 1
        for d in self.loops.batch:
            batch *= self.loops.extent[d]
        return (self.n.tiles, self.m.tiles, batch)

    @property
    def chunks(self) -> int:
        """Rows of the partials buffer: what the merge combines per output."""
        r = self.reduced_axis
        if r is None:
            return self.loops.extent[self.loops.reduced]
        return r.tiles

    @property
    def partials_type(self) -> MemRefType:
        return memref_of([self.chunks, self.red.elements])

    def arg_type(self, arg: int) -> MemRefType:
        return memref_of(self.red.arg_shapes[arg], self.red.element(arg))

    # Index arithmetic and control flow, named as the kernel prints them -----

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.e.addi(a, b)

    def mul(self, a: SSAValue, c: int) -> SSAValue:
        return a if c == 1 else self.e.muli(a, c)

    def offset(self, a: SSAValue, c: int) -> SSAValue:
        return a if c == 0 else self.add(a, self.e.c(c))

    def combine(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.e.combine_(self.red.method, a, b)

    def for_(
        self, iv: str, lo: SSAValue, hi: SSAValue, inits: list[SSAValue], hint: str = "acc"
    ) -> tuple[list[SSAValue], list[SSAValue], SSAValue]:
        """Opens an `scf.for` of step 1 carrying `inits`; returns (results,
        iteration arguments, induction variable)."""
        em = self.e
        results = [em.fresh(hint) for _ in inits]
        args = [em.fresh("it") for _ in inits]
        return em.open_for(lo, hi, em.c(1), inits, iv, args, results)

    def load_global(self, arg: int, idx: list[SSAValue]) -> SSAValue:
        """Every element the kernels read from an argument comes through
        here, as f32: an f16 operand is extended where it is read, so that
        the products are all f32."""
        em = self.e
        x = em.load_(self.values[arg], idx, "g")
        return x if self.red.element(arg) == "f32" else em.extf_(x, "g")

    def store_global(self, value: SSAValue, arg: int, idx: list[SSAValue]) -> None:
        # Only f32 arguments are written (C and the output accumulate in f32).
        self.e.store(value, self.values[arg], idx)

    # Indices --------------------------------------------------------------

    def c_index(self, vals: dict[int, SSAValue]) -> list[SSAValue]:
        return [vals[d] for d in self.src.out_dims]

    def out_coords(self, vals: dict[int, SSAValue]) -> list[SSAValue]:
        """The output element's coordinates (the reduced tensor's, less the axis)."""
        return [vals[d] for pos, d in enumerate(self.src.out_dims) if pos != self.red.axis]

    def out_index(self, coords: list[SSAValue]) -> list[SSAValue]:
        if not self.red.keepdim:
            return coords
        out = list(coords)
        out.insert(self.red.axis, self.e.c(0))
        return out

    def linear(self, coords: list[SSAValue]) -> SSAValue:
        """The output element's row-major position among `red.elements`."""
        sizes = [s for d, s in enumerate(self.red.shape) if d != self.red.axis]
        e = None
        stride = 1
        for coord, size in zip(reversed(coords), reversed(sizes)):
            term = self.mul(coord, stride)
            e = term if e is None else self.add(e, term)
            stride *= size
        return e if e is not None else self.e.c(0)

    def finish(self, value: SSAValue, vals: dict[int, SSAValue], chunk: SSAValue | None) -> None:
        """An output's partial: an atomic into the output, or a partials store."""
        red, em = self.red, self.e
        coords = self.out_coords(vals)
        if self.partials is not None:
            assert chunk is not None
            e = self.linear(coords)
            em.store(value, self.partials, [chunk, e])
            return
        em.atomic_(red.method, value, self.values[red.out], self.out_index(coords))

    def block_ids(self) -> dict[int, SSAValue]:
        """Tile offsets (`%m0`, `%n0`) and the batch loops' values from the block ids."""
        em, loops = self.e, self.loops
        self.n.block = em.block_id_("x", "tile_n")
        self.m.block = em.block_id_("y", "tile_m")
        self.n.base = em.named(arith.MuliOp(self.n.block, em.c(self.n.tile)), "n0")
        self.m.base = em.named(arith.MuliOp(self.m.block, em.c(self.m.tile)), "m0")
        vals: dict[int, SSAValue] = {}
        if loops.batch:
            z = em.block_id_("z", "batch")
            for d in reversed(loops.batch):
                size = loops.extent[d]
                if d == loops.batch[0]:
                    vals[d] = z
                else:
                    vals[d] = em.remui(z, size, "b")
                    z = em.divui(z, size, "b")
        return vals

    def element(self, acc: SSAValue, vals: dict[int, SSAValue]) -> SSAValue:
        """C at `vals` from its dot product: the GEMM's init added once, C
        stored when the function returns it (the loops stay inside C)."""
        em, src = self.e, self.src
        idx = self.c_index(vals)
        if src.init_arg is not None:
            c = em.addf_(acc, self.load_global(src.init_arg, idx), "cv")
        elif src.init_const is not None and float(src.init_const) != 0.0:
            c = em.addf_(acc, em.cf(src.init_const), "cv")
        else:
            c = acc
        if src.store:
            assert src.init_arg is not None
            self.store_global(c, src.init_arg, idx)
        return c

    # The CPU kernel ------------------------------------------------------

    def cpu_kernel(self) -> None:
        """One thread per workgroup: loops over the tile, each element's dot
        product straight from memory (llvm-cpu has no workgroup memory; its
        caches hold the tile's rows of A and B)."""
        em = self.e
        vals = self.block_ids()
        m, n = self.m, self.n
        ends = {}
        for ax in (m, n):
            assert ax.base is not None
            end = self.offset(ax.base, ax.tile)
            ends[ax.name] = em.minui(end, ax.extent, "end") if ax.ragged else end
        if self.along == "batch":
            assert m.base is not None and n.base is not None
            _, _, row = self.for_("row", m.base, ends["m"], [])
            _, _, col = self.for_("col", n.base, ends["n"], [])
            at = {**vals, m.loop: row, n.loop: col}
            self.finish(self.element(self.dot(at), at), at, vals[self.loops.reduced])
            em.close()
            em.close()
            return
        q, r = self.kept_axis, self.reduced_axis
        assert q is not None and r is not None and q.base is not None and r.base is not None
        _, _, kept = self.for_("kept", q.base, ends[q.name], [])
        res, args, along = self.for_(
            "along", r.base, ends[r.name], [em.cf(IDENTITY[self.red.method])], "part"
        )
        at = {**vals, q.loop: kept, r.loop: along}
        em.close(self.combine(args[0], self.element(self.dot(at), at)))
        self.finish(res[0], {**vals, q.loop: kept}, r.block)
        em.close()

    def dot(self, at: dict[int, SSAValue]) -> SSAValue:
        em, src, loops = self.e, self.src, self.loops
        res, args, kidx = self.for_(
            "kidx", em.c(0), em.c(loops.extent[loops.k]), [em.cf(IDENTITY["sum"])], "dot"
        )
        idx = {**at, loops.k: kidx}
        a = self.load_global(src.a, [idx[d] for d in src.a_dims])
        b = self.load_global(src.b, [idx[d] for d in src.b_dims])
        prod = em.mulf_(a, b, "p")
        em.close(em.addf_(args[0], prod, "s"))
        return res[0]

    # The merge kernel ----------------------------------------------------

    def merge_kernel(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """Partials into the output in the fixed order c = 0, 1, ... from its
        initial value, a loop over 64 elements per workgroup. The output's
        last dimension runs along grid x and its others along grid y. Returns
        the grid and block."""
        em, red = self.e, self.red
        assert self.partials is not None
        sizes = [s for d, s in enumerate(red.shape) if d != red.axis]
        last, outer = sizes[-1], sizes[:-1]
        rows = 1
        for s in outer:
            rows *= s
        per = MERGED_PER_WORKGROUP
        base = self.mul(em.block_id_("x", "wg"), per)
        coords: list[SSAValue] = []
        if outer:
            rest = em.block_id_("y", "wg_rows")
            for i, size in enumerate(reversed(outer)):
                first = i == len(outer) - 1
                coords.insert(0, rest if first else em.remui(rest, size, "o"))
                if not first:
                    rest = em.divui(rest, size, "o")
        hi = em.minui(self.offset(base, per), last, "end")
        _, _, coord = self.for_("elem", base, hi, [])
        grid, block = (_cdiv(last, per), rows, 1), (1, 1, 1)
        coords.append(coord)
        e = self.linear(coords)
        idx = self.out_index(coords)
        init = self.load_global(red.out, idx)
        res, args, chunk = self.for_("chunk", em.c(0), em.c(self.chunks), [init], "merged")
        x = em.load_(self.partials, [chunk, e], "x")
        em.close(self.combine(args[0], x))
        self.store_global(res[0], red.out, idx)
        em.close()
        return grid, block

    # Description ----------------------------------------------------------

    def describe(self) -> str:
        p, t, red = self.p, self.tiles, self.red
        gx, gy, gz = self.grid
        row = {"n": "row", "m": "column", "batch": "element"}[self.along]
        out = "stores one partial" if p.deterministic else f"adds one {ATOMIC[red.method]} atomic"
        how = (
            f"the fused GEMM in {t.tile_m}x{t.tile_n} C tiles, one per workgroup of one thread "
            "that loops over its tile (llvm-cpu: no workgroup memory, no staging)"
        )
        epi = f"each {row} combined serially, then the workgroup {out} per {row}"
        if p.deterministic:
            epi += f"; partials in a {self.chunks}x{red.elements} buffer, then a fixed-order merge kernel"
        chosen = f" (chosen for {p.target.name}: {p.why})" if p.why else ""
        return f"lower-reduce: stage {p.stage}{chosen}: {how}; grid {gx}x{gy}x{gz}; {epi}"


def kernels(red: ReductionToLower, p: Plan, tiles: GemmTiles | None = None) -> list[Operation]:
    """The fused GEMM's kernels: the kernel named like the
    function, or for the deterministic form a host function of that name,
    `{name}_partials` and `{name}_merge`."""
    w = TiledGemm(red, p, tiles)
    name = red.fn.sym_name.data
    w.cpu_kernel()
    block = (1, 1, 1)
    if not p.deterministic:
        return [w.e.function(name, w.grid, block)]
    first = w.e.function(f"{name}_partials", w.grid, block)
    m = TiledGemm(red, p, tiles, merge=True)
    grid, mblock = m.merge_kernel()
    second = m.e.function(f"{name}_merge", grid, mblock)
    args = [(n, w.arg_type(i)) for i, n in enumerate(w.names)]
    host = host_function(name, args, red.out, w.partials_type)
    return [host, first, second]


def describe(red: ReductionToLower, p: Plan, tiles: GemmTiles | None = None) -> str:
    return TiledGemm(red, p, tiles).describe()
