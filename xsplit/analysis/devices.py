"""Which device each op runs on, read from the program as IREE 3.13 prints
it, and the target (data tiles, cost-model machine) that device stands for.

A program with several devices declares each as a global,

    util.global private @dev_b = #hal.device.target<"local", [
        #hal.executable.target<"vmvx", "vmvx-bytecode-fb", {...}>]> : !hal.device

(or as `#hal.device.select<[...]>` / `#hal.device.optimal<[...]>` of such
targets, or lists them in the module's `hal.device.targets`, which IREE
names `@__device_0`, `@__device_1`, ...). An op's device is, first found:

1. its own `stream.affinity` (a `flow.tensor.transfer`'s is its `target`);
2. the devices its operands are on: a transferred value is on the
   transfer's target, a computed one where its producer is; operands on
   two devices leave the op undetermined (IREE would insert a transfer);
3. its function's `stream.affinity`, then the module's
   `stream.affinity.default`;
4. the one device a module declares.

The device's first executable target gives its layout and its cost-model
machine, as IREE's encoding resolvers do (derived with iree-compile 3.13,
`--iree-opt-data-tiling --compile-to=executable-sources` on a 64x100x32
f32 matmul, reading `encoding_info` of the LHS and RHS; M = 3 for the
narrow tiles):

| executable target | m0 x n0 x k0 |
|---|---|
| llvm-cpu, `cpu_features` with `+avx512f` (or `cpu = "cascadelake"`) | 16x16x1 |
| llvm-cpu, with `+avx` (`haswell`; `+avx,+avx2,+fma`) | 8x8x1 |
| llvm-cpu, `+avx2` alone, `+sse4.2` | 4x8x1 |
| vmvx, `ukernels = "none"` or `"all"` | 8x8x4 |
| cuda (sm_80) | none: no resolver, encodings dropped |
| rocm (gfx942) | 16x16x16 with an MFMA swizzle inside the tile |

A short M or N takes the smallest power of two covering it (M = 3: 4).
IREE's CPU resolver reads the feature string, not the CPU name: `+avx2`
without `+avx` is a 128-bit target to it; `native_vector_size` is read
here only where there are no features. The gfx942 layout is not an mmt4d
one (its swizzle needs IREE's `inner_tiled` op), so xsplit drops encodings
on ROCm as on CUDA: the GPUs' rows of the target table (`sm_80`,
`gfx942`) give their cost models.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from xsplit.diagnostics import XsplitError
from xsplit.targets.cpu_info import cpu_for_features, host_cpu
from xsplit.targets.table import TARGETS, Target, cpu_target, target, vmvx_target

AFFINITY = "stream.affinity"
DEFAULT_AFFINITY = "stream.affinity.default"


@dataclass(frozen=True)
class ExecutableTarget:
    """One `#hal.executable.target<"backend", "format", {config}>`."""

    backend: str
    format: str
    config: str
    """The configuration dictionary's text, braces included."""

    def get(self, key: str) -> str | None:
        """A configuration entry's value: a string's contents, else its text
        up to its type (`64` of `64 : i64`)."""
        found = re.search(
            rf'(?:^|[{{,\s]){re.escape(key)}\s*=\s*("(?:[^"\\]|\\.)*"|[^,}}:]+)', self.config
        )
        if found is None:
            return None
        value = found.group(1).strip()
        return value[1:-1] if value.startswith('"') else value


@dataclass(frozen=True)
class Device:
    symbol: str
    """The device global's name, without the `@`."""
    targets: tuple[ExecutableTarget, ...]
    selection: str = "target"
    """How the global is given: `target`, `select` or `optimal` (the first
    of several that the runtime finds)."""

    @property
    def backend(self) -> str:
        return self.targets[0].backend if self.targets else "unknown"

    def describe(self) -> str:
        return f"@{self.symbol} ({self.backend})"

    @property
    def target(self) -> Target | None:
        """The target table's entry for its first executable target (None
        where the table has nothing for the backend)."""
        return target_of(self.targets[0]) if self.targets else None


@cache
def target_of(executable: ExecutableTarget) -> Target | None:
    """The target xsplit models an executable target as."""
    backend = executable.backend
    if backend == "llvm-cpu":
        vector = executable.get("native_vector_size")
        cpu = cpu_for_features(
            host_cpu(),
            executable.get("cpu") or "",
            executable.get("cpu_features") or "",
            int(vector) if vector and vector.isdigit() else None,
        )
        from dataclasses import replace

        return replace(cpu_target(cpu), name="llvm-cpu")
    if backend == "vmvx":
        return vmvx_target()
    if backend in ("cuda", "rocm"):
        arch = re.search(r'arch\s*=\s*"([^"]+)"', executable.config)
        name = arch.group(1) if arch else ("sm_80" if backend == "cuda" else "gfx942")
        return TARGETS.get(name) or target(backend)
    return None


