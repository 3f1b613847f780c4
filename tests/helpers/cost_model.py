"""Contractions as the split cost model sees them, and the H200 measurements
(docs/gpu-notes.md) the GPU model is checked against."""

from __future__ import annotations

from dataclasses import dataclass

from xsplit.analysis.cost_model import Problem

MATMUL_SPANS = ((True, False), (False, True))


def matmul(m: int, n: int, k: int, batch: int = 1, element: str = "f32") -> Problem:
    size = {"f32": 4, "f16": 2, "i8": 1}[element]
    acc = 4
    return Problem(batch, m, n, k, element, size, acc, 2, MATMUL_SPANS, (size, n * size))


@dataclass(frozen=True)
class Measured:
    shape: tuple[int, int, int]
    element: str
    iree_alone: float | None
    """ms; None where not measured."""
    iree_split: float
    iree_split_is_alone: bool
    """IREE's own split compiles to IREE alone's dispatch (no split)."""
    best_factor: int
    best_static: float
    """ms of `split-k{factor=best_factor align=64 pad_m=64}`."""
    dynamic: float | None = None
    """ms of the same factor in dynamic chunks, where faster (the first table)."""

    @property
    def iree_best(self) -> float:
        if self.iree_alone is None:
            return self.iree_split
        if self.iree_split_is_alone:
            return max(self.iree_alone, self.iree_split)
        return min(self.iree_alone, self.iree_split)


# docs/gpu-notes.md, the first table (IREE alone, IREE's split, f32) and the
# third (static chunks on every shape), f32 and f16; f16 IREE alone from the
# note under the first table and the dynamic-K table (seed: 5.44 ms).
MEASURED = [
    Measured((123, 456, 51234), "f32", 97.2, 58.6, False, 128, 2.27),
    Measured((64, 96, 200003), "f32", 91.0, 90.9, True, 128, 0.369),
    Measured((32, 32, 500009), "f32", 203, 204, True, 128, 0.699),
    Measured((1, 4096, 14336), "f32", 0.664, 0.106, False, 8, 0.462),
    Measured((256, 256, 65536), "f32", 26.1, 2.44, False, 128, 2.37),
    # IREE gives these 16-row static chunks a thread tile of 1x128; the
    # same 128 chunks, dynamic, ran in 1.59 ms.
    Measured((16, 1024, 131071), "f32", 62.8, 62.8, True, 128, 4.76, 1.59),
    Measured((512, 768, 16384), "f32", 6.94, 6.96, True, 8, 3.43),
    Measured((2048, 2048, 2048), "f32", 4.79, 4.74, True, 8, 4.64),
    Measured((123, 456, 51234), "f16", 5.44, 0.685, False, 128, 0.200),
    Measured((64, 96, 200003), "f16", None, 10.1, False, 128, 0.133),
    Measured((1, 4096, 14336), "f16", None, 0.092, False, 8, 0.437),
    Measured((256, 256, 65536), "f16", 2.05, 0.196, False, 32, 0.133),
    Measured((16, 1024, 131071), "f16", None, 4.05, False, 128, 0.348),
]


def ids(m: Measured) -> str:
    return f"{m.element}-{'x'.join(map(str, m.shape))}"
