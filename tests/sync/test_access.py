"""The access analysis: each access's elements as affine functions of thread
ids, loop indices and symbols; undecidable ones flagged; the dependence test."""

from __future__ import annotations

from pathlib import Path

from xsplit.analysis.access import AccessAnalysis
from xsplit.analysis.sync import SyncAnalysis
from xsplit.api import parse_module

SEED = Path(__file__).parents[1] / "filecheck" / "rewrites" / "insert-barriers" / "seed-fill-matmul.mlir"


def functions(text: str):
    module = parse_module(text, "seed.mlir")
    return {op.sym_name.data: op for op in module.walk() if op.name == "func.func"}


def seed_functions():
    chunks = SEED.read_text().split("// -----\n")
    out = {}
    for chunk in chunks:
        out.update(functions(chunk))
    return out


def test_staged_matmul_accesses_are_affine_in_ids_loops_and_symbols():
    an = AccessAnalysis(seed_functions()["dot"])
    described = {(a.op.name, a.kind): a for a in an.accesses}
    fill = described[("linalg.fill", "write")]
    assert fill.describe_indices() == "%out[i + r0 + 4*ty, j + r1 + 4*tx]"
    amap, dims, syms = fill.affine_map()  # type: ignore[misc]
    assert dims == ["r0", "r1", "tx", "ty", "i", "j"]
    assert syms == []
    assert str(amap) == "(d0, d1, d2, d3, d4, d5) -> (((d4 + d0) + (d3 * 4)), ((d5 + d1) + (d2 * 4)))"
    # Loop indices come in nesting order: i, j around the fill; i, j, k around the copies.
    reads = [a for a in an.accesses if a.op.name == "linalg.copy" and a.kind == "read"]
    assert [a.affine_map()[1][4:] for a in reads] == [["i", "k"], ["j", "k"]]  # type: ignore[index]
    copies = [a for a in an.accesses if a.op.name == "linalg.copy" and a.kind == "write"]
    assert [c.describe_indices() for c in copies] == ["%sa[r0 + 4*ty, r1 + 2*tx]", "%sb[r0 + 2*ty, r1 + 4*tx]"]
    assert all(not a.undecidable for a in an.accesses)
    assert an.block == (8, 8, 1)


def test_unknown_indices_are_flagged():
    text = """\
func.func @k(%a: memref<64xf32>, %idx: memref<64xindex>) attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
  %t = gpu.thread_id x
  %i = memref.load %idx[%t] : memref<64xindex>
  %v = memref.load %a[%t] : memref<64xf32>
  memref.store %v, %a[%i] : memref<64xf32>
  return
}
"""
    an = AccessAnalysis(functions(text)["k"])
    store = next(a for a in an.accesses if a.op.name == "memref.store")
    assert store.undecidable and store.affine_map() is None
    assert store.describe_indices() == "%a[?]"
    sync = SyncAnalysis(functions(text)["k"])
    assert {d.verdict.status for d in sync.dependences} == {"unknown"}


def test_same_and_different_tilings():
    funcs = seed_functions()
    same = SyncAnalysis(funcs["fill_matmul"])
    assert not same.dependences
    assert [p.detail.split(":")[0] for p in same.proofs] == ["coincide", "coincide"]
    rows = SyncAnalysis(funcs["fill_matmul_rows"])
    kinds = sorted(d.kind for d in rows.dependences)
    assert kinds == ["RAW", "WAW"]
    assert all(d.verdict.status == "conflict" for d in rows.dependences)
    assert "threads (0,0,0) and (1,0,0) both touch %c[0, 4]" in rows.dependences[0].verdict.detail
