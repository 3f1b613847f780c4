"""`devices.on_device_of` and `IntArrayRef.tiles_whole_dims`: structural
vocabulary about where ops run and whether a layout's tiles are whole."""

from __future__ import annotations

from xsplit.api import parse_module
from xsplit.rewrites.dsl import Match, is_structural, operand
from xsplit.rewrites.dsl.arrays import int_array
from xsplit.rewrites.dsl.devices import on_device_of

DEVICES = """
module attributes {stream.affinity.default = #hal.device.affinity<@dev_a>} {
  util.global private @dev_a = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu_features = "+avx512f", native_vector_size = 64 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>]> : !hal.device
  util.global private @dev_b = #hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode-fb", {ukernels = "none"}>]> : !hal.device
  func.func @f(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %x = arith.negf %a : tensor<4x4xf32>
    %t = flow.tensor.transfer %x : tensor<4x4xf32> to #hal.device.affinity<@dev_b>
    %y = arith.negf %t : tensor<4x4xf32>
    %z = arith.negf %x : tensor<4x4xf32>
    return %z : tensor<4x4xf32>
  }
}
"""


def _negs(src: str):
    return [op for op in parse_module(src).walk() if op.name == "arith.negf"]


def test_on_device_of_compares_the_devices_of_root_and_capture() -> None:
    x, y, z = _negs(DEVICES)
    same = on_device_of("src")
    assert is_structural(same)
    assert same.holds(Match(z, captures={"src": x}))
    failure = same.check(Match(y, captures={"src": x}))
    assert failure is not None and "another device than $src" in failure.reason


def test_on_device_of_holds_without_devices_and_needs_a_captured_op() -> None:
    (x, z) = _negs("func.func @f(%a: f32) -> f32 {\n %x = arith.negf %a : f32\n %z = arith.negf %x : f32\n return %z : f32\n}")
    assert on_device_of("src").holds(Match(z, captures={"src": x}))
    failure = on_device_of("src").check(Match(z))
    assert failure is not None and "not a captured op" in failure.reason


def _unpack(dest: str, dims: str, tiles: str, packed: str):
    src = f"""
func.func @f(%p: {packed}) -> {dest} {{
  %e = tensor.empty() : {dest}
  %u = linalg.unpack %p inner_dims_pos = [{dims}] inner_tiles = [{tiles}] into %e : {packed} -> {dest}
  return %u : {dest}
}}
"""
    (op,) = [o for o in parse_module(src).walk() if o.name == "linalg.unpack"]
    return Match(op)


WHOLE = int_array("static_inner_tiles").tiles_whole_dims(operand(1), int_array("inner_dims_pos"))


def test_tiles_whole_dims_holds_on_whole_tiles_only() -> None:
    assert is_structural(WHOLE)
    assert WHOLE.holds(_unpack("tensor<16x8xf32>", "0, 1", "8, 4", "tensor<2x2x8x4xf32>"))
    # 10 rows in tiles of 8: the last one partial.
    failure = WHOLE.check(_unpack("tensor<10x8xf32>", "0, 1", "8, 4", "tensor<2x2x8x4xf32>"))
    assert failure is not None and "dimension 0 (10) holds a partial tile of 8" in failure.reason
    # Only the dimensions the tiles name count: 10 columns tiled by nothing.
    assert WHOLE.holds(_unpack("tensor<16x10xf32>", "0", "8", "tensor<2x10x8xf32>"))


def test_tiles_whole_dims_refuses_a_dynamic_dimension_unless_tiled_by_one() -> None:
    failure = WHOLE.check(_unpack("tensor<?x8xf32>", "0", "8", "tensor<?x8x8xf32>"))
    assert failure is not None and "(?)" in failure.reason
    assert WHOLE.holds(_unpack("tensor<?x8xf32>", "0", "1", "tensor<?x8x1xf32>"))
