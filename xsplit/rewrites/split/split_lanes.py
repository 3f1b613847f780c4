"""`split-lanes`: a matrix-vector product whose matrix has K contiguous
(`linalg.matvec`, or a one-row `linalg.matmul` against B[n, k]) split into
the lanes of a vector register, for IREE's CPU code to stream the matrix.

```
%y = linalg.matvec ins(%w, %x : tensor<NxKxf32>, tensor<Kxf32>) outs(%c)
```
becomes, for L lanes (16 with AVX-512) and K = S x L + T:
```
%lane_sums = flow.dispatch.workgroups(%x, %w) ... -> tensor<NxLxf32> {
  W[:, :S*L] read as W[n, S, L], x[:S*L] as x[S, L]
  sums[n, l] = sum over s of W[n, s, l] * x[s, l]      (l parallel, innermost)
}
%tail = linalg.matvec ins(W[:, S*L:], x[S*L:]) outs(%c)   (where T > 0)
%y = linalg.reduce ins(%lane_sums) outs(%tail or %c) dimensions = [1]
```
Each row of W keeps one vector of L partial sums, so each load of W feeds
one multiply and one add (`targets/lane_tiles.py` says why IREE's own code
for the whole op is slower, and gives the tiles). The lanes are read inside
a dispatch: at graph level, a prefix of K reshaped into lanes is a copy of
W (IREE's `slow_memcpy`), where inside it is a strided view. The product's
body multiplies with `math.fma %x, %w, -0.0` (exactly `x * w`), so that
IREE vectorizes it as the elementwise loop it is: `arith.mulf` makes it a
contraction whose lane loop IREE unrolls into scalar gathers.

Two to four rows of A against B[n, k] (`LANE_MAX_ROWS`) take the same form
with a row loop: M x N x L sums, every row of A in the register tile, so
that each row of W is read once for all of them; the body's multiply and
add carry `contract`, for LLVM to fuse them into one FMA.

Only static f32 products at graph level, on an llvm-cpu target, are split:
the tiles are for f32 vectors. `auto{target=cpu}` runs this after `split-k`,
on the products split-k left whole.
"""

from __future__ import annotations

from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, TensorType, f32
from xdsl.ir.affine import AffineMap

from xsplit.analysis.cost_model import problem_of
from xsplit.analysis.cost_model.cpu import (
    IREE_TRANSPOSED_READ_SHARE,
    lane_split_estimate,
    transposed_matvec_estimate,
)
from xsplit.analysis.devices import DEVICE, modeled
from xsplit.analysis.reduction import match_reduction
from xsplit.dialects.iree_codegen import CompilationInfoAttr, TranslationInfoAttr
from xsplit.dialects.iree_cpu import LoweringConfigAttr, PipelineAttr
from xsplit.diagnostics import remark
from xsplit.rewrites.dispatch.form_dispatch_regions import is_graph_level
from xsplit.rewrites.dsl import (
    Constraint,
    Match,
    Option,
    Pass,
    Pattern,
    Template,
    attr,
    captured,
    dim,
    init,
    input,
    no_discardable_attributes_but,
    root_is,
    where,
)
from xsplit.rewrites.dsl.numbers import described
from xsplit.targets.cpu_info import host_cpu
from xsplit.targets.lane_tiles import LANE_MAX_ROWS, lane_rows_tiles, lane_tiles, lane_width
from xsplit.targets.table import TARGETS

