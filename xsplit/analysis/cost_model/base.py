"""What the split cost model prices and answers: a reduction as a `Problem`
(its output as batch x M x N, K, element sizes, which output dimensions each
input spans), the `Estimate` of one split of it on one target, the `Choice`
among splits, and the limits every backend's model shares."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import AnyFloat, IntegerType, TensorType
from xdsl.ir import Attribute
from xdsl.ir.affine import AffineDimExpr

from xsplit.analysis.reduction import Reduction, through_transposes
from xsplit.analysis.shapes import ceildiv


MIN_GAIN = 0.05
"""The modeled speedup below which a split is not worth its merge."""
NEAR_TIE = 0.01
"""Splits this close to the cheapest count as ties, won by the fewest chunks
(the most where every tie streams its panels)."""
MAX_FACTOR = 4096
"""The most chunks the model considers."""
MAX_PARTIALS_SHARE = 1.0
"""The partials may take at most this share of the operands' memory. Split-K
is for outputs small next to their operands; a large output cut into chunks
would hold several copies of itself (8192x8192x4096 f16 in 16 chunks: 4 GiB
of partials for 128 MiB of operands), which no cache gain pays for."""


@dataclass(frozen=True)
class Problem:
    """What the model needs of a reduction: its output as batch x M x N, K,
    element sizes, and which output dimensions each input spans."""

    batch: int
    m: int
    n: int
    k: int
    element_class: str
    """f32, f16 or i8: which peak rate of the target applies."""
    input_bytes: int
    acc_bytes: int
    operations_per_point: int
    """2 for a multiply-accumulate, 1 for a plain reduction."""
    spans: tuple[tuple[bool, bool], ...]
    """For each input, whether it spans the M and the N dimension of the output."""
    k_strides: tuple[int, ...]
    """For each input, the bytes between consecutive steps of K in its
    row-major layout: rows this far apart may collide in the cache's sets."""
    generic: bool = False
    """Whether the op is a `linalg.generic`: IREE 3.13 drops an
    `iree_linalg_ext.split_reduction` set on one (a 1x4096x14336 decode
    written as a generic compiled whole with it), and keeps a named op's."""

    def describe(self) -> str:
        batch = f"{self.batch}x" if self.batch > 1 else ""
        return f"{batch}{self.m}x{self.n} output, K = {self.k}"


@dataclass(frozen=True)
class Estimate:
    """The modeled cost of one split of one problem on one target."""

    factor: int
    chunk: int
    workgroups: int
    waves: int
    fill: float
    """Busy processors over all processors, averaged over the waves."""
    panel_bytes: int
    panel_fits: bool | None
    """Whether the operand panels fit the cache; None where no cache is modeled."""
    main: float
    """Seconds of the (split) reduction dispatch."""
    partials: float
    """Seconds to write the partials and read them back."""
    merge: float
    """Seconds of the merge dispatch, launch included."""
    pad: float = 0.0
    """Seconds of the copy that pads M, where the split pads it."""
    streamed: bool = False
    """Whether the panels are read once, streamed, whether or not they fit."""
    stream_rate: float | None = None
    """Where streamed: the bytes per second the operands are priced at (the
    machine's read rate), and whether that rate was measured."""
    stream_rate_measured: bool = True
    in_flight: float = 0.0
    """GPU chunks: the operand bytes an average processor has in flight
    (resident workgroups x each one's staged panels); 0 where not modeled."""
    fmas: float = 0.0
    """CPU streamed chunks: the seconds of `main` that the arithmetic adds
    past the longer of it and the reads (`cpu.STREAMED_FMAS_ADD`); 0 where
    none is added."""

    @property
    def seconds(self) -> float:
        return self.main + self.partials + self.merge + self.pad

    def describe(self) -> str:
        panel = ""
        if self.panel_fits is not None:
            fits = "fits" if self.panel_fits else "does not fit"
            fits = "streamed" if self.streamed else f"{fits} the cache"
            if self.streamed and self.stream_rate:
                how = "measured" if self.stream_rate_measured else "assumed"
                fits += f" at {self.stream_rate / 1e9:.0f} GB/s, the {how} read rate"
            if self.fmas:
                fits += f", plus {self.fmas * 1e3:.2f} ms of FMAs at the peak"
            panel = f", {self.panel_bytes // 1024} KiB panel ({fits})"
        return (
            f"{self.factor} chunk{'s' if self.factor > 1 else ''} of {self.chunk}: "
            f"{self.workgroups} workgroup{'s' if self.workgroups != 1 else ''}, "
            f"{self.waves} wave{'s' if self.waves > 1 else ''} "
            f"at {self.fill:.0%} fill{panel}, {time_text(self.seconds)}"
        )


