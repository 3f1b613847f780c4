"""The programs `xsplit bench` and the machine-code reader compile, built
with xDSL's builders (`xsplit/bench/programs.py`): each prints as xsplit
prints the MLIR it stands for."""

from __future__ import annotations

import pytest

from xsplit.api import parse_module, print_module
from xsplit.bench.programs import doubling_map, matmul, zero_init_matmul


def _printed(text: str) -> str:
    return print_module(parse_module(text))


@pytest.mark.parametrize("element", ["f16", "f32"])
def test_matmul_is_c_plus_a_times_b(element: str) -> None:
    a, b, c = f"tensor<5x7x{element}>", f"tensor<7x3x{element}>", "tensor<5x3xf32>"
    assert matmul(5, 3, 7, element) == _printed(
        f"func.func @mm(%a: {a}, %b: {b}, %c: {c}) -> {c} {{\n"
        f"  %x = linalg.matmul ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}\n"
        f"  return %x : {c}\n}}\n"
    )


def test_zero_init_matmul_fills_its_init_with_zero() -> None:
    t = "tensor<6x6xf32>"
    assert zero_init_matmul(6) == _printed(
        f"""func.func @main(%a: {t}, %b: {t}) -> {t} {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : {t}
  %f = linalg.fill ins(%z : f32) outs(%e : {t}) -> {t}
  %r = linalg.matmul ins(%a, %b : {t}, {t}) outs(%f : {t}) -> {t}
  return %r : {t}
}}"""
    )


def test_doubling_map_adds_each_element_to_itself() -> None:
    t = "tensor<9xf32>"
    assert doubling_map(9) == _printed(
        f"""func.func @main(%x: {t}) -> {t} {{
  %e = tensor.empty() : {t}
  %r = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} ins(%x : {t}) outs(%e : {t}) {{
  ^bb0(%v: f32, %o: f32):
    %w = arith.addf %v, %v : f32
    linalg.yield %w : f32
  }} -> {t}
  return %r : {t}
}}"""
    )