LANE_SUMS = """
%lane_sums = flow.dispatch.workgroups($x, $w) : ($x.type, $w.type) -> $sums_type =
    (%x_binding: !iree_tensor_ext.dispatch.tensor<readonly:$x.type>, %w_binding: !iree_tensor_ext.dispatch.tensor<readonly:$w.type>, %sums_binding: !iree_tensor_ext.dispatch.tensor<writeonly:$sums_type>) {
  %x_main = iree_tensor_ext.dispatch.tensor.load %x_binding, offsets = [$x_offsets], sizes = [$x_sizes], strides = [$x_strides] : !iree_tensor_ext.dispatch.tensor<readonly:$x.type> -> $x_main_type
  %w_main = iree_tensor_ext.dispatch.tensor.load %w_binding, offsets = [0, 0], sizes = [$n, $main], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:$w.type> -> $w_main_type
  %x_lanes = tensor.expand_shape %x_main [[0, 1]] output_shape [$steps, $lanes] : $x_main_type into $x_lanes_type
  %w_lanes = tensor.expand_shape %w_main [[0], [1, 2]] output_shape [$n, $steps, $lanes] : $w_main_type into $w_lanes_type
  %zero = arith.constant 0.000000e+00 : f32
  %sums_init = tensor.empty() : $sums_type
  %sums_zero = linalg.fill ins(%zero : f32) outs(%sums_init : $sums_type) -> $sums_type
  %sums = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x_lanes, %w_lanes : $x_lanes_type, $w_lanes_type) outs(%sums_zero : $sums_type) attrs =  {compilation_info = $config} {
  ^bb0(%x_element: f32, %w_element: f32, %sum: f32):
    %negative_zero = arith.constant -0.000000e+00 : f32
    %product = math.fma %x_element, %w_element, %negative_zero : f32
    %next = arith.addf %sum, %product : f32
    linalg.yield %next : f32
  } -> $sums_type
  iree_tensor_ext.dispatch.tensor.store %sums, %sums_binding, offsets = [0, 0], sizes = [$n, $lanes], strides = [1, 1] : $sums_type -> !iree_tensor_ext.dispatch.tensor<writeonly:$sums_type>
  flow.return
}
"""
"""The dispatch that sums each row of W's main part lane by lane."""


LANE_ADD = """  (%lane: f32, %total: f32) {
    %added = arith.addf %lane, %total : f32
    linalg.yield %added : f32
  }
"""
"""The merge's body: a lane's sum added into the total."""

MERGE_INTO_INIT = (
    """
%merged_row = linalg.reduce ins(%lane_sums : $sums_type) outs($c : $row_type) dimensions = [1] {xsplit.split_part = "merge"}
"""
    + LANE_ADD
)
"""The merge: each row's lanes added into the init."""

MERGE_INTO_TAIL = (
    """
%merged_row = linalg.reduce ins(%lane_sums : $sums_type) outs(%tail : $row_type) dimensions = [1] {xsplit.split_part = "merge"}
"""
    + LANE_ADD
)
"""The same into the tail's result, which began from the init."""


MATVEC_TAIL = """
%w_tail = tensor.extract_slice $w[0, $main] [$n, $tail] [1, 1] : $w.type to $w_tail_type
%x_tail = tensor.extract_slice $x [$main] [$tail] [1] : $x.type to $x_tail_type
%tail = linalg.matvec ins(%w_tail, %x_tail : $w_tail_type, $x_tail_type) outs($c : $c.type) -> $c.type
"""
"""The columns of K past the last whole vector, as a matvec of their own."""

ROW_MATMUL_TAIL = """
%x_tail = tensor.extract_slice $x[0, $main] [1, $tail] [1, 1] : $x.type to $x_tail_type
%w_tail = tensor.extract_slice $w[0, $main] [$n, $tail] [1, 1] : $w.type to $w_tail_type
%tail = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x_tail, %w_tail : $x_tail_type, $w_tail_type) outs($c : $c.type) -> $c.type
"""
"""The same for a one-row matmul."""

INIT_AS_VECTOR = (
    """%c_row = tensor.collapse_shape $c [[0, 1]] : $c.type into $row_type

%merged_row = linalg.reduce ins(%lane_sums : $sums_type) outs(%c_row : $row_type) dimensions = [1] {xsplit.split_part = "merge"}
"""
    + LANE_ADD
)
"""A one-row matmul's 1 x N init as the N-vector the merge adds into, and the merge."""

TAIL_AS_VECTOR = (
    """%tail_row = tensor.collapse_shape %tail [[0, 1]] : $c.type into $row_type

%merged_row = linalg.reduce ins(%lane_sums : $sums_type) outs(%tail_row : $row_type) dimensions = [1] {xsplit.split_part = "merge"}
"""
    + LANE_ADD
)
"""The same for the tail's 1 x N result."""

AS_ROW = """
%merged = tensor.expand_shape %merged_row [[0, 1]] output_shape [1, $n] : $row_type into $c.type
"""


N = dim("N")
K = dim("K")
LANES = captured("lanes")
"""The target's vector lanes (`_capture_lanes`)."""
MAIN = K // LANES * LANES
"""The columns of K in whole vectors of lanes."""
TAIL = K % LANES
"""The columns of K past the last whole vector."""
STEPS = K // LANES

