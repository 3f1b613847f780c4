"""The tiles of xsplit's own GEMM kernels, in one table, GEMM_TILES: keyed
by target (its name, the target it compiles as, or its backend), element
type and a class, and read through one lookup, `gemm_tiles`, which derives
the class from the shape and the kernel's form. gemm-kernel's defaults
read it where `tile`, `threads` and `stages` are not given, and the cost
model with them: classes of output size (SMALL, LARGE, SKINNY, SLIM,
NARROW, SHORT) and of rows (RAGGED_K, RAGGED, SKINNY_NARROW_B, SKINNY_NARROW_N).
lower-reduce's fused GEMM + reduction reads its FUSED and FUSED_MMA entries.

Each entry says whether it was measured. Those marked NOT_MEASURED are the
model's starting values, chosen without a GPU from what can be measured
here (bench/pick_gemm_tiles.py --local prints it):

- global loads per FMA: a tm x tn C tile loads tm + tn elements of A and B
  per K element for tm * tn FMAs, 1/tm + 1/tn per FMA (the simulator counts
  exactly that: 1/32 for 64x64, 1/64 for 128x128;
  tests/reduce/test_gemm_kernel.py);
- bank conflicts: none for the M-major A tile (`a_row_pad`) and B's rows,
  in the simulator, for these K steps;
- workgroup memory: (tm * (tk + pad) + tk * tn) * element bytes * stages,
  against WORKGROUP_MEMORY;
- registers: gfx942's ISA metadata (`.vgpr_count`, spill counts, LDS) and the
  PTX's `.local` (spills, on sm_80; ptxas runs only on the device).

bench/gpu.py times every candidate of CANDIDATES on the device in one call,
and bench/pick_gemm_tiles.py rewrites the table between its two marker
lines from that call's gpu.json.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from xsplit.targets.table import Target

NOT_MEASURED = "not measured yet: model"

SIXTEEN_BIT = ("f16", "bf16")
"""Element types of 2 bytes: bf16 reads f16's entries."""

SMALL, LARGE, SKINNY, NARROW, SHORT = "small", "large", "skinny", "narrow", "short"
SLIM = "slim"
"""An N of at most SLIM_N beside an M from EDGE (before NARROW, where the
target has a SLIM entry): one thread along N with every column, so that
each element of A staged feeds N FMAs and no thread's columns are all
past N."""
SLIM_N = 16
RAGGED_K, RAGGED = "ragged_k", "ragged"
SKINNY_NARROW_B, SKINNY_NARROW_N = "skinny_narrow_b", "skinny_narrow_n"
"""gemm-kernel's classes of a shape's rows rather than its size, where the
target has such an entry: f16 rows of K (RAGGED_K) or of N too (RAGGED)
not whole 16-byte vectors, staged through registers where cp.async cannot
copy them; a SKINNY M whose B rows are not whole 16-byte vectors
(SKINNY_NARROW_B) or whose N is under the SKINNY tile's (SKINNY_NARROW_N,
before SKINNY_NARROW_B)."""
GEMM, FUSED, FUSED_MMA = "gemm", "fused", "fused_mma"
"""The kernels the table serves (`gemm_tiles`' `form`): gemm-kernel's GEMM,
keyed by the classes above; and lower-reduce's fused GEMM + reduction
(fused_gemm.py) on FMAs (or the CPU's loops) or tensor cores, one entry a
form whatever the shape."""
SKINNY_M_MMA = 16
"""M under which a tensor-core GEMM is SKINNY: less than one m16n8k16 (or
MFMA 16x16) block of rows, so that a taller tile's warps along M issue
MMAs on rows that are not there (LLVM drops them, leaving their copies)."""
SKINNY_M_FMA = 8
"""M under which an FMA GEMM is SKINNY: each element of B feeds fewer than
8 FMAs, so that staging B through workgroup memory (a copy and a read back
per element, for M FMAs) costs as much as the math; the SKINNY entry streams
B into registers instead (`stream_b`)."""
EDGE = 64
"""N under which (with M from it) an output is NARROW where the target has
such an entry: the SMALL tile's columns past N are a whole run or warp
column of every thread, whose math LLVM drops (the grid is known), leaving
their copies (gfx942 ISA on 200x17x1001: 53% FMA, 16% MFMA). The NARROW
tile is 32 columns wide, every thread's columns starting under 32. Likewise
an M under EDGE beside an N from it is SHORT (gfx942's f32: the f32 MFMA on
32 rows, or 16 where M fits in them)."""
LARGE_OUTPUT = 256
"""M and N from which an output is LARGE: at least 2x2 of the 128x128
tiles, whose halved loads per FMA only pay where they still leave
workgroups to spread (with fewer, the K chunks must make them all)."""

