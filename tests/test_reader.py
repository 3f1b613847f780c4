"""Pass-through: whatever iree-opt 3.13 reads, xsplit reads and prints back as
the same program (`program_difference` is empty), natively or carried.

Modules are generated from random combinations of the constructs that real
IREE and MLIR IR has and xDSL alone does not keep; each seed is one module."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections.abc import Callable

import pytest
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, UnregisteredOp

from xsplit.api import parse_module, print_module
from xsplit.diagnostics import XsplitError
from xsplit.dialects.builtin import SplatElementsAttr
from xsplit.dialects.flow import DispatchWorkgroupsOp
from xsplit.iree.roundtrip import program_difference
from xsplit.reader import demoted_ops, verify_module, was_carried

# Each construct makes one function named @f<i>; it may add file metadata.
Construct = Callable[[random.Random, int], tuple[str, str]]


def _dims(rng: random.Random, n: int = 2) -> list[int]:
    return [rng.choice([1, 3, 4, 8, 16]) for _ in range(n)]


def util_func_with_attrs(rng: random.Random, i: int) -> tuple[str, str]:
    n = rng.randint(1, 64)
    visibility = rng.choice(["", "public ", "private "])
    body = f"""util.func {visibility}@f{i}(%a: tensor<{n}xf32> {{iree.abi.name = "in{i}"}}, %b: index {{foo.x = {n} : i32}}) -> (tensor<{n}xf32> {{iree.abi.name = "out{i}"}}) attributes {{iree.reflection = {{k = "v{i}"}}}} {{
  util.return %a : tensor<{n}xf32>
}}
"""
    if visibility == "private ":  # a private util.func needs a use, or it is a declaration
        body = f"util.func private @f{i}(%a: tensor<4xf32> {{iree.abi.name = \"x\"}}) -> tensor<4xf32>\n"
    return body, ""


def encoded_tensor(rng: random.Random, i: int) -> tuple[str, str]:
    m, k = _dims(rng)
    return (
        f"""func.func @f{i}(%t: tensor<{m}x{k}xf32, #iree_encoding.testing<>>) -> tensor<{m}x{k}xf32, #iree_encoding.testing<>> {{
  return %t : tensor<{m}x{k}xf32, #iree_encoding.testing<>>
}}
""",
        "",
    )


TRICKY = ['a>b', 'x]}', '{"<', "-> )", "\\\"quoted\\\"", "#dialect.not<attr>"]


def unknown_dialect_attrs(rng: random.Random, i: int) -> tuple[str, str]:
    s1, s2 = rng.sample(TRICKY, 2)
    n = rng.randint(0, 99)
    return (
        f"""func.func @f{i}(%x: f32 {{some.arg = #some.thing<"{s1}">}}) -> f32 attributes {{some.unknown = #some.thing<[{n}, "{s2}", {{c = {n}}}]>, other.unit}} {{
  %y = arith.addf %x, %x {{weird.hint = #weird<"{s1}">, iree_linalg_ext.split_reduction = [{n}]}} : f32
  return %y : f32
}}
""",
        "",
    )


def semi_affine(rng: random.Random, i: int) -> tuple[str, str]:
    expr = rng.choice(["d0 * s0", "d0 mod s0", "d0 floordiv s1 + s0 * s1", "(d0 * s0) ceildiv s1"])
    return (
        f"""func.func @f{i}(%a: index, %b: index, %c: index) -> index {{
  %r = affine.apply affine_map<(d0)[s0, s1] -> ({expr})>(%a)[%b, %c]
  return %r : index
}}
""",
        "",
    )


def argmax(rng: random.Random, i: int) -> tuple[str, str]:
    m, n = _dims(rng)
    return (
        f"""func.func @f{i}(%in: tensor<{m}x{n}xf32>, %v: tensor<{m}xf32>, %x: tensor<{m}xi64>) -> (tensor<{m}xf32>, tensor<{m}xi64>) {{
  %0:2 = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}} ins(%in : tensor<{m}x{n}xf32>) outs(%v, %x : tensor<{m}xf32>, tensor<{m}xi64>) {{
  ^bb0(%a: f32, %b: f32, %c: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %a, %b : f32
    %mx = arith.select %gt, %a, %b : f32
    %ix = arith.select %gt, %jj, %c : i64
    linalg.yield %mx, %ix : f32, i64
  }} -> (tensor<{m}xf32>, tensor<{m}xi64>)
  return %0#0, %0#1 : tensor<{m}xf32>, tensor<{m}xi64>
}}
""",
        "",
    )


def dense_resource(rng: random.Random, i: int) -> tuple[str, str]:
    values = "".join(f"{rng.getrandbits(32):08X}" for _ in range(2))
    return (
        f"""func.func @f{i}() -> tensor<2xf32> {{
  %c = arith.constant dense_resource<blob{i}> : tensor<2xf32>
  return %c : tensor<2xf32>
}}
""",
        f'      blob{i}: "0x04000000{values}"',
    )


def cfg(rng: random.Random, i: int) -> tuple[str, str]:
    return (
        f"""func.func @f{i}(%c: i1, %a: f32, %b: f32) -> f32 {{
  cf.cond_br %c, ^bb1(%a : f32), ^bb2
^bb1(%x: f32):
  %s = arith.addf %x, %b : f32
  cf.br ^bb3(%s : f32)
^bb2:
  cf.br ^bb3(%b : f32)
^bb3(%y: f32):
  return %y : f32
}}
""",
        "",
    )


def unregistered_ops(rng: random.Random, i: int) -> tuple[str, str]:
    n = rng.randint(1, 9)
    return (
        f"""func.func @f{i}(%x: f32) -> f32 {{
  %0:2 = "mystery.op"(%x) ({{
  ^bb0(%arg: f32):
    "mystery.yield"(%arg) : (f32) -> ()
  }}) {{mystery.attr = #mystery.attr<{n}>, count = {n} : i64}} : (f32) -> (f32, !mystery.type<"t{n}">)
  "mystery.branch"(%0#0)[^bb1] : (f32) -> ()
^bb1:
  return %0#0 : f32
}}
""",
        "",
    )


def hex_floats(rng: random.Random, i: int) -> tuple[str, str]:
    n = rng.choice([4, 8, 2048 * 1024])
    return (
        f"""func.func @f{i}() -> (tensor<{n}xf32>, tensor<4xbf16>) {{
  %a = arith.constant dense<0xFF800000> : tensor<{n}xf32>
  %b = arith.constant dense<[0x7FC0, 1.0, 0xFF80, -2.5]> : tensor<4xbf16>
  return %a, %b : tensor<{n}xf32>, tensor<4xbf16>
}}
""",
        "",
    )


def declaration_with_attrs(rng: random.Random, i: int) -> tuple[str, str]:
    return (
        f'func.func private @f{i}(tensor<4xf32> {{foo.bar = {rng.randint(0, 9)} : i32}}) -> (tensor<4xf32> {{foo.res = "x"}})\n',
        "",
    )


def typed_dialect_attr(rng: random.Random, i: int) -> tuple[str, str]:
    return (
        f"""util.func public @f{i}() -> tensor<i32> {{
  %p = flow.tensor.constant #flow.parameter.named<"scope"::"key{i}"> : tensor<i32>
  util.return %p : tensor<i32>
}}
""",
        "",
    )


def util_declaration_with_attrs(rng: random.Random, i: int) -> tuple[str, str]:
    # util.func reads natively since it has a class; a declaration's argument
    # attributes must not be lost on that path.
    return (
        f"util.func private @ext{i}(%a: tensor<{rng.randint(1, 9)}xf32> {{arg.attr{i}}}, "
        f"%b: i32 {{other.attr = {rng.randint(0, 9)} : i32}})\n",
        "",
    )


def translation_info_with_empty_config(rng: random.Random, i: int) -> tuple[str, str]:
    # An explicit empty configuration dictionary is part of the attribute.
    size = rng.choice([32, 64, 128])
    config = "{}" if i == 0 else rng.choice(["{}", "{x = 1 : i64}", ""])
    tail = f", {config}" if config else ""
    return (
        f"func.func @t{i}() attributes {{translation_info = #iree_codegen.translation_info<"
        f"pipeline = #iree_codegen.no_pipeline workgroup_size = [{size}, 1, 1]{tail}>}} {{\n"
        "  return\n}\n",
        "",
    )


CONSTRUCTS: list[Construct] = [
    util_func_with_attrs,
    encoded_tensor,
    unknown_dialect_attrs,
    semi_affine,
    argmax,
    dense_resource,
    cfg,
    unregistered_ops,
    hex_floats,
    declaration_with_attrs,
    typed_dialect_attr,
    util_declaration_with_attrs,
    translation_info_with_empty_config,
]


def generated_module(seed: int) -> str:
    rng = random.Random(seed)
    chosen = rng.sample(CONSTRUCTS, rng.randint(1, 4))
    bodies, blobs = [], []
    for i, construct in enumerate(chosen):
        body, blob = construct(rng, i)
        bodies.append(body)
        if blob:
            blobs.append(blob)
    text = "\n".join(bodies)
    if blobs:
        text += "\n{-#\n  dialect_resources: {\n    builtin: {\n" + ",\n".join(blobs) + "\n    }\n  }\n#-}\n"
    return text


def round_trip(text: str) -> tuple[ModuleOp, str]:
    module = parse_module(text, "gen.mlir")
    return module, print_module(module)


@pytest.mark.parametrize("construct", CONSTRUCTS, ids=lambda c: c.__name__)
def test_each_construct_passes_through(construct: Construct) -> None:
    body, blob = construct(random.Random(0), 0)
    if blob:
        body += "{-#\n  dialect_resources: {\n    builtin: {\n" + blob + "\n    }\n  }\n#-}\n"
    _, out = round_trip(body)
    assert program_difference(body, out) == ""


@pytest.mark.parametrize("seed", range(12))
def test_generated_modules_pass_through(seed: int) -> None:
    text = generated_module(seed)
    _, out = round_trip(text)
    assert program_difference(text, out) == "", text


def test_resource_blobs_are_kept() -> None:
    text = dense_resource(random.Random(1), 0)[0] + (
        '{-#\n  dialect_resources: {\n    builtin: {\n      blob0: "0x040000000000803F00000040"\n'
        "    }\n  }\n#-}\n"
    )
    module, out = round_trip(text)
    assert was_carried(module)
    assert "0x040000000000803F00000040" in out


def test_custom_form_that_does_not_read_back_is_printed_generic() -> None:
    # iree-opt prints `util.func @f` as `util.func public @f`, which reads back
    # with a visibility the input did not have. (An unregistered op makes the
    # module a carried one: xsplit reads plain util.func natively.)
    text = 'util.func @f() {\n  "some.op"() : () -> ()\n  util.return\n}\n'
    _, out = round_trip(text)
    assert program_difference(text, out) == ""
    assert '"util.func"' in out


def test_custom_form_is_kept_where_it_reads_back() -> None:
    text = "util.func public @f() {\n  util.return\n}\n"
    _, out = round_trip(text)
    assert "util.func public @f()" in out


def op_name(op: object) -> str:
    return op.op_name.data if isinstance(op, UnregisteredOp) else op.name  # type: ignore


def constant_values(module: ModuleOp) -> list[object]:
    values = []
    for op in module.walk():
        if op_name(op) == "arith.constant":
            values.append(op.properties.get("value") or op.attributes.get("value"))
    return values


@pytest.mark.parametrize("wrap", ["func", "util"])
@pytest.mark.parametrize("literal", ["7", "0xFF800000", "-1.5"])
def test_large_splat_is_held_once(wrap: str, literal: str) -> None:
    element = "i32" if literal == "7" else "f32"
    tensor = f"tensor<100x64x220x220x{element}>"
    ret = "return" if wrap == "func" else "util.return"
    text = (
        f"{wrap}.func public @s() -> {tensor} {{\n"
        f"  %c = arith.constant dense<{literal}> : {tensor}\n  {ret} %c : {tensor}\n}}\n"
    )
    module, out = round_trip(text)
    (value,) = constant_values(module)
    assert isinstance(value, SplatElementsAttr), type(value)
    assert len(value.element.data.data) <= 4
    assert program_difference(text, out) == ""


def test_hex_float_is_its_bits() -> None:
    text = "func.func @h() -> tensor<3xf32> {\n  %c = arith.constant dense<[0xFF800000, 0x3F800000, 2.0]> : tensor<3xf32>\n  return %c : tensor<3xf32>\n}\n"
    module, out = round_trip(text)
    (value,) = constant_values(module)
    assert isinstance(value, DenseIntOrFPElementsAttr)
    assert value.get_values() == (float("-inf"), 1.0, 2.0)


def test_carried_matmul_demotion_is_reported() -> None:
    # MLIR 3.13 gives every linalg.matmul an `indexing_maps` property. Where
    # xsplit's class does not take it, the op is carried unregistered, and
    # demoted_ops says so (split-k cannot see such an op).
    text = """util.func public @m(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  util.return %0 : tensor<4x16xf32>
}
"""
    module, out = round_trip(text)
    assert program_difference(text, out) == ""
    matmuls = [op for op in module.walk() if op_name(op) == "linalg.matmul"]
    assert len(matmuls) == 1
    demoted = dict(demoted_ops(module))
    assert isinstance(matmuls[0], UnregisteredOp) == ("linalg.matmul" in demoted)


# Bad input read through the carried path: one line, file:line:col, exit 1.


def xsplit_opt(path: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xsplit.tools.xsplit_opt", path, *args],
        capture_output=True,
        text=True,
        check=False,
    )


LOCATED = re.compile(r"^(?P<file>.+):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.+)$")


@pytest.mark.parametrize(
    "text, line, col, message",
    [
        # iree-opt's diagnostic: a type mismatch inside a util.func xDSL cannot parse.
        (
            "util.func public @f(%a: tensor<4xf32>) -> tensor<8xf32> {\n"
            "  util.return %a : tensor<4xf32>\n}\n",
            2,
            3,
            "util.return",
        ),
        # iree-opt's diagnostic for an unknown dialect attribute's body.
        (
            "util.func public @g() {\n  %0 = arith.constant dense<[1, 2> : tensor<2xi32>\n"
            "  util.return\n}\n",
            2,
            34,
            "",
        ),
        # xsplit's own: a use before its definition, read natively, rejected by
        # both, reported at the using op.
        (
            "func.func @h(%a: f32) -> f32 {\n  %1 = arith.addf %0, %a : f32\n"
            "  %0 = arith.addf %a, %a : f32\n  return %1 : f32\n}\n",
            2,
            3,
            "does not dominate",
        ),
    ],
    ids=["iree-opt-verifier", "iree-opt-parser", "dominance"],
)
def test_bad_carried_input_is_one_located_line(
    tmp_path, text: str, line: int, col: int, message: str
) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(text)
    proc = xsplit_opt(str(path))
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    m = LOCATED.match(lines[0])
    assert m, lines[0]
    assert (m["file"], int(m["line"]), int(m["col"])) == (str(path), line, col)
    assert message in m["msg"]
    assert path.read_text() == text


def test_bad_second_chunk_is_located_in_the_file(tmp_path) -> None:
    text = (
        "util.func public @ok() {\n  util.return\n}\n// -----\n"
        "util.func public @bad(%a: i32) -> f32 {\n  util.return %a : i32\n}\n"
    )
    path = tmp_path / "chunks.mlir"
    path.write_text(text)
    proc = xsplit_opt(str(path), "--split-input-file")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    m = LOCATED.match(proc.stderr.strip().splitlines()[-1])
    assert m and int(m["line"]) == 6, proc.stderr


def test_error_is_an_xsplit_error_in_the_api() -> None:
    with pytest.raises(XsplitError) as info:
        parse_module("util.func public @f(%a: i32) -> f32 {\n  util.return %a : i32\n}\n", "api.mlir")
    assert info.value.diagnostic.startswith("api.mlir:2:3: error: ")


def test_demoting_many_ops_does_not_print_the_module(monkeypatch) -> None:
    # xDSL's verifier prints the whole module into each failure's message;
    # with one failure per demoted op that made reading quadratic.
    from xdsl.printer import Printer

    calls = []
    original = Printer.print_op
    monkeypatch.setattr(
        Printer, "print_op", lambda self, op: (calls.append(op), original(self, op))[1]
    )
    matmuls = "\n".join(
        f"  %m{i} = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) "
        f"outs({'%c' if i == 0 else f'%m{i - 1}'} : tensor<4x16xf32>) -> tensor<4x16xf32>"
        for i in range(40)
    )
    text = (
        "util.func public @many(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>)"
        f" -> tensor<4x16xf32> {{\n{matmuls}\n  \"some.op\"() : () -> ()\n"
        "  util.return %m39 : tensor<4x16xf32>\n}\n"
    )
    module = parse_module(text, "many.mlir")
    assert was_carried(module)
    assert calls == []
    assert len(demoted_ops(module)) in (0, 40)


def test_carrying_failure_names_the_input_location() -> None:
    # Where xsplit cannot carry what iree-opt printed, the error names the
    # input's file:line:col that iree-opt printed on the op's line.
    from xsplit.reader import _input_location

    generic = (
        '"builtin.module"() ({\n'
        '  %0 = "a.b"() {x = #weird<"loc(\\"no\\":1:1)">} : () -> i32 loc("in put.mlir":7:12)\n'
        '}) : () -> () loc("in put.mlir":0:0)\n'
    )
    assert _input_location(generic, generic.index("#weird")) == "in put.mlir:7:12"
    assert _input_location("no locations here", 3) is None


ISOLATION_BREACH = """func.func @f(%x: i32) -> i32 {
  %c = arith.constant 1 : i32
  %clean = flow.dispatch.workgroups(%c) : (i32) -> tensor<4xf32> =
      (%arg: i32, %out: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4xf32>>) {
    %e = arith.addi %arg, %arg : i32
    flow.return
  }
  %d = flow.dispatch.workgroups(%c) : (i32) -> tensor<4xf32> =
      (%arg: i32, %out: !iree_tensor_ext.dispatch.tensor<writeonly:tensor<4xf32>>) {
    %e = arith.addi %ARG, %arg : i32
    flow.return
  }
  return %c : i32
}
"""


@pytest.mark.parametrize("outer", ["%c", "%x"])
def test_a_use_across_an_isolated_op_is_located(outer: str) -> None:
    """A value from outside an op isolated from above (a constant, or the
    function's argument) used inside it is an error at the use, also where
    an op of the same signature verified before it."""
    with pytest.raises(XsplitError) as info:
        parse_module(ISOLATION_BREACH.replace("%ARG", outer), "breach.mlir")
    assert re.search(r"(?i)isolated.?from.?above", info.value.diagnostic)
    assert info.value.diagnostic.startswith("breach.mlir:10:"), info.value.diagnostic


def test_a_use_from_the_enclosing_region_of_a_loop_verifies() -> None:
    """Nested regions that are not isolated see the values around them."""
    module = parse_module(
        """func.func @f(%x: i32) -> i32 {
          %r = scf.execute_region -> i32 {
            %y = arith.addi %x, %x : i32
            scf.yield %y : i32
          }
          return %r : i32
        }"""
    )
    assert "arith.addi %x, %x" in print_module(module)


SLICE_AFTER_ITS_TWIN = """func.func @f(%t: tensor<8x8xf32>) -> tensor<2x2xf32> {
  %a = tensor.extract_slice %t[0, 0] [2, 2] [1, 1] : tensor<8x8xf32> to tensor<2x2xf32>
  %b = tensor.extract_slice %t[4, 4] [2, 2] [1, 1] : tensor<8x8xf32> to tensor<2x2xf32>
  %c = tensor.extract_slice %t[4, 4] [2, 2] [1, 1] : tensor<8x8xf32> to tensor<2x2xf32>
  return %a : tensor<2x2xf32>
}
"""


def test_an_op_verified_by_its_signature_still_has_its_placement_checked() -> None:
    """A slice whose signature an earlier slice passed is not verified again,
    except where it would end a block that needs a terminator."""
    module = parse_module(SLICE_AFTER_ITS_TWIN, "twin.mlir")
    assert print_module(module).count("tensor.extract_slice") == 3
    ends_the_block = SLICE_AFTER_ITS_TWIN.replace("  return %a : tensor<2x2xf32>\n", "")
    with pytest.raises(XsplitError) as info:
        parse_module(ends_the_block, "twin.mlir")
    assert info.value.diagnostic.startswith("twin.mlir:4:"), info.value.diagnostic
    assert "terminator" in info.value.diagnostic


def test_an_op_of_another_signature_than_its_twin_is_verified() -> None:
    """Dynamic offsets without their operands: a signature no slice passed."""
    broken = SLICE_AFTER_ITS_TWIN.replace(
        "%c = tensor.extract_slice %t[4, 4] [2, 2] [1, 1] : tensor<8x8xf32> to tensor<2x2xf32>",
        '%c = "tensor.extract_slice"(%t) <{static_offsets = array<i64: -9223372036854775808, 4>, '
        "static_sizes = array<i64: 2, 2>, static_strides = array<i64: 1, 1>, "
        "operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (tensor<8x8xf32>) -> tensor<2x2xf32>",
    )
    with pytest.raises(XsplitError) as info:
        parse_module(broken, "twin.mlir")
    assert info.value.diagnostic.startswith("twin.mlir:4:"), info.value.diagnostic


TIED_DYNAMIC_DISPATCH = """util.func public @f(%arg0: tensor<?x4xf32>, %arg1: index) -> tensor<?x4xf32> {
  %c128 = arith.constant 128 : index
  %0 = flow.dispatch.workgroups[%arg1](%arg0, %arg1) : (tensor<?x4xf32>{%c128}, index) -> %arg0{%c128} =
      (%a: !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>, %n: index) {
    %t = iree_tensor_ext.dispatch.tensor.load %a, offsets = [0, 0], sizes = [%n, 4], strides = [1, 1] : !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>{%n} -> tensor<?x4xf32>
    iree_tensor_ext.dispatch.tensor.store %t, %a, offsets = [0, 0], sizes = [%n, 4], strides = [1, 1] : tensor<?x4xf32> -> !iree_tensor_ext.dispatch.tensor<readwrite:tensor<?x4xf32>>{%n}
    flow.return
  }
  util.return %0 : tensor<?x4xf32>
}
"""


def test_a_tied_dispatch_with_sizes_is_read_as_flow() -> None:
    """A tied result with sizes (`-> %arg0{%c128}`) is what IREE writes for a
    dispatch that updates a dynamic tensor in place: xsplit's class takes it,
    so passes see the dispatch as one (issue 33)."""
    module = parse_module(TIED_DYNAMIC_DISPATCH, "tied.mlir")
    assert demoted_ops(module) == []
    (dispatch,) = [op for op in module.walk() if op.name == "flow.dispatch.workgroups"]
    assert isinstance(dispatch, DispatchWorkgroupsOp)
    assert dispatch.tied_argument_indices() == [0] and len(dispatch.result_dims) == 1
    verify_module(module)
    assert program_difference(TIED_DYNAMIC_DISPATCH, print_module(module)) == ""


MULTI_BLOCK_REGION = """func.func @f(%a: tensor<4x8xf32>, %c: i1) -> tensor<4x8xf32> {
  %0 = flow.dispatch.region -> (tensor<4x8xf32>) {
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    flow.return %a : tensor<4x8xf32>
  ^bb2:
    %e = tensor.empty() : tensor<4x8xf32>
    flow.return %e : tensor<4x8xf32>
  }
  return %0 : tensor<4x8xf32>
}
"""


def test_a_demoted_dispatch_takes_its_return_along() -> None:
    """Where xsplit's class does not take a dispatch (a region of several
    blocks), the dispatch is carried unregistered, and so are its
    `flow.return`s, which xsplit's class allows only in a dispatch it knows:
    the module verifies after a pass as it did when read (issue 33)."""
    module = parse_module(MULTI_BLOCK_REGION, "blocks.mlir")
    demoted = [name for name, _ in demoted_ops(module)]
    assert "flow.dispatch.region" in demoted
    assert demoted.count("flow.return") == 2
    verify_module(module)
    assert program_difference(MULTI_BLOCK_REGION, print_module(module)) == ""


RANK_ZERO_RESHAPES = """func.func @f(%a: tensor<1x?xf32>, %s: tensor<f32>, %n: index) -> (tensor<f32>, tensor<1x?xf32>) {
  %0 = tensor.collapse_shape %a [] : tensor<1x?xf32> into tensor<f32>
  %1 = tensor.expand_shape %s [] output_shape [1, %n] : tensor<f32> into tensor<1x?xf32>
  return %0, %1 : tensor<f32>, tensor<1x?xf32>
}
"""


def test_a_reshape_to_or_from_rank_zero_is_read_as_tensor() -> None:
    """MLIR reshapes to and from rank 0 with an empty reassociation, which
    xDSL's reshape check rejects; xsplit's verifier takes it as MLIR does, so
    passes see the reshapes as what they are."""
    module = parse_module(RANK_ZERO_RESHAPES, "rank0.mlir")
    assert demoted_ops(module) == [] and not was_carried(module)
    assert program_difference(RANK_ZERO_RESHAPES, print_module(module)) == ""


def test_a_carried_op_is_not_taken_as_isolated() -> None:
    """xsplit does not know tensor.generate, whose body may read values from
    above; verifying the carried module again (as after each pass) accepts it."""
    text = """func.func @f(%v: f32) -> tensor<4xf32> {
  %g = tensor.generate {
  ^bb0(%i: index):
    tensor.yield %v : f32
  } : tensor<4xf32>
  return %g : tensor<4xf32>
}
"""
    module = parse_module(text, "generate.mlir")
    assert was_carried(module)
    verify_module(module)


def _tokens(lexer_class: type, text: str) -> list[tuple[str, int, int]] | tuple[str, str]:
    """Every token of `text` as (kind, start, end), or the error that stopped it."""
    from xdsl.utils.exceptions import ParseError
    from xdsl.utils.lexer import Input
    from xdsl.utils.mlir_lexer import MLIRTokenKind

    lexer = lexer_class(Input(text, "<lexed>"))
    tokens: list[tuple[str, int, int]] = []
    try:
        while True:
            token = lexer.lex()
            tokens.append((token.kind.name, token.span.start, token.span.end))
            if token.kind == MLIRTokenKind.EOF:
                return tokens
    except ParseError as e:
        return (str(e), f"after {tokens[-3:]}")


_LEXED_PIECES = [
    "%a", "%12", "%x.y$z-1", "%", "@f", '@"q r"', "@", "#map", "#-}", "{-#", "!t", "^bb0",
    "tensor", "_x", "x1.y$", "é", "0", "00x1", "0x1F", "0xg", "12", "1.5", "1.", "2.5e-3",
    "7e3", "3x4", "->", "-", "- >", "...", "..", ".", "{", "}", "(", ")", "[", "]", "<", ">",
    ":", ",", "=", "+", "*", "?", "|", "/", "//c\n", "// c", '"s"', '"a\\"b"', '"\\n"',
    '"unterminated', " ", "\t", "\n", "\r\n", "$", "`", "~",
]


@pytest.mark.parametrize("seed", range(40))
def test_fast_lexer_lexes_as_xdsl_does(seed: int) -> None:
    """xsplit's lexer gives xDSL's tokens, spans and errors (the pieces
    joined at random, often without space between them)."""
    from xdsl.utils.mlir_lexer import MLIRLexer

    from xsplit.xdsl_compat import FastMLIRLexer

    rng = random.Random(seed)
    text = "".join(
        rng.choice(_LEXED_PIECES) + rng.choice(["", "", " ", "\n"]) for _ in range(rng.randint(20, 120))
    )
    assert _tokens(FastMLIRLexer, text) == _tokens(MLIRLexer, text), text


def test_fast_lexer_lexes_the_filecheck_inputs_as_xdsl_does() -> None:
    from pathlib import Path

    from xdsl.utils.mlir_lexer import MLIRLexer

    from xsplit.xdsl_compat import FastMLIRLexer

    folder = Path(__file__).parent / "filecheck"
    texts = [p.read_text() for p in sorted(folder.rglob("*.mlir"))]
    assert len(texts) > 50
    for text in texts:
        assert _tokens(FastMLIRLexer, text) == _tokens(MLIRLexer, text)
