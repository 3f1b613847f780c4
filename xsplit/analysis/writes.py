"""Which buffers a kernel may write.

A memref is written when some use of it, or of a view of it, stores into it:
`memref.store`, `affine.store`, `vector.store`, `vector.transfer_write`,
`memref.atomic_rmw`, the target of `memref.copy`, or a linalg op's init. Reads
and views are seen through. Any other use is assumed to write, so that an op
the analysis cannot see into never makes a written buffer look read-only:
`export-dispatch` marks unwritten bindings read-only, and the simulator
compares only the written ones, so a wrong "read-only" would be a silent
miscompile or a missed check.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation, SSAValue

VIEW_OPS = frozenset(
    {
        "memref.subview",
        "memref.cast",
        "memref.reinterpret_cast",
        "memref.expand_shape",
        "memref.collapse_shape",
        "memref.transpose",
        "memref.assume_alignment",
    }
)
"""Ops whose result aliases their first operand."""

READ_OPS = frozenset(
    {
        "memref.load",
        "memref.dim",
        "affine.load",
        "vector.load",
        "vector.transfer_read",
        # A hint, even `write`: the element is not changed.
        "memref.prefetch",
    }
)

# op name -> the operand position that is the buffer written
_STORE_OPS = {
    "memref.store": 1,
    "affine.store": 1,
    "vector.store": 1,
    "vector.transfer_write": 1,
    "memref.atomic_rmw": 1,
    # The aligned pointer feeds llvm.atomicrmw (relaxed_atomics.py).
    "memref.extract_aligned_pointer_as_index": 0,
    "memref.copy": 1,
    "nvgpu.device_async_copy": 0,
}


_UPDATES = ("memref.atomic_rmw", "memref.extract_aligned_pointer_as_index")
"""Writes that read the element too."""


def may_write(value: SSAValue) -> bool:
    """Whether a memref value, or any view of it, may be written."""
    for use in value.uses:
        op = use.operation
        if op.name in VIEW_OPS:
            if any(may_write(r) for r in op.results):
                return True
            continue
        if op.name in READ_OPS:
            continue
        if op.name in _STORE_OPS:
            if use.index == _STORE_OPS[op.name]:
                return True
            continue
        if op.name.startswith("linalg."):
            # Operands come inputs first: `inputs` of a structured op, the
            # one `input` of linalg.reduce and linalg.broadcast. Anything
            # after them (inits, and every operand of an op not known here)
            # is written.
            read = _linalg_input_count(op)
            if use.index >= read:
                return True
            continue
        return True
    return False


def kernel_buffers(func: Operation) -> list[tuple[str, object, object]]:
    """The kernel's buffers, in order: its arguments, or (a function of a
    `hal.executable.source`, without arguments) its bindings by number.
    Each is (name, type, the value or op that stands for it)."""
    args = list(func.regions[0].blocks[0].args)
    if args:
        return [
            (a.name_hint and f"%{a.name_hint}" or f"%arg{i}", a.type, a) for i, a in enumerate(args)
        ]
    subspans = [op for op in func.walk() if op.name == "hal.interface.binding.subspan"]
    subspans.sort(key=lambda op: int(op.properties["binding"].value.data))  # type: ignore[union-attr]
    out: list[tuple[str, object, object]] = []
    for i, op in enumerate(subspans):
        hint = op.results[0].name_hint
        out.append((f"%{hint}" if hint else f"%binding{i}", op.results[0].type, op))
    return out


def _linalg_input_count(op: Operation) -> int:
    """How many of a linalg op's operands come first as inputs: a structured
    op's `inputs`, the one `input` of linalg.reduce and linalg.broadcast;
    none for an op not known here, so that all its operands count as inits."""
    inputs = getattr(op, "inputs", None)
    if inputs is not None:
        return len(inputs)
    return 1 if op.name in ("linalg.reduce", "linalg.broadcast") else 0


def _buffers_where(func: Operation, test: Callable[[SSAValue], bool]) -> list[int]:
    """The positions of the kernel's buffers (see `kernel_buffers`) whose
    value, or binding's result, passes `test`."""
    found = []
    for i, (_, _, value) in enumerate(kernel_buffers(func)):
        results = value.results if isinstance(value, Operation) else [value]
        if any(test(r) for r in results):  # type: ignore[arg-type]
            found.append(i)
    return found


def written_arguments(func: Operation) -> list[int]:
    """The positions of the kernel's buffers (see `kernel_buffers`) that it
    may write, through any view of them."""
    return _buffers_where(func, may_write)


def _reads_init(op: Operation, index: int) -> bool:
    """Whether a linalg op reads the init at operand `index`: its payload
    uses the block argument for it (a fill or a copy does not; a matmul or a
    reduction accumulates into it). Unknown: read."""
    blocks = [b for r in op.regions for b in r.blocks]
    if not blocks or index >= len(blocks[0].args):
        return True
    return next(iter(blocks[0].args[index].uses), None) is not None


def may_read(value: SSAValue) -> bool:
    """Whether the contents of a memref value, or of any view of it, may be
    read: loaded, updated atomically, copied from, a linalg op's input, or an
    init its payload reads. Any use not known here is assumed to read.
    Accesses are not ordered: a buffer written and then read counts as read."""
    for use in value.uses:
        op = use.operation
        if op.name in VIEW_OPS:
            if any(may_read(r) for r in op.results):
                return True
            continue
        if op.name == "memref.dim" or op.name == "memref.dealloc":
            continue
        if op.name in READ_OPS:
            return True
        if op.name in _STORE_OPS and op.name not in _UPDATES:
            if use.index == _STORE_OPS[op.name]:
                continue
            return True
        if op.name.startswith("linalg."):
            read = _linalg_input_count(op)
            if use.index < read or _reads_init(op, use.index):
                return True
            continue
        return True
    return False


def read_arguments(func: Operation) -> list[int]:
    """The positions of the kernel's buffers (see `kernel_buffers`) that it
    may read, through any view of them."""
    return _buffers_where(func, may_read)


def kernel_inputs(func: Operation) -> list[int]:
    """The positions of the kernel's buffers whose contents on entry may
    matter: those it may read, and those it never writes. The others are its
    outputs, only written."""
    read, written = set(read_arguments(func)), set(written_arguments(func))
    return [i for i in range(len(kernel_buffers(func))) if i in read or i not in written]
