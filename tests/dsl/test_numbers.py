"""Numbers on the match side: named dimensions, options, their arithmetic
and relations, and the structural tests split-k states with them."""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType

from xsplit.api import parse_module
from xsplit.dialects.iree_linalg_ext import SplitReductionMappingAttr
from xsplit.rewrites.dsl import (
    Match,
    attr,
    cases,
    ceildiv,
    dim,
    init,
    input,
    is_structural,
    minimum,
    number,
    operand,
    option,
    parent_is,
    some_operand,
    where,
)
from xsplit.rewrites.dsl.constraints import ALWAYS
from xsplit.rewrites.dsl.numbers import described

ENC = "#iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32]>"

SRC = f"""
func.func @f(%a: tensor<4x12xf32>, %b: tensor<12x3xf32>, %c: tensor<4x3xf32>, %d: tensor<4x?xf32>,
             %e: tensor<4x12xf32, {ENC}>) -> tensor<4x3xf32> {{
  %0 = linalg.matmul ins(%a, %b : tensor<4x12xf32>, tensor<12x3xf32>) outs(%c : tensor<4x3xf32>) -> tensor<4x3xf32>
  %1 = tensor.empty() : tensor<4x3x2xf32>
  %2 = scf.forall (%i) in (2) shared_outs(%o = %1) -> (tensor<4x3x2xf32>) {{
    %3 = linalg.matmul ins(%a, %b : tensor<4x12xf32>, tensor<12x3xf32>) outs(%c : tensor<4x3xf32>) -> tensor<4x3xf32>
    scf.forall.in_parallel {{
      tensor.parallel_insert_slice %3 into %o[0, 0, %i] [4, 3, 1] [1, 1, 1] : tensor<4x3xf32> into tensor<4x3x2xf32>
    }}
  }} {{mapping = [#iree_linalg_ext.split_reduction_mapping<0>]}}
  %4 = arith.addf %d, %d : tensor<4x?xf32>
  %5 = arith.addf %e, %e : tensor<4x12xf32, {ENC}>
  func.return %0 : tensor<4x3xf32>
}}
"""

MATMUL = input(0).has_shape("M", "K") & input(1).has_shape("K", "N") & init().has_shape("M", "N")


def _ops(name: str):
    module = parse_module(SRC)
    # Ops on tensors: not the scalar ops in a matmul's body.
    return [
        op
        for op in module.walk()
        if op.name == name and isinstance(op.results[0].type, TensorType)
    ]


def _matched(options: dict | None = None) -> Match:
    outer, _ = _ops("linalg.matmul")
    m = Match(outer, options or {})
    assert MATMUL.check(m) is None
    return m


def test_a_shape_names_its_dimensions_and_a_repeated_name_must_agree() -> None:
    m = _matched()
    assert (dim("M")(m), dim("K")(m), dim("N")(m)) == (4, 12, 3)
    # K named on A and again on C, whose second dimension is 3: it fails.
    wrong = input(0).has_shape("M", "K") & init().has_shape("M", "K")
    failure = wrong.check(Match(m.root))
    assert failure is not None and failure.reason == "its K is 3, not 12"
    assert not input(0).has_shape("M", "K", "X").holds(Match(m.root))
    assert is_structural(MATMUL)


def test_relations_among_dimensions_and_options() -> None:
    m = _matched({"factor": 5, "tile": None})
    assert (dim("K") % option("factor") != 0).holds(m)
    assert not (dim("K") % option("factor") == 0).holds(m)
    failure = (dim("K") % option("factor") == 0).check(m)
    assert failure is not None and failure.reason == "(K mod factor) = 2 is not = 0"
    assert (option("factor") > 1).holds(m) and (option("factor") <= dim("K")).holds(m)
    # An option not given, or a dimension not captured, fails every relation.
    unset = (option("tile") < dim("K")).check(m)
    assert unset is not None and unset.reason == "tile is not given"
    assert not (dim("X") > 0).holds(m)
    assert is_structural(dim("K") % option("factor") != 0)


def test_a_dynamic_dimension_is_unknown() -> None:
    (add, _) = _ops("arith.addf")
    m = Match(add)
    assert operand(0).has_shape("M", "K").holds(m)
    failure = (dim("K") > 1).check(m)
    assert failure is not None and failure.reason == "K is dynamic"
    assert (dim("M") == 4).holds(m)