WORKGROUP_MEMORY = {"cuda": 48 * 1024, "rocm": 64 * 1024}
"""Bytes of workgroup memory a kernel may take: sm_80's without the opt-in
to more (IREE's custom dispatch asks for none), and a gfx942 CU's LDS."""

MIN_CHUNK_STEPS = 8
"""The fewest K steps `default_chunks` leaves a chunk: fewer and the
prologue, the epilogue and (stages=2) the pipeline's fill dominate."""


@dataclass(frozen=True)
class GemmTiles:
    """One configuration of the kernel: the C tile and K step (M, N, K),
    the threads (M, N), the staged tiles in flight, whether and where it
    was measured, and why it is the entry."""

    tile: tuple[int, int, int]
    threads: tuple[int, int]
    stages: int = 1
    measured: str = NOT_MEASURED
    why: str = ""
    columns: int = 1
    """Without tensor cores: each thread's columns in runs of this many
    (`thread_columns`), read from B's tile in one wide read a run."""
    warps: tuple[int, int] | None = None
    """With tensor cores: warps (wavefronts) along M and N; None: gemm-kernel's
    default (2x2)."""
    stream_b: bool = False
    """Without tensor cores: B read from global memory straight into the
    threads' registers, only A staged (`gridwise_gemm`'s `stream_b`); the
    tile's M is then the output's M rounded up to 1, 2, 4 or 8."""
    mma: str | None = None
    """An intrinsic `mma=auto` does not take by itself that this entry
    multiplies with (gfx942's f32 MFMA, `fragments.INTRINSICS`' name)."""

    @property
    def options(self) -> str:
        """As gemm-kernel's options: `tile=M,N,K threads=M,N stages=S` (and
        `warps`, `stream_b=on` where the entry has them)."""
        warps = f" warps={','.join(map(str, self.warps))}" if self.warps else ""
        stream = " stream_b=on" if self.stream_b else ""
        mma = f" mma={self.mma}" if self.mma else ""
        return (
            f"tile={','.join(map(str, self.tile))} threads={','.join(map(str, self.threads))} "
            f"stages={self.stages}{warps}{stream}{mma}"
        )

    @property
    def label(self) -> str:
        tm, tn, tk = self.tile
        return f"{tm}x{tn}x{tk} t{self.threads[0]}x{self.threads[1]} s{self.stages}"

    @property
    def tile_m(self) -> int:
        return self.tile[0]

    @property
    def tile_n(self) -> int:
        return self.tile[1]

    @property
    def step_k(self) -> int:
        """K elements staged through workgroup memory per step; 0: no staging."""
        return self.tile[2]

    @property
    def threads_m(self) -> int:
        return self.threads[0]

    @property
    def threads_n(self) -> int:
        return self.threads[1]

    @property
    def thread_count(self) -> int:
        return self.threads[0] * self.threads[1]

    @property
    def regs_m(self) -> int:
        return self.tile[0] // self.threads[0]

    @property
    def regs_n(self) -> int:
        return self.tile[1] // self.threads[1]


_FOUR = "today's layout (the fused kernel's): 4x4 registers, loads per FMA 1/32; "
_SMALL_WHY = _FOUR + "the largest tile a skinny output fills; gfx942: 64 VGPRs, no spills"
_SMALL_F32 = (
    "8x4 registers: a K step's 16 FMAs per K read A as one 128-bit read per 4 K and "
    "B as 4 words (sm_90 SASS: 74-81% FFMA, 512 per barrier, 96-128 registers; "
    "4x4 was 66%); 2 stages of cp.async, 4 bytes an element where K is odd"
)
_LARGE_F32 = (
    "8x8 registers halve the loads per FMA (1/64); 2 stages of 8 KiB of tiles; "
    "gfx942: 108 VGPRs, no spills; sm_80: no .local; cp.async hides the loads"
)
_LARGE_F16 = (
    "8x8 registers (loads per FMA 1/64); K steps of 16 give each thread one "
    "16-byte copy of A and of B (K 8 would be 8 bytes; cp.async refuses the masked 2-byte "
    "remainder of smaller ones); gfx942: 97 VGPRs, no spills"
)

