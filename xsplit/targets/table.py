"""The targets xsplit compiles for and chooses splits for: the one place their
iree-compile 3.13 flags and their machine parameters are written down.

Each entry holds what the split cost model (`xsplit.analysis.cost_model`)
needs: how many processors run workgroups side by side, the output tile IREE
gives one workgroup, the peak arithmetic rate per element type, the memory
bandwidth, and the per-processor cache that decides whether a workgroup's
operand panels stay resident. The GPU entries' split model (`GpuFit`) is
what IREE's code reached on an H200 (docs/split-k.md, "On a GPU, fitted on
an H200"); xsplit's own kernel's model (`OwnKernelFit`) takes its rates
from `own_kernel_terms.py` (docs/split-k.md, "xsplit's own kernel"). Their
other figures are the vendors' datasheets, which only plain reductions (and
the own kernel's scaled rates) still use. The CPU's are what IREE's code reaches on it,
measured with `xsplit bench` (bench/RESULTS.md), since a datasheet peak
says little about code that does not reach it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from xdsl.dialects.builtin import AnyFloat, IntegerType
from xdsl.ir import Attribute

from xsplit.diagnostics import XsplitError
from xsplit.targets.cpu_info import CpuInfo, host_cpu
from xsplit.targets.own_kernel_terms import (
    OWN_KERNEL_TERMS,
    REFERENCE,
    SCALED,
    OwnKernelTerm,
)

TERA = 1e12
GIGA = 1e9
KIB = 1024
MIB = 1024 * KIB


def host_threads() -> int:
    """The threads IREE's CPU runtime may use here: the CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@dataclass(frozen=True, eq=False)
class GpuFit:
    """The GPU split model's parameters (`cost_model.gpu_estimate`), fitted
    on an NVIDIA H200 (132 SMs) to the times in docs/split-k.md's "Choosing
    the split for a target" (from `docs/gpu-notes.md`), per processor
    (SM or CU), so that another GPU scales them by its processor count and
    bandwidth. Rates are what IREE 3.13's code reached, not datasheet peaks.

    A dispatch of W workgroups, each a tile of A = tile_m x tile_n outputs
    (a clipped one covers a < A) over kc steps of K, takes on the busiest
    processor, holding L = ceil(W / processors) of them,

        max(L x a / A, saturation) x (kc + workgroup_steps) x 2 A / rate

    with an `unaligned` saturation where N (or M) is not a multiple of the
    tile: a processor needs `saturation` full workgroups resident to reach
    its rate, and below that its time is one workgroup's latency."""

    chunk_tile: tuple[int, int]
    """The (M, N) workgroup tile of split-k's static chunks (the GPU tiles
    split-k sets on them; IREE's own pick for f16); narrower in N where N is
    a multiple of a power of two down to 16 and not of this."""
    chunk_rate: dict[str, float]
    """FLOP/s of one processor on a chunk's tiles, by element class."""
    chunk_saturation: dict[str, float]
    """Full-tile workgroups one processor needs resident to reach `chunk_rate`."""
    workgroup_steps: dict[str, int]
    """A chunk workgroup's fixed cost (fill, partial write-back, pipeline
    fill), in steps of K at its rate."""
    whole_tile: dict[str, tuple[int, int]]
    """IREE's own workgroup tile on the whole op (no split), by element class."""
    whole_rate: dict[str, float]
    """FLOP/s of one processor on IREE's own configuration of the whole op."""
    whole_saturation: dict[str, float]
    """Whole-op workgroups one processor needs resident to reach `whole_rate`."""
    unaligned: float
    """How many times the saturation grows where the tiles do not divide
    the output (IREE pads or masks every K step)."""
    matvec_bandwidth: float
    """Bytes/s per processor at which IREE's own one-row (decode) code reads B."""
    launch: float
    """Seconds per dispatch."""
    align: int
    """split-k's static chunks are a multiple of this (`split-k{align=}`)."""
    pad_m: int
    """M is padded to a multiple of this (`split-k{pad_m=}`)."""
    min_chunk: int
    """The shortest chunk of K the model considers."""
    counts: tuple[int, ...]
    """The chunk counts measured on every shape, which the model prefers.
    Where the output's tiles are fewer than the processors it also weighs
    powers of two and the counts that fill whole waves
    (`cost_model.gpu.gpu_counts`), and takes one of them only where none of
    these fills the machine (`cost_model.gpu.weighed_counts`)."""
    latency_bytes: int = 32 * 1024
    """Bytes one processor needs in flight to read at its share of the
    memory's bandwidth (Little's law: an H200's 4.8 TB/s over 132 SMs at
    about 0.9 us of latency is 32 KiB an SM)."""
    in_flight_k: tuple[tuple[str, int], ...] = (("f32", 64), ("f16", 128))
    """Steps of K a chunk workgroup has in flight, by element class: f32 on
    split-k's tiles reads K 32 at a time two stages deep (prefetch 2); f16
    on IREE's tensor-core tiles 8 intrinsics of 16, one stage."""


