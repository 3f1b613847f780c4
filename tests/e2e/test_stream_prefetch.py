"""`stream-prefetch`: a product of up to 16 rows against a row-major B as a
CPU dispatch of xsplit's own, with and without prefetches of B. Generated
cases (1 to 16 rows, N a multiple of 64 but not always of 128, odd and
prime K, chunks that do not divide K; past 4 rows register tiles of every
row or of fewer rows over blocks of B's rows that do not divide the chunk)
run on IREE's CPU runtime against numpy in float64, into a non-zero init so
that `C + A B` is checked; what the pass does not take passes through
unchanged."""

from __future__ import annotations

import random

import numpy as np
import pytest

from xsplit.api import rewrite
from xsplit.diagnostics import XsplitError
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.iree_compile import compile_mlir


def _program(m: int, n: int, k: int, maps: str = "") -> str:
    b = f"{n}x{k}" if maps else f"{k}x{n}"
    return f"""
func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{b}xf32>, %c: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %0 = linalg.matmul {maps} ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{b}xf32>) outs(%c : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %0 : tensor<{m}x{n}xf32>
}}"""


def _case(seed: int) -> tuple[str, int, int, int, int, str]:
    rng = random.Random(3930 + seed)
    m = rng.randint(1, 4)
    n = 64 * rng.randint(1, 6)
    k = rng.choice((rng.randint(40, 3000), 2 * rng.randint(20, 1500) + 1))
    chunks = rng.randint(1, 9)
    prefetch = ("on", "none")[seed % 2]
    return f"{m}x{n}x{k}-in-{chunks}-{prefetch}", m, n, k, chunks, prefetch


def _many_rows_case(seed: int) -> tuple[str, int, int, int, int, str, str]:
    rng = random.Random(3931 + seed)
    m = rng.randint(5, 16)
    n = 64 * rng.randint(1, 4)
    k = rng.choice((rng.randint(40, 2000), 2 * rng.randint(20, 1000) + 1))
    chunks = rng.randint(1, 7)
    prefetch = ("on", "none")[seed % 2]
    form = (f"tile_rows={m}", f"tile_rows={rng.randint(1, m - 1)} k_block={2 * rng.randint(1, 40)}", "")[
        seed % 3
    ]
    return f"{m}x{n}x{k}-in-{chunks}-{prefetch}-{form.replace(' ', '-') or 'default'}", m, n, k, chunks, prefetch, form


CASES = [(*_case(s), "") for s in range(6)] + [_many_rows_case(s) for s in range(6)] + [
    ("4x192x3001-prime-in-7-on", 4, 192, 3001, 7, "on", ""),
    ("1x128x1021-prime-in-16-on", 1, 128, 1021, 16, "on", ""),
    # Fewer rows of K than the prefetch distance: every prefetch is clamped.
    ("2x64x17-in-1-on", 2, 64, 17, 1, "on", ""),
    # Tiles of 4, 4 and 3 rows over blocks of 32 rows, the chunk's last one short.
    ("11x128x2003-prime-in-5-on-blocks", 11, 128, 2003, 5, "on", "tile_rows=4 k_block=32"),
    ("16x64x997-prime-in-3-on-every-row", 16, 64, 997, 3, "on", "tile_rows=16"),
]


@pytest.mark.parametrize(
    "case_id,m,n,k,chunks,prefetch,form", CASES, ids=[c[0] for c in CASES]
)
def test_stream_dispatch_computes_the_product(
    case_id: str, m: int, n: int, k: int, chunks: int, prefetch: str, form: str
) -> None:
    out = rewrite(_program(m, n, k), f"stream-prefetch{{prefetch={prefetch} chunks={chunks} {form}}}")
    assert "flow.dispatch @main_stream_dispatch::@main_stream" in out, out
    assert ("memref.prefetch" in out) == (prefetch == "on"), out
    rng = np.random.default_rng(m * 131 + n * 7919 + k)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in ((m, k), (k, n), (m, n))]
    (got,) = run_on_cpu(compile_mlir(out, "cpu"), "main", inputs)
    a, b, c = (x.astype(np.float64) for x in inputs)
    want = a @ b + c
    assert np.abs(np.asarray(got) - want).max() <= 1e-4 * max(1.0, float(np.abs(want).max()))


