"""The SPMD simulator and `xsplit simulate`: planted races found with their
locations, their fixes clean, results compared with numpy, a sequential
`scf.forall` program and a tensor program run through IREE, and errors."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from xdsl.dialects.builtin import IntegerAttr, i64

from xsplit.api import parse_module, print_module
from xsplit.simulator import Launch, Machine, simulate
from xsplit.simulator.run import pick_function, random_inputs
from xsplit.tools.xsplit_cli import main as xsplit_main

ROTATE = """\
func.func @rotate(%a: memref<2x64xf32>, %b: memref<2x64xf32>) attributes {gpu.known_block_size = array<i32: 64, 1, 1>, gpu.known_grid_size = array<i32: 2, 1, 1>} {
  %t = gpu.thread_id x
  %blk = gpu.block_id x
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %s = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
  %v = memref.load %a[%blk, %t] : memref<2x64xf32>
  memref.store %v, %s[%t] : memref<64xf32, #gpu.address_space<workgroup>>
  gpu.barrier
  %t1 = arith.addi %t, %c1 : index
  %t2 = arith.remui %t1, %c64 : index
  %w = memref.load %s[%t2] : memref<64xf32, #gpu.address_space<workgroup>>
  memref.store %w, %b[%blk, %t] : memref<2x64xf32>
  return
}
"""

ROTATE_SEQUENTIAL = """\
func.func @rotate(%a: memref<2x64xf32>, %b: memref<2x64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.forall (%blk, %t) in (2, 64) {
    %t1 = arith.addi %t, %c1 : index
    %t2 = arith.remui %t1, %c64 : index
    %w = memref.load %a[%blk, %t2] : memref<2x64xf32>
    memref.store %w, %b[%blk, %t] : memref<2x64xf32>
  }
  return
}
"""

ROTATE_TENSOR = """\
func.func @rotate(%a: tensor<2x64xf32>, %b: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %x = tensor.extract_slice %a[0, 1] [2, 63] [1, 1] : tensor<2x64xf32> to tensor<2x63xf32>
  %y = tensor.extract_slice %a[0, 0] [2, 1] [1, 1] : tensor<2x64xf32> to tensor<2x1xf32>
  %r0 = tensor.insert_slice %x into %b[0, 0] [2, 63] [1, 1] : tensor<2x63xf32> into tensor<2x64xf32>
  %r = tensor.insert_slice %y into %r0[0, 63] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x64xf32>
  return %r : tensor<2x64xf32>
}
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = xsplit_main(["simulate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_held(capsys, module, *argv: str) -> tuple[int, str, str]:
    """`xsplit simulate` on a module held in memory, not printed and parsed."""
    from xsplit.tools import simulate as simulate_tool

    code = simulate_tool.run_module(simulate_tool.make_arg_parser().parse_args(["-", *argv]), module)
    out, err = capsys.readouterr()
    return code, out, err


def test_planted_race_is_found_with_both_locations(tmp_path, capsys):
    racy = write(tmp_path, "racy.mlir", ROTATE.replace("  gpu.barrier\n", ""))
    ref = write(tmp_path, "ref.mlir", ROTATE_SEQUENTIAL)
    code, out, _ = run_cli(capsys, racy, "--reference", ref)
    assert code == 1
    races = [line for line in out.splitlines() if line.startswith("race on")]
    assert len(races) == 1
    # The store (line 8) and the neighbour's load (line 11, one line up now).
    assert f"write by block (0,0,0) thread (0,0,0) at {racy}:8:3 (memref.store)" in races[0]
    assert f"read by block (0,0,0) thread (63,0,0) at {racy}:11:3 (memref.load)" in races[0]
    assert races[0].startswith("race on %s[0]:")
    # Adversarial orders make the race visible in the values too.
    assert any(line.startswith("mismatch in %b (argument 1)") for line in out.splitlines())


def test_the_fix_is_clean_against_a_sequential_forall(tmp_path, capsys):
    fixed = write(tmp_path, "fixed.mlir", ROTATE)
    ref = write(tmp_path, "ref.mlir", ROTATE_SEQUENTIAL)
    code, out, _ = run_cli(capsys, fixed, "--reference", ref)
    assert code == 0, out
    assert out.startswith("clean: 0 racing op pairs, 0 mismatches")


def test_tensor_reference_runs_through_iree(tmp_path, capsys):
    fixed = write(tmp_path, "fixed.mlir", ROTATE)
    ref = write(tmp_path, "ref.mlir", ROTATE_TENSOR)
    assert run_cli(capsys, fixed, "--reference", ref)[0] == 0
    # A kernel that rotates the wrong way is caught.
    wrong = write(tmp_path, "wrong.mlir", ROTATE.replace("arith.addi %t, %c1", "arith.addi %t, %c64").replace("%c64 = arith.constant 64", "%c64 = arith.constant 63"))
    code, out, _ = run_cli(capsys, wrong, "--reference", ref)
    assert code == 1
    assert "mismatch in %b (argument 1)" in out


def test_schedules_disagree_on_a_racy_kernel(tmp_path):
    """The orders really differ: a racy kernel gives different values."""
    module = parse_module(ROTATE.replace("  gpu.barrier\n", ""), "racy.mlir")
    func = pick_function(module, None)
    inputs = random_inputs(func, 0)
    launch = Launch((2, 1, 1), (64, 1, 1))
    from xsplit.simulator.run import schedules

    results = {}
    for name, schedule in schedules(launch.lanes, 0).items():
        results[name] = Machine(launch, schedule).run(func, [a.copy() for a in inputs])[1]
    expected = np.roll(inputs[0], -1, axis=1)
    assert np.allclose(results["lockstep"], expected)
    assert not all(np.allclose(r, expected, equal_nan=False) for r in results.values())


ATOMIC_ROWSUM = """\
func.func @rowsum(%a: memref<8x96xf32>, %o: memref<8xf32>) attributes {gpu.known_block_size = array<i32: 32, 1, 1>, gpu.known_grid_size = array<i32: 3, 1, 1>} {
  %t = gpu.thread_id x
  %chunk = gpu.block_id x
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %k = affine.apply affine_map<()[s0, s1] -> (s0 * 32 + s1)>()[%chunk, %t]
  %c1 = arith.constant 1 : index
  scf.for %row = %c0 to %c8 step %c1 {
    %v = memref.load %a[%row, %k] : memref<8x96xf32>
    %old = memref.atomic_rmw addf %v, %o[%row] : (f32, memref<8xf32>) -> f32
  }
  return
}
"""


def test_atomics_do_not_race_and_a_plain_update_does(tmp_path, capsys):
    atomic = write(tmp_path, "atomic.mlir", ATOMIC_ROWSUM)
    module = parse_module(ATOMIC_ROWSUM, atomic)
    func = pick_function(module, None)
    inputs = random_inputs(func, 3)
    expected = [inputs[0], inputs[1] + inputs[0].sum(axis=1, dtype=np.float64)]
    report = simulate(func, reference=expected, inputs=inputs)
    assert report.clean, report.races + report.mismatches
    plain = ATOMIC_ROWSUM.replace(
        "%old = memref.atomic_rmw addf %v, %o[%row] : (f32, memref<8xf32>) -> f32",
        "%old = memref.load %o[%row] : memref<8xf32>\n    %new = arith.addf %old, %v : f32\n"
        "    memref.store %new, %o[%row] : memref<8xf32>",
    )
    path = write(tmp_path, "plain.mlir", plain)
    code, out, _ = run_cli(capsys, path)
    assert code == 1
    assert "race on %o[0]:" in out
    # Threads of different workgroups race too: no barrier orders them.
    assert "block (1,0,0)" in out or "block (2,0,0)" in out or "thread (1,0,0)" in out


SUBGROUP = """\
func.func @warp_sums(%a: memref<64xf32>, %o: memref<64xf32>) attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
  %t = gpu.thread_id x
  %v = memref.load %a[%t] : memref<64xf32>
  %off = arith.constant 1 : i32
  %w = arith.constant 32 : i32
  %n, %ok = gpu.shuffle xor %v, %off, %w : f32
  %pair = arith.addf %v, %n : f32
  %sum = gpu.subgroup_reduce add %v : (f32) -> f32
  %r = arith.mulf %pair, %sum : f32
  memref.store %r, %o[%t] : memref<64xf32>
  return
}
"""


def test_shuffle_and_subgroup_reduce_match_numpy(tmp_path):
    module = parse_module(SUBGROUP, "sub.mlir")
    func = pick_function(module, None)
    inputs = random_inputs(func, 5)
    a = inputs[0].astype(np.float64)
    pair = a + a[np.arange(64) ^ 1]
    sums = np.repeat(a.reshape(2, 32).sum(axis=1), 32)
    report = simulate(func, reference=[inputs[0], pair * sums], inputs=inputs)
    assert report.clean, report.races + report.mismatches


CLUSTERS = """\
func.func @clusters(%a: memref<64xf32>, %o: memref<64xf32>, %p: memref<64xf32>) attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
  %t = gpu.thread_id x
  %v = memref.load %a[%t] : memref<64xf32>
  %s = gpu.subgroup_reduce add %v cluster(size = 4) : (f32) -> f32
  %m = gpu.subgroup_reduce maxnumf %v cluster(size = 4, stride = 16) : (f32) -> f32
  memref.store %s, %o[%t] : memref<64xf32>
  memref.store %m, %p[%t] : memref<64xf32>
  return
}
"""


def test_clustered_subgroup_reduce_matches_numpy() -> None:
    """Clusters of 4 consecutive lanes, and of 4 lanes 16 apart (lanes i,
    i + 16, i + 32, i + 48 of a subgroup of 64)."""
    module = parse_module(CLUSTERS, "clusters.mlir")
    func = pick_function(module, None)
    inputs = random_inputs(func, 6)
    a = inputs[0].astype(np.float64)
    sums = np.repeat(a.reshape(16, 4).sum(axis=1), 4)
    maxes = np.tile(a.reshape(4, 16).max(axis=0), 4)
    report = simulate(func, reference=[inputs[0], sums, maxes], inputs=inputs, subgroup_size=64)
    assert report.clean, report.races + report.mismatches


def matmul_kernel() -> str:
    """The seed's staged matmul at 128x128x128: 2x2 workgroups of 16x16 threads."""
    return (Path(__file__).parent / "inputs" / "staged_matmul_256.mlir").read_text()


def test_256_thread_blocks_in_seconds(tmp_path, capsys):
    path = str(Path(__file__).parent / "inputs" / "staged_matmul_256.mlir")
    module = parse_module(matmul_kernel(), path)
    func = pick_function(module, None)
    inputs = random_inputs(func, 0)
    a, b = inputs[0].astype(np.float64), inputs[1].astype(np.float64)
    started = time.perf_counter()
    report = simulate(func, reference=[inputs[0], inputs[1], a @ b], inputs=inputs)
    elapsed = time.perf_counter() - started
    assert report.clean, report.races + report.mismatches
    # Four orders of 1024 threads; seconds on one core, with room for a loaded machine.
    assert elapsed < 30


def test_staged_matmul_without_its_barriers_races(tmp_path, capsys):
    text = matmul_kernel().replace("        gpu.barrier\n", "")
    path = write(tmp_path, "nobar.mlir", text)
    code, out, _ = run_cli(capsys, path, "--schedule", "lockstep")
    assert code == 1
    assert "race on %sa[" in out and "race on %sb[" in out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (ROTATE.replace("arith.remui %t1, %c64", "arith.remui %t1, %c1").replace("%t2 = ", "%t3 = ").replace("[%t2]", "[%t1]"),
         "index 64 out of bounds [0, 64) in dimension 0 of %s"),
        (ROTATE.replace("%w = memref.load", "%w = math.erf %v : f32\n  %w2 = memref.load"),
         "the simulator does not run 'math.erf'"),
        (ROTATE.replace(", gpu.known_grid_size = array<i32: 2, 1, 1>", ""),
         "no grid size: give --grid or a gpu.known_grid_size attribute"),
        (ROTATE.replace("  gpu.barrier\n", "  %c0 = arith.constant 0 : index\n  %lo = arith.cmpi eq, %t, %c0 : index\n  scf.if %lo {\n    gpu.barrier\n  }\n"),
         "divergent barrier"),
    ],
)
def test_errors_are_one_located_line(tmp_path, capsys, text, message):
    path = write(tmp_path, "bad.mlir", text)
    code, _, err = run_cli(capsys, path)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{path}:") and ": error: " in lines[0]
    assert message in lines[0]
    assert "Traceback" not in err