ROWS_LANE_SUMS = """
%lane_sums = flow.dispatch.workgroups($x, $w) : ($x.type, $w.type) -> $rows_sums_type =
    (%x_binding: !iree_tensor_ext.dispatch.tensor<readonly:$x.type>, %w_binding: !iree_tensor_ext.dispatch.tensor<readonly:$w.type>, %sums_binding: !iree_tensor_ext.dispatch.tensor<writeonly:$rows_sums_type>) {
  %x_main = iree_tensor_ext.dispatch.tensor.load %x_binding, offsets = [0, 0], sizes = [$m, $main], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:$x.type> -> $rows_x_main_type
  %w_main = iree_tensor_ext.dispatch.tensor.load %w_binding, offsets = [0, 0], sizes = [$n, $main], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:$w.type> -> $w_main_type
  %x_lanes = tensor.expand_shape %x_main [[0], [1, 2]] output_shape [$m, $steps, $lanes] : $rows_x_main_type into $rows_x_lanes_type
  %w_lanes = tensor.expand_shape %w_main [[0], [1, 2]] output_shape [$n, $steps, $lanes] : $w_main_type into $w_lanes_type
  %zero = arith.constant 0.000000e+00 : f32
  %sums_init = tensor.empty() : $rows_sums_type
  %sums_zero = linalg.fill ins(%zero : f32) outs(%sums_init : $rows_sums_type) -> $rows_sums_type
  %sums = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x_lanes, %w_lanes : $rows_x_lanes_type, $w_lanes_type) outs(%sums_zero : $rows_sums_type) attrs =  {compilation_info = $rows_config} {
  ^bb0(%x_element: f32, %w_element: f32, %sum: f32):
    %negative_zero = arith.constant -0.000000e+00 : f32
    %product = math.fma %x_element, %w_element, %negative_zero fastmath<contract> : f32
    %next = arith.addf %sum, %product fastmath<contract> : f32
    linalg.yield %next : f32
  } -> $rows_sums_type
  iree_tensor_ext.dispatch.tensor.store %sums, %sums_binding, offsets = [0, 0, 0], sizes = [$m, $n, $lanes], strides = [1, 1, 1] : $rows_sums_type -> !iree_tensor_ext.dispatch.tensor<writeonly:$rows_sums_type>
  flow.return
}
"""
"""The dispatch that sums, for each row of A, each row of W's main part
lane by lane. `contract` lets LLVM fuse the multiply (the fma with -0 is
`x * w`) and the add into one FMA: with every row of A in the register
tile, a plain multiply and add would double the arithmetic a load of W
feeds (vmulps and vaddps where vfmadd231ps does, in the `.s` IREE dumps)."""

ROWS_TAIL = """
%x_tail = tensor.extract_slice $x[0, $main] [$m, $tail] [1, 1] : $x.type to $rows_x_tail_type
%w_tail = tensor.extract_slice $w[0, $main] [$n, $tail] [1, 1] : $w.type to $w_tail_type
%tail = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x_tail, %w_tail : $rows_x_tail_type, $w_tail_type) outs($c : $c.type) -> $c.type
"""
"""The columns of K past the last whole vector, as a matmul of their own."""


ROWS_MERGE_INTO_INIT = (
    """
%merged = linalg.reduce ins(%lane_sums : $rows_sums_type) outs($c : $c.type) dimensions = [2] {xsplit.split_part = "merge"}
"""
    + LANE_ADD
)
"""The merge of several rows: each (row of A, row of W)'s lanes added into the init."""

ROWS_MERGE_INTO_TAIL = (
    """
%merged = linalg.reduce ins(%lane_sums : $rows_sums_type) outs(%tail : $c.type) dimensions = [2] {xsplit.split_part = "merge"}
"""
    + LANE_ADD
)
"""The same into the tail's result."""


def _m(m: Match) -> int:
    """The rows of A."""
    return m["x"].type.get_shape()[0]


def _rows_config(m: Match) -> CompilationInfoAttr:
    levels = {level: list(sizes) for level, sizes in lane_rows_tiles(m["cpu"], _m(m), N(m)).items()}
    return CompilationInfoAttr(
        LoweringConfigAttr(levels), TranslationInfoAttr(PipelineAttr("DoubleTilingExpert"))
    )


