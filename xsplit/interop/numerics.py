"""The numerics that a check holds results to, with numpy alone (no xDSL, no
iree-compile), so that `python -m xsplit.replay` shares them: the seeded
inputs' recipe, the tolerance of a re-associated reduction, the comparison of
one result with its reference, and numpy's float64 reference where numpy can
express the program (a matmul)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

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


FLOAT_RANGE = (-1.0, 1.0)
"""Float arguments are uniform in [-1, 1)."""
INTEGER_RANGE = (-8, 8)
"""Integer arguments are uniform in [-8, 8): small, so that sums stay exact."""


@dataclass(frozen=True)
class InputRecipe:
    """How a run's arguments are made, without the data: their shapes and
    numpy dtypes, the seed, and the distribution (FLOAT_RANGE, INTEGER_RANGE).
    The same recipe makes the same arrays on every machine (numpy's PCG64)."""

    shapes: tuple[tuple[int, ...], ...]
    dtypes: tuple[str, ...]
    seed: int = 0

    def make(self) -> list[np.ndarray]:
        rng = np.random.default_rng(self.seed)
        inputs: list[np.ndarray] = []
        for shape, name in zip(self.shapes, self.dtypes, strict=True):
            dtype = np.dtype(name)
            if dtype.kind == "f":
                inputs.append(rng.uniform(*FLOAT_RANGE, shape).astype(dtype))
            else:
                inputs.append(rng.integers(*INTEGER_RANGE, shape).astype(dtype))
        return inputs

    def to_json(self) -> dict[str, Any]:
        return {
            "shapes": [list(s) for s in self.shapes],
            "dtypes": list(self.dtypes),
            "seed": self.seed,
            "distribution": {
                "float": f"uniform [{FLOAT_RANGE[0]}, {FLOAT_RANGE[1]})",
                "integer": f"integers [{INTEGER_RANGE[0]}, {INTEGER_RANGE[1]})",
                "generator": "numpy.random.default_rng(seed), one draw per argument in order",
            },
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> InputRecipe:
        return InputRecipe(
            tuple(tuple(s) for s in data["shapes"]), tuple(data["dtypes"]), int(data["seed"])
        )


@dataclass(frozen=True)
class MatmulForm:
    """An entry point that is `A @ B (+ C)` and nothing else, as numpy writes
    it: which arguments are A, B and C, and the result's dtype."""

    a: int
    b: int
    c: int | None
    result_dtype: str

    def reference(self, inputs: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """numpy's float64 result, and the same on the inputs' magnitudes
        (the scale of the rounding a re-association may cause, `tolerance`)."""
        a = inputs[self.a].astype(np.float64)
        b = inputs[self.b].astype(np.float64)
        result, magnitude = a @ b, np.abs(a) @ np.abs(b)
        if self.c is not None:
            c = inputs[self.c].astype(np.float64)
            result, magnitude = result + c, magnitude + np.abs(c)
        return result, magnitude

    def to_json(self) -> dict[str, Any]:
        return {"kind": "matmul", "a": self.a, "b": self.b, "c": self.c,
                "result_dtype": self.result_dtype}

    @staticmethod
    def from_json(data: dict[str, Any]) -> MatmulForm:
        return MatmulForm(data["a"], data["b"], data["c"], data["result_dtype"])


def compare_with_reference(
    actual: np.ndarray, reference: np.ndarray, index: int, magnitude: np.ndarray | None
) -> ResultCheck:
    """`compare` against a float64 reference, with the tolerance of the
    result's own dtype."""
    diff = np.abs(actual.astype(np.float64) - reference)
    max_abs = float(diff.max()) if diff.size else 0.0
    scale = float(np.max(np.abs(reference))) if reference.size else 0.0
    return ResultCheck(
        index,
        tuple(actual.shape),
        actual.dtype.name,
        max_abs,
        max_abs / scale if scale > 0 else max_abs,
        tolerance(actual, reference, magnitude),
    )
