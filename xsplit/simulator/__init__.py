"""xsplit's SPMD simulator: runs GPU kernels (threads as numpy lanes) on the
CPU, in adversarial orders, finds races and compares with a sequential
reference. See `machine`, `races` and `run`."""

from xsplit.simulator.machine import Launch, Machine, SimulationError
from xsplit.simulator.races import Race, find_races
from xsplit.simulator.run import Report, run_sequential, simulate

__all__ = [
    "Launch",
    "Machine",
    "Race",
    "Report",
    "SimulationError",
    "find_races",
    "run_sequential",
    "simulate",
]