@dataclass(frozen=True)
class OwnKernelFit:
    """xsplit's own split-K GEMM kernel (`gemm-kernel` with its target's
    tile table, `xsplit/targets/gemm_tiles.py`: static K chunks on grid z, an
    atomic or deterministic merge inside it), priced by `GpuFit`'s formula
    per processor. Its rate per element class is data with a source and a
    basis (`own_kernel_terms.OWN_KERNEL_TERMS`: measured, anchored on a
    kernel that ran, bounded by IREE's measured code, or scaled from another
    GPU); the other terms are the H200's, each saying where it comes from."""

    terms: dict[str, OwnKernelTerm]
    """The rate and its source, by element class (f32, f16)."""
    saturation_outputs: dict[str, int]
    """C elements one processor needs in flight (resident workgroups x
    tile) to reach its rate, by element class: a larger tile holds more C a
    thread (8x8 for 128x128), so it needs fewer workgroups."""
    workgroup_steps: dict[str, int]
    """A workgroup's fixed cost, in steps of K at the rate, by element class."""
    atomic_rate: float
    """f32 atomic adds per second into global memory, per processor."""
    counts: tuple[int, ...]
    """IREE's chunks' measured counts, which the model always weighs; on a
    starved output it weighs the powers of two and the counts of one wave
    beside them, all on its modeled times (`cost_model.own_kernel.own_counts`)."""
    min_gain: float
    """The own kernel is chosen only where it is modeled this much faster
    than IREE's best form: its terms are unmeasured, IREE's measured."""

    def term(self, element_class: str) -> OwnKernelTerm:
        return self.terms.get(element_class, self.terms["f32"])

    @property
    def rate(self) -> dict[str, float]:
        return {cls: t.rate for cls, t in self.terms.items()}


@dataclass(frozen=True, eq=False)
class Target:
    name: str
    description: str
    flags: tuple[str, ...]
    runs_here: bool
    """Whether this machine can run what the target compiles (the CPU only)."""
    fixed_processors: int | None
    """Workgroups that run at once: SMs or CUs. None reads the host's threads."""
    tile: tuple[int, int]
    """The (M, N) output tile IREE gives one workgroup of a large-K matmul.
    Where IREE picks several by shape, this is the largest, so that the model
    never counts more workgroups than IREE launches."""
    peak_flops: dict[str, float]
    """Operations per second of the whole target, by element class (f32, f16, i8)."""
    memory_bandwidth: float
    """Bytes per second to and from memory, all processors together."""
    cache_per_processor: int | None
    """Bytes of cache in which a workgroup's operand panels must fit to be read
    from memory once (CPU: a quarter of the per-core L2). None where the code stages
    operands itself (GPU shared memory), so that no panel is ever re-read."""
    flops_per_processor: bool = False
    """Whether `peak_flops` is per processor (the CPU, whose thread count varies)."""
    reread_bandwidth: float | None = None
    """Bytes per second per processor at which panels that do not fit are re-read."""
    register_tile: tuple[int, int] = (8, 32)
    """The (M, N) register tile: how often a panel that does not fit is re-read."""
    workgroup_overhead: float = 1e-6
    """Seconds each workgroup costs besides its arithmetic and traffic."""
    dispatch_overhead: float = 5e-6
    """Seconds each dispatch (the merge is one more) costs to launch."""
    first_touch_bandwidth: float | None = None
    """Bytes per second at which freshly allocated partials are first written,
    where that is slower than memory (page faults on the CPU)."""
    fresh_allocation_bytes: int = 0
    """Partials larger than this are fresh memory on every call (their first
    touch runs at `first_touch_bandwidth`); smaller ones reuse memory."""
    conflict_stride: int | None = None
    """A row stride (bytes) at which a panel's rows share a fraction of the
    cache's sets; such panels count `conflict_penalty` times their size."""
    conflict_penalty: int = 1
    compiles_as: str | None = None
    """The entry whose flags this one uses, where IREE lacks its own."""
    aliases: tuple[str, ...] = field(default=())
    read_measured: bool = True
    """Whether `memory_bandwidth` was measured on the machine (a GPU's is its
    datasheet's); False where the CPU model assumes it (READ_PER_CORE)."""
    data_tiling: bool = False
    """Whether IREE 3.13 materializes data-tiling encodings for this target
    (packs and mmt4d); elsewhere it drops them, and so does xsplit."""
    resident_workgroups: int = 1
    """Workgroups one processor (SM, CU) holds at once. A processor with
    fewer hides less memory latency: with c of them resident it reaches c /
    `resident_workgroups` of its rate, so a wave is processors x this many."""
    cpu: CpuInfo | None = None
    """The CPU this entry describes (CPU targets only): its SIMD picks the data tiles."""
    matvec_tile: int | None = None
    """The output tile along N (along M for an N of 1) IREE gives a matvec or
    decode (M = 1) workgroup, which it tiles as a matvec, not a matmul; None:
    the matmul tile."""
    data_tile: tuple[int, int, int] | None = None
    """A fixed (m0, n0, k0) data tile, narrowed like the CPU's (VMVX's 8x8x4);
    None: the CPU's SIMD picks it (`cpu_data_tiles`)."""
    backend: str = "llvm-cpu"
    """The `#hal.executable.target` backend IREE compiles this entry with."""
    subgroup_size: int = 1
    """Lanes of a subgroup (a warp, a wave); 1 where workgroups are one thread."""
    waves_per_block: int = 1
    """Subgroups per workgroup in the kernels xsplit writes itself (lower-reduce)."""
    split_align: int | None = None
    """Where set, split-k{target=} cuts contractions into static chunks of a
    multiple of this (`aligned_split`): IREE's code for this target is slow
    on other chunk sizes."""
    split_pad_m: int | None = None
    """With `split_align`: M is padded to a multiple of this (the register tile's M)."""
    split_tiles: bool = False
    """With `split_align`: split-k{target=} also fixes IREE's tile sizes for
    the partial matmul (`partial_tiles`) where they beat IREE's own."""
    gpu_fit: GpuFit | None = None
    """The GPU split model's fitted parameters (GPUs only)."""
    own_kernel: OwnKernelFit | None = None
    """Where set, split-k{target=} may lower a matmul to xsplit's own GEMM
    kernel (`kernel=auto`) when this estimate has it faster than IREE's code."""

    @property
    def processors(self) -> int:
        return self.fixed_processors if self.fixed_processors is not None else host_threads()

    def processor_flops(self, element_class: str) -> float:
        """The peak rate of one processor."""
        peak = self.peak_flops[element_class]
        return peak if self.flops_per_processor else peak / self.processors

    @property
    def is_gpu(self) -> bool:
        return not self.runs_here

    def partial_tiles(
        self, m: int, n: int, element: Attribute, b_transposed: bool = False
    ) -> dict[str, tuple[int, int, int]] | None:
        """IREE CPU tile sizes (by level, over the loops m, n, k) for the
        partial matmul of an aligned split with M x N output, A row-major and
        B row-major or transposed, or None where IREE's own choice is as good."""
        if not self.split_tiles:
            return None
        return cpu_partial_tiles(self.cpu or host_cpu(), m, n, element, b_transposed)

    def streams_b(self, m: int, n: int, element: Attribute, b_transposed: bool = False) -> bool:
        """Whether the partial matmul's tiles (`partial_tiles`) stream B: read
        each row of a chunk of B once, past every row of A."""
        return self.split_tiles and cpu_streams_b(
            self.cpu or host_cpu(), m, n, element, b_transposed
        )

    def partial_column_block(
        self, m: int, n: int, element: Attribute, b_transposed: bool = False
    ) -> int | None:
        """The multiple of N at which `partial_tiles`' register tiles run
        unmasked for a chunk with M rows, or None where N does not matter."""
        if not self.split_tiles:
            return None
        return cpu_partial_column_block(self.cpu or host_cpu(), m, n, element, b_transposed)

    def partial_main_columns(
        self, m: int, n: int, element: Attribute, b_transposed: bool = False
    ) -> int:
        """The columns of N the aligned split gives `partial_tiles`' tiles:
        N, or where their column block does not divide N but N holds two of
        them, the largest multiple of the block (the rest, less than a
        block, is a piece of its own)."""
        block = self.partial_column_block(m, n, element, b_transposed)
        if block is None or n % block == 0 or n < 2 * block:
            return n
        return n // block * block

    def data_tiles(
        self, elements: tuple[Attribute, Attribute, Attribute], m: int | None, n: int | None
    ) -> tuple[int, int, int] | None:
        """The (m0, n0, k0) inner tile of a data-tiled contraction with these
        element types and M, N sizes (None where the op has no such loop);
        None where this target drops encodings."""
        if not self.data_tiling:
            return None
        if self.data_tile is not None:
            m0, n0, k0 = self.data_tile
            return _narrow(m0, m), _narrow(n0, n), k0
        return cpu_data_tiles(self.cpu or host_cpu(), elements, m, n)