def test_reference_with_other_arguments_is_an_error(tmp_path, capsys):
    fixed = write(tmp_path, "fixed.mlir", ROTATE)
    ref = write(tmp_path, "ref.mlir", ROTATE_SEQUENTIAL.replace("%b: memref<2x64xf32>)", "%b: memref<2x64xf32>, %c: memref<2x64xf32>)"))
    code, _, err = run_cli(capsys, fixed, "--reference", ref)
    assert code == 2
    assert (
        "the reference takes 3 arguments; expected 2 (all the kernel's arguments, "
        "destination-passing) or 1 (its inputs: %a)" in err
    )


def test_grid_and_block_options_override_known_sizes(tmp_path, capsys):
    fixed = write(tmp_path, "fixed.mlir", ROTATE.replace("2x64", "3x64"))
    ref = write(tmp_path, "ref.mlir", ROTATE_SEQUENTIAL.replace("2x64", "3x64").replace("(2, 64)", "(3, 64)"))
    # The known grid (2) leaves row 2 alone; --grid 3 covers it.
    assert run_cli(capsys, fixed, "--reference", ref)[0] == 1
    assert run_cli(capsys, fixed, "--reference", ref, "--grid", "3")[0] == 0


def test_undistributed_input_is_distributed_and_checked_against_itself(tmp_path, capsys):
    """No reference: the thread-mapped loops run sequentially are the
    reference for what `distribute` makes of them. Distributed as is, the
    fill and the matmul race; with insert-barriers they do not."""
    loops = str(Path(__file__).parent / "inputs" / "fill_rows_matmul_loops.mlir")
    code, out, _ = run_cli(capsys, loops)
    assert code == 1
    assert f"at {loops}:9:5 (linalg.fill)" in out and f"at {loops}:17:5 (linalg.matmul)" in out
    from xsplit.api import rewrite

    synced = write(
        tmp_path, "synced.mlir", rewrite(Path(loops).read_text(), "insert-barriers", loops)
    )
    code, out, _ = run_cli(capsys, synced)
    assert code == 0, out
    distributed = write(
        tmp_path, "dist.mlir", rewrite(Path(loops).read_text(), "distribute,insert-barriers", loops)
    )
    code, out, _ = run_cli(capsys, distributed, "--reference", loops)
    assert code == 0, out


