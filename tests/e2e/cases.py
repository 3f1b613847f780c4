"""End-to-end cases: small MLIR programs with a reduction, their numpy meaning,
and the split-k options to try on them."""

from __future__ import annotations

import hashlib
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
    # The seed's product in float64 takes seconds, and a dozen tests of its
    # splits ask for it on the same inputs: a large one is kept by its inputs.
    key = None
    if a.size * b.shape[-1] > 10**8:
        key = _digest(a, b, c)
        if key in _PRODUCTS:
            return _PRODUCTS[key].copy()
    acc = np.int64 if a.dtype.kind == "i" else np.float64
    r = a.astype(acc) @ b.astype(acc)
    r = r if c is None else r + c.astype(acc)
    if key is not None:
        _PRODUCTS[key] = r.copy()
    return r


_PRODUCTS: dict[str, np.ndarray] = {}


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for x in arrays:
        if x is not None:
            x = np.ascontiguousarray(x)
            h.update(f"{x.dtype.str}{x.shape}".encode())
            h.update(x.tobytes())
        else:
            h.update(b"none")
    return h.hexdigest()


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


SAME_FORM_AS: dict[str, str] = {
    case: "seed-123x456x51234-f77"
    for case in (
        "seed-123x456x51234-f77-balanced",
        "matmul-f32-prime-k-1009-f8",
        "matmul-f32-k1000-f7-nondividing",
        "matmul-f32-k1000-f7-expand-fallback",
        "matmul-f32-k999-tile100",
    )
}
"""Cases whose split program has the seed's form with other numbers (balanced
chunks, a prime or non-dividing K, the expand fallback, a tile): compiled for
the GPUs once, as the seed; the others are checked to keep that form."""


# Ops split-k must understand (issue 9): convolutions, arg-reductions, named
# contractions with indexing maps, and the data-tiled and batch-reducing
# contractions. Shapes keep each loop distinct so that a wrong map shows.


def _attr_dict(strides: tuple[int, int] | None, dilations: tuple[int, int] | None) -> str:
    attrs = []
    if dilations is not None:
        attrs.append(f"dilations = dense<[{dilations[0]}, {dilations[1]}]> : tensor<2xi64>")
    if strides is not None:
        attrs.append(f"strides = dense<[{strides[0]}, {strides[1]}]> : tensor<2xi64>")
    return f" {{{', '.join(attrs)}}}" if attrs else ""


def _window(size: int, out: int, stride: int, dilation: int) -> int:
    """The input extent a conv with this output, window, stride and dilation reads."""
    return (out - 1) * stride + (size - 1) * dilation + 1


def conv(
    layout: str,
    n: int,
    c: int,
    f: int,
    out_hw: tuple[int, int],
    k_hw: tuple[int, int],
    strides: tuple[int, int] | None = None,
    dilations: tuple[int, int] | None = None,
    dtype: str = "f32",
) -> str:
    """A named conv; `layout` is nhwc_hwcf, nchw_fchw or depthwise (nhwc_hwc,
    where f is ignored and the output has c channels)."""
    s, d = strides or (1, 1), dilations or (1, 1)
    oh, ow = out_hw
    kh, kw = k_hw
    h, w = _window(kh, oh, s[0], d[0]), _window(kw, ow, s[1], d[1])
    acc = ACC[dtype]
    if layout == "nhwc_hwcf":
        name = "conv_2d_nhwc_hwcf"
        i, k, o = [n, h, w, c], [kh, kw, c, f], [n, oh, ow, f]
    elif layout == "nchw_fchw":
        name = "conv_2d_nchw_fchw"
        i, k, o = [n, c, h, w], [f, c, kh, kw], [n, f, oh, ow]
    else:
        name = "depthwise_conv_2d_nhwc_hwc"
        i, k, o = [n, h, w, c], [kh, kw, c], [n, oh, ow, c]
    ti, tk, to = tensor(i, dtype), tensor(k, dtype), tensor(o, acc)
    return f"""
func.func @main(%i: {ti}, %k: {tk}, %o: {to}) -> {to} {{
  %0 = linalg.{name}{_attr_dict(strides, dilations)} ins(%i, %k : {ti}, {tk}) outs(%o : {to}) -> {to}
  return %0 : {to}
}}"""


