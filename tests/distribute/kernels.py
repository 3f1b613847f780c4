"""Workgroup- and thread-level kernels written for the distribute tests, and
a helper that distributes, exports, compiles and runs them on the CPU."""

from __future__ import annotations

import numpy as np

from xsplit import rewrite
from xsplit.iree.cpu_runner import run_on_cpu
from xsplit.iree.iree_compile import compile_mlir


def row_sum(m: int, k: int, grid: int) -> str:
    """out[i] = sum_j a[i, j], one row per iteration of a #gpu.block<x> loop."""
    return f"""
func.func @rows(%a: memref<{m}x{k}xf32>, %out: memref<{m}xf32>) attributes {{gpu.known_grid_size = array<i32: {grid}, 1, 1>}} {{
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ck = arith.constant {k} : index
  scf.forall (%i) in ({m}) {{
    %s = scf.for %j = %c0 to %ck step %c1 iter_args(%acc = %zero) -> (f32) {{
      %v = memref.load %a[%i, %j] : memref<{m}x{k}xf32>
      %r = arith.addf %acc, %v : f32
      scf.yield %r : f32
    }}
    memref.store %s, %out[%i] : memref<{m}xf32>
  }} {{mapping = [#gpu.block<x>]}}
  func.return
}}
"""


def split_k_matvec(m: int, k: int, chunks: int, tiles: int, grid: int, inner: str = "#gpu.block<x>", outer: str = "#gpu.block<x>") -> str:
    """out[i] += sum_j a[i, j] * b[j]: a chunk loop over K around a tile loop
    over rows; each (chunk, tile) adds its partial with memref.atomic_rmw.
    With both loops on #gpu.block<x> distribute linearizes them."""
    chunk = -(-k // chunks)
    rows = -(-m // tiles)
    return f"""
func.func @splitk(%a: memref<{m}x{k}xf32>, %b: memref<{k}xf32>, %out: memref<{m}xf32>) attributes {{gpu.known_grid_size = array<i32: {grid}, 1, 1>}} {{
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.forall (%c) in ({chunks}) {{
    %k0 = affine.min affine_map<(d0) -> (d0 * {chunk}, {k})>(%c)
    %k1 = affine.min affine_map<(d0) -> (d0 * {chunk} + {chunk}, {k})>(%c)
    scf.forall (%t) in ({tiles}) {{
      %m0 = affine.min affine_map<(d0) -> (d0 * {rows}, {m})>(%t)
      %m1 = affine.min affine_map<(d0) -> (d0 * {rows} + {rows}, {m})>(%t)
      scf.for %i = %m0 to %m1 step %c1 {{
        %s = scf.for %j = %k0 to %k1 step %c1 iter_args(%acc = %zero) -> (f32) {{
          %x = memref.load %a[%i, %j] : memref<{m}x{k}xf32>
          %y = memref.load %b[%j] : memref<{k}xf32>
          %p = arith.mulf %x, %y : f32
          %r = arith.addf %acc, %p : f32
          scf.yield %r : f32
        }}
        %old = memref.atomic_rmw addf %s, %out[%i] : (f32, memref<{m}xf32>) -> f32
      }}
    }} {{mapping = [{inner}]}}
  }} {{mapping = [{outer}]}}
  func.return
}}
"""


def add_2d(m: int, n: int, tile: int, grid: tuple[int, int]) -> str:
    """c = a + b over tiles of `tile` x `tile`, a 2-D loop on blocks y and x."""
    return f"""
func.func @add(%a: memref<{m}x{n}xf32>, %b: memref<{m}x{n}xf32>, %c: memref<{m}x{n}xf32>) attributes {{gpu.known_grid_size = array<i32: {grid[1]}, {grid[0]}, 1>}} {{
  %c1 = arith.constant 1 : index
  scf.forall (%i, %j) = (0, 0) to ({m}, {n}) step ({tile}, {tile}) {{
    %ie = affine.min affine_map<(d0) -> (d0 + {tile}, {m})>(%i)
    %je = affine.min affine_map<(d0) -> (d0 + {tile}, {n})>(%j)
    scf.for %ii = %i to %ie step %c1 {{
      scf.for %jj = %j to %je step %c1 {{
        %x = memref.load %a[%ii, %jj] : memref<{m}x{n}xf32>
        %y = memref.load %b[%ii, %jj] : memref<{m}x{n}xf32>
        %s = arith.addf %x, %y : f32
        memref.store %s, %c[%ii, %jj] : memref<{m}x{n}xf32>
      }}
    }}
  }} {{mapping = [#gpu.block<y>, #gpu.block<x>]}}
  func.return
}}
"""


def exported(source: str, distribute: str = "distribute", target: str = "cpu") -> str:
    return rewrite(source, f"{distribute},export-dispatch{{target={target}}}")


def run_exported(source: str, function: str, inputs: list[np.ndarray], distribute: str = "distribute") -> list[np.ndarray]:
    """Distributes, exports and runs a kernel on the CPU through IREE."""
    text = exported(source, distribute)
    return run_on_cpu(compile_mlir(text, "cpu"), function, inputs)


def prefix_rows(m: int, k: int, grid: int) -> str:
    """out[i] = sum_j a[i, j] for the first n rows only, n read at run time
    (and clamped to m by an affine.min, which bounds the trip count)."""
    return f"""
func.func @prefix(%a: memref<{m}x{k}xf32>, %nbuf: memref<1xi32>, %out: memref<{m}xf32>) attributes {{gpu.known_grid_size = array<i32: {grid}, 1, 1>}} {{
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ck = arith.constant {k} : index
  %raw = memref.load %nbuf[%c0] : memref<1xi32>
  %nn = arith.index_cast %raw : i32 to index
  %n = affine.min affine_map<(d0) -> (d0, {m})>(%nn)
  scf.forall (%i) in (%n) {{
    %s = scf.for %j = %c0 to %ck step %c1 iter_args(%acc = %zero) -> (f32) {{
      %v = memref.load %a[%i, %j] : memref<{m}x{k}xf32>
      %r = arith.addf %acc, %v : f32
      scf.yield %r : f32
    }}
    memref.store %s, %out[%i] : memref<{m}xf32>
  }} {{mapping = [#gpu.block<x>]}}
  func.return
}}
"""
