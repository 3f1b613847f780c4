"""`lower-reduce`'s kernel writer: the kernels of a plan as MLIR text (each
stage's block-level `scf.forall` that `distribute` then turns into SPMD code),
and the host function of the deterministic stage. A fused GEMM goes to the
tiled text writer (tiled_gemm.py) where the staged kernel (fused_gemm.py,
not text) does not take it; what stays here computes one element per
thread, which suits a reduced argument or a product of arguments."""

from __future__ import annotations

from xsplit.rewrites.reduce import tiled_gemm
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
from xsplit.rewrites.reduce.reduced import Product, ReductionToLower

_WG = WORKGROUP
_memref = memref_type


class KernelWriter:
    """Writes the kernels of one reduction as MLIR text."""

    def __init__(self, red: ReductionToLower, p: Plan):
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
        acc, c, res = em.fresh("acc"), em.fresh("chunk"), em.fresh("merged")
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


def kernels_text(red: ReductionToLower, p: Plan) -> str:
    """The module text of the lowered reduction (before distribution and
    barrier insertion). A fused GEMM gets the tiled kernel (tiled_gemm.py);
    a reduced argument or a product, one element per thread."""
    if tiled_gemm.applies(red) is None:
        return tiled_gemm.kernels_text(red, p)
    return per_thread_kernels_text(red, p)


def per_thread_kernels_text(red: ReductionToLower, p: Plan) -> str:
    """The kernels that compute each reduced element where it is consumed: a
    load, or for a fused GEMM one dot product per element from global memory
    (what a GEMM the tiled writer cannot take still gets, and the baseline
    bench/fused_gemm_loads.py measures the tiled kernel against)."""
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
        return function_text(name, params, body, consts, sizes(p.grid), allocs)
    parts = w.partials_type
    first = function_text(
        f"{name}_partials", [*params, f"%partials: {parts}"], body, consts, sizes(p.grid), allocs
    )
    m = KernelWriter(red, p)
    merge_body = m.merge_kernel()
    per = p.block if p.target.is_gpu else 1
    merge_items = -(-red.elements // per)
    out_name = m.arg_names[red.out]
    out_param = f"{out_name}: {_memref(red.arg_shapes[red.out])}"
    second = function_text(
        f"{name}_merge",
        [f"%partials: {parts}", out_param],
        merge_body,
        m.e.constants(),
        sizes(min(merge_items, p.target.processors * 8)),
        [],
    )
    host = host_text(name, m.arg_names, red.arg_shapes, red.out, parts)
    return f"{host}\n{first}\n{second}"
