"""How split-k's static chunks are shaped and configured for IREE's GPU code:
the GPU counterpart of the CPU's `partial_tiles`, read by the split rewrites
and by the tools that compile their output.

Measured on an H200 with IREE 3.13's CUDA code compiled for sm_80
(`docs/gpu-notes.md`; `--iree-hal-dump-executable-configurations-to`
shows what IREE picks):

- A chunk with a dynamic K gets `reduction = [0, 0, 1]`: no K tile, no tensor
  cores; and IREE's code for a dynamic-K matmul is wrong on some shapes. Static
  chunks of a multiple of 64 with M padded to a multiple of 64 get
  `reduction = [0, 0, 32]` in f32 and ran the seed 123x456x51234 in 2.27 ms
  (128 chunks) against IREE's best 58.6 ms, right.
- IREE's own f32 pick stages nothing through shared memory. Workgroup 64x64,
  thread 4x4, K 32, operands promoted, prefetch 2 took the seed's chunk
  matmul from 2.30 ms to 1.14 ms; 128x128, 8x8, K 16 took 2048^3 from 4.74 ms
  to 0.747 ms (on the seed's chunks it took 2.19 ms).
- In f16 and bf16 IREE's own pick on static chunks already uses tensor cores
  (`mma_kind = NV_MMA_SYNC_F32_16x8x16_F16` on sm_80,
  `MFMA_F32_16x16x16_F16` on gfx942) with a K tile of 8 intrinsics, where
  the unsplit matmul gets 1; those chunks are left to it.
- Nothing was measured on gfx942, so its chunks get IREE's own configuration.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import DictionaryAttr, Float32Type, ModuleOp
from xdsl.ir import Attribute

from xsplit.dialects.iree_codegen import COMPILATION_INFO, CompilationInfoAttr, TranslationInfoAttr
from xsplit.dialects.iree_gpu import LoweringConfigAttr, PipelineAttr, PipelineOptionsAttr
from xsplit.targets.table import Target

GPU_SPLIT_ALIGN = 128
"""The multiple of K every static chunk (and the padded rest of the tail) is
on a GPU target: IREE's largest K step, 8 f16 intrinsics of 16, divides it,
so no chunk gets a smaller K tile than the unsplit matmul (an f16 123x456x6007
gets 8 x 16 whole; a tail padded to 64 got 4 x 16). The measured chunks of
`docs/gpu-notes.md` were multiples of 64."""
GPU_SPLIT_PAD_M = 64
"""M is padded to a multiple of this on a GPU target (a workgroup's M tile)."""


def split_alignment(target: Target) -> tuple[int | None, int | None]:
    """(align, pad_m) of `split-k{target=...}`'s static chunks on `target`:
    the GPU model's, so that the chunks it prices are the ones split-k makes."""
    if target.gpu_fit is not None:
        return target.gpu_fit.align, target.gpu_fit.pad_m
    if target.is_gpu:
        return GPU_SPLIT_ALIGN, GPU_SPLIT_PAD_M
    return target.split_align, target.split_pad_m


@dataclass(frozen=True)
class GpuTiles:
    """One TileAndFuse configuration of a matmul: a workgroup's (M, N) tile,
    a thread's, the K step, the prefetch stages (0: none) and the threads of
    a workgroup."""

    workgroup: tuple[int, int]
    thread: tuple[int, int]
    reduction: int
    prefetch: int
    subgroup_size: int = 32

    @property
    def workgroup_size(self) -> tuple[int, int, int]:
        return (
            self.workgroup[1] // self.thread[1],
            self.workgroup[0] // self.thread[0],
            1,
        )


SMALL_F32 = GpuTiles((64, 64), (4, 4), 32, 2)
"""Best on the seed's static chunks (128x456 by 400, H200): 1.14 ms, IREE's pick 2.30."""
LARGE_F32 = GpuTiles((128, 128), (8, 8), 16, 0)
"""Best on 2048^3 (H200): 0.747 ms, IREE's pick 4.74; 2.19 ms on the seed's chunks."""

LARGE_OUTPUT = 1024
"""M and N from which the 128x128 tile beats 64x64 (2048^3 measured, 128x456 not)."""


def chunk_tiles(
    target: Target, m: int, n: int, k_chunk: int, elements: tuple[Attribute, ...]
) -> GpuTiles | None:
    """The configuration of a static chunk's M x N x `k_chunk` contraction
    with these element types (inputs, then the accumulator) on `target`, or
    None where IREE's own pick is kept: f16/bf16 (it already uses tensor
    cores), ROCm (unmeasured), and outputs smaller than a 64x64 workgroup
    tile (a decode's one row: no configuration was measured to help)."""
    if target.backend != "cuda" or not all(isinstance(e, Float32Type) for e in elements):
        return None
    if m < SMALL_F32.workgroup[0] or n < SMALL_F32.workgroup[1]:
        return None
    tiles = LARGE_F32 if m >= LARGE_OUTPUT and n >= LARGE_OUTPUT else SMALL_F32
    if k_chunk % tiles.reduction:
        return None
    return tiles


def compilation_info(tiles: GpuTiles, roles: tuple[int, int, int], num_loops: int) -> CompilationInfoAttr:
    """`tiles` as the `compilation_info` of an op whose loops `roles` are
    its M, N and K (of `num_loops`)."""

    def per_loop(sizes: tuple[int, int, int]) -> list[int]:
        out = [0] * num_loops
        for loop, size in zip(roles, sizes):
            out[loop] = size
        return out

    config = LoweringConfigAttr(
        {
            "workgroup": per_loop((*tiles.workgroup, 0)),
            "thread": per_loop((*tiles.thread, 0)),
            "reduction": per_loop((0, 0, tiles.reduction)),
            "promote_operands": [0, 1],
        }
    )
    options = PipelineOptionsAttr(
        prefetch_num_stages=tiles.prefetch or None,
        no_reduce_shared_memory_bank_conflicts=False,
        use_igemm_convolution=False,
    )
    translation = TranslationInfoAttr(
        PipelineAttr("TileAndFuse"),
        tiles.workgroup_size,
        tiles.subgroup_size,
        DictionaryAttr({"gpu_pipeline_options": options}),
    )
    return CompilationInfoAttr(config, translation)


def carries_gpu_tiles(module: ModuleOp) -> bool:
    """Whether an op of `module` fixes its IREE GPU configuration."""
    return any(_gpu_info(op.attributes.get(COMPILATION_INFO)) for op in module.walk())


def fits(module: ModuleOp, target: Target) -> bool:
    """Whether every GPU configuration in `module` is one `target` can build:
    a GPU with the configurations' subgroup size."""
    for op in module.walk():
        info = op.attributes.get(COMPILATION_INFO)
        if _gpu_info(info):
            assert isinstance(info, CompilationInfoAttr)
            if not target.is_gpu or info.translation_info.subgroup_size.data != target.subgroup_size:
                return False
    return True


def drop_gpu_tiles(module: ModuleOp) -> None:
    """Removes the GPU configurations from `module`'s ops (for a target that
    cannot build them: the CPU, or a GPU of another subgroup size), leaving
    the tiles to IREE."""
    for op in module.walk():
        if _gpu_info(op.attributes.get(COMPILATION_INFO)):
            del op.attributes[COMPILATION_INFO]


def _gpu_info(info: Attribute | None) -> bool:
    return isinstance(info, CompilationInfoAttr) and isinstance(info.lowering_config, LoweringConfigAttr)