_SMALL_MMA = (
    "tensor cores, 4 warps of 32x32: K steps of 64 make 32 HMMA per barrier (sm_90 SASS: "
    "37% HMMA, 78 registers, no spills; K 16 was 8 a barrier); 2 stages of 16 KiB"
)
_LARGE_MMA = (
    "tensor cores, 4 warps of 64x64: K steps of 32 make 64 HMMA per barrier (sm_90 SASS: "
    "56% HMMA, 246 registers, no spills; K 16 was 46%); 2 stages of 16 KiB (3 add nothing "
    "to the loop's mix)"
)

# The GEMM lower-reduce fuses with a reduction (fused_gemm.py): the staged
# kernel's FMA tiles on GPUs, one thread's loops over a tile on the CPU.
_FUSED_GPU = (
    "the GEMM + reduction lower-reduce fuses (FMA registers): 4x4 registers, loads per FMA "
    "1/32; 16 lanes per row of the tile fit a warp and a wave, so a row's subgroup step "
    "needs no workgroup memory; K steps of 16: each thread copies 4 elements of A and 4 "
    "of B a step, 8 KiB of workgroup memory"
)
_FUSED_CPU = (
    "the fused GEMM + reduction on llvm-cpu: one thread per workgroup loops over its tile "
    "(K step 0: no staging), so that a 512x512 C still makes 256 workgroups"
)
_FUSED_MMA = (
    "the fused GEMM + reduction on tensor cores (f16 and bf16 where the target has an "
    "intrinsic for them): K steps of 32, so that each thread copies whole 128-bit vectors of "
    "A and B (8 halves) on both targets; four warps (wavefronts on gfx942), each a 32x32 warp "
    "tile; the epilogue's threads 16 per row of the tile, as the FMA entry's, as many as the "
    "warps' lanes (128 on CUDA, 256 on gfx942)"
)

_RAGGED_K_F16 = (
    "f16 rows of K not whole 16-byte vectors on CUDA: A through registers 2 bytes a load, "
    "B by cp.async; sm_90: 158-253 registers, no spills, 32 HMMA per barrier"
)
_RAGGED_F16 = (
    "f16 rows of K and N both not whole 16-byte vectors on CUDA: both staged through "
    "registers 2 bytes a load; the largest tile that does not spill (sm_90: 190 registers; "
    "64x64x64 spills 184 bytes)"
)

_GFX942_SMALL_F32 = (
    "4x8 registers, each row's 8 columns in two runs of 4 (two ds_read_b128 of B a K), K "
    "steps of 16 double-buffered through registers: 256 v_pk_fma a barrier; gfx942 ISA: "
    "61-64% of the K loop on 142x1867x2039, 64x96x997, 100x72x1001 and 128x128x1024, about "
    "275 VGPRs, no scratch (8x4 registers: 56-58%, 156 LDS reads a loop where this has "
    "128). Short on an edge under 64 (200x17x1001: 53%), whose FMAs past N LLVM drops"
)
_GFX942_LARGE_F32 = (
    "8x8 registers in runs of 4 columns (ds_read_b128 of B), double-buffered through "
    "registers: 256 v_pk_fma a barrier; gfx942 ISA: 72-73% of the K loop, 256 VGPRs, no "
    "scratch (runs of 1: 60-64%, ds_read2_b32 and register moves)"
)
_GFX942_MFMA = (
    "MFMA 16x16x16, 4 wavefronts of 64x64: K steps of 32 make 32 MFMA a barrier, "
    "double-buffered through registers, B K-packed from 16-byte loads; gfx942 ISA: 23-29% "
    "MFMA on odd, prime and aligned K, about 125-140 VGPRs, no scratch (64x64x16: 8 a "
    "barrier, 4-23%)"
)

