"""Which loops of a linalg contraction are batch, M, N and K: what data tiling
needs to know to pick a packed layout for each operand.

A loop in the LHS, the RHS and the result is a batch loop; in the LHS and the
result, M; in the RHS and the result, N; in both inputs but not the result, K.
Data tiling (IREE's and xsplit's) handles one K loop, at most one M and one N
loop (a matvec has no N, a vecmat no M) and any number of batch loops, with
every indexing map a projected permutation and a multiply-accumulate body.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import TensorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation
from xdsl.ir.affine import AffineDimExpr, AffineMap

from xsplit.dialects.linalg import ContractionOp

_CASTS = (
    arith.ExtFOp,
    arith.ExtSIOp,
    arith.ExtUIOp,
    arith.TruncFOp,
    arith.SIToFPOp,
    arith.UIToFPOp,
)


@dataclass(frozen=True)
class ContractionDims:
    """Loop positions by role; `m` or `n` is None where the op has no such loop."""

    batch: tuple[int, ...]
    m: int | None
    n: int | None
    k: int
    num_loops: int

    def roles(self, operand: int) -> tuple[int | None, ...]:
        """The loops each operand's packed layout is ordered by: batch loops,
        then (M, K), (N, K) or (M, N). None stands for a missing M or N."""
        return (*self.batch, *((self.m, self.k), (self.n, self.k), (self.m, self.n))[operand])


def _dims(m: AffineMap) -> list[int] | None:
    dims = [e.position for e in m.results if isinstance(e, AffineDimExpr)]
    if len(dims) != len(m.results) or len(set(dims)) != len(dims):
        return None
    return dims


def contraction_dims(maps: list[AffineMap]) -> ContractionDims | str:
    """The loop roles of a contraction with these (lhs, rhs, acc) maps, or why
    data tiling cannot handle it."""
    if len(maps) != 3:
        return f"it has {len(maps)} operands, not two inputs and an init"
    operand_dims = [_dims(m) for m in maps]
    if any(d is None for d in operand_dims):
        return "its indexing maps are not projected permutations"
    lhs, rhs, acc = (set(d) for d in operand_dims if d is not None)
    loops = maps[0].num_dims
    batch, ms, ns, ks = [], [], [], []
    for d in range(loops):
        where = (d in lhs, d in rhs, d in acc)
        if where == (True, True, True):
            batch.append(d)
        elif where == (True, False, True):
            ms.append(d)
        elif where == (False, True, True):
            ns.append(d)
        elif where == (True, True, False):
            ks.append(d)
        else:
            return f"loop d{d} is not a batch, M, N or K loop"
    if len(ks) != 1:
        return f"it has {len(ks)} K loops, not one"
    if len(ms) > 1 or len(ns) > 1:
        return "it has more than one M or N loop"
    if not ms and not ns:
        return "it has neither an M nor an N loop (a dot product)"
    return ContractionDims(
        tuple(batch), ms[0] if ms else None, ns[0] if ns else None, ks[0], loops
    )


def is_multiply_accumulate(op: Operation) -> bool:
    """Whether `op`'s body is `acc + cast(a) * cast(b)`."""
    if isinstance(op, ContractionOp):
        return True
    if not isinstance(op, linalg.GenericOp):
        return False
    block = op.body.block
    if len(block.args) != 3:
        return False
    a, b, acc = block.args
    terminator = block.last_op
    if not isinstance(terminator, linalg.YieldOp) or len(terminator.operands) != 1:
        return False
    add = terminator.operands[0].owner
    if not isinstance(add, arith.AddfOp | arith.AddiOp):
        return False
    others = [v for v in add.operands if v is not acc]
    if len(others) != 1 or acc not in add.operands:
        return False
    mul = others[0].owner
    if not isinstance(mul, arith.MulfOp | arith.MuliOp):
        return False

    def source(v):  # type: ignore[no-untyped-def]
        owner = v.owner
        while isinstance(owner, _CASTS):
            v = owner.operands[0]
            owner = v.owner
        return v

    return {source(mul.operands[0]), source(mul.operands[1])} == {a, b}


def op_contraction_dims(op: Operation) -> ContractionDims | str:
    """`contraction_dims` of a linalg op, after checking it is a contraction."""
    if not isinstance(op, linalg.GenericOp | ContractionOp):
        return f"'{op.name}' is not a linalg contraction"
    if len(op.inputs) != 2 or len(op.outputs) != 1 or len(op.results) != 1:
        return "it does not have two inputs and one tensor output"
    if not all(isinstance(v.type, TensorType) for v in (*op.inputs, *op.outputs)):
        return "its operands are not all tensors"
    if not is_multiply_accumulate(op):
        return "its body is not a multiply-accumulate"
    iterators = [str(t.data) for t in op.get_iterator_types().data]
    dims = contraction_dims([m.data for m in op.get_indexing_maps().data])
    if isinstance(dims, str):
        return dims
    if iterators[dims.k] != "reduction" or any(
        iterators[d] != "parallel" for d in range(dims.num_loops) if d != dims.k
    ):
        return "its iterator types do not match its indexing maps"
    return dims


def gemm_operand_dims(
    producer: Operation,
) -> tuple[list[int], list[int], list[int], int] | str:
    """The loop dimensions that index A, B and C of a GEMM (`linalg.matmul`,
    `linalg.batch_matmul`, or a generic computing out + a * b over one
    contracted loop), and the contracted loop; or why it is not one."""
    if producer.name == "linalg.matmul":
        return [0, 2], [2, 1], [0, 1], 2
    if producer.name == "linalg.batch_matmul":
        return [0, 1, 3], [0, 3, 2], [0, 1, 2], 3
    if producer.name != "linalg.generic":
        return f"its producer '{producer.name}' is not a GEMM this lowering fuses"
    if len(producer.operands) != 3:
        return "the generic is not a contraction of two operands"
    kinds = [str(t.data) for t in producer.iterator_types.data]  # type: ignore[attr-defined]
    reductions = [i for i, k in enumerate(kinds) if "reduction" in k]
    if len(reductions) != 1:
        return "the generic does not contract exactly one loop"
    dims = []
    for m in producer.indexing_maps.data:  # type: ignore[attr-defined]
        results = m.data.results
        if not all(isinstance(r, AffineDimExpr) for r in results):
            return "the generic's indexing maps are not projected permutations"
        dims.append([r.position for r in results])  # type: ignore[attr-defined]
    a_dims, b_dims, out_dims = dims
    if reductions[0] in out_dims or sorted(out_dims) != [i for i in range(len(kinds)) if i not in reductions]:
        return "the generic's output is not indexed by its parallel loops"
    body = list(producer.regions[0].block.ops)
    args = producer.regions[0].block.args
    if [o.name for o in body] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return "the generic's body is not a multiply-add"
    mul, add = body[0], body[1]
    if set(mul.operands) != {args[0], args[1]} or set(add.operands) != {args[2], mul.results[0]}:
        return "the generic's body is not out + a * b"
    return a_dims, b_dims, out_dims, reductions[0]
