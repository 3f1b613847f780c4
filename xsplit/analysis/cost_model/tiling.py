"""Data tiling: whether to encode a contraction (IREE's data tiles), and
then whether to split the encoded op, against the plain split."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from xsplit.analysis.cost_model.base import MIN_GAIN, Problem, bytes_of_operands, time_text
from xsplit.analysis.cost_model.choose import choose_split
from xsplit.analysis.shapes import ceildiv
from xsplit.targets.table import Target


# Data tiling: whether to encode, and then whether to split the encoded op.
#
# The CPU decision prices both sides in the same calibrated rates
# (`xsplit bench --calibrate`: the data-tiled FLOP/s of a core and the
# streaming bandwidth into fresh memory), so that what it compares is what
# this machine runs. Fitted on the shapes of bench/shapes (bench/RESULTS.md):

PACK_PASSES = 2.5
"""A pack or unpack costs this many streaming passes over what it packs: it
reads the operand and writes a transposed, freshly allocated copy."""
READ_SPEEDUP = 3.0
"""Reading operands already in memory runs this much faster than the
calibrated stream, whose writes go to fresh pages."""
ENCODE_MARGIN = 1.5
"""Up to ENCODE_MARGIN_MAX_M rows, an encoded form is taken over the plain
split (or the op left whole) only where it is modeled this much faster. On
every shape measured there (bench/RESULTS.md: 24 shapes, 1 to 640 rows, and
10 more held out from them), xsplit's split beat its encoded forms, and the
encoded forms ran no faster than IREE's own data tiling; the model prices
the split the more pessimistically of the two (512x768x16384: split 71 ms
modeled, 30 measured; encoded 78, 57). Against a transposed B
(512x768x16384 as a linear layer has it), encoded was modeled 7% faster
than the split and ran 11% slower (60 against 54 ms), below IREE alone
(57)."""
ENCODE_MARGIN_MAX_M = 640
"""The most rows of A the encode margin was measured on."""
MMT4D_WORKGROUP_TILE = (64, 64)
"""The output tile (M, N) of one workgroup of IREE's CPU mmt4d dispatch: each
workgroup reads its rows of A and columns of B once."""


@dataclass(frozen=True)
class TilingDecision:
    """The target model's choice for one op: split (factor > 1), encode, both or neither."""

    encode: bool
    factor: int
    seconds: float
    reason: str

    @property
    def kind(self) -> str:
        if self.encode:
            return "split+encode" if self.factor > 1 else "encode"
        return "split" if self.factor > 1 else "none"


def _cpu_rates(p: Problem, target: Target) -> tuple[float, float]:
    """(data-tiled FLOP/s of one core for this element class, streaming bytes/s)."""
    from xsplit.targets.cpu_info import host_cpu

    cpu = target.cpu or host_cpu()
    rate = cpu.f32_flops_per_core() * (2 if p.element_class != "f32" else 1)
    return rate, cpu.memory_bandwidth()


def encoded_seconds(problem: Problem, target: Target, factor: int) -> tuple[float, int]:
    """The modeled time of the data-tiled op cut into `factor` chunks (1: not
    split): the packs, the (batch_)mmt4d, the unpack and, when split, the
    partials and the merge. Returns the time and the mmt4d's workgroups."""
    p = problem
    rate, stream = _cpu_rates(p, target)
    operands = bytes_of_operands(p)
    packs = PACK_PASSES * sum(operands) / stream + len(operands) * target.dispatch_overhead
    output_bytes = p.batch * p.m * p.n * p.acc_bytes
    wg_m, wg_n = MMT4D_WORKGROUP_TILE
    tiles = p.batch * ceildiv(p.m, wg_m) * ceildiv(p.n, wg_n)
    chunk = ceildiv(p.k, factor)
    workgroups = tiles * ceildiv(p.k, chunk)
    busy = min(target.processors, workgroups)
    flops = p.operations_per_point * p.batch * p.m * p.n * p.k
    # Each workgroup reads its rows of A and its columns of B: A once per
    # column of workgroups, B once per row.
    reads = sum(
        b * (ceildiv(p.n, wg_n) if spans_m and not spans_n else 1)
        * (ceildiv(p.m, wg_m) if spans_n and not spans_m else 1)
        for b, (spans_m, spans_n) in zip(operands, p.spans)
    )
    main = max(flops / (rate * busy), reads / (stream * READ_SPEEDUP))
    main += target.dispatch_overhead
    unpack = PACK_PASSES * output_bytes / stream + target.dispatch_overhead
    merge = 0.0
    if factor > 1:
        # The packed partials are written to fresh memory, read back, and
        # merged into the packed init (one more pack).
        merge = 2 * factor * output_bytes / stream
        merge += PACK_PASSES * output_bytes / stream + 2 * target.dispatch_overhead
    return packs + main + unpack + merge, workgroups


@lru_cache(maxsize=1024)
def _choose_tiling(problem: Problem, target: Target, processors: int) -> TilingDecision:
    plain = choose_split(problem, target)
    plain_kind = f"split in {plain.factor}" if plain.factor > 1 else "left whole"
    if not target.data_tiling:
        return TilingDecision(
            False, plain.factor, plain.chosen.seconds,
            f"{target.name} drops encodings; {plain.reason}",
        )
    # The split's time is the estimate split-k reports: one model, one number.
    plain_time = plain.chosen.seconds
    best_factor, best = 1, encoded_seconds(problem, target, 1)[0]
    seen: set[int] = set()
    for factor in range(2, min(problem.k, 512) + 1):
        chunk = ceildiv(problem.k, factor)
        if chunk in seen:
            continue
        seen.add(chunk)
        seconds = encoded_seconds(problem, target, factor)[0]
        if seconds < best * (1 - MIN_GAIN):
            best_factor, best = factor, seconds
    encoded_kind = f"encoded in {best_factor} chunks" if best_factor > 1 else "encoded"
    summary = (
        f"{problem.describe()} on {target.name}: {plain_kind} {time_text(plain_time)}, "
        f"{encoded_kind} {time_text(best)}"
    )
    margin = ENCODE_MARGIN if problem.m <= ENCODE_MARGIN_MAX_M else 1.0
    if best * margin < plain_time:
        kind = "split+encode" if best_factor > 1 else "encode"
        return TilingDecision(True, best_factor, best, f"{kind} chosen: {summary}")
    if best < plain_time:
        summary += (
            f"; encoding needs a modeled {margin:g}x gain up to {ENCODE_MARGIN_MAX_M} rows "
            "(the split was measured faster on every such shape)"
        )
    kind = "split" if plain.factor > 1 else "none"
    return TilingDecision(False, plain.factor, plain_time, f"{kind} chosen: {summary}")


def choose_tiling(problem: Problem, target: Target) -> TilingDecision:
    """The model's choice between no split, split, encode, and split plus encode."""
    return _choose_tiling(problem, target, target.processors)
