"""What the scalar ops mean, stated once: the numpy function each arith and
math op computes, the comparison predicates, and how memref types map to
memory. The simulator runs kernels with these, the access analysis folds
constants with them, and the reference evaluator runs linalg bodies with them,
so the three cannot disagree about an op.

Integer division by zero is undefined in MLIR; here it divides by one, so that
a lane whose result is never used does not stop a vectorised evaluation.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StridedLayoutAttr,
)
from xdsl.ir import Attribute, Operation


def numpy_dtype(t: Attribute) -> np.dtype:
    """The numpy type that holds values of element type `t` exactly; bf16 is
    held in f32. Raises NotImplementedError for a type numpy cannot hold."""
    if isinstance(t, Float32Type | BFloat16Type):
        return np.dtype(np.float32)
    if isinstance(t, Float16Type):
        return np.dtype(np.float16)
    if isinstance(t, Float64Type):
        return np.dtype(np.float64)
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    if isinstance(t, IntegerType):
        if t.width.data == 1:
            return np.dtype(np.bool_)
        if t.width.data in (8, 16, 32, 64):
            return np.dtype(f"int{t.width.data}")
    raise NotImplementedError(f"no numpy type for {t}")


def safe_divisor(b: np.ndarray) -> np.ndarray:
    return np.where(b == 0, 1, b)


def divsi(a, b):
    q = np.abs(a) // np.abs(safe_divisor(b))
    return np.where((a < 0) ^ (b < 0), -q, q)


BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
    "arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply,
    "arith.divf": np.divide, "arith.remf": np.fmod,
    "arith.divui": lambda a, b: a // safe_divisor(b), "arith.divsi": divsi,
    "arith.remui": lambda a, b: a % safe_divisor(b), "arith.remsi": lambda a, b: a - b * divsi(a, b),
    "arith.floordivsi": lambda a, b: a // safe_divisor(b),
    "arith.ceildivsi": lambda a, b: -((-a) // safe_divisor(b)),
    "arith.ceildivui": lambda a, b: -((-a) // safe_divisor(b)),
    "arith.maxsi": np.maximum, "arith.minsi": np.minimum, "arith.maxui": np.maximum,
    "arith.minui": np.minimum, "arith.maximumf": np.maximum, "arith.minimumf": np.minimum,
    "arith.maxnumf": np.fmax, "arith.minnumf": np.fmin,
    "arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or, "arith.xori": np.bitwise_xor,
    "arith.shli": np.left_shift, "arith.shrsi": np.right_shift, "arith.shrui": np.right_shift,
}  # fmt: skip
UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "arith.negf": np.negative, "math.absf": np.abs, "math.sqrt": np.sqrt, "math.exp": np.exp,
    "math.absi": np.abs, "math.tanh": np.tanh, "math.log": np.log,
}  # fmt: skip
CASTS = {
    "arith.index_cast", "arith.index_castui", "arith.sitofp", "arith.uitofp", "arith.fptosi",
    "arith.fptoui", "arith.extf", "arith.truncf", "arith.extsi", "arith.extui", "arith.trunci",
}  # fmt: skip
CMPI = {
    0: np.equal, 1: np.not_equal, 2: np.less, 3: np.less_equal, 4: np.greater,
    5: np.greater_equal, 6: np.less, 7: np.less_equal, 8: np.greater, 9: np.greater_equal,
}  # fmt: skip
CMPF = {
    1: np.equal, 2: np.greater, 3: np.greater_equal, 4: np.less, 5: np.less_equal,
    6: np.not_equal, 8: np.equal, 9: np.greater, 10: np.greater_equal, 11: np.less,
    12: np.less_equal, 13: np.not_equal,
}  # fmt: skip


def memory_space(t: MemRefType) -> str:
    """'workgroup', 'private' or 'global', from a memref type's memory space."""
    space = t.memory_space
    if isinstance(space, IntegerAttr):
        return {3: "workgroup", 5: "private"}.get(int(space.value.data), "global")
    text = str(space)
    if "workgroup" in text:
        return "workgroup"
    if "private" in text:
        return "private"
    return "global"


def memref_strides(t: MemRefType) -> tuple[int, ...]:
    """The strides of a statically strided memref type, in elements. Raises
    ValueError for dynamic strides."""
    layout = t.layout
    shape = t.get_shape()
    if isinstance(layout, StridedLayoutAttr):
        strides = []
        for s in layout.strides.data:
            value = s.data if hasattr(s, "data") else None
            if not isinstance(value, int):
                raise ValueError(f"dynamic strides are not supported: {t}")
            strides.append(value)
        return tuple(strides)
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= max(d, 1)
    return tuple(reversed(strides))


def op_property(op: Operation, name: str) -> Attribute | None:
    """An op's property `name`, or its attribute of that name: generic text
    read by xDSL keeps some properties as attributes."""
    value = op.properties.get(name)
    return value if value is not None else op.attributes.get(name)


def id_dimension(op: Operation) -> int | None:
    """The x/y/z (0/1/2) a processor id or size op reads (`gpu.thread_id x`,
    `hal.interface.workgroup.id[1]`), whatever form its attribute takes; None
    when it names none."""
    attr = op_property(op, "dimension")
    if isinstance(attr, IntegerAttr):
        return int(attr.value.data)
    text = str(attr) if attr is not None else ""
    for i, d in enumerate("xyz"):
        if re.search(rf"\b{d}\b", text):
            return i
    return None