# Reading the attributes' text.


def _balanced(text: str, start: int) -> int:
    """The index just past the `<`, `[`, `{` or `(` group opening at `start`,
    skipping strings."""
    depth, i, closing = 0, start, {"<": ">", "[": "]", "{": "}", "(": ")"}
    stack: list[str] = []
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c in closing:
            stack.append(closing[c])
            depth += 1
        elif stack and c == stack[-1] and not (c == ">" and text[i - 1] == "-"):
            stack.pop()
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(text)


_EXECUTABLE = re.compile(r'#hal\.executable\.target<\s*"([^"]*)"\s*,\s*"([^"]*)"\s*(,\s*)?')


def executable_targets(text: str) -> tuple[ExecutableTarget, ...]:
    """Every `#hal.executable.target` in an attribute's text, in order."""
    found = []
    for m in _EXECUTABLE.finditer(text):
        config = "{}"
        if m.group(3) and text[m.end()] == "{":
            config = text[m.end() : _balanced(text, m.end())]
        found.append(ExecutableTarget(m.group(1), m.group(2), config))
    return tuple(found)


def _text(attr: Attribute | None) -> str:
    if attr is None:
        return ""
    inner = getattr(attr, "text", None)
    return inner.data if inner is not None else str(attr)


def affinity_symbol(attr: Attribute | None) -> str | None:
    """`dev_b` of `#hal.device.affinity<@dev_b>` (or `<@dev_b, [0]>`)."""
    found = re.match(r"#hal\.device\.affinity<\s*@([\w$.\-]+)", _text(attr))
    return found.group(1) if found else None


def _op_name(op: Operation) -> str:
    name = getattr(op, "op_name", None)
    return name.data if name is not None else op.name


def _device_from_value(symbol: str, text: str) -> Device | None:
    selection = "target"
    for kind in ("select", "optimal"):
        if text.startswith(f"#hal.device.{kind}<"):
            selection = kind
    if not text.startswith("#hal.device."):
        return None
    return Device(symbol, executable_targets(text), selection)


@dataclass
class ModuleDevices:
    devices: dict[str, Device]
    default: str | None


def module_devices(module: ModuleOp) -> ModuleDevices:
    """The devices a module declares and its default affinity."""
    devices: dict[str, Device] = {}
    for op in module.ops:
        if _op_name(op) != "util.global":
            continue
        sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
        value = op.properties.get("initial_value") or op.attributes.get("initial_value")
        device = _device_from_value(getattr(sym, "data", ""), _text(value))
        if device is not None:
            devices[device.symbol] = device
    listed = module.attributes.get("hal.device.targets")
    if listed is not None:
        text = _text(listed)
        index, pos = 0, 0
        head = re.compile(r"#hal\.device\.(target|select|optimal)<")
        while (m := head.search(text, pos)) is not None:
            end = _balanced(text, m.end() - 1)
            device = _device_from_value(f"__device_{index}", text[m.start() : end])
            if device is not None:
                devices.setdefault(device.symbol, device)
            index, pos = index + 1, end
    return ModuleDevices(devices, affinity_symbol(module.attributes.get(DEFAULT_AFFINITY)))


def _module(op: Operation) -> ModuleOp | None:
    found = None
    parent: Operation | None = op
    while parent is not None:
        if isinstance(parent, ModuleOp):
            found = parent
        parent = parent.parent_op()
    return found


def _own_affinity(op: Operation) -> str | None:
    if _op_name(op) == "flow.tensor.transfer":
        return affinity_symbol(op.properties.get("target") or op.attributes.get("target"))
    return affinity_symbol(op.attributes.get(AFFINITY) or op.properties.get(AFFINITY))


def _explicit(op: Operation, seen: dict[Operation, str | None]) -> str | None:
    """The device `op` is placed on by itself or by the values it reads
    (steps 1 and 2); None where neither says; '' where they disagree."""
    if op in seen:
        return seen[op]
    seen[op] = None  # a cycle says nothing
    own = _own_affinity(op)
    if own is not None:
        seen[op] = own
        return own
    found: set[str] = set()
    for operand in op.operands:
        symbol = _value_device(operand, seen)
        if symbol:
            found.add(symbol)
        elif symbol == "":
            found.add("")
    if len(found) == 1:
        seen[op] = found.pop()
    elif found:
        seen[op] = ""
    parent = op.parent_op()
    if seen[op] is None and parent is not None and not _is_function(parent):
        # An op in a region (a dispatch, a loop) runs where the op holding it does.
        seen[op] = _explicit(parent, seen)
    return seen[op]


def _value_device(value: SSAValue, seen: dict[Operation, str | None]) -> str | None:
    if isinstance(value, BlockArgument):
        return None
    assert isinstance(value.owner, Operation)
    return _explicit(value.owner, seen)