@dataclass(frozen=True)
class Choice:
    factor: int
    """The number of chunks; 1 leaves the op whole."""
    chosen: Estimate
    unsplit: Estimate
    reason: str
    iree_chunk: int | None = None
    """Where the op is left to IREE's own split (a decode on a GPU): its
    chunk of K, which split-k sets on the op; `chosen` is then that split."""

    @property
    def speedup(self) -> float:
        return self.unsplit.seconds / self.chosen.seconds


def matmul_problem(m: int, n: int, k: int, element: str = "f32") -> Problem:
    """A plain row-major `linalg.matmul` of M x K by K x N `element`
    operands into an f32 (i8: i32) M x N: what bench/gpu.py times."""
    size = {"f32": 4, "f16": 2, "bf16": 2, "i8": 1}[element]
    cls = "f16" if element == "bf16" else element
    return Problem(1, m, n, k, cls, size, 4, 2, ((True, False), (False, True)), (size, n * size))


def padded_rows(m: int, pad_m: int | None) -> int:
    """M after the split pads it: to a multiple of `pad_m` where M is longer
    than `pad_m` and not a multiple of it, else unchanged."""
    if pad_m is not None and m > pad_m and m % pad_m:
        return ceildiv(m, pad_m) * pad_m
    return m


def time_text(seconds: float) -> str:
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} us"


def mib_text(size: float) -> str:
    return f"{size / 2**20:.3g} MiB"


def _element_class(element: Attribute) -> str:
    if isinstance(element, AnyFloat) and element.bitwidth <= 16:
        return "f16"
    if isinstance(element, IntegerType) and element.width.data <= 8:
        return "i8"
    return "f32"


def _bytes(element: Attribute) -> int:
    if isinstance(element, AnyFloat):
        return max(1, element.bitwidth // 8)
    if isinstance(element, IntegerType):
        return max(1, element.width.data // 8)
    return 4


def problem_of(red: Reduction) -> Problem | str:
    """The model's view of a matched reduction, or why it has none. An input
    that is a `linalg.transpose`'s result is priced as the transpose's
    source, read in place: IREE fuses the transpose into the op. A
    contraction with no M loop (a vecmat, a matvec, their batched forms) is
    priced as the one-row matmul it is, the input that N does not index
    first, as that matmul's A: split-k cuts a vector form as that matmul."""
    generic = red.op.name == "linalg.generic"
    red = through_transposes(red) or red
    k = red.static_k()
    out_shape = red.acc_type.get_shape()
    if k is None or any(d < 0 for d in out_shape):
        return "the cost model needs static sizes; give factor= or tile="
    # The output's last two dimensions are the tile's M and N; the rest are
    # batch, and so is the one before N where every input of a contraction
    # reads it (batch_vecmat's b): such a problem has one row.
    out_dims = [e.position for e in red.output_map.results if isinstance(e, AffineDimExpr)]
    n_dim = out_dims[-1] if out_dims else None
    m_dim = out_dims[-2] if len(out_dims) >= 2 else None
    n = out_shape[-1] if out_shape else 1
    m = out_shape[-2] if len(out_shape) >= 2 else 1
    batch = 1
    for d in out_shape[:-2]:
        batch *= d
    reads = [
        {e.position for e in input_map.results if isinstance(e, AffineDimExpr)}
        for input_map in red.input_maps
    ]
    contraction = len(red.inputs) == 2
    if m_dim is not None and contraction and all(m_dim in r for r in reads):
        m_dim, batch, m = None, batch * m, 1
    order = list(range(len(red.inputs)))
    if contraction and m_dim is None:
        order.sort(key=lambda i: n_dim in reads[i])
    first = red.inputs[order[0]].type
    assert isinstance(first, TensorType)
    element = first.element_type
    spans, k_strides = [], []
    for i in order:
        value, input_map = red.inputs[i], red.input_maps[i]
        positions = [e.position for e in input_map.results if isinstance(e, AffineDimExpr)]
        row = contraction and m_dim is None and n_dim not in positions
        spans.append((m_dim in positions or row, n_dim in positions))
        shape = value.type.get_shape() if isinstance(value.type, TensorType) else ()
        stride = _bytes(element)
        if red.reduction_dim in positions:
            for size in shape[positions.index(red.reduction_dim) + 1 :]:
                stride *= max(size, 1)
        k_strides.append(stride)
    return Problem(
        batch,
        m,
        n,
        k,
        _element_class(element),
        _bytes(element),
        _bytes(red.acc_type.element_type),
        2 if len(red.inputs) > 1 else 1,
        tuple(spans),
        tuple(k_strides),
        generic,
    )


def bytes_of_operands(p: Problem) -> list[int]:
    return [
        (p.m if spans_m else 1) * (p.n if spans_n else 1) * p.k * p.batch * p.input_bytes
        for spans_m, spans_n in p.spans
    ]
