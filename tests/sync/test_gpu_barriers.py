"""insert-barriers' barriers survive to the GPU assembly where it put them:
a kernel with none, synchronized by the pass and exported, compiled for
sm_80 and gfx942 (not run: no GPU here). In the assembly every load from
workgroup memory is preceded by a barrier since the last store to it, and
every store by a barrier since the last load (the previous iteration's)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.gpu_assembly import dumped_assembly
from xsplit.api import rewrite

pytestmark = pytest.mark.gpu_compile

# 256 threads: more than one wave on gfx942, whose compiler drops a barrier a
# single wave does not need.
NEIGHBOURS = """\
func.func @neighbours(%a: memref<4x256xf32>, %b: memref<4x256xf32>) attributes {gpu.known_block_size = array<i32: 256, 1, 1>, gpu.known_grid_size = array<i32: 1, 1, 1>} {
  %t = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %s = memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
  scf.for %k = %c0 to %c4 step %c1 {
    %v = memref.load %a[%k, %t] : memref<4x256xf32>
    memref.store %v, %s[%t] : memref<256xf32, #gpu.address_space<workgroup>>
    %t1 = arith.addi %t, %c1 : index
    %n = arith.remui %t1, %c256 : index
    %w = memref.load %s[%n] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %w, %b[%k, %t] : memref<4x256xf32>
  }
  return
}
"""

TOKENS = {
    # target: {token kind: pattern}
    "sm_80": {"bar": r"bar\.sync", "st": r"st\.shared", "ld": r"ld\.shared"},
    "gfx942": {"bar": r"s_barrier", "st": r"ds_write", "ld": r"ds_read"},
}


def shared_memory_sequence(source: str, target_name: str, tmp_path: Path) -> list[str]:
    kinds = TOKENS[target_name]
    (text,) = dumped_assembly(source, target_name, tmp_path)
    pattern = re.compile("|".join(f"(?P<{k}>\\b{p})" for k, p in kinds.items()))
    sequence = [m.lastgroup for m in pattern.finditer(text)]
    # Consecutive accesses of one kind are one step.
    return [k for i, k in enumerate(sequence) if i == 0 or sequence[i - 1] != k]  # type: ignore[misc]


@pytest.mark.parametrize("target_name", ["sm_80", "gfx942"])
def test_inserted_barriers_reach_the_assembly(target_name: str, tmp_path: Path) -> None:
    synced = rewrite(NEIGHBOURS, "insert-barriers")
    assert synced.count("gpu.barrier") == 2
    exported = rewrite(synced, f"export-dispatch{{target={target_name}}}")
    steps = shared_memory_sequence(exported, target_name, tmp_path)
    # The loop body, once or unrolled: barrier, store, barrier, load.
    assert steps and len(steps) % 4 == 0, steps
    assert steps == ["bar", "st", "bar", "ld"] * (len(steps) // 4), steps
    # Without the pass, nothing orders the neighbour's load.
    unsynced = rewrite(NEIGHBOURS, f"export-dispatch{{target={target_name}}}")
    assert "bar" not in shared_memory_sequence(unsynced, target_name, tmp_path / "bare")
