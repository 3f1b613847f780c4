"""xsplit's SPMD simulator: runs GPU kernels (threads as numpy lanes) on the
CPU, in adversarial orders, finds races and compares with a sequential
reference. See `machine` (the core), `semantics` (each dialect's ops),
`races` and `run`."""

from xsplit.simulator.errors import SimulationError
from xsplit.simulator.lanes import Launch, chunked, lockstep
from xsplit.simulator.machine import Machine
from xsplit.simulator.races import Race, find_races
from xsplit.simulator.run import Report, run_sequential, simulate

__all__ = [
    "Launch",
    "Machine",
    "Race",
    "Report",
    "SimulationError",
    "chunked",
    "find_races",
    "lockstep",
    "run_sequential",
    "simulate",
]