def test_exported_dispatch_runs_with_bindings_and_dispatch_sizes(tmp_path, capsys):
    """export-dispatch's form: buffers bound by hal.interface.binding.subspan,
    the grid from the export's count, the block from translation_info."""
    from xsplit.api import rewrite_module

    staged = (Path(__file__).parent / "inputs" / "staged_matmul_256.mlir").read_text()
    module = rewrite_module(parse_module(staged), "export-dispatch{target=sm_80}")
    exported = write(tmp_path, "exported.mlir", print_module(module))
    assert "hal.interface.binding.subspan" in Path(exported).read_text()
    reference = write(
        tmp_path,
        "ref.mlir",
        """\
func.func @dot(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>, %c: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  %r = linalg.matmul ins(%a, %b : tensor<128x128xf32>, tensor<128x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}
""",
    )
    # The printed kernel runs as read back (its one round trip); the racy
    # one is the same module, held, without its barriers.
    code, out, _ = run_cli(capsys, exported, "--reference", reference, "--schedule", "reverse")
    assert code == 0, out
    barriers = [op for op in module.walk() if op.name == "gpu.barrier"]
    assert barriers
    for op in barriers:
        op.detach()
        op.erase()
    code, out, _ = run_held(capsys, module, "--schedule", "lockstep")
    assert code == 1 and "race on %sa[" in out


