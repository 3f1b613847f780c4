"""`xsplit simulate`: runs a GPU kernel in xsplit's SPMD simulator.

    xsplit simulate IN.mlir [--grid X[,Y,Z]] [--block X[,Y,Z]] [--reference FILE]
                            [--function F] [--seed S] [--schedule NAME ...]

Every thread runs, phase by phase between barriers, in several orders
(lockstep, forward, reverse, seeded shuffle). Each race is reported with the
element, the two threads and both ops' locations. The results are compared
with the program's sequential semantics:
- `--reference FILE` on memrefs: that program (an `scf.forall` program, say
  the module before `distribute`) run sequentially by the simulator;
- `--reference FILE` on tensors: run on the CPU through IREE; its arguments are
  the kernel's arguments, its results what the kernel writes, in argument order;
- no reference, and IN has thread-mapped `scf.forall` loops: IN itself run
  sequentially, against IN after the `distribute` pass.

Exit 0: no race and equal results; 1: a race or a mismatch; 2: an error.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

import numpy as np

from xsplit.diagnostics import XsplitError
from xsplit.tools.args import OneLineArgumentParser

EXIT_CLEAN, EXIT_FAIL, EXIT_ERROR = 0, 1, 2


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(p) for p in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected X[,Y,Z], got '{text}'") from None
    if not 1 <= len(sizes) <= 3 or any(s < 1 for s in sizes):
        raise argparse.ArgumentTypeError(f"expected 1 to 3 positive sizes, got '{text}'")
    return sizes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input_file", help="the kernel (func.func on memrefs)")
    add_options(parser)


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options besides the input file (`xsplit simulate` adds that itself)."""
    parser.add_argument(
        "--grid", type=_sizes, help="workgroups X[,Y,Z] (default: gpu.known_grid_size)"
    )
    parser.add_argument(
        "--block", type=_sizes, help="threads X[,Y,Z] (default: gpu.known_block_size)"
    )
    parser.add_argument("--reference", metavar="FILE", help="the sequential reference program")
    parser.add_argument("--function", help="the kernel function (default: the first using GPU ids)")
    parser.add_argument("--seed", type=int, default=0, help="the random inputs' seed")
    parser.add_argument(
        "--schedule",
        action="append",
        choices=["lockstep", "forward", "reverse", "shuffled"],
        help="run only these orders (default: all)",
    )
    parser.add_argument("--subgroup-size", type=int, default=32, help="lanes per subgroup")


def make_arg_parser() -> argparse.ArgumentParser:
    parser = OneLineArgumentParser(prog="xsplit simulate", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return parser


def _has_thread_foralls(func) -> bool:
    for op in func.walk():
        if op.name == "scf.forall":
            mapping = op.properties.get("mapping")
            mapping = mapping if mapping is not None else op.attributes.get("mapping")
            levels = ("#gpu.thread", "#gpu.block", "#gpu.warp")
            if mapping is not None and any(w in str(mapping) for w in levels):
                return True
    return False


def run(args: argparse.Namespace) -> int:
    from xsplit.analysis.writes import written_arguments
    from xsplit.api import parse_module
    from xsplit.dialects import make_context
    from xsplit.simulator.run import kernels, pick_function, random_inputs, run_sequential, simulate
    from xsplit.tools.xsplit_opt import read_input

    ctx = make_context()
    text, name = read_input(args.input_file)
    module = parse_module(text, name, ctx)
    from xsplit.simulator.program import host_function, host_written, simulate_program

    host = host_function(module, args.function)  # a program of several launches
    func = host if host is not None else pick_function(module, args.function)
    inputs = random_inputs(func, args.seed)
    reference = None
    started = time.perf_counter()
    if args.reference:
        ref_text, ref_name = read_input(args.reference)
        ref_module = parse_module(ref_text, ref_name, ctx)
        candidates = kernels(ref_module)
        name = args.function or func.sym_name.data  # type: ignore[attr-defined]
        # The reference's function of the kernel's name, or its only one.
        if len(candidates) == 1:
            ref_func = candidates[0]
        else:
            ref_func = pick_function(ref_module, name)
        ref_args = ref_func.regions[0].blocks[0].args
        if len(ref_args) != len(inputs):
            raise XsplitError(
                f"the reference takes {len(ref_args)} arguments; the kernel takes {len(inputs)}",
                ref_func,
            )
        from xdsl.dialects.builtin import TensorType

        if any(isinstance(a.type, TensorType) for a in ref_args):
            reference = run_tensor_reference(
                ref_text,
                ref_func.sym_name.data,  # type: ignore[attr-defined]
                inputs,
                host_written(module, host) if host is not None else written_arguments(func),
            )
        else:
            reference = run_sequential(ref_func, inputs)
    elif _has_thread_foralls(func):
        from xsplit.passes import XSPLIT_PASSES

        if "distribute" not in XSPLIT_PASSES:
            raise XsplitError(
                "the input is not distributed and no 'distribute' pass is available", func
            )
        reference = run_sequential(func, inputs)
        from xsplit.api import build_pipeline, run_passes

        run_passes(module, build_pipeline("distribute"), ctx)
        func = pick_function(module, func.sym_name.data)  # type: ignore[attr-defined]
    if host is not None:
        report = simulate_program(
            module, host, reference, inputs, args.seed, args.schedule, args.subgroup_size
        )
    else:
        report = simulate(
            func, args.grid, args.block, reference, inputs, args.seed, args.schedule,
            args.subgroup_size,
        )
    elapsed = time.perf_counter() - started
    for line in report.races:
        print(line)
    for line in report.mismatches:
        print(line)
    if reference is None:
        print("note: no reference; results not compared", file=sys.stderr)
    verdict = "clean" if report.clean else "FAIL"
    print(
        f"{verdict}: {len(report.races)} racing op pairs, {len(report.mismatches)} mismatches "
        f"({elapsed:.2f}s)"
    )
    return EXIT_CLEAN if report.clean else EXIT_FAIL


def main(argv: Sequence[str] | None = None) -> int:
    args = make_arg_parser().parse_args(argv)
    return run_parsed(args)


def run_parsed(args: argparse.Namespace) -> int:
    try:
        return run(args)
    except XsplitError as e:
        print(e.diagnostic, file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("xsplit simulate: interrupted", file=sys.stderr)
        return 130
    except (ValueError, TypeError, IndexError, KeyError, AttributeError, AssertionError) as e:
        # A kernel shape the simulator does not model; say so on one line.
        print(
            f"{args.input_file}: error: the simulator cannot run this kernel "
            f"(internal {type(e).__name__})",
            file=sys.stderr,
        )
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())


def run_tensor_reference(
    module_text: str, func_name: str, inputs: Sequence[np.ndarray], written: Sequence[int]
) -> list[np.ndarray]:
    """Runs a tensor-level reference on the CPU through IREE. Its arguments are
    the kernel's arguments; its results, in order, the arguments the kernel
    writes. The others are expected unchanged."""
    from xsplit.iree.cpu_runner import run_on_cpu
    from xsplit.iree.iree_compile import compile_mlir
    from xsplit.simulator.machine import SimulationError

    vmfb = compile_mlir(module_text, "cpu")
    results = run_on_cpu(vmfb, func_name, list(inputs))
    if len(results) != len(written):
        raise SimulationError(
            f"the reference returns {len(results)} results; the kernel writes {len(written)} "
            f"arguments ({', '.join(map(str, written)) or 'none'})"
        )
    expected = [np.asarray(a).copy() for a in inputs]
    for i, r in zip(written, results):
        expected[i] = np.asarray(r).reshape(expected[i].shape)
    return expected
