"""Reference semantics on numpy arrays, to test ops' meaning without IREE.

`evaluate_split_grouped_gemm` runs `linalg_ext.split_grouped_gemm` by
interpreting its scalar body, vectorised over each group's loops, and reducing
over K with the body's combiner. `evaluate_rock_reduce` runs `rock.reduce`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.linalg.ops import YieldOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr

from xsplit.analysis.reduction import COMBINER_KINDS
from xsplit.dialects.rock import ReduceMethod, ReduceOp, evaluate_reduce
from xsplit.dialects.xsplit_linalg_ext import SplitGroupedGemmOp
from xsplit.semantics import BINARY, CASTS, numpy_dtype

_REDUCE = {"add": np.add, "max": np.maximum, "min": np.minimum}


def _split_body(block: Block) -> tuple[type[Operation], SSAValue]:
    """The combiner the body ends in, and the value it combines the accumulator with."""
    yielded = block.last_op
    assert isinstance(yielded, YieldOp)
    combine = yielded.operands[0].owner
    assert isinstance(combine, Operation) and type(combine) in COMBINER_KINDS
    acc = block.args[-1]
    other = combine.operands[1] if combine.operands[0] is acc else combine.operands[0]
    return type(combine), other


def _evaluate(value: SSAValue, env: dict[SSAValue, np.ndarray]) -> np.ndarray:
    """The value of a body SSA value, computed from the block arguments in `env`."""
    if value in env:
        return env[value]
    op = value.owner
    assert isinstance(op, Operation), f"unbound block argument {value}"
    if isinstance(op, arith.ConstantOp):
        result = np.asarray(op.value.value.data, dtype=numpy_dtype(op.result.type))  # type: ignore[union-attr]
    elif op.name in BINARY:
        lhs, rhs = (_evaluate(v, env) for v in op.operands)
        result = BINARY[op.name](lhs, rhs)
    elif op.name in CASTS:
        result = _evaluate(op.operands[0], env).astype(numpy_dtype(op.results[0].type))
    else:
        raise NotImplementedError(f"the reference evaluator does not know '{op.name}'")
    env[value] = result
    return result


def evaluate_split_grouped_gemm(
    op: SplitGroupedGemmOp, inputs: Sequence[np.ndarray], init: np.ndarray
) -> np.ndarray:
    """`linalg_ext.split_grouped_gemm` on numpy arrays: one partial per group."""
    maps = op.maps
    r = op.reduction_dim
    loops = maps[0].num_dims
    extents: dict[int, int] = {}
    for array, m in zip((*inputs, init[0]), maps):
        for expr, size in zip(m.results, array.shape):
            assert isinstance(expr, AffineDimExpr)
            extents[expr.position] = size
    bounds = op.group_bounds(extents[r])
    combiner, other = _split_body(op.body.block)
    reduce = _REDUCE[COMBINER_KINDS[combiner]]
    out_dims = [e.position for e in maps[-1].results]  # type: ignore[union-attr]
    result = init.copy()
    for s in range(op.num_groups()):
        lo, hi = bounds[s], bounds[s + 1]
        if hi <= lo:
            continue
        env: dict[SSAValue, np.ndarray] = {}
        for arg, array, m in zip(op.body.block.args, inputs, maps):
            env[arg] = _loop_view(array, m, loops, r, lo, hi)
        values = np.broadcast_to(
            _evaluate(other, env),
            [hi - lo if d == r else extents[d] for d in range(loops)],
        )
        reduced = reduce.reduce(values, axis=r)
        kept = [d for d in range(loops) if d != r]
        partial = np.transpose(reduced, [kept.index(d) for d in out_dims])
        result[s] = reduce(result[s], partial.astype(result.dtype))
    return result


def _loop_view(array: np.ndarray, m, loops: int, r: int, lo: int, hi: int) -> np.ndarray:
    """`array` seen over the loop space (K cut to [lo, hi)), broadcastable."""
    dims = [e.position for e in m.results]
    index = tuple(slice(lo, hi) if d == r else slice(None) for d in dims)
    view = array[index]
    order = sorted(range(len(dims)), key=lambda i: dims[i])
    view = np.transpose(view, order)
    present = sorted(dims)
    shape = [view.shape[present.index(d)] if d in present else 1 for d in range(loops)]
    return view.reshape(shape)


def evaluate_rock_reduce(op: ReduceOp, input: np.ndarray, init: np.ndarray) -> np.ndarray:
    """`rock.reduce` on numpy arrays."""
    return evaluate_reduce(ReduceMethod(op.method), op.axis.value.data, input, init)
