"""The tensor cores' fragment layouts (xsplit/dialects/fragments.py),
checked independently of the table the kernel and the simulator share:

- each table covers its matrices exactly once (every element of A, B and C
  held by one lane and one register);
- one `nvgpu.mma.sync` run in the simulator, its fragments loaded by each
  lane at the places the PTX ISA gives ("Matrix Fragments for mma.m16n8k16
  with floating point type", written out here by hand from the document's
  formulas), equals numpy's A @ B + C; a kernel whose lanes read a
  transposed A gets numpy's answer for the transposed product instead."""

from __future__ import annotations

import numpy as np
import pytest

from xsplit.api import parse_module
from xsplit.dialects import make_context
from xsplit.dialects.fragments import INTRINSICS, NUMPY, fragment_matrix
from xsplit.simulator.run import pick_function, simulate


@pytest.mark.parametrize("name", list(INTRINSICS))
def test_each_element_is_held_once(name: str) -> None:
    intr = INTRINSICS[name]
    for frag in (intr.a, intr.b, intr.c):
        rows, cols = fragment_matrix(frag, intr.lanes)
        assert rows.min() >= 0 and rows.max() < frag.rows
        assert cols.min() >= 0 and cols.max() < frag.cols
        held = np.zeros((frag.rows, frag.cols), dtype=int)
        np.add.at(held, (rows.ravel(), cols.ravel()), 1)
        assert (held == 1).all()


# The PTX ISA's formulas, element i of each lane's fragment (a0..a7, b0..b3,
# c0..c3), with groupID = lane >> 2 and threadID_in_group = lane % 4.
def ptx_a(lane: int, i: int) -> tuple[int, int]:
    g, t = lane >> 2, lane % 4
    row = g if (0 <= i < 2 or 4 <= i < 6) else g + 8
    col = t * 2 + (i & 1) + (8 if i >= 4 else 0)
    return row, col


def ptx_b(lane: int, i: int) -> tuple[int, int]:
    g, t = lane >> 2, lane % 4
    return t * 2 + (i & 1) + (8 if i >= 2 else 0), g


def ptx_c(lane: int, i: int) -> tuple[int, int]:
    g, t = lane >> 2, lane % 4
    return (g if i < 2 else g + 8), t * 2 + (i & 1)


def one_mma_kernel(transpose_a: bool = False) -> str:
    """Lane l loads its fragments from per-lane index tables (rows and
    columns of each element, as i32 inputs), runs one mma.sync and stores D
    where the PTX layout says C's element is."""
    lines = []
    def gather(name: str, src: str, n: int, element: str, prefix: str) -> list[str]:
        vals = []
        for i in range(n):
            lines.append(f"  %{prefix}r{i}i = memref.load %{name}_rows[%lane, %c{i}] : memref<32x8xindex>")
            lines.append(f"  %{prefix}c{i}i = memref.load %{name}_cols[%lane, %c{i}] : memref<32x8xindex>")
            lines.append(f"  %{prefix}{i} = memref.load %{src}[%{prefix}r{i}i, %{prefix}c{i}i] : {element}")
            vals.append(f"%{prefix}{i}")
        return vals
    a = gather("a", "a", 8, "memref<16x16xf16>", "av")
    b = gather("b", "b", 4, "memref<16x8xf16>", "bv")
    c = gather("c", "c", 4, "memref<16x8xf32>", "cv")
    body = "\n".join(lines)
    stores = "\n".join(
        f"  %d{i} = vector.extract %d[{i // 2}, {i % 2}] : f32 from vector<2x2xf32>\n"
        f"  memref.store %d{i}, %c[%cvr{i}i, %cvc{i}i] : memref<16x8xf32>"
        for i in range(4)
    )
    consts = "\n".join(f"  %c{i} = arith.constant {i} : index" for i in range(8))
    return f"""
func.func @one(%a: memref<16x16xf16>, %b: memref<16x8xf16>, %c: memref<16x8xf32>,
               %a_rows: memref<32x8xindex>, %a_cols: memref<32x8xindex>,
               %b_rows: memref<32x8xindex>, %b_cols: memref<32x8xindex>,
               %c_rows: memref<32x8xindex>, %c_cols: memref<32x8xindex>)
    attributes {{gpu.known_block_size = array<i32: 32, 1, 1>, gpu.known_grid_size = array<i32: 1, 1, 1>}} {{
  %lane = gpu.thread_id x
{consts}
{body}
  %av = vector.from_elements {", ".join(a)} : vector<4x2xf16>
  %bv = vector.from_elements {", ".join(b)} : vector<2x2xf16>
  %cv = vector.from_elements {", ".join(c)} : vector<2x2xf32>
  %d = nvgpu.mma.sync(%av, %bv, %cv) mmaShape = [16, 8, 16] : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
{stores}
  return
}}
"""


