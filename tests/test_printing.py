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
