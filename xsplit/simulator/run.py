"""Simulating a kernel: seeded inputs, adversarial schedules, races, and the
comparison with the program's sequential semantics."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, MemRefType, ModuleOp, TensorType
from xdsl.ir import Operation

from xsplit.analysis.writes import kernel_buffers
from xsplit.simulator.errors import SimulationError
from xsplit.simulator.compiled import Compiled
from xsplit.simulator.lanes import Launch, Schedule, chunked, lockstep
from xsplit.simulator.machine import Machine
from xsplit.simulator.memory import storage_dtype
from xsplit.simulator.races import find_races

_ID_OPS = ("gpu.thread_id", "gpu.block_id", "hal.interface.workgroup.id")


def kernels(module: ModuleOp) -> list[Operation]:
    return [op for op in module.walk() if op.name == "func.func" and op.regions[0].blocks]


def pick_function(module: ModuleOp, name: str | None) -> Operation:
    funcs = kernels(module)
    if name is not None:
        for f in funcs:
            if f.sym_name.data == name:  # type: ignore[attr-defined]
                return f
        raise SimulationError(f"no function named '{name}'")
    if not funcs:
        raise SimulationError("the module has no function with a body")
    with_ids = [f for f in funcs if any(op.name in _ID_OPS for op in f.walk())]
    return (with_ids or funcs)[0]


Sizes = tuple[int, int, int]


def _dispatch_sizes(func: Operation) -> tuple[Sizes | None, Sizes | None]:
    """Grid (the export's constant count) and block (translation_info's
    workgroup_size) of a kernel inside a `hal.executable.source`."""
    import re

    block = None
    info = func.attributes.get("translation_info")
    if info is not None:
        m = re.search(r"workgroup_size\s*=\s*\[([0-9,\s]+)\]", str(info))
        if m:
            block = tuple((([int(x) for x in m.group(1).split(",")]) + [1, 1, 1])[:3])
    grid = None
    source = func.parent_op()
    while source is not None and source.name != "hal.executable.source":
        source = source.parent_op()
    if source is not None:
        name = func.sym_name.data  # type: ignore[attr-defined]
        for op in source.walk():
            if op.name == "hal.executable.export" and op.properties["sym_name"].data == name:  # type: ignore[union-attr]
                ret = op.regions[0].blocks[0].last_op
                sizes = []
                for v in ret.operands if ret is not None else []:
                    owner = v.owner
                    value = owner.properties.get("value") if isinstance(owner, Operation) else None
                    sizes.append(int(value.value.data) if value is not None else None)  # type: ignore[union-attr]
                if sizes and all(x is not None for x in sizes):
                    grid = tuple((sizes + [1, 1, 1])[:3])
    return grid, block  # type: ignore[return-value]


def known_size(func: Operation, attr: str) -> tuple[int, int, int] | None:
    value = func.attributes.get(attr)
    if value is None:
        value = func.properties.get(attr)
    if value is None:
        grid, block = _dispatch_sizes(func)
        return grid if attr == "gpu.known_grid_size" else block
    if isinstance(value, DenseArrayBase):
        sizes = [int(v) for v in value.get_values()]
    elif isinstance(value, ArrayAttr):
        sizes = [int(v.value.data) for v in value.data]  # type: ignore[attr-defined]
    else:
        return None
    return tuple((sizes + [1, 1, 1])[:3])  # type: ignore[return-value]


def launch_sizes(
    func: Operation, grid: Sequence[int] | None, block: Sequence[int] | None
) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    def pad(xs: Sequence[int]) -> tuple[int, int, int]:
        return tuple((list(xs) + [1, 1, 1])[:3])  # type: ignore[return-value]

    g = pad(grid) if grid else known_size(func, "gpu.known_grid_size")
    b = pad(block) if block else known_size(func, "gpu.known_block_size")
    uses_blocks = any(
        op.name in ("gpu.block_id", "gpu.grid_dim", "hal.interface.workgroup.id") for op in func.walk()
    )
    uses_threads = any(op.name in ("gpu.thread_id", "gpu.block_dim") for op in func.walk())
    if g is None:
        if uses_blocks:
            raise SimulationError(
                "no grid size: give --grid or a gpu.known_grid_size attribute", func
            )
        g = (1, 1, 1)
    if b is None:
        if uses_threads:
            raise SimulationError(
                "no block size: give --block or a gpu.known_block_size attribute", func
            )
        b = (1, 1, 1)
    if any(x < 1 for x in (*g, *b)):
        raise SimulationError("grid and block sizes must be positive")
    return g, b


def random_inputs(func: Operation, seed: int) -> list[np.ndarray]:
    """Values that are not all ones: floats in [-1, 1), integers in [-8, 8)."""
    rng = np.random.default_rng(seed)
    out = []
    for i, (_, t, _) in enumerate(kernel_buffers(func)):
        if not isinstance(t, MemRefType | TensorType):
            raise SimulationError(
                f"argument {i} has type {t}; the simulator runs kernels on memrefs", func
            )
        shape = tuple(t.get_shape())
        if any(d < 0 for d in shape):
            raise SimulationError(f"argument {i} has a dynamic shape {t}", func)
        dtype = storage_dtype(t.element_type)
        if dtype.kind == "f":
            out.append(rng.uniform(-1, 1, shape).astype(dtype))
        elif dtype.kind == "b":
            out.append(rng.integers(0, 2, shape).astype(bool))
        else:
            out.append(rng.integers(-8, 8, shape).astype(dtype))
    return out


def schedules(lanes: int, seed: int, chunks: int = 16) -> dict[str, Schedule]:
    """The orders threads run in between synchronization points."""
    order = np.arange(lanes)
    rng = np.random.default_rng(seed + 1)
    return {
        "lockstep": lockstep,
        "forward": chunked(order, chunks),
        "reverse": chunked(order[::-1].copy(), chunks),
        "shuffled": chunked(rng.permutation(lanes), chunks),
    }


@dataclass
class Mismatch:
    argument: int
    name: str
    detail: str

    def describe(self) -> str:
        return f"mismatch in {self.name} (argument {self.argument}): {self.detail}"


def compare(
    got: np.ndarray, want: np.ndarray, index: int, name: str, rtol: float = 1e-4
) -> Mismatch | None:
    if got.shape != want.shape:
        return Mismatch(index, name, f"shape {got.shape} against {want.shape}")
    if got.dtype.kind == "f":
        finite = want.size and not np.all(np.isnan(want))
        scale = max(1.0, float(np.nanmax(np.abs(want))) if finite else 1.0)
        bad = ~np.isclose(got, want, rtol=rtol, atol=rtol * scale, equal_nan=True)
    else:
        bad = got != want
    if not bad.any():
        return None
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    return Mismatch(
        index,
        name,
        f"{int(bad.sum())} of {bad.size} elements differ; at {list(where)} got {got[where]}, "
        f"expected {want[where]}",
    )


@dataclass
class Report:
    races: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    race_pairs: set[tuple[str, str]] = field(default_factory=set)

    @property
    def clean(self) -> bool:
        return not self.races and not self.mismatches


def simulate(
    func: Operation,
    grid: Sequence[int] | None = None,
    block: Sequence[int] | None = None,
    reference: Sequence[np.ndarray] | None = None,
    inputs: Sequence[np.ndarray] | None = None,
    seed: int = 0,
    orders: Sequence[str] | None = None,
    subgroup_size: int = 32,
) -> Report:
    """Runs `func` under every schedule; reports races and, against
    `reference` (each argument's expected final contents), mismatches."""
    from xsplit.diagnostics import location_of

    g, b = launch_sizes(func, grid, block)
    launch = Launch(g, b, subgroup_size)
    args = list(inputs) if inputs is not None else random_inputs(func, seed)
    report = Report()
    names = [name for name, _, _ in kernel_buffers(func)]
    all_orders = schedules(launch.lanes, seed)
    code = Compiled(func, launch)
    for order_name in orders or list(all_orders):
        machine = Machine(launch, all_orders[order_name], code=code)
        results = machine.run(func, [a.copy() for a in args])
        for race in find_races(machine):
            a, bop = machine.ops[race.first_op], machine.ops[race.second_op]
            pair = (str(location_of(a)), str(location_of(bop)))
            if pair not in report.race_pairs:
                report.race_pairs.add(pair)
                report.races.append(race.describe(machine))
        if reference is not None:
            for i, (got, want) in enumerate(zip(results, reference)):
                mismatch = compare(got, np.asarray(want), i, names[i])
                if mismatch is not None:
                    line = f"{mismatch.describe()} (schedule {order_name})"
                    if not any(line.split(" (schedule")[0] in m for m in report.mismatches):
                        report.mismatches.append(line)
    return report


def run_sequential(func: Operation, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The program's sequential semantics: one lane, each forall a loop nest."""
    return run_sequential_returning(func, inputs)[0]


def run_sequential_returning(
    func: Operation, inputs: Sequence[np.ndarray]
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """`run_sequential`, and the contents of what the program returns."""
    machine = Machine(Launch((1, 1, 1), (1, 1, 1)), lockstep, log=False)
    final = machine.run(func, [a.copy() for a in inputs])
    return final, machine.returned