def test_exported_relaxed_atomic_merge_runs(tmp_path, capsys):
    """The own kernel's atomic merge as export-dispatch writes it for a GPU:
    `llvm.atomicrmw` on a pointer built from C's aligned base. The
    simulator maps the address back to C's element, logs the atomic and
    gets the matmul's result."""
    from tests.helpers.gemm_kernel import LOWER, matmul
    from xsplit.api import rewrite_module
    from xsplit.diagnostics import collect_remarks
    from xsplit.dialects.llvm import BIN_OPS, AtomicRMWOp

    source = matmul(40, 24, 101)
    with collect_remarks():
        module = rewrite_module(
            parse_module(source),
            f"gemm-kernel{{target=sm_80 chunks=4 merge=atomic}},{LOWER},"
            "export-dispatch{target=sm_80}",
        )
    out = print_module(module)
    assert "llvm.atomicrmw fadd" in out and "memref.atomic_rmw" not in out
    exported = write(tmp_path, "exported.mlir", out)
    reference = write(tmp_path, "ref.mlir", source)
    code, text, _ = run_cli(capsys, exported, "--reference", reference, "--schedule", "reverse")
    assert code == 0, text
    # The op is run as what it says: a max instead of the add is wrong (on the
    # module held, the printed form's round trip checked above).
    atomics = [op for op in module.walk() if isinstance(op, AtomicRMWOp)]
    assert atomics and all(op.bin_op_name == "fadd" for op in atomics)
    for op in atomics:
        op.bin_op = IntegerAttr(BIN_OPS["fmax"], i64)
    code, text, _ = run_held(capsys, module, "--reference", reference, "--schedule", "reverse")
    assert code == 1, text