_SKINNY_MMA = (
    "M under 16 on tensor cores: one warp of 16x128, so that every HMMA has rows of C and "
    "K steps of 64 make 64 HMMA per barrier; B's cp.async in pairs of threads a row "
    "(`row_threads`), one address a row (sm_90 SASS on 8x4096x14339: 39% HMMA, 158 "
    "registers, no spills; 2 warps of 16x64: 35%, 32 a barrier, 27% with an address a "
    "copy). B is read once per HMMA: 0.5 16-byte cp.async and 0.5 ldmatrix.x4.trans a "
    "HMMA at best, so the loop's fixed cost (barrier, waits, counters) decides; one warp "
    "pays it once per 64 HMMA. 36 KiB of tiles a warp: 6 warps and 96 KiB of B in flight "
    "on an H100's SM"
)
_SKINNY_MMA_NARROW_B = (
    "M under 16 on tensor cores where B's rows are not whole 16-byte vectors (N even, not a "
    "multiple of 8): B by cp.async of 4 or 8 bytes, 4 or 2 times the copies, shared by two "
    "warps of 16x64, the last tile of columns shifted (sm_90 SASS: 23% HMMA on 11x302x3001, "
    "127 registers; 30% on 5x1004x2039, 94; one warp of 16x128: 24% at 255 registers, 31% "
    "at 166; 16x64x128 on one warp: 22%, 29%)"
)
_SKINNY_MMA_NARROW_N = (
    "M under 16 on tensor cores where N is under one 128-column tile: one warp of 16x64, K "
    "steps of 128 (64 HMMA a barrier), the last tile of columns shifted back to end at B's "
    "last column, A's and B's copies in pairs of threads a row (one address a row); sm_90 "
    "SASS: 36-38% HMMA on 2x64x999, 7x96x2047, 11x88x3001, 13x120x2039, 96-128 registers; "
    "30% on 3x100x2048 (8-byte copies), 20% on N under 64 (HMMAs past N dropped). The "
    "skinny 16x128x64 on two warps: 16-23%, 32 a barrier; 16x64x64 on one warp: 31-33%, 32"
)

_GFX942_SKINNY_MMA = (
    "M under 16 in f16 on MFMA: A and B widened to f32 (exact) for eight v_mfma_f32_16x16x4_f32 "
    "over 128 interleaved columns (`mma`), so that a lane's B for all eight is one 16-byte LDS "
    "read and no MFMA needs B's K packed; 16x256x32 on 1x2 wavefronts: 64 MFMA a barrier "
    "(gfx942 ISA: 24-28% MFMA on 8x4096x14339, 1x2048x4097, 4x1000x2039, 11x302x3001, "
    "15x512x4096, 3x100x2048, 116-198 VGPRs, no scratch). The f16 MFMA's 16x128x64 read 12%: "
    "2 v_perm_b32 a MFMA pack B's K, which nothing amortises with one block of rows"
)

_SKINNY_F32 = (
    "M under 8 without tensor cores: one thread along M with every row (M rounded up to 1, 2, "
    "4 or 8), 8 columns in runs of 4; B from global memory straight into registers (16-byte "
    "loads, each element once), A alone staged by cp.async (4 bytes an element) and read as "
    "one broadcast 16-byte shared read per 4 K; K steps of 32 make 256 FFMA a barrier on M = 1 "
    "(sm_90 SASS on 1x2048x4097: see bench/RESULTS-machine-code.md). Staged, B bounds M = 1 at "
    "65% FFMA (a copy and a read back per 4 FFMA)"
)
_GFX942_MFMA_SMALL = (
    "MFMA 16x16x16, 4 wavefronts of 64x64, as on large outputs: K steps of 32 make 32 MFMA a "
    "barrier (gfx942 ISA on 64x96x4096: 29% MFMA, 140 VGPRs, no scratch; 48x40x2039: 20%; "
    "the 64x64x64 tile of 4 wavefronts of 32x32: 18%, 16 a barrier). Fewer, larger tiles "
    "leave the split to fill the CUs: the model's counts of one wave (`own_counts`) give "
    "the seed 73 chunks, 292 workgroups on 304 CUs"
)

