"""`export-dispatch{target=NAME}`: a distributed kernel in the custom-dispatch
form iree-compile 3.13 takes.

A kernel is a public `func.func` on memrefs that returns nothing, such as
`distribute` produces. This pass replaces it with

- a `hal.executable.source` holding the kernel, its memref arguments bound
  with `hal.interface.binding.subspan`, block ids read with
  `hal.interface.workgroup.id`, and
  `translation_info = #iree_codegen.translation_info<pipeline = #iree_codegen.no_pipeline workgroup_size = [...]>`
  so IREE lowers it as written; the export's `count` region is the launch grid;
- a public function of the kernel's name that takes the kernel's memref
  arguments as tensors and returns, as tensors, the ones the kernel writes
  (in argument order), through a `flow.dispatch` whose results are tied to
  those arguments: the kernel updates them in place.

The grid comes from the `grid` option or `gpu.known_grid_size`, the block
from the `block` option or `gpu.known_block_size` (1x1x1 without one). On
`cpu` only workgroup-level code runs: a thread id, a barrier, a subgroup op or
workgroup memory is an error located at the op.

On a GPU, float atomic adds into global memory become relaxed device-scope
`llvm.atomicrmw` (`relaxed_atomics.py`): IREE makes `memref.atomic_rmw`
system-scope and fenced.

IREE lowers such a kernel without linalg: its linalg ops on memrefs (tiles on
`memref.subview`s, as `distribute` leaves them) become loops
(`linalg_to_loops.py`); one that cannot is an error located at the op.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    SymbolRefAttr,
    TensorType,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

import xsplit.attr_names as attr_names
from xsplit.analysis.ranges import AXES
from xsplit.analysis.writes import may_write
from xsplit.diagnostics import XsplitError
from xsplit.dialects import gpu, hal
from xsplit.dialects.flow import DispatchOp
from xsplit.dialects.iree_codegen import TRANSLATION_INFO, TranslationInfoAttr
from xsplit.rewrites.dispatch.export_host import EXPORT_HOST
from xsplit.rewrites.dispatch.linalg_to_loops import LINALG_TO_LOOPS, refusal
from xsplit.rewrites.dispatch.relaxed_atomics import relax_atomics
from xsplit.rewrites.distribute.distribute import check_sizes, is_mapped_loop, parse_sizes
from xsplit.rewrites.dsl import Match, Option, Pass, Pattern, where
from xsplit.rewrites.dsl.builders import IRBuilder
from xsplit.targets.table import target as find_target

SUBGROUP_SIZE = {"sm_80": 32, "sm_90": 32, "gfx942": 64}
"""Lanes per subgroup where the kernel uses subgroup ops (a warp; a wave64 on gfx942)."""

_THREAD_LEVEL = (
    gpu.ThreadIdOp,
    gpu.BlockDimOp,
    gpu.GlobalIdOp,
    gpu.LaneIdOp,
    gpu.SubgroupIdOp,
    gpu.SubgroupSizeOp,
    gpu.NumSubgroupsOp,
    gpu.BarrierOp,
    gpu.ShuffleOp,
    gpu.SubgroupReduceOp,
)


def _called_by_hosts(fn: Operation) -> set[str]:
    """The functions a host of `fn`'s module calls."""
    module = fn.parent_op()
    if module is None:
        return set()
    return {
        call.properties["callee"].string_value()  # type: ignore[union-attr]
        for host in module.regions[0].blocks[0].ops
        if attr_names.HOST in host.attributes
        for call in host.walk()
        if call.name == "func.call"
    }


def _is_kernel(m: Match) -> bool | str:
    fn = m.root
    assert isinstance(fn, func.FuncOp)
    if fn.is_declaration:
        return "it is a declaration"
    if attr_names.HOST in fn.attributes:
        return "it is a host function (export-host converts it)"
    if m.options.get("called") and fn.sym_name.data not in _called_by_hosts(fn):
        return "no host function calls it (called=true)"
    if fn.sym_visibility is not None and fn.sym_visibility.data != "public":
        return "it is not public"
    parent = fn.parent_op()
    while parent is not None:
        if isinstance(parent, hal.ExecutableSourceOp):
            return "it is already in an executable"
        parent = parent.parent_op()
    if fn.function_type.outputs.data:
        return "it returns values"
    inputs = fn.function_type.inputs.data
    if not inputs or not all(isinstance(t, MemRefType) for t in inputs):
        return "its arguments are not all memrefs"
    return True


