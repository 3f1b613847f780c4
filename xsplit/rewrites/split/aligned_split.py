"""split-k with aligned, static chunks: how a contraction is split for IREE's
CPU code (`split-k{align=A}`, and `target=cpu`, whose table gives A).

IREE 3.13's CPU matmul code is fast only on static sizes that are multiples
of its register tile. Measured on 123x456x51234 f32 (bench/RESULTS.md): 32
balanced chunks of 1601-1602 run in 199 ms; chunks of `affine.min(1602, ...)`
in 2320 ms; static chunks of 1602 with M padded to 128 in 214 ms; static
chunks of 1608 with M = 123 in 160 ms, and with M padded to 128 in 64-74 ms.
So this split makes every chunk the same static multiple of A and keeps the
ragged end of K out of the loop:

    %a_p  = tensor.pad %a ... (M -> a multiple of A, zeros)     when M needs it
    %partials = scf.forall (%s) in (K floordiv kc) {           kc: a multiple of A
      partial(chunk s of %a_p, chunk s of %b) over static kc
    }
    %tail = partial(the last K mod kc of %a_p and %b, its multiple of A in place)
    %tail_rest = partial(the rows of K past that, zero-padded to A)
    %r = linalg.generic ins(%partials[0:M], %tail[0:M], %tail_rest[0:M]) outs(%c)
                                                C + tails + sum of partials

With a target that has them (`Target.partial_tiles`), the chunk's
contraction carries `compilation_info` with IREE CPU tile sizes, which IREE's
CPU backend then uses instead of its own. Where those tiles need N to be a
multiple of a block that it is not (`Target.partial_column_block`), IREE
would mask every tile, so N is cut in two pieces, the largest multiple of the
block and the rest, each split as above into a fresh tensor whose merge adds
the piece's columns of the init, and the pieces are joined:

    %m0 = split of columns [0, N0) of %b, + %c[:, 0:N0]
    %m1 = split of columns [N0, N) of %b, + %c[:, N0:N]
    %r  = tensor.concat dim(n) %m0, %m1

Zero padding is exact for a multiply-accumulate: padded products are 0 * 0.
The tail is merged in the same generic as the partials (added once, at chunk
0) rather than by accumulating the tail into the merge's init: IREE 3.13
fuses such an init producer into the merge's dispatch and then rejects it
("write affecting operations on global resources are restricted to workgroup
distributed contexts").
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import AffineMapAttr, IndexType, IntegerAttr, TensorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.rewriter import InsertPoint

from xsplit.analysis.contraction import ContractionDims, op_contraction_dims
from xsplit.analysis.cost_model import padded_rows
from xsplit.analysis.reduction import Reduction
from xsplit.attr_names import mark_split_part
from xsplit.dialects.iree_codegen import COMPILATION_INFO, CompilationInfoAttr, TranslationInfoAttr
from xsplit.dialects.iree_cpu import LoweringConfigAttr, PipelineAttr
from xsplit.dialects.iree_linalg_ext import SplitReductionMappingAttr
from xsplit.dialects.op_helpers import zero_attr
from xsplit.dialects.scf import ForallOp, InParallelOp
from xsplit.dialects.tensor import ParallelInsertSliceOp
from xsplit.rewrites.dsl import (
    ALWAYS,
    Constraint,
    Match,
    Template,
    cases,
    ceildiv,
    dim,
    number,
    option,
)
from xsplit.rewrites.dsl.builders import IRBuilder
from xsplit.rewrites.dsl.numbers import described
from xsplit.rewrites.split.chunks import COUNT, K
from xsplit.rewrites.split.static_chunks import slice_name
from xsplit.targets.gpu_tiles import chunk_tiles, compilation_info
from xsplit.targets.table import Target


@dataclass(frozen=True)
class AlignedChunks:
    """K cut into `full` static chunks of `chunk` (a multiple of `align`)
    and a `tail` (0 or less than a chunk).

    The tail's largest multiple of the alignment, `tail_in_place`, is read
    where it lies; only the rows past it (`tail_rest`) are copied, padded to
    `align`. A padded copy of the whole tail is a fresh buffer of up to a
    chunk of B: 3x2048x50021 in 4 chunks (three of 12512 and a tail of 12485,
    a 102 MB copy) ran in 52 ms, against 11 ms in 2 chunks (a tail of 5)."""

    chunk: int
    full: int
    tail: int
    align: int

    @property
    def count(self) -> int:
        return self.full + (1 if self.tail else 0)

    @property
    def padded_tail(self) -> int:
        return ceildiv(self.tail, self.align) * self.align

    @property
    def tail_in_place(self) -> int:
        return self.tail // self.align * self.align

    @property
    def tail_rest(self) -> int:
        return self.tail - self.tail_in_place


def aligned_chunk_size(k: int, count: int, align: int) -> int:
    """The chunk size, a multiple of `align`, that cuts K into about `count` chunks."""
    return ceildiv(ceildiv(k, count), align) * align


def aligned_chunks(k: int, count: int, align: int) -> AlignedChunks | str:
    """About `count` chunks of a multiple of `align` covering K, or why none.
    Chunks are rounded up to the alignment, or down where rounding up leaves
    fewer than two full ones (2 chunks of 30011: 14992 each and a tail of
    27, not one of 15008 and a tail of 15003)."""
    chunk = aligned_chunk_size(k, count, align)
    if k // chunk < 2 and (k // count) // align * align > 0:
        chunk = (k // count) // align * align
    full, tail = divmod(k, chunk)
    if full < 2:
        return f"K = {k} holds fewer than two chunks of {chunk} (a multiple of {align})"
    return AlignedChunks(chunk, full, tail, align)


_ALIGN = number(option("align"))
_ROUNDED_DOWN = (K // COUNT) // _ALIGN * _ALIGN

ALIGNED_CHUNK = cases(
    ((K // aligned_chunk_size(K, COUNT, _ALIGN) < 2) & (_ROUNDED_DOWN > 0), _ROUNDED_DOWN),
    (ALWAYS, aligned_chunk_size(K, COUNT, _ALIGN)),
)
"""`aligned_chunks`' chunk size, as a number of the match: rounded up to
align=, or down where up leaves fewer than two whole chunks."""

ALIGNED_TAIL = K % ALIGNED_CHUNK
"""The rest of K beside the aligned chunks."""

options_align_k: Constraint = described(
    option("align").is_set() & (K // ALIGNED_CHUNK >= 2),
    "K cuts into aligned static chunks",
)
"""`aligned_chunks` finds two or more whole chunks of a multiple of align=,
for the chunk count the options make (`chunks.COUNT`)."""


ALIGNED_MATMUL = Template(
    """
