"""A fused GEMM + reduction with several batch loops or a C that lies N x M,
in xsplit's staged kernel (fused_gemm.py): the batch loops linearized on
grid z, each kernel taking its batch's matrices, outputs and partials as
rank-reduced subviews; a transposed C computed as Cᵀ = Bᵀ Aᵀ, the
program's B read as the kernel's A. Each case: race-free in the simulator
with verify-sync proving its barriers, numpy's results (einsum in f64) on
shapes no multiple of the tile, the remark naming the staged kernel."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers.fused_gemm import SUBGROUP
from tests.helpers.gemm_kernel import ORDERS
from tests.helpers.simulation import simulate_module
from xsplit.api import parse_module, rewrite
from xsplit.diagnostics import collect_remarks
from xsplit.dialects import make_context


def _ty(shape) -> str:
    return f"tensor<{'x'.join(map(str, shape))}xf32>"


class Case:
    """C[c_idx] = C0 + sum_k A[a_idx] B[b_idx], reduced along loop `along`
    by `method` into o (with `keep`, as rock.reduce keeps the axis as 1);
    with `returned` the function returns C as well."""

    def __init__(self, sizes, a_idx, b_idx, c_idx, along, method, keep=False, returned=False):
        self.sizes, self.a_idx, self.b_idx, self.c_idx = sizes, a_idx, b_idx, c_idx
        self.along, self.method, self.keep, self.returned = along, method, keep, returned
        self.axis = c_idx.index(along)

    def shape(self, idx) -> list[int]:
        return [self.sizes[d] for d in idx]

    @property
    def out_shape(self) -> list[int]:
        c = self.shape(self.c_idx)
        return [1 if i == self.axis else s for i, s in enumerate(c) if self.keep or i != self.axis]

    def program(self) -> str:
        loops = list(self.sizes)
        dims = ", ".join(loops)
        ta, tb, tc = (_ty(self.shape(i)) for i in (self.a_idx, self.b_idx, self.c_idx))
        to = _ty(self.out_shape)
        maps = ", ".join(
            f"affine_map<({dims}) -> ({', '.join(i)})>" for i in (self.a_idx, self.b_idx, self.c_idx)
        )
        its = ", ".join('"reduction"' if d == "k" else '"parallel"' for d in loops)
        results = ([tc] if self.returned else []) + [to]
        text = (
            f"func.func @t(%a: {ta}, %b: {tb}, %c: {tc}, %o: {to}) -> ({', '.join(results)}) {{\n"
            f"  %mm = linalg.generic {{indexing_maps = [{maps}], iterator_types = [{its}]}} "
            f"ins(%a, %b : {ta}, {tb}) outs(%c : {tc}) {{\n"
            "  ^bb0(%x: f32, %y: f32, %z: f32):\n"
            "    %p = arith.mulf %x, %y : f32\n"
            "    %s = arith.addf %z, %p : f32\n"
            "    linalg.yield %s : f32\n"
            f"  }} -> {tc}\n"
        )
        if self.keep:
            text += (
                f"  %r = rock.reduce {self.method} %mm into %o {{axis = {self.axis} : index}} : "
                f"{tc} into {to} -> {to}\n"
            )
        else:
            combine = "arith.addf" if self.method == "sum" else "arith.maximumf"
            text += (
                f"  %r = linalg.reduce ins(%mm : {tc}) outs(%o : {to}) dimensions = [{self.axis}]\n"
                "    (%in: f32, %init: f32) {\n"
                f"      %0 = {combine} %in, %init : f32\n"
                "      linalg.yield %0 : f32\n"
                "    }\n"
            )
        values = (["%mm"] if self.returned else []) + ["%r"]
        return text + f"  return {', '.join(values)} : {', '.join(results)}\n}}\n"

    def run(self, pipeline: str, subgroup: int) -> list[str]:
        with collect_remarks() as said:
            out = rewrite(self.program(), f"fuse-reduction,{pipeline},verify-sync")
        assert not [line for line in said if "warning" in line], said
        assert "linalg." not in out and "xsplit_gemm." not in out
        rng = np.random.default_rng(sum(self.sizes.values()))
        a, b, c, o = (
            rng.uniform(-1, 1, s).astype(np.float32)
            for s in (self.shape(self.a_idx), self.shape(self.b_idx),
                      self.shape(self.c_idx), self.out_shape)
        )  # fmt: skip
        spec = f"{''.join(self.a_idx)},{''.join(self.b_idx)}->{''.join(self.c_idx)}"
        x = c.astype(np.float64) + np.einsum(spec, a.astype(np.float64), b.astype(np.float64))
        if self.method == "sum":
            red = o + x.sum(axis=self.axis, keepdims=self.keep)
        else:
            red = np.maximum(o, x.max(axis=self.axis, keepdims=self.keep))
        want_c = x.astype(np.float32) if self.returned else c
        module = parse_module(out, "out.mlir", make_context())
        report = simulate_module(
            module, [a, b, want_c, red.astype(np.float32)], [a, b, c, o], subgroup_size=subgroup,
            orders=ORDERS,  # one order: see tests/helpers/gemm_kernel.py
        )
        assert report.clean, report.races + report.mismatches
        return said


SIZES = {"b": 2, "d": 3, "m": 37, "n": 45, "k": 29}

CASES = [
    # (a_idx, b_idx, c_idx, along, method, keep, returned, stage, target, det)
    # two batch loops, reduced along rows and columns, each stage and merge
    ("bdmk", "bdkn", "bdmn", "n", "sum", False, True, "lds", "sm_80", False),
    ("bdmk", "bdkn", "bdmn", "m", "max", True, False, "subgroup", "gfx942", True),
    ("dbkm", "bdnk", "bdmn", "n", "max", False, False, "atomic", "gfx942", True),
    ("bdmk", "dbkn", "dbmn", "m", "sum", False, True, "subgroup", "sm_80", False),
    # reduced along one of the two batch loops, or the other
    ("bdmk", "bdkn", "bdmn", "b", "sum", False, False, "lds", "sm_80", False),
    ("bdmk", "bdkn", "bdmn", "d", "max", False, True, "atomic", "gfx942", True),
    ("bdmk", "bdkn", "bdmn", "b", "sum", True, False, "atomic", "sm_80", True),
    # C lying N x M, alone and with A or B transposed, batch or not
    ("mk", "kn", "nm", "m", "max", False, False, "lds", "gfx942", False),
    ("km", "kn", "nm", "n", "sum", False, True, "subgroup", "sm_80", True),
    ("mk", "nk", "nm", "m", "sum", True, False, "subgroup", "gfx942", False),
    ("bdmk", "bdkn", "bdnm", "n", "max", False, True, "atomic", "sm_80", False),
    ("bmk", "bkn", "bnm", "b", "sum", False, False, "lds", "gfx942", True),
    # llvm-cpu: the same op with workgroup_level, one thread's loops over a tile
    ("dbkm", "bdnk", "bdnm", "m", "sum", False, True, "atomic", "cpu", False),
    ("bdmk", "bdkn", "bdmn", "n", "max", True, False, "atomic", "cpu", True),
    ("bdmk", "bdkn", "bdmn", "d", "sum", False, True, "atomic", "cpu", True),
    ("bmk", "bnk", "bnm", "b", "max", True, False, "atomic", "cpu", False),
]


def _id(case) -> str:
    a, b, c, along, method, keep, ret, stage, target, det = case
    return f"{a}-{b}-{c}-{along}-{method}{'-keep' * keep}{'-ret' * ret}-{stage}-{target}{'-det' * det}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_staged_kernel(case) -> None:
    a_idx, b_idx, c_idx, along, method, keep, returned, stage, target, det = case
    sizes = {d: s for d, s in SIZES.items() if d in c_idx or d == "k"}
    c = Case(sizes, list(a_idx), list(b_idx), list(c_idx), along, method, keep, returned)
    said = c.run(
        f"lower-reduce{{stage={stage} target={target} deterministic={str(det).lower()}}}",
        SUBGROUP.get(target, 1),
    )
    text = "\n".join(said)
    assert "xsplit_gemm.gridwise_gemm_reduce" in text, text
    assert "tiled kernel" not in text
    batches = 1
    for d in c_idx[:-2]:
        batches *= sizes[d]
    assert f"x{batches}; " in text  # grid z: every batch loop
    assert ("Cᵀ = Bᵀ Aᵀ" in text) == (c_idx[-1] == "m")
    assert ("workgroup_level" in text) == (target == "cpu")


def test_cpu_runs_against_numpy() -> None:
    """Two batch loops, a transposed C and a transposed A on llvm-cpu
    through IREE, deterministic, against einsum."""
    from xsplit.iree.cpu_runner import run_on_cpu
    from xsplit.iree.iree_compile import compile_mlir

    sizes = {"b": 2, "d": 3, "m": 37, "n": 45, "k": 29}
    c = Case(sizes, list("dbkm"), list("bdkn"), list("bdnm"), "m", "max", returned=True)
    out = rewrite(
        c.program(),
        "fuse-reduction,lower-reduce{target=cpu deterministic=true},export-dispatch{target=cpu}",
    )
    assert "gpu.thread_id" not in out
    rng = np.random.default_rng(11)
    a, b, c0 = (
        rng.uniform(-1, 1, c.shape(i)).astype(np.float32) for i in (c.a_idx, c.b_idx, c.c_idx)
    )
    o = rng.uniform(-1, 1, c.out_shape).astype(np.float32)
    got = run_on_cpu(compile_mlir(out, "cpu"), "t", [a, b, c0, o])
    x = c0.astype(np.float64) + np.einsum("dbkm,bdkn->bdnm", a.astype(np.float64), b.astype(np.float64))
    want = [x, np.maximum(o, x.max(axis=c.axis))]
    assert len(got) == 2
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-4, atol=1e-4)


def test_batch_dimensions_after_the_matrix_are_not_staged() -> None:
    """A batch loop that is not A's leading dimension leaves the staged
    kernel (its subview would not be a matrix): the per-element kernel
    computes it, still right, and the remark says why."""
    sizes = {"b": 2, "m": 9, "n": 7, "k": 5}
    c = Case(sizes, list("mbk"), list("bkn"), list("bmn"), "n", "sum")
    said = c.run("lower-reduce{stage=atomic target=sm_80}", 32)
    assert "A's batch dimensions do not come first" in "\n".join(said)
