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


# ---------------------------------------------------------------------------
# Linalg tiles on memref.subviews, the form seed 003 distributes. Edge tiles
# are partial (affine.min sizes), so the tiles' shapes are dynamic.
# ---------------------------------------------------------------------------

BLOCKS_YX = "[#gpu.block<y>, #gpu.block<x>]"


def _grid(grid: tuple[int, int]) -> str:
    return f"gpu.known_grid_size = array<i32: {grid[0]}, {grid[1]}, 1>"


def tiled_matmul(m: int, n: int, k: int, tm: int, tn: int, grid: tuple[int, int]) -> str:
    """c = a @ b: each tm x tn tile of c, a 2-D loop on blocks y and x, is
    zeroed by a linalg.fill and accumulated by a linalg.matmul."""
    return f"""
func.func @matmul(%a: memref<{m}x{k}xf32>, %b: memref<{k}x{n}xf32>, %c: memref<{m}x{n}xf32>) attributes {{{_grid(grid)}}} {{
  %zero = arith.constant 0.0 : f32
  scf.forall (%i, %j) = (0, 0) to ({m}, {n}) step ({tm}, {tn}) {{
    %h = affine.min affine_map<(d0) -> ({tm}, {m} - d0)>(%i)
    %w = affine.min affine_map<(d0) -> ({tn}, {n} - d0)>(%j)
    %ta = memref.subview %a[%i, 0] [%h, {k}] [1, 1] : memref<{m}x{k}xf32> to memref<?x{k}xf32, strided<[{k}, 1], offset: ?>>
    %tb = memref.subview %b[0, %j] [{k}, %w] [1, 1] : memref<{k}x{n}xf32> to memref<{k}x?xf32, strided<[{n}, 1], offset: ?>>
    %tc = memref.subview %c[%i, %j] [%h, %w] [1, 1] : memref<{m}x{n}xf32> to memref<?x?xf32, strided<[{n}, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%tc : memref<?x?xf32, strided<[{n}, 1], offset: ?>>)
    linalg.matmul ins(%ta, %tb : memref<?x{k}xf32, strided<[{k}, 1], offset: ?>>, memref<{k}x?xf32, strided<[{n}, 1], offset: ?>>) outs(%tc : memref<?x?xf32, strided<[{n}, 1], offset: ?>>)
  }} {{mapping = {BLOCKS_YX}}}
  func.return
}}
"""


def tiled_scale_add(m: int, n: int, tm: int, tn: int, grid: tuple[int, int]) -> str:
    """out[i, j] = a[i, j] * bt[j, i] + bias[j] by a linalg.generic on tiles of
    an scf.parallel mapped to blocks y and x: a transposed and a broadcast
    operand, so three different indexing maps."""
    return f"""
func.func @scale_add(%a: memref<{m}x{n}xf32>, %bt: memref<{n}x{m}xf32>, %bias: memref<{n}xf32>, %out: memref<{m}x{n}xf32>) attributes {{{_grid(grid)}}} {{
  %c0 = arith.constant 0 : index
  %cm = arith.constant {m} : index
  %cn = arith.constant {n} : index
  %ctm = arith.constant {tm} : index
  %ctn = arith.constant {tn} : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%cm, %cn) step (%ctm, %ctn) {{
    %h = affine.min affine_map<(d0) -> ({tm}, {m} - d0)>(%i)
    %w = affine.min affine_map<(d0) -> ({tn}, {n} - d0)>(%j)
    %ta = memref.subview %a[%i, %j] [%h, %w] [1, 1] : memref<{m}x{n}xf32> to memref<?x?xf32, strided<[{n}, 1], offset: ?>>
    %tb = memref.subview %bt[%j, %i] [%w, %h] [1, 1] : memref<{n}x{m}xf32> to memref<?x?xf32, strided<[{m}, 1], offset: ?>>
    %tr = memref.subview %bias[%j] [%w] [1] : memref<{n}xf32> to memref<?xf32, strided<[1], offset: ?>>
    %to = memref.subview %out[%i, %j] [%h, %w] [1, 1] : memref<{m}x{n}xf32> to memref<?x?xf32, strided<[{n}, 1], offset: ?>>
    linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} ins(%ta, %tb, %tr : memref<?x?xf32, strided<[{n}, 1], offset: ?>>, memref<?x?xf32, strided<[{m}, 1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>) outs(%to : memref<?x?xf32, strided<[{n}, 1], offset: ?>>) {{
    ^bb0(%x: f32, %y: f32, %r: f32, %o: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %p, %r : f32
      linalg.yield %s : f32
    }}
    scf.reduce
  }} {{mapping = [#gpu.loop_dim_map<processor = block_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}}
  func.return
}}
"""


