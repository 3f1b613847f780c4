"""Remarks are true: what split-k says about an op is what it did to it.

For random K, factors and every strategy (forall, expand and its fallback,
grouped and its fallback), the remarks are predicted from the chunk
arithmetic alone and must be exactly those made; the patterns that fired
(--xsplit-stats) must be the strategy the remarks name. A family never
remarks on ops it created: expand's batched partial, a reduction too, once
drew a false "expand needs a factor that divides K" (issue 13)."""

from __future__ import annotations

import math
import random
import re

import pytest

from xsplit.api import build_pipeline, parse_module, print_module, run_passes
from xsplit.diagnostics import collect_remarks
from xsplit.rewrites.dsl import engine_settings


def matmul(k: int) -> str:
    return (
        f"func.func @mm(%a: tensor<6x{k}xf32>, %b: tensor<{k}x5xf32>, %c: tensor<6x5xf32>)"
        " -> tensor<6x5xf32> {\n"
        f"  %0 = linalg.matmul ins(%a, %b : tensor<6x{k}xf32>, tensor<{k}x5xf32>) "
        "outs(%c : tensor<6x5xf32>) -> tensor<6x5xf32>\n"
        "  return %0 : tensor<6x5xf32>\n}\n"
    )


def min_reduce(k: int) -> str:
    return (
        f"func.func @rmin(%x: tensor<4x{k}xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {{\n"
        f"  %r = linalg.reduce ins(%x : tensor<4x{k}xf32>) outs(%init : tensor<4xf32>) "
        "dimensions = [1]\n"
        "    (%in: f32, %acc: f32) {\n"
        "      %m = arith.minimumf %in, %acc : f32\n"
        "      linalg.yield %m : f32\n"
        "    }\n"
        "  return %r : tensor<4xf32>\n}\n"
    )


PROGRAMS = {"matmul": matmul, "min": min_reduce}


def predict(program: str, k: int, factor: int, strategy: str, balanced: bool):
    """The remarks, the pattern that fires and the chunk count, from the
    chunk arithmetic the README states."""
    remarks: list[str] = []
    if factor > k:
        remarks.append(f"factor = {factor} exceeds K = {k}; using {k} chunks of 1")
        factor = k
    if factor == 1:
        return remarks + ["not split: factor = 1 leaves one chunk"], None, 1
    # K is static: balanced=true takes the same static plan.
    chunk = math.ceil(k / factor)
    count = math.ceil(k / chunk)
    if count != factor:
        remarks.append(
            f"{factor} chunks of ceil({k}/{factor}) = {chunk} cover K in {count}; "
            f"using {count} chunks"
        )
    used = strategy
    if strategy == "expand" and k % count:
        remarks.append(
            f"expand needs a factor that divides K ({count} does not divide K = {k}); "
            "using forall"
        )
        used = "forall"
    if strategy == "grouped" and program == "min":
        remarks.append(
            "grouped cannot express this split (rock.reduce merges only sum and max); "
            "using forall"
        )
        used = "forall"
    return remarks, used, count


def loop_count(k: int, count: int) -> int:
    """The static chunks in the loop: the rest of K is a tail beside it."""
    return k // math.ceil(k / count)


STRATEGY_OF = {
    "split-k-static-chunks": "forall",
    "split-k-static-chunks-and-tail": "forall",
    "split-k-forall-static": "forall",
    "split-k-forall-static-and-tail": "forall",
    "split-k-expand-static": "expand",
    "split-k-grouped-static": "grouped",
    "split-k-expand-matmul": "expand",
    "split-k-grouped-matmul": "grouped",
}
"""The strategy each template pattern of split-k is a form of."""


def run(text: str, pipeline: str) -> tuple[list[str], dict[str, int], str]:
    with collect_remarks() as remarks, engine_settings(stats=True) as settings:
        module = parse_module(text, "in.mlir")
        run_passes(module, build_pipeline(pipeline))
    assert settings.stats is not None
    return list(remarks), settings.stats["split-k"], print_module(module)


def _cases() -> list[tuple[str, int, int, str, bool]]:
    rng = random.Random(13)
    cases = [
        ("matmul", 1000, 4, "expand", False),  # issue 13's false remark
        ("matmul", 1000, 3, "expand", False),  # a true fallback
        ("matmul", 1009, 7, "expand", True),  # prime K
        ("matmul", 1000, 4, "grouped", False),
        ("min", 1000, 4, "grouped", False),  # grouped falls back
        ("min", 1000, 4, "expand", False),
        ("matmul", 10, 9, "forall", False),  # 9 chunks of 2 cover K in 5
        ("matmul", 12, 40, "expand", False),  # factor > K
        ("matmul", 64, 1, "grouped", False),
    ]
    for _ in range(30):
        k = rng.choice([rng.randint(2, 64), rng.randint(65, 3000), 997, 1024, 2 * 3 * 37])
        factor = rng.choice([rng.randint(1, 12), rng.randint(1, k + 20), k, k + 1])
        strategy = rng.choice(["forall", "expand", "grouped"])
        cases.append((rng.choice(list(PROGRAMS)), k, factor, strategy, rng.random() < 0.3))
    return cases


@pytest.mark.parametrize(("program", "k", "factor", "strategy", "balanced"), _cases())
def test_remarks_say_what_split_k_did(
    program: str, k: int, factor: int, strategy: str, balanced: bool
) -> None:
    pipeline = f"split-k{{factor={factor} strategy={strategy} balanced={str(balanced).lower()}}}"
    remarks, stats, out = run(PROGRAMS[program](k), pipeline)
    expected, used, count = predict(program, k, factor, strategy, balanced)
    prefix = "in.mlir:2:3: remark: "
    assert all(r.startswith(prefix) for r in remarks), remarks
    assert [r[len(prefix) :] for r in remarks] == expected
    # A plain matmul's strategies are templates of their own (the same IR).
    fired = {STRATEGY_OF.get(name, name).removeprefix("split-k-") for name, n in stats.items() if n}
    assert fired == ({used} if used else set()), stats
    assert all(n <= 1 for n in stats.values()), stats
    if used == "forall":
        assert re.search(rf"scf\.forall \(%\w+\) in \({loop_count(k, count)}\)", out), out
    if used == "grouped":
        offsets = re.search(r"group_offsets = array<i64: ([\d, ]+)>", out)
        assert offsets and len(offsets.group(1).split(",")) == count + 1, out
    if used == "expand":
        assert "tensor.expand_shape" in out and f"x{count}x{k // count}x" in out, out

