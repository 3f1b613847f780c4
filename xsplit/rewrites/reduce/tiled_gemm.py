"""`lower-reduce`'s tiled kernel for a fused GEMM: C in tiles, the reduction
in the epilogue. On GPU targets lower-reduce writes plain GEMMs through
xsplit's staged GEMM kernel instead (fused_gemm.py, transposed A and B
and reductions along the batch included); this writer keeps what that kernel does not take yet
(several batch loops, a transposed C) and the CPU
form. It builds them op by op
with the kernel builder (named_kernel.py), its tile is the tile table's
(`fused_tiles`), and its subgroup step the builder's one.

A workgroup owns a `tile_m` x `tile_n` tile of C (grid x: tiles along N, y:
tiles along M, z: the batch loops, linearized). On a GPU each of its threads
owns a register sub-tile, strided by the thread counts so that neighbouring
lanes touch neighbouring columns (or rows). K advances in steps of `step_k`:
each step the threads copy the step's A and B tiles from global memory into
workgroup memory (every element loaded once per workgroup, zero outside the
matrix), then every thread multiplies its sub-tile from there. The barriers
around the copies are not written here: `replace_function` runs
`insert-barriers`, and `verify-sync` can check them.

The reduction happens on the tile, in registers, before anything is written:
each thread combines its own values of each row (for a reduction along N;
of each column along M), then, per stage (rocMLIR's RFC, seed 004):

- `atomic`: one atomic per thread and row;
- `lds`: the threads of a row put their partials in workgroup memory, one
  thread per row combines them and adds one atomic per row and workgroup;
- `subgroup`: threads are laid out so that those sharing a row are
  consecutive lanes of one subgroup; they combine with a `gpu.shuffle xor`
  butterfly (NVIDIA) or a clustered `gpu.subgroup_reduce` (gfx942, DPP), and
  the row's first lane adds one atomic per row and workgroup. No workgroup
  memory step is needed, since no row spans subgroups;
- `deterministic`: where an atomic would go, a store into
  `partials[c, e]` (c: the tile, or tile and thread, along the reduced axis;
  e: the output element), and a merge kernel combines the partials in the
  order c = 0, 1, ... from the output's initial value.

A reduction along a batch loop has nothing to combine inside a tile (every
element is its own output): each element goes out with its own atomic (or
partial), whatever the stage.

llvm-cpu runs workgroup-level code only, so there a workgroup is one thread
that loops over its tile (no staging, no workgroup memory), combining each row
serially before its one atomic or partial.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from xsplit.dialects import gpu
from xsplit.rewrites.reduce.named_kernel import (
    ATOMIC,
    IDENTITY,
    host_function,
    memref_of,
    reduction_kernel,
)
from xsplit.rewrites.reduce.plan import Plan
from xsplit.rewrites.reduce.reduced import Gemm, ReductionToLower, loops_of
from xsplit.targets.gemm_tiles import GemmTiles, fused_tiles
from xsplit.targets.table import Target


def gemm_tiles(target: Target) -> GemmTiles:
    """The tiles for `target`: the fused kernels' entry of the tile table."""
    return fused_tiles(target)


def applies(red: ReductionToLower) -> str | None:
    """None when the tiled writer takes `red`, else why not."""
    loops = loops_of(red)
    return loops if isinstance(loops, str) else None


