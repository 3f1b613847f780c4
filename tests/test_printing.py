"""xsplit's faster printing of its most common ops writes what xDSL's
declarative format writes."""

from __future__ import annotations

import pytest
from xdsl.dialects import tensor

from xsplit import xdsl_compat
from xsplit.api import parse_module, print_module

SLICES = """
func.func @f(%t: tensor<16x100x8xf32>, %i: index, %j: index) -> () {
  %0 = tensor.extract_slice %t[0, 20, 0] [16, 20, 8] [1, 1, 1] : tensor<16x100x8xf32> to tensor<16x20x8xf32>
  %1 = tensor.extract_slice %t[%i, 0, %j] [1, 100, 8] [1, 1, 1] : tensor<16x100x8xf32> to tensor<1x100x8xf32>
  %2 = tensor.extract_slice %t[0, 0, 0] [%i, %j, 8] [1, 2, 1] : tensor<16x100x8xf32> to tensor<?x?x8xf32>
  %3 = tensor.extract_slice %t[%i, %j, 0] [4, %i, 8] [%j, 1, %i] {xsplit.split_part = "tail"} : tensor<16x100x8xf32> to tensor<4x?x8xf32>
  %4 = tensor.extract_slice %t[0, 0, 0] [16, 1, 8] [1, 1, 1] : tensor<16x100x8xf32> to tensor<16x8xf32>
  func.return
}
"""


def test_extract_slice_prints_as_its_format_does(monkeypatch: pytest.MonkeyPatch) -> None:
    module = parse_module(SLICES)
    fast = print_module(module)
    assert tensor.ExtractSliceOp.print is not xdsl_compat._FORMATTED_EXTRACT_SLICE  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setattr(
        tensor.ExtractSliceOp,
        "print",
        xdsl_compat._FORMATTED_EXTRACT_SLICE,  # pyright: ignore[reportPrivateUsage]
    )
    assert fast == print_module(module)
    assert "%t[%i, %j, 0] [4, %i, 8] [%j, 1, %i] {xsplit.split_part = \"tail\"} :" in fast


