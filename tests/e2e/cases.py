"""End-to-end cases: small MLIR programs with a reduction, their numpy meaning,
and the split-k options to try on them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

MLIR_TYPE = {"f32": "f32", "f16": "f16", "i8": "i8"}
ACC = {"f32": "f32", "f16": "f32", "bf16": "f32", "i8": "i32"}


@dataclass
class Case:
    id: str
    mlir: str
    reference: Callable[..., np.ndarray]
    options: str
    dims: list[int] = field(default_factory=list)
    splits: bool = True
    """Whether the pipeline is expected to split the reduction."""
    unsplit_fails_on: tuple[str, ...] = ()
    """GPU targets on which iree-compile 3.13 rejects the unsplit program."""

    @property
    def spreads_on_cpu(self) -> bool:
        """Whether the split dispatch must have more CPU workgroups. The expand
        strategy leaves tiling to IREE, which may keep the same count."""
        return self.static and self.splits and "expand" not in self.options

    @property
    def pipeline(self) -> str:
        return (
            f"split-k{{{self.options}}},materialize-late"
            if self.options
            else "split-k,materialize-late"
        )

    @property
    def static(self) -> bool:
        return not self.dims


def tensor(shape: list[int | None], dtype: str) -> str:
    dims = "x".join("?" if d is None else str(d) for d in shape)
    return f"tensor<{dims}x{dtype}>"


def matmul(m: int, n: int, k: int | None, dtype: str = "f32", with_init: bool = True) -> str:
    a, b, c = tensor([m, k], dtype), tensor([k, n], dtype), tensor([m, n], ACC[dtype])
    if with_init:
        return f"""
func.func @main(%a: {a}, %b: {b}, %c: {c}) -> {c} {{
  %0 = linalg.matmul ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}
  return %0 : {c}
}}"""
    zero = "0" if ACC[dtype].startswith("i") else "0.0"
    return f"""
func.func @main(%a: {a}, %b: {b}) -> {c} {{
  %zero = arith.constant {zero} : {ACC[dtype]}
  %e = tensor.empty() : {c}
  %f = linalg.fill ins(%zero : {ACC[dtype]}) outs(%e : {c}) -> {c}
  %0 = linalg.matmul ins(%a, %b : {a}, {b}) outs(%f : {c}) -> {c}
  return %0 : {c}
}}"""


def matmul_bf16(m: int, n: int, k: int) -> str:
    """bf16 operands made inside the program, since numpy has no bf16."""
    a32, b32, c = tensor([m, k], "f32"), tensor([k, n], "f32"), tensor([m, n], "f32")
    a16, b16 = tensor([m, k], "bf16"), tensor([k, n], "bf16")
    ident = "affine_map<(d0, d1) -> (d0, d1)>"

    def trunc(name: str, src: str, dst: str) -> str:
        return f"""
  %{name}e = tensor.empty() : {dst}
  %{name}16 = linalg.generic {{indexing_maps = [{ident}, {ident}], iterator_types = ["parallel", "parallel"]}} ins(%{name} : {src}) outs(%{name}e : {dst}) {{
  ^bb0(%x: f32, %y: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }} -> {dst}"""

    return f"""
func.func @main(%a: {a32}, %b: {b32}, %c: {c}) -> {c} {{{trunc("a", a32, a16)}{trunc("b", b32, b16)}
  %0 = linalg.matmul ins(%a16, %b16 : {a16}, {b16}) outs(%c : {c}) -> {c}
  return %0 : {c}
}}"""


def batch_matmul(bt: int, m: int, n: int, k: int) -> str:
    a, b, c = tensor([bt, m, k], "f32"), tensor([bt, k, n], "f32"), tensor([bt, m, n], "f32")
    return f"""
func.func @main(%a: {a}, %b: {b}, %c: {c}) -> {c} {{
  %0 = linalg.batch_matmul ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}
  return %0 : {c}
}}"""


def matvec(m: int, k: int, dtype: str = "f32") -> str:
    a, x, y = tensor([m, k], dtype), tensor([k], dtype), tensor([m], ACC[dtype])
    return f"""
