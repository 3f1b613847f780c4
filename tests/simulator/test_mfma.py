"""`amdgpu.mfma` in the simulator: a collective of each 64-lane wavefront
with the CDNA3 operand layouts, checked against numpy.

The layouts, written out here from IREE's `getSingleSubgroupLayout`
(IREEGPUAttrs.cpp: `mfmaLhs16xK`, `mfmaRhsKx16`, `mfmaAcc16x16`, and the
32x32 forms), by which IREE lowers its own matmuls to
`v_mfma_f32_16x16x16_f16` and `v_mfma_f32_32x32x8_f16`: lane l of a
wavefront, element i of its fragment,

- 16x16x16: A[l % 16, 4 * (l // 16) + i], B[4 * (l // 16) + i, l % 16],
  C[4 * (l // 16) + i, l % 16];
- 32x32x8: A[l % 32, 4 * (l // 32) + i], B[4 * (l // 32) + i, l % 32],
  C[8 * (i // 4) + 4 * (l // 32) + i % 4, l % 32] for i < 16.

The kernels below load each lane's fragments at those places (A row-major,
B and C through their transposes so that the four elements are one
`vector.load`) and store the result's elements back by the same map.
"""

from __future__ import annotations

import numpy as np
import pytest

from xsplit.api import parse_module
from xsplit.dialects import make_context
from xsplit.simulator.run import pick_function, simulate

MFMA_16 = """
func.func @mfma(%a: memref<4x16x16xf16>, %bt: memref<4x16x16xf16>, %ct: memref<4x16x16xf32>, %d: memref<4x16x16xf32>) {
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %tid = gpu.thread_id x
  %bid = gpu.block_id x
  %lane = arith.remui %tid, %c64 : index
  %w = arith.divui %tid, %c64 : index
  %b2 = arith.muli %bid, %c2 : index
  %g = arith.addi %b2, %w : index
  %row = arith.remui %lane, %c16 : index
  %grp = arith.divui %lane, %c16 : index
  %k0 = arith.muli %grp, %c4 : index
  %fa = vector.load %a[%g, %row, %k0] : memref<4x16x16xf16>, vector<4xf16>
  %fb = vector.load %bt[%g, %row, %k0] : memref<4x16x16xf16>, vector<4xf16>
  %fc = vector.load %ct[%g, %row, %k0] : memref<4x16x16xf32>, vector<4xf32>
  %fd = amdgpu.mfma 16x16x16 %fa * %fb + %fc : vector<4xf16>, vector<4xf16>, vector<4xf32>
  %e0 = vector.extract %fd[0] : f32 from vector<4xf32>
  %e1 = vector.extract %fd[1] : f32 from vector<4xf32>
  %e2 = vector.extract %fd[2] : f32 from vector<4xf32>
  %e3 = vector.extract %fd[3] : f32 from vector<4xf32>
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r0 = arith.addi %k0, %c1 : index
  %r1 = arith.addi %k0, %c2 : index
  %r2 = arith.addi %k0, %c3 : index
  memref.store %e0, %d[%g, %k0, %row] : memref<4x16x16xf32>
  memref.store %e1, %d[%g, %r0, %row] : memref<4x16x16xf32>
  memref.store %e2, %d[%g, %r1, %row] : memref<4x16x16xf32>
  memref.store %e3, %d[%g, %r2, %row] : memref<4x16x16xf32>
  func.return
}
"""


def kernel(text: str):
    return pick_function(parse_module(text, "mfma.mlir", make_context()), None)


def test_mfma_16x16x16_f16_against_numpy() -> None:
    """Two workgroups of two wavefronts, each wavefront its own 16x16x16
    problem: every lane's result is C + A·B at the place the layout says."""
    rng = np.random.default_rng(7)
    a = rng.uniform(-1, 1, (4, 16, 16)).astype(np.float16)
    b = rng.uniform(-1, 1, (4, 16, 16)).astype(np.float16)
    c = rng.uniform(-1, 1, (4, 16, 16)).astype(np.float32)
    want = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
    bt, ct = b.transpose(0, 2, 1).copy(), c.transpose(0, 2, 1).copy()
    d = np.zeros((4, 16, 16), np.float32)
    args = [a, bt, ct, d]
    report = simulate(kernel(MFMA_16), (2, 1, 1), (128, 1, 1), [a, bt, ct, want], args)
    assert report.clean, report.races + report.mismatches
    # A layout read the other way round (A's K and M swapped) is wrong.
    swapped = [a.transpose(0, 2, 1).copy(), bt, ct, d]
    report = simulate(kernel(MFMA_16), (2, 1, 1), (128, 1, 1), [*swapped[:3], want], swapped)
    assert report.mismatches


MFMA_32 = """
func.func @mfma(%a: memref<32x8xf16>, %bt: memref<32x8xf16>, %c: memref<32x32xf32>, %d: memref<32x32xf32>) {
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %lane = gpu.thread_id x
  %col = arith.remui %lane, %c32 : index
  %grp = arith.divui %lane, %c32 : index
  %k0 = arith.muli %grp, %c4 : index
  %fa = vector.load %a[%col, %k0] : memref<32x8xf16>, vector<4xf16>
  %fb = vector.load %bt[%col, %k0] : memref<32x8xf16>, vector<4xf16>
  %z = arith.constant 0.0 : f32
  %zero = vector.broadcast %z : f32 to vector<16xf32>
  %fd = amdgpu.mfma 32x32x8 %fa * %fb + %zero : vector<4xf16>, vector<4xf16>, vector<16xf32>
  STORES
  func.return
}
"""


def test_mfma_32x32x8_accumulator_layout() -> None:
    """32x32x8: sixteen accumulator elements per lane, in four runs of four
    rows eight apart."""
    stores = []
    for i in range(16):
        stores.append(
            f"%e{i} = vector.extract %fd[{i}] : f32 from vector<16xf32>\n"
            f"  %o{i} = arith.constant {8 * (i // 4) + i % 4} : index\n"
            f"  %r{i} = arith.addi %k0, %o{i} : index\n"
            f"  memref.store %e{i}, %d[%r{i}, %col] : memref<32x32xf32>"
        )
    text = MFMA_32.replace("STORES", "\n  ".join(stores))
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (32, 8)).astype(np.float16)
    b = rng.uniform(-1, 1, (8, 32)).astype(np.float16)
    want = a.astype(np.float64) @ b.astype(np.float64)
    args = [a, b.T.copy(), np.zeros((32, 32), np.float32), np.zeros((32, 32), np.float32)]
    report = simulate(kernel(text), (1, 1, 1), (64, 1, 1), [*args[:3], want], args)
    assert report.clean, report.races + report.mismatches


def test_mfma_needs_the_whole_wavefront() -> None:
    """A 32-thread workgroup is half a wavefront: refused, not guessed."""
    from xsplit.simulator.machine import SimulationError

    args = [np.ones((4, 16, 16), np.float16)] * 2 + [np.ones((4, 16, 16), np.float32)] * 2
    with pytest.raises(SimulationError, match="whole 64-lane warps"):
        simulate(kernel(MFMA_16), (1, 1, 1), (32, 1, 1), None, args)