%zero = arith.constant $zero
%partials_init = tensor.empty() : $partials_type
%partials = scf.forall (%chunk) in ($full) shared_outs(%partials_out = %partials_init) -> ($partials_type) {
  %chunk_offset = affine.apply affine_map<(d0) -> (d0 * $chunk)> (%chunk)
  %$a_chunk = tensor.extract_slice $a[0, %chunk_offset] [$m, $chunk] [1, 1] : $a.type to $a_chunk_type
  %$b_chunk = tensor.extract_slice $b[%chunk_offset, 0] [$chunk, $n] [1, 1] : $b.type to $b_chunk_type
  %0 = tensor.extract_slice %partials_out[%chunk, 0, 0] [1, $m, $n] [1, 1, 1] : $partials_type to $c.type
  %partial_init = linalg.fill ins(%zero : $c.element_type) outs(%0 : $c.type) -> $c.type
  %partial = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%$a_chunk, %$b_chunk : $a_chunk_type, $b_chunk_type) outs(%partial_init : $c.type) {
  ^bb0(%1: $c.element_type, %2: $c.element_type, %3: $c.element_type):
    %4 = arith.mulf %1, %2 : $c.element_type
    %5 = arith.addf %3, %4 : $c.element_type
    linalg.yield %5 : $c.element_type
  } -> $c.type
  scf.forall.in_parallel {
    tensor.parallel_insert_slice %partial into %partials_out[%chunk, 0, 0] [1, $m, $n] [1, 1, 1] : $c.type into $partials_type
  }
} {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
$for _ in $no_tail:
%merged = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%partials : $partials_type) outs($c : $c.type) attrs = {xsplit.split_part = "merge"} {
^bb0(%6: $c.element_type, %7: $c.element_type):
  %8 = arith.addf %6, %7 : $c.element_type
  linalg.yield %8 : $c.element_type
} -> $c.type
$end
$for _ in $with_tail:
%$a_tail = tensor.extract_slice $a[0, $tail_offset] [$m, $tail] [1, 1] {xsplit.split_part = "tail"} : $a.type to $a_tail_type
%$b_tail = tensor.extract_slice $b[$tail_offset, 0] [$tail, $n] [1, 1] {xsplit.split_part = "tail"} : $b.type to $b_tail_type
%6 = tensor.empty() : $c.type
%tail_init = linalg.fill {xsplit.split_part = "tail"} ins(%zero : $c.element_type) outs(%6 : $c.type) -> $c.type
%tail = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%$a_tail, %$b_tail : $a_tail_type, $b_tail_type) outs(%tail_init : $c.type) attrs = {xsplit.split_part = "tail"} {
^bb0(%7: $c.element_type, %8: $c.element_type, %9: $c.element_type):
  %10 = arith.mulf %7, %8 : $c.element_type
  %11 = arith.addf %9, %10 : $c.element_type
  linalg.yield %11 : $c.element_type
} -> $c.type
%merged = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%partials, %tail : $partials_type, $c.type) outs($c : $c.type) attrs = {xsplit.split_part = "merge"} {
^bb0(%12: $c.element_type, %13: $c.element_type, %14: $c.element_type):
  %15 = linalg.index 2 : index
  %16 = arith.constant 0 : index
  %17 = arith.cmpi eq, %15, %16 : index
  %18 = arith.addf %12, %13 : $c.element_type
  %19 = arith.select %17, %18, %12 : $c.element_type
  %20 = arith.addf %19, %14 : $c.element_type
  linalg.yield %20 : $c.element_type
} -> $c.type
$end
""",
    results=["%merged"],
    zero=lambda m: zero_attr(m["c"].type.element_type),
    full=K // ALIGNED_CHUNK,
    chunk=ALIGNED_CHUNK,
    m=dim("M"),
    n=dim("N"),
    partials_type=lambda m: _typed(m, [(K // ALIGNED_CHUNK)(m), dim("M")(m), dim("N")(m)]),
    a_chunk_type=lambda m: _typed(m, [dim("M")(m), ALIGNED_CHUNK(m)]),
    b_chunk_type=lambda m: _typed(m, [ALIGNED_CHUNK(m), dim("N")(m)]),
    a_chunk=lambda m: slice_name(m, "a", "chunk"),
    b_chunk=lambda m: slice_name(m, "b", "chunk"),
    no_tail=lambda m: 0 if ALIGNED_TAIL(m) else 1,
    with_tail=lambda m: 1 if ALIGNED_TAIL(m) else 0,
    tail=ALIGNED_TAIL,
    tail_offset=K - ALIGNED_TAIL,
    a_tail_type=lambda m: _typed(m, [dim("M")(m), ALIGNED_TAIL(m)]),
    b_tail_type=lambda m: _typed(m, [ALIGNED_TAIL(m), dim("N")(m)]),
    a_tail=lambda m: slice_name(m, "a", "tail"),
    b_tail=lambda m: slice_name(m, "b", "tail"),
)
"""A static matmul of one float type whose aligned chunks leave no rest of
K, or one that is a multiple of align=, and whose M needs no padding: the
loop over the aligned chunks, each a generic contraction into its slot of
the partials (the chunk index first: each chunk writes one contiguous
block); where K leaves no rest (`$for _ in $no_tail`, once or not at all)
a merge into C, else (`$with_tail`) the rest as one generic beside the
loop and a merge that adds it in once, at chunk 0. With a tail that needs
padding, a padded M or tiles, `split_aligned` builds it."""

ALIGNED_MATMUL_AND_TAIL = ALIGNED_MATMUL
"""The same template: it writes the rest of K where there is one."""


def _typed(m: Match, shape: list[int]) -> TensorType:
    return TensorType(m["c"].type.element_type, shape)


m_needs_no_padding: Constraint = described(
    ~option("pad_m").is_set()
    | (dim("M") <= number(option("pad_m")))
    | (dim("M") % number(option("pad_m")) == 0),
    "M needs no padding",
)
"""`padded_rows(M, pad_m) == M`: no pad_m=, or M at most it or a multiple of it."""


def aligned_split_applies(red: Reduction) -> bool | str:
    """Whether `red` can be split into aligned, zero-padded chunks: a
    multiply-accumulate contraction with static shapes, cut along its K."""
    dims = op_contraction_dims(red.op)
    if isinstance(dims, str):
        return dims
    if dims.k != red.reduction_dim:
        return "the split loop is not the contraction's K"
    values = (*red.inputs, red.init)
    if any(not isinstance(v.type, TensorType) or not v.type.has_static_shape() for v in values):
        return "its shapes are not static"
    return True


def pad_with_zeros(ir: IRBuilder, value: SSAValue, padded: dict[int, int]) -> SSAValue:
    """`value` zero-padded at the high end of the given dimensions to the given sizes."""
    t = value.type
    assert isinstance(t, TensorType)
    shape = list(t.get_shape())
    high = [padded.get(d, size) - size for d, size in enumerate(shape)]
    if not any(high):
        return value
    body = Block(arg_types=[IndexType()] * len(shape))
    zero = arith.ConstantOp(zero_attr(t.element_type))
    body.add_ops([zero, tensor.YieldOp(zero.result)])
    pad = ir.b.insert(
        tensor.PadOp(
            value, [], [], Region(body), [0] * len(shape), high,
            TensorType(t.element_type, [s + h for s, h in zip(shape, high)]),
        )
    )
    if value.name_hint:
        pad.result.name_hint = f"{value.name_hint}_padded"
    return pad.result


def _contraction(red: Reduction, inputs: list[SSAValue], init: SSAValue) -> Operation:
    """The op's contraction over other operands, in generic form (its shapes
    may differ from the op's, which a named op's clone would keep)."""
    op = red.op
    return linalg.GenericOp(
        inputs,
        [init],
        red.body(),
        list(op.get_indexing_maps().data),  # type: ignore[attr-defined]
        list(op.get_iterator_types().data),  # type: ignore[attr-defined]
        [init.type],
    )


def _tiled_layout(red: Reduction, dims: ContractionDims) -> bool | None:
    """Whether B is transposed (B[n, k]) in a plain matmul with A row-major,
    False where B is row-major (B[k, n]), None for any other contraction: the
    layouts the target's tile sizes were measured on."""
    if dims.batch or dims.m is None or dims.n is None:
        return None
    loops = [[e.position for e in mp.results] for mp in (*red.input_maps, red.output_map)]  # type: ignore[attr-defined]
    row_major = [[dims.m, dims.k], [dims.k, dims.n], [dims.m, dims.n]]
    transposed = [[dims.m, dims.k], [dims.n, dims.k], [dims.m, dims.n]]
    if loops not in (row_major, transposed):
        return None
    elements = {getattr(v.type, "element_type", None) for v in red.inputs} | {red.acc_type.element_type}
    if len(elements) != 1:
        return None
    return loops == transposed


