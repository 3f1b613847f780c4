"""`materialize-late`'s part for split-k's own kernel: the host split-k
wrote (`xsplit.host`) and the kernels it calls, each marked with the target
it was lowered for (`xsplit.kernel_target`), put in the custom-dispatch form
iree-compile takes, as `export-dispatch{target=T called=true}` puts them.

Without it, `split-k{target=T},materialize-late` left thread-level code on
memrefs, which iree-compile rejects (`'vm.mul.i64' op operand #0 must be
64-bit signless integer, but got 'index'`) wherever split-k chose the own
kernel. The host and its kernels are exported together, in one rewrite of
the host, so that no host is left calling a kernel that is already a
dispatch, or the other way round. A kernel that still holds a linalg op
(which `export-dispatch` lowers to loops) is left to `export-dispatch`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

import xsplit.attr_names as attr_names
from xsplit.rewrites.dispatch.export_dispatch import EXPORT_KERNEL, exportable, is_kernel
from xsplit.rewrites.dispatch.export_host import EXPORT_HOST
from xsplit.rewrites.dsl import Match, Pattern, where
from xsplit.rewrites.dsl.builders import IRBuilder


def _callees(host: Operation) -> list[func.FuncOp] | str:
    """The kernels the host calls, each marked with its target, or why not."""
    module = host.parent_op()
    if module is None:
        return "it is not in a module"
    functions = {
        op.sym_name.data: op for op in module.regions[0].blocks[0].ops if isinstance(op, func.FuncOp)
    }
    kernels: list[func.FuncOp] = []
    for call in host.walk():
        if not isinstance(call, func.CallOp):
            continue
        kernel = functions.get(call.callee.string_value())
        if kernel is None or attr_names.KERNEL_TARGET not in kernel.attributes:
            return f"it calls @{call.callee.string_value()}, which is no kernel split-k lowered"
        if any(op.name.startswith("linalg.") for op in kernel.walk()):
            return f"@{kernel.sym_name.data} holds linalg ops (export-dispatch lowers them to loops)"
        if kernel not in kernels:
            kernels.append(kernel)
    return kernels or "it calls no kernel"


def _kernel_match(kernel: func.FuncOp) -> Match:
    target = kernel.attributes[attr_names.KERNEL_TARGET]
    assert isinstance(target, StringAttr)
    return Match(kernel, {"target": target.data, "grid": (), "block": (), "called": True})


def _hosts_own_kernels(m: Match) -> bool | str:
    if attr_names.HOST not in m.root.attributes:
        return "it is not a host function"
    kernels = _callees(m.root)
    if isinstance(kernels, str):
        return kernels
    for kernel in kernels:
        km = _kernel_match(kernel)
        if (failure := is_kernel.check(km)) is not None:
            return f"@{kernel.sym_name.data}: {failure}"
        # Raises, located at the kernel, where it cannot be exported.
        exportable.check(km)
    m.captures["kernels"] = [(kernel, _kernel_match(kernel)) for kernel in kernels]
    return True


def _export_all(m: Match, ir: IRBuilder) -> Sequence[SSAValue] | None:
    for kernel, km in m["kernels"]:
        exportable.check(km)  # its grid, block and target, captured again
        at = IRBuilder(Builder(InsertPoint.before(kernel)))
        EXPORT_KERNEL.rewrite(km, at)  # type: ignore[operator]
        Rewriter.erase_op(kernel)
    return EXPORT_HOST.rewrite(m, ir)  # type: ignore[operator]


EXPORT_OWN_KERNEL = Pattern(
    name="export-own-kernel",
    doc="split-k's own-kernel host and its kernels in the custom-dispatch form iree-compile takes",
    root=("func.func", "util.func"),
    where=where("is a host of kernels split-k lowered", _hosts_own_kernels),
    rewrite=_export_all,
)
"""The pattern `materialize-late` runs; see the module's docstring."""
