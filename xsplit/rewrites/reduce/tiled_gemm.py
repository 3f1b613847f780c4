"""`lower-reduce`'s text kernel for a fused GEMM: C in tiles, the reduction
in the epilogue. On GPU targets lower-reduce writes plain GEMMs through
xsplit's staged GEMM kernel instead (fused_gemm.py); this writer keeps what
that kernel does not take yet (reductions along a batch, several batch
loops, transposed operands or C) and the CPU form.

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

from xsplit.rewrites.reduce.emit import (
    ATOMIC,
    COMBINE,
    IDENTITY,
    SUBGROUP,
    WORKGROUP,
    Emitter,
    function_text,
    host_text,
    memref_type,
)
from xsplit.rewrites.reduce.plan import Plan
from xsplit.rewrites.reduce.reduced import Gemm, ReductionToLower, loops_of
from xsplit.targets.table import Target


@dataclass(frozen=True)
class GemmTiles:
    """One workgroup's share of a fused GEMM."""

    tile_m: int
    tile_n: int
    step_k: int
    """K elements staged through workgroup memory per step; 0: no staging."""
    threads_m: int
    threads_n: int

    @property
    def threads(self) -> int:
        return self.threads_m * self.threads_n

    @property
    def regs_m(self) -> int:
        return self.tile_m // self.threads_m

    @property
    def regs_n(self) -> int:
        return self.tile_n // self.threads_n


# Global loads per FMA are 1/tile_m + 1/tile_n whatever `step_k` is (each step
# loads (tile_m + tile_n) * step_k elements for tile_m * tile_n * step_k FMAs):
# 64x64 gives 1/32, against 2 for one dot product per thread. 256 threads with
# 4x4 registers each cover it; 16 lanes per row fit a warp (32) and a wave
# (64), so the subgroup stage needs no workgroup memory. `step_k` = 16 makes
# each thread copy exactly 4 elements of A and 4 of B per step, 8 KiB of
# workgroup memory for both tiles, and two barriers per 16 K elements; 8 or 32
# leave loads per FMA the same (bench/fused_gemm_loads.py --step-k measures it).
GPU_TILES = GemmTiles(tile_m=64, tile_n=64, step_k=16, threads_m=16, threads_n=16)
# One thread per workgroup: a tile is a loop nest, sized so that a 512x512 C
# still makes 256 workgroups for the runtime's threads to share.
CPU_TILES = GemmTiles(tile_m=32, tile_n=32, step_k=0, threads_m=1, threads_n=1)
TILES: dict[str, GemmTiles] = {"sm_80": GPU_TILES, "sm_90": GPU_TILES, "gfx942": GPU_TILES}


def gemm_tiles(target: Target) -> GemmTiles:
    """The tiles for `target`: the one place they are chosen."""
    if not target.is_gpu:
        return CPU_TILES
    return TILES.get(target.name, GPU_TILES)


def applies(red: ReductionToLower) -> str | None:
    """None when the tiled writer takes `red`, else why not."""
    loops = loops_of(red)
    return loops if isinstance(loops, str) else None