def _is_function(op: Operation) -> bool:
    return _op_name(op) in ("func.func", "util.func")


def _function_affinity(op: Operation) -> str | None:
    parent = op.parent_op()
    while parent is not None:
        if _is_function(parent):
            return _own_affinity(parent)
        parent = parent.parent_op()
    return None


@dataclass(frozen=True)
class Placement:
    """Where one op runs and what it is modeled as."""

    device: Device | None
    target: Target
    note: str | None = None
    """Why the device was not used, for a remark (undetermined, overridden)."""

    def prefix(self) -> str:
        """`on @dev_b (vmvx): ` for remarks, or nothing without a device."""
        return f"on {self.device.describe()}: " if self.device is not None else ""

    def why_not_one_llvm_cpu_device(self, op: Operation) -> str | None:
        """Why code of xsplit's own for llvm-cpu (IREE CPU tiles, a CPU
        dispatch) cannot go where `op` is placed, or None. IREE 3.13 may
        build such code for every device's executable target in a module of
        several devices, VMVX's too, which fails on it."""
        if self.device is None:
            return None
        module = _module(op)
        if module is not None and len(module_devices(module).devices) > 1:
            return "the module declares several devices"
        if self.device.backend != "llvm-cpu":
            return f"its device is {self.device.describe()}, not llvm-cpu"
        return None


def device_of(op: Operation) -> Device | str | None:
    """The device `op` runs on; None in a module that declares none; a
    reason where it has devices but this op's cannot be told. An affinity
    that names no declared device is an error at the op that names it."""
    module = _module(op)
    if module is None:
        return None
    declared = module_devices(module)
    if not declared.devices:
        return None
    # The whole module, not only what this op reads: a pass that asks first
    # fails before its first rewrite, never leaving the module half-materialized.
    check_affinities(module)
    seen: dict[Operation, str | None] = {}
    symbol = _explicit(op, seen)
    if symbol is None:
        symbol = _function_affinity(op)
    if symbol is None:
        symbol = declared.default
    if symbol is None and len(declared.devices) == 1:
        symbol = next(iter(declared.devices))
    if symbol is None:
        return "no affinity places it and the module has no stream.affinity.default"
    if symbol == "":
        return "its operands are on different devices"
    device = declared.devices.get(symbol)
    if device is None:
        culprit = next(
            (o for o, s in seen.items() if s == symbol and _own_affinity(o) == symbol), op
        )
        raise XsplitError(f"affinity names @{symbol}, which is no device global of the module", culprit)
    return device


def check_affinities(module: ModuleOp) -> None:
    """Raises, located, for the first affinity that names no declared device."""
    declared = module_devices(module)
    symbols = set(declared.devices)
    if declared.default is not None and symbols and declared.default not in symbols:
        raise XsplitError(
            f"stream.affinity.default names @{declared.default}, which is no device global",
            module,
        )
    for op in module.walk():
        own = _own_affinity(op)
        if own is not None and own not in symbols:
            raise XsplitError(f"affinity names @{own}, which is no device global of the module", op)


def placement(op: Operation, given: str | None, fallback: str = "cpu") -> Placement:
    """The target `op` is modeled and laid out for: `given` (a `target=`)
    overrides the device; without it, the op's device; where that cannot
    be told, `fallback`, with a note saying so."""
    found = device_of(op)
    device = found if isinstance(found, Device) else None
    if given is not None:
        return Placement(device, target(given))
    if device is not None:
        modeled = device.target
        if modeled is None:
            return Placement(
                device,
                target(fallback),
                f"no layout known for backend '{device.backend}'; using target={fallback}",
            )
        return Placement(device, modeled)
    if isinstance(found, str):
        return Placement(None, target(fallback), f"device not determined ({found}); using target={fallback}")
    return Placement(None, target(fallback))


def same_device(a: Operation, b: Operation) -> bool:
    """Whether two ops may share a layout: on one device, or in a module
    with none, or where either's device cannot be told (then one target
    lays both out)."""
    da, db = device_of(a), device_of(b)
    if not isinstance(da, Device) or not isinstance(db, Device):
        return True
    return da.symbol == db.symbol


DEVICE = "device"
"""The `target=` value that reads each op's device (`auto`'s default)."""


def modeled(op: Operation, name: str | None) -> Placement | None:
    """The placement a pass with `target=name` models `op` with: None
    without a name (no model), the op's device for `device`, else the
    named target (on the op's device, for remarks). Remarks the fallback
    where the device cannot be told."""
    if name is None:
        return None
    placed = placement(op, None if name == DEVICE else name)
    if placed.note is not None:
        from xsplit.diagnostics import remark

        remark(op, placed.note)
    return placed