# Ops printed once per signature (`XsplitPrinter._print_by_signature`):
# formats with optional groups, attribute dictionaries, index lists,
# operands that are one value, unnamed values, hand-written printers of
# ops with a region they do not print (`linalg.fill`, `linalg.matmul`) or
# print in the middle (`linalg.generic`).
BY_SIGNATURE = """
func.func @f(%t: tensor<16x100xf32>, %x: f32, %y: f32, %i: index, %c: i1,
             %p: !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x100xf32>>,
             %q: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<16x100xf32>>) -> f32 {
  %0 = arith.addf %y, %y : f32
  %1 = arith.addf %x, %y : f32
  %2 = arith.addf %0, %x fastmath<fast> : f32
  %3 = arith.addf %1, %0 {tag = "a"} : f32
  %4 = arith.addf %3, %3 : f32
  %5 = arith.addf %2, %4 : f32
  %6 = arith.select %c, %5, %x : f32
  %7 = arith.constant 1.000000e+00 : f32
  %8 = arith.constant {tag = 2 : i64} 1.000000e+00 : f32
  %9 = iree_tensor_ext.dispatch.tensor.load %p, offsets = [0, 0], sizes = [16, 100], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x100xf32>> -> tensor<16x100xf32>
  %10 = iree_tensor_ext.dispatch.tensor.load %p, offsets = [%i, 0], sizes = [16, 100], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readonly:tensor<16x100xf32>> -> tensor<16x100xf32>
  iree_tensor_ext.dispatch.tensor.store %10, %q, offsets = [0, 0], sizes = [16, 100], strides = [1, 1] : tensor<16x100xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<16x100xf32>>
  iree_tensor_ext.dispatch.tensor.store %9, %q, offsets = [0, %i], sizes = [16, 100], strides = [1, 1] : tensor<16x100xf32> -> !iree_tensor_ext.dispatch.tensor<writeonly:tensor<16x100xf32>>
  %11 = tensor.extract_slice %t[0, %i] [16, 20] [1, 1] : tensor<16x100xf32> to tensor<16x20xf32>
  %12 = tensor.extract_slice %t[%i, %i] [1, 20] [1, 1] : tensor<16x100xf32> to tensor<1x20xf32>
  %13 = tensor.empty() : tensor<100x8xf32>
  %14 = linalg.fill ins(%x : f32) outs(%13 : tensor<100x8xf32>) -> tensor<100x8xf32>
  %15 = linalg.fill ins(%y : f32) outs(%14 : tensor<100x8xf32>) -> tensor<100x8xf32>
  %16 = tensor.empty() : tensor<16x8xf32>
  %17 = linalg.matmul ins(%t, %15 : tensor<16x100xf32>, tensor<100x8xf32>) outs(%16 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %18 = linalg.matmul {tag = "b"} ins(%t, %14 : tensor<16x100xf32>, tensor<100x8xf32>) outs(%17 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %19 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%14 : tensor<100x8xf32>) outs(%15 : tensor<100x8xf32>) attrs = {tag = "c"} {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<100x8xf32>
  %20 = arith.cmpi slt, %i, %i : index
  %21 = arith.cmpi eq, %i, %i : index
  %22 = affine.apply affine_map<(d0)[s0] -> (d0 * 4 + s0)> (%i)[%i]
  %23 = scf.forall (%k) in (4) shared_outs(%out = %16) -> (tensor<16x8xf32>) {
    %24 = affine.apply affine_map<(d0) -> (d0 * 4)> (%k)
    %25 = tensor.extract_slice %out[%24, 0] [4, 8] [1, 1] : tensor<16x8xf32> to tensor<4x8xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %25 into %out[%24, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<16x8xf32>
    }
  }
  func.return %6 : f32
}
"""


def test_ops_print_once_per_signature_as_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    from xsplit import reader

    module = parse_module(BY_SIGNATURE)
    # A rewrite's clones share their attribute objects: the generic again,
    # on other operands (its body's values are named where it prints).
    generic = next(op for op in module.walk() if op.name == "linalg.generic")
    loop = next(op for op in module.walk() if op.name == "scf.forall")
    assert loop.parent is not None
    loop.parent.insert_op_after(loop.clone(), loop)
    fills = [op.results[0] for op in module.walk() if op.name == "linalg.fill"]
    swapped = {generic.operands[0]: fills[1], generic.operands[1]: fills[0]}
    again = generic.clone(value_mapper=swapped)
    assert generic.parent is not None
    generic.parent.insert_op_after(again, generic)
    # Values without names print as numbers, given where first printed.
    for op in module.walk():
        for r in op.results:
            r.name_hint = None
    fast = print_module(module)
    recorded = reader.XsplitPrinter.__dict__["_record"]
    records: list[str] = []

    def counting(self: reader.XsplitPrinter, op: object) -> object:
        records.append(op.name)  # type: ignore[attr-defined]
        return recorded(self, op)

    monkeypatch.setattr(reader.XsplitPrinter, "_record", counting)
    assert print_module(module) == fast
    # Each signature was printed aside once, and a repeated one not again
    # (six addf: aliased twice, plain twice, fastmath, attributes). Parsed
    # ops hold attribute objects of their own, which count as signatures
    # of their own; a rewrite's clones share theirs.
    assert records.count("arith.addf") == 4
    assert "linalg.matmul" in records and "iree_tensor_ext.dispatch.tensor.store" in records
    assert records.count("linalg.generic") == 1
    assert records.count("scf.forall.in_parallel") == 1  # the loop's and its clone's
    monkeypatch.setattr(reader, "_by_signature", lambda cls: False)
    assert fast == print_module(module)
    assert "%4 = arith.addf %3, %3 : f32" in fast  # aliased, after a plain one