def conv_reference(
    layout: str, strides: tuple[int, int] | None = None, dilations: tuple[int, int] | None = None
) -> Callable[..., np.ndarray]:
    s, d = strides or (1, 1), dilations or (1, 1)

    def run(i: np.ndarray, k: np.ndarray, o: np.ndarray) -> np.ndarray:
        i64, k64 = i.astype(np.float64), k.astype(np.float64)
        out = o.astype(np.float64)
        if layout == "nchw_fchw":
            oh, ow = o.shape[2], o.shape[3]
            kh_n, kw_n = k.shape[2], k.shape[3]
        else:
            oh, ow = o.shape[1], o.shape[2]
            kh_n, kw_n = k.shape[0], k.shape[1]
        for y in range(kh_n):
            for x in range(kw_n):
                rows = slice(y * d[0], y * d[0] + (oh - 1) * s[0] + 1, s[0])
                cols = slice(x * d[1], x * d[1] + (ow - 1) * s[1] + 1, s[1])
                if layout == "nhwc_hwcf":
                    out += np.einsum("nhwc,cf->nhwf", i64[:, rows, cols, :], k64[y, x])
                elif layout == "nchw_fchw":
                    out += np.einsum("nchw,fc->nfhw", i64[:, :, rows, cols], k64[:, :, y, x])
                else:
                    out += i64[:, rows, cols, :] * k64[y, x]
        return out

    return run


def argmax(
    m: int,
    k: int,
    dtype: str = "f32",
    index: str = "i32",
    predicate: str = "ogt",
    value_form: str = "max",
    quantize: bool = True,
    fresh_init: bool = True,
) -> str:
    """An arg-reduction over rows, in the form IREE's split-reduction tests
    use: `v = max(x, v)`, `i = select(cmpf ogt x v, index, i)`. Float inputs
    are quantized in the program (floor(4x), eight values) so that rows have
    many ties; i8 inputs (-8..7) have them anyway."""
    x = tensor([m, k], dtype)
    v, ix = tensor([m], dtype), tensor([m], index)
    floating = dtype.startswith("f")
    cmp = "arith.cmpf" if floating else "arith.cmpi"
    biggest = predicate[1:] in ("gt", "ge")
    if value_form == "select":
        value = "%val = arith.select %c, %in, %out : " + dtype
    elif floating:
        value = f"%val = arith.{'maximumf' if biggest else 'minimumf'} %in, %out : {dtype}"
    else:
        value = f"%val = arith.{'maxsi' if biggest else 'minsi'} %in, %out : {dtype}"
    idx = "%idx = linalg.index 1 : index"
    cast = f"%ic = arith.index_cast %idx : index to {index}"
    ident = "affine_map<(d0, d1) -> (d0, d1)>"
    quant = ""
    if floating and quantize:
        # The candidate is floor(4x), computed in the body: the arg-reduction
        # compares a value made from its inputs, not only an input itself.
        quant = f"""
    %four = arith.constant 4.0 : {dtype}
    %scaled = arith.mulf %x_in, %four : {dtype}
    %in = math.floor %scaled : {dtype}"""
    in_name = "%x_in" if quant else "%in"
    if fresh_init:
        worst = ("0xFF800000" if biggest else "0x7F800000") if floating else ("-128" if biggest else "127")
        args = f"%x: {x}"
        inits = f"""
  %worst = arith.constant {worst} : {dtype}
  %zero = arith.constant 0 : {index}
  %ve = tensor.empty() : {v}
  %vi = linalg.fill ins(%worst : {dtype}) outs(%ve : {v}) -> {v}
  %ie = tensor.empty() : {ix}
  %ii = linalg.fill ins(%zero : {index}) outs(%ie : {ix}) -> {ix}"""
    else:
        args = f"%x: {x}, %vi: {v}, %ii: {ix}"
        inits = ""
    return f"""
func.func @main({args}) -> ({v}, {ix}) {{{inits}
  %0:2 = linalg.generic {{indexing_maps = [{ident}, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}} ins(%x : {x}) outs(%vi, %ii : {v}, {ix}) {{
  ^bb0({in_name}: {dtype}, %out: {dtype}, %out_i: {index}):{quant}
    {idx}
    {cast}
    %c = {cmp} {predicate}, %in, %out : {dtype}
    {value}
    %sel = arith.select %c, %ic, %out_i : {index}
    linalg.yield %val, %sel : {dtype}, {index}
  }} -> ({v}, {ix})
  return %0#0, %0#1 : {v}, {ix}
}}"""