def test_arithmetic_and_cases_compute_template_numbers() -> None:
    chunk = cases(
        (option("factor").is_set(), ceildiv(dim("K"), minimum(option("factor"), dim("K")))),
        (ALWAYS, option("tile")),
    )
    assert chunk(_matched({"factor": 5})) == 3
    assert chunk(_matched({"factor": 50})) == 1
    assert chunk(_matched({"tile": 7})) == 7
    assert (dim("K") // chunk)(_matched({"factor": 5})) == 4
    assert (dim("K") - number(2) * 3 + 1)(_matched()) == 7
    # Two plain ints stay plain ints.
    assert ceildiv(7, 2) == 4 and minimum(7, 2) == 2
    assert chunk.structural
    native = cases((where("a Python test", lambda m: True), 1))
    assert not native.structural and not is_structural(native == 1)


def test_some_operand_and_parent() -> None:
    outer, inner = _ops("linalg.matmul")
    _, encoded = _ops("arith.addf")
    is_encoded = some_operand(lambda v: v.is_encoded(), "is encoded")
    assert is_encoded.holds(Match(encoded)) and not is_encoded.holds(Match(outer))
    assert is_structural(is_encoded)
    partial = parent_is("scf.forall", where=attr("mapping").has_an(SplitReductionMappingAttr))
    assert partial.holds(Match(inner)) and not partial.holds(Match(outer))
    assert is_structural(partial)
    named = described(~partial, "is not a partial")
    assert named.holds(Match(outer)) and is_structural(named)
    failure = named.check(Match(inner))
    assert failure is not None and failure.constraint == "is not a partial"


def test_split_k_numbers_restate_the_chunk_rules() -> None:
    """`chunks.CHUNK`, `COUNT` and `options_cut_k` agree with `plan_chunks`
    and `static_chunks` on every K and option tried here."""
    from xsplit.rewrites.split.chunks import (
        CHUNK,
        COUNT,
        FULL,
        TAIL,
        options_cut_k,
        plan_chunks,
        static_chunks,
    )

    outer, _ = _ops("linalg.matmul")
    checked = 0
    for k in (1, 2, 3, 7, 12, 100, 1000, 2047, 2048, 3000, 70000, 99999):
        for opts in (
            *({"factor": f} for f in (1, 2, 3, 5, 7, 64, 2000, 200000)),
            *({"tile": t} for t in (1, 3, 7, 100, 1024, 99999)),
            *({"tile": t, "balanced": True} for t in (3, 7, 100, 1024)),
            *({"factor": f, "balanced": True} for f in (3, 7, 77)),
            {},
        ):
            options = {"factor": None, "tile": None, "balanced": False, "target": None, **opts}
            m = Match(outer, options, {"dim:K": k})
            plan = plan_chunks(outer, k, options["factor"], options["tile"], options["balanced"])
            assert options_cut_k.holds(m) == (plan is not None), (k, opts)
            if plan is None:
                continue
            static = static_chunks(plan, k)
            assert (CHUNK(m), FULL(m), TAIL(m), COUNT(m)) == (
                static.chunk,
                static.full,
                static.tail,
                plan.count,
            ), (k, opts)
            checked += 1
    assert checked > 100
    assert is_structural(options_cut_k)
    # target= is the cost model's to decide, never the options'.
    m = Match(outer, {"factor": 4, "tile": None, "target": "cpu"}, {"dim:K": 100})
    assert not options_cut_k.holds(m)


def test_aligned_numbers_restate_aligned_chunks() -> None:
    """`aligned_split.ALIGNED_CHUNK` and `options_align_k` agree with
    `aligned_chunks` on the chunk count the options make."""
    from xsplit.rewrites.split.aligned_split import ALIGNED_CHUNK, aligned_chunks, options_align_k
    from xsplit.rewrites.split.chunks import plan_chunks

    outer, _ = _ops("linalg.matmul")
    agreed = 0
    for k in (2, 16, 100, 1000, 2000, 30011, 70000):
        for align in (1, 16, 64, 128, 1000):
            for opts in ({"factor": 2}, {"factor": 3}, {"factor": 64}, {"tile": 300}, {}):
                options = {
                    "factor": None, "tile": None, "balanced": False, "target": None,
                    "align": align, **opts,
                }
                m = Match(outer, options, {"dim:K": k})
                plan = plan_chunks(outer, k, options["factor"], options["tile"], False)
                if plan is None:
                    continue
                chunks = aligned_chunks(k, plan.count, align)
                assert options_align_k.holds(m) == (not isinstance(chunks, str)), (k, align, opts)
                if not isinstance(chunks, str):
                    assert ALIGNED_CHUNK(m) == chunks.chunk, (k, align, opts)
                    agreed += 1
    assert agreed > 50 and is_structural(options_align_k)


def test_a_dimension_is_dynamic() -> None:
    (add, _) = _ops("arith.addf")
    m = Match(add)
    assert operand(0).has_shape("M", "K").holds(m)
    assert dim("K").is_dynamic().holds(m) and not dim("M").is_dynamic().holds(m)
    failure = dim("M").is_dynamic().check(m)
    assert failure is not None and failure.reason == "M is 4"
    assert not dim("X").is_dynamic().holds(m)
    assert is_structural(dim("K").is_dynamic())


def test_a_captured_number_takes_relations_but_not_structure() -> None:
    """`captured(name)` reads an integer an earlier test bound, as DRR reads
    a NativeCodeCall's result: the relation on it is stated in the DSL, the
    test that bound it keeps its own kind."""
    from xsplit.rewrites.dsl import captured

    m = _matched()
    lanes = where("binds the lanes", lambda m: m.captures.update(lanes=8) or True)
    whole = (dim("K") % captured("lanes") == 0) & (dim("K") // captured("lanes") == 1)
    assert is_structural(dim("K") % captured("lanes") == 0)
    assert not is_structural(lanes & whole)
    # Before anything bound it, every relation on it fails, and says why.
    failure = (dim("K") % captured("lanes") == 0).check(m)
    assert failure is not None and failure.reason == "$lanes is not captured"
    # Bound to 8 by the native test: K = 12 is no whole number of them.
    failure = (lanes & whole).check(m)
    assert failure is not None and failure.reason == "(K mod $lanes) = 4 is not = 0"
    m.captures["lanes"] = 4
    assert (dim("K") % captured("lanes") == 0).holds(m)
    assert (dim("K") // captured("lanes") * captured("lanes"))(m) == 12
    m.captures["lanes"] = 5
    assert not (dim("K") % captured("lanes") == 0).holds(m)
    assert (dim("K") % captured("lanes"))(m) == 2
    m.captures["lanes"] = "wide"
    failure = (dim("K") % captured("lanes") == 0).check(m)
    assert failure is not None and failure.reason == "$lanes is 'wide', not an integer"
