"""`xsplit check`: does a pipeline keep a program's numerics? The original and
the rewritten module are compiled for the CPU and run on the same seeded random
inputs; each result's error is held against a dtype-aware tolerance. The
pieces (entry function, random inputs, tolerance) serve `xsplit-e2e` and
`xsplit bench` too."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BFloat16Type,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnregisteredOp,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr

from xsplit.api import build_pipeline, parse_module, print_module, run_passes
from xsplit.diagnostics import XsplitError, remark
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.iree_compile import compile_mlir
from xsplit.semantics import numpy_dtype as exact_dtype
from xsplit.target.gpu_tiles import carries_gpu_tiles, drop_gpu_tiles


def argument_dtype(element: Attribute) -> np.dtype:
    """The numpy type of an argument's elements. The runtime takes no bf16
    arrays, so a bf16 argument is refused rather than fed as f32."""
    if isinstance(element, BFloat16Type):
        raise XsplitError("bf16 arguments cannot be fed from numpy; take f32 and truncate")
    try:
        return exact_dtype(element)
    except NotImplementedError:
        raise XsplitError(f"no numpy type for {element} arguments") from None


def entry_function(
    module: ModuleOp, name: str | None = None, filename: str | None = None
) -> func.FuncOp:
    functions = [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]
    for f in functions:
        if name is None or f.sym_name.data == name:
            return f
    _no_entry(name, [f.sym_name.data for f in functions], filename)


def _no_entry(name: str | None, have: Sequence[str], filename: str | None) -> NoReturn:
    if name is None:
        message = "no function with a body to run"
    else:
        listed = ", ".join(f"@{n}" for n in have) or "none"
        message = f"no function @{name} with a body to run (--function); functions: {listed}"
    if filename is None:
        raise XsplitError(message)
    raise XsplitError.at(filename, message)


@dataclass(frozen=True, eq=False)
class AbiFunction:
    """A public `util.func` that IREE's runtime calls by name, as
    `iree-compile --compile-to=input` leaves a model's entry point: its
    arguments are `!hal.buffer_view`s, each holding the tensor that the
    `hal.tensor.import` it reaches (through the `$async` variant's `util.call`)
    reads. xsplit carries `util` and `hal` without modelling them, so they are
    read by name."""

    name: str
    op: Operation
    inputs: tuple[TensorType, ...]


def _op_name(op: Operation) -> str:
    return op.op_name.data if isinstance(op, UnregisteredOp) else op.name


def _abi_inputs(fn: Operation, functions: dict[str, Operation]) -> tuple[TensorType, ...] | None:
    """The tensors `fn`'s arguments hold, or None if one is not a tensor the
    runtime can be given (a fence, a device)."""
    inputs: list[TensorType] = []
    for arg in fn.regions[0].blocks[0].args:
        found = arg.type if isinstance(arg.type, TensorType) else _imported(arg, functions, set())
        if found is None:
            return None
        inputs.append(found)
    return tuple(inputs)


def _imported(arg: SSAValue, functions: dict[str, Operation], seen: set[str]) -> TensorType | None:
    for use in arg.uses:
        user = use.operation
        kind = _op_name(user)
        if kind == "hal.tensor.import" and use.index == 0:
            result = user.results[0].type
            return result if isinstance(result, TensorType) else None
        callee = user.properties.get("callee") if kind == "util.call" else None
        if not isinstance(callee, SymbolRefAttr) or callee.string_value() in seen:
            continue
        seen.add(callee.string_value())
        target = functions.get(callee.string_value())
        if target is None or not target.regions or not target.regions[0].blocks:
            continue
        args = target.regions[0].blocks[0].args
        found = _imported(args[use.index], functions, seen) if use.index < len(args) else None
        if found is not None:
            return found
    return None


def _symbol(op: Operation) -> str:
    sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return sym.data if isinstance(sym, StringAttr) else ""


def _public_util_funcs(module: ModuleOp) -> tuple[list[Operation], dict[str, Operation]]:
    funcs = [op for op in module.ops if _op_name(op) == "util.func"]
    public = [
        op
        for op in funcs
        if getattr(op.properties.get("sym_visibility"), "data", "public") == "public"
        and op.regions
        and op.regions[0].blocks
    ]
    return public, {_symbol(op): op for op in funcs}


def entry_point(
    module: ModuleOp, name: str | None = None, filename: str | None = None
) -> func.FuncOp | AbiFunction:
    """The function `xsplit check` runs: `name`, or else the first that can be
    called with tensors, a `func.func` or a HAL-ABI `util.func`."""
    public, by_name = _public_util_funcs(module)
    functions = [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]
    if not public:
        return entry_function(module, name, filename)
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op in functions:
            if name is None or op.sym_name.data == name:
                return op
        elif op in public and (name is None or _symbol(op) == name):
            inputs = _abi_inputs(op, by_name)
            if inputs is not None:
                return AbiFunction(_symbol(op), op, inputs)
            if name is not None:
                raise XsplitError(
                    f"@{name} takes arguments that are not tensors the runtime can be given "
                    "(fences, devices); call the function that takes only buffer views",
                    op,
                )
    _no_entry(name, [f.sym_name.data for f in functions] + [_symbol(op) for op in public], filename)


def entry_name(f: func.FuncOp | AbiFunction) -> str:
    return f.name if isinstance(f, AbiFunction) else f.sym_name.data


def _dimension_classes(f: func.FuncOp) -> dict[tuple[SSAValue, int], tuple[SSAValue, int]]:
    """Which tensor dimensions in `f` must be equal: those that a linalg op
    indexes with the same loop. Returns a union-find parent map."""
    parent: dict[tuple[SSAValue, int], tuple[SSAValue, int]] = {}

    def find(x: tuple[SSAValue, int]) -> tuple[SSAValue, int]:
        parent.setdefault(x, x)
        while parent[x] != x:
            x = parent[x]
        return x

    def union(a: tuple[SSAValue, int], b: tuple[SSAValue, int]) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra

    for op in f.walk():
        get_maps = getattr(op, "get_indexing_maps", None)
        if get_maps is None:
            continue
        try:
            maps = [m.data for m in get_maps().data]
        except Exception:
            continue
        values = [*op.operands][: len(maps)]
        if len(values) != len(maps):
            continue
        by_loop: dict[int, tuple[SSAValue, int]] = {}
        for value, m in zip(values, maps):
            if not isinstance(value.type, TensorType):
                continue
            for dim, expr in enumerate(m.results):
                if isinstance(expr, AffineDimExpr):
                    if expr.position in by_loop:
                        union(by_loop[expr.position], (value, dim))
                    else:
                        by_loop[expr.position] = (value, dim)
        # The result is the init's value, with the init's shape.
        for result, init in zip(op.results, values[len(values) - len(op.results) :]):
            if isinstance(result.type, TensorType):
                for dim in range(result.type.get_num_dims()):
                    union((init, dim), (result, dim))
    return {x: find(x) for x in parent}


def _argument_name(f: func.FuncOp, index: int) -> str:
    arg = f.body.block.args[index]
    return f"%{arg.name_hint}" if arg.name_hint else f"argument {index}"


def argument_shapes(f: func.FuncOp, dims: Sequence[int]) -> list[list[int]]:
    """The arguments' shapes, dynamic sizes taken from `dims` in order.

    Refuses sizes that cannot be right: `dims` for a program with no dynamic
    size, too few or too many of them, and two different sizes for
    dimensions that the program indexes with the same loop (or a size that
    differs from the static size such a dimension has elsewhere)."""
    name = f"@{f.sym_name.data}"
    types = list(f.function_type.inputs.data)
    for t in types:
        if not isinstance(t, TensorType):
            raise XsplitError(f"{name} takes {t}; only tensors can be fed", f)
    dynamic = [
        (i, d) for i, t in enumerate(types) for d, size in enumerate(t.get_shape())
        if size == DYNAMIC_INDEX
    ]
    if not dynamic and dims:
        raise XsplitError(f"{name} has no dynamic dimensions; --dim does not apply to it", f)
    if len(dims) != len(dynamic):
        raise XsplitError(
            f"{name} has {len(dynamic)} dynamic "
            f"{'dimension' if len(dynamic) == 1 else 'dimensions'}, but --dim gave "
            f"{len(dims)} {'size' if len(dims) == 1 else 'sizes'}",
            f,
        )
    shapes = [list(t.get_shape()) for t in types]
    given: dict[tuple[int, int], int] = {}
    for (i, d), size in zip(dynamic, dims):
        if size < 0:
            raise XsplitError(f"--dim {size}: a size cannot be negative", f)
        shapes[i][d] = size
        given[(i, d)] = size
    classes = _dimension_classes(f)
    args = f.body.block.args
    root_of = {(i, d): classes.get((args[i], d)) for i in range(len(types)) for d in range(len(shapes[i]))}
    seen: dict[object, tuple[int, int]] = {}
    for i in range(len(types)):
        for d in range(len(shapes[i])):
            root = root_of[(i, d)]
            if root is None:
                continue
            if root in seen:
                j, e = seen[root]
                if shapes[i][d] != shapes[j][e]:
                    first = f"dimension {e} of {_argument_name(f, j)}"
                    second = f"dimension {d} of {_argument_name(f, i)}"
                    how = lambda key: "given" if key in given else "static"  # noqa: E731
                    static = [shapes[j][e]] if (j, e) not in given else (
                        [shapes[i][d]] if (i, d) not in given else []
                    )
                    fix = f"give --dim {static[0]}" if static else "give the same --dim for both"
                    raise XsplitError(
                        f"{first} ({how((j, e))} {shapes[j][e]}) and {second} "
                        f"({how((i, d))} {shapes[i][d]}) must be equal: {name} indexes "
                        f"them with the same loop; {fix}",
                        f,
                    )
            else:
                seen[root] = (i, d)
    return shapes


def random_inputs(
    f: func.FuncOp | AbiFunction, dims: Sequence[int], seed: int = 0
) -> list[np.ndarray]:
    """Seeded random arguments: floats in [-1, 1), small signed integers.
    Dynamic dimensions take the values of `dims`, in order of appearance."""
    rng = np.random.default_rng(seed)
    inputs: list[np.ndarray] = []
    if isinstance(f, AbiFunction):
        types, shapes, op = list(f.inputs), _abi_shapes(f, dims), f.op
    else:
        types, shapes, op = list(f.function_type.inputs.data), argument_shapes(f, dims), f
    for t, shape in zip(types, shapes):
        try:
            dtype = argument_dtype(t.element_type)  # type: ignore[attr-defined]
        except XsplitError as e:
            raise XsplitError(f"@{entry_name(f)}: {e.message}", op) from None
        if dtype.kind == "f":
            inputs.append(rng.uniform(-1, 1, shape).astype(dtype))
        else:
            inputs.append(rng.integers(-8, 8, shape).astype(dtype))
    return inputs


def _abi_shapes(f: AbiFunction, dims: Sequence[int]) -> list[list[int]]:
    """The imported tensors' shapes, dynamic sizes taken from `dims` in order."""
    dynamic = sum(size == DYNAMIC_INDEX for t in f.inputs for size in t.get_shape())
    if len(dims) != dynamic:
        raise XsplitError(
            f"@{f.name} has {dynamic} dynamic "
            f"{'dimension' if dynamic == 1 else 'dimensions'}, but --dim gave "
            f"{len(dims)} {'size' if len(dims) == 1 else 'sizes'}",
            f.op,
        )
    pending = iter(dims)
    return [
        [next(pending) if size == DYNAMIC_INDEX else size for size in t.get_shape()]
        for t in f.inputs
    ]


RELATIVE_TOLERANCE = {"float64": 1e-10, "float32": 2e-4, "float16": 2e-2}
"""Allowed error relative to the largest result, per result dtype. Splitting
re-associates the sum: for f32 and K = 51234 the two orders differ by about
4e-5 of the largest result."""


def tolerance(
    result: np.ndarray, reference: np.ndarray, magnitude: np.ndarray | None = None
) -> float:
    """The largest error a re-association of the reduction may cause: a
    share of the largest result (`RELATIVE_TOLERANCE`), or, where the terms
    cancel, one rounding unit of the largest sum of their magnitudes
    (`magnitude`: the program run on the inputs' absolute values, which for
    a sum of products is the sum of |terms|). A 4,000,037-long f32 dot of
    inputs in [-1, 1) came to 73 either way, 0.023 apart, where 2e-4 of 73
    allows 0.015 and one unit of its 1.0e6 in magnitudes 0.12. A chunk
    dropped or counted twice moves a result by that chunk's sum, far more."""
    if result.dtype.kind in "iub":
        return 0.0
    scale = float(np.max(np.abs(reference))) if reference.size else 0.0
    allowed = RELATIVE_TOLERANCE[result.dtype.name] * max(1.0, scale)
    if magnitude is not None and magnitude.size and result.dtype.kind == "f":
        finite = np.abs(magnitude[np.isfinite(magnitude)].astype(np.float64))
        if finite.size:
            allowed = max(allowed, float(np.finfo(result.dtype).eps) * float(finite.max()))
    return allowed


def magnitude_inputs(inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The inputs' absolute values (floats; integers as they are), on which
    a program's results measure the magnitudes `tolerance` scales with."""
    return [np.abs(a) if a.dtype.kind == "f" else a for a in inputs]


@dataclass(frozen=True)
class ResultCheck:
    index: int
    shape: tuple[int, ...]
    dtype: str
    max_abs_error: float
    max_rel_error: float
    """The largest error over the largest |reference| (normwise, so that
    results near zero do not blow it up)."""
    tolerance: float

    @property
    def passed(self) -> bool:
        return self.max_abs_error <= self.tolerance

    def describe(self) -> str:
        shape = "x".join(map(str, self.shape)) or "scalar"
        verdict = "PASS" if self.passed else "FAIL"
        return (
            f"result {self.index} ({shape} {self.dtype}): max abs error {self.max_abs_error:.3g}, "
            f"max rel error {self.max_rel_error:.3g}, tolerance {self.tolerance:.3g}: {verdict}"
        )


def compare(
    actual: np.ndarray, expected: np.ndarray, index: int, magnitude: np.ndarray | None = None
) -> ResultCheck:
    diff = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
    max_abs = float(diff.max()) if diff.size else 0.0
    scale = float(np.max(np.abs(expected.astype(np.float64)))) if expected.size else 0.0
    max_rel = max_abs / scale if scale > 0 else max_abs
    return ResultCheck(
        index,
        tuple(expected.shape),
        expected.dtype.name,
        max_abs,
        max_rel,
        tolerance(actual, expected, magnitude),
    )


IREE_READY_PIPELINE = "materialize-late"
"""What turns split-k's graph-level output into the form iree-compile takes."""


def _needs_materializing(module: ModuleOp) -> Operation | None:
    """The first op iree-compile 3.13 cannot take as it is: a graph-level
    scf.forall (a crash) or one of xsplit's own ops (unknown to it)."""
    for op in module.walk():
        if op.name.split(".")[0] in ("linalg_ext", "rock"):
            return op
        if op.name == "scf.forall" and not _inside_dispatch(op):
            return op
    return None


def _inside_dispatch(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if parent.name.startswith("flow.dispatch."):
            return True
        parent = parent.parent_op()
    return False


def complete_for_iree(module: ModuleOp, tool: str) -> bool:
    """Runs materialize-late when a pipeline left what iree-compile cannot take,
    and says so in a remark; returns whether it did."""
    op = _needs_materializing(module)
    if op is None:
        return False
    what = "a graph-level scf.forall" if op.name == "scf.forall" else f"xsplit's {op.name}"
    remark(
        op,
        f"{tool}: the pipeline leaves {what}, which iree-compile 3.13 cannot compile; "
        f"{tool} adds {IREE_READY_PIPELINE} (add it to the pipeline yourself to silence this)",
    )
    run_passes(module, build_pipeline(IREE_READY_PIPELINE))
    return True


def check_rewrite(
    source: str,
    pipeline: str,
    dims: Sequence[int] = (),
    function: str | None = None,
    seed: int = 0,
    name: str = "<string>",
    tool: str = "xsplit check",
    complete: bool = True,
) -> tuple[str, list[ResultCheck]]:
    """Runs `source` and its rewrite by `pipeline` on the CPU and compares each
    result; returns the rewritten IR too. A pipeline that leaves a graph-level
    loop is completed with materialize-late (see `complete_for_iree`) unless
    `complete` is False. The entry is a `func.func` or, in what
    `iree-compile --compile-to=input` prints, a HAL-ABI `util.func`."""
    passes = build_pipeline(pipeline)
    original = parse_module(source, name)
    f = entry_point(original, function, name)
    inputs = random_inputs(f, dims, seed)
    rewritten = parse_module(source, name)
    run_passes(rewritten, passes)
    if complete:
        complete_for_iree(rewritten, tool)
    rewritten_text = print_module(rewritten)
    # GPU tiles (split-k{target=sm_80}) name a pipeline the CPU cannot build:
    # the CPU runs the same program with IREE's own tiles.
    cpu_text = rewritten_text
    if carries_gpu_tiles(rewritten):
        drop_gpu_tiles(rewritten)
        cpu_text = print_module(rewritten)
    fn = entry_name(f)
    original_vmfb = compile_mlir(source, "cpu", phase=f"compiling {name} as it is")
    expected = run_on_cpu(original_vmfb, fn, inputs, f"running {name} as it is")
    try:
        magnitudes: list[np.ndarray | None] = list(
            run_on_cpu(original_vmfb, fn, magnitude_inputs(inputs), f"running {name} on |inputs|")
        )
    except XsplitError:  # a program may refuse inputs it was not written for
        magnitudes = [None] * len(expected)
    actual = run_on_cpu(
        compile_mlir(cpu_text, "cpu", phase=f"compiling {name} rewritten by '{pipeline}'"),
        fn,
        inputs,
        f"running {name} rewritten by '{pipeline}'",
    )
    checks = [
        compare(a, e, i, m)
        for i, (a, e, m) in enumerate(zip(actual, expected, magnitudes, strict=True))
    ]
    return rewritten_text, checks
