"""Thread-level kernels, distributed and exported, compiled for sm_80 and
gfx942 (not run: no GPU here). The dumped assembly has the barrier where the
kernel has its gpu.barrier: after the stores to workgroup memory and before
the loads from it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.gpu_assembly import dumped_assembly
from xsplit import rewrite

pytestmark = pytest.mark.gpu_compile

BLOCK_SUM = """
func.func @bsum(%a: memref<1024xf32>, %out: memref<4xf32>) attributes {gpu.known_grid_size = array<i32: 4, 1, 1>, gpu.known_block_size = array<i32: 256, 1, 1>} {
  %smem = memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
  scf.forall (%b) in (4) {
    scf.forall (%t) in (256) {
      %i = affine.apply affine_map<(d0, d1) -> (d0 * 256 + d1)>(%b, %t)
      %v = memref.load %a[%i] : memref<1024xf32>
      memref.store %v, %smem[%t] : memref<256xf32, #gpu.address_space<workgroup>>
    } {mapping = [#gpu.thread<x>]}
    gpu.barrier
    scf.forall (%t) in (64) {
      %j = affine.apply affine_map<(d0) -> (d0 * 4)>(%t)
      %j1 = affine.apply affine_map<(d0) -> (d0 * 4 + 1)>(%t)
      %j2 = affine.apply affine_map<(d0) -> (d0 * 4 + 2)>(%t)
      %j3 = affine.apply affine_map<(d0) -> (d0 * 4 + 3)>(%t)
      %x0 = memref.load %smem[%j] : memref<256xf32, #gpu.address_space<workgroup>>
      %x1 = memref.load %smem[%j1] : memref<256xf32, #gpu.address_space<workgroup>>
      %x2 = memref.load %smem[%j2] : memref<256xf32, #gpu.address_space<workgroup>>
      %x3 = memref.load %smem[%j3] : memref<256xf32, #gpu.address_space<workgroup>>
      %s0 = arith.addf %x0, %x1 : f32
      %s1 = arith.addf %x2, %x3 : f32
      %s = arith.addf %s0, %s1 : f32
      %old = memref.atomic_rmw addf %s, %out[%b] : (f32, memref<4xf32>) -> f32
    } {mapping = [#gpu.thread<x>]}
  } {mapping = [#gpu.block<x>]}
  func.return
}
"""

ASSEMBLY = {
    # target: (barrier, store to workgroup memory, load from it, atomic)
    "sm_80": (r"\bbar\.sync\b", r"\bst\.shared", r"\bld\.shared", r"\batom\."),
    "gfx942": (r"\bs_barrier\b", r"\bds_write", r"\bds_read", r"global_atomic"),
}


def _assembly(source: str, target_name: str, tmp_path: Path) -> str:
    (text,) = dumped_assembly(source, target_name, tmp_path)
    return text


@pytest.mark.parametrize("target_name", ["sm_80", "gfx942"])
def test_barrier_between_workgroup_store_and_load(target_name: str, tmp_path: Path) -> None:
    exported = rewrite(BLOCK_SUM, f"distribute,export-dispatch{{target={target_name}}}")
    assert exported.count("gpu.barrier") == 1
    asm = _assembly(exported, target_name, tmp_path)
    barrier, store, load, atomic = ASSEMBLY[target_name]
    lines = asm.splitlines()

    def where(pattern: str) -> list[int]:
        return [i for i, line in enumerate(lines) if re.search(pattern, line)]

    barriers = where(barrier)
    assert len(barriers) == 1, f"expected one barrier, found {len(barriers)}"
    assert max(where(store)) < barriers[0] < min(where(load))
    assert where(atomic)


def test_subgroup_reduce_on_gfx942(tmp_path: Path) -> None:
    """A subgroup reduction asks for gfx942's 64-lane waves and compiles to DPP."""
    source = (Path(__file__).parents[1] / "filecheck/rewrites/export-dispatch/gpu.mlir").read_text()
    exported = rewrite(source, "distribute,export-dispatch{target=gfx942}")
    assert "subgroup_size = 64" in exported
    asm = _assembly(exported, "gfx942", tmp_path)
    assert re.search(r"row_|dpp|ds_swizzle|permlane", asm)