def _partial_config(
    red: Reduction, dims: ContractionDims, m: int | None, n: int | None, tiles_for: Target
) -> CompilationInfoAttr | None:
    """`tiles_for`'s IREE configuration for a chunk's contraction with an
    M x N output, where it has one (`_tiled_layout`'s layouts only)."""
    transposed = _tiled_layout(red, dims)
    if transposed is None or m is None or n is None:
        return None
    tiles = tiles_for.partial_tiles(m, n, red.acc_type.element_type, transposed)
    if tiles is None:
        return None
    roles = (dims.m, dims.n, dims.k)
    levels = {}
    for level, (tm, tn, tk) in tiles.items():
        sizes = [0] * dims.num_loops
        for loop, size in zip(roles, (tm, tn, tk)):
            sizes[loop] = size
        levels[level] = sizes
    return CompilationInfoAttr(
        LoweringConfigAttr(levels), TranslationInfoAttr(PipelineAttr("DoubleTilingExpert"))
    )


def column_pieces(
    red: Reduction,
    dims: ContractionDims,
    m: int | None,
    n: int | None,
    tiles_for: Target | None,
) -> list[tuple[int, int]]:
    """The (offset, size) pieces of N that a split's chunks are computed in:
    N whole, or the columns `tiles_for` gives its tiles
    (`Target.partial_main_columns`) as one piece and the rest as another.
    IREE masks every tile of a matmul whose N its tiles do not divide, not
    just the last: 8x1000x30011 ran at the rate of its slowest tile."""
    if n is None or m is None or tiles_for is None:
        return [(0, n or 0)]
    transposed = _tiled_layout(red, dims)
    if transposed is None:
        return [(0, n)]
    main = tiles_for.partial_main_columns(m, n, red.acc_type.element_type, transposed)
    return [(0, n)] if main == n else [(0, main), (main, n - main)]


