"""The kernel builder lower-reduce's per-element and tiled kernels are built
with (xsplit/rewrites/reduce/named_kernel.py): constants hoisted to the
function's top and made once, values named by hint and counter, braces
opened and closed in the order the IR reads, the one subgroup step."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from xsplit.api import parse_module
from xsplit.dialects import make_context
from xsplit.reader import print_module
from xsplit.rewrites.reduce.named_kernel import IDENTITY, NamedKernelBuilder, memref_of


def _kernel(dpp: bool) -> str:
    kb = NamedKernelBuilder([("x", memref_of([64])), ("o", memref_of([1]))])
    x, o = kb.args
    lds = kb.alloc_workgroup([2], "lds")
    w = kb.open_forall(3)
    tid = kb.thread_id_()
    acc, k, res = kb.fresh("acc"), kb.fresh("k"), kb.fresh("part")
    init = kb.cf(IDENTITY["max"])
    (part,), (it,), iv = kb.open_for(tid, 64, 32, [init], k, [acc], [res])
    kb.close(kb.combine_("max", it, kb.load_(x, [iv])))
    sg = kb.subgroup_combine("max", part, 32, 32, dpp)
    kb.store(sg, lds, [kb.remui(w, 2)])
    kb.open_if(kb.cmpi("eq", tid, 0, "first"))
    kb.atomic_("max", kb.load_(lds, [kb.c(0)], "total"), o, [kb.c(0)])
    kb.close()
    kb.close()
    module = ModuleOp([kb.function("k", (3, 1, 1), (64, 1, 1))])
    module.verify()
    return print_module(module)


def test_constants_hoisted_once_and_values_named() -> None:
    text = _kernel(dpp=False)
    lines = [line.strip() for line in text.splitlines()]
    body = lines[lines.index(next(x for x in lines if x.startswith("func.func"))) + 1 :]
    # Constants first (each once), then the allocation, then the code.
    consts = [x for x in body if "arith.constant" in x]
    assert body[: len(consts)] == consts and len(set(consts)) == len(consts)
    assert "%cst0 = arith.constant 0xff800000 : f32" in consts
    assert body[len(consts)].startswith("%lds = memref.alloc()")
    assert "%part4 = scf.for %k3 = %tid1 to %c64 step %c32 iter_args(%acc2 = %cst0) -> (f32) {" in body
    # The butterfly: 5 shuffles of 32 lanes, each combined by maxnumf.
    assert sum("gpu.shuffle xor" in x for x in body) == 5
    assert "%sh7, %ok8 = gpu.shuffle xor %part4, %i16, %i32 : f32" in body
    assert sum("arith.maxnumf" in x for x in body) == 6
    assert "memref.atomic_rmw maxnumf" in text
    assert "gpu.known_block_size = array<i32: 64, 1, 1>" in text
    # What it prints reads back as the same module.
    assert print_module(parse_module(text, "k.mlir", make_context())) == text


def test_the_subgroup_step_on_gfx942_is_one_clustered_reduce() -> None:
    text = _kernel(dpp=True)
    assert "gpu.shuffle" not in text
    assert "gpu.subgroup_reduce maxnumf %part4 cluster(size = 32) : (f32) -> f32" in text
