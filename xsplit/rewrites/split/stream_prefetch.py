"""`stream-prefetch{prefetch=auto|on|none}`: a product of a few rows against
a row-major B (`linalg.matmul`, A M x K, B K x N, M <= 16, or `linalg.vecmat`)
as a CPU dispatch of xsplit's own that streams B with software prefetches.

IREE 3.13's llvm-cpu has no flag that prefetches: LLVM's loop data
prefetch pass is only in the AArch64, PowerPC, SystemZ and RISC-V
pipelines, and `--prefetch-distance`, `--min-prefetch-stride` given to
iree-compile leave an x86 `.s` without a single `prefetch` (checked on
matvec_1x4096x14336). So the prefetching form is a dispatch of ours:

```
%partials = flow.dispatch @NAME_stream_dispatch::@NAME_stream(%a, %b, %empty)
    -> tensor<C x M x N xf32>          (a grid of N / 128 (256 for 1 row) x 1 x C)
%merged = linalg.reduce ins(%partials) outs(%c) dimensions = [0]
```

Each workgroup takes one of C chunks of K (the model's split-k choice, or
`chunks=`) and 128 columns of B, as register tiles of 16 accumulator
vectors: two of M rows x 64 columns for 3 or 4 rows (split-k's streaming
tiles, `targets/table.py`), one of 2 x 128 or 1 x 256 for fewer. From 5
rows one register tile holds every row (MANY_ROWS_ACCUMULATORS: 8 x 32,
16 x 16), so each row of B's strip is read once, where split-k's tiles of
4 rows walk it once per 4 rows; `tile_rows=` asks for fewer rows a tile,
the tiles along M then taking B's rows in blocks (`k_block=`, 32) that
stay in L1 for all but the first, which prefetches them. It takes
B's rows two at a time (then the odd one left); per row it loads the
tile's vectors of B, broadcasts each row of A's element and issues the
`vector.fma`s; with `prefetch=on` also one `memref.prefetch ... read,
locality<2>` per 64-byte line of the tile's row of B PREFETCH_DISTANCE rows ahead
(the row clamped to K's last), which x86 makes `prefetcht1` (into L2;
`locality<3>`, `prefetcht0`, for a tile one line wide). The
last chunk stops at K, so any K (odd, prime) splits without padding.
`prefetch=none` emits the same dispatch without prefetches, the form to
compare with.

`prefetch=auto` (the default, and what `auto{target=cpu}` runs before
split-k) takes the form only where the CPU model has measured it faster
than split-k's IREE tiles (`cost_model.cpu.prefetch_stream_pays`), and
says what was compared in its remark either way: on the machine it was
measured on, 9 to 12 rows (0.73 of split-k's CPU time, where split-k pads
M to 16); at 1 to 8 rows (parity, slower at 1) and 13 to 16 (parity) the
op is left to split-k.

Only static f32 products at graph level on an llvm-cpu target, with N a
multiple of 64, are taken; B[n, k] (transposed) products are split-lanes'.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from xdsl.builder import Builder
from xdsl.dialects import func, vector
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FunctionType,
    MemRefType,
    NoneAttr,
    SymbolRefAttr,
    TensorType,
    VectorType,
    f32,
    i32,
)
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from xsplit.analysis.cost_model import choose_split, problem_of
from xsplit.analysis.cost_model.cpu import prefetch_stream_pays
from xsplit.analysis.devices import DEVICE, modeled
from xsplit.analysis.reduction import match_reduction
from xsplit.diagnostics import remark
from xsplit.dialects import gpu
from xsplit.dialects.flow import DispatchOp
from xsplit.dialects.memref import PrefetchOp
from xsplit.rewrites.dispatch.export_dispatch import EXPORT_KERNEL, exportable
from xsplit.rewrites.dispatch.form_dispatch_regions import is_graph_level
from xsplit.rewrites.dsl import (
    Check,
    Match,
    Option,
    Pass,
    Pattern,
    Template,
    dim,
    init,
    input,
    root_is,
    where,
)
from xsplit.rewrites.dsl.builders import IRBuilder
from xsplit.rewrites.dsl.numbers import described
from xsplit.rewrites.reduce.kernel_ir import KernelBuilder
from xsplit.rewrites.reduce.ordinary import unique_name
from xsplit.rewrites.split.split_lanes import static_f32, unmarked
from xsplit.targets.table import TARGETS

STREAM_MAX_ROWS = 4
"""Rows of A a register tile holds: 4 x 64 columns are 16 accumulator
vectors, half of AVX-512's registers, as split-k's streaming tiles."""

STREAMED_MAX_ROWS = 16
"""Rows of A the form takes: split-k's streaming tiles' limit
(`targets.table.STREAMING_MAX_M`)."""

GROUP_K_BLOCK = 32
"""Rows of B the register tiles along M take in turn (the `k_block`
option's default): a block of 32 rows x 128 columns (16 KiB) stays in L1
for the tiles after the first, as split-k's `cache_reduction` level
(`targets.table.STREAMING_K_BLOCK`)."""

TILE_COLUMNS = 64
"""Columns of B a register tile of 3 or 4 rows reads per row: 4 vectors of
16 lanes; the fewest any tile takes."""

ACCUMULATORS = 16
"""Accumulator vectors a register tile keeps: with one or two rows of A the
tile is wider (16 or 8 vectors of B a row), so that as many FMA chains run
side by side: 1 x 64 (4 chains) took 11.2 ms of CPU time on 1x4096x14336
against IREE's tiles' 7.3."""

MANY_ROWS_ACCUMULATORS = 24
"""Accumulator vectors a register tile of more than STREAM_MAX_ROWS rows
may keep (a power of two of vectors a row): 5 or 6 x 64, 7 to 12 x 32, 13
to 16 x 16. With every row of A in the tile, each row of B's strip is read
once, and the more of a row a tile reads, the faster (bench/stream_rows.py,
medians over 50 rounds, against split-k's tiles in the same rounds):
5x4096x14336 0.83 of their CPU time with 5 x 64 tiles, 1.01 with 5 x 32;
12x4096x8192 0.73 with 12 x 32, 0.99 with 12 x 16. The tile, B's vectors
and a broadcast then fill 27 to 29 of AVX-512's 32 registers, no spill in
the `.s`."""

WORKGROUP_COLUMNS = 128
"""Columns of B a workgroup takes, as two register tiles one after the
other (IREE's distribution tile on the same product); 64 where N is not a
multiple of 128."""

LANES = 16
"""f32 lanes of one vector (AVX-512)."""

K_STEP = 2
"""Rows of B a step of the loop takes, as IREE's `vector_reduction` tile on
split-k's streaming tiles: one loop counter and compare for two rows."""

LINE_FLOATS = 16
"""f32 elements in a 64-byte cache line: one prefetch each."""

PREFETCH_DISTANCE = 32
"""Rows of B ahead that a step prefetches: a C loop with the same tile ran
12-19% faster with `prefetcht1` 16 to 32 rows ahead than without
(bench/RESULTS-matvec.md), and 32 was the better of 8, 16, 32 and 64 in
the dispatch."""

PREFETCH_LOCALITY = 2
"""`locality<2>`, x86's `prefetcht1`: into L2, which has room for the
distance's lines; `prefetcht0` (3) and `prefetchnta` (0) ran slower at 1
to 4 rows, and `prefetcht0` at 8 (tiles of 8 x 32: 0.95 of split-k's
tiles' time against 0.92, bench/stream_rows.py)."""

LINE_PREFETCH_LOCALITY = 3
"""`locality<3>`, `prefetcht0` (into L1), for a tile one line wide (9 to 16
rows, 16 columns): 16x8192x3001 took 1.01x split-k's tiles' time with it,
1.21x with `prefetcht1` (bench/stream_rows.py)."""

PREFETCH_CHOICES = ("auto", "on", "none")

PLAIN_MAPS = (
    "[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, "
    "affine_map<(d0, d1, d2) -> (d0, d1)>]"
)

M = dim("M")
N = dim("N")
K = dim("K")


def _row_major_b(m: Match) -> bool | str:
    if any(
        isinstance(v.type, TensorType) and not isinstance(v.type.encoding, NoneAttr)
        for v in m.root.operands
    ):
        # set-encoding's choice: the layout is the encoding's, not row-major.
        return "its operands are encoded"
    maps = m.root.properties.get("indexing_maps") or m.root.attributes.get("indexing_maps")
    if maps is not None and str(maps) != PLAIN_MAPS:
        return "its operands are transposed or broadcast (indexing_maps)"
    return True


a_streamed_matmul = (
    root_is("linalg.matmul")
    & unmarked
    & static_f32
    & where("B is row-major (K x N), not encoded", _row_major_b)
    & input(0).has_shape("M", "K")
    & input(1).has_shape("K", "N")
    & init().has_shape("M", "N")
    & described(
        M <= STREAMED_MAX_ROWS,
        f"has at most {STREAMED_MAX_ROWS} rows",
        f"M is over {STREAMED_MAX_ROWS}",
    )
    & described(N % TILE_COLUMNS == 0, "N is whole register tiles", "N is not a multiple of 64")
    & input(0).capture("a")
    & input(1).capture("b")
    & init().capture("c")
)
"""A `linalg.matmul` of up to 16 rows against a row-major B."""

a_streamed_vecmat = (
    root_is("linalg.vecmat")
    & unmarked
    & static_f32
    & where("B is row-major (K x N), not encoded", _row_major_b)
    & input(0).has_shape("K")
    & input(1).has_shape("K", "N")
    & init().has_shape("N")
    & described(N % TILE_COLUMNS == 0, "N is whole register tiles", "N is not a multiple of 64")
    & input(0).capture("a")
    & input(1).capture("b")
    & init().capture("c")
)
"""`linalg.vecmat ins(%x : K, %w : K x N)`: one row against a row-major B."""


def _rows(m: Match) -> int:
    """The rows of A: 1 for a vecmat's vector."""
    shape = m["a"].type.get_shape()
    return shape[0] if len(shape) == 2 else 1


def _partials_shape(chunks: int, rows: int, n: int, vector_a: bool) -> list[int]:
    return [chunks, n] if vector_a else [chunks, rows, n]


class Form(NamedTuple):
    """A workgroup's register tiles: `rows` of A by `columns` of B each; for
    more rows than one tile holds, the rows of B (`k_block`) that every
    tile along M takes before the next block; and the prefetches'
    `locality` (2: `prefetcht1`, 3: `prefetcht0`)."""

    rows: int
    columns: int
    k_block: int
    locality: int


def _form(rows: int, n: int, tile_rows: int = 0, k_block: int = 0) -> Form:
    """The register tiles for `rows` rows of A: by default every row in one
    tile of ACCUMULATORS vectors, so that each row of B's strip is read
    once (or `tile_rows` rows a tile, over blocks of `k_block` rows of B,
    GROUP_K_BLOCK by default)."""
    tile_rows = min(tile_rows or rows, rows)
    budget = ACCUMULATORS if tile_rows <= STREAM_MAX_ROWS else MANY_ROWS_ACCUMULATORS
    vectors = max(1, 1 << (budget // tile_rows).bit_length() - 1)
    columns = vectors * LANES
    if tile_rows <= STREAM_MAX_ROWS:
        columns = max(TILE_COLUMNS, columns)
    while n % columns:
        columns //= 2
    blocked = tile_rows < rows
    locality = PREFETCH_LOCALITY if columns > LINE_FLOATS else LINE_PREFETCH_LOCALITY
    return Form(tile_rows, columns, (k_block or GROUP_K_BLOCK) if blocked else 0, locality)


def _workgroup_columns(n: int, form: Form) -> int:
    return max(form.columns, WORKGROUP_COLUMNS if n % WORKGROUP_COLUMNS == 0 else TILE_COLUMNS)


def _chunk_rows(k: int, chunks: int) -> int:
    """Rows of K a chunk takes (the last takes the rest)."""
    return -(-k // chunks)


def _choose(m: Match) -> bool | str:
    """The target, the chunks, and whether the form is taken: always with
    `prefetch=on|none`, where the model says it pays with `auto`."""
    placed = modeled(m.root, m.options["target"])
    assert placed is not None
    t = placed.target
    # The executable source names no device: IREE would build it for every
    # device's target.
    if (why := placed.why_not_one_llvm_cpu_device(m.root)) is not None:
        return why
    if not t.split_tiles:
        return f"{t.name} is not an llvm-cpu target"
    red = match_reduction(m.root)
    problem = problem_of(red) if not isinstance(red, str) else red
    if isinstance(problem, str):
        return problem
    chunks = m.options["chunks"] or choose_split(problem, t).factor
    chunks = max(1, min(chunks, K(m)))
    # Chunks that leave the last one empty are fewer chunks.
    chunks = -(-K(m) // _chunk_rows(K(m), chunks))
    prefetch = m.options["prefetch"]
    m.captures["why"] = ""
    if prefetch == "auto":
        pays, why = prefetch_stream_pays(problem, t)
        if not pays:
            remark(m.root, f"{placed.prefix()}stream-prefetch: left to split-k: {why}")
            return why
        prefetch = "on"
        m.captures["why"] = f": {why}"
    m.captures["chunks"] = chunks
    m.captures["prefetch"] = prefetch == "on"
    m.captures["form"] = _form(_rows(m), N(m), m.options["tile_rows"], m.options["k_block"])
    return True


chosen = where("the form is asked for, or the model chooses it", _choose)


def _stream_loop(
    kb: KernelBuilder,
    operands: tuple[SSAValue, SSAValue, bool],
    place: tuple[SSAValue, int],
    shape: tuple[int, int],
    k_range: tuple[SSAValue, SSAValue],
    steps: int,
    sums: list[SSAValue],
    prefetch: tuple[int, int, int] | None,
) -> list[SSAValue]:
    """The register tile's loop over rows of B from `k_range`, `steps` rows
    at a time, into the accumulators `sums` (`shape`: rows of A x vectors
    of B a row; `place`: the tile's first column and first row of A): per
    row a load of each vector of B, a broadcast of each row of A's element
    and their FMAs; with `prefetch` (distance, last row of K, locality), the tile's
    lines of B that many rows ahead. `operands`: A, B and whether A is a
    vector."""
    a, b, vector_a = operands
    column, first_row = place
    vec = VectorType(f32, [LANES])
    rows, vectors = shape

    def rows_of_b(step: KernelBuilder, k: SSAValue, accumulators: list[SSAValue]) -> list[SSAValue]:
        offsets = [step.add(column, v * LANES) for v in range(vectors)]
        for s in range(steps):
            row = step.c(step.add(k, s))
            if prefetch is not None:
                distance, last, locality = prefetch
                ahead = step.c(step.min(step.add(row, distance), last))
                for line in range(vectors * LANES // LINE_FLOATS):
                    at = step.c(step.add(column, line * LINE_FLOATS))
                    step.insert(PrefetchOp(b, [ahead, at], locality))
            loaded = [step.insert(vector.LoadOp(b, [row, step.c(o)], vec)).results[0] for o in offsets]
            added: list[SSAValue] = []
            for r in range(rows):
                scalar = step.load(a, [row] if vector_a else [first_row + r, row])
                broadcast = step.insert(vector.BroadcastOp(scalar, vec)).results[0]
                for v in range(vectors):
                    acc = accumulators[r * vectors + v]
                    added.append(step.insert(vector.FMAOp(broadcast, loaded[v], acc)).results[0])
            accumulators = added
        return accumulators

    lo, hi = k_range
    return kb.fold(lo, hi, steps, sums, rows_of_b, "k")


def _kernel(
    name: str, shape: tuple[int, int, int], chunks: int, prefetch: bool, vector_a: bool, form: Form
) -> func.FuncOp:
    """The dispatch's function on memrefs: A (a vector of K for a vecmat),
    B and the partial products (a chunk's row of N for a vecmat).
    `shape`: M, N and K."""
    rows, n, k = shape
    a_type = MemRefType(f32, [k] if vector_a else [rows, k])
    b_type = MemRefType(f32, [k, n])
    p_type = MemRefType(f32, _partials_shape(chunks, rows, n, vector_a))
    block = Block(arg_types=[a_type, b_type, p_type])
    a, b, partials = block.args
    for arg, hint in zip(block.args, ("a", "b", "partials")):
        arg.name_hint = hint
    kb = KernelBuilder.at_end(block)
    chunk = kb.block_id("z")
    chunk.name_hint = "chunk"
    rows_per_chunk = _chunk_rows(k, chunks)
    start = kb.mul(chunk, rows_per_chunk)
    end = kb.min(kb.add(start, rows_per_chunk), k)
    columns = _workgroup_columns(n, form)
    first = kb.mul(kb.block_id("x"), columns)
    ahead = (PREFETCH_DISTANCE, k - 1, form.locality) if prefetch else None
    operands = (a, b, vector_a)
    vectors = form.columns // LANES
    groups = [(r0, min(form.rows, rows - r0)) for r0 in range(0, rows, form.rows)]

    def in_steps(
        inner: KernelBuilder,
        place: tuple[SSAValue, int],
        count: int,
        bounds: tuple[SSAValue, SSAValue, SSAValue],
        sums: list[SSAValue],
        distance: tuple[int, int, int] | None,
    ) -> list[SSAValue]:
        # The rows in whole steps, then the one left where their count is odd.
        lo, whole, hi = bounds
        tile_shape = (count, vectors)
        sums = _stream_loop(inner, operands, place, tile_shape, (lo, whole), K_STEP, sums, distance)
        return _stream_loop(inner, operands, place, tile_shape, (whole, hi), 1, sums, distance)

    def evens(inner: KernelBuilder, lo: SSAValue, hi: SSAValue) -> SSAValue:
        return inner.c(inner.add(lo, inner.mul(inner.div(inner.sub(hi, lo), K_STEP), K_STEP)))

    def at(inner: KernelBuilder, row: int, column: SSAValue, v: int) -> list[SSAValue]:
        rest = [] if vector_a else [inner.c(row)]
        return [inner.c(chunk), *rest, inner.c(inner.add(column, v * LANES))]

    vec = VectorType(f32, [LANES])
    if len(groups) == 1:
        whole = evens(kb, kb.c(start), kb.c(end))

        def tile(inner: KernelBuilder, offset: SSAValue) -> None:
            column = inner.c(inner.add(first, offset))
            zero = inner.insert(vector.BroadcastOp(inner.zero(), vec))
            sums = [zero.results[0]] * (rows * vectors)
            bounds = (inner.c(start), whole, inner.c(end))
            sums = in_steps(inner, (column, 0), rows, bounds, sums, ahead)
            for r in range(rows):
                for v in range(vectors):
                    where = at(inner, r, column, v)
                    inner.insert(vector.StoreOp(sums[r * vectors + v], partials, where))

    else:
        k_block = form.k_block

        def tile(inner: KernelBuilder, offset: SSAValue) -> None:
            # Several register tiles along M take each block of B's rows in
            # turn, the first prefetching it, the rest reading it from L1;
            # their sums wait in the partials between blocks.
            column = inner.c(inner.add(first, offset))
            zero = inner.insert(vector.BroadcastOp(inner.zero(), vec)).results[0]
            for r in range(rows):
                for v in range(vectors):
                    inner.insert(vector.StoreOp(zero, partials, at(inner, r, column, v)))

            def rows_block(bk: KernelBuilder, lo: SSAValue) -> None:
                hi = bk.c(bk.min(bk.add(lo, k_block), end))
                whole = evens(bk, lo, hi)
                for g, (r0, count) in enumerate(groups):
                    places = [
                        at(bk, r0 + r, column, v) for r in range(count) for v in range(vectors)
                    ]
                    sums = [bk.insert(vector.LoadOp(partials, i, vec)).results[0] for i in places]
                    distance = ahead if g == 0 else None
                    sums = in_steps(bk, (column, r0), count, (lo, whole, hi), sums, distance)
                    for value, i in zip(sums, places):
                        bk.insert(vector.StoreOp(value, partials, i))

            inner.for_(start, end, k_block, rows_block, hint="block")

    kb.for_(0, columns, form.columns, tile, hint="tile")
    kb.insert(func.ReturnOp())
    kernel = func.FuncOp(name, FunctionType.from_lists([a_type, b_type, p_type], []), Region(block))
    kernel.attributes[gpu.KNOWN_GRID_SIZE] = DenseArrayBase.from_list(i32, [n // columns, 1, chunks])
    return kernel


MERGE = Template(
    """
%merged = linalg.reduce ins($partials : $partials.type) outs($c : $c.type) dimensions = [0] {xsplit.split_part = "merge"}
  (%partial: f32, %total: f32) {
    %added = arith.addf %partial, %total : f32
    linalg.yield %added : f32
  }
""",
    results=["%merged"],
)
"""The chunks' partial products added into the init."""


def _stream(m: Match, ir: IRBuilder) -> Sequence[SSAValue]:
    """The kernel, exported before the function holding the product, its
    dispatch in the product's place, and the merge."""
    rows, n, k = _rows(m), N(m), K(m)
    vector_a = m.root.name == "linalg.vecmat"
    chunks: int = m["chunks"]
    host = m.root.parent_op()
    while host is not None and host.name not in ("func.func", "util.func"):
        host = host.parent_op()
    assert host is not None and host.parent_op() is not None
    base = host.properties["sym_name"].data  # type: ignore[union-attr]
    name = unique_name(host.parent_op(), f"{base}_stream")
    form: Form = m["form"]
    kernel = _kernel(name, (rows, n, k), chunks, m["prefetch"], vector_a, form)
    host.parent_block().insert_op_before(kernel, host)  # type: ignore[union-attr]
    km = Match(kernel, {"target": "cpu", "grid": (), "block": (), "called": False})
    exportable.check(km)
    EXPORT_KERNEL.rewrite(km, IRBuilder(Builder(InsertPoint.before(kernel))))  # type: ignore[operator]
    Rewriter.erase_op(kernel)
    # The tensor function export-dispatch wrote beside the executable: the
    # product dispatches directly, so that the module's own functions stay
    # the only public ones.
    wrapper = next(
        op
        for op in host.parent_block().ops  # type: ignore[union-attr]
        if isinstance(op, func.FuncOp) and op.sym_name.data == name
    )
    Rewriter.erase_op(wrapper)
    shape = _partials_shape(chunks, rows, n, vector_a)
    partials_type = TensorType(f32, shape)
    empty = ir.empty(shape, f32)
    empty.name_hint = "partials_init"
    dispatch = ir.b.insert(
        DispatchOp(
            SymbolRefAttr(f"{name}_dispatch", [name]), [m["a"], m["b"], empty], [partials_type], [2]
        )
    )
    dispatch.results[0].name_hint = "partials"
    prefetches = f", B prefetched {PREFETCH_DISTANCE} rows ahead" if m["prefetch"] else ""
    blocks = f" over blocks of {form.k_block} rows of B" if form.k_block else ""
    if m.options["k_block"] and not form.k_block:
        # One pipeline's option reaches products of any rows: say where it
        # had nothing to block rather than refuse the others.
        blocks = f" (k_block={m.options['k_block']} unused: one tile holds every row)"
    columns = _workgroup_columns(n, form)
    remark(
        m.root,
        f"stream-prefetch: {chunks} chunks of {_chunk_rows(k, chunks)} rows of B, "
        f"{n // columns} x {chunks} workgroups of {rows} x {columns} columns, register "
        f"tiles of {form.rows} x {form.columns}{blocks}{prefetches}{m['why']}",
    )
    m.captures["partials"] = dispatch.results[0]
    return MERGE.rewrite(m, ir.b)


STREAM_PREFETCH_MATMUL = Pattern(
    name="stream-prefetch-matmul",
    doc="a linalg.matmul of up to 16 rows against a row-major B: xsplit's own streaming "
    "dispatch (prefetching B) of partial products, then a linalg.reduce merge",
    root="linalg.matmul",
    where=a_streamed_matmul & is_graph_level & chosen,
    rewrite=_stream,
    options=["target", "prefetch", "chunks", "tile_rows", "k_block"],
)

STREAM_PREFETCH_VECMAT = Pattern(
    name="stream-prefetch-vecmat",
    doc="a linalg.vecmat: the same dispatch for its one row, then the merge",
    root="linalg.vecmat",
    where=a_streamed_vecmat & is_graph_level & chosen,
    rewrite=_stream,
    options=["target", "prefetch", "chunks", "tile_rows", "k_block"],
)

STREAM_PREFETCH = Pass(
    "stream-prefetch",
    "Streams a product of up to 16 rows against a row-major B through a CPU dispatch of "
    "xsplit's own that prefetches B.",
    [STREAM_PREFETCH_MATMUL, STREAM_PREFETCH_VECMAT],
    [
        Option(
            "target",
            str,
            "cpu",
            f"the CPU whose model chooses (or {DEVICE}: each op's own device); products on "
            "a GPU or VMVX are left alone",
            choices=tuple(TARGETS) + tuple(a for t in TARGETS.values() for a in t.aliases) + (DEVICE,),
        ),
        Option(
            "prefetch",
            str,
            "auto",
            "on (the dispatch, prefetching B), none (the dispatch without prefetches) or auto "
            "(the dispatch where the CPU model has measured it faster than split-k's tiles)",
            choices=PREFETCH_CHOICES,
        ),
        Option(
            "chunks",
            int,
            0,
            "chunks of K (0: split-k's model's choice)",
            check=Check(lambda value: value >= 0, ">= 0"),
        ),
        Option(
            "tile_rows",
            int,
            0,
            "rows of A a register tile holds (0: every row)",
            check=Check(
                lambda value: 0 <= value <= STREAMED_MAX_ROWS, f"from 0 to {STREAMED_MAX_ROWS}"
            ),
        ),
        Option(
            "k_block",
            int,
            0,
            "rows of B the register tiles along M take in turn, where tile_rows leaves several "
            "(0: 32)",
            check=Check(lambda value: value >= 0 and value % 2 == 0, ">= 0 and even"),
        ),
    ],
)