func.func @main(%a: {a}, %x: {x}, %y: {y}) -> {y} {{
  %0 = linalg.matvec ins(%a, %x : {a}, {x}) outs(%y : {y}) -> {y}
  return %0 : {y}
}}"""


def vecmat(n: int, k: int) -> str:
    x, a, y = tensor([k], "f32"), tensor([k, n], "f32"), tensor([n], "f32")
    return f"""
func.func @main(%x: {x}, %a: {a}, %y: {y}) -> {y} {{
  %0 = linalg.vecmat ins(%x, %a : {x}, {a}) outs(%y : {y}) -> {y}
  return %0 : {y}
}}"""


def transposed_generic(m: int, n: int, k: int, dtype: str = "f32") -> str:
    """C[m, n] += A[k, m] * B[n, k]: a contraction with both operands transposed."""
    a, b, c = tensor([k, m], dtype), tensor([n, k], dtype), tensor([m, n], ACC[dtype])
    acc = ACC[dtype]
    if dtype == "i8":
        body = """  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32"""
    else:
        body = f"""  ^bb0(%x: {dtype}, %y: {dtype}, %acc: {acc}):
    %p = arith.mulf %x, %y : {dtype}
    %s = arith.addf %acc, %p : {acc}
    linalg.yield %s : {acc}"""
    return f"""
func.func @main(%a: {a}, %b: {b}, %c: {c}) -> {c} {{
  %0 = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%a, %b : {a}, {b}) outs(%c : {c}) {{
{body}
  }} -> {c}
  return %0 : {c}
}}"""


def reduce_rows(m: int, k: int | None, combiner: str, dtype: str = "f32") -> str:
    a, c = tensor([m, k], dtype), tensor([m], dtype)
    return f"""
func.func @main(%a: {a}, %c: {c}) -> {c} {{
  %0 = linalg.reduce ins(%a : {a}) outs(%c : {c}) dimensions = [1]
    (%in: {dtype}, %init: {dtype}) {{
      %r = {combiner} %in, %init : {dtype}
      linalg.yield %r : {dtype}
    }}
  return %0 : {c}
}}"""


def matmul_relu_epilogue(m: int, n: int, k: int) -> str:
    a, b, c = tensor([m, k], "f32"), tensor([k, n], "f32"), tensor([m, n], "f32")
    ident = "affine_map<(d0, d1) -> (d0, d1)>"
    return f"""