def _row(m: Match) -> TensorType:
    return TensorType(f32, [N(m)])


def _x_is_row(m: Match) -> bool:
    return len(m["x"].type.get_shape()) == 2


def _config(m: Match) -> CompilationInfoAttr:
    levels = {level: list(sizes) for level, sizes in lane_tiles(m["cpu"], N(m)).items()}
    return CompilationInfoAttr(
        LoweringConfigAttr(levels), TranslationInfoAttr(PipelineAttr("DoubleTilingExpert"))
    )


HOLES = dict(
    n=N,
    lanes=LANES,
    main=MAIN,
    tail=TAIL,
    steps=STEPS,
    config=_config,
    row_type=_row,
    sums_type=lambda m: TensorType(f32, [N(m), LANES(m)]),
    x_main_type=lambda m: TensorType(f32, [MAIN(m)]),
    w_main_type=lambda m: TensorType(f32, [N(m), MAIN(m)]),
    x_lanes_type=lambda m: TensorType(f32, [STEPS(m), LANES(m)]),
    w_lanes_type=lambda m: TensorType(f32, [N(m), STEPS(m), LANES(m)]),
    x_tail_type=lambda m: TensorType(f32, [1, TAIL(m)] if _x_is_row(m) else [TAIL(m)]),
    w_tail_type=lambda m: TensorType(f32, [N(m), TAIL(m)]),
    # A one-row matmul's x is 1 x K, loaded as its K-vector.
    x_offsets=lambda m: [0, 0] if _x_is_row(m) else [0],
    x_sizes=lambda m: [1, MAIN(m)] if _x_is_row(m) else [MAIN(m)],
    x_strides=lambda m: [1, 1] if _x_is_row(m) else [1],
)

MATVEC_LANES = Template(LANE_SUMS + MERGE_INTO_INIT, results=["%merged_row"], **HOLES)
MATVEC_LANES_AND_TAIL = Template(
    LANE_SUMS + MATVEC_TAIL + MERGE_INTO_TAIL, results=["%merged_row"], **HOLES
)
ROW_MATMUL_LANES = Template(
    LANE_SUMS + INIT_AS_VECTOR + AS_ROW, results=["%merged"], **HOLES
)
ROW_MATMUL_LANES_AND_TAIL = Template(
    LANE_SUMS + ROW_MATMUL_TAIL + TAIL_AS_VECTOR + AS_ROW, results=["%merged"], **HOLES
)