def split_aligned(
    red: Reduction,
    chunks: AlignedChunks,
    pad_m: int | None,
    ir: IRBuilder,
    tiles_for: Target | None = None,
    gpu: Target | None = None,
) -> tuple[SSAValue, Operation]:
    """The aligned split of `red` (see the module doc), M padded to a multiple
    of `pad_m` where given, and each chunk's contraction configured with
    `tiles_for`'s IREE CPU tile sizes where it has them, in the pieces of N
    that `column_pieces` cuts, or with the GPU `gpu`'s (`gpu_tiles`);
    returns the merged result and the loop that computes the (first
    piece's) partials."""
    dims = op_contraction_dims(red.op)
    assert not isinstance(dims, str)
    out_type = red.acc_type
    out_shape = list(out_type.get_shape())
    out_loops = [e.position for e in red.output_map.results if isinstance(e, AffineDimExpr)]

    # Rows of M past a multiple of the alignment run on IREE's slow path.
    m_extent = None
    if dims.m is not None:
        m_extent = out_shape[out_loops.index(dims.m)]
    padded_m = None
    if m_extent is not None and padded_rows(m_extent, pad_m) != m_extent:
        padded_m = padded_rows(m_extent, pad_m)
    n_extent = out_shape[out_loops.index(dims.n)] if dims.n is not None else None

    inputs = []
    for value, m in zip(red.inputs, red.input_maps):
        loops = _loops_of(m)
        pads = {} if padded_m is None or dims.m not in loops else {loops.index(dims.m): padded_m}
        padded = pad_with_zeros(ir, value, pads)
        if padded is not value:
            mark_split_part(padded.owner, "pad")  # type: ignore[arg-type]
        inputs.append(padded)
    zero = ir.constant(zero_attr(out_type.element_type))
    zero.name_hint = "zero"

    pieces = column_pieces(red, dims, padded_m or m_extent, n_extent, tiles_for)
    if len(pieces) == 1:
        return _split_piece(
            red, dims, chunks, inputs, red.init, m_extent, padded_m, zero, ir, tiles_for, gpu=gpu
        )

    def n_slice(value: SSAValue, loops: list[int], offset: int, size: int) -> SSAValue:
        t = value.type
        assert isinstance(t, TensorType)
        position = loops.index(dims.n)
        return ir.extract_slice(
            value,
            [offset if d == position else 0 for d in range(len(loops))],
            [size if d == position else s for d, s in enumerate(t.get_shape())],
        )

    # Each piece's merge adds its columns of the op's init as an input and
    # writes a fresh tensor: IREE 3.13 rejects a merge whose init is a slice
    # of a function argument ("write affecting operations on global resources
    # are restricted to workgroup distributed contexts").
    merged_pieces, first = [], None
    for offset, size in pieces:
        init_piece = n_slice(red.init, out_loops, offset, size)
        init_piece.name_hint = f"{red.init.name_hint or 'init'}_columns"
        piece_shape = init_piece.type.get_shape()  # type: ignore[union-attr]
        fresh = ir.fill(zero, ir.empty(piece_shape, out_type.element_type))
        fresh.name_hint = "merge_init"
        merged, forall = _split_piece(
            red, dims, chunks, inputs, fresh, m_extent, padded_m, zero, ir, tiles_for,
            columns=(offset, size), added_once=init_piece, gpu=gpu,
        )
        merged_pieces.append(merged)
        first = first or forall
    result = ir.b.insert(
        tensor.ConcatOp(merged_pieces, out_loops.index(dims.n), out_type)
    ).results[0]
    result.name_hint = "merged"
    assert first is not None
    return result, first


