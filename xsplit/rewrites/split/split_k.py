"""`split-k`: rewrites a reduction into partial reductions over K-chunks and a
merge, for any K, whether or not the factor divides it.

```
%r = linalg.matmul ins(%A, %B) outs(%C)
```
becomes, with `strategy=forall` (the seed's solution 2):
```
%partials = scf.forall (%s) in (S) shared_outs(%p = %empty) {
  ... chunk s of K: offset, size ...
  %acc = linalg.fill ins(%identity) outs(slice s of %p)
  %part = linalg.matmul ins(chunk s of %A, chunk s of %B) outs(%acc)
  scf.forall.in_parallel { tensor.parallel_insert_slice %part into %p[..., %s] }
} {mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}
%r = linalg.reduce ins(%partials) outs(%C) dimensions = [last]
```
The merge folds the partials into the original init, so `C + A*B` stays right.
With `strategy=expand` (the seed's first IR, for factors that divide K) the
operands are reshaped with `tensor.expand_shape` and the reduction becomes one
`linalg.generic` with a parallel chunk loop.

Chunks: `tile=T` makes chunks of T with a shorter last one; `factor=S` makes
S chunks of ceil(K/S); `balanced=true` makes chunk sizes differ by at most one
(chunk s covers [floor(s*K/S), floor((s+1)*K/S))) where K is dynamic. Where K
is static every chunk in the loop has one static size and the shorter last
one is a tail op beside it (`chunks.static_chunks`; balanced=true reads as
factor=S): IREE 3.13's CUDA code for a dynamic-K matmul can be wrong, and a
dynamic K says so in a remark. `target=NAME` lets the cost
model (`cost_model`) choose a balanced chunk count for that target, or leave
the op whole, and records the count as `xsplit.split_factor` on the op that
computes the partials. On a GPU a one-row contraction (a decode) is left
to IREE's own split, 4x faster than static chunks: the op gets
`iree_linalg_ext.split_reduction = [C : index]`, the divisor C of K that
IREE's `--iree-dispatch-creation-enable-split-reduction` would pick
(`split-k-leaves-decode-to-iree`), and IREE forms the split dispatch. With
none of these the default rule applies (`default_plan`).

An input that is a `linalg.transpose`'s result is read through it: the model
prices the op on the transpose's source, and an op that splits is first
rewritten as a `linalg.generic` on the source (IREE fuses such a transpose
into a whole op, not into chunks sliced from the copy).

A vector against a matrix (`linalg.vecmat`, `linalg.matvec`, their generic
forms) is priced as the one-row matmul it is, and where the chunks get CPU
tiles it is first rewritten as that matmul, the vector and the init given a
unit row (`split-k-lifts-vector-contraction`).

`align=A` (and `pad_m=P`) cut a contraction with static shapes into chunks
of one static size, a multiple of A, with the rest of K as a zero-padded tail
beside the loop and M padded to a multiple of P (`aligned_split`): IREE's CPU
code is several times slower on other sizes; GPU targets take align=128
pad_m=64 (`gpu_tiles.split_alignment`) and, for f32 on CUDA, a measured
TileAndFuse configuration per chunk. `cpu_tiles=true` also gives
each chunk's f32 matmul IREE CPU tile sizes (`Target.partial_tiles`: a
workgroup over all of M and a cache line of N). `target=cpu` takes all
three from the target table.

On GPU targets a static `linalg.matmul` into f32 may instead be lowered to
xsplit's own split-K GEMM kernel (`own_kernel.py`): `kernel=auto` (the
default) where the cost model has it faster than IREE's code and its terms
are not scaled from another GPU's (`cost_model.choose_kernel`: CUDA today,
not gfx942), `kernel=own` wherever the kernel takes the op, `kernel=iree`
never.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Operation, SSAValue

import xsplit.attr_names as attr_names
from xsplit.analysis.cost_model import choose_split, problem_of
from xsplit.analysis.devices import DEVICE, modeled
from xsplit.analysis.reduction import Reduction, loop_name, match_reduction
from xsplit.diagnostics import remark
from xsplit.dialects.iree_linalg_ext import (
    SPLIT_REDUCTION,
    SplitReductionMappingAttr,
)
from xsplit.rewrites.dsl import (
    Match,
    Option,
    Pass,
    Pattern,
    Remark,
    ceildiv,
    divides,
    no_discardable_attributes,
    number,
    option,
    parent_is,
    positive,
    some_operand,
    where,
)
from xsplit.rewrites.dsl.builders import IRBuilder
from xsplit.rewrites.dsl.constraints import attr
from xsplit.rewrites.dsl.structure import results
from xsplit.rewrites.dsl.numbers import described
from xsplit.rewrites.split.aligned_split import (
    ALIGNED_CHUNK,
    ALIGNED_MATMUL,
    ALIGNED_MATMUL_AND_TAIL,
    ALIGNED_TAIL,
    aligned_chunks,
    aligned_split_applies,
    m_needs_no_padding,
    options_align_k,
    split_aligned,
)
from xsplit.rewrites.split.chunks import (
    COUNT,
    DYNAMIC_K_REMARK,
    K,
    ChunkPlan,
    options_cut_k,
    plan_chunks,
)
from xsplit.rewrites.split.dynamic_chunks import (
    DYNAMIC_TILES,
    a_matmul_of_dynamic_k,
    planned_dynamic_shape,
    tiled_by_the_options,
)
from xsplit.rewrites.split import generic_chunks
from xsplit.rewrites.split.encoded_split import (
    make_split_encoded_matmul_patterns,
    make_split_encoded_pattern,
)
from xsplit.rewrites.split.expand_split import (
    EXPANDED_BATCH_MATMUL,
    EXPANDED_MATMUL,
    expand_static_pattern,
    one_float_type,
    split_with_expand,
)
from xsplit.rewrites.split.forall_split import forall_static_patterns, split_with_forall
from xsplit.rewrites.split.grouped import (
    GROUPED_BATCH_MATMUL,
    GROUPED_MATMUL,
    grouped_applies,
    grouped_static_pattern,
    split_with_grouped_gemm,
)
from xsplit.rewrites.split.memo import planned_shape, shape
from xsplit.rewrites.split.read_through import (
    READ_THROUGH_TRANSPOSE,
    READ_THROUGH_TRANSPOSES,
    a_matmul_reading_a_transpose,
    it_reads_the_transpose,
    its_body,
    reads_a_transpose,
)
from xsplit.rewrites.split.static_chunks import (
    STATIC_BATCH_CHUNKS,
    STATIC_BATCH_CHUNKS_AND_TAIL,
    STATIC_CHUNKS,
    STATIC_CHUNKS_AND_TAIL,
    a_plain_static_batch_matmul,
    a_plain_static_matmul,
    leaves_no_tail,
)
from xsplit.rewrites.split.vector_chunks import vector_chunk_patterns
from xsplit.rewrites.split.lift_vector import (
    LIFTED_TO_ONE_ROW,
    MATVEC_AS_ONE_ROW,
    VECMAT_AS_ONE_ROW,
    a_static_matvec,
    a_static_vecmat,
    is_a_vector_contraction,
    lifts_for_cpu_tiles,
)
from xsplit.rewrites.split.lift_vector import its_body as its_vector_body
from xsplit.rewrites.split.leave_to_iree import LEAVE_TO_IREE, the_model_leaves_it_to_iree
from xsplit.rewrites.split.own_kernel import KERNEL_CHOICES, lower_to_own_kernel, own_kernel_chosen
from xsplit.targets.gpu_tiles import split_alignment
from xsplit.targets.table import TARGETS, Target, target


# The match side: what makes an op splittable, and how K is cut.

REDUCTION_ROOTS = (
    "linalg.matmul",
    "linalg.batch_matmul",
    "linalg.matvec",
    "linalg.vecmat",
    "linalg.batch_matvec",
    "linalg.batch_vecmat",
    "linalg.dot",
    "linalg.mmt4d",
    "linalg.batch_mmt4d",
    "linalg.batch_reduce_matmul",
    "linalg.contract",
    "linalg.conv_2d_nhwc_hwcf",
    "linalg.conv_2d_nchw_fchw",
    "linalg.depthwise_conv_2d_nhwc_hwc",
    "linalg.generic",
    "linalg.reduce",
)


def _capture_reduction(m: Match) -> bool | str:
    # Every split-k pattern asks first; the answer holds for all of them.
    key = ("reduction", id(m.root))
    if key not in m.analyses:
        m.analyses[key] = match_reduction(m.root)
    red = m.analyses[key]
    if isinstance(red, str):
        return red
    m.captures["red"] = red
    m.captures["k"] = red.static_k()
    return True


def _capture_plan(m: Match) -> bool | str:
    o = m.options
    own_count = o["merge"] or o["kernel"] == "own"
    if o["target"] is not None and not (own_count and (o["factor"] or o["tile"])):
        placed = modeled(m.root, o["target"])
        assert placed is not None
        m.captures["placed"] = placed
        chosen = _capture_modeled_plan(m, placed.target, placed.prefix())
        if chosen is True:
            _say_which_loop(m)
            _warn_of_dynamic_k(m)
        return chosen
    plan = plan_chunks(
        m.root, m["k"], o["factor"], o["tile"], o["balanced"], o["align"], o["pad_m"],
        o["cpu_tiles"],
    )
    if plan is None:
        return "the options leave one chunk (see the remark)"
    m.captures["plan"] = plan
    _say_which_loop(m)
    _warn_of_dynamic_k(m)
    return True


def _warn_of_dynamic_k(m: Match) -> None:
    """Where K is dynamic the chunks must be: say what that costs on a GPU."""
    if m["k"] is None:
        remark(m.root, DYNAMIC_K_REMARK)


def _say_which_loop(m: Match) -> None:
    """With several reduction loops, which one is cut is a choice; say it."""
    red: Reduction = m["red"]
    if len(red.reduction_dims) < 2:
        return
    op, r = m.root, red.reduction_dim
    k = red.static_k()
    others = [loop_name(op, d) for d in red.reduction_dims if d != r]
    remark(
        op,
        f"split-k: cutting reduction loop {loop_name(op, r)} "
        f"(extent {'?' if k is None else k}), the longest; {', '.join(others)} "
        f"{'stays' if len(others) == 1 else 'stay'} whole in each chunk",
    )


def _several_devices(m: Match) -> bool:
    """Whether the op's module declares several devices: IREE 3.13 may then
    compile a dispatch for each device's executable target, and fixed llvm-cpu
    tile sizes and pipeline fail to build on VMVX ("failed to build pass
    pipeline"), so IREE picks the tiles there."""
    placed = m.captures.get("placed")
    if placed is None or placed.device is None:
        return False
    from xsplit.analysis.devices import module_devices

    module = m.root.get_toplevel_object()
    return isinstance(module, ModuleOp) and len(module_devices(module).devices) > 1


def _capture_modeled_plan(m: Match, chosen_for: Target, on: str = "") -> bool | str:
    """The cost model's chunk count for this op on the target, or why none;
    `on` names the op's device in the remarks."""
    problem = problem_of(m["red"])
    if isinstance(problem, str):
        remark(m.root, f"{on}not split: {problem}")
        return problem
    choice = choose_split(problem, chosen_for)
    if choice.factor == 1:
        remark(m.root, f"{on}not split: {choice.reason}")
        return choice.reason
    remark(m.root, f"{on}split-k: {choice.reason}")
    align, pad_m = split_alignment(chosen_for)
    m.captures["plan"] = ChunkPlan(
        choice.factor,
        balanced=True,
        align=m.options["align"] or align,
        pad_m=m.options["pad_m"] or pad_m,
        cpu_tiles=m.options["cpu_tiles"] or (chosen_for.split_tiles and not _several_devices(m)),
    )
    m.captures["chosen_factor"] = choice.factor
    return True


def _chunks_divide_k(m: Match) -> bool | str:
    k, plan = m["k"], m["plan"]
    if k is None:
        return "K is dynamic"
    return divides(plan.count, k) or f"{plan.count} does not divide K = {k}"


def _expressible_by_expand(m: Match) -> bool | str:
    """expand_shape reshapes the split loop's dimension in place: it cannot cut
    a window dimension, and a batched generic's linalg.index would count
    within a chunk."""
    red: Reduction = m["red"]
    if red.arg is not None:
        return "an arg-reduction's index must count from the start of K"
    if not red.split_only_plainly():
        return "the split loop indexes an input inside a window"
    return True


is_splittable_reduction = where("is a splittable reduction", _capture_reduction, pure=True)
is_not_a_partial = described(
    ~parent_is("scf.forall", where=attr("mapping").has_an(SplitReductionMappingAttr)),
    "is not the partial of an earlier split",
)
k_splits_into_chunks = where("K splits into more than one chunk", _capture_plan)
chunk_count_divides_k = where("the chunk count divides K", _chunks_divide_k)
expand_expresses_it = where("expand_shape can express the split", _expressible_by_expand)
is_not_encoded = described(
    ~some_operand(lambda v: v.is_encoded(), "is encoded"),
    "has no encoded operand (split-k-encoded splits those)",
    "its operands are encoded",
)
splits = is_splittable_reduction & is_not_encoded & is_not_a_partial & k_splits_into_chunks
"""What every split-k strategy needs: a reduction, not already a partial,
whose K the options cut into more than one chunk."""

splits_by_options = is_not_encoded & is_not_a_partial & options_cut_k
"""`splits` stated on the op tree, for a pattern whose match names K
(`has_shape`) and is an op `match_reduction` always reads as a reduction:
the options, not the cost model, cut K (`chunks.options_cut_k`)."""


# The rewrite side.


SPLIT_FACTOR_ATTR = attr_names.SPLIT_FACTOR


def record_choice(m: Match, producer: Operation) -> None:
    """Marks the op that computes the partials with the factor the cost model chose."""
    factor = m.captures.get("chosen_factor")
    if factor is not None:
        producer.attributes[SPLIT_FACTOR_ATTR] = IntegerAttr(factor, i64)


def _capture_aligned_chunks(m: Match) -> bool | str:
    plan: ChunkPlan = m["plan"]
    if plan.align is None:
        return "no alignment is asked for"
    if m["k"] is None:
        return "K is dynamic"
    applies = aligned_split_applies(m["red"])
    if applies is not True:
        return applies
    count = plan.count if plan.count is not None else ceildiv(m["k"], plan.tile)
    chunks = aligned_chunks(m["k"], count, plan.align)
    if isinstance(chunks, str):
        return chunks
    m.captures["aligned"] = chunks
    return True


chunks_align = where("K cuts into aligned static chunks", _capture_aligned_chunks)


def _rewrite_aligned(m: Match, ir: IRBuilder) -> list[SSAValue]:
    plan: ChunkPlan = m["plan"]
    placed = m.captures.get("placed")
    # A CPU device's own entry, so that its SIMD sets the partial's tiles.
    tiles_for = (
        (placed.target if placed is not None and placed.target.cpu else target("cpu"))
        if plan.cpu_tiles
        else None
    )
    gpu = placed.target if placed is not None and placed.target.is_gpu else None
    merged, producer = split_aligned(m["red"], m["aligned"], plan.pad_m, ir, tiles_for, gpu)
    record_choice(m, producer)
    return [merged]


def _rewrite_with_forall(m: Match, ir: IRBuilder) -> list[SSAValue]:
    merged, producer = split_with_forall(m["red"], m["plan"], ir)
    record_choice(m, producer)
    return merged


def _rewrite_with_expand(m: Match, ir: IRBuilder) -> list[SSAValue]:
    merged, producer = split_with_expand(m["red"], m["plan"], m["k"], ir)
    record_choice(m, producer)
    return [merged]


def _rewrite_with_grouped(m: Match, ir: IRBuilder) -> list[SSAValue]:
    merged = split_with_grouped_gemm(m["red"], m["plan"], m["k"], ir)
    rock_reduce = merged.owner
    while isinstance(rock_reduce, Operation) and rock_reduce.name != "rock.reduce":
        rock_reduce = rock_reduce.operands[0].owner
    if isinstance(rock_reduce, Operation):
        producer = rock_reduce.operands[0].owner
        if isinstance(producer, Operation):
            record_choice(m, producer)
    return [merged]


OPTIONS = (
    Option("factor", int, None, "the number of chunks", check=positive),
    Option("tile", int, None, "the size of each chunk (the last may be shorter)", check=positive),
    Option(
        "strategy",
        str,
        "forall",
        "forall (graph-level scf.forall), expand (expand_shape + generic) or "
        "grouped (linalg_ext.split_grouped_gemm + rock.reduce)",
        choices=("forall", "expand", "grouped"),
    ),
    Option("balanced", bool, False, "chunk sizes differ by at most one"),
    Option(
        "align",
        int,
        None,
        "contractions with static shapes: chunks of one static size, a multiple of this, "
        "and the rest of K as a zero-padded tail chunk (target=: the target's; 128 on a GPU)",
        check=positive,
    ),
    Option(
        "pad_m",
        int,
        None,
        "with align: pad M (rows of the LHS) to a multiple of this where it is longer "
        "(target=: the target's; 64 on a GPU)",
        check=positive,
    ),
    Option(
        "cpu_tiles",
        bool,
        False,
        "with align: give the partial matmul IREE CPU tile sizes chosen from the cpu target "
        "(a workgroup takes all of M and a cache line of N; target=cpu: the target's)",
    ),
    Option(
        "merge",
        str,
        "",
        "merge the partials inside the split kernel with atomics (atomic) or a fixed-order "
        "second kernel (deterministic): a static matmul into f32 on a GPU in xsplit's staged "
        "GEMM kernel (gemm-kernel's merge); anything else lower-reduce's one-element-a-thread "
        "kernel",
        choices=("", "atomic", "deterministic"),
    ),
    Option(
        "kernel",
        str,
        "auto",
        "GPU targets, static f32-accumulating linalg.matmul: iree (static chunks for IREE's "
        "code), own (xsplit's own split-K GEMM kernel, gemm-kernel's stages) or auto (the cost "
        "model's choice)",
        choices=KERNEL_CHOICES,
    ),
    Option(
        "target",
        str,
        None,
        "choose the chunk count with the cost model for this target "
        f"({', '.join(TARGETS)}, or {DEVICE}: each op's own device); leaves ops no split "
        "pays for whole",
        choices=tuple(TARGETS) + tuple(a for t in TARGETS.values() for a in t.aliases) + (DEVICE,),
    ),
)


SPLIT_K_THROUGH_TRANSPOSE = Pattern(
    name="split-k-reads-through-transpose",
    doc="a reduction that splits and reads a linalg.transpose's result, as a linalg.generic "
    "on the transpose's source (the split patterns then cut the source)",
    root=REDUCTION_ROOTS,
    # The transpose first: the ops the split patterns make are tried here too,
    # and the model, which remarks on what it prices, must not see them again.
    where=reads_a_transpose
    & splits
    & it_reads_the_transpose
    & its_body,
    rewrite=READ_THROUGH_TRANSPOSES,
    benefit=4,
    options=[o.name for o in OPTIONS],
    family="split-k-through-transpose",
)


SPLIT_K_MATMUL_THROUGH_TRANSPOSE = Pattern(
    name="split-k-matmul-reads-through-transpose",
    doc="a static matmul of one float type that splits and reads a 2-d linalg.transpose's "
    "result, as a linalg.generic on the transpose's source (read_through."
    "READ_THROUGH_TRANSPOSE, the IR as a template)",
    root="linalg.matmul",
    where=a_matmul_reading_a_transpose
    & no_discardable_attributes()
    & one_float_type
    & splits_by_options,
    rewrite=READ_THROUGH_TRANSPOSE,
    benefit=4,
    options=[o.name for o in OPTIONS],
    family="split-k-through-transpose",
)


lifts_when_cpu_tiles_are_fixed = where(
    "its chunks get IREE CPU tiles",
    lambda m: m["plan"].cpu_tiles or "no CPU tiles are fixed on the chunks",
)

SPLIT_K_LIFTS_VECTOR = Pattern(
    name="split-k-lifts-vector-contraction",
    doc="a vector-matrix contraction (vecmat, matvec) that splits into aligned chunks with "
    "CPU tiles, as the one-row matmul those tiles are for (the split patterns then cut it)",
    root=REDUCTION_ROOTS,
    where=(option("strategy") == "forall")
    & is_splittable_reduction
    & is_a_vector_contraction
    & splits
    & lifts_when_cpu_tiles_are_fixed
    & chunks_align
    & its_vector_body,
    rewrite=LIFTED_TO_ONE_ROW,
    benefit=3,
    options=[o.name for o in OPTIONS],
    family="split-k-lifts-vector",
)


SPLIT_K_LIFTS_VECMAT = Pattern(
    name="split-k-lifts-vecmat",
    doc="a static linalg.vecmat that splits into aligned chunks with CPU tiles, as the "
    "one-row matmul those tiles are for (lift_vector.VECMAT_AS_ONE_ROW, the IR as a template)",
    root="linalg.vecmat",
    where=a_static_vecmat & lifts_for_cpu_tiles & splits_by_options & options_align_k,
    rewrite=VECMAT_AS_ONE_ROW,
    benefit=3,
    options=[o.name for o in OPTIONS],
    family="split-k-lifts-vector",
)

SPLIT_K_LIFTS_MATVEC = Pattern(
    name="split-k-lifts-matvec",
    doc="a static linalg.matvec that splits into aligned chunks with CPU tiles, as the "
    "one-row matmul those tiles are for (lift_vector.MATVEC_AS_ONE_ROW, the IR as a template)",
    root="linalg.matvec",
    where=a_static_matvec & lifts_for_cpu_tiles & splits_by_options & options_align_k,
    rewrite=MATVEC_AS_ONE_ROW,
    benefit=3,
    options=[o.name for o in OPTIONS],
    family="split-k-lifts-vector",
)


SPLIT_K_LEAVES_DECODE_TO_IREE = Pattern(
    name="split-k-leaves-decode-to-iree",
    doc="a one-row contraction (a decode) on a GPU target, marked with the split-reduction "
    "chunk IREE's own split would pick, for IREE to split (4x faster than static chunks)",
    root=REDUCTION_ROOTS,
    where=is_splittable_reduction
    & is_not_encoded
    & is_not_a_partial
    & described(
        ~attr(SPLIT_REDUCTION).is_present(),
        "IREE has no split chunk on it yet",
        f"it has {SPLIT_REDUCTION}",
    )
    & results().capture("results")
    & the_model_leaves_it_to_iree,
    rewrite=LEAVE_TO_IREE,
    benefit=5,
    options=[o.name for o in OPTIONS],
)


splits_by_expand = (
    (option("strategy") == "expand") & splits & expand_expresses_it & chunk_count_divides_k
)
"""What split-k's expand strategy needs, on any reduction or as a template."""

SPLIT_K_EXPAND_STATIC = expand_static_pattern(
    [o.name for o in OPTIONS], splits_by_expand, REDUCTION_ROOTS
)

SPLIT_K_EXPAND = Pattern(
    name="split-k-expand",
    doc="K = S x K/S through tensor.expand_shape, a batched linalg.generic, then a merge",
    root=REDUCTION_ROOTS,
    where=splits_by_expand,
    rewrite=_rewrite_with_expand,
    benefit=2,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=shape,
)

SPLIT_K_EXPAND_MATMUL = Pattern(
    name="split-k-expand-matmul",
    doc="a static linalg.matmul of one float type: K = S x K/S through tensor.expand_shape, "
    "a batched linalg.generic, then a merge (expand_split.EXPANDED_MATMUL, the IR as a template)",
    root="linalg.matmul",
    where=a_plain_static_matmul
    & one_float_type
    & (option("strategy") == "expand")
    & splits_by_options
    & described(K % COUNT == 0, "the chunk count divides K"),
    rewrite=EXPANDED_MATMUL,
    benefit=2,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=planned_shape,
)

SPLIT_K_EXPAND_BATCH_MATMUL = Pattern(
    name="split-k-expand-batch-matmul",
    doc="a static linalg.batch_matmul of one float type: K = S x K/S through "
    "tensor.expand_shape, a batched linalg.generic, then a merge "
    "(expand_split.EXPANDED_BATCH_MATMUL, the IR as a template)",
    root="linalg.batch_matmul",
    where=a_plain_static_batch_matmul
    & one_float_type
    & (option("strategy") == "expand")
    & splits_by_options
    & described(K % COUNT == 0, "the chunk count divides K"),
    rewrite=EXPANDED_BATCH_MATMUL,
    benefit=2,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=planned_shape,
)

_NAMES = [o.name for o in OPTIONS]
SPLIT_K_EXPAND_GENERIC = generic_chunks.expand_patterns(_NAMES, splits_by_options)

SPLIT_K_ALIGNED_GENERIC = generic_chunks.aligned_patterns(_NAMES, splits_by_options)
SPLIT_K_ALIGNED = Pattern(
    name="split-k-aligned",
    doc="static chunks of a multiple of align= in an scf.forall, the zero-padded tail "
    "beside it, M padded, then one merge",
    root=REDUCTION_ROOTS,
    where=(option("strategy") == "forall") & splits & chunks_align,
    rewrite=_rewrite_aligned,
    benefit=2,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=shape,
)

SPLIT_K_ALIGNED_MATMUL = Pattern(
    name="split-k-aligned-matmul",
    doc="a static matmul of one float type whose aligned chunks cover K, M unpadded and "
    "no tiles: the chunks in an scf.forall, then one merge (aligned_split.ALIGNED_MATMUL, "
    "the IR as a template)",
    root="linalg.matmul",
    where=a_plain_static_matmul
    & one_float_type
    & (option("strategy") == "forall")
    & splits_by_options
    & options_align_k
    & described(K % ALIGNED_CHUNK == 0, "the aligned chunks cover K")
    & m_needs_no_padding
    & ~option("cpu_tiles").is_truthy(),
    rewrite=ALIGNED_MATMUL,
    benefit=2,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=planned_shape,
)

SPLIT_K_ALIGNED_MATMUL_AND_TAIL = Pattern(
    name="split-k-aligned-matmul-and-tail",
    doc="a static matmul of one float type whose aligned chunks leave a rest of K that is a "
    "multiple of align=, M unpadded and no tiles: the chunks in an scf.forall, the rest "
    "beside it, one merge (aligned_split.ALIGNED_MATMUL_AND_TAIL, the IR as a template)",
    root="linalg.matmul",
    where=a_plain_static_matmul
    & one_float_type
    & (option("strategy") == "forall")
    & splits_by_options
    & options_align_k
    & described(ALIGNED_TAIL > 0, "a rest of K is left")
    & described(ALIGNED_TAIL % number(option("align")) == 0, "the rest of K is aligned")
    & m_needs_no_padding
    & ~option("cpu_tiles").is_truthy(),
    rewrite=ALIGNED_MATMUL_AND_TAIL,
    benefit=2,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=planned_shape,
)

SPLIT_K_STATIC_CHUNKS = Pattern(
    name="split-k-static-chunks",
    doc="a static linalg.matmul: whole chunks of K in an scf.forall, then a linalg.reduce "
    "merge (static_chunks.STATIC_CHUNKS, the IR as a template)",
    root="linalg.matmul",
    where=a_plain_static_matmul & splits_by_options & leaves_no_tail,
    rewrite=STATIC_CHUNKS,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=planned_shape,
)

SPLIT_K_STATIC_CHUNKS_AND_TAIL = Pattern(
    name="split-k-static-chunks-and-tail",
    doc="a static linalg.matmul: whole chunks of K in an scf.forall, the rest of K beside "
    "it, then one merge (static_chunks.STATIC_CHUNKS_AND_TAIL, the IR as a template)",
    root="linalg.matmul",
    where=a_plain_static_matmul & splits_by_options & ~leaves_no_tail,
    rewrite=STATIC_CHUNKS_AND_TAIL,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=planned_shape,
)

SPLIT_K_STATIC_BATCH_CHUNKS = Pattern(
    name="split-k-static-batch-chunks",
    doc="a static linalg.batch_matmul: whole chunks of K in an scf.forall, then a "
    "linalg.reduce merge (static_chunks.STATIC_BATCH_CHUNKS, the IR as a template)",
    root="linalg.batch_matmul",
    where=a_plain_static_batch_matmul & splits_by_options & leaves_no_tail,
    rewrite=STATIC_BATCH_CHUNKS,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=planned_shape,
)

SPLIT_K_STATIC_BATCH_CHUNKS_AND_TAIL = Pattern(
    name="split-k-static-batch-chunks-and-tail",
    doc="a static linalg.batch_matmul: whole chunks of K in an scf.forall, the rest of K "
    "beside it, then one merge (static_chunks.STATIC_BATCH_CHUNKS_AND_TAIL, the IR as a "
    "template)",
    root="linalg.batch_matmul",
    where=a_plain_static_batch_matmul & splits_by_options & ~leaves_no_tail,
    rewrite=STATIC_BATCH_CHUNKS_AND_TAIL,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=planned_shape,
)

SPLIT_K_DYNAMIC_TILES = Pattern(
    name="split-k-dynamic-tiles",
    doc="a linalg.matmul whose K is dynamic, with tile=: ceil(K/T) chunks in an scf.forall, "
    "then a linalg.reduce merge (dynamic_chunks.DYNAMIC_TILES, the IR as a template)",
    root="linalg.matmul",
    where=a_matmul_of_dynamic_k & tiled_by_the_options & is_not_encoded & is_not_a_partial,
    rewrite=DYNAMIC_TILES,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=planned_dynamic_shape,
)


# Static chunks of a vector contraction, each form's op tree and template
# (vector_chunks.py), before the forall builder they specialise.
SPLIT_K_VECTOR_CHUNKS = vector_chunk_patterns([o.name for o in OPTIONS], splits_by_options)
SPLIT_K_GENERIC_CHUNKS = generic_chunks.chunk_patterns(_NAMES, splits_by_options)

SPLIT_K_FORALL_STATIC = forall_static_patterns(_NAMES, splits, REDUCTION_ROOTS)
SPLIT_K_FORALL = Pattern(
    name="split-k-forall",
    doc="partial reductions over K-chunks in an scf.forall, then a linalg.reduce merge",
    root=REDUCTION_ROOTS,
    where=splits,
    rewrite=_rewrite_with_forall,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=shape,
)

EXPAND_FALLS_BACK = Remark(
    name="split-k-expand-falls-back",
    doc="says when strategy=expand cannot be used and forall is",
    root=REDUCTION_ROOTS,
    where=(option("strategy") == "expand") & splits & ~expand_expresses_it,
    message=lambda m: (
        f"expand cannot express this split ({expand_expresses_it.check(m).reason}); "  # type: ignore[union-attr]
        "using forall"
    ),
    family="split-k",
)

EXPAND_NEEDS_DIVIDING_FACTOR = Remark(
    name="split-k-expand-needs-dividing-factor",
    doc="says when strategy=expand needs a factor that divides K and forall is used",
    root=REDUCTION_ROOTS,
    where=(option("strategy") == "expand")
    & splits
    & expand_expresses_it
    & ~chunk_count_divides_k,
    message=lambda m: (
        "expand needs a factor that divides K "
        f"({chunk_count_divides_k.check(m).reason}); using forall"
    ),  # type: ignore[union-attr]
    family="split-k",
)


SPLIT_K_GROUPED = Pattern(
    name="split-k-grouped",
    doc="one linalg_ext.split_grouped_gemm over K-groups, then a rock.reduce merge",
    root=REDUCTION_ROOTS,
    where=(option("strategy") == "grouped") & splits & grouped_applies,
    rewrite=_rewrite_with_grouped,
    benefit=2,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=shape,
)

SPLIT_K_GROUPED_STATIC = grouped_static_pattern(_NAMES, SPLIT_K_GROUPED.where, REDUCTION_ROOTS)
SPLIT_K_GROUPED_MATMUL = Pattern(
    name="split-k-grouped-matmul",
    doc="a static linalg.matmul of one float type: one linalg_ext.split_grouped_gemm over "
    "K-groups, then a rock.reduce merge (grouped.GROUPED_MATMUL, the IR as a template)",
    root="linalg.matmul",
    where=a_plain_static_matmul
    & one_float_type
    & (option("strategy") == "grouped")
    & splits_by_options,
    rewrite=GROUPED_MATMUL,
    benefit=2,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=planned_shape,
)

SPLIT_K_GROUPED_BATCH_MATMUL = Pattern(
    name="split-k-grouped-batch-matmul",
    doc="a static linalg.batch_matmul of one float type: one linalg_ext.split_grouped_gemm "
    "over K-groups, then a rock.reduce merge (grouped.GROUPED_BATCH_MATMUL, the IR as a "
    "template)",
    root="linalg.batch_matmul",
    where=a_plain_static_batch_matmul
    & one_float_type
    & (option("strategy") == "grouped")
    & splits_by_options,
    rewrite=GROUPED_BATCH_MATMUL,
    benefit=2,
    options=[o.name for o in OPTIONS],
    family="split-k",
    memo=planned_shape,
)

GROUPED_FALLS_BACK = Remark(
    name="split-k-grouped-falls-back",
    doc="says when strategy=grouped cannot be used and forall is",
    root=REDUCTION_ROOTS,
    where=(option("strategy") == "grouped") & splits & ~grouped_applies,
    message=lambda m: (
        f"grouped cannot express this split ({grouped_applies.check(m).reason}); "  # type: ignore[union-attr]
        "using forall"
    ),
    family="split-k",
)


def _one_way_to_choose_chunks(options: Mapping[str, Any]) -> str | None:
    given = [name for name in ("factor", "tile", "target") if options[name] is not None]
    chosen_for_a_kernel = options["merge"] or options["kernel"] == "own"
    count_and_target = given in (["factor", "target"], ["tile", "target"])
    if len(given) > 1 and not (chosen_for_a_kernel and count_and_target):
        return f"give one of factor=, tile= and target=, not {' and '.join(given)}"
    if options["merge"] and options["target"] is None:
        return "merge= needs target= (the GPU the merged kernel is for)"
    return None


# An encoded contraction (set-encoding ran first) splits into encoded partials
# (encoded_split.py), so that they run as batch_mmt4d.
SPLIT_K_ENCODED = make_split_encoded_pattern([o.name for o in OPTIONS])
SPLIT_K_ENCODED_MATMUL = make_split_encoded_matmul_patterns(
    [o.name for o in OPTIONS], options_cut_k
)


def _rewrite_merged(m: Match, ir: IRBuilder) -> None:
    from xsplit.rewrites.reduce.lower_reduce import lower_split

    plan, k = m["plan"], m["k"]
    chunk = plan.tile or -(-k // plan.count)
    placed = m.captures.get("placed")
    name = placed.target.name if placed is not None else m.options["target"] or ""
    assert m.ctx is not None, "split-k runs in a context"
    lower_split(m.root, chunk, m.options["merge"], name, m.ctx)


SPLIT_K_MERGED = Pattern(
    name="split-k-merged",
    doc="a kernel whose chunks merge their partials inside it (gemm-kernel's staged kernel for "
    "a matmul it takes on a GPU, else lower-reduce's per-element kernel)",
    root=REDUCTION_ROOTS,
    where=described(
        option("merge").is_truthy() & (option("kernel") != "own"),
        "merge= is given without kernel=own",
        "merge is not given, or kernel=own takes it",
    )
    & splits
    & where("K is static", lambda m: m["k"] is not None or "K is dynamic"),
    rewrite=_rewrite_merged,
    benefit=3,
    options=[o.name for o in OPTIONS],
    family="split-k",
)


SPLIT_K_OWN_KERNEL = Pattern(
    name="split-k-own-kernel",
    doc="a static matmul on a GPU target, outlined into xsplit's own split-K GEMM kernel "
    "(static K chunks on grid z, merged inside it) where the cost model or kernel=own chooses it",
    root=REDUCTION_ROOTS,
    where=is_splittable_reduction & is_not_encoded & is_not_a_partial & own_kernel_chosen,
    rewrite=lower_to_own_kernel,
    benefit=6,
    options=[o.name for o in OPTIONS],
    family="split-k",
)


SPLIT_K = Pass(
    "split-k",
    "Splits each linalg reduction into partial reductions over chunks of K and a merge.",
    [
        SPLIT_K_OWN_KERNEL,
        SPLIT_K_LEAVES_DECODE_TO_IREE,
        SPLIT_K_MATMUL_THROUGH_TRANSPOSE,
        SPLIT_K_THROUGH_TRANSPOSE,
        SPLIT_K_LIFTS_VECMAT,
        SPLIT_K_LIFTS_MATVEC,
        SPLIT_K_LIFTS_VECTOR,
        SPLIT_K_MERGED,
        *SPLIT_K_ENCODED_MATMUL,
        SPLIT_K_ENCODED,
        EXPAND_FALLS_BACK,
        EXPAND_NEEDS_DIVIDING_FACTOR,
        GROUPED_FALLS_BACK,
        SPLIT_K_EXPAND_MATMUL,
        SPLIT_K_EXPAND_BATCH_MATMUL,
        *SPLIT_K_EXPAND_GENERIC,
        SPLIT_K_EXPAND_STATIC,
        SPLIT_K_EXPAND,
        SPLIT_K_GROUPED_MATMUL,
        SPLIT_K_GROUPED_BATCH_MATMUL,
        SPLIT_K_GROUPED_STATIC,
        SPLIT_K_GROUPED,
        SPLIT_K_ALIGNED_MATMUL,
        SPLIT_K_ALIGNED_MATMUL_AND_TAIL,
        *SPLIT_K_ALIGNED_GENERIC,
        SPLIT_K_ALIGNED,
        SPLIT_K_STATIC_CHUNKS,
        SPLIT_K_STATIC_CHUNKS_AND_TAIL,
        SPLIT_K_STATIC_BATCH_CHUNKS,
        SPLIT_K_STATIC_BATCH_CHUNKS_AND_TAIL,
        *SPLIT_K_VECTOR_CHUNKS,
        *SPLIT_K_GENERIC_CHUNKS,
        SPLIT_K_DYNAMIC_TILES,
        *SPLIT_K_FORALL_STATIC,
        SPLIT_K_FORALL,
    ],
    OPTIONS,
    validate=_one_way_to_choose_chunks,
)