_GFX942_NARROW_F32 = (
    "N under 64 in f32 on MFMA (v_mfma_f32_16x16x4_f32): 2 wavefronts along M of 64x32, K "
    "steps of 32: 64 MFMA a barrier (gfx942 ISA on 200x17x1001: 36%, 133 VGPRs, no scratch; "
    "4x1 wavefronts: 30%, 32 a barrier). FMAs on 128x32x16, 16x8 threads of 8x4: 59%, 256 "
    "a barrier, 282 VGPRs (LLVM splits its 16-byte A reads into ds_read2_b32 and "
    "ds_read_b96); the 64x64x16 tile: 53-56%, 128 a barrier, its second runs dropped"
)
_GFX942_NARROW_MFMA = (
    "N under 64 on MFMA: 2 wavefronts along M of 128x32 (8x2 blocks), K steps of 32: 32 MFMA "
    "a barrier, none past N dropped (gfx942 ISA on 200x17x1001: 23%, 142 VGPRs, no scratch; "
    "the 128x128x32 tile: 16%, 16 a barrier; 256x32x32 on 4x1: 18%; 128x32x64 on 2x1: 18%)"
)

_SLIM_F32 = (
    "N at most 16 beside an M from 64 in f32: one thread along N with all 8 columns of a "
    "tile, 32x1 threads of 4x8 over 128x8, so that each element of A staged feeds 8 FFMA "
    "(N under 8: N) and no thread's columns are all past N; A's cp.async in pairs of "
    "threads a row, one view a pass of rows (sm_90 SASS: 76-82% FFMA on 1686x8x7453, "
    "1956x6x1664, 460x15x5027, 1000x7x2039, 1000x4x4096, 1024 a barrier at N = 8; the "
    "SMALL 64x64 tile: 47-59%, 128 a barrier). "
    "Short on an odd K with N under 6: a 4-byte copy of A a N FFMA (69% on N = 4 and 5, "
    "60% on 3, 34% on 1)"
)

_GFX942_SKINNY_F32 = (
    "M under 8 in f32 on MFMA (v_mfma_f32_16x16x4_f32, `mma`): one 16-row block of "
    "wavefronts, 2 along N, K steps of 32: 32 MFMA a barrier; a lane's B is one element, "
    "read from B's tile as staged (no packing). gfx942 ISA: 22-24% MFMA on M = 1-7 "
    "(1x2048x4097, 5x4096x14339, 7x512x2048), 18% on odd N (3x1001x2039), about 150 VGPRs, "
    "no scratch. FMAs cannot make 60% on M = 1: a 16-byte load of B feeds 2 v_pk_fma "
    "(the 64x64x16 tile: 43%, 64 a barrier; B streamed, stream_b=on: 29-31%)"
)

_GFX942_SHORT_F32 = (
    "M under 64 in f32 on MFMA (v_mfma_f32_16x16x4_f32): 32 rows (16 where M fits in them), "
    "2 wavefronts along N, K steps of 32: 64 MFMA a barrier, each element of B feeding two; "
    "gfx942 ISA: 35-36% MFMA on 17x1000x997 and 48x1000x997, 139-168 VGPRs, no scratch (the "
    "64x64x16 FMA tile: 57%, 128 v_pk_fma a barrier, its rows past M dropped; 12x1000x997: "
    "42%, 64)"
)

