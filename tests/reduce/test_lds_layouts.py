"""The tensor-core kernel's workgroup-memory layouts, measured in the
simulator: bank conflicts of every store into and read from the A and B
tiles. (That the kernel runs right and race-free with them, in every merge
and stage, is `test_gemm_kernel`'s tensor-core and MFMA tests, which take
the layouts by default.)

The model of a bank conflict (`LdsBanks`): 32 banks of 4 bytes (sm_80's
shared memory and gfx942's LDS alike); an access is served 128 bytes at a
time, so a warp's (wavefront's) lanes meet in phases of 128 / max(bytes a
lane, 4) consecutive lanes: 32 for 16- and 32-bit accesses, 16 for 64-bit
ones, 8 for 128-bit ones (NVIDIA serves a 128-bit access a quarter warp at
a time; CK's documentation of CDNA's LDS gives `ds_write_b128` 8 phases of
8 consecutive lanes, and the same 128 bytes a phase is assumed here for
gfx942's `ds_read_b64` and `ds_read_u16`). An `ldmatrix` is one phase per
8x8 matrix, its 8 rows of 16 bytes. The conflict of a phase is the most
distinct words one bank gets (1: none; one word for many lanes is a
broadcast)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers.gemm_kernel import inputs, lowered
from xsplit.rewrites.reduce import lower_gridwise_gemm
from xsplit.simulator.machine import Launch, Machine, lockstep
from xsplit.simulator.run import launch_sizes, pick_function

PHASE_BYTES = 128
BANKS = 32


class LdsBanks(Machine):
    """Records the worst bank conflict of each kind of access to the A and
    B tiles: {("a" | "b", "store" | "read"): worst}. Lockstep, so each access
    runs for all its lanes at once."""

    def __init__(self, launch: Launch, wave: int) -> None:
        super().__init__(launch, lockstep, log=False)
        self.wave = wave
        self.worst: dict[tuple[str, str], int] = {}
        self.cycles: dict[tuple[str, str], int] = {}
        """Per kind, the phases served, each as many times as its conflict."""
        self._wrapped: dict[int, object] = {}

    @staticmethod
    def _access(op):
        """(tile, its indices, elements a lane, kind) of an access to a tile."""
        name = op.name
        if name in ("memref.load", "vector.load", "nvgpu.ldmatrix"):
            tile, idx = op.operands[0], list(op.operands[1:])
            n = op.results[0].type.get_shape()[0] if name == "vector.load" else 1
            kind = "read"
        elif name in ("memref.store", "vector.store"):
            tile, idx = op.operands[1], list(op.operands[2:])
            n = op.operands[0].type.get_shape()[0] if name == "vector.store" else 1
            kind = "store"
        elif name == "nvgpu.device_async_copy":
            tile, idx, n = op.dst, list(op.dst_indices), op.dst_elements.value.data
            kind = "store"
        else:
            return None
        hint = str(tile.name_hint)
        if not (hint.startswith("a_tile") or hint.startswith("b_tile")):
            return None
        return tile, idx, n, kind

    def fn(self, op):
        f = super().fn(op)
        access = self._access(op)
        if access is None:
            return f
        if id(op) not in self._wrapped:
            tile, idx, n, kind = access
            shape = tile.type.get_shape()
            size = tile.type.element_type.bitwidth // 8
            key = (str(tile.name_hint)[0], kind)
            matrices = op.num_tiles.value.data if op.name == "nvgpu.ldmatrix" else 0

            def wrapped(fr, chunked, f=f) -> None:
                row, col = (np.broadcast_to(self.arr(fr, self.slots[v]), (fr.n,)) for v in idx)
                start = (row * shape[1] + col) * size
                lane = fr.lanes % self.wave
                if matrices:  # lanes 8i..8i+7 address matrix i's rows of 16 bytes
                    phase, nbytes = lane // 8, 16
                else:
                    nbytes = n * size
                    phase = lane // (PHASE_BYTES // max(nbytes, 4))
                group = fr.lanes // self.wave * 64 + phase
                words = np.arange((nbytes + 3) // 4)
                for g in np.unique(group):
                    mine = np.unique(start[group == g, None] // 4 + words)
                    worst = int(np.bincount(mine % BANKS).max())
                    self.worst[key] = max(self.worst.get(key, 0), worst)
                    self.cycles[key] = self.cycles.get(key, 0) + worst
                f(fr, chunked)

            self._wrapped[id(op)] = wrapped
        return self._wrapped[id(op)]


def conflicts(options: str, k: int = 64, m: int = 64, n: int = 64, cycles: bool = False) -> dict:
    """The worst conflicts of an f16 kernel's tile accesses, one workgroup
    (with `cycles`, the phases they took instead)."""
    module, _ = lowered(m, n, k, options, "f16", printed=False)
    fn = pick_function(module, None)
    grid, block = launch_sizes(fn, None, None)
    wave = 64 if "gfx942" in options else 32
    machine = LdsBanks(Launch(grid, block, 32), wave)
    machine.run(fn, inputs(m, n, k, 0, "f16"))
    return machine.cycles if cycles else machine.worst


def padded(monkeypatch) -> None:
    """The layouts before: rows padded for the fragment reads, B K-major."""
    monkeypatch.setattr(lower_gridwise_gemm, "swizzles", lambda op, operand: False)
    monkeypatch.setattr(lower_gridwise_gemm, "b_kpack", lambda op: 1)


# -- sm_80: XOR-swizzled A and B tiles ------------------------------------


@pytest.mark.parametrize("stages", [1, 2])
@pytest.mark.parametrize("step_k", [16, 32, 64])
def test_swizzled_tiles_are_free_of_bank_conflicts(step_k: int, stages: int, monkeypatch) -> None:
    """sm_80 f16, 64x64 tiles of four warps: the 128-bit stores (stages 1)
    or 16-byte cp.async (stages 2) into A and B and the ldmatrix reads of
    both are conflict-free with the swizzle. Padded (before), A's stores
    are 2-way with K steps of 16 and 32 (a quarter warp stores 4 or 2 rows
    of 24 or 40 halves), its ldmatrix reads conflict-free; B's are
    conflict-free either way.

    | K step | A stores padded | swizzled | A, B ldmatrix padded | swizzled |
    |---|---|---|---|---|
    | 16 | 2 | 1 | 1 | 1 |
    | 32 | 2 | 1 | 1 | 1 |
    | 64 | 1 | 1 | 1 | 1 |
    """
    options = f"target=sm_80 tile=64,64,{step_k} stages={stages}"
    after = conflicts(options)
    assert after == {("a", "store"): 1, ("a", "read"): 1, ("b", "store"): 1, ("b", "read"): 1}
    padded(monkeypatch)
    before = conflicts(options)
    assert before[("a", "store")] == (1 if step_k == 64 else 2)
    assert before[("a", "read")] == before[("b", "store")] == before[("b", "read")] == 1


def test_swizzle_beats_every_row_pad(monkeypatch) -> None:
    """No row pad serves both of A's accesses with K steps of 16: each pad
    in whole 16-byte vectors leaves its stores or its ldmatrix reads (or
    both) conflicted, unpadded ldmatrix 2-way."""
    worst = []
    for pad in (0, 8, 16, 24):
        monkeypatch.setattr(lower_gridwise_gemm, "swizzles", lambda op, operand: False)
        monkeypatch.setattr(lower_gridwise_gemm, "fragment_pad", lambda *a, pad=pad: pad)
        c = conflicts("target=sm_80 tile=64,64,16", k=16)
        worst.append(max(c[("a", "store")], c[("a", "read")]))
    assert min(worst) == 2


# -- gfx942: B K-packed, one 64-bit read per fragment; A swizzled -----------


@pytest.mark.parametrize("stages", [1, 2])
@pytest.mark.parametrize("step_k", [16, 32])
def test_kpacked_b_is_one_64_bit_read_per_fragment(step_k: int, stages: int, monkeypatch) -> None:
    """gfx942 f16, MFMA 16x16x16, 64x64 tiles of four wavefronts: B's
    tile K-packed ([K/4, N*4]) makes each lane's fragment (4 K of one
    column) one `vector.load` of 4 halves (`ds_read_b64`): a phase of 16
    lanes reads 16 columns' 8 bytes side by side, conflict-free. K-major
    and padded (before), a fragment is four 16-bit reads, each two phases
    of 32 lanes (conflict-free too): the LDS phases of B's reads halve
    (8 to 4 a fragment) and the read instructions quarter. Each thread
    stores its slice of 4 K x 2 columns (one 128-bit store; 4 K x 1, 64
    bits, at K steps of 16, where the threads outnumber the pairs) next to
    its neighbours': conflict-free. A, swizzled, stores without conflicts
    (padded: 2-way at K steps of 32); its 64-bit reads are 2-way either
    way (a phase's 16 rows read the same half of their 16-byte chunks).

    | K step | B read phases before | after | A stores before | after | A reads before | after |
    |---|---|---|---|---|---|---|
    | 16 | 8 a fragment, 1-way | 4, 1-way | 1 | 1 | 2 | 2 |
    | 32 | 8 a fragment, 1-way | 4, 1-way | 2 | 1 | 2 | 2 |
    """
    options = f"target=gfx942 tile=64,64,{step_k} stages={stages}"
    _, text = lowered(64, 64, 64, options, "f16")
    reads = [line for line in text.splitlines() if "vector.load %b_tile" in line]
    assert reads and all("vector<4xf16>" in line for line in reads)
    assert "memref.load %b_tile" not in text
    stores = [line for line in text.splitlines() if "vector.store" in line and "%b_tile" in line]
    assert stores and all(f"vector<{8 if step_k == 32 else 4}xf16>" in line for line in stores)
    after = conflicts(options)
    assert after == {("a", "store"): 1, ("a", "read"): 2, ("b", "store"): 1, ("b", "read"): 1}
    after_phases = conflicts(options, cycles=True)[("b", "read")]
    padded(monkeypatch)
    before = conflicts(options)
    assert before[("b", "read")] == 1 and before[("a", "read")] == 2
    assert before[("a", "store")] == (2 if step_k == 32 else 1)
    assert conflicts(options, cycles=True)[("b", "read")] == 2 * after_phases