def argmax_reference(
    dtype: str = "f32",
    predicate: str = "ogt",
    quantize: bool = True,
    fresh_init: bool = True,
) -> Callable[..., tuple[np.ndarray, np.ndarray]]:
    """The unsplit loop's answer, computed with numpy: first (strict) or last
    (non-strict) position of the best value, unless the init is better."""
    biggest = predicate[1:] in ("gt", "ge")
    strict = predicate[1:] in ("gt", "lt")

    def run(x: np.ndarray, vi: np.ndarray | None = None, ii: np.ndarray | None = None):
        xs = np.floor(x * 4).astype(x.dtype) if quantize and x.dtype.kind == "f" else x
        if vi is None:
            worst = -np.inf if biggest else np.inf
            if xs.dtype.kind == "i":
                worst = -128 if biggest else 127
            vi = np.full(xs.shape[0], worst, dtype=xs.dtype)
            ii = np.zeros(xs.shape[0], dtype=np.int32)
        assert ii is not None
        best = xs.max(1) if biggest else xs.min(1)
        hits = xs == best[:, None]
        pos = hits.argmax(1) if strict else xs.shape[1] - 1 - hits[:, ::-1].argmax(1)
        better = best > vi if biggest else best < vi
        if not strict:
            better = better | (best == vi)
        value = np.where(better, best, vi).astype(xs.dtype)
        index = np.where(better, pos, ii).astype(ii.dtype)
        return value, index

    return run


def named_matmul(
    op: str,
    maps: list[str] | None,
    a_shape: list[int],
    b_shape: list[int],
    c_shape: list[int],
    dtype: str = "f32",
) -> str:
    """A named contraction (`linalg.matmul`, `batch_matmul`, `contract`,
    `batch_reduce_matmul`, `mmt4d`, `batch_mmt4d`) with optional maps."""
    a, b, c = tensor(a_shape, dtype), tensor(b_shape, dtype), tensor(c_shape, ACC[dtype])
    spelled = f" indexing_maps = [{', '.join(maps)}]" if maps else ""
    return f"""
func.func @main(%a: {a}, %b: {b}, %c: {c}) -> {c} {{
  %0 = linalg.{op}{spelled} ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}
  return %0 : {c}
}}"""