func.func @main(%a: {a}, %b: {b}, %bias: {c}) -> {c} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {c}
  %f = linalg.fill ins(%zero : f32) outs(%e : {c}) -> {c}
  %mm = linalg.matmul ins(%a, %b : {a}, {b}) outs(%f : {c}) -> {c}
  %r = linalg.generic {{indexing_maps = [{ident}, {ident}, {ident}], iterator_types = ["parallel", "parallel"]}} ins(%mm, %bias : {c}, {c}) outs(%e : {c}) {{
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %zero : f32
    linalg.yield %z : f32
  }} -> {c}
  return %r : {c}
}}"""


def _mm(a, b, c=None):
    acc = np.int64 if a.dtype.kind == "i" else np.float64
    r = a.astype(acc) @ b.astype(acc)
    return r if c is None else r + c.astype(acc)


def _bf16(x):
    """Round-to-nearest-even truncation of f32 to bf16, back in f32."""
    bits = x.astype(np.float32).view(np.uint32)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.view(np.float32)


CASES: list[Case] = [
    # The seed's shape, 77 chunks of 666 with a last one of 618.
    Case("seed-123x456x51234-f77", matmul(123, 456, 51234), _mm, "factor=77"),
    Case(
        "seed-123x456x51234-f77-balanced", matmul(123, 456, 51234), _mm, "factor=77 balanced=true"
    ),
    Case("matmul-f32-prime-k-1009-f8", matmul(32, 48, 1009), _mm, "factor=8"),
    Case("matmul-f32-k1000-f7-nondividing", matmul(32, 48, 1000), _mm, "factor=7"),
    Case("matmul-f32-k1024-f4-expand", matmul(32, 48, 1024), _mm, "factor=4 strategy=expand"),
    Case(
        "matmul-f32-k1000-f7-expand-fallback", matmul(32, 48, 1000), _mm, "factor=7 strategy=expand"
    ),
    Case("matmul-f32-k999-tile100", matmul(32, 48, 999), _mm, "tile=100"),
    Case(
        "matmul-f32-fill-init-k2048-default",
        matmul(16, 24, 4096, with_init=False),
        lambda a, b: _mm(a, b),
        "",
    ),
    Case("matmul-f32-k13-factor-exceeds-k", matmul(8, 8, 13), _mm, "factor=20"),
    Case("matmul-f32-factor-1", matmul(8, 8, 512), _mm, "factor=1", splits=False),
    Case("matmul-f16-k1031-f5", matmul(16, 32, 1031, "f16"), _mm, "factor=5"),
    Case(
        "matmul-bf16-k1000-f6",
        matmul_bf16(16, 32, 1000),
        lambda a, b, c: _mm(_bf16(a), _bf16(b), c),
        "factor=6",
    ),
    Case("matmul-i8-k1021-f9", matmul(16, 32, 1021, "i8"), _mm, "factor=9"),
    Case("matmul-i8-k1024-f8-expand", matmul(16, 32, 1024, "i8"), _mm, "factor=8 strategy=expand"),
    Case("matmul-dynamic-k-tile128", matmul(16, 32, None), _mm, "tile=128", dims=[1000, 1000]),
    Case("matmul-dynamic-k-factor6", matmul(16, 32, None), _mm, "factor=6", dims=[997, 997]),
    Case(
        "matmul-dynamic-k-factor6-balanced",
        matmul(16, 32, None),
        _mm,
        "factor=6 balanced=true",
        dims=[997, 997],
    ),
    Case(
        "batch-matmul-k997-f5",
        batch_matmul(3, 16, 24, 997),
        lambda a, b, c: np.einsum("bmk,bkn->bmn", a.astype(np.float64), b.astype(np.float64)) + c,
        "factor=5",
    ),
    Case(
        "matvec-f32-k4099-f16",
        matvec(64, 4099),
        lambda a, x, y: a.astype(np.float64) @ x + y,
        "factor=16",
    ),
    Case(
        "matvec-i8-k3001-f10-balanced",
        matvec(64, 3001, "i8"),
        lambda a, x, y: a.astype(np.int64) @ x.astype(np.int64) + y,
        "factor=10 balanced=true",
    ),
    Case(
        "vecmat-f32-k2003-f4",
        vecmat(48, 2003),
        lambda x, a, y: x.astype(np.float64) @ a + y,
        "factor=4",
    ),
    # IREE 3.13 cannot compile these unsplit for gfx942 ("'linalg.fill' op write
    # affecting operations on shared resources..."); split, they compile.
    Case(
        "generic-transposed-f32-k1013-f6",
        transposed_generic(24, 40, 1013),
        lambda a, b, c: a.T.astype(np.float64) @ b.T + c,
        "factor=6",
        unsplit_fails_on=("gfx942",),
    ),
    Case(
        "generic-transposed-i8-k1000-f8",
        transposed_generic(24, 40, 1000, "i8"),
        lambda a, b, c: a.T.astype(np.int64) @ b.T.astype(np.int64) + c,
        "factor=8",
        unsplit_fails_on=("gfx942",),
    ),
    Case(
        "reduce-add-k5003-f7",
        reduce_rows(32, 5003, "arith.addf"),
        lambda a, c: a.astype(np.float64).sum(1) + c,
        "factor=7",
    ),
    Case(
        "reduce-max-k5003-f7",
        reduce_rows(32, 5003, "arith.maximumf"),
        lambda a, c: np.maximum(a.max(1), c),
        "factor=7",
    ),
    Case(
        "reduce-min-k4096-f4-expand",
        reduce_rows(32, 4096, "arith.minimumf"),
        lambda a, c: np.minimum(a.min(1), c),
        "factor=4 strategy=expand",
    ),
    Case(
        "reduce-add-dynamic-k-tile500",
        reduce_rows(32, None, "arith.addf"),
        lambda a, c: a.astype(np.float64).sum(1) + c,
        "tile=500",
        dims=[2222],
    ),
    Case(
        "matmul-relu-epilogue-k1500-f5",
        matmul_relu_epilogue(32, 48, 1500),
        lambda a, b, bias: np.maximum(_mm(a, b) + bias, 0),
        "factor=5",
    ),
]