# bench/pick_gemm_tiles.py rewrites the entries between the two marker lines.
# gemm-tiles table: begin
GEMM_TILES: dict[tuple[str, str, str], GemmTiles] = {
    ("sm_80", "f32", SMALL): GemmTiles((64, 64, 16), (8, 16), 2, NOT_MEASURED, _SMALL_F32),
    ("sm_80", "f32", LARGE): GemmTiles((128, 128, 8), (16, 16), 2, NOT_MEASURED, _LARGE_F32),
    ("sm_80", "f16", SMALL): GemmTiles((64, 64, 64), (16, 16), 2, NOT_MEASURED, _SMALL_MMA),
    ("sm_80", "f16", LARGE): GemmTiles((128, 128, 32), (16, 16), 2, NOT_MEASURED, _LARGE_MMA),
    ("sm_90", "f32", SMALL): GemmTiles((64, 64, 16), (8, 16), 2, NOT_MEASURED, _SMALL_F32),
    ("sm_90", "f32", LARGE): GemmTiles((128, 128, 8), (16, 16), 2, NOT_MEASURED, _LARGE_F32),
    ("sm_90", "f16", SMALL): GemmTiles((64, 64, 64), (16, 16), 2, NOT_MEASURED, _SMALL_MMA),
    ("sm_90", "f16", LARGE): GemmTiles((128, 128, 32), (16, 16), 2, NOT_MEASURED, _LARGE_MMA),
    ("sm_80", "f16", SKINNY): GemmTiles(
        (16, 128, 64), (1, 32), 2, NOT_MEASURED, _SKINNY_MMA, warps=(1, 1)
    ),
    ("sm_90", "f16", SKINNY): GemmTiles(
        (16, 128, 64), (1, 32), 2, NOT_MEASURED, _SKINNY_MMA, warps=(1, 1)
    ),
    ("sm_80", "f32", SKINNY): GemmTiles(
        (8, 256, 32), (1, 32), 2, NOT_MEASURED, _SKINNY_F32, columns=4, stream_b=True
    ),
    ("sm_90", "f32", SKINNY): GemmTiles(
        (8, 256, 32), (1, 32), 2, NOT_MEASURED, _SKINNY_F32, columns=4, stream_b=True
    ),
    ("gfx942", "f32", SMALL): GemmTiles(
        (64, 64, 16), (16, 8), 2, NOT_MEASURED, _GFX942_SMALL_F32, columns=4
    ),
    ("gfx942", "f32", LARGE): GemmTiles(
        (128, 128, 8), (16, 16), 2, NOT_MEASURED, _GFX942_LARGE_F32, columns=4
    ),
    ("gfx942", "f16", SMALL): GemmTiles(
        (128, 128, 32), (16, 16), 2, NOT_MEASURED, _GFX942_MFMA_SMALL
    ),
    ("gfx942", "f16", LARGE): GemmTiles((128, 128, 32), (16, 16), 2, NOT_MEASURED, _GFX942_MFMA),
    ("gfx942", "f16", SKINNY): GemmTiles(
        (16, 256, 32), (1, 128), 2, NOT_MEASURED, _GFX942_SKINNY_MMA, warps=(1, 2),
        mma="mfma_f32_16x16x4_f32_x8",
    ),
    ("gfx942", "f32", SKINNY): GemmTiles(
        (16, 128, 32), (1, 128), 2, NOT_MEASURED, _GFX942_SKINNY_F32, warps=(1, 2),
        mma="mfma_f32_16x16x4_f32",
    ),
    ("gfx942", "f32", SHORT): GemmTiles(
        (32, 128, 32), (1, 128), 2, NOT_MEASURED, _GFX942_SHORT_F32, warps=(1, 2),
        mma="mfma_f32_16x16x4_f32",
    ),
    ("gfx942", "f32", NARROW): GemmTiles(
        (128, 32, 32), (4, 32), 2, NOT_MEASURED, _GFX942_NARROW_F32, columns=4, warps=(2, 1),
        mma="mfma_f32_16x16x4_f32",
    ),
    ("gfx942", "f16", NARROW): GemmTiles(
        (256, 32, 32), (16, 16), 2, NOT_MEASURED, _GFX942_NARROW_MFMA, warps=(2, 1)
    ),
    ("sm_80", "f32", SLIM): GemmTiles(
        (128, 8, 32), (32, 1), 2, NOT_MEASURED, _SLIM_F32, columns=4
    ),
    ("sm_90", "f32", SLIM): GemmTiles(
        (128, 8, 32), (32, 1), 2, NOT_MEASURED, _SLIM_F32, columns=4
    ),
    ("cuda", "f16", RAGGED_K): GemmTiles((64, 64, 64), (16, 16), 2, NOT_MEASURED, _RAGGED_K_F16),
    ("cuda", "f16", RAGGED): GemmTiles((64, 64, 32), (16, 16), 2, NOT_MEASURED, _RAGGED_F16),
    ("cuda", "f16", SKINNY_NARROW_B): GemmTiles(
        (16, 128, 64), (1, 64), 2, NOT_MEASURED, _SKINNY_MMA_NARROW_B, warps=(1, 2)
    ),
    ("cuda", "f16", SKINNY_NARROW_N): GemmTiles(
        (16, 64, 128), (1, 32), 2, NOT_MEASURED, _SKINNY_MMA_NARROW_N, warps=(1, 1)
    ),
    ("cuda", "f32", FUSED): GemmTiles((64, 64, 16), (16, 16), 1, NOT_MEASURED, _FUSED_GPU),
    ("rocm", "f32", FUSED): GemmTiles((64, 64, 16), (16, 16), 1, NOT_MEASURED, _FUSED_GPU),
    ("cpu", "f32", FUSED): GemmTiles((32, 32, 0), (1, 1), 1, NOT_MEASURED, _FUSED_CPU),
    ("cuda", "f16", FUSED_MMA): GemmTiles(
        (64, 64, 32), (8, 16), 1, NOT_MEASURED, _FUSED_MMA, warps=(2, 2)
    ),
    ("rocm", "f16", FUSED_MMA): GemmTiles(
        (64, 64, 32), (16, 16), 1, NOT_MEASURED, _FUSED_MMA, warps=(2, 2)
    ),
}
# gemm-tiles table: end

