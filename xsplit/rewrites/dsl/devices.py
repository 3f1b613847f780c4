"""Where ops run, on the match side.

A module that declares devices (`hal.device.targets` / `stream.affinity`)
places each op on one: its own `stream.affinity`, its function's, what its
operands were transferred to, or the module's default
(`xsplit.analysis.devices`). A fold that lets one op read another's result in
place is only right when both run on one device, since each device lays out
its tensors its own way:

    operand(0).defined_by(UnpackOp.name, capture="unpack") & on_device_of("unpack")

reads "the root runs where the unpack it reads runs". It is stated with the
affinity attributes of the op tree and a captured op, so it is structural.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation

from xsplit.analysis.devices import same_device
from xsplit.rewrites.dsl.constraints import Constraint, Match, Predicate


def on_device_of(name: str) -> Constraint:
    """The root runs on the device of the op captured as `name`. Holds in a
    module that declares no device, and where either op's device cannot be
    told (then one target lays both out)."""

    def test(m: Match) -> bool | str:
        other = m.captures.get(name)
        if not isinstance(other, Operation):
            return f"${name} is not a captured op"
        return same_device(m.root, other) or f"it runs on another device than ${name}"

    return Predicate(f"runs on the device of ${name}", test, structural=True)


__all__: Sequence[str] = ["on_device_of"]