TREE_SUM = """\
func.func @tree(%a: memref<64xf32>, %o: memref<1xf32>) attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
  %t = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c64 = arith.constant 64 : index
  %s = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
  %v = memref.load %a[%t] : memref<64xf32>
  memref.store %v, %s[%t] : memref<64xf32, #gpu.address_space<workgroup>>
  %r = scf.for %level = %c0 to %c6 step %c1 iter_args(%width = %c64) -> (index) {
    %h = arith.shrui %width, %c1 : index
    gpu.barrier
    %active = arith.cmpi ult, %t, %h : index
    scf.if %active {
      %j = arith.addi %t, %h : index
      %x = memref.load %s[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      %y = memref.load %s[%j] : memref<64xf32, #gpu.address_space<workgroup>>
      %z = arith.addf %x, %y : f32
      memref.store %z, %s[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    }
    scf.yield %h : index
  }
  gpu.barrier
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    %total = memref.load %s[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %total, %o[%c0] : memref<1xf32>
  }
  return
}
"""


def test_tree_reduction_with_a_barrier_in_a_loop(tmp_path, capsys):
    """A loop around a barrier with loop-carried values; its barrier orders
    each level's reads after the previous level's writes."""
    module = parse_module(TREE_SUM, "tree.mlir")
    func = pick_function(module, None)
    inputs = random_inputs(func, 11)
    expected = [inputs[0], np.array([inputs[0].astype(np.float64).sum()])]
    report = simulate(func, reference=expected, inputs=inputs)
    assert report.clean, report.races + report.mismatches
    # Without the barrier in the loop, a level reads what the last one writes.
    racy = write(tmp_path, "racy.mlir", TREE_SUM.replace("    gpu.barrier\n", "", 1))
    code, out, _ = run_cli(capsys, racy)
    assert code == 1 and "race on %s[" in out
    # verify-sync agrees on both, and insert-barriers puts back that one.
    from xsplit.api import rewrite

    assert rewrite(TREE_SUM, "verify-sync")
    fixed = rewrite(Path(racy).read_text(), "insert-barriers")
    assert fixed.count("gpu.barrier") == 2
    report = simulate(
        pick_function(parse_module(fixed, "fixed.mlir"), None), reference=expected, inputs=inputs
    )
    assert report.clean, report.races + report.mismatches
