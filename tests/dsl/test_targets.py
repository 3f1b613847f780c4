"""`targets.target()` and `encoding_size`: the target table's answer on the
match side, read as `option()` reads the options."""

from __future__ import annotations

from xsplit.api import parse_module
from xsplit.diagnostics import collect_remarks
from xsplit.rewrites.dsl import Match, input, is_structural
from xsplit.rewrites.dsl.targets import encoding_size, target

MAPS = (
    "user_indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, "
    "affine_map<(d0, d1, d2) -> (d0, d1)>]"
)


def _matmul(sizes: str = ", iteration_sizes = [64, 32, 100]", devices: bool = True) -> Match:
    encs = "\n".join(
        f"#e{i} = #iree_encoding.encoding<operand_index = {i} : index, op_type = matmul, "
        f"element_types = [f32, f32, f32], {MAPS}{sizes}>"
        for i in range(3)
    )
    attrs = " attributes {stream.affinity.default = #hal.device.affinity<@dev>}" if devices else ""
    dev = (
        '  util.global private @dev = #hal.device.target<"local", [#hal.executable.target<"vmvx", '
        '"vmvx-bytecode-fb", {ukernels = "none"}>]> : !hal.device\n'
        if devices
        else ""
    )
    src = f"""{encs}
module{attrs} {{
{dev}  func.func @f(%a: tensor<64x100xf32, #e0>, %b: tensor<100x32xf32, #e1>, %c: tensor<64x32xf32, #e2>) -> tensor<64x32xf32, #e2> {{
    %0 = linalg.matmul ins(%a, %b : tensor<64x100xf32, #e0>, tensor<100x32xf32, #e1>) outs(%c : tensor<64x32xf32, #e2>) -> tensor<64x32xf32, #e2>
    func.return %0 : tensor<64x32xf32, #e2>
  }}
}}
"""
    (op,) = [o for o in parse_module(src, "in.mlir").walk() if o.name == "linalg.matmul"]
    return Match(op, {"target": None})


M, N = encoding_size(input(0), 0), encoding_size(input(0), 1)


def test_encoding_size_reads_the_iteration_sizes() -> None:
    m = _matmul()
    assert (M(m), N(m), encoding_size(input(1), 2)(m)) == (64, 32, 100)
    failure = (M > 0).check(_matmul(sizes=""))
    assert failure is not None and "has no iteration_sizes" in failure.reason


def test_data_tiles_captures_the_devices_tiles_and_says_them() -> None:
    tiles = target().data_tiles(m=M, n=N, capture="tiles")
    assert is_structural(tiles)
    m = _matmul()
    with collect_remarks() as remarks:
        assert tiles.holds(m)
    assert m["tiles"] == (8, 8, 4)
    assert remarks == ["in.mlir:7:10: remark: on @dev (vmvx): 8x8x4 data tiles"]
    assert not target().drops_encodings(m=M, n=N).holds(_matmul())


def test_the_option_overrides_the_device_and_a_gpu_drops_encodings() -> None:
    m = _matmul(devices=False)
    m.options["target"] = "sm_80"
    drops = target().drops_encodings(m=M, n=N)
    assert is_structural(drops)
    assert drops.holds(m)
    failure = target().data_tiles(m=M, n=N, capture="tiles").check(m)
    assert failure is not None and failure.reason == "the target drops the encodings"
    assert "tiles" not in m.captures


def test_an_unknown_size_fails_saying_which() -> None:
    failure = target().data_tiles(m=M, n=N, capture="t").check(_matmul(sizes=", iteration_sizes = [?, 32, 100]"))
    assert failure is not None and "loop 0 of input 0's encoding is dynamic" in failure.reason


def test_encoding_size_of_a_loop_found_by_its_role() -> None:
    from xsplit.rewrites.dsl.contractions import contraction, loop_of

    m = _matmul()
    assert contraction("c").holds(m)
    by_role = encoding_size(input(0), loop_of("c", "n"))
    assert by_role(m) == 32 and by_role.structural
    assert "the n loop of $c" in by_role.description