def _loops_of(value_map: AffineMap) -> list[int]:
    return [e.position for e in value_map.results]  # type: ignore[attr-defined]


def _split_piece(
    red: Reduction,
    dims: ContractionDims,
    chunks: AlignedChunks,
    inputs: list[SSAValue],
    init: SSAValue,
    m_extent: int | None,
    padded_m: int | None,
    zero: SSAValue,
    ir: IRBuilder,
    tiles_for: Target | None,
    columns: tuple[int, int] | None = None,
    added_once: SSAValue | None = None,
    gpu: Target | None = None,
) -> tuple[SSAValue, Operation]:
    """The aligned split of `red` over `inputs` (M padded to `padded_m` where
    given) into `init`, plus `added_once` where given; with `columns` (an
    offset and a size along N), over those columns of the inputs, which
    `init` then has. Each chunk slices its columns straight from the
    inputs: a slice of the whole of B taken first is a copy of it in IREE
    (8x1000x30011: 54 ms against 35 ms unsplit)."""
    k_loop = red.reduction_dim
    init_type = init.type
    assert isinstance(init_type, TensorType)
    element = init_type.element_type
    out_shape = list(init_type.get_shape())
    out_loops = [e.position for e in red.output_map.results if isinstance(e, AffineDimExpr)]
    partial_shape = list(out_shape)
    if padded_m is not None:
        partial_shape[out_loops.index(dims.m)] = padded_m
    rank = len(partial_shape)

    def k_slice(builder: IRBuilder, value: SSAValue, m: AffineMap, offset, size: int) -> SSAValue:
        t = value.type
        assert isinstance(t, TensorType)
        loops = _loops_of(m)
        offsets: list = [0] * len(loops)
        sizes: list = list(t.get_shape())
        offsets[loops.index(k_loop)] = offset
        sizes[loops.index(k_loop)] = size
        if columns is not None and dims.n in loops:
            offsets[loops.index(dims.n)], sizes[loops.index(dims.n)] = columns
        chunk = builder.extract_slice(value, offsets, sizes)
        if value.name_hint:
            chunk.name_hint = f"{value.name_hint.removesuffix('_padded')}_chunk"
        return chunk

    # The loop over the full chunks. The chunk is the partials' outer
    # dimension so that each chunk writes one contiguous block: with the chunk
    # innermost, every chunk's stores hit every cache line of the partials
    # (decode 16x4096x16384 in 32 chunks: 43 ms, against 30 ms chunk-outer).
    partials_init = ir.empty([chunks.full, *partial_shape], element)
    partials_init.name_hint = "partials_init"
    body = Block(arg_types=[IndexType(), partials_init.type])
    s, shared = body.args
    s.name_hint, shared.name_hint = "chunk", "partials_out"
    inner = IRBuilder(Builder(InsertPoint.at_end(body)))
    offset = inner.apply(f"(d0) -> (d0 * {chunks.chunk})", s)
    offset.name_hint = "chunk_offset"
    slices = [
        k_slice(inner, v, m, offset, chunks.chunk) for v, m in zip(inputs, red.input_maps)
    ]
    slot = ([s] + [0] * rank, [1, *partial_shape])
    acc = inner.fill(zero, inner.extract_slice(shared, *slot, drop_dims=[0]))
    acc.name_hint = "partial_init"
    partial = inner.b.insert(_contraction(red, slices, acc))
    partial.results[0].name_hint = "partial"
    n_extent = out_shape[out_loops.index(dims.n)] if dims.n is not None else None
    cpu_config = None
    if tiles_for is not None:
        cpu_config = _partial_config(red, dims, padded_m or m_extent, n_extent, tiles_for)

    def configure(op: Operation, k_size: int) -> None:
        config = cpu_config
        if gpu is not None:
            config = _gpu_config(red, dims, padded_m or m_extent, n_extent, k_size, gpu)
        if config is not None:
            op.attributes[COMPILATION_INFO] = config

    configure(partial, chunks.chunk)
    body.add_op(InParallelOp([ParallelInsertSliceOp(partial.results[0], shared, *slot)]))
    forall = ir.b.insert(
        ForallOp(
            [0], [chunks.full], [1], [partials_init], Region(body),
            mapping=[SplitReductionMappingAttr(0)],
        )
    )
    partials = forall.results[0]
    partials.name_hint = "partials"

    # The ragged end of K: its aligned part read in place, with the chunks'
    # tiles, and the rows past it zero-padded to the alignment.
    merge_inputs = [partials]
    tail_offset = chunks.full * chunks.chunk
    tail_parts = [
        (tail_offset, chunks.tail_in_place, chunks.tail_in_place, "tail"),
        (tail_offset + chunks.tail_in_place, chunks.tail_rest, chunks.align, "tail_rest"),
    ]
    for offset, size, padded, name in tail_parts:
        if not size:
            continue
        tail_inputs = []
        for v, m in zip(inputs, red.input_maps):
            piece = k_slice(ir, v, m, offset, size)
            piece.name_hint = (v.name_hint or "input").removesuffix("_padded") + f"_{name}"
            mark_split_part(piece.owner, "tail")  # type: ignore[arg-type]
            tail_input = pad_with_zeros(ir, piece, {_loops_of(m).index(k_loop): padded})
            if tail_input is not piece:
                mark_split_part(tail_input.owner, "tail")  # type: ignore[arg-type]
            tail_inputs.append(tail_input)
        tail_init = ir.fill(zero, ir.empty(partial_shape, element))
        mark_split_part(tail_init.owner, "tail")  # type: ignore[arg-type]
        tail_init.name_hint = f"{name}_init"
        tail = ir.b.insert(_contraction(red, tail_inputs, tail_init))
        mark_split_part(tail, "tail")
        tail.results[0].name_hint = name
        if size == padded or gpu is not None:
            configure(tail, padded)
        merge_inputs.append(tail.results[0])
    if padded_m is not None:
        m_dim = out_loops.index(dims.m)
        m_dims = [m_dim + 1] + [m_dim] * (len(merge_inputs) - 1)  # partials, tails
        merge_inputs = [
            _marked(ir.extract_slice(
                v,
                [0] * len(v.type.get_shape()),  # type: ignore[union-attr]
                [m_extent if d == m_dim else size for d, size in enumerate(v.type.get_shape())],  # type: ignore[union-attr]
            ), "merge")
            for v, m_dim in zip(merge_inputs, m_dims)
        ]
    if added_once is not None:
        merge_inputs.append(added_once)
    return _merge(red, merge_inputs, init, ir), forall