def einsum_reference(spec: str) -> Callable[..., np.ndarray]:
    def run(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
        wide = np.int64 if a.dtype.kind == "i" else np.float64
        return np.einsum(spec, a.astype(wide), b.astype(wide)) + c.astype(wide)

    return run


def util_func_matmul(m: int, n: int, k: int) -> str:
    """A matmul inside IREE's `util.func`, as `iree-compile --compile-to=input` prints."""
    a, b, c = tensor([m, k], "f32"), tensor([k, n], "f32"), tensor([m, n], "f32")
    return f"""
util.func public @main(%a: {a}, %b: {b}, %c: {c}) -> {c} {{
  %0 = linalg.matmul ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}
  util.return %0 : {c}
}}"""


_MAP3 = "affine_map<(d0, d1, d2) -> ({})>"
_MAP4 = "affine_map<(d0, d1, d2, d3) -> ({})>"


# IREE 3.13 cannot compile some of these unsplit for gfx942 ("'...' op write
# affecting operations on shared resources are restricted to lane or thread
# distributed contexts", on a conv_2d_nhwc_hwcf's map_load and on a transposed
# matmul's fill); split, they compile.
OP_CASES: list[Case] = [
    Case(
        "conv-nhwc-hwcf-c256-f4",
        conv("nhwc_hwcf", 1, 256, 16, (12, 12), (3, 3)),
        conv_reference("nhwc_hwcf"),
        "factor=4",
        unsplit_fails_on=("gfx942",),
    ),
    Case(
        "conv-nhwc-hwcf-strided-dilated-c130-f3",
        conv("nhwc_hwcf", 2, 130, 8, (7, 9), (3, 3), strides=(2, 2), dilations=(2, 1)),
        conv_reference("nhwc_hwcf", strides=(2, 2), dilations=(2, 1)),
        "factor=3",
        unsplit_fails_on=("gfx942",),
    ),
    Case(
        "conv-nchw-fchw-f16-c100-f5",
        conv("nchw_fchw", 2, 100, 8, (10, 10), (3, 3), dtype="f16"),
        conv_reference("nchw_fchw"),
        "factor=5",
    ),
    Case(
        "conv-nchw-fchw-strides-1x2-c96-tile40",
        conv("nchw_fchw", 1, 96, 4, (8, 6), (3, 2), strides=(1, 2), dilations=(1, 1)),
        conv_reference("nchw_fchw", strides=(1, 2)),
        "tile=40",
    ),
    Case(
        "depthwise-9x9-c8-f3",
        conv("depthwise", 1, 8, 0, (24, 24), (9, 9)),
        conv_reference("depthwise"),
        "factor=3",
    ),
    Case(
        "depthwise-7x5-strided-dilated-f3",
        conv("depthwise", 2, 4, 0, (15, 19), (7, 5), strides=(2, 2), dilations=(2, 1)),
        conv_reference("depthwise", strides=(2, 2), dilations=(2, 1)),
        "factor=3",
    ),
    Case(
        "conv-nhwc-hwcf-c512-expand-f4",
        conv("nhwc_hwcf", 1, 512, 8, (6, 6), (3, 3)),
        conv_reference("nhwc_hwcf"),
        "factor=4 strategy=expand",
        unsplit_fails_on=("gfx942",),
    ),
    Case(
        "argmax-f32-ties-k1000-f7",
        argmax(16, 1000),
        argmax_reference(),
        "factor=7",
    ),
    Case(
        "argmax-f32-ties-given-init-k997-f6-balanced",
        argmax(16, 997, fresh_init=False),
        argmax_reference(fresh_init=False),
        "factor=6 balanced=true",
    ),
    Case(
        "argmax-i8-ties-index-i64-k3001-f10",
        argmax(8, 3001, "i8", "i64", "sgt"),
        argmax_reference("i8", "sgt"),
        "factor=10",
    ),
    Case(
        "argmin-select-f32-ties-k1000-tile128",
        argmax(16, 1000, predicate="olt", value_form="select"),
        argmax_reference(predicate="olt"),
        "tile=128",
    ),
    Case(
        "argmax-last-on-ties-oge-f32-k1000-f4",
        argmax(16, 1000, predicate="oge"),
        argmax_reference(predicate="oge"),
        "factor=4",
    ),
    Case(
        "matmul-maps-transposed-a-b-k1013-f6",
        named_matmul(
            "matmul",
            [_MAP3.format("d2, d0"), _MAP3.format("d1, d2"), _MAP3.format("d0, d1")],
            [1013, 24],
            [40, 1013],
            [24, 40],
        ),
        einsum_reference("km,nk->mn"),
        "factor=6",
        unsplit_fails_on=("gfx942",),
    ),
    Case(
        "matmul-maps-transposed-b-i8-k1000-f8",
        named_matmul(
            "matmul",
            [_MAP3.format("d0, d2"), _MAP3.format("d1, d2"), _MAP3.format("d0, d1")],
            [24, 1000],
            [40, 1000],
            [24, 40],
            "i8",
        ),
        einsum_reference("mk,nk->mn"),
        "factor=8",
    ),
    Case(
        "batch-matmul-maps-transposed-b-k997-f5",
        named_matmul(
            "batch_matmul",
            [_MAP4.format("d0, d1, d3"), _MAP4.format("d0, d2, d3"), _MAP4.format("d0, d1, d2")],
            [3, 16, 997],
            [3, 24, 997],
            [3, 16, 24],
        ),
        einsum_reference("bmk,bnk->bmn"),
        "factor=5",
    ),
    Case(
        "batch-matmul-maps-broadcast-a-k1000-f4",
        named_matmul(
            "batch_matmul",
            [_MAP4.format("d1, d3"), _MAP4.format("d0, d3, d2"), _MAP4.format("d0, d1, d2")],
            [16, 1000],
            [3, 1000, 24],
            [3, 16, 24],
        ),
        einsum_reference("mk,bkn->bmn"),
        "factor=4",
    ),
    Case(
        "contract-transposed-a-f16-k1000-f4",
        named_matmul(
            "contract",
            [_MAP3.format("d2, d0"), _MAP3.format("d2, d1"), _MAP3.format("d0, d1")],
            [1000, 16],
            [1000, 32],
            [16, 32],
            "f16",
        ),
        einsum_reference("km,kn->mn"),
        "factor=4",
    ),
    Case(
        "contract-two-reductions-k300x7-f3",
        named_matmul(
            "contract",
            [
                _MAP4.format("d0, d2, d3"),
                _MAP4.format("d2, d3, d1"),
                _MAP4.format("d0, d1"),
            ],
            [16, 300, 7],
            [300, 7, 24],
            [16, 24],
        ),
        einsum_reference("mkj,kjn->mn"),
        "factor=3",
    ),
    Case(
        "batch-reduce-matmul-b4-k600-f3",
        named_matmul("batch_reduce_matmul", None, [4, 16, 600], [4, 600, 24], [16, 24]),
        einsum_reference("bmk,bkn->mn"),
        "factor=3",
    ),
    Case(
        "mmt4d-k200-f8",
        named_matmul("mmt4d", None, [4, 200, 8, 4], [3, 200, 8, 4], [4, 3, 8, 8]),
        einsum_reference("mkxz,nkyz->mnxy"),
        "factor=8",
    ),
    Case(
        "batch-mmt4d-i8-k101-f4",
        named_matmul("batch_mmt4d", None, [2, 3, 101, 8, 4], [2, 2, 101, 8, 4], [2, 3, 2, 8, 8], "i8"),
        einsum_reference("bmkxz,bnkyz->bmnxy"),
        "factor=4",
    ),
]
