"""`lower-reduce`'s per-element kernels: the kernels of a plan as IR (each
stage's block-level `scf.forall` that `distribute` then turns into SPMD
code), and the host function of the deterministic stage. Built with the
kernel builder (named_kernel.py), whose calls read in the order of the IR.
A fused GEMM is the staged kernel's (fused_gemm.py); what it does not take
comes here.
These compute one element per thread, which suits a reduced argument or a
product of arguments."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from xsplit.rewrites.reduce.named_kernel import (
    IDENTITY,
    host_function,
    memref_of,
    reduction_kernel,
)
from xsplit.rewrites.reduce.plan import Plan
from xsplit.rewrites.reduce.reduced import Product, ReductionToLower


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


class KernelWriter:
    """Builds one kernel of a reduction: the partials kernel (atomics, or
    partials in the deterministic stage) or, with `merge`, the merge kernel."""

    def __init__(self, red: ReductionToLower, p: Plan, merge: bool = False):
        self.red, self.p = red, p
        hints = [a.name_hint for a in red.fn.args]
        self.arg_names = [h if h else f"arg{i}" for i, h in enumerate(hints)]
        params = [(n, memref_of(s)) for n, s in zip(self.arg_names, red.arg_shapes)]
        self.e, self.partials, self.values = reduction_kernel(
            params, red.out, self.partials_type, merge, p.deterministic
        )
        self.lds: SSAValue | None = None

    @property
    def partials_type(self) -> MemRefType:
        return memref_of([self.p.chunks, self.red.elements])

    # Index arithmetic -----------------------------------------------------

    def delinearize(self, e: SSAValue) -> list[SSAValue]:
        """The non-axis coordinates of output element `e`, row-major."""
        red, em = self.red, self.e
        dims = [d for d in range(len(red.shape)) if d != red.axis]
        coords: dict[int, SSAValue] = {}
        stride = 1
        for d in reversed(dims):
            size = red.shape[d]
            q = em.divui(e, stride) if stride != 1 else e
            coords[d] = em.remui(q, size) if d != dims[0] else q
            stride *= size
        return [coords[d] for d in dims]

    def full_index(self, coords: list[SSAValue], k: SSAValue) -> list[SSAValue]:
        out = list(coords)
        out.insert(self.red.axis, k)
        return out

    def out_index(self, coords: list[SSAValue]) -> list[SSAValue]:
        if self.red.keepdim:
            return self.full_index(coords, self.e.c(0))
        return coords

    def value(self, idx: list[SSAValue]) -> SSAValue:
        """The reduced tensor's element at `idx`: a load, or the GEMM's dot product."""
        red, em = self.red, self.e
        src = red.source
        if isinstance(src, int):
            return em.load_(self.values[src], idx)
        if isinstance(src, Product):
            factors = [
                em.load_(self.values[arg], [idx[d] for d in dims])
                for arg, dims in zip(src.inputs, src.dims)
            ]
            value = factors[0]
            for f in factors[1:]:
                value = em.mulf_(value, f)
            return value
        loops: dict[int, SSAValue] = dict(zip(src.out_dims, idx))
        if src.init_arg is not None:
            init = em.load_(self.values[src.init_arg], idx)
        else:
            init = em.cf(src.init_const or "0.0")
        acc, kk, result = em.fresh("acc"), em.fresh("k"), em.fresh("dot")
        (res,), (it,), k = em.open_for(0, src.k, 1, [init], kk, [acc], [result])
        loops[src.k_dim] = k
        av = em.load_(self.values[src.a], [loops[d] for d in src.a_dims])
        bv = em.load_(self.values[src.b], [loops[d] for d in src.b_dims])
        em.close(em.addf_(it, em.mulf_(av, bv)))
        if src.store:
            assert src.init_arg is not None
            em.store(res, self.values[src.init_arg], idx)
        return res

    def serial(
        self, coords: list[SSAValue], lo: SSAValue, hi: SSAValue, step: SSAValue
    ) -> SSAValue:
        """The combination of the reduced values over the axis from `lo` to `hi`."""
        em = self.e
        acc, k, res = em.fresh("acc"), em.fresh("k"), em.fresh("part")
        init = em.cf(IDENTITY[self.red.method])
        (part,), (it,), iv = em.open_for(lo, hi, step, [init], k, [acc], [res])
        v = self.value(self.full_index(coords, iv))
        em.close(em.combine_(self.red.method, it, v))
        return part

    def finish(self, value: SSAValue, coords: list[SSAValue], c: SSAValue, e: SSAValue) -> None:
        """The work item's partial: an atomic into the output, or a store into the partials."""
        em, red = self.e, self.red
        if self.partials is not None:
            em.store(value, self.partials, [c, e])
        else:
            em.atomic_(red.method, value, self.values[red.out], self.out_index(coords))

    # Kernels --------------------------------------------------------------

    def item_bounds(self, w: SSAValue):
        """Chunk, element, coordinates and axis range of work item `w`."""
        em, red, p = self.e, self.red, self.p
        c = em.divui(w, red.elements, "chunk")
        e = em.remui(w, red.elements, "elem")
        coords = self.delinearize(e)
        lo = em.muli(c, p.chunk, "lo")
        hi0 = em.addi(lo, p.chunk)
        hi = em.minui(hi0, red.extent, "hi")
        return c, e, coords, lo, hi

    def partial_kernel(self) -> None:
        em, red, p = self.e, self.red, self.p
        gpu = p.target.is_gpu
        w = em.open_forall(p.items)
        if p.stage != "atomic" and p.grid < p.items:
            # A block runs several work items: the next one's stores into
            # workgroup memory must wait for this one's reads.
            em.barrier()
        tid = em.thread_id_() if gpu else None
        if p.stage == "atomic":
            if tid is not None:
                item = em.addi(em.muli(w, p.block), tid, "item")
            else:
                item = w
            total = red.elements * p.chunks
            guard: SSAValue | None = em.cmpi("ult", item, total, "in")
            if gpu and total % p.block == 0:
                guard = None
            opened = em.open_if(guard)
            c, e, coords, lo, hi = self.item_bounds(item)
            part = self.serial(coords, lo, hi, em.c(1))
            self.finish(part, coords, c, e)
            em.end(opened)
        else:
            assert tid is not None
            c, e, coords, lo, hi = self.item_bounds(w)
            start = em.addi(lo, tid)
            part = self.serial(coords, start, hi, em.c(p.block))
            if p.stage == "lds":
                total_of = self.tree(part, tid)
            else:
                total_of = self.subgroups(part, tid)
            em.open_if(em.cmpi("eq", tid, 0, "first"))
            self.finish(total_of(), coords, c, e)
            em.close()
        em.close()

    def tree(self, part: SSAValue, tid: SSAValue) -> Callable[[], SSAValue]:
        em, p, red = self.e, self.p, self.red
        lds = em.alloc_workgroup([p.block], "lds")
        em.store(part, lds, [tid])
        s = p.block // 2
        while s >= 1:
            em.barrier()
            em.open_if(em.cmpi("ult", tid, s))
            other = em.addi(tid, s)
            x = em.load_(lds, [tid])
            y = em.load_(lds, [other])
            em.store(em.combine_(red.method, x, y), lds, [tid])
            em.close()
            s //= 2
        # Thread 0 wrote lds[0] last itself: no barrier before it reads it.
        return lambda: em.load_(lds, [em.c(0)], "total")

    def subgroups(self, part: SSAValue, tid: SSAValue) -> Callable[[], SSAValue]:
        em, p, red = self.e, self.p, self.red
        dpp = p.target.name == "gfx942"
        sg = em.subgroup_combine(red.method, part, p.subgroup, p.subgroup, dpp)
        if p.subgroups == 1:
            return lambda: sg
        lds = em.alloc_workgroup([p.subgroups], "lds")
        lane = em.remui(tid, p.subgroup, "lane")
        sgid = em.divui(tid, p.subgroup, "sgid")
        em.open_if(em.cmpi("eq", lane, 0))
        em.store(sg, lds, [sgid])
        em.close()
        em.barrier()

        def total() -> SSAValue:
            acc, i, res = em.fresh("acc"), em.fresh("s"), em.fresh("total")
            lo, hi, step = em.c(0), em.c(p.subgroups), em.c(1)
            init = em.cf(IDENTITY[red.method])
            (out,), (it,), iv = em.open_for(lo, hi, step, [init], i, [acc], [res])
            em.close(em.combine_(red.method, it, em.load_(lds, [iv])))
            return out

        return total

    def merge_kernel(self) -> None:
        """Partials to the output in the fixed order c = 0, 1, ...: one thread per element."""
        em, red, p = self.e, self.red, self.p
        assert self.partials is not None
        gpu = p.target.is_gpu
        per = p.block if gpu else 1
        w = em.open_forall(_cdiv(red.elements, per))
        if gpu:
            tid = em.thread_id_()
            e = em.addi(em.muli(w, per), tid, "elem")
        else:
            e = w
        em.open_if(em.cmpi("ult", e, red.elements, "in"))
        coords = self.delinearize(e)
        out, idx = self.values[red.out], self.out_index(coords)
        init = em.load_(out, idx)
        acc, c, res = em.fresh("acc"), em.fresh("chunk"), em.fresh("merged")
        (merged,), (it,), chunk = em.open_for(0, p.chunks, 1, [init], c, [acc], [res])
        x = em.load_(self.partials, [chunk, e])
        em.close(em.combine_(red.method, it, x))
        em.store(merged, out, idx)
        em.close()
        em.close()


def kernels(red: ReductionToLower, p: Plan) -> list[Operation]:
    """The lowered reduction's functions (before distribution), which
    compute each reduced element where it is consumed: a load, a product,
    or for a fused GEMM one dot product per element from global memory
    (what a GEMM the staged kernel and the CPU's loop nest do not take
    still gets, and the baseline bench/fused_gemm_loads.py counts)."""
    name = red.fn.sym_name.data
    launch = (p.block if p.target.is_gpu else 1, 1, 1)
    w = KernelWriter(red, p)
    w.partial_kernel()
    if not p.deterministic:
        return [w.e.function(name, (p.grid, 1, 1), launch)]
    first = w.e.function(f"{name}_partials", (p.grid, 1, 1), launch)
    m = KernelWriter(red, p, merge=True)
    m.merge_kernel()
    per = p.block if p.target.is_gpu else 1
    merge_items = _cdiv(red.elements, per)
    grid = (min(merge_items, p.target.processors * 8), 1, 1)
    second = m.e.function(f"{name}_merge", grid, launch)
    args = [(n, memref_of(s)) for n, s in zip(m.arg_names, red.arg_shapes)]
    host = host_function(name, args, red.out, w.partials_type)
    return [host, first, second]
