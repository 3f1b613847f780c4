"""`llvm`: the atomics IREE's lowering leaves on a memref's aligned base
pointer plus a byte offset, mapped back to the memref's elements."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from xdsl.ir import Operation

from xsplit.dialects.llvm import pointer_memref
from xsplit.semantics import op_property
from xsplit.simulator.errors import SimulationError
from xsplit.simulator.lanes import Frame, expand
from xsplit.simulator.memory import ATOMIC
from xsplit.simulator.semantics.operands import slot_of
from xsplit.simulator.semantics.registry import register

if TYPE_CHECKING:
    from xsplit.simulator.compiled import Compiled


@register("llvm.inttoptr", lane_local=True)
def _c_inttoptr(m: Compiled, op: Operation):
    sa, r = slot_of(m, op.operands[0]), slot_of(m, op.results[0])

    def run(fr: Frame, chunked: bool) -> None:
        fr.env[r] = m.arr(fr, sa)

    return run


_LLVM_ATOMIC_UFUNCS = {11: np.add, 13: np.fmax, 14: np.fmin}
"""`llvm.atomicrmw` float ops by `LLVM::AtomicBinOp` (fadd, fmax, fmin)."""


@register("llvm.atomicrmw", lane_local=True)
def _c_llvm_atomicrmw(m: Compiled, op: Operation):
    """Like `memref.atomic_rmw` on the element the pointer addresses."""
    ref = pointer_memref(op)
    if ref is None:
        raise SimulationError("the pointer is not a memref's aligned base plus an offset", op)
    sp, sval, sv = slot_of(m, op.operands[0]), slot_of(m, op.operands[1]), slot_of(m, ref)
    r = slot_of(m, op.results[0])
    k = m.index_of(op)
    width = ref.type.element_type.bitwidth // 8  # type: ignore[attr-defined]
    bin_op = int(op_property(op, "bin_op").value.data)  # type: ignore[union-attr]
    ufunc = _LLVM_ATOMIC_UFUNCS.get(bin_op)
    if ufunc is None:
        raise SimulationError(f"the simulator does not run llvm.atomicrmw op {bin_op}", op)

    def run(fr: Frame, chunked: bool) -> None:
        view = m.get(fr, sv)
        flat = expand(m.arr(fr, sp), fr.n).astype(np.int64) // width
        data = view.buffer.data
        if flat.min() < 0 or flat.max() >= data.size:
            raise SimulationError(f"address out of bounds of {view.buffer.name}", op)
        fr.m.access(view, flat, fr, k, ATOMIC)
        vals = expand(m.arr(fr, sval), fr.n).astype(data.dtype, copy=False)
        old = data[flat]
        ufunc.at(data, flat, vals)
        fr.env[r] = old

    return run