def tables(transpose_a: bool) -> list[np.ndarray]:
    out = []
    for f, n in ((ptx_a, 8), (ptx_b, 4), (ptx_c, 4)):
        rows = np.zeros((32, 8), dtype=np.int64)
        cols = np.zeros((32, 8), dtype=np.int64)
        for lane in range(32):
            for i in range(n):
                rows[lane, i], cols[lane, i] = f(lane, i)
        if f is ptx_a and transpose_a:
            rows, cols = cols, rows
        out += [rows, cols]
    return out


@pytest.mark.parametrize("transpose_a", [False, True])
def test_one_mma_sync_against_numpy(transpose_a: bool) -> None:
    module = parse_module(one_mma_kernel(), "one.mlir", make_context())
    fn = pick_function(module, None)
    rng = np.random.default_rng(7)
    a = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    b = rng.uniform(-1, 1, (16, 8)).astype(np.float16)
    c = rng.uniform(-1, 1, (16, 8)).astype(np.float32)
    idx = tables(transpose_a)
    lhs = a.T if transpose_a else a
    want = (c.astype(np.float64) + lhs.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    expected = [a, b, want, *idx]
    report = simulate(fn, reference=expected, inputs=[a, b, c, *idx])
    assert report.clean, report.races + report.mismatches


def test_a_divergent_warp_is_refused() -> None:
    """Lanes of one warp that do not all reach the collective: an error."""
    text = one_mma_kernel().replace(
        "  %d = nvgpu.mma.sync",
        "  %c16 = arith.constant 16 : index\n  %low = arith.cmpi ult, %lane, %c16 : index\n"
        "  scf.if %low {\n  %dd = nvgpu.mma.sync(%av, %bv, %cv) mmaShape = [16, 8, 16] : "
        "(vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>\n  }\n"
        "  %d = nvgpu.mma.sync",
    )
    module = parse_module(text, "one.mlir", make_context())
    fn = pick_function(module, None)
    args = [np.zeros((16, 16), np.float16), np.zeros((16, 8), np.float16), np.zeros((16, 8), np.float32)]
    with pytest.raises(Exception, match="divergent"):
        simulate(fn, reference=None, inputs=[*args, *tables(False)])


def ldmatrix_kernel(tiles: int, transpose: bool) -> str:
    """Lanes copy a 16x16 block into a padded workgroup tile, then each
    gives its row start from the index inputs to one nvgpu.ldmatrix and
    stores what it received into out[lane]."""
    t = "true" if transpose else "false"
    vec = f"vector<{tiles}x2xf16>"
    stores = "\n".join(
        f"  %x{i}{e} = vector.extract %v[{i}, {e}] : f16 from {vec}\n"
        f"  memref.store %x{i}{e}, %out[%lane, %c{i}, %c{e}] : memref<32x4x2xf16>"
        for i in range(tiles)
        for e in range(2)
    )
    return f"""
func.func @ld(%src: memref<16x16xf16>, %rows: memref<32xindex>, %cols: memref<32xindex>, %out: memref<32x4x2xf16>)
    attributes {{gpu.known_block_size = array<i32: 32, 1, 1>, gpu.known_grid_size = array<i32: 1, 1, 1>}} {{
  %lane = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %tile = memref.alloc() : memref<16x24xf16, #gpu.address_space<workgroup>>
  %r = arith.remui %lane, %c16 : index
  %h = arith.divui %lane, %c16 : index
  %j0 = arith.muli %h, %c8 : index
  scf.for %j = %c0 to %c8 step %c1 {{
    %col = arith.addi %j0, %j : index
    %x = memref.load %src[%r, %col] : memref<16x16xf16>
    memref.store %x, %tile[%r, %col] : memref<16x24xf16, #gpu.address_space<workgroup>>
  }}
  gpu.barrier
  %row0 = memref.load %rows[%lane] : memref<32xindex>
  %col0 = memref.load %cols[%lane] : memref<32xindex>
  %v = nvgpu.ldmatrix %tile[%row0, %col0] numTiles = {tiles} transpose = {t} : memref<16x24xf16, #gpu.address_space<workgroup>> -> {vec}
{stores}
  return
}}
"""


def run_ldmatrix(tiles: int, transpose: bool, rows: np.ndarray, cols: np.ndarray, src: np.ndarray):
    from xsplit.simulator.machine import Launch, Machine

    fn = pick_function(parse_module(ldmatrix_kernel(tiles, transpose), "ld.mlir", make_context()), None)
    out = np.zeros((32, 4, 2), np.float16)
    results = Machine(Launch((1, 1, 1), (32, 1, 1), 32)).run(fn, [src, rows, cols, out])
    return results[3][:, :tiles]


# The PTX ISA's ldmatrix, written from its text: threads 8i..8i+7 give the
# rows of matrix i; "a group of four threads loads an entire row", thread l
# receiving the pair at row l / 4, columns 2 (l % 4), 2 (l % 4) + 1; .trans
# loads the matrix column-major.
def ptx_ldmatrix(tile, rows, cols, tiles, transpose):
    out = np.zeros((32, tiles, 2), tile.dtype)
    for lane in range(32):
        for i in range(tiles):
            for e in range(2):
                if transpose:
                    a = 8 * i + 2 * (lane % 4) + e
                    out[lane, i, e] = tile[rows[a], cols[a] + lane // 4]
                else:
                    a = 8 * i + lane // 4
                    out[lane, i, e] = tile[rows[a], cols[a] + 2 * (lane % 4) + e]
    return out


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("tiles", [1, 2, 4])
def test_ldmatrix_against_the_ptx_rule(tiles: int, transpose: bool) -> None:
    rng = np.random.default_rng(tiles)
    src = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    # Arbitrary row starts: any row, either 8-column half.
    rows = rng.integers(0, 16, 32).astype(np.int64)
    cols = 8 * rng.integers(0, 2, 32).astype(np.int64)
    got = run_ldmatrix(tiles, transpose, rows, cols, src)
    assert np.array_equal(got, ptx_ldmatrix(src, rows, cols, tiles, transpose))


@pytest.mark.parametrize("operand", ["a", "b"])
def test_ldmatrix_reads_the_mma_fragments(operand: str) -> None:
    """The table's ldmatrix row addresses give each lane exactly its mma
    fragment, as the PTX ISA's mma layout (ptx_a, ptx_b above) places it."""
    intr = INTRINSICS["m16n8k16"]
    frag = intr.a if operand == "a" else intr.b
    load = frag.matrix_load
    assert load is not None
    lane = np.arange(32)
    rows, cols = (np.broadcast_to(v, (32,)).astype(np.int64) for v in load.address(NUMPY, lane))
    src = np.random.default_rng(3).uniform(-1, 1, (16, 16)).astype(np.float16)
    got = run_ldmatrix(load.tiles, load.transpose, rows, cols, src)
    place = ptx_a if operand == "a" else ptx_b
    want = np.array(
        [[[src[place(l, 2 * r + e)] for e in range(2)] for r in range(load.tiles)] for l in range(32)]
    )
    assert np.array_equal(got, want)
