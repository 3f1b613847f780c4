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
from xdsl.passes import ModulePass

from xsplit.api import build_pipeline, parse_module, print_module, run_passes
from xsplit.diagnostics import XsplitError, remark
# The numerics live in numerics.py (the replay shares them); named here too,
# where check's callers have always imported them from.
from xsplit.interop.numerics import (  # noqa: F401
    RELATIVE_TOLERANCE,
    InputRecipe,
    MatmulForm,
    ResultCheck,
    compare,
    magnitude_inputs,
    tolerance,
)
from xsplit.interop.saved import (
    Manifest,
    SavedModule,
    SavedProgram,
    store_module,
    write_manifest,
)
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.device import COMPILE_TARGET
from xsplit.iree.iree_compile import (
    compile_keeping,
    compile_mlir,
    compile_with_flags,
    portable_cpu_flags,
)
from xsplit.semantics import numpy_dtype as exact_dtype
from xsplit.targets.gpu_tiles import carries_gpu_tiles, drop_gpu_tiles
from xsplit.targets.table import target


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
    return input_recipe(f, dims, seed).make()


def input_recipe(f: func.FuncOp | AbiFunction, dims: Sequence[int], seed: int = 0) -> InputRecipe:
    """What `random_inputs` makes, without the data: shapes, dtypes, seed."""
    if isinstance(f, AbiFunction):
        types, shapes, op = list(f.inputs), _abi_shapes(f, dims), f.op
    else:
        types, shapes, op = list(f.function_type.inputs.data), argument_shapes(f, dims), f
    dtypes = []
    for t in types:
        try:
            dtypes.append(argument_dtype(t.element_type).name)  # type: ignore[attr-defined]
        except XsplitError as e:
            raise XsplitError(f"@{entry_name(f)}: {e.message}", op) from None
    return InputRecipe(tuple(tuple(s) for s in shapes), tuple(dtypes), seed)


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


def refuse_gpu_kernels(
    module: ModuleOp, name: str, pipeline: str, tool: str, device: str | None = None
) -> None:
    """A rewrite holding a custom dispatch of thread-level GPU code (xsplit's
    own GEMM kernel, which `split-k{kernel=own}` and `auto{target=sm_80}`
    may choose) cannot run on the CPU (no `device`, or `local-task`), nor a
    kernel of NVIDIA's intrinsics on AMD's GPU or the other way round: say
    so in one line, and where it can be checked, before iree-compile fails
    on it."""
    compile_target = None if device is None else COMPILE_TARGET[device]
    backend = None if compile_target is None else target(compile_target).backend
    foreign = {"cuda": ("amdgpu.", "gfx942"), "rocm": ("nvgpu.", "sm_80")}
    for op in module.walk():
        if isinstance(op, func.FuncOp) and op.parent_op() is module and any(
            inner.name.startswith("gpu.") for inner in op.walk()
        ):
            raise XsplitError(
                f"{tool}: {name} rewritten by '{pipeline}' holds a GPU kernel "
                f"(@{op.sym_name.data}, thread-level code) that is not a dispatch, which "
                "iree-compile cannot take: end the pipeline with export-dispatch{target=...} "
                "(auto{target=...} does)"
            )
        if op.name != "hal.executable.source" or not any(
            inner.name.startswith("gpu.") for inner in op.walk()
        ):
            continue
        kernel = op.properties["sym_name"].data  # type: ignore[union-attr]
        if backend in foreign:
            prefix, written_for = foreign[backend]
            if not any(inner.name.startswith(prefix) for inner in op.walk()):
                continue
            raise XsplitError(
                f"{tool}: {name} rewritten by '{pipeline}' holds a GPU kernel (@{kernel}, "
                f"xsplit's own GEMM kernel) written for {written_for} ({prefix.rstrip('.')} "
                f"ops), which --device {device} ({compile_target}) cannot run: give the pipeline "
                f"target={compile_target}"
            )
        on = "" if device is None else f" (--device {device} runs on the CPU)"
        raise XsplitError(
            f"{tool}: {name} rewritten by '{pipeline}' holds a GPU kernel (@{kernel}, "
            f"xsplit's own GEMM kernel), which the CPU cannot run{on}: run it with --device cuda, "
            "simulate split-k's output before export-dispatch with `xsplit simulate`, or give "
            "kernel=iree"
        )


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


def _rewritten(
    source: str, passes: Sequence[ModulePass], name: str, tool: str, complete: bool
) -> ModuleOp:
    """`source` rewritten by `passes`, completed for iree-compile unless
    `complete` is False: what a check runs on the CPU and what it saves for
    a device alike."""
    rewritten = parse_module(source, name)
    run_passes(rewritten, passes)
    if complete:
        complete_for_iree(rewritten, tool)
    return rewritten


_COUNTED_PHASE = "executable-targets"


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
    f = entry_point(parse_module(source, name), function, name)
    # Bad --dim values are refused before any pass runs (and remarks).
    inputs = random_inputs(f, dims, seed)
    rewritten = _rewritten(source, passes, name, tool, complete)
    refuse_gpu_kernels(rewritten, name, pipeline, tool)
    rewritten_text = print_module(rewritten)
    # GPU tiles (split-k{target=sm_80}) name a pipeline the CPU cannot build:
    # the CPU runs the same program with IREE's own tiles.
    cpu_text = rewritten_text
    if carries_gpu_tiles(rewritten):
        drop_gpu_tiles(rewritten)
        cpu_text = print_module(rewritten)
    fn = entry_name(f)
    # Both compiles keep their executable-targets IR: `xsplit e2e` reads the
    # CPU workgroup counts from it rather than compile each program again.
    original_vmfb = compile_keeping(
        source, "cpu", _COUNTED_PHASE, phase=f"compiling {name} as it is"
    )
    expected = run_on_cpu(original_vmfb, fn, inputs, f"running {name} as it is")
    try:
        magnitudes: list[np.ndarray | None] = list(
            run_on_cpu(original_vmfb, fn, magnitude_inputs(inputs), f"running {name} on |inputs|")
        )
    except XsplitError:  # a program may refuse inputs it was not written for
        magnitudes = [None] * len(expected)
    actual = run_on_cpu(
        compile_keeping(
            cpu_text, "cpu", _COUNTED_PHASE, phase=f"compiling {name} rewritten by '{pipeline}'"
        ),
        fn,
        inputs,
        f"running {name} rewritten by '{pipeline}'",
    )
    checks = [
        compare(a, e, i, m)
        for i, (a, e, m) in enumerate(zip(actual, expected, magnitudes, strict=True))
    ]
    return rewritten_text, checks