@dataclass
class Axis:
    """M or N of the tile: its loop and sizes, and the SSA names of its
    workgroup offset, thread coordinate and each register's coordinate."""

    name: str
    loop: int
    extent: int
    tile: int
    threads: int
    block: str = ""
    base: str = ""
    t: str = ""
    local: list[str] | None = None
    """Each register's coordinate in the tile."""
    coords: list[str] | None = None
    valid: list[str | None] | None = None

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
    """Writes the kernels of one fused GEMM + reduction as MLIR text."""

    def __init__(self, red: ReductionToLower, p: Plan, tiles: GemmTiles | None = None):
        loops = loops_of(red)
        assert not isinstance(loops, str), loops
        assert isinstance(red.source, Gemm)
        self.red, self.p, self.src, self.loops = red, p, red.source, loops
        self.gpu = p.target.is_gpu
        self.tiles = tiles or gemm_tiles(p.target)
        t = self.tiles
        if self.gpu:
            assert t.tile_m % t.threads_m == 0 and t.tile_n % t.threads_n == 0
            assert (t.tile_m * t.step_k) % t.threads == 0 and (t.tile_n * t.step_k) % t.threads == 0
        self.e = Emitter()
        hints = [a.name_hint for a in red.fn.args]
        self.names = [f"%{h}" if _free(h) else f"%arg{i}" for i, h in enumerate(hints)]
        self.m = Axis("m", loops.m, loops.extent[loops.m], t.tile_m, t.threads_m)
        self.n = Axis("n", loops.n, loops.extent[loops.n], t.tile_n, t.threads_n)

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
    def partials_type(self) -> str:
        return memref_type([self.chunks, self.red.elements])

    # Text helpers ---------------------------------------------------------

    def named(self, name: str, text: str) -> str:
        self.e.emit(f"%{name} = {text}")
        return f"%{name}"

    def add(self, a: str, b: str) -> str:
        return self.e.op(f"arith.addi {a}, {b} : index")

    def mul(self, a: str, c: int) -> str:
        return a if c == 1 else self.e.op(f"arith.muli {a}, {self.e.c(c)} : index")

    def offset(self, a: str, c: int) -> str:
        return a if c == 0 else self.add(a, self.e.c(c))

    def below(self, a: str, bound: int) -> str:
        return self.e.op(f"arith.cmpi ult, {a}, {self.e.c(bound)} : index", "in")

    def both(self, a: str | None, b: str | None) -> str | None:
        if a is None or b is None:
            return a or b
        return self.e.op(f"arith.andi {a}, {b} : i1", "in")

    def combine(self, a: str, b: str) -> str:
        return self.e.op(f"{COMBINE[self.red.method]} {a}, {b} : f32")

    def if_(self, cond: str | None) -> bool:
        if cond is None:
            return False
        self.e.emit(f"scf.if {cond} {{")
        self.e.indent += 1
        return True

    def end(self, opened: bool = True) -> None:
        if opened:
            self.e.indent -= 1
            self.e.emit("}")

    def for_(
        self, iv: str, lo: str, hi: str, inits: list[str], hint: str = "acc"
    ) -> tuple[list[str], list[str]]:
        """Opens an `scf.for` carrying `inits`; returns (results, block arguments)."""
        em = self.e
        results = [em.fresh(hint) for _ in inits]
        args = [em.fresh("it") for _ in inits]
        carried = ", ".join(f"{a} = {i}" for a, i in zip(args, inits))
        head = f"scf.for {iv} = {lo} to {hi} step {em.c(1)}"
        if inits:
            lhs = ", ".join(results)
            types = ", ".join("f32" for _ in inits)
            em.emit(f"{lhs} = {head} iter_args({carried}) -> ({types}) {{")
        else:
            em.emit(f"{head} {{")
        em.indent += 1
        return results, args

    def end_for(self, yielded: list[str]) -> None:
        if yielded:
            self.e.emit(f"scf.yield {', '.join(yielded)} : {', '.join('f32' for _ in yielded)}")
        self.end()

    def load_global(self, arg: int, idx: list[str], guard: str | None = None) -> str:
        """Every element the kernels read from an argument comes through
        here, as f32: an f16 operand is extended where it is read, so that
        workgroup memory, registers and the products are all f32. With
        `guard`, zero where it is false: nothing is read outside the
        argument."""
        em = self.e
        element = self.red.element(arg)

        def load() -> str:
            x = em.op(
                f"memref.load {self.names[arg]}[{', '.join(idx)}] : {self.arg_type(arg)}", "g"
            )
            return x if element == "f32" else em.op(f"arith.extf {x} : {element} to f32", "g")

        if guard is None:
            return load()
        res = em.fresh("g")
        em.emit(f"{res} = scf.if {guard} -> (f32) {{")
        em.indent += 1
        x = load()
        em.emit(f"scf.yield {x} : f32")
        em.indent -= 1
        em.emit("} else {")
        em.indent += 1
        em.emit(f"scf.yield {em.cf(IDENTITY['sum'])} : f32")
        em.indent -= 1
        em.emit("}")
        return res

    def arg_type(self, arg: int) -> str:
        return memref_type(self.red.arg_shapes[arg], element=self.red.element(arg))

    def store_global(self, value: str, arg: int, idx: list[str]) -> None:
        # Only f32 arguments are written (C and the output accumulate in f32).
        self.e.emit(
            f"memref.store {value}, {self.names[arg]}[{', '.join(idx)}] : {self.arg_type(arg)}"
        )

    # Indices --------------------------------------------------------------

    def c_index(self, vals: dict[int, str]) -> list[str]:
        return [vals[d] for d in self.src.out_dims]

    def out_coords(self, vals: dict[int, str]) -> list[str]:
        """The output element's coordinates (the reduced tensor's, less the axis)."""
        return [vals[d] for pos, d in enumerate(self.src.out_dims) if pos != self.red.axis]

    def out_index(self, coords: list[str]) -> list[str]:
        if not self.red.keepdim:
            return coords
        out = list(coords)
        out.insert(self.red.axis, self.e.c(0))
        return out

    def linear(self, coords: list[str]) -> str:
        """The output element's row-major position among `red.elements`."""
        sizes = [s for d, s in enumerate(self.red.shape) if d != self.red.axis]
        e = None
        stride = 1
        for coord, size in zip(reversed(coords), reversed(sizes)):
            term = self.mul(coord, stride)
            e = term if e is None else self.add(e, term)
            stride *= size
        return e if e is not None else self.e.c(0)

    def finish(self, value: str, vals: dict[int, str], chunk: str) -> None:
        """An output's partial: an atomic into the output, or a partials store."""
        red, em = self.red, self.e
        coords = self.out_coords(vals)
        if self.p.deterministic:
            e = self.linear(coords)
            em.emit(f"memref.store {value}, %partials[{chunk}, {e}] : {self.partials_type}")
            return
        t = memref_type(red.arg_shapes[red.out])
        idx = ", ".join(self.out_index(coords))
        em.op(
            f"memref.atomic_rmw {ATOMIC[red.method]} {value}, {self.names[red.out]}[{idx}] "
            f": (f32, {t}) -> f32",
            "old",
        )

    def block_ids(self) -> dict[int, str]:
        """Tile offsets (`%m0`, `%n0`) and the batch loops' values from the block ids."""
        em, loops = self.e, self.loops
        self.n.block = self.named("tile_n", "gpu.block_id x")
        self.m.block = self.named("tile_m", "gpu.block_id y")
        self.n.base = self.named("n0", f"arith.muli %tile_n, {em.c(self.n.tile)} : index")
        self.m.base = self.named("m0", f"arith.muli %tile_m, {em.c(self.m.tile)} : index")
        vals: dict[int, str] = {}
        if loops.batch:
            z = self.named("batch", "gpu.block_id z")
            for d in reversed(loops.batch):
                size = loops.extent[d]
                if d == loops.batch[0]:
                    vals[d] = z
                else:
                    vals[d] = em.op(f"arith.remui {z}, {em.c(size)} : index", "b")
                    z = em.op(f"arith.divui {z}, {em.c(size)} : index", "b")
        return vals

    def element(self, acc: str, vals: dict[int, str], valid: str | None) -> str:
        """C at `vals` from its dot product: the GEMM's init added once, C
        stored when the function returns it; the combiner's identity where
        the element is outside C (`valid` false)."""
        em, src = self.e, self.src
        idx = self.c_index(vals)
        if src.init_arg is not None:
            c = em.op(f"arith.addf {acc}, {self.load_global(src.init_arg, idx, valid)} : f32", "cv")
        elif src.init_const is not None and float(src.init_const) != 0.0:
            c = em.op(f"arith.addf {acc}, {em.cf(src.init_const)} : f32", "cv")
        else:
            c = acc
        if src.store:
            assert src.init_arg is not None
            opened = self.if_(valid)
            self.store_global(c, src.init_arg, idx)
            self.end(opened)
        if valid is None:
            return c
        return em.op(f"arith.select {valid}, {c}, {em.cf(IDENTITY[self.red.method])} : f32", "cv")

    # The GPU kernel ------------------------------------------------------

    def gpu_kernel(self) -> tuple[str, list[str]]:
        """The body of the tiled kernel and its workgroup allocations."""
        em, t, loops, src = self.e, self.tiles, self.loops, self.src
        m, n = self.m, self.n
        tid = self.named("tid", "gpu.thread_id x")
        vals = self.block_ids()
        # The reduced axis varies fastest across lanes: the threads sharing
        # an output are consecutive, within one subgroup.
        fast, slow = (m, n) if self.along == "m" else (n, m)
        fast.t = self.named(f"t{fast.name}", f"arith.remui {tid}, {em.c(fast.threads)} : index")
        slow.t = self.named(f"t{slow.name}", f"arith.divui {tid}, {em.c(fast.threads)} : index")
        for ax in (m, n):
            # Registers strided by the thread count: neighbouring lanes touch
            # neighbouring elements (coalesced, no bank conflicts).
            ax.local = [self.offset(ax.t, ax.threads * u) for u in range(ax.regs)]
            ax.coords = [self.add(ax.base, x) for x in ax.local]
            ax.valid = [self.below(x, ax.extent) if ax.ragged else None for x in ax.coords]
        a_tile = memref_type([t.step_k, t.tile_m], WORKGROUP)
        b_tile = memref_type([t.step_k, t.tile_n], WORKGROUP)
        allocs = [f"%a_tile = memref.alloc() : {a_tile}", f"%b_tile = memref.alloc() : {b_tile}"]
        copies = [
            self.copy_plan(src.a, src.a_dims, m, "%a_tile", a_tile, vals),
            self.copy_plan(src.b, src.b_dims, n, "%b_tile", b_tile, vals),
        ]
        k = loops.extent[loops.k]
        zero = em.cf(IDENTITY["sum"])
        inits = [zero] * (m.regs * n.regs)
        steps = _cdiv(k, t.step_k)
        outer, outer_args = self.for_("%kt", em.c(0), em.c(steps), inits)
        k0 = self.named("k0", f"arith.muli %kt, {em.c(t.step_k)} : index")
        # Each thread copies its share of the step's A and B tiles. All its
        # loads come before the first store, where insert-barriers puts the
        # barrier that waits for the previous step's reads: they are in
        # flight while it waits.
        staged = []
        for copy in copies:
            for global_idx, guard_fixed, kk, tile_idx in copy["items"]:
                kidx = self.add(k0, kk)
                guard = guard_fixed
                if k % t.step_k:
                    guard = self.both(guard, self.below(kidx, k))
                idx = [kidx if x == "K" else x for x in global_idx]
                staged.append((self.load_global(copy["arg"], idx, guard), copy, tile_idx))
        for value, copy, tile_idx in staged:
            em.emit(f"memref.store {value}, {copy['tile']}[{tile_idx}] : {copy['type']}")
        inner, inner_args = self.for_("%kk", em.c(0), em.c(t.step_k), outer_args)
        assert m.local is not None and n.local is not None
        a_vals = [em.op(f"memref.load %a_tile[%kk, {x}] : {a_tile}", "a") for x in m.local]
        b_vals = [em.op(f"memref.load %b_tile[%kk, {x}] : {b_tile}", "b") for x in n.local]
        nxt = []
        for i in range(m.regs):
            for j in range(n.regs):
                prod = em.op(f"arith.mulf {a_vals[i]}, {b_vals[j]} : f32", "p")
                nxt.append(em.op(f"arith.addf {inner_args[i * n.regs + j]}, {prod} : f32", "s"))
        self.end_for(nxt)
        self.end_for(inner)
        values = self.epilogue_values(outer, vals)
        allocs += self.gpu_epilogue(values, vals, tid)
        return "\n".join(em.lines), allocs

    def copy_plan(self, arg: int, dims: list[int], ax: Axis, tile: str, tile_type: str, vals):
        """Which elements of a step's tile of operand `arg` each thread copies:
        (global index with "K" for the step's K, the M/N guard, K offset in
        the step, index into the tile). Consecutive threads take consecutive
        elements along the operand's innermost dimension (coalesced)."""
        em, t, loops = self.e, self.tiles, self.loops
        k_inner = dims.index(loops.k) > dims.index(ax.loop)
        sizes = (ax.tile, t.step_k) if k_inner else (t.step_k, ax.tile)
        items = []
        per_thread = ax.tile * t.step_k // t.threads
        for l in range(per_thread):
            flat = self.offset("%tid", t.threads * l)
            outer = em.op(f"arith.divui {flat}, {em.c(sizes[1])} : index", "cp")
            inner = em.op(f"arith.remui {flat}, {em.c(sizes[1])} : index", "cp")
            kk, local = (inner, outer) if k_inner else (outer, inner)
            coord = self.add(ax.base, local)
            guard = self.below(coord, ax.extent) if ax.ragged else None
            idx = []
            for d in dims:
                idx.append("K" if d == loops.k else coord if d == ax.loop else vals[d])
            items.append((idx, guard, kk, f"{kk}, {local}"))
        return {"arg": arg, "tile": tile, "type": tile_type, "items": items}

    def epilogue_values(self, accs: list[str], vals: dict[int, str]) -> list[list[str]]:
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

    def gpu_epilogue(self, values: list[list[str]], vals: dict[int, str], tid: str) -> list[str]:
        em, p = self.e, self.p
        m, n = self.m, self.n
        if self.along == "batch":
            assert m.coords and n.coords and m.valid and n.valid
            chunk = vals[self.loops.reduced]
            for i in range(m.regs):
                for j in range(n.regs):
                    opened = self.if_(self.both(m.valid[i], n.valid[j]))
                    self.finish(
                        values[i][j], {**vals, m.loop: m.coords[i], n.loop: n.coords[j]}, chunk
                    )
                    self.end(opened)
            return []
        q, r = self.kept_axis, self.reduced_axis
        assert q is not None and r is not None and q.coords and q.valid is not None
        # Each thread's partial of each kept row (column), over its registers.
        partial = []
        for u in range(q.regs):
            acc = None
            for w in range(r.regs):
                v = values[u][w] if q is m else values[w][u]
                acc = v if acc is None else self.combine(acc, v)
            partial.append(acc)
        at = lambda u: {**vals, q.loop: q.coords[u]}
        if p.stage == "atomic":
            chunk = self.add(self.mul(r.block, r.threads), r.t) if p.deterministic else ""
            # A thread none of whose elements along the axis are in C has
            # nothing to add; its partial (the identity) is still stored.
            touched = (
                None
                if p.deterministic or not r.ragged
                else self.below(self.add(r.base, r.t), r.extent)
            )
            for u in range(q.regs):
                opened = self.if_(self.both(q.valid[u], touched))
                self.finish(partial[u], at(u), chunk)
                self.end(opened)
            return []
        if p.stage == "lds":
            red_type = memref_type([q.tile, r.threads], WORKGROUP)
            assert q.local is not None
            for u in range(q.regs):
                em.emit(f"memref.store {partial[u]}, %red_tile[{q.local[u]}, {r.t}] : {red_type}")
            assert q.tile <= self.tiles.threads
            opened = self.if_(self.below(tid, q.tile))
            res, args = self.for_(
                "%slot", em.c(0), em.c(r.threads), [em.cf(IDENTITY[self.red.method])], "total"
            )
            x = em.op(f"memref.load %red_tile[{tid}, %slot] : {red_type}", "x")
            self.end_for([self.combine(args[0], x)])
            coord = self.add(q.base, tid)
            inside = self.if_(self.below(coord, q.extent) if q.ragged else None)
            self.finish(res[0], {**vals, q.loop: coord}, r.block)
            self.end(inside)
            self.end(opened)
            return [f"%red_tile = memref.alloc() : {red_type}"]
        # subgroup: lanes sharing a row are r.threads consecutive lanes.
        assert r.threads <= p.subgroup and r.threads & (r.threads - 1) == 0
        total = []
        for u in range(q.regs):
            if p.target.name == "gfx942":
                total.append(
                    em.op(
                        f"gpu.subgroup_reduce {SUBGROUP[self.red.method]} {partial[u]} "
                        f"cluster(size = {r.threads}) : (f32) -> f32",
                        "sg",
                    )
                )
                continue
            sg, off = partial[u], r.threads // 2
            while off >= 1:
                sh, ok = em.fresh("sh"), em.fresh("ok")
                em.emit(
                    f"{sh}, {ok} = gpu.shuffle xor {sg}, {em.ci32(off)}, {em.ci32(p.subgroup)} : f32"
                )
                sg = self.combine(sg, sh)
                off //= 2
            total.append(sg)
        lead = self.if_(em.op(f"arith.cmpi eq, {r.t}, {em.c(0)} : index", "lead"))
        for u in range(q.regs):
            opened = self.if_(q.valid[u])
            self.finish(total[u], at(u), r.block)
            self.end(opened)
        self.end(lead)
        return []

    # The CPU kernel ------------------------------------------------------

    def cpu_kernel(self) -> str:
        """One thread per workgroup: loops over the tile, each element's dot
        product straight from memory (llvm-cpu has no workgroup memory; its
        caches hold the tile's rows of A and B)."""
        em = self.e
        vals = self.block_ids()
        m, n = self.m, self.n
        ends = {}
        for ax in (m, n):
            end = self.offset(ax.base, ax.tile)
            ends[ax.name] = (
                em.op(f"arith.minui {end}, {em.c(ax.extent)} : index", "end") if ax.ragged else end
            )
        if self.along == "batch":
            self.for_("%row", m.base, ends["m"], [])
            self.for_("%col", n.base, ends["n"], [])
            at = {**vals, m.loop: "%row", n.loop: "%col"}
            self.finish(self.element(self.dot(at), at, None), at, vals[self.loops.reduced])
            self.end_for([])
            self.end_for([])
            return "\n".join(em.lines)
        q, r = self.kept_axis, self.reduced_axis
        assert q is not None and r is not None
        self.for_("%kept", q.base, ends[q.name], [])
        res, args = self.for_(
            "%along", r.base, ends[r.name], [em.cf(IDENTITY[self.red.method])], "part"
        )
        at = {**vals, q.loop: "%kept", r.loop: "%along"}
        self.end_for([self.combine(args[0], self.element(self.dot(at), at, None))])
        self.finish(res[0], {**vals, q.loop: "%kept"}, r.block)
        self.end_for([])
        return "\n".join(em.lines)

    def dot(self, at: dict[int, str]) -> str:
        em, src, loops = self.e, self.src, self.loops
        res, args = self.for_(
            "%kidx", em.c(0), em.c(loops.extent[loops.k]), [em.cf(IDENTITY["sum"])], "dot"
        )
        idx = {**at, loops.k: "%kidx"}
        a = self.load_global(src.a, [idx[d] for d in src.a_dims])
        b = self.load_global(src.b, [idx[d] for d in src.b_dims])
        prod = em.op(f"arith.mulf {a}, {b} : f32", "p")
        self.end_for([em.op(f"arith.addf {args[0]}, {prod} : f32", "s")])
        return res[0]

    # The merge kernel ----------------------------------------------------

    def merge_kernel(self) -> tuple[str, tuple[int, int, int], tuple[int, int, int]]:
        """Partials into the output in the fixed order c = 0, 1, ... from its
        initial value: a thread per element on a GPU, a loop per workgroup on
        the CPU. The output's last dimension runs along grid x and its others
        along grid y, so that every index stays affine in the thread id (the
        access analysis decides them; a linear element index split with
        div/rem would not be). Returns the body, grid and block."""
        em, red = self.e, self.red
        sizes = [s for d, s in enumerate(red.shape) if d != red.axis]
        last, outer = sizes[-1], sizes[:-1]
        rows = 1
        for s in outer:
            rows *= s
        per = self.tiles.threads if self.gpu else 64
        base = self.mul(self.named("wg", "gpu.block_id x"), per)
        coords: list[str] = []
        if outer:
            rest = self.named("wg_rows", "gpu.block_id y")
            for i, size in enumerate(reversed(outer)):
                first = i == len(outer) - 1
                coords.insert(
                    0, rest if first else em.op(f"arith.remui {rest}, {em.c(size)} : index", "o")
                )
                if not first:
                    rest = em.op(f"arith.divui {rest}, {em.c(size)} : index", "o")
        if self.gpu:
            coord = self.add(base, self.named("tid", "gpu.thread_id x"))
            opened = self.if_(self.below(coord, last) if last % per else None)
            grid, block = (_cdiv(last, per), rows, 1), (per, 1, 1)
        else:
            hi = em.op(f"arith.minui {self.offset(base, per)}, {em.c(last)} : index", "end")
            self.for_("%elem", base, hi, [])
            coord, opened = "%elem", True
            grid, block = (_cdiv(last, per), rows, 1), (1, 1, 1)
        coords.append(coord)
        e = self.linear(coords)
        idx = self.out_index(coords)
        init = self.load_global(red.out, idx)
        res, args = self.for_("%chunk", em.c(0), em.c(self.chunks), [init], "merged")
        x = em.op(f"memref.load %partials[%chunk, {e}] : {self.partials_type}", "x")
        self.end_for([self.combine(args[0], x)])
        self.store_global(res[0], red.out, idx)
        self.end(opened)
        return "\n".join(em.lines), grid, block

    # Description ----------------------------------------------------------

    def describe(self) -> str:
        p, t, red = self.p, self.tiles, self.red
        gx, gy, gz = self.grid
        row = {"n": "row", "m": "column", "batch": "element"}[self.along]
        out = "stores one partial" if p.deterministic else f"adds one {ATOMIC[red.method]} atomic"
        if self.gpu:
            how = (
                f"the fused GEMM in {t.tile_m}x{t.tile_n} C tiles, one per workgroup of "
                f"{t.threads} threads holding {t.regs_m}x{t.regs_n} each in registers; A and B "
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


def _sizes(grid: tuple[int, int, int], block: tuple[int, int, int]) -> str:
    return (
        f"gpu.known_block_size = array<i32: {block[0]}, {block[1]}, {block[2]}>, "
        f"gpu.known_grid_size = array<i32: {grid[0]}, {grid[1]}, {grid[2]}>"
    )


def kernels_text(red: ReductionToLower, p: Plan, tiles: GemmTiles | None = None) -> str:
    """The module text of the fused GEMM's kernels, without barriers: the
    kernel named like the function, or for the deterministic form a host
    function of that name, `{name}_partials` and `{name}_merge`."""
    w = TiledGemm(red, p, tiles)
    name = red.fn.sym_name.data
    params = [f"{n}: {w.arg_type(i)}" for i, n in enumerate(w.names)]
    if w.gpu:
        body, allocs = w.gpu_kernel()
        block = (w.tiles.threads, 1, 1)
    else:
        body, allocs = w.cpu_kernel(), []
        block = (1, 1, 1)
    attrs = _sizes(w.grid, block)
    consts = w.e.constants()
    if not p.deterministic:
        return function_text(name, params, body, consts, attrs, allocs)
    parts = w.partials_type
    first = function_text(
        f"{name}_partials", [*params, f"%partials: {parts}"], body, consts, attrs, allocs
    )
    m = TiledGemm(red, p, tiles)
    merge_body, grid, mblock = m.merge_kernel()
    out_param = f"{m.names[red.out]}: {memref_type(red.arg_shapes[red.out])}"
    second = function_text(
        f"{name}_merge", [f"%partials: {parts}", out_param], merge_body, m.e.constants(),
        _sizes(grid, mblock), [],
    )  # fmt: skip
    elements = [red.element(i) for i in range(len(red.arg_shapes))]
    host = host_text(name, w.names, red.arg_shapes, red.out, parts, elements)
    return f"{host}\n{first}\n{second}"


def describe(red: ReductionToLower, p: Plan, tiles: GemmTiles | None = None) -> str:
    return TiledGemm(red, p, tiles).describe()
