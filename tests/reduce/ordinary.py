"""GEMM + reduction programs written the way users write them: `tensor.empty`
+ `linalg.fill` inits, results returned and used further, `linalg.reduce` or a
reduction `linalg.generic` (keepdims maps as IREE imports ONNX's), in
`func.func` or `util.func`, f32 or f16 operands accumulated in f32. Each
program comes with numpy's answer."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

COMBINE = {"sum": "arith.addf", "max": "arith.maximumf"}
IDENTITY = {"sum": "0.000000e+00", "max": "0xFF800000"}


def ty(shape, element: str = "f32") -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


@dataclass(frozen=True)
class UserProgram:
    name: str
    method: str
    """sum or max."""
    axis: int
    """The GEMM output's axis reduced: 1 sums each row, 0 each column."""
    m: int
    k: int
    n: int
    form: str = "reduce"
    """`reduce` (linalg.reduce), `generic` or `keepdims` (a reduction linalg.generic)."""
    host: str = "func"
    """`func` or `util`."""
    init: str = "identity"
    """`identity`: a fill with the combiner's identity; `value`: a fill with
    0.5; `arg`: the init is an argument."""
    element: str = "f32"
    then: bool = False
    """Whether the result is used further (scaled by 2) before it is returned."""
    fused: bool = True
    """Whether a GEMM produces the reduced tensor (else the tensor is an argument)."""

    @property
    def out_shape(self) -> list[int]:
        kept = [self.m, self.n]
        if self.form == "keepdims":
            kept[self.axis] = 1
            return kept
        return [s for d, s in enumerate(kept) if d != self.axis]

    def _args(self) -> list[tuple[str, list[int], str]]:
        if self.fused:
            args = [("a", [self.m, self.k], self.element), ("b", [self.k, self.n], self.element)]
        else:
            args = [("x", [self.m, self.n], "f32")]
        if self.init == "arg":
            args.append(("init", self.out_shape, "f32"))
        return args

    def program(self) -> str:
        mn, out = [self.m, self.n], self.out_shape
        fn, ret = ("util.func public", "util.return") if self.host == "util" else ("func.func", "return")
        args = ", ".join(f"%{n}: {ty(s, e)}" for n, s, e in self._args())
        lines = [f"{fn} @{self.name}({args}) -> {ty(out)} {{"]
        lines.append("  %zero = arith.constant 0.000000e+00 : f32")
        src = "%x"
        if self.fused:
            lines += [
                f"  %ce = tensor.empty() : {ty(mn)}",
                f"  %c = linalg.fill ins(%zero : f32) outs(%ce : {ty(mn)}) -> {ty(mn)}",
                f"  %mm = linalg.matmul ins(%a, %b : {ty([self.m, self.k], self.element)}, "
                f"{ty([self.k, self.n], self.element)}) outs(%c : {ty(mn)}) -> {ty(mn)}",
            ]
            src = "%mm"
        if self.init == "arg":
            init = "%init"
        else:
            value = IDENTITY[self.method] if self.init == "identity" else "5.000000e-01"
            lines += [
                f"  %iv = arith.constant {value} : f32",
                f"  %re = tensor.empty() : {ty(out)}",
                f"  %rf = linalg.fill ins(%iv : f32) outs(%re : {ty(out)}) -> {ty(out)}",
            ]
            init = "%rf"
        if self.form == "reduce":
            lines += [
                f"  %r = linalg.reduce ins({src} : {ty(mn)}) outs({init} : {ty(out)}) dimensions = [{self.axis}]",
                "    (%p: f32, %q: f32) {",
                f"      %s = {COMBINE[self.method]} %p, %q : f32",
                "      linalg.yield %s : f32",
                "    }",
            ]
        else:
            dims = ["d0", "d1"]
            if self.form == "keepdims":
                dims[self.axis] = "0"
            else:
                del dims[self.axis]
            kinds = ['"parallel"', '"parallel"']
            kinds[self.axis] = '"reduction"'
            lines += [
                "  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
                f"affine_map<(d0, d1) -> ({', '.join(dims)})>], iterator_types = [{', '.join(kinds)}]}}",
                f"      ins({src} : {ty(mn)}) outs({init} : {ty(out)}) {{",
                "    ^bb0(%p: f32, %q: f32):",
                f"      %s = {COMBINE[self.method]} %p, %q : f32",
                "      linalg.yield %s : f32",
                f"  }} -> {ty(out)}",
            ]
        result = "%r"
        if self.then:
            lines.append(f"  %twice = arith.addf %r, %r : {ty(out)}")
            result = "%twice"
        lines.append(f"  {ret} {result} : {ty(out)}")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def inputs(self, seed: int) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        dtype = np.float16 if self.element == "f16" else np.float32
        return [
            rng.uniform(-1.0, 1.0, size=shape).astype(dtype if e == "f16" else np.float32)
            for _, shape, e in self._args()
        ]

    def expected(self, inputs: list[np.ndarray]) -> np.ndarray:
        if self.fused:
            c = inputs[0].astype(np.float64) @ inputs[1].astype(np.float64)
        else:
            c = inputs[0].astype(np.float64)
        reduce = np.sum if self.method == "sum" else np.max
        r = reduce(c, axis=self.axis, keepdims=self.form == "keepdims")
        if self.init == "arg":
            init = inputs[-1].astype(np.float64)
        elif self.init == "value":
            init = np.full(r.shape, 0.5)
        else:
            init = np.zeros(r.shape) if self.method == "sum" else np.full(r.shape, -np.inf)
        r = r + init if self.method == "sum" else np.maximum(r, init)
        if self.then:
            r = r + r
        return r.astype(np.float32)


def generated(count: int, seed: int, element: str = "f32") -> list[UserProgram]:
    """Programs over every axis of the choice space, shapes not multiples of
    any tile, reproducible from the seed."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        out.append(
            UserProgram(
                name=f"user{i}",
                method=rng.choice(["sum", "max"]),
                axis=rng.choice([0, 1]),
                m=rng.randint(3, 70),
                k=rng.randint(5, 90),
                n=rng.randint(3, 70),
                form=rng.choice(["reduce", "generic", "keepdims"]),
                host=rng.choice(["func", "util"]),
                init=rng.choice(["identity", "value", "arg"]),
                element=element,
                then=rng.random() < 0.5,
                fused=element == "f16" or rng.random() < 0.8,
            )
        )
    return out
