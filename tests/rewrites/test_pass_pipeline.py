"""Passes composed as objects (xsplit/rewrites/pass_pipeline.py): a pipeline
of pass instances applied to one module in one context, verified as the
outermost pipeline says; passes that run passes hold them, run them in their
own context and read what they said as values."""

from __future__ import annotations

import runpy
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, UnknownLoc
from xdsl.passes import ModulePass

from xsplit.api import PassPipeline, build_pipeline, parse_module, rewrite, run_passes
from xsplit.diagnostics import (
    Diagnostic,
    XsplitError,
    collect_diagnostics,
    collect_remarks,
    location_of,
    remark,
    said_again,
    warning,
)
from xsplit.dialects import make_context
from xsplit.rewrites.dsl.declared_pass import DSLModulePass
from xsplit.rewrites.encoding.materialize_late import MATERIALIZE_LATE
from xsplit.rewrites.pipelines.auto import AutoPass
from xsplit.rewrites.split.split_k import SPLIT_K

ROOT = Path(__file__).resolve().parent.parent.parent
SMALL_MATMUL = (ROOT / "examples" / "small_matmul.mlir").read_text()


def test_the_documented_example_prints_what_the_text_pipeline_does(capsys) -> None:
    runpy.run_path(str(ROOT / "examples" / "compose_passes.py"), run_name="__main__")
    printed = capsys.readouterr().out
    expected = rewrite(SMALL_MATMUL, "split-k{factor=4},materialize-late", "small_matmul.mlir")
    assert printed == expected
    assert "flow.dispatch.workgroups" in printed  # it did split: not the input printed back


def test_pipelines_of_objects_and_of_text_give_the_same_program() -> None:
    objects = parse_module(SMALL_MATMUL)
    run_passes(objects, [PassPipeline([SPLIT_K.pass_class(factor=5), MATERIALIZE_LATE.pass_class()])])
    text = parse_module(SMALL_MATMUL)
    run_passes(text, build_pipeline("split-k{factor=5},materialize-late"))
    assert str(objects) == str(text) != str(parse_module(SMALL_MATMUL))


def test_options_are_checked_when_a_pass_is_built() -> None:
    with pytest.raises(XsplitError, match="split-k: factor must be an integer >= 1, got 0"):
        SPLIT_K.pass_class(factor=0)
    with pytest.raises(XsplitError, match="holds pass instances, not str"):
        PassPipeline(["split-k"])  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("target", "kernel", "text"),
    [
        (
            "cpu",
            "auto",
            "set-encoding{target=cpu},stream-prefetch{target=cpu},split-k{target=cpu},"
            "split-lanes{target=cpu},materialize-late{target=cpu}",
        ),
        (
            "cuda",
            "own",
            "set-encoding{target=sm_80},split-k{target=sm_80 kernel=own},"
            "materialize-late{target=sm_80},export-dispatch{target=sm_80 called=true}",
        ),
        (
            "gfx942",
            "iree",
            "set-encoding{target=gfx942},split-k{target=gfx942 kernel=iree},"
            "materialize-late{target=gfx942},export-dispatch{target=gfx942 called=true}",
        ),
        (
            "device",
            "auto",
            "set-encoding{target=device},stream-prefetch{target=device},split-k{target=device},"
            "split-lanes{target=device},materialize-late",
        ),
    ],
)
def test_auto_holds_the_passes_its_pipeline_text_named(target: str, kernel: str, text: str) -> None:
    pipeline = AutoPass(target=target, kernel=kernel).pipeline
    assert pipeline.passes == tuple(build_pipeline(text))
    assert tuple(build_pipeline(pipeline.text)) == pipeline.passes


# -- verification and errors, nested --------------------------------------


@dataclass(frozen=True)
class _BreakReturn(ModulePass):
    """Returns a value of the wrong type: invalid IR."""

    name = "break-return"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        fn = next(o for o in op.walk() if isinstance(o, func.FuncOp))
        ret = fn.body.block.last_op
        assert ret is not None
        ret.operands = [fn.args[0]]


@dataclass(frozen=True)
class _Boom(ModulePass):
    name = "boom"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise RuntimeError("a bug")


@dataclass(frozen=True)
class _Nothing(ModulePass):
    name = "nothing"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pass


@dataclass(frozen=True)
class _Runs(ModulePass):
    """A pass that runs a pipeline, as auto does."""

    name = "runs"
    inner: PassPipeline = field(default_factory=PassPipeline)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        self.inner.apply(ctx, op)


def _nested(*inner: ModulePass) -> list[ModulePass]:
    return [_Nothing(), _Runs(PassPipeline([_Nothing(), *inner]))]


def test_under_verify_each_a_nested_pipeline_names_its_own_pass_at_fault() -> None:
    with pytest.raises(XsplitError, match="pass 'break-return' produced invalid IR"):
        run_passes(parse_module(SMALL_MATMUL), _nested(_BreakReturn()), verify_each=True)


def test_otherwise_the_outermost_pipeline_verifies_once_at_its_end() -> None:
    with pytest.raises(XsplitError, match="invalid IR after pass 'runs', the last of 2"):
        run_passes(parse_module(SMALL_MATMUL), _nested(_BreakReturn()))
    run_passes(parse_module(SMALL_MATMUL), _nested(_BreakReturn()), verify=False)


def test_a_pipeline_run_outside_any_verifies_itself() -> None:
    with pytest.raises(XsplitError, match="pass 'break-return' produced invalid IR"):
        PassPipeline([_BreakReturn()]).apply(make_context(), parse_module(SMALL_MATMUL))