TRANSPOSED = (
    "indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, "
    "affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]"
)


@pytest.mark.parametrize(
    "text",
    [
        _program(17, 128, 1000),  # over 16 rows
        _program(2, 100, 1000),  # N not a multiple of 64
        _program(2, 128, 1000, TRANSPOSED),  # B[n, k]: split-lanes' form
    ],
    ids=["seventeen-rows", "n-100", "transposed-b"],
)
def test_what_the_form_does_not_take_passes_through(text: str) -> None:
    assert rewrite(text, "stream-prefetch{prefetch=on}") == rewrite(text, "")


def test_auto_leaves_the_product_to_split_k_where_the_model_measured_it_slower() -> None:
    text = _program(4, 4096, 14336)
    assert rewrite(text, "stream-prefetch") == rewrite(text, "")


@pytest.mark.parametrize("n,k,chunks", [(192, 1021, 5), (128, 2048, 16)], ids=["prime-k", "whole"])
def test_vecmat_streams_the_same_way(n: int, k: int, chunks: int) -> None:
    text = f"""
func.func @main(%x: tensor<{k}xf32>, %w: tensor<{k}x{n}xf32>, %y: tensor<{n}xf32>) -> tensor<{n}xf32> {{
  %0 = linalg.vecmat ins(%x, %w : tensor<{k}xf32>, tensor<{k}x{n}xf32>) outs(%y : tensor<{n}xf32>) -> tensor<{n}xf32>
  return %0 : tensor<{n}xf32>
}}"""
    out = rewrite(text, f"stream-prefetch{{prefetch=on chunks={chunks}}}")
    assert f"tensor<{chunks}x{n}xf32>) -> %partials_init" in out and "memref.prefetch" in out, out
    rng = np.random.default_rng(n + k)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in ((k,), (k, n), (n,))]
    (got,) = run_on_cpu(compile_mlir(out, "cpu"), "main", inputs)
    x, w, y = (a.astype(np.float64) for a in inputs)
    want = x @ w + y
    assert np.abs(np.asarray(got) - want).max() <= 1e-4 * max(1.0, float(np.abs(want).max()))


def test_an_encoded_product_is_left_alone() -> None:
    # set-encoding's layout is the encoding's: B is no longer row-major.
    text = _program(4, 128, 1024)
    encoded = rewrite(text, "set-encoding")
    assert "iree_encoding.encoding" in encoded
    assert rewrite(text, "set-encoding,stream-prefetch{prefetch=on}") == encoded


@pytest.mark.parametrize(
    "options,message",
    [
        ("chunks=-3", "stream-prefetch: chunks must be an integer >= 0, got '-3'"),
        ("prefetch=sometimes", "stream-prefetch: prefetch must be one of auto, on, none, got 'sometimes'"),
    ],
)
def test_a_bad_option_is_refused_in_one_line(options: str, message: str) -> None:
    with pytest.raises(XsplitError) as refused:
        rewrite(_program(2, 128, 1001), f"stream-prefetch{{{options}}}")
    assert str(refused.value.diagnostic) == f"error: {message}"


def test_auto_takes_nine_to_twelve_rows_and_computes_them() -> None:
    # The model measured the form at 0.73 of split-k's time at 9 to 12 rows.
    m, n, k = 11, 256, 3001
    out = rewrite(_program(m, n, k), "auto{target=cpu}")
    assert "flow.dispatch @main_stream_dispatch::@main_stream" in out, out
    assert "memref.prefetch" in out, out
    rng = np.random.default_rng(1103)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in ((m, k), (k, n), (m, n))]
    (got,) = run_on_cpu(compile_mlir(out, "cpu"), "main", inputs)
    a, b, c = (x.astype(np.float64) for x in inputs)
    want = a @ b + c
    assert np.abs(np.asarray(got) - want).max() <= 1e-4 * max(1.0, float(np.abs(want).max()))
