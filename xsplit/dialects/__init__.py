"""xsplit's dialects, and the upstream ops xDSL 0.74 lacks.

IREE's `flow`, `hal`, `iree_codegen`, `iree_cpu`, `iree_gpu`, `iree_tensor_ext` and
`iree_linalg_ext` are dialects of their own. The upstream additions (`scf.forall`,
`tensor.parallel_insert_slice`, `affine.max`, the GPU mapping attributes and the linalg
contractions) belong to dialects xDSL already has, so they are added to those, the way an MLIR dialect
extension adds ops to a dialect it does not own.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.ir import Attribute, Dialect, Operation

from xsplit.dialects.affine import MaxOp
from xsplit.dialects.amdgpu import AMDGPU, ROCDL
from xsplit.dialects.flow import Flow
from xsplit.dialects.gpu import GPU_EXTENSION_ATTRS, GPU_EXTENSION_OPS, GPU_MAPPING_ATTRS
from xsplit.dialects.hal import HAL
from xsplit.dialects.iree_codegen import IREECodegen
from xsplit.dialects.iree_cpu import IREECPU
from xsplit.dialects.iree_encoding import IREEEncoding
from xsplit.dialects.iree_gpu import IREEGPU
from xsplit.dialects.iree_linalg_ext import IREELinalgExt
from xsplit.dialects.iree_tensor_ext import IREETensorExt
from xsplit.dialects.linalg import LINALG_OPS
from xsplit.dialects.linalg_layout import PackOp, UnpackOp
from xsplit.dialects.llvm import LLVM_EXTENSION_OPS
from xsplit.dialects.memref import MEMREF_EXTENSION_OPS
from xsplit.dialects.nvgpu import NVGPU
from xsplit.dialects.rock import Rock
from xsplit.dialects.scf import ForallOp, InParallelOp
from xsplit.dialects.tensor import ParallelInsertSliceOp
from xsplit.dialects.util import Util
from xsplit.dialects.vector import VECTOR_EXTENSION_OPS
from xsplit.dialects.xsplit_gemm import XsplitGemm
from xsplit.dialects.xsplit_linalg_ext import LinalgExt
import xsplit.xdsl_compat as xdsl_compat

XSPLIT_DIALECTS: dict[str, Callable[[], Dialect]] = {
    "flow": lambda: Flow,
    "iree_tensor_ext": lambda: IREETensorExt,
    "iree_linalg_ext": lambda: IREELinalgExt,
    "iree_encoding": lambda: IREEEncoding,
    "rock": lambda: Rock,
    "linalg_ext": lambda: LinalgExt,
    "hal": lambda: HAL,
    "iree_codegen": lambda: IREECodegen,
    "iree_cpu": lambda: IREECPU,
    "iree_gpu": lambda: IREEGPU,
    "util": lambda: Util,
    "xsplit_gemm": lambda: XsplitGemm,
    "nvgpu": lambda: NVGPU,
    "amdgpu": lambda: AMDGPU,
    "rocdl": lambda: ROCDL,
}
"""The dialects xsplit defines, by name."""

UPSTREAM_EXTENSIONS: dict[str, tuple[list[type[Operation]], list[type[Attribute]]]] = {
    "scf": ([ForallOp, InParallelOp], []),
    "tensor": ([ParallelInsertSliceOp], []),
    "affine": ([MaxOp], []),
    "linalg": ([*LINALG_OPS, PackOp, UnpackOp], []),
    "gpu": (list(GPU_EXTENSION_OPS), [*GPU_MAPPING_ATTRS, *GPU_EXTENSION_ATTRS]),
    "memref": (list(MEMREF_EXTENSION_OPS), []),
    "llvm": (list(LLVM_EXTENSION_OPS), []),
    "vector": (list(VECTOR_EXTENSION_OPS), []),
}
"""Ops and attributes xsplit adds to (or replaces in) upstream dialects."""


def _extend(dialect: Dialect) -> None:
    ops, attrs = UPSTREAM_EXTENSIONS[dialect.name]
    ours = {op.name for op in ops} | {a.name for a in attrs}
    kept_ops = [op for op in dialect.operations if op.name not in ours]
    kept_attrs = [a for a in dialect.attributes if a.name not in ours]
    # Dialect is a frozen dataclass; its op and attribute lists are the
    # extension point MLIR's DialectExtension would use.
    dialect._operations[:] = kept_ops + ops  # pyright: ignore[reportPrivateUsage]
    dialect._attributes[:] = kept_attrs + attrs  # pyright: ignore[reportPrivateUsage]


_extended = False


def register_upstream_extensions() -> None:
    """
    Adds xsplit's upstream ops to xDSL's own dialect objects, once. Any context
    that loads those dialects afterwards, xdsl-opt's included, knows the ops.
    """
    global _extended
    if _extended:
        return
    xdsl_compat.install()
    from xdsl.dialects import get_all_dialects

    upstream = get_all_dialects()
    for name in UPSTREAM_EXTENSIONS:
        _extend(upstream[name]())
    _extended = True


def make_context(allow_unregistered: bool = False) -> Context:
    """A context that knows every dialect xDSL and xsplit provide."""
    from xdsl.dialects import get_all_dialects

    register_upstream_extensions()
    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in {**get_all_dialects(), **XSPLIT_DIALECTS}.items():
        ctx.register_dialect(name, factory)
    return ctx