def _merge(red: Reduction, inputs: list[SSAValue], init: SSAValue, ir: IRBuilder) -> SSAValue:
    """init + each partial (`inputs[0]`, over the chunk loop: the merge's
    last loop, the partials' first dimension) + the rest of `inputs` (the
    tail, a piece of the op's init), added once, at chunk 0."""
    element = red.acc_type.element_type
    rank = red.acc_type.get_num_dims()
    block = Block(arg_types=[element] * (len(inputs) + 1))
    acc = block.args[-1]
    term: SSAValue = block.args[0]
    if len(inputs) > 1:
        chunk = linalg.IndexOp(rank)
        first_chunk = arith.ConstantOp(IntegerAttr(0, IndexType()))
        is_first = arith.CmpiOp(chunk.result, first_chunk.result, "eq")
        block.add_ops([chunk, first_chunk, is_first])
        with_the_rest: SSAValue = block.args[0]
        for once in block.args[1:-1]:
            added = red.combiner(with_the_rest, once)
            block.add_op(added)
            with_the_rest = added.results[0]
        term_op = arith.SelectOp(is_first, with_the_rest, block.args[0])
        block.add_op(term_op)
        term = term_op.result
    combined = red.combiner(term, acc)
    block.add_ops([combined, linalg.YieldOp(combined.results[0])])
    loops = AffineMap.identity(rank + 1).results
    chunk_first = AffineMap(rank + 1, 0, (loops[rank], *loops[:rank]))
    kept = AffineMap(rank + 1, 0, loops[:rank])
    maps = [chunk_first, *[kept] * (len(inputs) - 1), kept]
    merged = ir.b.insert(
        linalg.GenericOp(
            inputs,
            [init],
            Region(block),
            [AffineMapAttr(m) for m in maps],
            [IteratorTypeAttr.parallel()] * rank + [IteratorTypeAttr.reduction()],
            [init.type],
        )
    )
    mark_split_part(merged, "merge")
    merged.results[0].name_hint = "merged"
    return merged.results[0]


def _marked(value: SSAValue, part: str) -> SSAValue:
    mark_split_part(value.owner, part)  # type: ignore[arg-type]
    return value


def _gpu_config(
    red: Reduction, dims: ContractionDims, m: int | None, n: int | None, k: int, gpu: Target
) -> CompilationInfoAttr | None:
    """`gpu`'s configuration (`gpu_tiles.chunk_tiles`) for a chunk's
    contraction with an M x N output over `k`, where it has one: a plain
    matmul, B row-major or transposed."""
    if m is None or n is None or _tiled_layout(red, dims) is None:
        return None
    elements = (
        *(getattr(v.type, "element_type", None) for v in red.inputs),
        red.acc_type.element_type,
    )
    tiles = chunk_tiles(gpu, m, n, k, elements)  # type: ignore[arg-type]
    if tiles is None:
        return None
    assert dims.m is not None and dims.n is not None
    return compilation_info(tiles, (dims.m, dims.n, dims.k), dims.num_loops)
