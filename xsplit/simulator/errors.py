"""The simulator's one error: what it cannot run, or undefined behavior."""

from __future__ import annotations

from xsplit.diagnostics import XsplitError


class SimulationError(XsplitError):
    """The kernel does something the machine cannot run, or undefined behavior."""