@dataclass
class Axis:
    """M or N of the tile: its loop and sizes, and the SSA values of its
    workgroup offset, thread coordinate and each register's coordinate."""

    name: str
    loop: int
    extent: int
    tile: int
    threads: int
    block: SSAValue | None = None
    base: SSAValue | None = None
    t: SSAValue | None = None
    local: list[SSAValue] | None = None
    """Each register's coordinate in the tile."""
    coords: list[SSAValue] | None = None
    valid: list[SSAValue | None] | None = None

    @property
    def regs(self) -> int:
        return self.tile // self.threads

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
        "tn",
        "tm",
        "k0",
        "kt",
        "kk",
        "a_tile",
        "b_tile",
        "red_tile",
        "partials",
        "slot",
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
        self.gpu = p.target.is_gpu
        self.tiles = tiles or gemm_tiles(p.target)
        t = self.tiles
        if self.gpu:
            assert t.tile_m % t.threads_m == 0 and t.tile_n % t.threads_n == 0
            assert (t.tile_m * t.step_k) % t.thread_count == 0
            assert (t.tile_n * t.step_k) % t.thread_count == 0
        self.m = Axis("m", loops.m, loops.extent[loops.m], t.tile_m, t.threads_m)
        self.n = Axis("n", loops.n, loops.extent[loops.n], t.tile_n, t.threads_n)
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
    def per_thread_partials(self) -> bool:
        """The atomic stage on a GPU keeps one partial per thread (no combining
        across threads), so its deterministic form has one row per thread."""
        return self.gpu and self.p.stage == "atomic"

    @property
    def chunks(self) -> int:
        """Rows of the partials buffer: what the merge combines per output."""
        r = self.reduced_axis
        if r is None:
            return self.loops.extent[self.loops.reduced]
        return r.tiles * (r.threads if self.per_thread_partials else 1)

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

    def below(self, a: SSAValue, bound: int) -> SSAValue:
        return self.e.cmpi("ult", a, bound, "in")

    def both(self, a: SSAValue | None, b: SSAValue | None) -> SSAValue | None:
        if a is None or b is None:
            return a or b
        return self.e.andi(a, b, "in")

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

    def load_global(self, arg: int, idx: list[SSAValue], guard: SSAValue | None = None) -> SSAValue:
        """Every element the kernels read from an argument comes through
        here, as f32: an f16 operand is extended where it is read, so that
        workgroup memory, registers and the products are all f32. With
        `guard`, zero where it is false: nothing is read outside the
        argument."""
        em = self.e
        element = self.red.element(arg)

        def load() -> SSAValue:
            x = em.load_(self.values[arg], idx, "g")
            return x if element == "f32" else em.extf_(x, "g")

        if guard is None:
            return load()
        return em.if_value(guard, "g", load, lambda: em.cf(IDENTITY["sum"]))

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

    def element(self, acc: SSAValue, vals: dict[int, SSAValue], valid: SSAValue | None) -> SSAValue:
        """C at `vals` from its dot product: the GEMM's init added once, C
        stored when the function returns it; the combiner's identity where
        the element is outside C (`valid` false)."""
        em, src = self.e, self.src
        idx = self.c_index(vals)
        if src.init_arg is not None:
            c = em.addf_(acc, self.load_global(src.init_arg, idx, valid), "cv")
        elif src.init_const is not None and float(src.init_const) != 0.0:
            c = em.addf_(acc, em.cf(src.init_const), "cv")
        else:
            c = acc
        if src.store:
            assert src.init_arg is not None
            opened = em.open_if(valid)
            self.store_global(c, src.init_arg, idx)
            em.end(opened)
        if valid is None:
            return c
        return em.select_(valid, c, em.cf(IDENTITY[self.red.method]), "cv")

    # The GPU kernel ------------------------------------------------------

    def gpu_kernel(self) -> None:
        """The tiled kernel's body and its workgroup allocations."""
        em, t, loops, src = self.e, self.tiles, self.loops, self.src
        m, n = self.m, self.n
        tid = em.named(gpu.ThreadIdOp("x"), "tid")
        vals = self.block_ids()
        # The reduced axis varies fastest across lanes: the threads sharing
        # an output are consecutive, within one subgroup.
        fast, slow = (m, n) if self.along == "m" else (n, m)
        fast.t = em.named(arith.RemUIOp(tid, em.c(fast.threads)), f"t{fast.name}")
        slow.t = em.named(arith.DivUIOp(tid, em.c(fast.threads)), f"t{slow.name}")
        for ax in (m, n):
            # Registers strided by the thread count: neighbouring lanes touch
            # neighbouring elements (coalesced, no bank conflicts).
            ax.local = [self.offset(ax.t, ax.threads * u) for u in range(ax.regs)]
            ax.coords = [self.add(ax.base, x) for x in ax.local]
            ax.valid = [self.below(x, ax.extent) if ax.ragged else None for x in ax.coords]
        a_tile = em.alloc_workgroup([t.step_k, t.tile_m], "a_tile")
        b_tile = em.alloc_workgroup([t.step_k, t.tile_n], "b_tile")
        copies = [
            self.copy_plan(src.a, src.a_dims, m, tid, a_tile, vals),
            self.copy_plan(src.b, src.b_dims, n, tid, b_tile, vals),
        ]
        k = loops.extent[loops.k]
        zero = em.cf(IDENTITY["sum"])
        inits = [zero] * (m.regs * n.regs)
        steps = _cdiv(k, t.step_k)
        outer, outer_args, kt = self.for_("kt", em.c(0), em.c(steps), inits)
        k0 = em.named(arith.MuliOp(kt, em.c(t.step_k)), "k0")
        # Each thread copies its share of the step's A and B tiles. All its
        # loads come before the first store, where insert-barriers puts the
        # barrier that waits for the previous step's reads: they are in
        # flight while it waits.
        staged = []
        for arg, tile, items in copies:
            for global_idx, guard_fixed, kk, tile_idx in items:
                kidx = self.add(k0, kk)
                guard = guard_fixed
                if k % t.step_k:
                    guard = self.both(guard, self.below(kidx, k))
                idx = [kidx if x is None else x for x in global_idx]
                staged.append((self.load_global(arg, idx, guard), tile, tile_idx))
        for value, tile, tile_idx in staged:
            em.store(value, tile, tile_idx)
        inner, inner_args, kk = self.for_("kk", em.c(0), em.c(t.step_k), outer_args)
        assert m.local is not None and n.local is not None
        a_vals = [em.load_(a_tile, [kk, x], "a") for x in m.local]
        b_vals = [em.load_(b_tile, [kk, x], "b") for x in n.local]
        nxt = []
        for i in range(m.regs):
            for j in range(n.regs):
                prod = em.mulf_(a_vals[i], b_vals[j], "p")
                nxt.append(em.addf_(inner_args[i * n.regs + j], prod, "s"))
        em.close(*nxt)
        em.close(*inner)
        values = self.epilogue_values(outer, vals)
        self.gpu_epilogue(values, vals, tid)

    def copy_plan(self, arg: int, dims: list[int], ax: Axis, tid: SSAValue, tile: SSAValue, vals):
        """Which elements of a step's tile of operand `arg` each thread copies:
        (global index with None for the step's K, the M/N guard, K offset in
        the step, index into the tile). Consecutive threads take consecutive
        elements along the operand's innermost dimension (coalesced)."""
        em, t, loops = self.e, self.tiles, self.loops
        k_inner = dims.index(loops.k) > dims.index(ax.loop)
        sizes = (ax.tile, t.step_k) if k_inner else (t.step_k, ax.tile)
        items = []
        per_thread = ax.tile * t.step_k // t.thread_count
        for l in range(per_thread):
            flat = self.offset(tid, t.thread_count * l)
            outer = em.divui(flat, sizes[1], "cp")
            inner = em.remui(flat, sizes[1], "cp")
            kk, local = (inner, outer) if k_inner else (outer, inner)
            coord = self.add(ax.base, local)
            guard = self.below(coord, ax.extent) if ax.ragged else None
            idx = []
            for d in dims:
                idx.append(None if d == loops.k else coord if d == ax.loop else vals[d])
            items.append((idx, guard, kk, [kk, local]))
        return arg, tile, items

    def epilogue_values(
        self, accs: list[SSAValue], vals: dict[int, SSAValue]
    ) -> list[list[SSAValue]]:
        """C's elements of this thread, [i][j], ready to combine."""
        m, n = self.m, self.n
        assert (
            m.coords is not None
            and n.coords is not None
            and m.valid is not None
            and n.valid is not None
        )
        out = []
        for i in range(m.regs):
            row = []
            for j in range(n.regs):
                at = {**vals, m.loop: m.coords[i], n.loop: n.coords[j]}
                valid = self.both(m.valid[i], n.valid[j])
                row.append(self.element(accs[i * n.regs + j], at, valid))
            out.append(row)
        return out

    def gpu_epilogue(
        self, values: list[list[SSAValue]], vals: dict[int, SSAValue], tid: SSAValue
    ) -> None:
        em, p = self.e, self.p
        m, n = self.m, self.n
        if self.along == "batch":
            assert m.coords and n.coords and m.valid and n.valid
            chunk = vals[self.loops.reduced]
            for i in range(m.regs):
                for j in range(n.regs):
                    opened = em.open_if(self.both(m.valid[i], n.valid[j]))
                    self.finish(
                        values[i][j], {**vals, m.loop: m.coords[i], n.loop: n.coords[j]}, chunk
                    )
                    em.end(opened)
            return
        q, r = self.kept_axis, self.reduced_axis
        assert q is not None and r is not None and q.coords and q.valid is not None
        assert r.block is not None and r.base is not None and r.t is not None
        # Each thread's partial of each kept row (column), over its registers.
        partial = []
        for u in range(q.regs):
            acc = None
            for w in range(r.regs):
                v = values[u][w] if q is m else values[w][u]
                acc = v if acc is None else self.combine(acc, v)
            assert acc is not None
            partial.append(acc)
        at = lambda u: {**vals, q.loop: q.coords[u]}  # noqa: E731
        if p.stage == "atomic":
            chunk = self.add(self.mul(r.block, r.threads), r.t) if p.deterministic else None
            # A thread none of whose elements along the axis are in C has
            # nothing to add; its partial (the identity) is still stored.
            touched = (
                None
                if p.deterministic or not r.ragged
                else self.below(self.add(r.base, r.t), r.extent)
            )
            for u in range(q.regs):
                opened = em.open_if(self.both(q.valid[u], touched))
                self.finish(partial[u], at(u), chunk)
                em.end(opened)
            return
        if p.stage == "lds":
            red_tile = em.alloc_workgroup([q.tile, r.threads], "red_tile")
            assert q.local is not None and q.base is not None
            for u in range(q.regs):
                em.store(partial[u], red_tile, [q.local[u], r.t])
            assert q.tile <= self.tiles.thread_count
            opened = em.open_if(self.below(tid, q.tile))
            res, args, slot = self.for_(
                "slot", em.c(0), em.c(r.threads), [em.cf(IDENTITY[self.red.method])], "total"
            )
            x = em.load_(red_tile, [tid, slot], "x")
            em.close(self.combine(args[0], x))
            coord = self.add(q.base, tid)
            inside = em.open_if(self.below(coord, q.extent) if q.ragged else None)
            self.finish(res[0], {**vals, q.loop: coord}, r.block)
            em.end(inside)
            em.end(opened)
            return
        # subgroup: lanes sharing a row are r.threads consecutive lanes.
        assert r.threads <= p.subgroup and r.threads & (r.threads - 1) == 0
        dpp = p.target.name == "gfx942"
        total = [
            em.subgroup_combine(self.red.method, partial[u], r.threads, p.subgroup, dpp, hint="v")
            for u in range(q.regs)
        ]
        lead = em.open_if(em.cmpi("eq", r.t, 0, "lead"))
        for u in range(q.regs):
            opened = em.open_if(q.valid[u])
            self.finish(total[u], at(u), r.block)
            em.end(opened)
        em.end(lead)

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
            self.finish(self.element(self.dot(at), at, None), at, vals[self.loops.reduced])
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
        em.close(self.combine(args[0], self.element(self.dot(at), at, None)))
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
        initial value: a thread per element on a GPU, a loop per workgroup on
        the CPU. The output's last dimension runs along grid x and its others
        along grid y, so that every index stays affine in the thread id (the
        access analysis decides them; a linear element index split with
        div/rem would not be). Returns the grid and block."""
        em, red = self.e, self.red
        assert self.partials is not None
        sizes = [s for d, s in enumerate(red.shape) if d != red.axis]
        last, outer = sizes[-1], sizes[:-1]
        rows = 1
        for s in outer:
            rows *= s
        per = self.tiles.thread_count if self.gpu else 64
        base = self.mul(em.block_id_("x", "wg"), per)
        coords: list[SSAValue] = []
        if outer:
            rest = em.block_id_("y", "wg_rows")
            for i, size in enumerate(reversed(outer)):
                first = i == len(outer) - 1
                coords.insert(0, rest if first else em.remui(rest, size, "o"))
                if not first:
                    rest = em.divui(rest, size, "o")
        if self.gpu:
            coord = self.add(base, em.named(gpu.ThreadIdOp("x"), "tid"))
            opened = em.open_if(self.below(coord, last) if last % per else None)
            grid, block = (_cdiv(last, per), rows, 1), (per, 1, 1)
        else:
            hi = em.minui(self.offset(base, per), last, "end")
            _, _, coord = self.for_("elem", base, hi, [])
            opened = True
            grid, block = (_cdiv(last, per), rows, 1), (1, 1, 1)
        coords.append(coord)
        e = self.linear(coords)
        idx = self.out_index(coords)
        init = self.load_global(red.out, idx)
        res, args, chunk = self.for_("chunk", em.c(0), em.c(self.chunks), [init], "merged")
        x = em.load_(self.partials, [chunk, e], "x")
        em.close(self.combine(args[0], x))
        self.store_global(res[0], red.out, idx)
        em.end(opened)
        return grid, block

    # Description ----------------------------------------------------------

    def describe(self) -> str:
        p, t, red = self.p, self.tiles, self.red
        gx, gy, gz = self.grid
        row = {"n": "row", "m": "column", "batch": "element"}[self.along]
        out = "stores one partial" if p.deterministic else f"adds one {ATOMIC[red.method]} atomic"
        if self.gpu:
            how = (
                f"the fused GEMM in {t.tile_m}x{t.tile_n} C tiles, one per workgroup of "
                f"{t.thread_count} threads holding {t.regs_m}x{t.regs_n} each in registers; "
                "A and B "
                f"staged through workgroup memory {t.step_k} K elements at a time "
                "(barriers placed by insert-barriers)"
            )
            r = self.reduced_axis
            if r is None:
                epi = (
                    "the batch axis is reduced across workgroups: every element of a tile is its "
                    f"own output, and its thread {out} per element"
                )
            elif p.stage == "atomic":
                epi = f"each thread combines its {r.regs} values of each {row} and {out} per {row}"
            elif p.stage == "lds":
                epi = (
                    f"the {r.threads} threads of a {row} meet in workgroup memory, where one thread "
                    f"per {row} combines them and {out} per {row} and workgroup"
                )
            else:
                via = (
                    f"gpu.subgroup_reduce cluster(size = {r.threads}) (DPP)"
                    if p.target.name == "gfx942"
                    else "a gpu.shuffle xor butterfly"
                )
                epi = (
                    f"the {r.threads} lanes of a {row}, consecutive in one subgroup, combine with "
                    f"{via} and the first {out} per {row} and workgroup (no workgroup-memory step)"
                )
        else:
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
    """The fused GEMM's kernels, without barriers: the kernel named like the
    function, or for the deterministic form a host function of that name,
    `{name}_partials` and `{name}_merge`."""
    w = TiledGemm(red, p, tiles)
    name = red.fn.sym_name.data
    if w.gpu:
        w.gpu_kernel()
        block = (w.tiles.thread_count, 1, 1)
    else:
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
