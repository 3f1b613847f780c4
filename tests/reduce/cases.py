"""Reduction programs for lower-reduce and fuse-reduction, written per shape:
the program the passes take (a `rock.reduce` or `linalg.reduce`, alone or fed
by a GEMM) and a reference IREE compiles (rock.reduce spelled as
`linalg.reduce` between a collapse and an expand of the init), plus numpy's
answer."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

COMBINE = {"sum": "arith.addf", "max": "arith.maximumf"}


def ty(shape) -> str:
    return f"tensor<{'x'.join(map(str, shape))}xf32>"


def _keep(shape, axis):
    return [1 if d == axis else s for d, s in enumerate(shape)]


def _drop(shape, axis):
    return [s for d, s in enumerate(shape) if d != axis]


def _groups(rank: int, axis: int) -> str:
    """The reassociation that folds the unit `axis` dimension into a neighbour."""
    groups: list[list[int]] = []
    for d in range(rank):
        if d == axis + 1 and axis == 0:
            groups[-1].append(d)
        elif d == axis and axis > 0:
            groups[-1].append(d)
        else:
            groups.append([d])
    return "[" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups) + "]"


def _linalg_reduce(value: str, vtype, init: str, axis: int, method: str, name: str) -> str:
    return (
        f"  %{name} = linalg.reduce ins({value} : {ty(vtype)}) outs({init} : {ty(_drop(vtype, axis))}) "
        f"dimensions = [{axis}]\n"
        f"    (%p: f32, %q: f32) {{\n      %s = {COMBINE[method]} %p, %q : f32\n"
        f"      linalg.yield %s : f32\n    }}\n"
    )


@dataclass
class Case:
    name: str
    method: str
    axis: int
    rock: bool
    """rock.reduce (keep-dim init) or linalg.reduce (dropped init)."""
    shape: list[int]
    """The reduced tensor's shape."""
    gemm: tuple[int, int, int] | None = None
    """(M, K, N) of a matmul producing the reduced tensor, or None."""
    gemm_returned: bool = False

    @property
    def out_shape(self):
        return _keep(self.shape, self.axis) if self.rock else _drop(self.shape, self.axis)

    def params(self) -> list[tuple[str, list[int]]]:
        if self.gemm is None:
            return [("x", self.shape), ("o", self.out_shape)]
        m, k, n = self.gemm
        ps = [("a", [m, k]), ("b", [k, n])]
        if self.gemm_returned:
            ps.append(("c", [m, n]))
        return [*ps, ("o", self.out_shape)]

    def _head(self) -> str:
        args = ", ".join(f"%{n}: {ty(s)}" for n, s in self.params())
        results = ([ty(self.shape)] if self.gemm_returned else []) + [ty(self.out_shape)]
        return f"func.func @{self.name}({args}) -> ({', '.join(results)}) {{\n"

    def _producer(self) -> str:
        if self.gemm is None:
            return ""
        m, k, n = self.gemm
        if self.gemm_returned:
            init = "%c"
            pre = ""
        else:
            pre = (
                "  %zero = arith.constant 0.000000e+00 : f32\n"
                f"  %e = tensor.empty() : {ty([m, n])}\n"
                f"  %c = linalg.fill ins(%zero : f32) outs(%e : {ty([m, n])}) -> {ty([m, n])}\n"
            )
            init = "%c"
        return pre + (
            f"  %x = linalg.matmul ins(%a, %b : {ty([m, k])}, {ty([k, n])}) "
            f"outs({init} : {ty([m, n])}) -> {ty([m, n])}\n"
        )

    def _ret(self, value: str) -> str:
        vals = (["%x"] if self.gemm_returned else []) + [value]
        types = ([ty(self.shape)] if self.gemm_returned else []) + [ty(self.out_shape)]
        return f"  return {', '.join(vals)} : {', '.join(types)}\n}}\n"

    def program(self) -> str:
        body = self._producer()
        if self.rock:
            body += (
                f"  %r = rock.reduce {self.method} %x into %o {{axis = {self.axis} : index}} : "
                f"{ty(self.shape)} into {ty(self.out_shape)} -> {ty(self.out_shape)}\n"
            )
        else:
            body += _linalg_reduce("%x", self.shape, "%o", self.axis, self.method, "r")
        return self._head() + body + self._ret("%r")

    def reference(self) -> str:
        body = self._producer()
        if not self.rock:
            return self.program()
        groups = _groups(len(self.shape), self.axis)
        dropped = _drop(self.shape, self.axis)
        body += f"  %oc = tensor.collapse_shape %o {groups} : {ty(self.out_shape)} into {ty(dropped)}\n"
        body += _linalg_reduce("%x", self.shape, "%oc", self.axis, self.method, "rr")
        body += (
            f"  %r = tensor.expand_shape %rr {groups} output_shape [{', '.join(map(str, self.out_shape))}] "
            f": {ty(dropped)} into {ty(self.out_shape)}\n"
        )
        return self._head() + body + self._ret("%r")

    def inputs(self, seed: int = 0) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        return [rng.uniform(-1, 1, s).astype(np.float32) for _, s in self.params()]

    def expected(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        """numpy's results, in the function's result order."""
        named = dict(zip([n for n, _ in self.params()], inputs))
        if self.gemm is None:
            x = named["x"].astype(np.float64)
        else:
            c = named.get("c", np.zeros((self.gemm[0], self.gemm[2])))
            x = c.astype(np.float64) + named["a"].astype(np.float64) @ named["b"].astype(np.float64)
        o = named["o"].astype(np.float64)
        if self.method == "sum":
            r = x.sum(axis=self.axis, keepdims=self.rock)
            red = o + r
        else:
            red = np.maximum(o, x.max(axis=self.axis, keepdims=self.rock))
        return ([x] if self.gemm_returned else []) + [red]


def standalone(method: str, rock: bool = True, shape=(5, 300, 3), axis: int = 1) -> Case:
    return Case(f"red_{method}", method, axis, rock, list(shape))


def fused(method: str, axis: int = 1, returned: bool = True, mkn=(13, 24, 70), rock: bool = True) -> Case:
    m, k, n = mkn
    return Case(f"mm_{method}", method, axis, rock, [m, n], (m, k, n), returned)


@dataclass
class GemmCase:
    """A GEMM (a matmul, or a batch matmul when `batch`) whose C is reduced
    along its rows (over N), its columns (over M) or its batch, written the
    way fuse-reduction takes it: C's init is an argument that is also
    returned (`returned`), or a constant fill."""

    method: str
    along: str
    """'rows' (out[m]), 'columns' (out[n]) or 'batch'."""
    m: int
    n: int
    k: int
    batch: int = 0
    returned: bool = False
    fill: float = 0.0
    rock: bool = False
    element: str = "f32"
    """A and B's element type (`f16`: into f32, on tensor cores where there are some)."""

    @property
    def name(self) -> str:
        return f"gemm_{self.method}_{self.along}"

    @property
    def c_shape(self) -> list[int]:
        return ([self.batch] if self.batch else []) + [self.m, self.n]

    @property
    def axis(self) -> int:
        lead = 1 if self.batch else 0
        return {"rows": lead + 1, "columns": lead, "batch": 0}[self.along]

    @property
    def out_shape(self) -> list[int]:
        return _keep(self.c_shape, self.axis) if self.rock else _drop(self.c_shape, self.axis)

    def params(self) -> list[tuple[str, list[int]]]:
        lead = [self.batch] if self.batch else []
        ps = [("a", lead + [self.m, self.k]), ("b", lead + [self.k, self.n])]
        if self.returned:
            ps.append(("c", self.c_shape))
        return [*ps, ("o", self.out_shape)]

    def program(self) -> str:
        c = ty(self.c_shape)
        results = ([c] if self.returned else []) + [ty(self.out_shape)]
        args = ", ".join(
            f"%{n}: {ty(s).replace('xf32>', f'x{self.element}>') if n in 'ab' else ty(s)}"
            for n, s in self.params()
        )
        text = f"func.func @{self.name}({args}) -> ({', '.join(results)}) {{\n"
        if not self.returned:
            text += (
                f"  %fill = arith.constant {self.fill:e} : f32\n"
                f"  %e = tensor.empty() : {c}\n"
                f"  %c = linalg.fill ins(%fill : f32) outs(%e : {c}) -> {c}\n"
            )
        (_, sa), (_, sb) = self.params()[:2]
        op = "linalg.batch_matmul" if self.batch else "linalg.matmul"
        ta, tb = (ty(s).replace("xf32>", f"x{self.element}>") for s in (sa, sb))
        text += f"  %x = {op} ins(%a, %b : {ta}, {tb}) outs(%c : {c}) -> {c}\n"
        if self.rock:
            text += (
                f"  %r = rock.reduce {self.method} %x into %o {{axis = {self.axis} : index}} : "
                f"{c} into {ty(self.out_shape)} -> {ty(self.out_shape)}\n"
            )
        else:
            text += _linalg_reduce("%x", self.c_shape, "%o", self.axis, self.method, "r")
        values = (["%x"] if self.returned else []) + ["%r"]
        return text + f"  return {', '.join(values)} : {', '.join(results)}\n}}\n"

    def reference(self) -> str:
        """The program as IREE compiles it: rock.reduce spelled as a
        linalg.reduce between a collapse and an expand of the init."""
        if not self.rock:
            return self.program()
        rank, c = len(self.c_shape), self.c_shape
        groups = _groups(rank, self.axis)
        dropped, kept = ty(_drop(c, self.axis)), ty(self.out_shape)
        reduce = (
            f"  %oc = tensor.collapse_shape %o {groups} : {kept} into {dropped}\n"
            + _linalg_reduce("%x", c, "%oc", self.axis, self.method, "rr")
            + f"  %r = tensor.expand_shape %rr {groups} output_shape "
            f"[{', '.join(map(str, self.out_shape))}] : {dropped} into {kept}\n"
        )
        lines = self.program().splitlines(keepends=True)
        return "".join(reduce if "rock.reduce" in line else line for line in lines)

    def inputs(self, seed: int = 0) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        half = np.float16 if self.element == "f16" else np.float32
        return [
            rng.uniform(-1, 1, s).astype(half if n in ("a", "b") else np.float32)
            for n, s in self.params()
        ]

    def expected(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        """numpy's results, in the function's result order."""
        named = dict(zip([n for n, _ in self.params()], inputs))
        c = named["c"] if self.returned else np.full(self.c_shape, self.fill)
        x = c.astype(np.float64) + named["a"].astype(np.float64) @ named["b"].astype(np.float64)
        o = named["o"].astype(np.float64)
        if self.method == "sum":
            red = o + x.sum(axis=self.axis, keepdims=self.rock)
        else:
            red = np.maximum(o, x.max(axis=self.axis, keepdims=self.rock))
        return ([x] if self.returned else []) + [red]

    def final_arguments(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        """Each argument's contents after the lowered kernel: what the
        function returns lands in the argument it updates."""
        out = [x.copy() for x in inputs]
        results = self.expected(inputs)
        if self.returned:
            out[2] = results[0].astype(np.float32)
        out[-1] = results[-1].astype(np.float32)
        return out