ROWS_HOLES = dict(
    HOLES,
    m=_m,
    rows_config=_rows_config,
    rows_sums_type=lambda m: TensorType(f32, [_m(m), N(m), LANES(m)]),
    rows_x_main_type=lambda m: TensorType(f32, [_m(m), MAIN(m)]),
    rows_x_lanes_type=lambda m: TensorType(f32, [_m(m), MAIN(m) // LANES(m), LANES(m)]),
    rows_x_tail_type=lambda m: TensorType(f32, [_m(m), TAIL(m)]),
)
ROWS_MATMUL_LANES = Template(
    ROWS_LANE_SUMS + ROWS_MERGE_INTO_INIT, results=["%merged"], **ROWS_HOLES
)
ROWS_MATMUL_LANES_AND_TAIL = Template(
    ROWS_LANE_SUMS + ROWS_TAIL + ROWS_MERGE_INTO_TAIL, results=["%merged"], **ROWS_HOLES
)


TRANSPOSED_B_MAPS = ArrayAttr(
    [
        AffineMapAttr(AffineMap.from_callable(lambda i, j, k: (i, k))),
        AffineMapAttr(AffineMap.from_callable(lambda i, j, k: (j, k))),
        AffineMapAttr(AffineMap.from_callable(lambda i, j, k: (i, j))),
    ]
)
"""`linalg.matmul`'s maps with B as B[n, k]."""

MAPS_CACHE = "linalg.memoized_indexing_maps"
"""xDSL's cache of a named op's indexing maps, which it sets on the op when
something (the device placement, say) reads them: no mark of a pass."""

unmarked = no_discardable_attributes_but(MAPS_CACHE)
"""No attribute a pass set (split-k's marks, a merge's part): the op is the
program's own."""

static_f32 = (
    input(0).has_static_shape()
    & input(1).has_static_shape()
    & init().has_static_shape()
    & input(0).element_type(f32)
    & input(1).element_type(f32)
    & init().element_type(f32)
)

a_matvec = (
    root_is("linalg.matvec")
    & unmarked
    & static_f32
    & input(0).has_shape("N", "K")
    & input(1).has_shape("K")
    & init().has_shape("N")
    & input(0).capture("w")
    & input(1).capture("x")
    & init().capture("c")
)
"""`linalg.matvec ins(%w, %x) outs(%c)`: W is N x K, K contiguous."""

a_row_matmul = (
    root_is("linalg.matmul")
    & attr("indexing_maps").equals(TRANSPOSED_B_MAPS)
    & unmarked
    & static_f32
    & input(0).has_shape("M", "K")
    & input(1).has_shape("N", "K")
    & init().has_shape("M", "N")
    & described(dim("M") == 1, "has one row", "M is not 1")
    & input(0).capture("x")
    & input(1).capture("w")
    & init().capture("c")
)
"""A one-row `linalg.matmul` against B[n, k]: the same product, x as 1 x K."""


a_rows_matmul = (
    root_is("linalg.matmul")
    & attr("indexing_maps").equals(TRANSPOSED_B_MAPS)
    & unmarked
    & static_f32
    & input(0).has_shape("M", "K")
    & input(1).has_shape("N", "K")
    & init().has_shape("M", "N")
    & described(dim("M") >= 2, "has several rows", "M is 1")
    & described(
        dim("M") <= LANE_MAX_ROWS, f"has at most {LANE_MAX_ROWS} rows", f"M is over {LANE_MAX_ROWS}"
    )
    & input(0).capture("x")
    & input(1).capture("w")
    & init().capture("c")
)
"""A `linalg.matmul` of a few rows against B[n, k]: each row of B, read
once, feeds every row of A (`targets/lane_tiles.py`, LANE_MAX_ROWS)."""


def _capture_lanes(m: Match) -> bool | str:
    """The target's CPU and its vector lanes, where they cut K."""
    placed = modeled(m.root, m.options["target"])
    assert placed is not None
    t = placed.target
    if (why := placed.why_not_one_llvm_cpu_device(m.root)) is not None:
        return why
    if not t.split_tiles:
        # IREE's CPU tiles are an llvm-cpu configuration: a GPU's code and
        # VMVX's interpreter take none.
        return f"{t.name} takes no IREE CPU tiles"
    cpu = t.cpu or host_cpu()
    lanes = lane_width(cpu)
    if K(m) < 2 * lanes:
        return f"K = {K(m)} is shorter than two vectors of {lanes} lanes"
    m.captures.update(placed=placed, cpu=cpu, lanes=lanes)
    return True


def _says_why(m: Match) -> bool | str:
    """The remark: the lanes against the whole op, as the model prices them."""
    placed = m["placed"]
    t = placed.target
    lanes = LANES(m)
    red = match_reduction(m.root)
    problem = problem_of(red) if not isinstance(red, str) else red
    if isinstance(problem, str):
        return problem
    whole = transposed_matvec_estimate(problem, t)
    lanes_seconds = lane_split_estimate(problem, t, lanes)
    tail = f" and a tail of {TAIL(m)}" if TAIL(m) else ""
    if lanes_seconds >= whole and not m.options["always"]:
        remark(
            m.root,
            f"{placed.prefix()}not split into lanes: {lanes_seconds * 1e3:.2f} ms modeled, "
            f"{whole * 1e3:.2f} ms whole",
        )
        return "the model has the whole op as fast"
    rows = _m(m) if _x_is_row(m) else 1
    each = f" per row of A ({rows} rows)" if rows > 1 else ""
    sums = f"{rows} x {N(m)} x {lanes}" if rows > 1 else f"{N(m)} x {lanes}"
    remark(
        m.root,
        f"{placed.prefix()}split-lanes: K = {K(m)} as {STEPS(m)} steps of "
        f"{lanes} lanes{tail}, each row of the {N(m)} x {K(m)} matrix summed into one "
        f"vector{each}: {lanes_seconds * 1e3:.2f} ms modeled (its bytes over the "
        f"{t.memory_bandwidth / 1e9:.0f} GB/s read rate, then {sums} sums "
        f"merged), against {whole * 1e3:.2f} ms left whole to IREE's own tiles, which "
        f"transpose each 16 x 16 block of the matrix in registers (measured at "
        f"{IREE_TRANSPOSED_READ_SHARE:.0%} of the read rate)",
    )
    return True


cut_into_lanes = where("the target's vector lanes cut K", _capture_lanes)
says_why = where("the model prices it", _says_why)
has_tail = described(TAIL > 0, "K leaves a tail", "K is whole vectors")
no_tail = described(TAIL == 0, "K is whole vectors", "K leaves a tail")

def _lanes_and_tail(
    name: str,
    form: Constraint,
    root: str,
    docs: tuple[str, str],
    whole: Template,
    tailed: Template,
) -> tuple[Pattern, Pattern]:
    """The form split into lanes where K is whole vectors, and with the rest
    of K as a product of its own where it is not: one match but for the
    tail, two templates."""
    shared = dict(root=root, options=["target", "always"], family="split-lanes", benefit=1)
    match = form & is_graph_level & cut_into_lanes
    return (
        Pattern(name=name, doc=docs[0], where=match & no_tail & says_why, rewrite=whole, **shared),
        Pattern(
            name=f"{name}-and-tail",
            doc=docs[1],
            where=match & has_tail & says_why,
            rewrite=tailed,
            **shared,
        ),
    )


SPLIT_LANES_MATVEC, SPLIT_LANES_MATVEC_AND_TAIL = _lanes_and_tail(
    "split-lanes-matvec",
    a_matvec,
    "linalg.matvec",
    (
        "a linalg.matvec: K in lanes in a dispatch, then a linalg.reduce merge",
        "a linalg.matvec: K's whole vectors in lanes, the rest a matvec, then the merge",
    ),
    MATVEC_LANES,
    MATVEC_LANES_AND_TAIL,
)
SPLIT_LANES_ROW_MATMUL, SPLIT_LANES_ROW_MATMUL_AND_TAIL = _lanes_and_tail(
    "split-lanes-row-matmul",
    a_row_matmul,
    "linalg.matmul",
    (
        "a one-row linalg.matmul against B[n, k]: K in lanes in a dispatch, then the merge",
        "a one-row linalg.matmul against B[n, k]: K's whole vectors in lanes, the rest a "
        "matmul, then the merge",
    ),
    ROW_MATMUL_LANES,
    ROW_MATMUL_LANES_AND_TAIL,
)
SPLIT_LANES_ROWS_MATMUL, SPLIT_LANES_ROWS_MATMUL_AND_TAIL = _lanes_and_tail(
    "split-lanes-rows-matmul",
    a_rows_matmul,
    "linalg.matmul",
    (
        "a linalg.matmul of a few rows against B[n, k]: K in lanes for every row in a "
        "dispatch, then the merge",
        "a linalg.matmul of a few rows against B[n, k]: K's whole vectors in lanes, the "
        "rest a matmul, then the merge",
    ),
    ROWS_MATMUL_LANES,
    ROWS_MATMUL_LANES_AND_TAIL,
)

TARGET_OPTION = Option(
    "target",
    str,
    "cpu",
    "the CPU whose vector width gives the lanes and whose model the remark quotes "
    f"(or {DEVICE}: each op's own device, cpu where the module declares none); products "
    "on a GPU or VMVX are left alone",
    choices=tuple(TARGETS) + tuple(a for t in TARGETS.values() for a in t.aliases) + (DEVICE,),
)

SPLIT_LANES = Pass(
    "split-lanes",
    "Splits the K of a matrix-vector product with K contiguous in the matrix into "
    "vector lanes, for IREE's CPU code to stream the matrix.",
    [
        SPLIT_LANES_MATVEC,
        SPLIT_LANES_MATVEC_AND_TAIL,
        SPLIT_LANES_ROW_MATMUL,
        SPLIT_LANES_ROW_MATMUL_AND_TAIL,
        SPLIT_LANES_ROWS_MATMUL,
        SPLIT_LANES_ROWS_MATMUL_AND_TAIL,
    ],
    [
        TARGET_OPTION,
        Option(
            "always",
            bool,
            False,
            "split every product the form takes, where the model has the whole op as fast "
            "too (small products, whose dispatch costs more than their bytes)",
        ),
    ],
)
