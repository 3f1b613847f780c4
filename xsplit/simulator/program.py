"""Running a host function that launches kernels in order, as one program.

`lower-reduce{deterministic=true}` writes a host function (marked
`xsplit.host`) that allocates a buffer and calls two kernels with
`func.call`; on a program as users write it, the host is the program itself,
on tensors, with buffers of its tensors, outputs allocated and filled, the
calls, and tensors of the outputs it returns. Each call is one launch, with
the callee's known grid and block, run by the simulator under the schedule
of the whole run. Memory persists from one launch to the next, as device
memory does; a buffer the host allocates starts as NaN, so a read of a
partial no kernel wrote shows up as a mismatch. Races are looked for per
launch (launches are ordered). Unless a kernel adds floats atomically, the
program must not depend on the thread order, so its results under every
order are also compared bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
    ShapedType,
    TensorType,
    UnregisteredOp,
)
from xdsl.ir import Operation

import xsplit.attr_names as attr_names
from xsplit.analysis.writes import kernel_buffers, read_arguments, written_arguments
from xsplit.semantics import BINARY
from xsplit.simulator.compiled import Compiled
from xsplit.simulator.errors import SimulationError
from xsplit.simulator.lanes import Launch
from xsplit.simulator.machine import Machine
from xsplit.simulator.memory import storage_dtype
from xsplit.simulator.races import find_races
from xsplit.simulator.run import Report, compare, launch_sizes, schedules

HOST = attr_names.HOST


def host_function(module: ModuleOp, name: str | None) -> Operation | None:
    """The host function named `name` (or the first one), if the module has one."""
    for op in module.walk():
        if op.name in ("func.func", "util.func") and HOST in op.attributes:
            if name is None or op.sym_name.data == name:  # type: ignore[attr-defined]
                return op
    return None


def _callee(module: ModuleOp, name: str, at: Operation) -> Operation:
    for op in module.walk():
        if op.name == "func.func" and op.sym_name.data == name and op.regions[0].blocks:  # type: ignore[attr-defined]
            return op
    raise SimulationError(f"no kernel named '{name}'", at)


def run_program(
    module: ModuleOp,
    host: Operation,
    inputs: Sequence[np.ndarray],
    order: str,
    seed: int,
    subgroup_size: int,
    report: Report | None = None,
    compiled: dict[int, Compiled] | None = None,
) -> list[np.ndarray]:
    """Runs the host's ops in order, each kernel call one launch under the
    schedule `order`; returns the host's arguments' final contents and what
    it returns. `compiled` keeps each kernel's code (by callee) for the
    next launch of it, in this run or another order's."""
    from xsplit.diagnostics import location_of

    values: dict[object, np.ndarray] = {
        a: np.asarray(x).copy() for a, x in zip(host.regions[0].blocks[0].args, inputs)
    }
    returned: list[np.ndarray] = []
    for op in host.regions[0].blocks[0].ops:
        name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
        if name in ("hal.tensor.import", "hal.tensor.export"):
            # An imported program's ABI: the buffer view is the tensor's contents.
            values[op.results[0]] = values[op.operands[0]]
        elif name == "hal.tensor.barrier":
            sources = [v for v in op.operands if isinstance(v.type, TensorType)]
            for result, source in zip(op.results, sources):
                values[result] = values[source]
        elif op.name in ("bufferization.to_buffer", "bufferization.to_tensor"):
            # A buffer of a tensor starts as the tensor's contents; a launch
            # writing the buffer rebinds it, so the tensor keeps its value.
            values[op.results[0]] = values[op.operands[0]]
        elif op.name == "arith.constant" and not isinstance(op.results[0].type, ShapedType):
            values[op.results[0]] = np.asarray(op.properties["value"].value.data)  # type: ignore[union-attr]
        elif op.name == "linalg.fill" and isinstance(op.operands[1].type, MemRefType):
            buf = op.operands[1]
            values[buf] = np.full_like(values[buf], values[op.operands[0]])
        elif op.name == "memref.copy":
            values[op.operands[1]] = values[op.operands[0]].copy()
        elif op.name in BINARY and all(isinstance(v.type, TensorType) for v in op.operands):
            # The program's own elementwise math on the results, as numpy does it.
            values[op.results[0]] = BINARY[op.name](*(values[v] for v in op.operands))
        elif op.name in ("func.return", "util.return"):
            returned = [values[v] for v in op.operands]
        elif op.name == "memref.alloc":
            t = op.results[0].type
            assert isinstance(t, MemRefType)
            dtype = storage_dtype(t.element_type)
            values[op.results[0]] = np.full(tuple(t.get_shape()), np.nan, dtype=dtype)
        elif op.name == "func.call":
            callee = _callee(module, op.properties["callee"].string_value(), op)  # type: ignore[union-attr]
            code = compiled.get(id(callee)) if compiled is not None else None
            if code is None:
                g, b = launch_sizes(callee, None, None)
                code = Compiled(callee, Launch(g, b, subgroup_size))
                if compiled is not None:
                    compiled[id(callee)] = code
            launch = code.launch
            machine = Machine(launch, schedules(launch.lanes, seed)[order], code=code)
            args = [values[v] for v in op.operands]
            results = machine.run(callee, [a.copy() for a in args])
            for v, r in zip(op.operands, results):
                values[v] = r
            if report is not None:
                for race in find_races(machine):
                    a, bop = machine.ops[race.first_op], machine.ops[race.second_op]
                    pair = (str(location_of(a)), str(location_of(bop)))
                    if pair not in report.race_pairs:
                        report.race_pairs.add(pair)
                        report.races.append(race.describe(machine))
        elif op.name == "memref.dealloc":
            continue
        else:
            raise SimulationError(
                "a host function runs buffers of its tensors, allocations, fills, copies, kernel "
                f"calls and elementwise arithmetic, not '{op.name}'",
                op,
            )
    # A host on tensors returns its results after its (unchanged) arguments.
    return [values[a] for a in host.regions[0].blocks[0].args] + returned