def test_a_bug_in_a_nested_pass_is_named_by_that_pass() -> None:
    with pytest.raises(XsplitError, match="internal error in pass 'boom': RuntimeError"):
        run_passes(parse_module(SMALL_MATMUL), _nested(_Boom()))


# -- diagnostics as values --------------------------------------------------


def test_diagnostics_travel_as_values_and_are_said_again_at_the_users_op() -> None:
    module = parse_module(SMALL_MATMUL, "in.mlir")
    fn = next(o for o in module.walk() if isinstance(o, func.FuncOp))
    matmul = next(o for o in module.walk() if o.name == "linalg.matmul")
    at_fn, at_matmul = location_of(fn), location_of(matmul)
    assert at_fn != at_matmul
    with collect_remarks() as outer:
        with collect_diagnostics() as said:
            remark(matmul, "inner")
            warning(matmul, "careful")
            remark(matmul, "inner")  # said once
        assert outer == []  # kept from the outer collector
        assert said == [
            Diagnostic("remark", "inner", at_matmul),
            Diagnostic("warning", "careful", at_matmul),
        ]
        said_again(fn, said, "outer: ")
    assert outer == [f"{at_fn}: remark: outer: inner", f"{at_fn}: warning: outer: careful"]


# -- xsplit's passes that run passes: in their own context ------------------

ROWS = """func.func @rows(%x: tensor<5x300xf32>, %o: tensor<5x1xf32>) -> tensor<5x1xf32> {
  %0 = rock.reduce sum %x into %o {axis = 1 : index} : tensor<5x300xf32> into tensor<5x1xf32> -> tensor<5x1xf32>
  return %0 : tensor<5x1xf32>
}
"""

FUSED = """func.func @fused(%a: tensor<13x24xf32>, %b: tensor<24x70xf32>, %c: tensor<13x70xf32>, %o: tensor<13x1xf32>) -> tensor<13x1xf32> {
  %mm = linalg.matmul ins(%a, %b : tensor<13x24xf32>, tensor<24x70xf32>) outs(%c : tensor<13x70xf32>) -> tensor<13x70xf32>
  %r = rock.reduce sum %mm into %o {axis = 1 : index} : tensor<13x70xf32> into tensor<13x1xf32> -> tensor<13x1xf32>
  return %r : tensor<13x1xf32>
}
"""

TRANSPOSED_C = """func.func @ct(%a: tensor<5x8xf32>, %b: tensor<8x9xf32>, %c: tensor<9x5xf32>, %o: tensor<9xf32>) -> tensor<9xf32> {
  %mm = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (n, m)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<5x8xf32>, tensor<8x9xf32>) outs(%c : tensor<9x5xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<9x5xf32>
  %r = linalg.reduce ins(%mm : tensor<9x5xf32>) outs(%o : tensor<9xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.maximumf %in, %init : f32
      linalg.yield %0 : f32
    }
  return %r : tensor<9xf32>
}
"""


GEMM_STAGES = ("lower-gridwise-gemm", "lower-blockwise-gemm", "lower-threadwise-gemm")


@pytest.mark.parametrize(
    ("source", "pipeline", "inner", "relayed"),
    [
        (SMALL_MATMUL, "split-k{target=sm_80 kernel=own}", GEMM_STAGES, "split-k: gemm-kernel: "),
        (
            SMALL_MATMUL,
            "split-k{target=gfx942 factor=4 merge=deterministic}",
            ("gemm-kernel", *GEMM_STAGES),
            "split-k: gemm-kernel: ",
        ),
        (ROWS, "lower-reduce{target=gfx942}", ("distribute",), "lower-reduce: distribute: "),
        (
            FUSED,
            "fuse-reduction,lower-reduce{target=sm_80}",
            GEMM_STAGES,
            "xsplit_gemm.gridwise_gemm_reduce",
        ),
        (
            TRANSPOSED_C,
            "fuse-reduction,lower-reduce{target=cpu}",
            GEMM_STAGES,
            "xsplit_gemm.gridwise_gemm_reduce workgroup_level",
        ),
    ],
    ids=["own-kernel", "merge", "distribute", "fused-gemm", "cpu-transposed-c"],
)
def test_passes_that_run_passes_run_them_in_their_own_context(
    source: str, pipeline: str, inner: tuple[str, ...], relayed: str, monkeypatch
) -> None:
    ctx = make_context()
    module = parse_module(source, "in.mlir", ctx)
    ran: list[tuple[str, Context]] = []
    apply = DSLModulePass.apply

    def recorded(self: DSLModulePass, given: Context, op: ModuleOp) -> None:
        ran.append((self.name, given))
        apply(self, given, op)

    monkeypatch.setattr(DSLModulePass, "apply", recorded)
    with collect_remarks() as said:
        run_passes(module, build_pipeline(pipeline), ctx, verify_each=True)
    assert [name for name, _ in ran if name in inner] == list(inner)
    assert all(given is ctx for _, given in ran)
    # What the inner passes said comes out at the user's op, in the input file.
    assert any(line.startswith("in.mlir:") and relayed in line for line in said), said
    assert not any(line.startswith("<lower-reduce>") for line in said), said


def test_what_inner_passes_said_reads_the_same_on_ops_without_locations() -> None:
    # Remark text parsed back lost its prefix without a location in front
    # ("split-k: remark: gemm-kernel: ..."); values carry none to lose.
    module = parse_module(SMALL_MATMUL)
    for op in module.walk():
        op.location = UnknownLoc()
    with collect_remarks() as said:
        run_passes(module, build_pipeline("split-k{target=sm_80 kernel=own}"))
    relayed = [line for line in said if "gemm-kernel: " in line]
    assert relayed and all(line.startswith("remark: split-k: gemm-kernel: ") for line in relayed)
