"""`lower-reduce`'s plan: which stage (atomic, LDS tree, subgroup), the
block and grid, and how the axis is cut into chunks, from the target table
and the options."""

from __future__ import annotations

from dataclasses import dataclass

from xsplit.diagnostics import XsplitError
from xsplit.rewrites.dsl import Match
from xsplit.rewrites.reduce.reduced import ReductionToLower, loops_of
from xsplit.targets.table import Target
from xsplit.targets.table import target as find_target

STAGES = ("auto", "atomic", "lds", "subgroup")


@dataclass
class Plan:
    stage: str
    deterministic: bool
    target: Target
    block: int
    subgroup: int
    chunk: int
    """Axis elements per work item."""
    chunks: int
    items: int
    grid: int
    why: str = ""
    mma: str = "auto"
    """The fused GEMM's tensor cores: `auto` where the target has an
    intrinsic for the operands, `none` for FMA register tiles."""

    @property
    def subgroups(self) -> int:
        return max(1, self.block // self.subgroup)


def choose_stage(red: ReductionToLower, tgt: Target) -> tuple[str, str]:
    if not tgt.is_gpu:
        return "atomic", (
            f"{tgt.name} runs workgroup-level code only (one thread per workgroup), so each "
            "workgroup reduces its chunk serially and adds it with one atomic"
        )
    width = tgt.subgroup_size
    how = "DPP (gpu.subgroup_reduce)" if tgt.name == "gfx942" else "a shuffle butterfly"
    loops = loops_of(red)
    if not isinstance(loops, str):
        # The staged GEMM's layout, not the axis length, decides.
        if loops.along == "batch":
            return "atomic", (
                "the reduced axis is a batch loop: every element of a workgroup's C tile is "
                "its own output, so there is nothing to combine inside a workgroup"
            )
        return "subgroup", (
            "the lanes that share an output of the fused GEMM's C tile combine in registers "
            f"with {how}, and only where they span subgroups in workgroup memory"
        )
    if red.extent < width:
        return "atomic", (
            f"the axis has {red.extent} elements, fewer than a subgroup of {width}: a tree "
            "would leave lanes idle, so each thread adds its chunk with an atomic"
        )
    waves = tgt.waves_per_block
    lds = (
        f"{waves} subgroups per block, so their partials meet in workgroup memory (case 3.2)"
        if waves > 1
        else "one subgroup per block, so no workgroup memory step (case 3.1)"
    )
    return "subgroup", (
        f"subgroups of {width} lanes reduce in registers with {how}; {lds}; then one "
        "atomic per block"
    )


def plan(red: ReductionToLower, m: Match | None, options: dict | None = None) -> Plan:
    opts = dict(m.options) if m is not None else dict(options or {})
    for key, default in (("block", 0), ("grid", 0), ("chunk", 0), ("stage", "auto"), ("deterministic", False)):
        opts.setdefault(key, default)
    tgt = find_target(opts["target"])
    stage, why = opts["stage"], ""
    if stage == "auto":
        stage, why = choose_stage(red, tgt)
    if stage != "atomic" and not tgt.is_gpu:
        raise XsplitError(
            f"lower-reduce: stage={stage} is thread-level code; {tgt.name} runs workgroup-level "
            "code only (use stage=atomic)",
            red.op,
        )
    width = tgt.subgroup_size if tgt.is_gpu else 1
    block = opts["block"] or red.block or (tgt.subgroup_size * tgt.waves_per_block)
    if not tgt.is_gpu:
        block = 1
    if stage in ("lds", "subgroup") and (block & (block - 1) or block < width):
        raise XsplitError(
            f"lower-reduce: stage={stage} needs a power-of-two block of at least {width} "
            f"threads, got {block}",
            red.op,
        )
    extent = red.extent
    if stage == "atomic":
        # A thread's serial chunk: long enough to amortize its atomic, short
        # enough to leave work for every thread of the machine.
        chunk = min(extent, max(1, opts["chunk"] or 16))
    else:
        chunk = min(extent, block * max(1, opts["chunk"] or 4))
    chunks = -(-extent // chunk)
    work = red.elements * chunks
    items = -(-work // block) if stage == "atomic" else work
    cap = opts["grid"] or red.grid or tgt.processors * 8
    grid = max(1, min(items, cap))
    mma = opts.get("mma", "auto")
    return Plan(
        stage, opts["deterministic"], tgt, block, width, chunk, chunks, items, grid, why, mma
    )