PLAIN_SHARE = 0.9
"""The share of a core's data-tiled (or peak) rate IREE's plain matmul code
reaches on split-k's tiles: 0.85-0.97 on Zen 5 (512x768, 640x640 and
256x256 outputs, 425 GFLOP/s against the calibrated 436)."""


READ_PER_CORE = 22 * GIGA
"""Bytes per second one core reads from memory written before, where no
calibration measured the machine: a Zen 5 core streamed a decode's matrix at
30 GB/s on IREE's code, two at 44-46 (numpy's matvec 45-47, a read pass
45-60; bench/RESULTS.md). The 18 GB/s assumed until then, whatever the
cores, priced 1x4096x14336 at 13.2 ms, where it ran in 5.3."""
READ_CEILING = 200 * GIGA
"""The most a machine's cores read together where nothing was measured: a
server socket's memory channels, not its core count, bound them."""


def assumed_read_bandwidth(cpu: CpuInfo) -> float:
    """The read rate the CPU model takes for an uncalibrated machine."""
    return min(READ_CEILING, READ_PER_CORE * cpu.cores)


def cpu_target(cpu: CpuInfo | None = None) -> Target:
    """The CPU entry for `cpu` (default: this machine, see
    `xsplit.targets.cpu_info.host_cpu`): its cores in the affinity mask, a
    quarter of its per-core L2 for the operand panels, and its calibrated rates where
    `xsplit bench --calibrate` measured them."""
    cpu = cpu or host_cpu()
    # IREE's matmul code without data tiling, on aligned chunks with
    # split-k's tiles, reaches this share of the data-tiled rate the
    # calibration measures (or of the estimated peak).
    per_thread = cpu.f32_flops_per_core() * PLAIN_SHARE
    read = cpu.read_bandwidth or (
        3 * cpu.bandwidth if cpu.bandwidth else assumed_read_bandwidth(cpu)
    )
    return Target(
        "cpu",
        f"llvm-cpu, this machine's CPU ({cpu.describe()})",
        (
            "--iree-hal-target-device=local",
            "--iree-hal-local-target-device-backends=llvm-cpu",
            "--iree-llvmcpu-target-cpu=host",
            # Without DWARF, a program's bytes no longer depend on its source
            # file's name (with it, one program read from two paths put its
            # code 32 bytes apart). The variance once blamed on code placement
            # (a matvec dispatch, byte for byte the same, 6.1 to 9.8 ms) was
            # most likely the benchmark's caller holding a pinned worker's
            # core (CALLER_NICENESS in xsplit/bench/driver.py).
            "--iree-llvmcpu-debug-symbols=false",
        ),
        runs_here=True,
        fixed_processors=cpu.cores if cpu.source != "detected" else None,
        tile=(64, 64),
        peak_flops={"f32": per_thread, "f16": per_thread / 2, "i8": per_thread},
        flops_per_processor=True,
        # Operands are read from memory written before: the calibration's
        # read rate, else three times its stream into fresh pages
        # (cost_model.READ_SPEEDUP), else READ_PER_CORE a core.
        memory_bandwidth=read,
        read_measured=cpu.read_bandwidth is not None or cpu.bandwidth is not None,
        # A quarter, not a half: 64x384x65521 in 64 chunks (panels of half
        # the L2) ran in 23-24 ms, in 128 chunks (a quarter) in 20-21 ms;
        # on the other benchmark shapes the two were within noise.
        cache_per_processor=cpu.l2 // 4,
        reread_bandwidth=3 * GIGA,
        # Zen 5, 32x32x500009: 1303 chunks of one workgroup each took 5 ms
        # more than 64 chunks, beyond their arithmetic.
        workgroup_overhead=6e-6,
        # glibc hands out blocks over its mmap threshold (at most 32 MiB) as
        # fresh pages on every call, and IREE's transients are malloc'ed:
        # 512x768x16384 in 64, 128 and 256 chunks (96 to 384 MiB of partials)
        # took 60 to 330 ms more than in 32, 1.2 to 1.6 GB/s of page faults.
        first_touch_bandwidth=1.4 * GIGA,
        fresh_allocation_bytes=32 * MIB,
        dispatch_overhead=20e-6,
        conflict_stride=16 * KIB,
        # Rows 16 KiB apart fall in a fraction of L2's sets that shrinks with
        # its ways: 4 on Zen 3 (8 ways), 2 on Zen 5 (16 ways), where
        # 16x4096x16384 ran in 10.7 ms in 32 chunks (strips of 512 KiB) and
        # 12.1 in the 66 a penalty of 4 picked.
        conflict_penalty=max(1, 32 // cpu.l2_ways),
        data_tiling=True,
        cpu=cpu,
        # Measured on Zen 4 (bench/RESULTS.md): chunks of 808, 824 and 1000
        # run at a third of the rate of 800, 816 and 1008; M = 123 at half
        # that of M = 120 or 128.
        split_align=16,
        split_pad_m=8,
        split_tiles=True,
    )


_CPU = cpu_target()
"""Calibrated on a Zen 3 machine (AMD EPYC, 2 threads, 512 KiB L2 per core,
8-way) with `xsplit bench --sweep` over the shapes in bench/shapes: what IREE's
code reaches, not the datasheet. Panels must fit half the L2 (read from this
machine); rows 16 KiB apart (N = 4096 f32) use a quarter of its sets; freshly
allocated partials are written at about 1 GB/s (page faults). The arithmetic
rate is per thread (24 GFLOP/s unless calibrated); the bandwidths are the
machine's."""


H200_FIT = GpuFit(
    # split-k's f32 chunk tiles (gpu.md, sixth run: workgroup 64x64, thread
    # 4x4, K 32, prefetch 2 took the seed's F=128 chunks from 2.30 to 1.14
    # ms); IREE's own f16 pick on the chunks is 64x64 on tensor cores.
    chunk_tile=(64, 64),
    # f32: that configuration ran 2048^3 in 0.946 ms (19 TFLOP/s, 163 GFLOP/s
    # an SM at 8 workgroups of 2,348 steps). f16: the static chunks of
    # 256x256x65536 in 32 (0.133 ms) and IREE's tensor-core 2048^3 (0.277).
    chunk_rate={"f32": 163 * GIGA, "f16": 529 * GIGA},
    # f32: the seed's and 256x256x65536's sweeps were fastest at 128 chunks
    # (14-16 workgroups an SM), 512x768x16384's at 8 (6 an SM): an SM wants
    # about 8 workgroups of 256 threads, its whole 2,048. f16: 256x256x65536
    # was fastest at 32 chunks (4 an SM), the unaligned seed at 128.
    chunk_saturation={"f32": 8.0, "f16": 4.0},
    # 512x768x16384 ran fastest in 8 chunks, not 32: each workgroup costs
    # about 300 steps of K besides its own (a chunk of 512 pays 60% more).
    workgroup_steps={"f32": 300, "f16": 100},
    # IREE alone: f32 TileAndFuse 32x128 without staging (3.7 TFLOP/s on
    # 2048^3, 4.79 ms); f16 its 64x64 tensor-core tiles (62 TFLOP/s, 0.277 ms).
    whole_tile={"f32": (32, 128), "f16": (64, 64)},
    whole_rate={"f32": 28.0 * GIGA, "f16": 484 * GIGA},
    # One or two workgroups an SM reach that rate: 0.40-0.48 us per step of
    # K for a lone f32 workgroup on every aligned shape of gpu.md's first
    # table (256x256x65536 26.1 ms, 32x32x500009 203 ms, 16x1024x131071 62.8).
    whole_saturation={"f32": 1.5, "f16": 1.85},
    # The seed (M = 123, N = 456) ran 4x slower per step than the aligned
    # shapes whole (97.2 ms: 1.9 us a step), and its chunks kept gaining up
    # to 128 where 256x256's f16 chunks stopped at 32.
    unaligned=4.0,
    # IREE's one-row path (VectorDistribute, one output a workgroup, lanes
    # along K) read the decode's B at 354 GB/s (0.664 ms).
    matvec_bandwidth=354 * GIGA / 132,
    launch=4e-6,
    # The H200's chunks were multiples of 64; split-k makes them multiples of
    # 128 so that a padded tail's K tile is no smaller than the unsplit
    # matmul's in f16 (gpu_tiles.GPU_SPLIT_ALIGN). Chunk counts are unchanged.
    align=128,
    pad_m=64,
    # 2048^3 ran fastest in 8 chunks of 256 (4.64 ms, IREE alone 4.79),
    # not in 32 or 128 (chunks of 64).
    min_chunk=256,
    counts=(8, 32, 128),
)
"""One fit for every GPU entry: its parameters are per SM (CU), so a GPU
scales them by its own processors and bandwidth. Only sm_90 (the H200's 132
SMs) is measured; sm_80 and gfx942 are scaled, not measured."""

H200_OWN_KERNEL = OwnKernelFit(
    terms={},  # per target: own_kernel_fit
    # As IREE's chunks on the same 64x64 tiles of 256 threads (GpuFit's
    # chunk saturation): f32 8 of them (an SM's 2,048 threads), f16 on
    # tensor cores 4. Counted in C elements, so that two 128x128
    # workgroups (8x8 a thread) fill an SM in f32.
    saturation_outputs={"f32": 8 * 64 * 64, "f16": 4 * 64 * 64},
    # As IREE's chunks (GpuFit.workgroup_steps): prologue, epilogue and the
    # staging pipeline's fill, unmeasured for this kernel.
    workgroup_steps={"f32": 300, "f16": 100},
    # The fused kernel's atomic stage (4 atomics a thread: 4.19 M) took
    # 2.44 ms, its lds stage (one a row and workgroup: 0.26 M) 2.34 ms:
    # 3.9 M more f32 atomics in 0.10 ms, 39 G/s, with each address hit by
    # 1,024 of them. Split-k's atomics hit an address once a chunk, so this
    # overprices them.
    atomic_rate=39 * GIGA / 132,
    counts=(8, 32, 128),
    min_gain=0.05,
)
"""The own kernel's terms other than its rate, the H200's for every GPU."""


def own_kernel_fit(t: Target, reference: Target) -> OwnKernelFit:
    """`t`'s own-kernel terms: its entries of OWN_KERNEL_TERMS, and for an
    element class it has none for, the reference's (sm_90's) entry: per
    processor on CUDA, as `GpuFit` scales IREE's code (sm_80's A100 has 0.35x
    an H200 SM's f32 peak, which neither side prices), and elsewhere scaled
    by the share of the reference's per-processor peak it reached, marked
    SCALED: a guess, which `auto` does not act on."""
    terms = {}
    for cls in ("f32", "f16"):
        own = OWN_KERNEL_TERMS.get((t.name, cls))
        ref = OWN_KERNEL_TERMS[(REFERENCE, cls)]
        if own is not None:
            terms[cls] = own
        elif t.backend == reference.backend:
            terms[cls] = replace(
                ref, source=f"{REFERENCE}'s per SM, as GpuFit scales IREE's code: {ref.source}"
            )
        else:
            share = ref.rate / reference.processor_flops(cls)
            terms[cls] = OwnKernelTerm(
                share * t.processor_flops(cls),
                SCALED,
                f"nothing of the kernel ran on {t.name}: {REFERENCE}'s {ref.basis} "
                f"{ref.rate / GIGA:.0f} GFLOP/s an SM is {share:.1%} of its "
                f"{cls} peak ({reference.peak_flops[cls] / TERA:g} TFLOP/s over "
                f"{reference.processors}); the same share of {t.name}'s "
                f"({t.peak_flops[cls] / TERA:g} TFLOP/s over {t.processors})",
            )
    return replace(H200_OWN_KERNEL, terms=terms)


_SM_80 = Target(
    "sm_80",
    "CUDA / NVPTX, sm_80: A100 SXM, 108 SMs",
    ("--iree-hal-target-device=cuda", "--iree-cuda-target=sm_80"),
    runs_here=False,
    fixed_processors=108,
    tile=(64, 128),
    peak_flops={"f32": 19.5 * TERA, "f16": 312 * TERA, "i8": 624 * TERA},
    memory_bandwidth=2039 * GIGA,
    cache_per_processor=None,
    aliases=("cuda",),
    backend="cuda",
    resident_workgroups=2,
    matvec_tile=1,
    subgroup_size=32,
    waves_per_block=8,
    gpu_fit=H200_FIT,
)

# IREE 3.13 rejects --iree-cuda-target=sm_90 ("missing GPU target"), so
# Hopper code is compiled for sm_80, which it runs. The split model was fitted
# on an H200 (132 SMs, 4.8 TB/s); an H100 SXM has the same SMs and 3.35 TB/s.
_SM_90 = Target(
    "sm_90",
    "CUDA / NVPTX, H100 / H200, 132 SMs (compiled for sm_80: IREE 3.13 has no sm_90)",
    _SM_80.flags,
    runs_here=False,
    fixed_processors=132,
    tile=(64, 128),
    peak_flops={"f32": 67 * TERA, "f16": 989 * TERA, "i8": 1979 * TERA},
    memory_bandwidth=4800 * GIGA,
    cache_per_processor=None,
    compiles_as="sm_80",
    backend="cuda",
    resident_workgroups=2,
    matvec_tile=1,
    subgroup_size=32,
    waves_per_block=8,
    gpu_fit=H200_FIT,
)

# The flag is --iree-rocm-target; --iree-hip-target does not exist.
_GFX942 = Target(
    "gfx942",
    "ROCm / ROCDL, gfx942: MI300X, 304 CUs",
    ("--iree-hal-target-device=hip", "--iree-rocm-target=gfx942"),
    runs_here=False,
    fixed_processors=304,
    # 128x64 for the seed, but 8x128 for a skinny split dispatch: the largest
    # of each keeps the model from expecting more workgroups than IREE makes.
    tile=(128, 128),
    peak_flops={"f32": 163.4 * TERA, "f16": 1307 * TERA, "i8": 2615 * TERA},
    memory_bandwidth=5300 * GIGA,
    cache_per_processor=None,
    aliases=("rocm",),
    backend="rocm",
    resident_workgroups=2,
    # A 1x4096x14336 decode compiles to 512 workgroups: 8 outputs each.
    matvec_tile=8,
    subgroup_size=64,
    waves_per_block=4,
    gpu_fit=H200_FIT,
)

# The own kernel's terms are written for sm_90 (the H200); the others derive
# theirs from it. On gfx942 IREE 3.13 lowers the f32 atomic add of the
# atomic merge to a compare-and-swap loop, which the H200's atomic rate does
# not price: one more reason its terms stay SCALED until timed.
_SM_80 = replace(_SM_80, own_kernel=own_kernel_fit(_SM_80, _SM_90))
_SM_90 = replace(_SM_90, own_kernel=own_kernel_fit(_SM_90, _SM_90))
_GFX942 = replace(_GFX942, own_kernel=own_kernel_fit(_GFX942, _SM_90))


def _narrow(tile: int, size: int | None) -> int:
    """IREE's narrow tiles: a loop shorter than the tile (a matvec's 1) gets
    the smallest power of two that covers it."""
    if size is None:
        return 1
    if size >= tile:
        return tile
    narrow = 1
    while narrow < size:
        narrow *= 2
    return narrow


PARTIAL_TILE_MAX_M = 128
"""The most rows of A a workgroup of a split's partial matmul takes whole."""
MATVEC_MAX_M = 4
"""Up to this many rows of A, a chunk's matmul holds every row in registers
(a matvec or decode)."""
STREAMING_MAX_M = 16
"""Up to this many rows of A, a chunk's matmul can stream B: each row of its
chunk of B is read from memory once, a strip of columns at a time."""


LINE_F32 = 64 // 4
"""f32 elements in a 64-byte cache line: a transposed B's column tile."""


def _simd(cpu: CpuInfo) -> tuple[int, int]:
    """f32 lanes per vector and vector registers: 16 and 32 with AVX-512."""
    return max(4, cpu.simd_bits // 32), 32 if cpu.simd_bits >= 512 else 16


MATVEC_MAX_WIDTH = 256
"""The widest matvec register tile: a kilobyte of each row of B per K step."""
MATVEC_K_STEP = 2
"""K steps a matvec's register tile takes at a time."""


def _matvec_width(cpu: CpuInfo, m: int) -> int:
    """The columns of a matvec's register tile for M rows: half the register
    file accumulates (M x width / lanes vectors), the other half holds the
    two K steps' vectors of B and broadcasts of A, at most MATVEC_MAX_WIDTH.
    With the whole file as accumulators (4 x 128 columns, the tile until
    then) 4x4096x14336 streamed B at 77% of a read pass over it; with half,
    at 86-88% (Zen 5, 16 chunks, medians in one run)."""
    lanes, registers = _simd(cpu)
    accumulators = registers // 2
    return max(lanes, min(MATVEC_MAX_WIDTH, accumulators // m * lanes))


def _streaming_width(cpu: CpuInfo) -> int:
    """The columns of a streaming chunk's register tile: half the register
    file accumulates 4 rows; the rest holds B's vectors."""
    lanes, registers = _simd(cpu)
    return registers // 2 // 4 * lanes


def _row_tile_columns(cpu: CpuInfo) -> int:
    """The columns of the 8-row register tile: two vectors where the
    register file holds 8 x 2 accumulators besides the operands (AVX-512's
    32), one with AVX2's 16."""
    lanes, _ = _simd(cpu)
    return 2 * lanes if cpu.simd_bits >= 512 else lanes


STREAMING_K_BLOCK = 32
"""Rows of B a workgroup of 5 to 16 rows of A takes at a time (IREE's
`cache_reduction` level), all its register tiles over them before the
next: each register tile holds 4 rows of A, so the M / 4 tiles along M walk
the same strip of B, and a block of 32 rows of a strip of up to 256
columns (32 KiB) stays in L1 for them, where the chunk's whole strip,
rows N x 4 bytes apart (a power of two in most models), crowds a few of
L2's sets and came back from L3. On the loaded shared machine, medians of
15 rounds in one process: 8x4096x14336 in 32 chunks 34.0 -> 32.4 ms,
16x4096x16384 in 34 chunks 52.7 -> 47.4 (and 52.9 -> 41.9 in another
run; blocks of 16 and 64 rows ran as the whole chunk did)."""


def _streaming_tiles(cpu: CpuInfo, m: int, n: int) -> dict[str, tuple[int, int, int]] | None:
    """Tiles that stream a row-major B past every row of A (up to
    STREAMING_MAX_M rows), or None where N does not suit them."""
    if m <= MATVEC_MAX_M:
        width = _matvec_width(cpu, m)
        if n < 2 * width:
            return None
        # Two register tiles a workgroup, or one where two do not divide N:
        # a workgroup tile that does not divide N is masked in every workgroup.
        return {
            "distribution": (m, 2 * width if n % (2 * width) == 0 else width, 0),
            "vector_common_parallel": (m, width, 0),
            "vector_reduction": (0, 0, MATVEC_K_STEP),
        }
    if m > STREAMING_MAX_M:
        return None
    width = _streaming_width(cpu)
    if n % width:
        return None
    strip = max(w for w in range(width, 4 * width + 1, width) if n % w == 0)
    return {
        "distribution": (m, strip, 0),
        "cache_reduction": (0, 0, STREAMING_K_BLOCK),
        "vector_common_parallel": (4, width, 0),
        "vector_reduction": (0, 0, 4),
    }


def cpu_streams_b(cpu: CpuInfo, m: int, n: int, element: Attribute, b_transposed: bool) -> bool:
    """Whether `cpu_partial_tiles` streams B for this chunk's matmul."""
    return (
        not b_transposed
        and isinstance(element, AnyFloat)
        and element.bitwidth == 32
        and _streaming_tiles(cpu, m, n) is not None
    )


def cpu_partial_tiles(
    cpu: CpuInfo, m: int, n: int, element: Attribute, b_transposed: bool = False
) -> dict[str, tuple[int, int, int]] | None:
    """Tiles for one chunk's f32 matmul, by the layout of B, or None where
    IREE's own are as good. Measured on Zen 5 (bench/RESULTS.md), medians,
    IREE's tiles -> these:

    - B row-major (B[k, n]), 5 to 128 rows: a workgroup takes every row of M
      and the columns of one register tile, so each row of the chunk of B
      is read from memory once and stays in L1 while all of M passes over
      it; registers hold 8 rows by two vectors (16 accumulators), stepping K
      by 1. IREE's own ([8, 64] per workgroup, [8, 16] registers) re-reads B
      once per 8 rows and runs half the FMAs per load: 123x456x51234 in 109
      chunks 32.6 -> 24.6 ms, 32x32x500009 13.5 -> 6.6 ms, 16x4096x16384
      40.5 -> 27.9 ms (medians; 8 x one vector, the Zen 4 choice, gave 25.5,
      5.4 and 25.7 ms at best). Where N holds more, the workgroup takes up
      to four register tiles of columns that divide it and steps K by 4:
      64x384x65521 in 64 chunks 11.4 -> 9.4 ms, 32x4096x12289 in 16 chunks
      17.3 -> 14.0 (numpy 19.5), 123x456x51234 in 32 chunks 20.3 -> 18.7;
      with one register tile (32x32x500009) K by 1 stays: 4.33 against 4.38.
    - B row-major, more than 128 rows: 64 x 4 register tiles per workgroup,
      8 x two vectors in registers, stepping K by 4: 512x768x16384 in 32
      chunks 55.8 -> 32.3 ms (numpy 56.9), 640x640x12289 44.2 -> 26.7 ms,
      256x256x65536 67.7 -> 28.3 ms.
    - B row-major, 1 to 4 rows (a matvec or decode): B is streamed. A
      workgroup takes 2 register tiles of N, each as wide as half the
      register file holds for these rows (16 accumulators: 1 x 256, 2 x 128,
      4 x 64 columns), stepping K by 2: 1x4096x14336 in 16 chunks 10.0 ->
      5.3 ms (numpy 5.0), 4x4096x11008 12.8 -> 5.7 ms with the earlier
      register tile (all 32 registers, K by 4); in one run against a read
      pass over B (xsplit bench's `read-pass`), 1 x 256 by 2 read B at 103%
      of its rate where 1 x 128 by 4 read it at 87%, 4 x 64 by 2 at 88%
      where 4 x 128 by 4 read it at 77%, and 2 x 128 by 2 at 91% where by
      4, 71%.
    - B row-major, 5 to 16 rows, N a multiple of the register tile: B is
      streamed too. Registers hold 4 rows by half the register file's
      vectors, a workgroup every row by up to 4 register tiles that divide
      N, stepping K by 4: 16x4096x16384 in 32 chunks 15.8 -> 12.1 ms (numpy
      17.8), 8x1024x65536 in 128 chunks 14.9 -> 11.2 ms, 6x3072x24001 in 32
      12.6 -> 9.9 ms. Where the register tile does not divide N, IREE
      masks every workgroup's tile (8x1000x30011: 13.8 ms either way), so
      the aligned split computes the largest multiple of it as a piece of
      its own (`cpu_partial_column_block`: 5.0 ms) and the rest of N with
      the tiles below. The workgroup takes B's rows STREAMING_K_BLOCK at a
      time, every register tile over them (they stay in L1 for the M / 4
      tiles along M).
    - B transposed (B[n, k], as ONNX Gemm transB=1 and linear layers have
      it), 2 to 128 rows: K is contiguous in both operands, so registers step
      it by a whole vector: 123x456x51234 48 -> 33 ms (numpy 32). A transposed
      matvec keeps IREE's tiles: none measured beat them (8 to 10 ms
      against numpy's 5 to 6 at 1x4096x14336).
    """
    if not (isinstance(element, AnyFloat) and element.bitwidth == 32):
        return None
    lanes, _ = _simd(cpu)
    if b_transposed:
        if not 2 <= m <= PARTIAL_TILE_MAX_M or n < 2 * LINE_F32:
            return None
        return {
            "distribution": (m, LINE_F32, 0),
            "vector_common_parallel": (min(m, 8), min(lanes, LINE_F32), 0),
            "vector_reduction": (0, 0, lanes),
        }
    streaming = _streaming_tiles(cpu, m, n)
    if streaming is not None or m <= MATVEC_MAX_M:
        return streaming
    columns = _row_tile_columns(cpu)
    if n < columns:
        return None
    if m > PARTIAL_TILE_MAX_M:
        return {
            "distribution": (64, _dividing_strip(columns, n) or min(n, 4 * columns), 0),
            "vector_common_parallel": (8, columns, 0),
            "vector_reduction": (0, 0, 4),
        }
    # Up to four register tiles of columns, as for taller chunks: a strip of
    # B wider than one register tile steps K by 4.
    strip = _dividing_strip(columns, n) or columns
    return {
        "distribution": (m, strip, 0),
        "vector_common_parallel": (min(m, 8), columns, 0),
        "vector_reduction": (0, 0, 4 if strip > columns else 1),
    }


def _dividing_strip(columns: int, n: int) -> int | None:
    """Four, two or one register tiles of columns, the widest that divides N
    (a workgroup tile that does not divide N is masked in every workgroup),
    or None where none does."""
    dividing = [w for w in (4 * columns, 2 * columns, columns) if w <= n and n % w == 0]
    return dividing[0] if dividing else None


def cpu_partial_column_block(
    cpu: CpuInfo, m: int, n: int, element: Attribute, b_transposed: bool = False
) -> int | None:
    """The multiple of N that `cpu_partial_tiles` needs for M rows to give
    its best tiles unmasked: a matvec's and a streaming chunk's register
    width, the 8-row tile's columns, or a transposed B's cache line; None
    where its tiles do not depend on N."""
    if not (isinstance(element, AnyFloat) and element.bitwidth == 32):
        return None
    if b_transposed:
        return LINE_F32 if 2 <= m <= PARTIAL_TILE_MAX_M else None
    if m <= MATVEC_MAX_M:
        return _matvec_width(cpu, m)
    if m <= STREAMING_MAX_M:
        return _streaming_width(cpu)
    return _row_tile_columns(cpu)


def cpu_data_tiles(
    cpu: CpuInfo, elements: tuple[Attribute, Attribute, Attribute], m: int | None, n: int | None
) -> tuple[int, int, int]:
    """IREE's x86 data tiles (its CPU encoding resolver) for this CPU's SIMD:
    f32 and f16 as 16x16x1 with AVX-512, 8x8x1 with AVX, 4x8x1 without
    (iree-compile 3.13 with `--iree-opt-data-tiling`, `cpu_features = "+sse4.2"`
    and `"+avx2"` alone: LHS tiles [4, 1], RHS [8, 1]);
    i8 x i8 -> i32 with a K tile of 2 (VNNI pairs), bf16 with AVX512-BF16 too."""
    lhs, _, _ = elements
    lanes = max(4, cpu.simd_bits // 32)
    m0, n0, k0 = (lanes, lanes, 1) if cpu.simd_bits >= 256 else (4, 8, 1)
    if isinstance(lhs, IntegerType) and lhs.width.data <= 8:
        k0 = 2
    elif isinstance(lhs, AnyFloat) and lhs.bitwidth == 16 and cpu.bf16 and "bf16" in str(lhs):
        k0 = 2
    return _narrow(m0, m), _narrow(n0, n), k0


def vmvx_target(cpu: CpuInfo | None = None) -> Target:
    """VMVX on this machine's CPU: IREE's portable VM bytecode backend, run by
    `local-task` like llvm-cpu code. Its encoding resolver tiles every
    contraction 8x8x4 (narrower for a short M or N), with or without
    ukernels (iree-compile 3.13, `--iree-opt-data-tiling`: LHS [8, 4], RHS
    [8, 4]; M = 3 gives LHS [4, 4]). VMVX interprets its loops: its rates
    are an estimate, not a measurement: a tenth of the CPU's compiled code.
    Its interpreted arithmetic, not its memory traffic, bounds it: a panel
    that does not fit the cache is re-read at memory speed, not at the
    compiled code's penalty."""
    base = cpu or host_cpu()
    interpreted = replace(
        base,
        name=f"vmvx on {base.name}",
        simd_bits=128,
        flops_per_core=base.f32_flops_per_core() / 10,
    )
    compiled = cpu_target(interpreted)
    return replace(
        compiled,
        name="vmvx",
        description=f"VMVX bytecode on this machine's CPU ({base.describe()})",
        flags=("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=vmvx"),
        data_tile=(8, 8, 4),
        backend="vmvx",
        split_tiles=False,
        reread_bandwidth=compiled.memory_bandwidth,
    )


TARGETS: dict[str, Target] = {t.name: t for t in (_CPU, _SM_80, _SM_90, _GFX942)}

GPU_TARGETS = tuple(name for name, t in TARGETS.items() if t.is_gpu)
"""Every GPU the model knows."""
COMPILED_GPU_TARGETS = tuple(name for name in GPU_TARGETS if TARGETS[name].compiles_as is None)
"""The GPU targets with flags of their own: compiling for these covers all."""

_ALIASES = {alias: t for t in TARGETS.values() for alias in t.aliases}


def reload_cpu_target() -> Target:
    """Rebuild the `cpu` entry from the host CPU as read now: a process that
    calibrates (`xsplit bench --calibrate`) then models with the new rates,
    not with those read when this module was imported."""
    from xsplit.targets.cpu_info import forget_host

    forget_host()
    TARGETS["cpu"] = cpu_target()
    _ALIASES.update({alias: TARGETS["cpu"] for alias in TARGETS["cpu"].aliases})
    return TARGETS["cpu"]


def target(name: str) -> Target:
    """The target called `name` (or one of its aliases, `cuda` and `rocm`)."""
    found = TARGETS.get(name) or _ALIASES.get(name)
    if found is None:
        raise XsplitError(f"unknown target '{name}', expected one of {', '.join(TARGETS)}")
    return found