_MATMUL_MAPS = (
    "(d0, d1, d2) -> (d0, d2)",
    "(d0, d1, d2) -> (d2, d1)",
    "(d0, d1, d2) -> (d0, d1)",
)


def numpy_form(f: func.FuncOp | AbiFunction) -> MatmulForm | None:
    """The entry point as numpy's `A @ B (+ C)`, where that is all it does: one
    `linalg.matmul` with the plain maps of arguments A and B into argument C
    or a zero fill, returned as it is; None for anything else (whose
    reference is then the original program run on the CPU)."""
    if isinstance(f, AbiFunction):
        return None
    args = list(f.body.block.args)
    ops = list(f.body.block.ops)
    matmuls = [op for op in ops if op.name == "linalg.matmul"]
    if len(matmuls) != 1 or not isinstance(ops[-1], func.ReturnOp):
        return None
    (matmul,) = matmuls
    if len(ops[-1].operands) != 1 or ops[-1].operands[0] is not matmul.results[0]:
        return None
    maps = getattr(matmul, "get_indexing_maps", lambda: None)()
    if maps is None or tuple(str(m.data) for m in maps.data) != _MATMUL_MAPS:
        return None
    a, b, init = matmul.operands
    if a not in args or b not in args:
        return None
    c: int | None = None
    if init in args:
        c = args.index(init)
    elif not _zero_fill(init):
        return None
    others = {op.name for op in ops} - {
        "linalg.matmul", "func.return", "linalg.fill", "tensor.empty", "arith.constant"
    }
    if others:
        return None
    result = matmul.results[0].type
    if not isinstance(result, TensorType):
        return None
    try:
        dtype = exact_dtype(result.element_type).name
    except NotImplementedError:
        return None
    return MatmulForm(args.index(a), args.index(b), c, dtype)


def _zero_fill(value: SSAValue) -> bool:
    owner = value.owner
    if not isinstance(owner, Operation) or owner.name != "linalg.fill":
        return False
    scalar = owner.operands[0].owner
    if not isinstance(scalar, Operation) or scalar.name != "arith.constant":
        return False
    constant = scalar.properties.get("value") or scalar.attributes.get("value")
    return getattr(getattr(constant, "value", None), "data", None) in (0, 0.0)


def compiler_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"iree-base-compiler {version('iree-base-compiler')}"
    except PackageNotFoundError:
        return "iree-compile"


def saved_program(
    source: str,
    f: func.FuncOp | AbiFunction,
    recipe: InputRecipe,
    name: str,
    directory: str,
    modules: Sequence[SavedModule],
) -> SavedProgram:
    """A program's entry in a saved directory: its recipe, its reference
    (numpy's float64 form, else the original compiled for a portable CPU)."""
    form = numpy_form(f)
    cpu_reference = None
    if form is None:
        vmfb = compile_with_flags(
            source, "cpu", portable_cpu_flags(), f"compiling {name} as it is for the CPU reference"
        )
        cpu_reference = store_module(directory, vmfb)
    return SavedProgram(name, entry_name(f), recipe, list(modules), form, cpu_reference)


def save_check(
    source: str,
    pipeline: str,
    device: str,
    directory: str,
    dims: Sequence[int] = (),
    function: str | None = None,
    seed: int = 0,
    name: str = "<string>",
    tool: str = "xsplit check",
    complete: bool = True,
    kind: str = "check",
) -> tuple[str, Manifest]:
    """`check_rewrite` for a device, compiled only: the original and its
    rewrite compiled for `device` (`COMPILE_TARGET`), with the inputs' recipe
    and the reference, written to `directory` (see `xsplit.interop.saved`).
    Returns the rewritten IR and the manifest, which `saved.run_check` runs
    here or `python -m xsplit.replay` on another machine."""
    passes = build_pipeline(pipeline)
    f = entry_point(parse_module(source, name), function, name)
    recipe = input_recipe(f, dims, seed)
    rewritten = _rewritten(source, passes, name, tool, complete)
    refuse_gpu_kernels(rewritten, name, pipeline, tool, device)
    rewritten_text = print_module(rewritten)
    compile_target = COMPILE_TARGET[device]
    flags = list(target(compile_target).flags)
    modules = [
        SavedModule(
            "original",
            store_module(directory, compile_mlir(source, compile_target, phase=f"compiling {name} as it is")),
            None,
            flags,
        ),
        SavedModule(
            "rewrite",
            store_module(
                directory,
                compile_mlir(
                    rewritten_text, compile_target, phase=f"compiling {name} rewritten by '{pipeline}'"
                ),
            ),
            pipeline,
            flags,
        ),
    ]
    program = saved_program(source, f, recipe, name, directory, modules)
    manifest = Manifest(kind, device, compile_target, [program], tool, compiler=compiler_version())
    write_manifest(directory, manifest)
    return rewritten_text, manifest
