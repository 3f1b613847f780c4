"""What the tests look for in the PTX and the gfx942 ISA iree-compile dumps,
per target: regular expressions for the instructions, and the dump itself."""

from __future__ import annotations

from pathlib import Path

from tests.gpu_assembly import dumped_assembly

ATOMIC = {"sm_80": r"\b(atom|red)\.[\w.]*global", "gfx942": r"\bglobal_atomic_\w+"}
BARRIER = {"sm_80": r"\bbar\.sync", "gfx942": r"\bs_barrier\b"}
SHARED = {"sm_80": r"\b(st|ld)\.shared", "gfx942": r"\bds_(write|read)\w*"}
EXCHANGE = {"sm_80": r"\bshfl\.sync\.bfly", "gfx942": r"row_(mirror|half_mirror|bcast:\d+|shr:\d+)|\bdpp\b"}
ANY_ATOMIC = {"sm_80": r"\b(atom|red)\.", "gfx942": r"atomic"}
SPILL = {"sm_80": r"\.local\b", "gfx942": r"private_segment_fixed_size:\s*[1-9]"}
"""Registers spilled to memory: PTX's local space, the ISA's private segment."""


def assembly(source: str, target_name: str, tmp_path: Path) -> str:
    texts = dumped_assembly(source, target_name, tmp_path)
    assert texts
    return "\n".join(texts)