CANDIDATES: tuple[GemmTiles, ...] = (
    GemmTiles((64, 64, 16), (16, 16), 1),
    GemmTiles((64, 64, 16), (16, 16), 2),
    GemmTiles((64, 64, 32), (16, 16), 2),
    GemmTiles((32, 32, 32), (8, 8), 2),
    GemmTiles((128, 64, 16), (16, 16), 2),
    GemmTiles((128, 128, 8), (16, 16), 1),
    GemmTiles((128, 128, 8), (16, 16), 2),
    GemmTiles((128, 128, 16), (16, 16), 2),
)
"""What the device call times per element type and output size; those a
form cannot take (`can_take`) are left out."""


def shape_class(m: int, n: int) -> str:
    return LARGE if min(m, n) >= LARGE_OUTPUT else SMALL


def element_name(element: object) -> str:
    """`f32`, `f16`: the table's key for an element type (its printed form)."""
    return str(element)


def target_keys(target: Target) -> tuple[str, ...]:
    """The names `target`'s entries are looked up under, first found first:
    its own, the target it compiles as, its backend (`cuda`, `rocm`; the
    CPU's entries are under its name, `cpu`)."""
    names = (target.name, target.compiles_as, target.backend)
    return tuple(dict.fromkeys(name for name in names if name))


def _lookup(
    target: Target, element: str, classes: tuple[str, ...], intrinsics: bool = True
) -> GemmTiles | None:
    """The first entry of `classes` (in order) under `target`'s names, where
    `intrinsics` or the entry names no intrinsic of its own."""
    return next(
        (
            GEMM_TILES[key]
            for c in classes
            for name in target_keys(target)
            if (key := (name, element, c)) in GEMM_TILES
            and (intrinsics or GEMM_TILES[key].mma is None)
        ),
        None,
    )


