"""How split-k cuts K into chunks: the plan from the options and K, and the
IR that computes each chunk's offset and size."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr

from xsplit.analysis.reduction import Reduction
from xsplit.diagnostics import remark
from xsplit.rewrites.dsl import ALWAYS, Constraint, Match, cases, ceildiv, dim, divides, minimum, option
from xsplit.rewrites.dsl.builders import IRBuilder, Mixed
from xsplit.rewrites.dsl.numbers import described

DYNAMIC_K_REMARK = (
    "split-k: K is dynamic, so the chunks are too; IREE 3.13's CUDA code for a matmul with "
    "a dynamic K can be wrong (a 123x?x456 f32 matmul with K = 6399 at run time was off by "
    "14% to 38% of the result's scale on an H200, differently in each of four runs; with a "
    "static K it was right) and gets no K tile"
)
"""What a dynamic K costs on a GPU, said on every op whose chunks stay dynamic."""

DEFAULT_MIN_CHUNK = 1024
"""The default rule's smallest chunk of K."""
DEFAULT_MAX_CHUNKS = 64
"""The default rule's largest number of chunks for a static K."""
DEFAULT_DYNAMIC_FACTOR = 16
"""The default rule's number of chunks for a dynamic K."""


@dataclass(frozen=True)
class ChunkPlan:
    """How K is cut. Exactly one reading applies:

    - `balanced`: `count` chunks, chunk s = [floor(s*K/count), floor((s+1)*K/count))
      for a dynamic K; a static K is cut by `static_chunks`.
    - `tile` set: chunks of `tile`, the last one shorter; `count` is
      ceil(K/tile), or None when K is dynamic and the count is computed at run time.
    - neither: `count` chunks of ceil(K/count) for a dynamic K, trailing ones
      possibly empty.
    """

    count: int | None
    tile: int | None = None
    balanced: bool = False
    align: int | None = None
    """Where set, a contraction is cut into static chunks of a multiple of
    this and its tail peeled (`aligned_split`); other ops read the plan as above."""
    pad_m: int | None = None
    """With `align`: M is padded to a multiple of this where it is longer."""
    cpu_tiles: bool = False
    """With `align`: the partial matmul carries the CPU target's tile sizes
    for IREE (`Target.partial_tiles`) where the target table has them."""


@dataclass(frozen=True)
class StaticChunks:
    """A static K cut into `full` chunks of one static size `chunk` and a
    `tail` (0, or shorter than a chunk) computed beside the loop.

    IREE 3.13 compiles a contraction whose K is dynamic into wrong CUDA code
    on some shapes (a 123x?x456 f32 matmul with K = 6399 off by 14-38% of
    the result's scale on an H200, a static K right) and without a K tile
    (`reduction = [0, 0, 1]`, no tensor cores), so no chunk size is left for
    it to compute where K is known."""

    chunk: int
    full: int
    tail: int

    @property
    def count(self) -> int:
        return self.full + (1 if self.tail else 0)

    @property
    def tail_offset(self) -> int:
        return self.full * self.chunk


def static_chunks(plan: ChunkPlan, k: int) -> StaticChunks:
    """`plan` on a static K as chunks of one size and a tail. `tile=T`: chunks
    of T; `factor=N`: chunks of ceil(K/N), N - 1 of them full and the last the
    tail; `balanced=true` reads the same as `factor=N` here (sizes that differ
    by one would be two chunk sizes: two loops, two dispatches)."""
    if plan.tile is not None and not plan.balanced:
        chunk = plan.tile
    else:
        assert plan.count is not None
        chunk = ceildiv(k, plan.count)
    full, tail = divmod(k, chunk)
    return StaticChunks(chunk, full, tail)


