"""`xsplit simulate`: runs a GPU kernel in xsplit's SPMD simulator.

    xsplit simulate IN.mlir [--grid X[,Y,Z]] [--block X[,Y,Z]] [--reference FILE]
                            [--function F] [--seed S] [--schedule NAME ...]

Every thread runs, phase by phase between barriers, in several orders
(lockstep, forward, reverse, seeded shuffle). Each race is reported with the
element, the two threads and both ops' locations. The results are compared
with the program's sequential semantics:
- `--reference FILE` on memrefs: that program (an `scf.forall` program, say
  the module before `distribute`) run sequentially by the simulator;
- `--reference FILE` on tensors: run on the CPU through IREE; its results are
  what the kernel writes, in argument order;
- a reference takes either all the kernel's arguments (destination-passing)
  or only its inputs (the arguments it reads, or never writes), told apart by
  arity and argument types; one that takes its inputs only returns what the
  kernel writes (a memref reference too);
- no reference, and IN has thread-mapped `scf.forall` loops: IN itself run
  sequentially, against IN after the `distribute` pass.

Exit 0: no race and equal results; 1: a race or a mismatch; 2: an error.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from xsplit.diagnostics import XsplitError
from xsplit.tools.args import OneLineArgumentParser

if TYPE_CHECKING:
    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp

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
    from xsplit.api import parse_module
    from xsplit.dialects import make_context
    from xsplit.tools.xsplit_opt import read_input

    ctx = make_context()
    text, name = read_input(args.input_file)
    return run_module(args, parse_module(text, name, ctx), ctx)


def run_module(args: argparse.Namespace, module: ModuleOp, ctx: Context | None = None) -> int:
    """`run` on a module already parsed or built (`args.input_file` unread):
    a caller that holds the IR need not print and parse it again."""
    from xsplit.analysis.writes import written_arguments
    from xsplit.api import parse_module
    from xsplit.dialects import make_context
    from xsplit.simulator.run import kernels, pick_function, random_inputs, run_sequential, simulate
    from xsplit.tools.xsplit_opt import read_input

    ctx = ctx if ctx is not None else make_context()
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
        from xsplit.analysis.writes import kernel_inputs
        from xsplit.simulator.program import host_inputs

        fed = reference_arguments(
            ref_func, func, host_inputs(module, host) if host is not None else kernel_inputs(func)
        )
        written = host_written(module, host) if host is not None else written_arguments(func)
        from xdsl.dialects.builtin import TensorType

        if any(isinstance(a.type, TensorType) for a in ref_args):
            reference = run_tensor_reference(
                ref_text,
                ref_func.sym_name.data,  # type: ignore[attr-defined]
                inputs,
                written,
                fed,
            )
        elif len(fed) == len(inputs):
            reference = run_sequential(ref_func, inputs)
        else:
            reference = run_memref_reference(ref_func, inputs, written, fed)
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
    module_text: str,
    func_name: str,
    inputs: Sequence[np.ndarray],
    written: Sequence[int],
    fed: Sequence[int] | None = None,
) -> list[np.ndarray]:
    """Runs a tensor-level reference on the CPU through IREE. Its arguments are
    the kernel's arguments at positions `fed` (default: all of them); its
    results, in order, the arguments the kernel writes. The others are
    expected unchanged."""
    from xsplit.iree.cpu_runner import run_on_cpu
    from xsplit.iree.iree_compile import compile_mlir

    vmfb = compile_mlir(module_text, "cpu")
    taken = list(inputs) if fed is None else [inputs[i] for i in fed]
    return _expected(inputs, written, run_on_cpu(vmfb, func_name, taken))


def run_memref_reference(
    ref_func, inputs: Sequence[np.ndarray], written: Sequence[int], fed: Sequence[int]
) -> list[np.ndarray]:
    """Runs a memref reference that takes the kernel's inputs only (positions
    `fed`) sequentially; what it returns is, in order, what the kernel writes."""
    from xsplit.simulator.run import run_sequential_returning

    _, returned = run_sequential_returning(ref_func, [inputs[i] for i in fed])
    return _expected(inputs, written, returned)


def _expected(
    inputs: Sequence[np.ndarray], written: Sequence[int], results: Sequence[np.ndarray]
) -> list[np.ndarray]:
    """Each argument's expected final contents: the reference's results for
    the written arguments, in order; the others unchanged."""
    from xsplit.simulator.errors import SimulationError

    if len(results) != len(written):
        raise SimulationError(
            f"the reference returns {len(results)} results; the kernel writes {len(written)} "
            f"arguments ({', '.join(map(str, written)) or 'none'})"
        )
    expected = [np.asarray(a).copy() for a in inputs]
    for i, r in zip(written, results):
        if i < len(expected):
            expected[i] = np.asarray(r).reshape(expected[i].shape)
        else:  # a result of a host on tensors, after its arguments
            expected.append(np.asarray(r))
    return expected


def reference_arguments(ref_func, kernel, inputs: Sequence[int]) -> list[int]:
    """Which of the kernel's arguments the reference takes, in order, by its
    arity and argument types: all of them (destination-passing), or the
    kernel's inputs (`inputs`: those it reads, or never writes) only."""
    from xsplit.analysis.writes import kernel_buffers

    buffers = kernel_buffers(kernel)
    names = [name for name, _, _ in buffers]
    types = [t for _, t, _ in buffers]
    taken = [a.type for a in ref_func.regions[0].blocks[0].args]
    everything = list(range(len(buffers)))

    def fits(positions: Sequence[int]) -> bool:
        return len(positions) == len(taken) and all(
            _same_shape(taken[k], types[i]) for k, i in enumerate(positions)
        )

    for positions in (everything, list(inputs)):
        if fits(positions):
            return positions
    # The arity fits a convention and a type does not: say the types.
    by_type = len(taken) in (len(everything), len(inputs))

    def expected(positions: Sequence[int]) -> str:
        if by_type:
            return "(" + ", ".join(_shape_text(types[i]) for i in positions) + ")"
        return str(len(positions))

    took = "(" + ", ".join(_shape_text(t) for t in taken) + ")" if by_type else (
        f"{len(taken)} argument{'' if len(taken) == 1 else 's'}"
    )
    listed = ", ".join(names[i] for i in inputs) or "none"
    if list(inputs) == everything:
        alternatives = (
            f"{expected(everything)} (all the kernel's arguments, each an input: {listed})"
        )
    else:
        alternatives = (
            f"{expected(everything)} (all the kernel's arguments, destination-passing) or "
            f"{expected(inputs)} (its inputs: {listed})"
        )
    raise XsplitError(f"the reference takes {took}; expected {alternatives}", ref_func)


def _same_shape(a, b) -> bool:
    """Same shape and element type, whether tensor or memref (any layout or
    memory space)."""
    if hasattr(a, "get_shape") and hasattr(b, "get_shape"):
        return tuple(a.get_shape()) == tuple(b.get_shape()) and a.element_type == b.element_type
    return a == b


def _shape_text(t) -> str:
    if hasattr(t, "get_shape"):
        return "x".join([*map(str, t.get_shape()), str(t.element_type)])
    return str(t)