def gemm_tiles(
    target: Target, element: str, m: int, n: int, k: int, stream_b: bool = True,
    intrinsics: bool = True, form: str = GEMM,
) -> GemmTiles:  # fmt: skip
    """The table's entry for an M x N x K GEMM with A and B of `element` on
    `target` (under its name, the target it compiles as, or its backend:
    `target_keys`), for gemm-kernel (`form` GEMM) or lower-reduce's fused
    kernel (FUSED, FUSED_MMA: one entry a target and element, f32's for an
    element without one). Where rows of f16 are of
    an odd length (their 2-byte copies cannot be asynchronous) gemm-kernel
    pads them first and asks for the padded shape; with `pad=none` it
    stages A through registers instead (RAGGED_K: B still by
    cp.async); where B's rows are odd too, both go through registers, 2
    bytes a load (RAGGED). Registers staging the
    next tile leave less room for the accumulators: on sm_90 128x128x32
    spills 1.4 KB either way. A skinny f32 M takes the entry that streams B
    into registers unless `stream_b` is False; a skinny M whose N is under
    one tile takes its SKINNY_NARROW_N entry (f16 on CUDA: one warp of
    16x64), one whose B rows are not whole 16-byte vectors its
    SKINNY_NARROW_B entry (f16 on CUDA: two warps). Without `intrinsics` an
    entry that names an intrinsic (`mma`) is passed over for the next class
    (FMAs asked for, or a tile or threads given)."""
    # bf16 is f16's size and takes the same intrinsics' shapes: f32's
    # K steps of 8 are no whole MMA block, and its stages=2 no cp.async of 8.
    sixteen = element in SIXTEEN_BIT
    key_element = "f16" if sixteen else element
    if form != GEMM:
        found = _lookup(target, key_element, (form,)) or _lookup(target, "f32", (form,))
        if found is None:
            raise KeyError(f"the tile table has no {form} entry for {target.name}")
        return found
    cls = shape_class(m, n)
    # A skinny M takes its own entry where the target has one: tensor
    # cores under one block of rows, FMAs under 8 rows.
    skinny = m < SKINNY_M_MMA if sixteen else stream_b and element == "f32" and m < SKINNY_M_FMA
    # An edge under EDGE beside the other from it takes a narrow or short
    # tile where the target has one.
    slim = (SLIM,) if n <= SLIM_N else ()
    edge = (*slim, NARROW) if n < EDGE <= m else (SHORT,) if m < EDGE <= n else ()
    classes = (SKINNY, cls) if skinny else (*edge, cls)
    entry = _lookup(target, key_element, classes, intrinsics) or (
        # An element the table does not hold: f32's layout, which the
        # kernel's verifier judges (it refuses what it cannot take).
        GEMM_TILES.get((target.name, "f32", cls)) or GEMM_TILES[("sm_80", "f32", cls)]
    )
    if entry.mma and m <= 16 < entry.tile_m:
        # One block of MFMA rows holds M: a second would be all past it.
        entry = replace(entry, tile=(16, *entry.tile[1:]))
    if entry.stream_b:
        # The thread has every row: no more of them than M needs; and the
        # K step holds an element of A's tile for every thread to copy.
        rows = min(1 << max(0, m - 1).bit_length(), entry.tile_m)
        step = max(entry.step_k, entry.thread_count // rows)
        entry = replace(entry, tile=(rows, entry.tile_n, step))
    # Rows' classes where the target has entries for them: a staged second
    # tile whose copies the rows' lengths break; B too narrow for the tile.
    row_class = RAGGED if n % 2 else RAGGED_K if k % 2 else None
    if row_class and entry.stages == 2:
        ragged = _lookup(target, key_element, (row_class,))
        if ragged is not None:
            return ragged
    narrow = (SKINNY_NARROW_N,) if n < entry.tile_n else ()
    if skinny and (n % 8 or narrow):
        return _lookup(target, key_element, (*narrow, SKINNY_NARROW_B)) or entry
    return entry


def can_take(tiles: GemmTiles, target: Target, element: str) -> str | None:
    """Why the kernel cannot take `tiles` for `element` on `target`, or
    None: stages=3 and 4 only on CUDA, and stages=2 on CUDA only where
    every thread's share of a staged row is a 4, 8 or 16-byte copy (gfx942
    stages through registers)."""
    tm, tn, tk = tiles.tile
    threads = tiles.threads[0] * tiles.threads[1]
    if tm % tiles.threads[0] or tn % tiles.threads[1]:
        return "the threads do not divide the tile"
    if (tm * tk) % threads or (tn * tk) % threads:
        return "a thread would copy part of an element"
    if tiles.stages > 2 and target.backend != "cuda":
        return "stages=3 and 4 use cp.async (CUDA only)"
    # gfx942 stages its second tile through registers: any whole share.
    if tiles.stages == 2 and target.backend == "cuda":
        size = 2 if element in SIXTEEN_BIT else 4
        share = min(tm * tk, tn * tk) // threads * size
        if tk % 4 or share < 4 or (size == 2 and share < 16):
            return "cp.async copies 4, 8 or 16 bytes; a thread's share is smaller"
    return None


def default_chunks(target: Target, m: int, n: int, k: int, tiles: GemmTiles) -> int:
    """The K chunks that make about one wave of workgroups (processors x
    resident workgroups) from the output's tiles, keeping MIN_CHUNK_STEPS
    steps in each: the model's count, not yet measured."""
    tm, tn, tk = tiles.tile
    output_tiles = -(-m // tm) * -(-n // tn)
    wave = target.processors * target.resident_workgroups
    chunks = max(1, round(wave / output_tiles))
    return max(1, min(chunks, k // (MIN_CHUNK_STEPS * tk)))