def tiled_row_norms(m: int, k: int, tm: int, grid: int) -> str:
    """out[i] = sum_j a[i, j]^2: row tiles on #gpu.block<x>, each a
    linalg.fill and a linalg.generic that reduces its rows."""
    return f"""
func.func @norms(%a: memref<{m}x{k}xf32>, %out: memref<{m}xf32>) attributes {{{_grid((grid, 1))}}} {{
  %zero = arith.constant 0.0 : f32
  scf.forall (%i) = (0) to ({m}) step ({tm}) {{
    %h = affine.min affine_map<(d0) -> ({tm}, {m} - d0)>(%i)
    %ta = memref.subview %a[%i, 0] [%h, {k}] [1, 1] : memref<{m}x{k}xf32> to memref<?x{k}xf32, strided<[{k}, 1], offset: ?>>
    %to = memref.subview %out[%i] [%h] [1] : memref<{m}xf32> to memref<?xf32, strided<[1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%to : memref<?xf32, strided<[1], offset: ?>>)
    linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}} ins(%ta : memref<?x{k}xf32, strided<[{k}, 1], offset: ?>>) outs(%to : memref<?xf32, strided<[1], offset: ?>>) {{
    ^bb0(%x: f32, %acc: f32):
      %sq = arith.mulf %x, %x : f32
      %s = arith.addf %acc, %sq : f32
      linalg.yield %s : f32
    }}
  }} {{mapping = [#gpu.block<x>]}}
  func.return
}}
"""


def split_k_partials(
    m: int, n: int, k: int, chunk: int, tm: int, tn: int, grid: tuple[int, int]
) -> str:
    """partials[c] = a[:, K chunk c] @ b[K chunk c, :]: a chunk loop on
    #gpu.block<x> around a tile loop on [#gpu.block<y>, #gpu.block<x>], so
    the two share the x dimension; each tile is a fill and a matmul into a
    rank-reduced view of its chunk's partial."""
    chunks = -(-k // chunk)
    return f"""
func.func @partials(%a: memref<{m}x{k}xf32>, %b: memref<{k}x{n}xf32>, %p: memref<{chunks}x{m}x{n}xf32>) attributes {{{_grid(grid)}}} {{
  %zero = arith.constant 0.0 : f32
  scf.forall (%c) in ({chunks}) {{
    %k0 = affine.apply affine_map<(d0) -> (d0 * {chunk})>(%c)
    %kl = affine.min affine_map<(d0) -> ({chunk}, {k} - d0 * {chunk})>(%c)
    scf.forall (%i, %j) = (0, 0) to ({m}, {n}) step ({tm}, {tn}) {{
      %h = affine.min affine_map<(d0) -> ({tm}, {m} - d0)>(%i)
      %w = affine.min affine_map<(d0) -> ({tn}, {n} - d0)>(%j)
      %ta = memref.subview %a[%i, %k0] [%h, %kl] [1, 1] : memref<{m}x{k}xf32> to memref<?x?xf32, strided<[{k}, 1], offset: ?>>
      %tb = memref.subview %b[%k0, %j] [%kl, %w] [1, 1] : memref<{k}x{n}xf32> to memref<?x?xf32, strided<[{n}, 1], offset: ?>>
      %tp = memref.subview %p[%c, %i, %j] [1, %h, %w] [1, 1, 1] : memref<{chunks}x{m}x{n}xf32> to memref<?x?xf32, strided<[{n}, 1], offset: ?>>
      linalg.fill ins(%zero : f32) outs(%tp : memref<?x?xf32, strided<[{n}, 1], offset: ?>>)
      linalg.matmul ins(%ta, %tb : memref<?x?xf32, strided<[{k}, 1], offset: ?>>, memref<?x?xf32, strided<[{n}, 1], offset: ?>>) outs(%tp : memref<?x?xf32, strided<[{n}, 1], offset: ?>>)
    }} {{mapping = {BLOCKS_YX}}}
  }} {{mapping = [#gpu.block<x>]}}
  func.return
}}
"""
