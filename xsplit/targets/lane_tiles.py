"""IREE CPU tiles for a matrix-vector product whose K is split into vector
lanes (`split-lanes`): the matrix W[n, k] is read as W[n, k / L, L] and each
of its rows accumulates L partial sums, one per lane, that a small second
dispatch adds up.

IREE's own code for `W @ x` with K contiguous in W (a transposed matvec, as
`linalg.matvec` and ONNX's `transB=1` linear layers have it) vectorizes N
and K by 16 each and transposes every 16 x 16 block of W in registers before
its outer products: 64 shuffles a kilobyte of W (bench/RESULTS.md read it at
80-88% of a read pass). Split into lanes, the lane loop is parallel and
innermost, so registers hold one accumulator vector per row of W and each
load of W feeds one multiply and one add, with no shuffle: the loop numpy's
BLAS runs for the same product.
"""

from __future__ import annotations

from xsplit.targets.cpu_info import CpuInfo

LANE_ROWS = 8
"""Rows of W one register tile reads side by side: 8 accumulator vectors
and the vector of x leave most of AVX-512's 32 registers free, and 8
streams of rows are as many as a core's prefetchers followed (16 rows,
IREE's own tile, ran no faster)."""

LANE_WORKGROUP_ROWS = (64, 32, 16, 8)
"""Rows of W a workgroup takes: 64, IREE's own tile for a transposed
matvec, or fewer where N is short (`lane_workgroup_rows`)."""

WORKGROUPS_PER_CORE = 4
"""Workgroups a core should get at least, so that IREE's task system can
even out cores that another process slows: a matrix of 64 rows in one
workgroup would leave every core but one idle."""

LANE_K_STEP = 1
"""Steps of K (whole vectors of lanes) a register tile takes at a time: by
2 and by 4 IREE unrolled the loop into shuffles again."""


LANE_ACCUMULATORS = 16
"""Accumulator vectors a register tile of several rows of A keeps: half of
AVX-512's 32 registers, the other half for the vectors of A and W a step
loads (as split-k's streaming tiles leave them)."""

LANE_MAX_ROWS = 4
"""The most rows of A the lanes take: each row of W is then read once for
all of them, and each step loads a vector of every row of A beside the
rows of W, which with 8 rows (two rows of W a tile) is 5 loads for every 4
FMAs, and with the rows of A re-read from L2 once per register tile: 8 rows
against a 4096 x 11008 B[n, k] ran slower than IREE's own tiles, 2 and 4
rows faster (bench/RESULTS-matvec.md)."""


def lane_register_rows(a_rows: int) -> int:
    """Rows of W a register tile reads side by side for `a_rows` rows of A:
    LANE_ROWS for one row, else the most (a power of two) whose tile of
    accumulators, a_rows x rows, stays within LANE_ACCUMULATORS."""
    if a_rows <= 1:
        return LANE_ROWS
    rows = 1
    while a_rows * rows * 2 <= LANE_ACCUMULATORS:
        rows *= 2
    return rows


def lane_width(cpu: CpuInfo) -> int:
    """f32 lanes in one vector register: 16 with AVX-512, 8 with AVX2, 4 below."""
    return max(4, cpu.simd_bits // 32)


def lane_workgroup_rows(n: int, cores: int) -> int:
    """The rows of W a workgroup takes for N rows on `cores` cores: the
    most of LANE_WORKGROUP_ROWS that divide N (a tile that does not is
    masked in every workgroup) and give each core WORKGROUPS_PER_CORE
    workgroups, else the fewest that divide N; where none does, the most
    that give each core its workgroups, masked."""
    dividing = [r for r in LANE_WORKGROUP_ROWS if n % r == 0]
    enough = [r for r in dividing if n // r >= WORKGROUPS_PER_CORE * cores]
    if enough:
        return enough[0]
    if dividing:
        return dividing[-1]
    many = [r for r in LANE_WORKGROUP_ROWS if -(-n // r) >= WORKGROUPS_PER_CORE * cores]
    return many[0] if many else LANE_WORKGROUP_ROWS[-1]


def lane_tiles(cpu: CpuInfo, n: int) -> dict[str, tuple[int, int, int]]:
    """IREE CPU tile sizes by level over the lane product's loops (n, lane,
    k step): a workgroup of rows, all lanes; a register tile of LANE_ROWS
    rows by one vector; K stepped a vector at a time."""
    lanes = lane_width(cpu)
    return {
        "distribution": (min(n, lane_workgroup_rows(n, cpu.cores)), lanes, 0),
        "vector_common_parallel": (min(n, LANE_ROWS), lanes, 0),
        "vector_reduction": (0, 0, LANE_K_STEP),
    }


def lane_rows_tiles(cpu: CpuInfo, m: int, n: int) -> dict[str, tuple[int, int, int, int]]:
    """IREE CPU tile sizes by level over the lane product of M rows of A
    (loops m, n, lane, k step): every row of A in each workgroup and
    register tile, so that each row of W is read once; the register tile
    takes `lane_register_rows` rows of W."""
    lanes = lane_width(cpu)
    return {
        "distribution": (m, min(n, lane_workgroup_rows(n, cpu.cores)), lanes, 0),
        "vector_common_parallel": (m, min(n, lane_register_rows(m)), lanes, 0),
        "vector_reduction": (0, 0, 0, LANE_K_STEP),
    }
