"""Where K is static, split-k's output has no dynamic size, whatever the op,
the chunking, the strategy or the target: IREE 3.13's CUDA code for a
contraction with a dynamic K can be wrong (a 123x?x456 f32 matmul was off by
14-38% of the result's scale on an H200) and gets no K tile. Generated cases,
no iree-compile: random static shapes (prime K among them), factors that do
not divide K, every strategy, and ops of every kind split-k handles."""

from __future__ import annotations

import random

import pytest
from xdsl.dialects.builtin import DYNAMIC_INDEX, StringAttr, TensorType

from tests.e2e.cases import (
    argmax,
    batch_matmul,
    conv,
    matmul,
    matvec,
    named_matmul,
    reduce_rows,
    transposed_generic,
    vecmat,
)
from xsplit.api import build_pipeline, parse_module, print_module, run_passes
from xsplit.attr_names import SPLIT_PART

PRIMES = [1009, 4099, 30011, 51239, 65521]


def _k(rng: random.Random) -> int:
    return rng.choice([rng.choice(PRIMES), rng.randint(20, 70000)])


def _op(rng: random.Random) -> tuple[str, str]:
    """A random reduction with static shapes, and its name."""
    kind = rng.choice(
        ["matmul", "f16", "bf16", "batch", "matvec", "vecmat", "transposed", "reduce", "argmax",
         "conv", "mmt4d", "batch_reduce"]
    )
    m, n, k = rng.randint(1, 300), rng.randint(1, 300), _k(rng)
    if kind == "matmul":
        return kind, matmul(m, n, k)
    if kind in ("f16", "bf16"):
        return kind, named_matmul("matmul", None, [m, k], [k, n], [m, n], kind)
    if kind == "batch":
        return kind, batch_matmul(rng.randint(1, 4), m, n, k)
    if kind == "matvec":
        return kind, matvec(m, k)
    if kind == "vecmat":
        return kind, vecmat(n, k)
    if kind == "transposed":
        return kind, transposed_generic(m, n, k)
    if kind == "reduce":
        combiner = rng.choice(["arith.addf", "arith.maximumf", "arith.minimumf"])
        return kind, reduce_rows(m, k, combiner)
    if kind == "argmax":
        return kind, argmax(rng.randint(1, 12), k, predicate=rng.choice(["ogt", "olt"]))
    if kind == "conv":
        return kind, conv(
            rng.choice(["nhwc_hwcf", "nchw_fchw", "depthwise"]), 1, rng.randint(3, 300),
            rng.randint(1, 9), (rng.randint(1, 6), rng.randint(1, 6)), (3, 3),
        )
    if kind == "mmt4d":
        kt = rng.randint(3, 400)
        return kind, named_matmul("mmt4d", None, [4, kt, 8, 4], [3, kt, 8, 4], [4, 3, 8, 8])
    batch = rng.randint(2, 9)
    return kind, named_matmul("batch_reduce_matmul", None, [batch, m, k], [batch, k, n], [m, n])


def _options(rng: random.Random, k: int) -> str:
    choice = rng.choice(["factor", "tile", "balanced", "default", "target", "align"])
    if choice == "factor":
        return f"factor={rng.randint(2, 200)}"
    if choice == "tile":
        return f"tile={rng.randint(1, max(2, k // 2))}"
    if choice == "balanced":
        return f"factor={rng.randint(2, 100)} balanced=true"
    if choice == "default":
        return ""
    if choice == "align":
        align, pad_m = rng.choice([16, 64]), rng.choice([8, 64])
        return f"factor={rng.randint(2, 64)} align={align} pad_m={pad_m}"
    return f"target={rng.choice(['sm_80', 'sm_90', 'gfx942', 'cpu'])}"


def _pipeline(rng: random.Random, options: str) -> str:
    if "target" in options and rng.random() < 0.5:
        return f"auto{{{options}}}"  # set-encoding, split-k and materialize-late
    strategy = rng.choice(["forall", "expand", "grouped"]) if "target" not in options else "forall"
    inner = " ".join(o for o in (options, f"strategy={strategy}") if o)
    late = rng.choice(["", ",materialize-late", ",materialize-early,materialize-late"])
    if strategy == "grouped" and not late:
        late = ",materialize-late"
    return f"split-k{{{inner}}}{late}"


def _case(seed: int) -> tuple[str, str, str]:
    rng = random.Random(seed)
    kind, mlir = _op(rng)
    # tile= only needs a rough bound: a tile past K leaves the op whole.
    pipeline = _pipeline(rng, _options(rng, 70000))
    return f"{seed}-{kind}-{pipeline}", mlir, pipeline


CASES = [_case(s) for s in range(60)]


@pytest.mark.parametrize("case_id,mlir,pipeline", CASES, ids=[c[0] for c in CASES])
def test_static_k_leaves_no_dynamic_size(case_id: str, mlir: str, pipeline: str) -> None:
    module = parse_module(mlir)
    run_passes(module, build_pipeline(pipeline))
    text = print_module(module)
    parse_module(text)  # the output verifies
    for op in module.walk():
        assert op.name not in ("affine.min", "affine.max"), f"{pipeline}: a run-time chunk size"
        values = [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
        for value in values:
            t = value.type
            if isinstance(t, TensorType):
                assert DYNAMIC_INDEX not in t.get_shape(), f"{pipeline}: {op.name} makes {t}"


@pytest.mark.parametrize("seed", range(20))
def test_factor_gives_n_minus_one_full_chunks_and_a_tail(seed: int) -> None:
    """factor=N: chunks of ceil(K/N), the loop over the full ones, one tail op
    beside it exactly when they do not cover K."""
    rng = random.Random(500 + seed)
    k = _k(rng)
    factor = rng.randint(2, 150)
    module = parse_module(matmul(rng.randint(1, 64), rng.randint(1, 64), k))
    run_passes(module, build_pipeline(f"split-k{{factor={factor}}}"))
    chunk = -(-k // factor)
    full, tail = divmod(k, chunk)
    loops = [op for op in module.walk() if op.name == "scf.forall"]
    assert len(loops) == 1
    assert loops[0].staticUpperBound.get_values() == (full,)  # type: ignore[attr-defined]
    tails = [
        op for op in module.walk()
        if op.name == "linalg.matmul" and op.attributes.get(SPLIT_PART) == StringAttr("tail")
    ]
    assert len(tails) == (1 if tail else 0)
    if tail:
        assert tails[0].operands[0].type.get_shape()[1] == tail  # type: ignore[union-attr]