def _check_kernel(m: Match) -> bool | str:
    fn = m.root
    assert isinstance(fn, func.FuncOp)
    target_name = m.options["target"]
    tgt = find_target(target_name)
    for arg, t in zip(fn.args, fn.function_type.inputs.data):
        assert isinstance(t, MemRefType)
        if not t.has_static_shape() or not isinstance(t.layout, NoneAttr) or not isinstance(
            t.memory_space, NoneAttr
        ):
            raise XsplitError(
                f"export-dispatch: argument {arg.index} ({t}) must be a memref with a static "
                "shape, the identity layout and the default memory space",
                fn,
            )
    for op in fn.walk():
        if is_mapped_loop(op):
            raise XsplitError(
                "export-dispatch: this loop is still mapped to processors; run distribute first", op
            )
        if op.name.startswith("linalg.") and (reason := refusal(op)) is not None:
            raise XsplitError(
                f"export-dispatch: '{op.name}' cannot be lowered to loops ({reason}), and "
                "iree-compile takes no linalg op in a kernel it lowers as written",
                op,
            )
        if not tgt.is_gpu:
            uses_thread = isinstance(op, _THREAD_LEVEL) or any(
                isinstance(r.type, MemRefType)
                and isinstance(r.type.memory_space, gpu.AddressSpaceAttr)
                for r in op.results
            )
            if uses_thread:
                raise XsplitError(
                    f"export-dispatch{{target={target_name}}}: '{op.name}' is thread-level code; "
                    "llvm-cpu runs workgroup-level code only (use a GPU target)",
                    op,
                )
    grid = parse_sizes(m.options["grid"]) or _known(fn, gpu.KNOWN_GRID_SIZE)
    uses_blocks = any(isinstance(op, gpu.BlockIdOp | gpu.GridDimOp) for op in fn.walk())
    if grid is None:
        if uses_blocks:
            raise XsplitError(
                "export-dispatch: the launch grid is unknown: give gpu.known_grid_size on the "
                "function or grid=X,Y,Z",
                fn,
            )
        grid = [1, 1, 1]
    block = parse_sizes(m.options["block"]) or _known(fn, gpu.KNOWN_BLOCK_SIZE) or [1, 1, 1]
    if not tgt.is_gpu and block != [1, 1, 1]:
        raise XsplitError(
            f"export-dispatch{{target={target_name}}}: llvm-cpu runs one thread per workgroup, "
            f"but the block size is {block}",
            fn,
        )
    m.captures["grid"] = grid
    m.captures["block"] = block
    m.captures["target"] = tgt
    return True


def _known(fn: func.FuncOp, name: str) -> list[int] | None:
    attr = fn.attributes.get(name)
    if isinstance(attr, DenseArrayBase):
        values = [int(v) for v in attr.get_values()]
        if len(values) == 3:
            return values
    return None


def _lower_ids(fn_body: Region, grid: list[int], block: list[int]) -> None:
    """Block ids and sizes become the dispatch's workgroup ids and known sizes."""
    for op in list(fn_body.walk()):
        replacement: Operation | None = None
        if isinstance(op, gpu.BlockIdOp):
            replacement = hal.InterfaceWorkgroupIDOp(AXES.index(op.dim))
        elif isinstance(op, gpu.GridDimOp):
            replacement = arith.ConstantOp(IntegerAttr(grid[AXES.index(op.dim)], IndexType()))
        elif isinstance(op, gpu.BlockDimOp):
            replacement = arith.ConstantOp(IntegerAttr(block[AXES.index(op.dim)], IndexType()))
        if replacement is not None:
            assert op.parent is not None
            op.parent.insert_op_before(replacement, op)
            op.results[0].replace_all_uses_with(replacement.results[0])
            op.detach()
            op.erase()


