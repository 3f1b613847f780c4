"""The reference evaluators of linalg_ext.split_grouped_gemm and rock.reduce,
checked against numpy written out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from xsplit.api import parse_module
from xsplit.dialects.rock import ReduceOp
from xsplit.dialects.xsplit_linalg_ext import SplitGroupedGemmOp
from xsplit.reference import evaluate_rock_reduce, evaluate_split_grouped_gemm

MM = (
    "indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, "
    "affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, "
    "#linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]"
)
MAC_F32 = """  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32"""


def grouped(groups: str, a: str, b: str, p: str, attrs: str = MM, body: str = MAC_F32):
    text = f"""
func.func @f(%a: {a}, %b: {b}, %p: {p}) -> {p} {{
  %0 = linalg_ext.split_grouped_gemm {{{groups}, {attrs}}} ins(%a, %b : {a}, {b}) outs(%p : {p}) {{
{body}
  }} -> {p}
  func.return %0 : {p}
}}"""
    return next(o for o in parse_module(text).walk() if isinstance(o, SplitGroupedGemmOp))


rng = np.random.default_rng(7)


def test_static_unbalanced_groups() -> None:
    op = grouped(
        "group_offsets = array<i64: 0, 4, 8, 9>",
        "tensor<3x9xf32>",
        "tensor<9x5xf32>",
        "tensor<3x3x5xf32>",
    )
    a, b = rng.standard_normal((3, 9)), rng.standard_normal((9, 5))
    a, b = a.astype(np.float32), b.astype(np.float32)
    init = rng.standard_normal((3, 3, 5)).astype(np.float32)
    got = evaluate_split_grouped_gemm(op, [a, b], init)
    for s, (lo, hi) in enumerate([(0, 4), (4, 8), (8, 9)]):
        np.testing.assert_allclose(got[s], init[s] + a[:, lo:hi] @ b[lo:hi], rtol=1e-5)
    # The groups add up to the whole contraction.
    np.testing.assert_allclose((got - init).sum(0), a @ b, rtol=1e-4)


@pytest.mark.parametrize(("balanced", "sizes"), [(True, [3, 4, 3, 4]), (False, [4, 4, 4, 2])])
def test_group_count_for_a_dynamic_k(balanced: bool, sizes: list[int]) -> None:
    groups = "group_count = 4 : i64" + (", balanced" if balanced else "")
    op = grouped(groups, "tensor<2x?xf32>", "tensor<?x3xf32>", "tensor<4x2x3xf32>")
    a = rng.standard_normal((2, 14)).astype(np.float32)
    b = rng.standard_normal((14, 3)).astype(np.float32)
    got = evaluate_split_grouped_gemm(op, [a, b], np.zeros((4, 2, 3), np.float32))
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    for s in range(4):
        lo, hi = offsets[s], offsets[s + 1]
        np.testing.assert_allclose(got[s], a[:, lo:hi] @ b[lo:hi], rtol=1e-5, atol=1e-6)


def test_transposed_i8_contraction_accumulates_in_i32() -> None:
    maps = (
        "indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, "
        "affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = [#linalg.iterator_type<parallel>, "
        "#linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]"
    )
    body = """  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %m = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %m : i32
    linalg.yield %s : i32"""
    op = grouped(
        "group_offsets = array<i64: 0, 100, 257>",
        "tensor<257x4xi8>",
        "tensor<6x257xi8>",
        "tensor<2x4x6xi32>",
        maps,
        body,
    )
    a = rng.integers(-128, 128, (257, 4)).astype(np.int8)
    b = rng.integers(-128, 128, (6, 257)).astype(np.int8)
    got = evaluate_split_grouped_gemm(op, [a, b], np.zeros((2, 4, 6), np.int32))
    wide_a, wide_b = a.astype(np.int64), b.astype(np.int64)
    np.testing.assert_array_equal(got[0], wide_a[:100].T @ wide_b[:, :100].T)
    np.testing.assert_array_equal(got[1], wide_a[100:].T @ wide_b[:, 100:].T)


def test_max_reduction_groups() -> None:
    text = """
func.func @f(%a: tensor<3x10xf32>, %p: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = linalg_ext.split_grouped_gemm {group_offsets = array<i64: 0, 6, 10>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>]} ins(%a : tensor<3x10xf32>) outs(%p : tensor<2x3xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %x, %acc : f32
    linalg.yield %m : f32
  } -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}"""
    op = next(o for o in parse_module(text).walk() if isinstance(o, SplitGroupedGemmOp))
    a = rng.standard_normal((3, 10)).astype(np.float32)
    init = np.full((2, 3), -np.inf, np.float32)
    got = evaluate_split_grouped_gemm(op, [a], init)
    np.testing.assert_array_equal(got, np.stack([a[:, :6].max(1), a[:, 6:].max(1)]))


@pytest.mark.parametrize("method", ["sum", "max"])
def test_rock_reduce_accumulates_into_its_init(method: str) -> None:
    text = f"""
func.func @f(%p: tensor<5x3x4xf32>, %c: tensor<1x3x4xf32>) -> tensor<1x3x4xf32> {{
  %0 = rock.reduce {method} %p into %c {{axis = 0 : index}} : tensor<5x3x4xf32> into tensor<1x3x4xf32> -> tensor<1x3x4xf32>
  func.return %0 : tensor<1x3x4xf32>
}}"""
    op = next(o for o in parse_module(text).walk() if isinstance(o, ReduceOp))
    p = rng.standard_normal((5, 3, 4)).astype(np.float32)
    c = rng.standard_normal((1, 3, 4)).astype(np.float32)
    got = evaluate_rock_reduce(op, p, c)
    want = (
        c + p.sum(0, keepdims=True) if method == "sum" else np.maximum(c, p.max(0, keepdims=True))
    )
    np.testing.assert_allclose(got, want, rtol=1e-6)
