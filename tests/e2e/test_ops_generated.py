"""Generated cases for the ops split-k must understand: random conv layouts,
windows, strides, dilations and chunkings, and random arg-reductions, each
split, compiled for the CPU and compared with numpy. The seeds are fixed so
that a failure reproduces; the properties are that the split program computes
what the op means, and that a conv's window loops stay whole."""

from __future__ import annotations

import random

import numpy as np
import pytest
from xdsl.dialects.builtin import StringAttr

from tests.e2e.cases import argmax, argmax_reference, conv, conv_reference
from xsplit.api import build_pipeline, parse_module, print_module, run_passes
from xsplit.attr_names import SPLIT_PART
from xsplit.interop.check import entry_function, random_inputs
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.iree_compile import compile_mlir


def _conv_case(seed: int) -> tuple[str, str, object, str]:
    rng = random.Random(seed)
    layout = rng.choice(["nhwc_hwcf", "nchw_fchw", "depthwise"])
    strides = rng.choice([None, (1, 1), (2, 1), (2, 3)])
    dilations = rng.choice([None, (1, 1), (1, 2), (3, 1)])
    k_hw = (rng.randint(1, 6), rng.randint(1, 6))
    out_hw = (rng.randint(1, 9), rng.randint(1, 9))
    channels = rng.randint(3, 150)
    chunking = rng.choice(
        [f"factor={rng.randint(2, 9)}", f"tile={rng.randint(1, 40)}", f"factor={rng.randint(2, 7)} balanced=true"]
    )
    mlir = conv(layout, rng.randint(1, 2), channels, rng.randint(1, 9), out_hw, k_hw, strides, dilations)
    case_id = f"{layout}-k{k_hw}-s{strides}-d{dilations}-c{channels}-{chunking}"
    return case_id, mlir, conv_reference(layout, strides, dilations), chunking


def _arg_case(seed: int) -> tuple[str, str, object, str]:
    rng = random.Random(1000 + seed)
    dtype = rng.choice(["f32", "i8"])
    predicate = rng.choice(["gt", "ge", "lt", "le"])
    predicate = ("o" if dtype == "f32" else "s") + predicate
    k = rng.randint(50, 3000)
    fresh = rng.choice([True, False])
    chunking = rng.choice([f"factor={rng.randint(2, 16)}", f"tile={rng.randint(7, 400)}"])
    mlir = argmax(rng.randint(1, 12), k, dtype, "i32", predicate, fresh_init=fresh)
    case_id = f"arg-{dtype}-{predicate}-k{k}-fresh{fresh}-{chunking}"
    return case_id, mlir, argmax_reference(dtype, predicate, fresh_init=fresh), chunking


CASES = [_conv_case(s) for s in range(8)] + [_arg_case(s) for s in range(6)]


@pytest.mark.parametrize("case_id,mlir,reference,chunking", CASES, ids=[c[0] for c in CASES])
def test_generated_split_matches_numpy(case_id, mlir, reference, chunking) -> None:
    module = parse_module(mlir)
    run_passes(module, build_pipeline(f"split-k{{{chunking}}},materialize-late"))
    text = print_module(module)
    inputs = random_inputs(entry_function(parse_module(mlir)), [])
    results = run_on_cpu(compile_mlir(text, "cpu"), "main", inputs)
    wanted = reference(*inputs)
    wanted = wanted if isinstance(wanted, tuple) else (wanted,)
    for got, want in zip(results, wanted):
        if got.dtype.kind == "i":
            np.testing.assert_array_equal(got, want)
        else:
            scale = max(1.0, float(np.abs(want).max()))
            assert float(np.abs(got.astype(np.float64) - want).max()) <= 1e-4 * scale, case_id


@pytest.mark.parametrize("seed", range(40))
def test_conv_split_keeps_window_whole(seed: int) -> None:
    """Without compiling: every split conv is a conv of the same kind on
    chunks whose channel or window-row extents add up to the whole."""
    case_id, mlir, _, chunking = _conv_case(100 + seed)
    module = parse_module(mlir)
    (op,) = [o for o in module.walk() if o.name.startswith("linalg.") and "conv" in o.name]
    name = op.name
    run_passes(module, build_pipeline(f"split-k{{{chunking}}}"))
    text = print_module(module)
    parse_module(text)  # the split program verifies
    partials = [o for o in module.walk() if o.name == name]
    if "scf.forall" not in text:
        # Left whole only when the options leave one chunk.
        assert len(partials) == 1, case_id
        return
    # One in the loop, and where the chunks do not divide K, the static tail beside it.
    looped = [p for p in partials if p.parent_op().name == "scf.forall"]
    tails = [p for p in partials if p.attributes.get(SPLIT_PART) == StringAttr("tail")]
    assert len(looped) == 1 and len(tails) == len(partials) - 1 <= 1, case_id
