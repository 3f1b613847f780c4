"""How `lower-gridwise-gemm` lays the cp.async copies of B's tile over its
rows: threads a row (`row_threads`) and a last tile of columns shifted back
to end at B's last column (`shifted_last_tile`), so that each row costs one
address in the K loop (sm_90's LDGSTS takes an immediate offset of only
+-2 KiB, less than a row of B)."""

from __future__ import annotations

ROW_RUN_COPIES = 8
"""Copies per thread from which a copy's threads share rows in pairs
(`row_threads`): the skinny tensor-core tile's B (32 threads, 1024 16-byte
vectors a K step: 32 each). With fewer, each copy's address is paid once
anyway."""


def row_threads(rows: int, cols: int, width: int, threads: int) -> int | None:
    """2 where each thread has ROW_RUN_COPIES or more copies of a row-major
    tile (else None: the default, a thread's copies a pass of rows apart):
    two threads' 16-byte copies make one whole 32-byte sector of a row, and
    each thread's copies of a row lie 32 bytes apart, inside sm_90's +-2 KiB
    immediate offset, so that a row costs one address, not one a copy
    (sm_90 SASS on 8x4096x14339 f16, two warps of 16x64: 27% HMMA to 35%,
    pairs of threads reading better than 1, 4 or 8 a row: 34%, 33%, 31%;
    the SKINNY entry's one warp of 16x128: 29% to 39%). The caller asks only
    where no copy of the K loop is masked along B's columns: whole tiles of
    them, or a shifted last tile (`shifted_last_tile`)."""
    runs = cols // width
    if rows * runs // threads < ROW_RUN_COPIES or runs % 2 or threads % 2:
        return None
    return 2 if rows % (threads // 2) == 0 else None


def shifted_last_tile(columns: int, tile_n: int, width: int, shares_rows: bool) -> bool:
    """Whether the last tile of B's `columns` starts at `columns - tile_n`
    instead of past the previous tile: where the columns are not whole
    tiles but hold one, each copy is `width` elements (16 bytes) that
    start aligned there, and the copy shares rows (`row_threads`). Every
    copy then lies inside B, unmasked: the K loop reads one view per row
    at constant places, where a masked column costs each copy its own
    address and mask (sm_90 SASS on 4x1000x2039 f16: 26% HMMA masked).
    The last tile's columns under the previous tile's end are computed
    twice and written once (`threadwise_write_fragments ... from`)."""
    partial = columns % tile_n != 0
    return shares_rows and partial and columns >= tile_n and (columns - tile_n) % width == 0


def masked_row_threads(rows: int, cols: int, width: int, threads: int, source_rows: int) -> int | None:
    """`row_threads`, or 2 where the copy's rows are masked (the source's
    rows not whole tiles) and pairs of threads cover the tile's rows in one
    pass: each thread then has one row, masked once for all its copies
    through a view at the row clamped into the source, where a copy a pass
    of rows apart masked each copy (sm_90 SASS on 137x139x4097 f16, the
    64x64x64 tile: 219 instructions a loop and 29% HMMA, 174 and 37%)."""
    share = row_threads(rows, cols, width, threads)
    if share is not None or source_rows % rows == 0 or (cols // width) % 2 or threads % 2:
        return share
    return 2 if rows == threads // 2 else None