def simulate_program(
    module: ModuleOp,
    host: Operation,
    reference: Sequence[np.ndarray] | None,
    inputs: Sequence[np.ndarray],
    seed: int = 0,
    orders: Sequence[str] | None = None,
    subgroup_size: int = 32,
) -> Report:
    report = Report()
    names = [name for name, _, _ in kernel_buffers(host)]
    names += [f"result {i}" for i in range(len(_results(host)))]
    first: list[np.ndarray] | None = None
    compiled: dict[int, Compiled] = {}
    for order in orders or ["lockstep", "forward", "reverse", "shuffled"]:
        results = run_program(module, host, inputs, order, seed, subgroup_size, report, compiled)
        if reference is not None:
            for i, (got, want) in enumerate(zip(results, reference)):
                mismatch = compare(got, np.asarray(want), i, names[i])
                if mismatch is not None:
                    report.mismatches.append(f"{mismatch.describe()} (schedule {order})")
        if first is None:
            first = results
            continue
        if _float_atomics(module, host):
            continue  # atomics add in thread order: results may differ in the last bits
        for i, (a, b) in enumerate(zip(first, results)):
            if a.tobytes() != b.tobytes():
                report.mismatches.append(
                    f"{names[i]} (argument {i}) differs bitwise between thread orders "
                    f"(schedule {order})"
                )
    return report


def _float_atomics(module: ModuleOp, host: Operation) -> bool:
    """Whether a kernel the host launches adds floats atomically."""
    for op in host.regions[0].blocks[0].ops:
        if op.name == "func.call":
            callee = _callee(module, op.properties["callee"].string_value(), op)  # type: ignore[union-attr]
            for inner in callee.walk():
                if inner.name == "llvm.atomicrmw":
                    return True  # float ops only
                if inner.name == "memref.atomic_rmw" and not isinstance(
                    inner.results[0].type, IntegerType | IndexType
                ):
                    return True
    return False


def _results(host: Operation) -> list:
    return list(host.properties["function_type"].outputs.data)  # type: ignore[union-attr]


def host_written(module: ModuleOp, host: Operation) -> list[int]:
    """The host's arguments some launch may write; for a host on tensors,
    which returns its results, the positions of those results after its
    arguments."""
    args = list(host.regions[0].blocks[0].args)
    if _results(host):
        return [len(args) + i for i in range(len(_results(host)))]
    written: set[int] = set()
    for op in host.regions[0].blocks[0].ops:
        if op.name == "func.call":
            callee = _callee(module, op.properties["callee"].string_value(), op)  # type: ignore[union-attr]
            for i in written_arguments(callee):
                if op.operands[i] in args:
                    written.add(args.index(op.operands[i]))
    return sorted(written)


def host_inputs(module: ModuleOp, host: Operation) -> list[int]:
    """The host's arguments whose contents on entry may matter: some launch
    may read them, or none writes them."""
    args = list(host.regions[0].blocks[0].args)
    if _results(host):
        return list(range(len(args)))  # tensors are values: each is an input
    read: set[int] = set()
    for op in host.regions[0].blocks[0].ops:
        if op.name == "func.call":
            callee = _callee(module, op.properties["callee"].string_value(), op)  # type: ignore[union-attr]
            for i in read_arguments(callee):
                if op.operands[i] in args:
                    read.add(args.index(op.operands[i]))
    written = set(host_written(module, host))
    return [i for i in range(len(args)) if i in read or i not in written]