def _export(m: Match, ir: IRBuilder) -> list[SSAValue]:
    fn = m.root
    assert isinstance(fn, func.FuncOp)
    grid: list[int] = m["grid"]
    block: list[int] = m["block"]
    tgt = m["target"]
    name = fn.sym_name.data
    arg_types = [t for t in fn.function_type.inputs.data]
    written = [may_write(a) for a in fn.args]
    hints = [a.name_hint for a in fn.args]
    layout = hal.PipelineLayoutAttr(
        [
            hal.PipelineBindingAttr("storage_buffer", 0 if w else hal.DESCRIPTOR_FLAGS["ReadOnly"])
            for w in written
        ]
    )

    # The kernel: its arguments become bindings.
    body = fn.body
    entry = body.block
    bind = IRBuilder(Builder(InsertPoint.at_start(entry)))
    zero = bind.index(0)
    for i, (arg, t) in enumerate(zip(list(entry.args), arg_types)):
        subspan = hal.InterfaceBindingSubspanOp(
            layout, i, t, zero, alignment=64,
            descriptor_flags=None if written[i] else hal.DESCRIPTOR_FLAGS["ReadOnly"],
        )
        bind.b.insert(subspan)
        arg.replace_all_uses_with(subspan.result)
    for arg in list(entry.args)[::-1]:
        entry.erase_arg(arg)
    _lower_ids(body, grid, block)
    if tgt.is_gpu:
        relax_atomics(body, tgt.name)
    subgroup = 0
    if tgt.is_gpu and any(isinstance(op, gpu.ShuffleOp | gpu.SubgroupReduceOp) for op in body.walk()):
        subgroup = SUBGROUP_SIZE.get(tgt.name, 32)
    fn.detach_region(body)
    kernel = func.FuncOp(name, FunctionType.from_lists([], []), body)
    kernel.attributes[TRANSLATION_INFO] = TranslationInfoAttr(None, block, subgroup)

    count = Block(arg_types=[hal.DeviceType()])
    counts = [arith.ConstantOp(IntegerAttr(n, IndexType())) for n in grid]
    for c in counts:
        count.add_op(c)
    count.add_op(hal.ReturnOp(*counts))
    export = hal.ExecutableExportOp(name, layout, Region(count), 0)
    executable_name = f"{name}_dispatch"
    source = hal.ExecutableSourceOp(
        executable_name, Region(Block([export, ModuleOp([kernel])])), "private"
    )
    ir.b.insert(source)

    # The host side: tensors in, written tensors out.
    tensor_types = [TensorType(t.element_type, t.get_shape()) for t in arg_types]
    results = [t for t, w in zip(tensor_types, written) if w]
    wrapper_block = Block(arg_types=tensor_types)
    ties = [i for i, w in enumerate(written) if w]
    dispatch = DispatchOp(
        SymbolRefAttr(executable_name, [name]), list(wrapper_block.args), results, ties
    )
    wrapper_block.add_op(dispatch)
    wrapper_block.add_op(func.ReturnOp(*dispatch.results))
    wrapper = func.FuncOp(name, FunctionType.from_lists(tensor_types, results), Region(wrapper_block))
    for arg, hint in zip(wrapper_block.args, hints):
        arg.name_hint = hint
    ir.b.insert(wrapper)
    return []


is_kernel = where("is a kernel on memrefs", _is_kernel)
exportable = where("can be exported for the target", _check_kernel)




def _check_target(name: str) -> str | None:
    if not name:
        return "is required (cpu, sm_80, gfx942, ...)"
    try:
        find_target(name)
    except XsplitError as e:
        return e.message.removeprefix("unknown target ").join(("is unknown: ", ""))
    return None


EXPORT_KERNEL = Pattern(
    name="export-kernel-as-dispatch",
    doc="wraps a kernel on memrefs in hal.executable.source and a tensor function calling it with flow.dispatch",
    root=func.FuncOp,
    where=is_kernel & exportable,
    rewrite=_export,
    options=("target", "grid", "block", "called"),
)

EXPORT_DISPATCH = Pass(
    "export-dispatch",
    "Wraps distributed kernels in the custom-dispatch form iree-compile takes.",
    # A kernel precedes its ops in IR order: when LINALG_TO_LOOPS sees them,
    # it is already in its executable, marked no_pipeline.
    [EXPORT_KERNEL, EXPORT_HOST, LINALG_TO_LOOPS],
    (
        Option("target", str, "", "cpu, sm_80, sm_90, gfx942 (or cuda, rocm)", check=_check_target),
        Option("grid", tuple, (), "the launch grid, X[,Y[,Z]] workgroups", check=check_sizes),
        Option("block", tuple, (), "the workgroup size, X[,Y[,Z]] threads", check=check_sizes),
        Option(
            "called",
            bool,
            False,
            "export only the kernels a host function calls (as auto does after split-k's own "
            "kernel), leaving other functions on memrefs alone",
        ),
    ),
)

