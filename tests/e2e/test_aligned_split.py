"""split-k's aligned chunks (`align=`, `pad_m=`, and `target=cpu`, which uses
them), generated: random contractions, shapes, dtypes, factors and
alignments, each split, compiled for the CPU and compared with numpy. The
properties: the split computes the op, every chunk in the loop has one
static size that is a multiple of the alignment, the tail's multiple of it
is read in place and only the rows past it are padded (to one alignment),
and M is padded where it is longer than `pad_m` and not a multiple of it."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from xdsl.dialects.builtin import Float32Type

from tests.e2e.cases import _mm, batch_matmul, matmul, matvec, transposed_generic, vecmat
from xsplit.api import build_pipeline, parse_module, print_module, run_passes
from xsplit.interop.check import entry_function, random_inputs
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.iree_compile import compile_mlir
from xsplit.rewrites.split.aligned_split import aligned_chunks


def _case(seed: int):  # type: ignore[no-untyped-def]
    rng = random.Random(7000 + seed)
    kind = rng.choice(["matmul", "matmul", "batch_matmul", "matvec", "vecmat", "transposed"])
    dtype = rng.choice(["f32", "f32", "i8", "f16"]) if kind in ("matmul", "transposed") else "f32"
    m, n = rng.randint(1, 70), rng.randint(1, 40)
    k = rng.randint(40, 3000)
    align = rng.choice([4, 8, 16, 32])
    pad_m = rng.choice([4, 8, 16])
    factor = rng.randint(2, 12)
    if kind == "matmul":
        mlir, ref, m_of = matmul(m, n, k, dtype), _mm, m
    elif kind == "batch_matmul":
        mlir = batch_matmul(2, m, n, k)
        ref = lambda a, b, c: np.einsum("bmk,bkn->bmn", a.astype(np.float64), b) + c  # noqa: E731
        m_of = m
    elif kind == "matvec":
        mlir, ref, m_of = matvec(m, k), (lambda a, x, y: a.astype(np.float64) @ x + y), m
    elif kind == "vecmat":
        mlir, ref, m_of = vecmat(n, k), (lambda x, a, y: x.astype(np.float64) @ a + y), None
    else:
        acc = np.int64 if dtype == "i8" else np.float64
        mlir = transposed_generic(m, n, k, dtype)
        ref = lambda a, b, c: a.T.astype(acc) @ b.T.astype(acc) + c  # noqa: E731
        m_of = m
    options = f"factor={factor} align={align} pad_m={pad_m}"
    case_id = f"{kind}-{dtype}-{m}x{n}x{k}-{options.replace(' ', '-')}"
    return case_id, mlir, ref, options, k, align, pad_m, m_of, dtype


CASES = [_case(s) for s in range(14)]


def _compiled_cases() -> set[str]:
    first: dict[tuple[str, ...], str] = {}
    for case_id, _, _, options, k, align, *_ in CASES:
        factor = int(options.split()[0].split("=")[1])
        if not isinstance(aligned_chunks(k, factor, align), str):
            first.setdefault(tuple(case_id.split("-")[:2]), case_id)
    return set(first.values())


COMPILED = _compiled_cases()
"""One compiled and run case per op kind and element type (the first that
splits into aligned chunks); the others are checked on the IR
(`_check_shapes`: chunk, tail, aligned rest, padding), which is what
differs between cases of one form."""

_F32 = Float32Type()


def _check_shapes(text: str, k: int, align: int, pad_m: int, m: int | None) -> None:
    loop = re.search(r"scf\.forall \(%\w+\) in \((\d+)\)", text)
    assert loop, text
    full = int(loop.group(1))
    chunk_sizes = {int(c) for c in re.findall(r"affine_map<\(d0\) -> \(\(d0 \* (\d+)\)\)>", text)}
    assert len(chunk_sizes) == 1, text
    (chunk,) = chunk_sizes
    assert chunk % align == 0 and "affine.min" not in text
    tail = k - full * chunk
    assert 0 <= tail < chunk
    assert ("linalg.index" in text) == (tail > 0)
    rest = tail % align
    assert ("%tail = linalg.generic" in text) == (tail - rest > 0), text
    assert ("%tail_rest = linalg.generic" in text) == (rest > 0), text
    assert not re.search(r"tensor\.pad %\w+_tail ", text), text  # no copy of the aligned part
    for high in re.findall(r"tensor\.pad %\w+_tail_rest low\[[0, ]*\] high\[([0-9, ]*)\]", text):
        assert sorted(int(h) for h in high.split(", "))[-1] == align - rest, text
    if m is not None and m > pad_m and m % pad_m:
        padded = -(-m // pad_m) * pad_m
        assert f"{padded}x" in text.split("scf.forall")[1].split("\n")[0], text


@pytest.mark.parametrize(
    "case_id,mlir,reference,options,k,align,pad_m,m,dtype", CASES, ids=[c[0] for c in CASES]
)
def test_aligned_split_matches_numpy(case_id, mlir, reference, options, k, align, pad_m, m, dtype) -> None:
    module = parse_module(mlir)
    run_passes(module, build_pipeline(f"split-k{{{options}}}"))
    split = print_module(module)
    if isinstance(aligned_chunks(k, int(options.split()[0].split("=")[1]), align), str):
        pytest.skip("K too short for two aligned chunks: the plain forall applies (FileCheck covers it)")
    _check_shapes(split, k, align, pad_m, m)
    if case_id not in COMPILED:
        return
    module = parse_module(split)
    run_passes(module, build_pipeline("materialize-late"))
    inputs = random_inputs(entry_function(parse_module(mlir)), [])
    (got,) = run_on_cpu(compile_mlir(print_module(module), "cpu"), "main", inputs)
    want = reference(*inputs)
    if got.dtype.kind == "i":
        np.testing.assert_array_equal(got, want)
    else:
        rtol = 1e-2 if dtype == "f16" else 1e-4
        assert float(np.abs(got - want).max()) <= rtol * max(1.0, float(np.abs(want).max()))


def test_target_cpu_splits_the_seed_into_aligned_chunks_with_m_padded() -> None:
    from xsplit.targets.table import target

    cpu = target("cpu")
    module = parse_module(matmul(123, 456, 51234))
    run_passes(module, build_pipeline("split-k{target=cpu}"))
    text = print_module(module)
    assert cpu.split_align is not None and cpu.split_pad_m is not None
    _check_shapes(text, 51234, cpu.split_align, cpu.split_pad_m, 123)
    assert "tensor<128x51234xf32>" in text


def _tiled_case(seed: int) -> tuple[str, int, int, int, int, str]:
    rng = random.Random(7100 + seed)
    m, n, k = rng.choice([1, 2, rng.randint(3, 140)]), rng.randint(16, 90), rng.randint(200, 2500)
    dtype = rng.choice(["f32", "f32", "f32", "f16"])
    return f"{dtype}-{m}x{n}x{k}", m, n, k, rng.randint(3, 9), dtype


GENERATED_TILED = [_tiled_case(s) for s in range(8)]
TILED_CASES = GENERATED_TILED + [
    # Rows that stream B in strips: N a multiple of every register tile.
    ("f32-12x192x1500", 12, 192, 1500, 4, "f32"),
    ("f32-6x320x2100", 6, 320, 2100, 5, "f32"),
    # N that no register tile divides: a piece the tiles divide and the rest.
    ("f32-8x200x1500", 8, 200, 1500, 4, "f32"),
    ("f32-3x300x2000", 3, 300, 2000, 4, "f32"),
    ("f32-150x100x900", 150, 100, 900, 3, "f32"),
    # A decode whose N holds register tiles in odd number: one per workgroup.
    ("f32-2x384x1500", 2, 384, 1500, 4, "f32"),
]


def _tiled_compiled() -> set[str]:
    """The hand-picked cases, and one generated case per element type and
    class of rows (the branches of the configuration), are compiled and
    run; the other generated cases are checked on their IR."""
    from xsplit.targets.table import MATVEC_MAX_M, PARTIAL_TILE_MAX_M, STREAMING_MAX_M

    first: dict[tuple[str, int], str] = {}
    for case_id, m, _, _, _, dtype in GENERATED_TILED:
        padded_m = m if m <= 8 or m % 8 == 0 else -(-m // 8) * 8
        rows = sum(padded_m > limit for limit in (MATVEC_MAX_M, STREAMING_MAX_M, PARTIAL_TILE_MAX_M))
        first.setdefault((dtype, rows), case_id)
    return set(first.values()) | {c[0] for c in TILED_CASES[len(GENERATED_TILED) :]}


TILED_COMPILED = _tiled_compiled()


@pytest.mark.parametrize("case_id,m,n,k,factor,dtype", TILED_CASES, ids=[c[0] for c in TILED_CASES])
def test_cpu_tiles_configure_the_chunk_matmul_and_keep_its_result(
    case_id: str, m: int, n: int, k: int, factor: int, dtype: str
) -> None:
    """With cpu_tiles, the chunk's matmul carries IREE CPU tiles exactly
    where the target table gives some (f32, B row-major), in pieces of N
    that its tiles divide: N whole, or, where the register tile does not
    divide N, the largest multiple of it and the rest. Up to 4 rows a
    workgroup streams every row over one or two register tiles of N; up to
    16 rows, where the piece is a multiple of the register tile, it streams
    strips of N that the register tile divides; otherwise, 5 to 128 rows
    (after padding), a workgroup takes every row and one register tile of
    columns; taller chunks take 64 rows by up to four register tiles.
    Configured or not, the program computes the matmul."""
    from xsplit.targets.cpu_info import host_cpu
    from xsplit.targets.table import (
        MATVEC_MAX_M,
        PARTIAL_TILE_MAX_M,
        STREAMING_MAX_M,
        cpu_partial_column_block,
    )

    mlir = matmul(m, n, k, dtype)
    module = parse_module(mlir)
    run_passes(module, build_pipeline(f"split-k{{factor={factor} align=16 pad_m=8 cpu_tiles=true}}"))
    split = print_module(module)
    if isinstance(aligned_chunks(k, factor, 16), str):
        pytest.skip("K holds fewer than two aligned chunks: the plain forall applies")
    padded_m = m if m <= 8 or m % 8 == 0 else -(-m // 8) * 8
    lanes = max(4, host_cpu().simd_bits // 32)
    partials = re.findall(
        r"%partial(?:_\d+)? = linalg\.generic .* outs\(%partial_init\w* : tensor<(\d+)x(\d+)x\w+>\)(.*)", split
    )
    pieces = [int(cols) for _, cols, _ in partials]
    configs = {
        int(cols): (int(a), int(b))
        for _, cols, rest in partials
        if (tiles := re.search(r"distribution = \[(\d+), (\d+), 0\]", rest))
        for a, b in [tiles.groups()]
    }
    registers = 32 if host_cpu().simd_bits >= 512 else 16
    columns = 2 * lanes if registers == 32 else lanes
    if dtype != "f32":
        assert pieces == [n] and configs == {}, split
    block = cpu_partial_column_block(host_cpu(), padded_m, n, _F32)
    if dtype == "f32" and block and n % block and n >= 2 * block:
        assert pieces == [n // block * block, n % block], split
    else:
        assert pieces == [n], split
    for piece in pieces if dtype == "f32" else []:
        config = configs.get(piece)
        if padded_m <= MATVEC_MAX_M:
            # Streaming keeps whole register tiles: one or two that divide the
            # piece, or IREE's own tiles stay.
            assert config is None or (
                config[0] == padded_m and config[1] % lanes == 0 and piece % config[1] == 0
            ), split
        elif padded_m <= STREAMING_MAX_M and piece % (registers // 8 * lanes) == 0:
            # 5 to 16 rows stream B in strips that the register tile divides.
            width = registers // 8 * lanes
            assert config is not None and config[0] == padded_m, split
            assert config[1] % width == 0 and piece % config[1] == 0, split
        elif padded_m <= PARTIAL_TILE_MAX_M:
            assert config == ((padded_m, columns) if piece >= columns else None), split
        elif piece >= columns:
            # Taller chunks take 64 rows by up to four register tiles that
            # divide the piece.
            assert config is not None and config[0] == 64, split
            assert config[1] in (columns, 2 * columns, 4 * columns) or piece % columns, split
            assert piece % config[1] == 0 or piece % columns, split
        else:
            assert config is None, split
    if case_id not in TILED_COMPILED:
        return
    module = parse_module(split)
    run_passes(module, build_pipeline("materialize-late"))
    inputs = random_inputs(entry_function(parse_module(mlir)), [])
    (got,) = run_on_cpu(compile_mlir(print_module(module), "cpu"), "main", inputs)
    want = _mm(*inputs)
    rtol = 1e-2 if dtype == "f16" else 1e-4
    assert float(np.abs(got - want).max()) <= rtol * max(1.0, float(np.abs(want).max()))


@pytest.mark.parametrize("m,n,k", [(12, 70, 1500), (40, 100, 2100)])
def test_transposed_b_in_column_pieces_matches_numpy(m: int, n: int, k: int) -> None:
    """B transposed (N x K, a linear layer's weights) with an N that its
    16-column tile does not divide: split in two pieces of N, each with its
    own chunks and merge, joined by a concat; the result is the matmul's."""
    maps = (
        "[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, "
        "affine_map<(d0, d1, d2) -> (d0, d1)>]"
    )
    mlir = f"""func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{n}x{k}xf32>, %c: tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %0 = linalg.matmul indexing_maps = {maps} ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{n}x{k}xf32>) outs(%c : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %0 : tensor<{m}x{n}xf32>
}}"""
    module = parse_module(mlir)
    run_passes(module, build_pipeline("split-k{factor=4 align=16 pad_m=8 cpu_tiles=true},materialize-late"))
    text = print_module(module)
    split = parse_module(mlir)
    run_passes(split, build_pipeline("split-k{factor=4 align=16 pad_m=8 cpu_tiles=true}"))
    assert "tensor.concat dim(1)" in print_module(split)
    inputs = random_inputs(entry_function(parse_module(mlir)), [])
    (got,) = run_on_cpu(compile_mlir(text, "cpu"), "main", inputs)
    a, b, c = inputs
    want = a.astype(np.float64) @ b.T.astype(np.float64) + c
    assert float(np.abs(got - want).max()) <= 1e-4 * max(1.0, float(np.abs(want).max()))


def test_aligned_chunks_round_down_where_rounding_up_leaves_one() -> None:
    """2 chunks of K = 30011 rounded up to 16 are 15008 and a tail of 15003,
    one full chunk: rounded down they are two of 14992 and a tail of 27."""
    chunks = aligned_chunks(30011, 2, 16)
    assert not isinstance(chunks, str)
    assert (chunks.chunk, chunks.full, chunks.tail, chunks.padded_tail) == (14992, 2, 27, 32)
    up = aligned_chunks(30011, 3, 16)  # rounding up leaves two: kept
    assert not isinstance(up, str) and up.chunk == 10016 and up.full == 2
    assert isinstance(aligned_chunks(24, 4, 16), str)  # fewer than two chunks either way


def test_aligned_chunks_copy_only_the_tails_rows_past_the_alignment() -> None:
    """4 chunks of K = 50021: three of 12512 and a tail of 12485, of which
    12480 are read in place and 5 padded to 16; generated over K, counts and
    alignments, the pieces cover K and the copied rows are under one alignment."""
    chunks = aligned_chunks(50021, 4, 16)
    assert not isinstance(chunks, str)
    assert (chunks.chunk, chunks.full, chunks.tail) == (12512, 3, 12485)
    assert (chunks.tail_in_place, chunks.tail_rest, chunks.padded_tail) == (12480, 5, 12496)
    rng = random.Random(13115)
    for _ in range(2000):
        k, count, align = rng.randint(2, 600_000), rng.randint(2, 300), rng.choice([4, 8, 16, 32])
        chunks = aligned_chunks(k, count, align)
        if isinstance(chunks, str):
            continue
        assert chunks.full * chunks.chunk + chunks.tail_in_place + chunks.tail_rest == k
        assert chunks.tail_in_place % align == 0 and 0 <= chunks.tail_rest < align
        assert chunks.tail < chunks.chunk