def default_plan(k: int | None) -> ChunkPlan | str:
    """
    The rule used when neither `factor` nor `tile` is given: chunks of at least
    DEFAULT_MIN_CHUNK along K, and at most DEFAULT_MAX_CHUNKS of them, balanced.
    A K shorter than two such chunks is left alone. A dynamic K gets
    DEFAULT_DYNAMIC_FACTOR balanced chunks. The target-aware model replaces this.
    """
    if k is None:
        return ChunkPlan(DEFAULT_DYNAMIC_FACTOR, balanced=True)
    count = min(DEFAULT_MAX_CHUNKS, k // DEFAULT_MIN_CHUNK)
    if count < 2:
        return (
            f"K = {k} is shorter than two chunks of {DEFAULT_MIN_CHUNK}, the "
            "default rule's smallest; give factor= or tile= to split it"
        )
    return ChunkPlan(count, balanced=True)


def plan_chunks(
    op: Operation,
    k: int | None,
    factor: int | None,
    tile: int | None,
    balanced: bool,
    align: int | None = None,
    pad_m: int | None = None,
    cpu_tiles: bool = False,
) -> ChunkPlan | None:
    """The chunking for one op, or None (with a remark) when it stays whole."""
    plan = _plan_chunks(op, k, factor, tile, balanced)
    if plan is None or align is None:
        return plan
    return ChunkPlan(plan.count, plan.tile, plan.balanced, align, pad_m, cpu_tiles)


def _plan_chunks(
    op: Operation, k: int | None, factor: int | None, tile: int | None, balanced: bool
) -> ChunkPlan | None:
    if factor is None and tile is None:
        plan = default_plan(k)
        if isinstance(plan, str):
            remark(op, f"not split: {plan}")
            return None
        return plan
    if tile is not None:
        if k is None:
            return ChunkPlan(None, tile=tile)
        if tile >= k:
            remark(op, f"not split: tile = {tile} covers all of K = {k}")
            return None
        count = ceildiv(k, tile)
        return ChunkPlan(count, balanced=True) if balanced else ChunkPlan(count, tile)
    assert factor is not None
    if k is None:
        return ChunkPlan(factor, balanced=balanced)
    if factor > k:
        remark(op, f"factor = {factor} exceeds K = {k}; using {k} chunks of 1")
        factor = k
    if factor == 1:
        remark(op, "not split: factor = 1 leaves one chunk")
        return None
    # With a static K, balanced=true takes the same static plan (`static_chunks`).
    chunk = ceildiv(k, factor)
    count = ceildiv(k, chunk)
    if count != factor:
        remark(
            op,
            f"{factor} chunks of ceil({k}/{factor}) = {chunk} cover K in {count}; "
            f"using {count} chunks",
        )
    return ChunkPlan(count, chunk)


def chunk_bounds(
    ir: IRBuilder, plan: ChunkPlan, s: SSAValue, k: int | SSAValue
) -> tuple[Mixed, Mixed]:
    """The offset and size of chunk `s` along K, as constants where they are."""
    if isinstance(k, int):
        if plan.balanced:
            assert plan.count is not None
            if divides(plan.count, k):
                size = k // plan.count
                return ir.apply(f"(d0) -> (d0 * {size})", s), size
            offset = ir.apply(f"(d0) -> ((d0 * {k}) floordiv {plan.count})", s)
            size = ir.apply(
                f"(d0) -> ((d0 * {k} + {k}) floordiv {plan.count} - "
                f"(d0 * {k}) floordiv {plan.count})",
                s,
            )
            return offset, size
        assert plan.tile is not None
        offset = ir.apply(f"(d0) -> (d0 * {plan.tile})", s)
        if divides(plan.tile, k):
            return offset, plan.tile
        return offset, ir.min(f"(d0) -> ({plan.tile}, -d0 * {plan.tile} + {k})", s)
    # A dynamic K: xDSL has no semi-affine maps, so s * K is an arith.muli.
    if plan.tile is not None:
        offset = ir.apply(f"(d0) -> (d0 * {plan.tile})", s)
        return offset, ir.min(f"(d0)[s0] -> ({plan.tile}, -d0 * {plan.tile} + s0)", s, k)
    assert plan.count is not None
    if plan.balanced:
        scaled = ir.muli(s, k)
        offset = ir.apply(f"(d0) -> (d0 floordiv {plan.count})", scaled)
        end = ir.apply(f"(d0)[s0] -> ((d0 + s0) floordiv {plan.count})", scaled, k)
        return offset, ir.apply("(d0, d1) -> (d1 - d0)", offset, end)
    chunk = ir.apply(f"()[s0] -> (s0 ceildiv {plan.count})", k)
    offset = ir.muli(s, chunk)
    size = ir.min("(d0)[s0, s1] -> (s0, -d0 + s1)", offset, chunk, k)
    return offset, ir.max("(d0) -> (d0, 0)", size)


# The same rules as numbers of the match, for patterns that state them
# structurally: K is the dimension their op tree names "K" (`has_shape`), and
# each number below is what `plan_chunks` and `static_chunks` compute for a
# static K without target= (where the cost model, not the op tree, decides).

K = dim("K")

DEFAULT_COUNT = minimum(DEFAULT_MAX_CHUNKS, K // DEFAULT_MIN_CHUNK)
"""The default rule's chunk count on a static K (`default_plan`)."""

FACTOR_CHUNK = ceildiv(K, minimum(option("factor"), K))
"""factor=S: chunks of ceil(K/S), S at most K."""

CHUNK = cases(
    (option("factor").is_set(), FACTOR_CHUNK),
    (option("tile").is_set() & ~option("balanced").is_truthy(), option("tile")),
    (option("tile").is_set(), ceildiv(K, ceildiv(K, option("tile")))),
    (ALWAYS, ceildiv(K, DEFAULT_COUNT)),
)
"""The size of every chunk in the loop (`StaticChunks.chunk`)."""

COUNT = cases(
    (option("factor").is_set(), ceildiv(K, FACTOR_CHUNK)),
    (option("tile").is_set(), ceildiv(K, option("tile"))),
    (ALWAYS, DEFAULT_COUNT),
)
"""How many chunks the options make of K (`ChunkPlan.count`)."""

FULL = K // CHUNK
"""Whole chunks, in the loop (`StaticChunks.full`)."""

TAIL = K % CHUNK
"""The rest of K, beside the loop (`StaticChunks.tail`)."""

options_cut_k: Constraint = described(
    ~option("target").is_set()
    & (
        ((option("factor") > 1) & (K > 1))
        | (option("tile") < K)
        | (~option("factor").is_set() & ~option("tile").is_set() & (DEFAULT_COUNT >= 2))
    ),
    "the options cut K into more than one chunk",
)
"""`plan_chunks` leaves more than one chunk: factor=S with S and K above 1
(a factor above K makes K chunks of 1), tile=T shorter than K, or the
default rule's count of at least 2. target= is the cost model's to decide."""


# What the static templates of expand, forall and grouped read of the
# reduction `splits` captured as "red".


def reads_k(expr: AffineExpr, m: Match) -> bool:
    """Whether a result of an input's map is the split loop itself."""
    red: Reduction = m["red"]
    return isinstance(expr, AffineDimExpr) and expr.position == red.reduction_dim


def every_input_reads_k(m: Match) -> bool | str:
    """Every input has K as a dimension of its own (one that does not is
    passed whole, which only the builders write)."""
    red: Reduction = m["red"]
    for i, input_map in enumerate(red.input_maps):
        if not any(reads_k(e, m) for e in input_map.results):
            return f"input {i} does not read K"
    return True


def capture_reduction_operands(m: Match) -> bool:
    """The reduction's inputs and init, as `match_reduction` reads them."""
    red: Reduction = m["red"]
    m.captures["ins"] = list(red.inputs)
    m.captures["c"] = red.init
    return True
